/* journal_replay: undo a journal (see journal.h): load it (only the last line may be torn), check every
 * entry names a knob jitterlab may change, undo newest first; list the journals of a directory.
 * Must never: write or remove anything outside /proc/irq/, sched_rt_runtime_us, the fair server's
 * cpuN/runtime files and the v1 cpuset/cpu cgroup mounts, follow a symlink to a journal, or end a process that is not the recorded child (pid
 * AND start time must match). */
#include "journal.h"
#include "journal_int.h"
#include "fair_server.h"
#include "stale_runs.h"
#include "cpulist.h"
#include "irq_threads.h"
#include "procfs.h"
#include "cgroupfs.h"
#include "runnames.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <mntent.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"
#define FAIR_SERVER_PREFIX JL_FAIR_SERVER_DIR "/cpu"

static char allow_prefix[256];

void jl_journal_allow_prefix(const char *prefix)
{
	snprintf(allow_prefix, sizeof(allow_prefix), "%s", prefix ? prefix : "");
}

/* Is PATH strictly below DIR? */
static bool under(const char *path, const char *dir)
{
	size_t n = strlen(dir);

	while (n > 1 && dir[n - 1] == '/')
		n--;
	return n > 0 && !strncmp(path, dir, n) && path[n] == '/' && path[n + 1];
}

/* Is PATH inside a cgroup v1 mount of the cpuset or cpu controller? */
static bool in_cgroup_mount(const char *path)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *e;
	bool found = false;

	while (f && !found && (e = getmntent(f))) {
		char opts[512], *save = NULL;

		if (strcmp(e->mnt_type, "cgroup") || !under(path, e->mnt_dir))
			continue;
		snprintf(opts, sizeof(opts), "%s", e->mnt_opts);
		for (char *t = strtok_r(opts, ",", &save); t && !found; t = strtok_r(NULL, ",", &save))
			found = !strcmp(t, "cpuset") || !strcmp(t, "cpu");
	}
	if (f)
		endmntent(f);
	return found;
}

/* The part of PATH below the cgroup2 mount it lies in, or NULL when it lies in none. */
static const char *cgroup2_rel(const char *path)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *e;
	const char *rel = NULL;

	while (f && !rel && (e = getmntent(f))) {
		size_t n = strlen(e->mnt_dir);

		if (!strcmp(e->mnt_type, "cgroup2") && under(path, e->mnt_dir))
			rel = path + n + (e->mnt_dir[n - 1] == '/' ? 0 : 1);
	}
	if (f)
		endmntent(f);
	return rel;
}

static bool ends_with(const char *s, const char *suffix)
{
	size_t n = strlen(s), k = strlen(suffix);

	return n >= k && !strcmp(s + n - k, suffix);
}

/* Is PATH, inside a cgroup2 mount, one jitterlab changes: one of its own top-level cgroups
 * (jitterlab-PID-shield, or inside one), the root's cgroup.subtree_control or cgroup.threads, or a
 * cgroup.procs (where a process moved into the root goes back)? Each entry kind narrows it further. */
static bool in_cgroup2_ours(const char *path)
{
	const char *rel = cgroup2_rel(path);
	char first[256];

	if (!rel)
		return false;
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(rel, "/"), rel);
	return jl_stale_cpuset_pid(first) != 0 || !strcmp(rel, "cgroup.subtree_control") ||
	       !strcmp(rel, "cgroup.threads") || !strcmp(rel, "cgroup.procs") || ends_with(rel, "/cgroup.procs");
}


bool jl_journal_path_allowed(const char *path)
{
	if (!path || path[0] != '/' || strstr(path, "/..") || strstr(path, "//"))
		return false;
	if (!strcmp(path, RT_RUNTIME_PATH) || under(path, "/proc/irq"))
		return true;
	if (!strncmp(path, FAIR_SERVER_PREFIX, sizeof(FAIR_SERVER_PREFIX) - 1)) {
		/* /sys/kernel/debug/sched/fair_server/cpuN/runtime, nothing else of debugfs */
		const char *p = path + sizeof(FAIR_SERVER_PREFIX) - 1;

		p += strspn(p, "0123456789");
		return p > path + sizeof(FAIR_SERVER_PREFIX) - 1 && !strcmp(p, "/runtime");
	}
	if (allow_prefix[0] && under(path, allow_prefix))
		return true;
	return in_cgroup_mount(path) || in_cgroup2_ours(path);
}

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static int line_of(json_object *o)
{
	json_object *v;

	return json_object_object_get_ex(o, "_line", &v) ? json_object_get_int(v) : 0;
}

static void say(char *report, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *report, size_t len, const char *fmt, ...)
{
	size_t used = strlen(report);
	va_list ap;

	if (used + 1 >= len)
		return;
	if (used)
		report[used++] = ';', report[used] = '\0';
	if (used + 1 >= len)
		return;
	if (used)
		report[used++] = ' ', report[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(report + used, len - used, fmt, ap);
	va_end(ap);
}

static int refuse_path(json_object *o, const char *path, char *report, size_t len)
{
	say(report, len, "journal corrupted at line %d: %s is not a setting jitterlab changes (entry refused)",
	    line_of(o), path);
	return -1;
}

/* The directory holding PATH no longer exists (the IRQ was freed, the cgroup removed)? */
static bool target_gone(const char *path)
{
	char dir[4096];
	char *slash;
	struct stat st;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (!slash || slash == dir)
		return false;
	*slash = '\0';
	return stat(dir, &st) && errno == ENOENT;
}

static int undo_write_plain(json_object *o, char *report, size_t len);

/* A write entry; one of a debugfs file is undone with debugfs mounted (and unmounted again if we did). */
static int undo_write(json_object *o, char *report, size_t len)
{
	json_object *v;
	bool mounted = false;
	int rc;

	if (!json_object_object_get_ex(o, "debugfs", &v) || !json_object_get_boolean(v))
		return undo_write_plain(o, report, len);
	if (jl_debugfs_mount(&mounted)) {
		say(report, len, "cannot mount debugfs to put back %s: %s", str_field(o, "path") ? str_field(o, "path") : "?",
		    strerror(errno));
		return -1;
	}
	rc = undo_write_plain(o, report, len);
	jl_debugfs_unmount(mounted);
	return rc;
}

static int undo_write_plain(json_object *o, char *report, size_t len)
{
	const char *path = str_field(o, "path"), *old = str_field(o, "old");
	char now[4096];

	if (!path || !old) {
		say(report, len, "journal corrupted at line %d: malformed write entry", line_of(o));
		return -1;
	}
	/* a plain write never targets cgroup v2 files (their entries have kinds of their own) */
	if (!jl_journal_path_allowed(path) || cgroup2_rel(path))
		return refuse_path(o, path, report, len);
	if (jl_knob_read(path, now, sizeof(now)) == 0 && !strcmp(now, old))
		return 0;
	if (jl_knob_write(path, old)) {
		if (errno == ENOENT && (under(path, "/proc/irq") || in_cgroup_mount(path)) && target_gone(path)) {
			say(report, len, "%s no longer exists (%s): nothing to put back", path,
			    under(path, "/proc/irq") ? "the IRQ was freed" : "its directory was removed");
			return 0;
		}
		say(report, len, "could not write '%s' back to %s: %s", old, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* ---- IRQ affinity: the effective CPU first, then the mask (see jl_journal_record_irq) ---- */

#define IRQ_SETTLE_MS 1000

/* The effective_affinity_list beside an IRQ entry's smp_affinity_list, or NULL when the entry is not
 * one (a corrupted journal naming another file). */
static const char *irq_effective_path(const char *path, char *buf, size_t len)
{
	static const char leaf[] = "/smp_affinity_list";
	size_t n = strlen(path), l = sizeof(leaf) - 1;

	if (n <= l || strcmp(path + n - l, leaf) || n - l + sizeof("/effective_affinity_list") > len)
		return NULL;
	snprintf(buf, len, "%.*s/effective_affinity_list", (int)(n - l), path);
	return buf;
}

static int irq_of_path(const char *path);

/* How many interrupts IRQ (of the smp_affinity_list PATH, /proc/irq/N/...) took on the CPUs of LIST, from
 * the interrupts file beside its irq directory (/proc/interrupts; a test's fake tree has none): -1 when it
 * cannot be read. */
static long long irq_count_on(const char *path, const char *list)
{
	char file[4200], line[8192], want[16];
	const char *at = strstr(path, "/irq/");
	int cpu_of[1024], ncols = 0, irq = irq_of_path(path);
	long long sum = -1;
	cpu_set_t set;
	FILE *f;

	if (!at || irq < 0 || jl_cpulist_parse(list, &set, NULL, 0))
		return -1;
	snprintf(file, sizeof(file), "%.*s/interrupts", (int)(at - path), path);
	if (!(f = fopen(file, "re")))
		return -1;
	if (fgets(line, sizeof(line), f)) /* the header: CPU0 CPU1 ... (online CPUs only) */
		for (char *save = NULL, *tok = strtok_r(line, " \t\n", &save); tok && ncols < 1024;
		     tok = strtok_r(NULL, " \t\n", &save))
			cpu_of[ncols++] = strncmp(tok, "CPU", 3) ? -1 : atoi(tok + 3);
	snprintf(want, sizeof(want), "%d:", irq);
	while (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, " \t\n", &save);

		if (!tok || strcmp(tok, want))
			continue;
		sum = 0;
		for (int c = 0; c < ncols && (tok = strtok_r(NULL, " \t\n", &save)); c++)
			if (cpu_of[c] >= 0 && cpu_of[c] < CPU_SETSIZE && CPU_ISSET(cpu_of[c], &set))
				sum += atoll(tok);
		break;
	}
	fclose(f);
	return sum;
}

/* Is an IRQ entry's move back to its effective CPU done: delivered there, and (where the interrupts file
 * says) an interrupt taken there since the write? x86 shows the new CPU as effective at once but keeps the
 * old vector until the first interrupt on the new one, and a mask written meanwhile that holds the old CPU
 * takes the IRQ back there (measured in the RT guest: write 1, then 0-1 at once: delivered to CPU 0). */
static bool irq_moved_back(json_object *o)
{
	const char *path = str_field(o, "path"), *eff = str_field(o, "effective");
	char epath[4200], now[1024];
	json_object *v;

	if (jl_knob_read(irq_effective_path(path, epath, sizeof(epath)), now, sizeof(now)))
		return true; /* freed meanwhile: nothing to wait for */
	if (strcmp(now, eff))
		return false;
	return !json_object_object_get_ex(o, "_count", &v) || irq_count_on(path, eff) > json_object_get_int64(v);
}

/* Phase 1 of the IRQ undo, for every irq entry of a replay at once: write each IRQ's old effective CPU
 * where it is delivered elsewhere now, then wait (IRQ_SETTLE_MS for all of them together) until each
 * move is done (irq_moved_back); a move is applied at the IRQ's next interrupt. Phase 2 is undo_irq. */
static void irq_effective_first(json_object *arr)
{
	size_t n = json_object_array_length(arr);
	bool waiting = false;

	for (size_t i = n; i-- > 0;) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *op = str_field(o, "op"), *path = str_field(o, "path"), *eff = str_field(o, "effective");
		char epath[4200], now[1024];

		if (!op || strcmp(op, "irq") || !path || !eff || !eff[0] || !jl_journal_path_allowed(path) ||
		    !irq_effective_path(path, epath, sizeof(epath)))
			continue;
		if (jl_knob_read(epath, now, sizeof(now)) || !strcmp(now, eff))
			continue;
		long long count = irq_count_on(path, eff);

		if (count >= 0)
			json_object_object_add(o, "_count", json_object_new_int64(count));
		int rc = jl_knob_write(path, eff), busy = rc && errno == EBUSY;

		if (rc == 0 || busy) {
			/* EBUSY: an earlier move of it is not cleaned up yet (x86): written again below */
			json_object_object_add(o, "_settling", json_object_new_boolean(1));
			if (busy)
				json_object_object_add(o, "_busy", json_object_new_boolean(1));
			waiting = true;
		}
	}
	for (int ms = 0; waiting && ms < IRQ_SETTLE_MS; ms += 5) {
		struct timespec ts = { 0, 5 * 1000000L };

		waiting = false;
		for (size_t i = 0; i < n; i++) {
			json_object *o = json_object_array_get_idx(arr, i), *v;

			if (!json_object_object_get_ex(o, "_settling", &v))
				continue;
			if (json_object_object_get_ex(o, "_busy", &v) &&
			    (jl_knob_write(str_field(o, "path"), str_field(o, "effective")) == 0 || errno != EBUSY))
				json_object_object_del(o, "_busy");
			if (json_object_object_get_ex(o, "_busy", &v) || !irq_moved_back(o))
				waiting = true;
		}
		if (waiting)
			nanosleep(&ts, NULL);
	}
}

/* Phase 2: the old mask (an ordinary write). An effective CPU that did not come back is a note
 * (after_replay). */
static int undo_irq(json_object *o, char *report, size_t len)
{
	const char *path = str_field(o, "path"), *eff = str_field(o, "effective");
	char epath[4200];

	if (!path || !eff || !irq_effective_path(path, epath, sizeof(epath))) {
		say(report, len, "journal corrupted at line %d: malformed irq entry", line_of(o));
		return -1;
	}
	if (!under(path, "/proc/irq") && !(allow_prefix[0] && under(path, allow_prefix)))
		return refuse_path(o, path, report, len);
	return undo_write(o, report, len);
}

/* A task's CPU mask set back (see jl_journal_record_masks): while it is still that task, and only where
 * the mask differs. A task that is gone, or that refuses (it became a per-CPU kernel thread's twin, or
 * its CPUs went offline), counts as undone with a note: the mask is the task's, not a machine knob. */
static int undo_masks(json_object *o, char *report, size_t len)
{
	json_object *arr, *v;
	int refused = 0, first = -1;
	char why[64] = "";

	if (!json_object_object_get_ex(o, "tasks", &arr) || !json_object_is_type(arr, json_type_array)) {
		say(report, len, "journal corrupted at line %d: malformed masks entry", line_of(o));
		return -1;
	}
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		const char *list = str_field(e, "cpus");
		cpu_set_t want, now;
		pid_t tid;

		unsigned long long flags;

		if (!list || !json_object_object_get_ex(e, "tid", &v) || (tid = json_object_get_int(v)) <= 0 ||
		    !json_object_object_get_ex(e, "start", &v) || jl_cpulist_parse(list, &want, NULL, 0)) {
			say(report, len, "journal corrupted at line %d: malformed task in a masks entry (skipped)",
			    line_of(o));
			continue;
		}
		/* never an IRQ thread or a task the kernel pins (per-CPU kthreads), whatever the journal says */
		if (!jl_proc_is(tid, json_object_get_uint64(v)) || jl_irq_thread_irq(tid, NULL) >= 0 ||
		    jl_proc_flags(tid, &flags) || (flags & 0x04000000ULL) || sched_getaffinity(tid, sizeof(now), &now) ||
		    CPU_EQUAL(&now, &want))
			continue;
		if (sched_setaffinity(tid, sizeof(want), &want) && errno != ESRCH) {
			if (!refused++) {
				first = tid;
				snprintf(why, sizeof(why), "%s", strerror(errno));
			}
		}
	}
	if (refused)
		say(report, len, "%d task%s refused %s CPU mask back (first: %d, %s)", refused, refused == 1 ? "" : "s",
		    refused == 1 ? "its" : "their", first, why);
	return 0;
}

/* The journalled threads of an irqthreads entry, parsed (malloc'd into *OUT; NULL when none). Their count,
 * or -1 when the entry is malformed. */
static int irq_threads_of(json_object *o, struct jl_irq_thread_mask **out)
{
	json_object *arr, *v;
	size_t n;

	*out = NULL;
	if (!json_object_object_get_ex(o, "threads", &arr))
		return 0; /* a journal written before the threads were journalled: the flags alone */
	if (!json_object_is_type(arr, json_type_array))
		return -1;
	n = json_object_array_length(arr);
	if (!n)
		return 0;
	if (!(*out = calloc(n, sizeof(**out))))
		return -1;
	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(arr, i);
		struct jl_irq_thread_mask *t = &(*out)[i];
		const char *cpus = str_field(e, "cpus"), *eff = str_field(e, "effective");

		if (!cpus || jl_cpulist_parse(cpus, &t->cpus, NULL, 0) || !json_object_object_get_ex(e, "tid", &v) ||
		    (t->tid = json_object_get_int(v)) <= 0 || !json_object_object_get_ex(e, "start", &v)) {
			free(*out);
			*out = NULL;
			return -1;
		}
		t->start = json_object_get_uint64(v);
		t->irq = json_object_object_get_ex(e, "irq", &v) ? json_object_get_int(v) : -1;
		snprintf(t->effective, sizeof(t->effective), "%s", eff ? eff : "");
	}
	return (int)n;
}

/* Every threaded IRQ's smp_affinity_list written with its own value (the kernel flags the IRQ's threads to
 * re-derive their masks: at its next interrupt, from Linux 6.9 at once). Not with a unit test's fake knobs:
 * the machine's IRQs are not theirs. */
static void flag_irq_threads(char *report, size_t len)
{
	DIR *proc;
	struct dirent *d;
	unsigned char *done;

	if (allow_prefix[0])
		return;
	proc = opendir("/proc");
	done = calloc(1 << 17, 1); /* IRQ numbers already written (below 1 << 20) */
	while (proc && done && (d = readdir(proc))) {
		char path[96], mask[1024];
		pid_t tid = (pid_t)atoi(d->d_name);
		int irq = tid > 0 ? jl_irq_thread_irq(tid, NULL) : -1;

		if (irq < 0 || (done[irq >> 3] & (1u << (irq & 7))))
			continue;
		done[irq >> 3] |= (unsigned char)(1u << (irq & 7));
		snprintf(path, sizeof(path), "/proc/irq/%d/smp_affinity_list", irq);
		if (jl_knob_read(path, mask, sizeof(mask)) == 0 && jl_knob_write(path, mask) && errno != ENOENT &&
		    errno != EIO)
			say(report, len, "%s: cannot write %s again: %s", path, mask, strerror(errno));
	}
	if (proc)
		closedir(proc);
	free(done);
	if (!done)
		say(report, len, "IRQ threads: %s", strerror(ENOMEM));
}

/* The IRQ threads after every cgroup and IRQ change is undone (see jl_journal_record_irq_threads): the
 * flags, a moment for the threads the kernel woke to re-derive their masks, then each journalled thread's
 * mask put back where it differs. A thread left to the kernel, or one that refused, is marked on the entry
 * ("_left": tid -> why) for the notes (irq_thread_notes). */
static int undo_irq_threads(json_object *o, char *report, size_t len)
{
	struct jl_irq_thread_mask *t;
	enum jl_irq_thread_state *state;
	int n = irq_threads_of(o, &t), err, refused = 0;
	json_object *left;

	if (n < 0) {
		say(report, len, "journal corrupted at line %d: malformed irqthreads entry", line_of(o));
		return -1;
	}
	flag_irq_threads(report, len);
	if (!n)
		return 0;
	if (!allow_prefix[0])
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	if (!(state = calloc((size_t)n, sizeof(*state)))) {
		free(t);
		say(report, len, "IRQ threads: %s", strerror(ENOMEM));
		return -1;
	}
	jl_irq_threads_put_back(t, n, state, &err);
	left = json_object_new_object();
	for (int i = 0; i < n; i++) {
		char key[16];

		if (state[i] != JL_IRQT_LEFT && state[i] != JL_IRQT_REFUSED)
			continue;
		refused += state[i] == JL_IRQT_REFUSED;
		snprintf(key, sizeof(key), "%d", (int)t[i].tid);
		json_object_object_add(left, key, json_object_new_string(
			state[i] == JL_IRQT_LEFT ? "left to the kernel: on Linux 6.2+ sched_setaffinity would keep this "
						   "mask as a user mask that narrows the thread's later masks"
						 : strerror(err)));
	}
	json_object_object_add(o, "_left", left);
	if (refused)
		say(report, len, "%d IRQ thread%s refused %s CPU mask back (%s)", refused, refused == 1 ? "" : "s",
		    refused == 1 ? "its" : "their", strerror(err));
	free(state);
	free(t);
	return 0;
}

/* The name of the IRQ whose directory holds FILE (/proc/irq/N/...: its action's directory,
 * "virtio0-requests"), "" when none. */
static void irq_name(const char *file, char *buf, size_t len)
{
	char dir[4200];
	const char *slash = strrchr(file, '/');
	DIR *dp;
	struct dirent *d;

	buf[0] = '\0';
	snprintf(dir, sizeof(dir), "%.*s", slash ? (int)(slash - file) : 0, file);
	dp = opendir(dir);
	while (dp && (d = readdir(dp)))
		if (d->d_type == DT_DIR && d->d_name[0] != '.') {
			snprintf(buf, len, "%s", d->d_name);
			break;
		}
	if (dp)
		closedir(dp);
}

/* IRQ N's number from its entry's path (/proc/irq/N/smp_affinity_list: the directory's name), or -1. */
static int irq_of_path(const char *path)
{
	const char *leaf = path ? strrchr(path, '/') : NULL, *p = leaf;
	int irq = 0;

	while (p && p > path && p[-1] >= '0' && p[-1] <= '9')
		p--;
	if (!p || p == leaf || p == path || p[-1] != '/' || leaf - p > 7)
		return -1;
	for (; p < leaf; p++)
		irq = irq * 10 + (*p - '0');
	return irq;
}

/* A note of after_replay: KIND ("irq", "irq_thread") about IRQ (named NAME), WHY it is pending; the
 * caller adds the kind's own fields. */
static json_object *note_new(const char *kind, int irq, const char *name, const char *why)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "irq", json_object_new_int(irq));
	json_object_object_add(o, "name", json_object_new_string(name));
	json_object_object_add(o, "why", json_object_new_string(why));
	return o;
}

#define IRQ_THREAD_SETTLE_MS 200

/* A note about IRQ thread TID of IRQ (COMM: its name, "" when unknown) running on MASK while its IRQ is
 * delivered to EFF. */
static void irq_thread_note(json_object *notes, pid_t tid, int irq, const char *comm, const cpu_set_t *mask,
			    const char *eff, const char *why)
{
	char epath[64], name[64], list[1024];
	json_object *o;

	snprintf(epath, sizeof(epath), "/proc/irq/%d/effective_affinity_list", irq);
	irq_name(epath, name, sizeof(name));
	o = note_new("irq_thread", irq, name, why);
	json_object_object_add(o, "thread", json_object_new_string(comm));
	json_object_object_add(o, "pid", json_object_new_int(tid));
	json_object_object_add(o, "mask", json_object_new_string(jl_cpulist_format(mask, list, sizeof(list))));
	json_object_object_add(o, "effective", json_object_new_string(eff));
	json_object_array_add(notes, o);
}

/* The journalled IRQ threads (every irqthreads entry of ARR) whose mask is not the journalled one after the
 * undo: left to the kernel, refused, or re-derived by the kernel from an IRQ whose move back waits for its
 * next interrupt. A note each (at most 64; JOURNALLED gets every journalled tid). Returns how many. */
static int journalled_thread_notes(json_object *arr, json_object *notes, json_object *journalled)
{
	const struct jl_task_ops *ops = jl_irq_threads_ops();
	int count = 0;

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *left = NULL, *why;
		const char *op = str_field(o, "op");
		struct jl_irq_thread_mask *t;
		int n;

		if (!op || strcmp(op, "irqthreads") || (n = irq_threads_of(o, &t)) <= 0)
			continue;
		json_object_object_get_ex(o, "_left", &left);
		for (int k = 0; k < n; k++) {
			char key[16], comm[16] = "", epath[64], eff[1024] = "";
			cpu_set_t now;

			snprintf(key, sizeof(key), "%d", (int)t[k].tid);
			json_object_object_add(journalled, key, json_object_new_boolean(1));
			if (!ops->same(t[k].tid, t[k].start, t[k].irq) || ops->get(t[k].tid, &now) ||
			    CPU_EQUAL(&now, &t[k].cpus))
				continue;
			snprintf(epath, sizeof(epath), "/proc/irq/%d/effective_affinity_list", t[k].irq);
			if (jl_knob_read(epath, eff, sizeof(eff)))
				eff[0] = '\0';
			jl_irq_thread_irq(t[k].tid, comm);
			if (++count > 64 || !notes)
				continue;
			if (left && json_object_object_get_ex(left, key, &why))
				irq_thread_note(notes, t[k].tid, t[k].irq, comm, &now, eff, json_object_get_string(why));
			else
				irq_thread_note(notes, t[k].tid, t[k].irq, comm, &now, eff,
						strcmp(eff, t[k].effective)
							? "its IRQ's move back waits for the IRQ's next interrupt, and the "
							  "thread follows it then"
							: "the kernel changed it again after it was put back");
		}
		free(t);
	}
	return count;
}

/* IRQ threads the journal did not name (born during the run, or a journal of an older jitterlab) whose mask
 * is not their IRQ's effective CPUs: a note each (at most 64), after waiting IRQ_THREAD_SETTLE_MS for
 * interrupts to come. Not with a unit test's fake knobs (the machine's threads are not theirs). */
static int unjournalled_thread_notes(json_object *notes, json_object *journalled)
{
	int n = 0;

	if (allow_prefix[0])
		return 0;
	for (int ms = 0; ms <= IRQ_THREAD_SETTLE_MS; ms += 20) {
		DIR *proc = opendir("/proc");
		struct dirent *d;
		bool last = ms + 20 > IRQ_THREAD_SETTLE_MS;

		n = 0;
		while (proc && (d = readdir(proc))) {
			char comm[16], epath[64], eff[1024];
			pid_t tid = (pid_t)atoi(d->d_name);
			int irq = tid > 0 ? jl_irq_thread_irq(tid, comm) : -1;
			cpu_set_t m, e;

			snprintf(epath, sizeof(epath), "/proc/irq/%d/effective_affinity_list", irq);
			if (irq < 0 || json_object_object_get_ex(journalled, d->d_name, NULL) ||
			    jl_knob_read(epath, eff, sizeof(eff)) || !eff[0] || jl_cpulist_parse(eff, &e, NULL, 0) ||
			    sched_getaffinity(tid, sizeof(m), &m) || CPU_EQUAL(&m, &e))
				continue;
			if (++n <= 64 && last && notes)
				irq_thread_note(notes, tid, irq, comm, &m, eff, "corrects itself at the IRQ's next interrupt");
		}
		if (proc)
			closedir(proc);
		if (!n || last)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	return n;
}

/* IRQ threads not where they were before the run after the undo: notes (see the two above). Returns how
 * many. */
static int irq_thread_notes(json_object *arr, char *report, size_t len, json_object *notes)
{
	json_object *journalled = json_object_new_object();
	int n = journalled_thread_notes(arr, notes, journalled);

	n += unjournalled_thread_notes(notes, journalled);
	json_object_put(journalled);
	if (n)
		say(report, len, "%d IRQ thread%s not back on %s CPUs yet (see the notes)", n, n == 1 ? "" : "s",
		    n == 1 ? "its" : "their");
	return n;
}

/* A note's string field, "?" when it has none. */
static const char *note_str(json_object *note, const char *key)
{
	const char *s = str_field(note, key);

	return s ? s : "?";
}

void jl_journal_note_print(FILE *f, const char *prefix, json_object *note)
{
	const char *kind = str_field(note, "kind"), *name = str_field(note, "name"), *why = str_field(note, "why");
	json_object *v;
	int irq = json_object_object_get_ex(note, "irq", &v) ? json_object_get_int(v) : -1;

	if (!kind || !why)
		return;
	if (!strcmp(kind, "irq"))
		fprintf(f, "%sIRQ %d%s%s stays on CPU %s (was %s): %s\n", prefix, irq, name && name[0] ? " " : "",
			name ? name : "", note_str(note, "effective_after"), note_str(note, "effective_before"), why);
	else if (!strcmp(kind, "irq_thread"))
		fprintf(f, "%s%s (pid %d, the handler thread of IRQ %d%s%s) runs on CPUs %s, its IRQ on %s: %s\n", prefix,
			note_str(note, "thread"),
			json_object_object_get_ex(note, "pid", &v) ? json_object_get_int(v) : 0, irq,
			name && name[0] ? " " : "", name ? name : "", note_str(note, "mask"), note_str(note, "effective"),
			why);
}

/* Does the cpu list MASK hold every CPU of the list AT? */
static bool list_holds(const char *mask, const char *at)
{
	cpu_set_t m, a, both;

	if (!mask || !at || jl_cpulist_parse(mask, &m, NULL, 0) || jl_cpulist_parse(at, &a, NULL, 0))
		return false;
	CPU_AND(&both, &m, &a);
	return CPU_EQUAL(&both, &a);
}

/* After the undo: what the kernel has not put back yet, as notes (REPORT's text and NOTES' objects): IRQs
 * still delivered elsewhere than before the run (x86 moves an IRQ at its next interrupt), and, when the
 * journal touched IRQs or cpusets, IRQ threads whose mask is not their IRQ's effective CPUs. */
static void after_replay(json_object *arr, char *report, size_t len, json_object *notes)
{
	bool threads = false;

	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *n;
		const char *op = str_field(o, "op"), *path = str_field(o, "path"), *eff = str_field(o, "effective");
		char epath[4200], now[1024], name[64];
		int irq;

		if (op && (!strcmp(op, "irqthreads") || !strcmp(op, "cgroup") || !strcmp(op, "irq")))
			threads = true;
		if (!op || strcmp(op, "irq") || !path || !eff || !eff[0] || (irq = irq_of_path(path)) < 0 ||
		    !irq_effective_path(path, epath, sizeof(epath)) || jl_knob_read(epath, now, sizeof(now)) ||
		    !strcmp(now, eff))
			continue;
		irq_name(path, name, sizeof(name));
		/* the move back waits for an interrupt; once the old mask is written over it, a mask that holds
		 * the CPU the IRQ is on keeps it there (x86 moves only to leave a CPU outside the mask) */
		{
			bool stays = list_holds(str_field(o, "old"), now);
			const char *why = stays ? "no interrupt came within 1 s to apply the move back (x86 moves an IRQ at "
						  "its next interrupt); the mask is back, and as it holds the CPU the IRQ is "
						  "on, the IRQ stays there until its affinity is written again"
						: "no interrupt came to apply the move (x86 moves an IRQ at its next "
						  "interrupt); the mask is back";

			say(report, len, "IRQ %d%s%s: delivered to CPU %s, was %s (%s)", irq, name[0] ? " " : "", name, now,
			    eff, stays ? "no interrupt came to move it back; the mask is back, and holds that CPU"
				       : "no interrupt came to apply the move; the mask is back");
			if (!notes)
				continue;
			n = note_new("irq", irq, name, why);
		}
		json_object_object_add(n, "effective_before", json_object_new_string(eff));
		json_object_object_add(n, "effective_after", json_object_new_string(now));
		json_object_array_add(notes, n);
	}
	if (threads)
		irq_thread_notes(arr, report, len, notes);
}

static int undo_cgroup(json_object *o, char *report, size_t len)
{
	const char *dir = str_field(o, "path"), *tasks = str_field(o, "tasks"), *parent = str_field(o, "parent_tasks");
	char why[1024];

	if (!dir || !tasks || !parent) {
		say(report, len, "journal corrupted at line %d: malformed cgroup entry", line_of(o));
		return -1;
	}
	if (!jl_journal_path_allowed(dir))
		return refuse_path(o, dir, report, len);
	if (!(allow_prefix[0] && under(dir, allow_prefix))) {
		const char *base = strrchr(dir, '/');

		/* only a cgroup jitterlab makes: jitterlab-PID-housekeeping or -shield, never a user's */
		if (!base || !jl_stale_cpuset_pid(base + 1))
			return refuse_path(o, dir, report, len);
	}
	if (!jl_journal_path_allowed(parent))
		return refuse_path(o, parent, report, len);
	if (strchr(tasks, '/') || !tasks[0] || tasks[0] == '.')
		return refuse_path(o, tasks, report, len);
	if (jl_cgroup_remove(dir, tasks, parent, why, sizeof(why)) == 0)
		return 0;
	say(report, len, "could not remove cgroup %s", why);
	return -1;
}

static void pause_ms(int ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L }, NULL);
}

/* Processes of the child's process group (the child made itself a group leader) that started no earlier
 * than the child: its descendants (e.g. stress-ng workers), left running when the child itself died.
 * A pid stays unused while it names a live process group, so a group found with the leader's pid and
 * no leader is still the child's group. Sends SIG to each; returns how many there were. */
static int signal_group(pid_t pgid, unsigned long long start, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		unsigned long long pg, st;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		if (jl_stat_field(pid, 5, &pg) || (pid_t)pg != pgid || jl_stat_field(pid, 22, &st) || st < start)
			continue;
		kill(pid, sig);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static bool zombie(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return jl_knob_read(path, buf, sizeof(buf)) == 0 && strstr(buf, ") Z ");
}

static int undo_child(json_object *o, char *report, size_t len)
{
	json_object *vp, *vs;
	pid_t pid;
	unsigned long long start;

	if (!json_object_object_get_ex(o, "pid", &vp) || !json_object_object_get_ex(o, "start", &vs)) {
		say(report, len, "journal corrupted at line %d: malformed child entry", line_of(o));
		return -1;
	}
	pid = (pid_t)json_object_get_int(vp);
	start = (unsigned long long)json_object_get_uint64(vs);
	if (pid <= 0)
		return 0;
	if (jl_proc_is(pid, start)) {
		kill(pid, SIGTERM);
		signal_group(pid, start, SIGTERM);
		for (int i = 0; i < 50 && jl_proc_is(pid, start) && !zombie(pid); i++)
			pause_ms(20);
		if (jl_proc_is(pid, start) && !zombie(pid))
			kill(pid, SIGKILL);
	} else {
		unsigned long long other;

		/* the pid belongs to someone else now: never touch it or its group */
		if (jl_proc_start_time(pid, &other) == 0)
			return 0;
		if (!signal_group(pid, start, SIGTERM))
			return 0; /* ended, with its whole group */
	}
	for (int i = 0; i < 50 && signal_group(pid, start, 0); i++)
		pause_ms(20);
	signal_group(pid, start, SIGKILL);
	for (int i = 0; i < 50 && jl_proc_is(pid, start) && !zombie(pid); i++)
		pause_ms(20);
	if (jl_proc_is(pid, start) && !zombie(pid)) {
		say(report, len, "child %d does not end", (int)pid);
		return -1;
	}
	return 0;
}

/* A controller this run enabled in a v2 cgroup.subtree_control: disable it again (a no-op when gone). */
static int undo_subtree(json_object *o, char *report, size_t len)
{
	const char *path = str_field(o, "path"), *ctl = str_field(o, "controller");
	char now[1024], want[64], *save = NULL;
	bool on = false;

	if (!path || !ctl || strcmp(ctl, "cpuset")) {
		say(report, len, "journal corrupted at line %d: malformed subtree entry", line_of(o));
		return -1;
	}
	if (!jl_journal_path_allowed(path) || !cgroup2_rel(path) || strcmp(cgroup2_rel(path), "cgroup.subtree_control"))
		return refuse_path(o, path, report, len);
	if (jl_knob_read(path, now, sizeof(now)))
		return errno == ENOENT ? 0 : (say(report, len, "cannot read %s: %s", path, strerror(errno)), -1);
	for (char *t = strtok_r(now, " ", &save); t; t = strtok_r(NULL, " ", &save))
		on |= !strcmp(t, ctl);
	if (!on)
		return 0;
	snprintf(want, sizeof(want), "-%s", ctl);
	for (int i = 0; i < 100; i++) { /* EBUSY while a removed cgroup is still being released */
		if (jl_knob_write(path, want) == 0)
			return 0;
		if (errno != EBUSY)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	say(report, len, "could not write '%s' to %s: %s", want, path, strerror(errno));
	return -1;
}

/* A process this run moved (itself, into the v2 root cgroup): back where it was, if it still runs. */
static int undo_move(json_object *o, char *report, size_t len)
{
	const char *path = str_field(o, "path");
	json_object *v;
	pid_t pid;
	unsigned long long start;
	char num[32];

	if (!path || !json_object_object_get_ex(o, "pid", &v) || (pid = json_object_get_int(v)) <= 0 ||
	    !json_object_object_get_ex(o, "start", &v)) {
		say(report, len, "journal corrupted at line %d: malformed move entry", line_of(o));
		return -1;
	}
	start = json_object_get_uint64(v);
	if (!jl_journal_path_allowed(path) || !cgroup2_rel(path) || !ends_with(path, "/cgroup.procs"))
		return refuse_path(o, path, report, len);
	if (!jl_proc_is(pid, start))
		return 0; /* it is gone: nothing to move */
	snprintf(num, sizeof(num), "%d", (int)pid);
	if (jl_knob_write(path, num) == 0 || errno == ESRCH || errno == ENOENT)
		return 0;
	say(report, len, "could not move process %d back to %s: %s", (int)pid, path, strerror(errno));
	return -1;
}

/* The undo registry: one handler per entry kind. */
static const struct {
	const char *op;
	int (*undo)(json_object *o, char *report, size_t len);
} undo_ops[] = {
	{ "owner", NULL },
	{ "write", undo_write },
	{ "irq", undo_irq },
	{ "cgroup", undo_cgroup },
	{ "child", undo_child },
	{ "subtree", undo_subtree },
	{ "move", undo_move },
	{ "masks", undo_masks },
	{ "irqthreads", undo_irq_threads },
};

/* Read PATH (never through a symlink) into an array of parsed entries, each tagged with its line number
 * ("_line"). Entries are appended and synced one by one, so only the last line may be torn (a crash
 * mid-write: its knob was not changed yet); an unparseable line anywhere else sets *BAD_LINE (the
 * first such line; 0 when none). NULL with REPORT set when PATH cannot be read. */
static json_object *load(const char *path, int *bad_line, char *report, size_t len)
{
	int fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	FILE *f = fd >= 0 ? fdopen(fd, "re") : NULL;
	json_object *arr;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;
	int lineno = 0, torn = 0;

	*bad_line = 0;
	if (!f) {
		say(report, len, "cannot open %s: %s", path, strerror(errno));
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	arr = json_object_new_array();
	while ((n = getline(&line, &cap, f)) >= 0) {
		json_object *o;

		lineno++;
		if (n == 0 || line[0] == '\n')
			continue;
		if (torn && !*bad_line)
			*bad_line = torn; /* a bad line with more after it: not a torn last write */
		o = json_tokener_parse(line);
		if (o && json_object_is_type(o, json_type_object)) {
			json_object_object_add(o, "_line", json_object_new_int(lineno));
			json_object_array_add(arr, o);
		} else {
			json_object_put(o);
			torn = lineno;
		}
	}
	free(line);
	fclose(f);
	return arr;
}

int jl_journal_replay(const char *path, char *report, size_t reportlen, json_object *notes)
{
	json_object *arr;
	int failed = 0, undone = 0, bad_line;

	if (reportlen)
		report[0] = '\0';
	arr = load(path, &bad_line, report, reportlen);
	if (!arr)
		return -1;
	irq_effective_first(arr);
	for (size_t i = json_object_array_length(arr); i-- > 0;) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *op = str_field(o, "op");
		size_t k;

		for (k = 0; k < sizeof(undo_ops) / sizeof(undo_ops[0]); k++)
			if (op && !strcmp(op, undo_ops[k].op))
				break;
		if (k == sizeof(undo_ops) / sizeof(undo_ops[0])) {
			say(report, reportlen, "journal corrupted at line %d: unknown entry '%s'", line_of(o), op ? op : "?");
			failed++;
			continue;
		}
		if (!undo_ops[k].undo)
			continue;
		if (undo_ops[k].undo(o, report, reportlen))
			failed++;
		else
			undone++;
	}
	after_replay(arr, report, reportlen, notes);
	json_object_put(arr);
	if (bad_line) {
		say(report, reportlen, "journal corrupted at line %d (not the last line); the file is kept", bad_line);
		failed++;
	}
	if (failed)
		return -1;
	if (unlink(path) && errno != ENOENT) {
		say(report, reportlen, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return undone;
}

/* Fill INFO from its file. The owner line decides liveness; without a readable one, a journal that
 * holds entries is stale (its owner cannot be checked), an empty one is left to its pid (see below). */
static void read_info(struct jl_journal_info *info, const char *name)
{
	char report[256] = "";
	int bad_line;
	json_object *arr = load(info->path, &bad_line, report, sizeof(report));
	json_object *first = arr ? json_object_array_get_idx(arr, 0) : NULL, *v;
	int count = arr ? (int)json_object_array_length(arr) : 0;
	struct stat st;

	if (first && line_of(first) == 1 && str_field(first, "op") && !strcmp(str_field(first, "op"), "owner") &&
	    json_object_object_get_ex(first, "pid", &v)) {
		info->pid = (pid_t)json_object_get_int(v);
		if (json_object_object_get_ex(first, "start", &v))
			info->start = (unsigned long long)json_object_get_uint64(v);
		if (json_object_object_get_ex(first, "time", &v))
			info->time = json_object_get_int64(v);
		info->entries = count - 1;
		info->alive = jl_proc_is(info->pid, info->start);
		json_object_put(arr);
		return;
	}
	json_object_put(arr);
	info->pid = (pid_t)atoi(name + 4);
	info->entries = count;
	if (count > 0) {
		info->alive = false; /* a bad owner line over entries: never taken for a live run */
		return;
	}
	/* No readable owner line and no entry: a run is creating it right now, or one crashed while
	 * creating it (then nothing was changed yet). The pid in the name decides: a live process with that
	 * pid, or a file younger than 10 s, is left alone. */
	info->alive = kill(info->pid, 0) == 0 || errno == EPERM ||
		      (lstat(info->path, &st) == 0 && time(NULL) - st.st_mtime < 10);
}

static int newest_first(const void *a, const void *b)
{
	const struct jl_journal_info *x = a, *y = b;

	if (x->start != y->start)
		return x->start < y->start ? 1 : -1;
	if (x->time != y->time)
		return x->time < y->time ? 1 : -1;
	return (x->pid < y->pid) - (x->pid > y->pid);
}

int jl_journal_list_all(const char *dir, struct jl_journal_info **out)
{
	DIR *d;
	struct dirent *e;
	struct jl_journal_info *all = NULL;
	int n = 0, cap = 0;

	*out = NULL;
	if (jl_journal_dir_check(dir))
		return errno == ENOENT ? 0 : -1;
	d = opendir(dir);
	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d))) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "run-", 4) || l < 12 || strcmp(e->d_name + l - 8, ".journal"))
			continue;
		if (n == cap) {
			struct jl_journal_info *more = realloc(all, (size_t)(cap = cap ? cap * 2 : 16) * sizeof(*all));

			if (!more) {
				free(all);
				closedir(d);
				errno = ENOMEM;
				return -1;
			}
			all = more;
		}
		memset(&all[n], 0, sizeof(all[n]));
		snprintf(all[n].path, sizeof(all[n].path), "%s/%s", dir, e->d_name);
		read_info(&all[n], e->d_name);
		n++;
	}
	closedir(d);
	if (n > 1)
		qsort(all, (size_t)n, sizeof(*all), newest_first);
	*out = all;
	return n;
}

int jl_journal_list(const char *dir, struct jl_journal_info *out, int max)
{
	struct jl_journal_info *all;
	int n = jl_journal_list_all(dir, &all);

	if (n < 0)
		return -1;
	if (n > max)
		n = max;
	if (n > 0)
		memcpy(out, all, (size_t)n * sizeof(*out));
	free(all);
	return n;
}

int jl_journal_finish(struct jl_journal *j, char *report, size_t reportlen, json_object *notes)
{
	int rc;

	if (reportlen)
		report[0] = '\0';
	if (!j)
		return 0;
	close(j->fd);
	rc = jl_journal_replay(j->path, report, reportlen, notes);
	free(j);
	return rc < 0 ? -1 : 0;
}
