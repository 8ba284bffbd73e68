/* irq: steer IRQs off the shield (see irq.h). Each IRQ's mask and effective CPU are journalled together
 * (an "irq" entry): the undo puts the effective CPU back first, then the mask.
 * The IRQ threads' masks are journalled before the first IRQ moves (irq_threads.h: the undo puts them
 * back after every IRQ is back).
 * Must never: write an affinity before its old value is journalled, set an IRQ thread's CPU mask during
 * the run (they follow their IRQ's effective affinity by themselves), or treat a refused IRQ as a
 * failure of the run (managed IRQs refuse by design: they are listed, and the run goes on). */
#include "irq.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "procfs.h"

char *jl_irq_format_mask(const cpu_set_t *set, char *buf, size_t len)
{
	int top = -1;
	size_t used = 0;

	if (len)
		buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			top = c;
	if (top < 0) {
		snprintf(buf, len, "0");
		return buf;
	}
	for (int g = top / 32; g >= 0; g--) {
		unsigned word = 0;
		int n;

		for (int b = 0; b < 32; b++)
			if (CPU_ISSET(g * 32 + b, set))
				word |= 1u << b;
		n = snprintf(buf + used, len - used, g == top / 32 ? "%x" : ",%08x", word);
		if (n < 0 || (size_t)n >= len - used)
			break;
		used += (size_t)n;
	}
	return buf;
}

static int steer_one(struct jl_irq_steer *st, const char *path, int irq, const cpu_set_t *hk, struct jl_journal *j,
		     char *err, size_t errlen)
{
	char old[1024], want[1024], perr[128], epath[600], eff[1024];
	cpu_set_t cur, next;

	if (jl_knob_read(path, old, sizeof(old)))
		return 0; /* gone meanwhile, or not readable: nothing to steer */
	if (jl_cpulist_parse(old, &cur, perr, sizeof(perr)))
		return 0;
	CPU_AND(&next, &cur, hk);
	if (CPU_COUNT(&next) == 0)
		next = *hk;
	if (CPU_EQUAL(&next, &cur)) {
		st->kept++;
		return 0;
	}
	jl_cpulist_format(&next, want, sizeof(want));
	snprintf(epath, sizeof(epath), "%s/%d/effective_affinity_list", st->proc_irq, irq);
	if (jl_knob_read(epath, eff, sizeof(eff)))
		eff[0] = '\0'; /* not every kernel or IRQ chip says */
	if (jl_journal_record_irq(j, path, old, eff)) {
		snprintf(err, errlen, "irq: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		return -1;
	}
	if (jl_knob_write(path, want)) {
		st->refused_errno = errno;
		if (st->nrefused < JL_IRQ_MAX_REFUSED)
			st->refused[st->nrefused++] = irq;
		return 0;
	}
	st->moved++;
	if (st->nsteered < JL_IRQ_MAX_STEERED) {
		st->steered[st->nsteered].irq = irq;
		st->steered[st->nsteered].mask = next;
		st->nsteered++;
	}
	return 0;
}

int jl_irq_steer_apply(struct jl_irq_steer *st, const char *proc_irq, const cpu_set_t *hk, struct jl_journal *j,
		       char *err, size_t errlen)
{
	char path[512], old[256], mask[256];
	struct dirent *e;
	DIR *d;

	memset(st, 0, sizeof(*st));
	if (!proc_irq)
		proc_irq = JL_PROC_IRQ;
	st->proc_irq = proc_irq;
	d = opendir(proc_irq);
	if (!d) {
		snprintf(err, errlen, "irq: cannot read %s: %s", proc_irq, strerror(errno));
		return -1;
	}
	/* the IRQ threads follow their IRQs' moves: their masks first, put back after every IRQ is (a no-op
	 * when the shield journalled them already, before its cgroup changes); the machine's alone */
	if (!strcmp(proc_irq, JL_PROC_IRQ) && jl_journal_record_irq_threads(j)) {
		snprintf(err, errlen, "irq: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		closedir(d);
		return -1;
	}
	/* IRQs that appear during the run follow the default affinity */
	snprintf(path, sizeof(path), "%s/default_smp_affinity", proc_irq);
	jl_irq_format_mask(hk, mask, sizeof(mask));
	if (jl_knob_read(path, old, sizeof(old)) == 0 && strcmp(old, mask)) {
		if (jl_journal_record_write(j, path, old)) {
			snprintf(err, errlen, "irq: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
			closedir(d);
			return -1;
		}
		if (jl_knob_write(path, mask) == 0)
			st->default_moved = 1;
	}
	while ((e = readdir(d))) {
		char *end;
		long irq = strtol(e->d_name, &end, 10);

		if (end == e->d_name || *end)
			continue;
		snprintf(path, sizeof(path), "%s/%s/smp_affinity_list", proc_irq, e->d_name);
		if (steer_one(st, path, (int)irq, hk, j, err, errlen)) {
			closedir(d);
			return -1;
		}
	}
	closedir(d);
	return 0;
}

int jl_irq_names(const char *proc_irq, void (*fn)(void *ctx, int irq, const char *name), void *ctx)
{
	struct dirent *e;
	int named = 0;
	DIR *d = opendir(proc_irq ? proc_irq : JL_PROC_IRQ);

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char path[512], names[256] = "";
		struct dirent *a;
		char *end;
		long irq = strtol(e->d_name, &end, 10);
		DIR *ad;
		size_t o = 0;

		if (end == e->d_name || *end || irq < 0 || irq > 1 << 20)
			continue;
		snprintf(path, sizeof(path), "%s/%s", proc_irq ? proc_irq : JL_PROC_IRQ, e->d_name);
		if (!(ad = opendir(path)))
			continue;
		while ((a = readdir(ad)))
			if (a->d_type == DT_DIR && a->d_name[0] != '.' && o < sizeof(names))
				o += (size_t)snprintf(names + o, sizeof(names) - o, "%s%s", o ? ", " : "", a->d_name);
		closedir(ad);
		if (names[0]) {
			fn(ctx, (int)irq, names);
			named++;
		}
	}
	closedir(d);
	return named;
}

pid_t jl_irq_balancer_running(void)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	pid_t found = 0;

	while (d && !found && (e = readdir(d))) {
		char path[300], comm[64];
		char *end;
		long pid = strtol(e->d_name, &end, 10);

		if (end == e->d_name || *end)
			continue;
		snprintf(path, sizeof(path), "/proc/%ld/comm", pid);
		if (jl_knob_read(path, comm, sizeof(comm)) == 0 && !strcmp(comm, "irqbalance"))
			found = (pid_t)pid;
	}
	if (d)
		closedir(d);
	return found;
}

int jl_irq_steer_check(struct jl_irq_steer *st)
{
	st->nmoved_during = 0;
	for (int i = 0; i < st->nsteered; i++) {
		char path[512], now[1024], perr[128];
		cpu_set_t cur;

		snprintf(path, sizeof(path), "%s/%d/smp_affinity_list", st->proc_irq ? st->proc_irq : JL_PROC_IRQ,
			 st->steered[i].irq);
		if (jl_knob_read(path, now, sizeof(now)) || jl_cpulist_parse(now, &cur, perr, sizeof(perr)))
			continue; /* freed meanwhile */
		if (!CPU_EQUAL(&cur, &st->steered[i].mask) && st->nmoved_during < JL_IRQ_MAX_REFUSED)
			st->moved_during[st->nmoved_during++] = st->steered[i].irq;
	}
	return st->nmoved_during;
}

void jl_irq_steer_describe(const struct jl_irq_steer *st, json_object *obj)
{
	json_object *refused = json_object_new_array(), *during = json_object_new_array();

	for (int i = 0; i < st->nrefused; i++)
		json_object_array_add(refused, json_object_new_int(st->refused[i]));
	json_object_object_add(obj, "moved", json_object_new_int(st->moved));
	json_object_object_add(obj, "kept", json_object_new_int(st->kept));
	json_object_object_add(obj, "refused", refused);
	json_object_object_add(obj, "default_moved", json_object_new_boolean(st->default_moved));
	for (int i = 0; i < st->nmoved_during; i++)
		json_object_array_add(during, json_object_new_int(st->moved_during[i]));
	json_object_object_add(obj, "moved_during_run", during);
}
