/* shield: cpuset shield for `isolate` (see shield.h).
 * Must never: change a cpuset file before its journal entry is on disk, move a task that need not move
 * (see move_verdict: a move back into the root cpuset resets a kernel-set mask), move an IRQ thread,
 * move jitterlab's own threads out of the root cpuset wholesale (the engine pins them itself; measured
 * ones are placed one by one), move a task its owner pinned to shield CPUs only (moving it would push it,
 * maybe an RT spinner, onto the housekeeping CPUs), touch any cgroup controller but cpuset, or leave a
 * cpuset behind on any exit path (the journal replay removes them).
 *
 * cgroup v2 (shield_v2_*): an isolated partition takes its CPUs from every other cgroup by itself, so no
 * task is moved. The partition is a top-level threaded cgroup `jitterlab-PID-shield` (an isolated
 * partition's parent must be a partition root: only the root cgroup is one on an ordinary host), and
 * only threads go into it: jitterlab's process sits in the root cgroup (the threaded domain), so its
 * measured threads and the neighbours pinned inside the shield can be moved one by one through
 * cgroup.threads. The cgroup is made first as a plain member (the threads are created and placed while
 * the shield CPUs are still everybody's), then sealed as `isolated` before t0. */
#include "shield.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cpulist.h"
#include "kversion.h"
#include "stale_runs.h"
#include "procfs.h"
#include "cgroupfs.h"
#include "runnames.h"

static bool has_word(const char *list, const char *word, const char *seps)
{
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", list);
	for (char *t = strtok_r(buf, seps, &save); t; t = strtok_r(NULL, seps, &save))
		if (!strcmp(t, word))
			return true;
	return false;
}

enum jl_shield_method jl_shield_detect(char *root, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;
	enum jl_shield_method found = JL_SHIELD_NONE;
	char v2[256] = "";

	if (len)
		root[0] = '\0';
	if (!f)
		return JL_SHIELD_NONE;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "cgroup") && has_word(m->mnt_opts, "cpuset", ",")) {
			snprintf(root, len, "%s", m->mnt_dir);
			found = JL_SHIELD_CGROUP_V1;
			break;
		}
		if (!strcmp(m->mnt_type, "cgroup2") && !v2[0]) {
			char path[512], ctl[1024];

			snprintf(path, sizeof(path), "%s/cgroup.controllers", m->mnt_dir);
			if (jl_knob_read(path, ctl, sizeof(ctl)) == 0 && has_word(ctl, "cpuset", " "))
				snprintf(v2, sizeof(v2), "%s", m->mnt_dir);
		}
	}
	endmntent(f);
	if (found == JL_SHIELD_NONE && v2[0]) {
		snprintf(root, len, "%s", v2);
		found = JL_SHIELD_CGROUP_V2;
	}
	return found;
}

const char *jl_shield_method_name(enum jl_shield_method m)
{
	switch (m) {
	case JL_SHIELD_CGROUP_V1:
		return "cgroup-v1";
	case JL_SHIELD_CGROUP_V2:
		return "cgroup-v2";
	case JL_SHIELD_BOOT:
		return "isolated at boot";
	default:
		return "none";
	}
}

/* Journal the old value of DIR/NAME, then write VALUE. */
static int set_knob(struct jl_journal *j, const char *dir, const char *name, const char *value, char *err, size_t errlen)
{
	char path[512], old[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (jl_knob_read(path, old, sizeof(old))) {
		snprintf(err, errlen, "shield: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	if (!strcmp(old, value))
		return 0;
	if (jl_journal_record_write(j, path, old)) {
		snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		return -1;
	}
	if (jl_knob_write(path, value)) {
		snprintf(err, errlen, "shield: cannot write '%s' to %s: %s", value, path, strerror(errno));
		return -1;
	}
	return 0;
}

/* Write VALUE to a file of a cpuset we created ourselves (removed as a whole on undo: no journal entry). */
static int set_own(const char *dir, const char *name, const char *value, char *err, size_t errlen)
{
	char path[512];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (jl_knob_write(path, value) == 0)
		return 0;
	if (err)
		snprintf(err, errlen, "shield: cannot write '%s' to %s: %s", value, path, strerror(errno));
	return -1;
}

static int make_cpuset(struct jl_journal *j, const struct jl_shield *s, const char *dir, const cpu_set_t *cpus,
		       const char *mems, char *err, size_t errlen)
{
	char parent_tasks[512], list[1024];

	snprintf(parent_tasks, sizeof(parent_tasks), "%s/tasks", s->root);
	if (jl_journal_record_cgroup(j, dir, "tasks", parent_tasks)) {
		snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		return -1;
	}
	if (mkdir(dir, 0755)) {
		snprintf(err, errlen, "shield: cannot create cpuset %s: %s", dir, strerror(errno));
		return -1;
	}
	jl_cpulist_format(cpus, list, sizeof(list));
	if (set_own(dir, "cpuset.cpus", list, err, errlen) || set_own(dir, "cpuset.mems", mems, err, errlen))
		return -1;
	return 0;
}

static bool is_own_thread(pid_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return access(path, F_OK) == 0;
}

static bool is_kthread(pid_t tid)
{
	return jl_proc_is_kthread(tid);
}

static bool is_irq_thread(pid_t tid)
{
	return jl_irq_thread_irq(tid, NULL) >= 0;
}

enum move_verdict { MOVE, KEEP_HOUSEKEEPING, KEEP_PINNED, KEEP_UNMOVABLE, KEEP_IRQ_THREAD };

/* What the shield does with a task of the root cpuset whose CPU mask is AFF. Only a task that may run on
 * both sides moves: moving is what takes it off the shield, and moving back into the root cpuset resets
 * a mask the kernel set (the user's own sched_setaffinity request survives: since Linux 6.2 the kernel
 * keeps it and intersects every cpuset change with it). So a task already on housekeeping CPUs only
 * stays where it is; a task pinned to shield CPUs only stays (its owner put it there); an IRQ thread
 * never moves (it follows its IRQ's effective affinity, which the IRQ steering sets); a kernel thread
 * whose mask the kernel narrowed (not the whole root cpuset) stays, as moving it back would widen it. */
static enum move_verdict move_verdict(const struct jl_shield *s, pid_t tid, const cpu_set_t *aff,
				      const cpu_set_t *root_cpus)
{
	cpu_set_t on_shield, on_hk;

	CPU_AND(&on_shield, aff, &s->shield);
	CPU_AND(&on_hk, aff, &s->hk);
	if (CPU_COUNT(&on_shield) == 0)
		return KEEP_HOUSEKEEPING;
	if (CPU_COUNT(&on_hk) == 0)
		return is_kthread(tid) ? KEEP_UNMOVABLE : KEEP_PINNED;
	if (is_irq_thread(tid))
		return KEEP_IRQ_THREAD;
	if (is_kthread(tid) && !CPU_EQUAL(aff, root_cpus))
		return KEEP_UNMOVABLE;
	return MOVE;
}

/* Move the tasks of the root cpuset that need moving to housekeeping (see move_verdict). */
static void move_tasks(struct jl_shield *s)
{
	char path[512], line[32], list[1024], perr[128];
	cpu_set_t root_cpus;
	FILE *f;
	int out;

	snprintf(path, sizeof(path), "%s/cpuset.cpus", s->root);
	if (jl_knob_read(path, list, sizeof(list)) || jl_cpulist_parse(list, &root_cpus, perr, sizeof(perr)))
		CPU_OR(&root_cpus, &s->hk, &s->shield);
	snprintf(path, sizeof(path), "%s/tasks", s->root);
	f = fopen(path, "re");
	if (!f)
		return;
	snprintf(path, sizeof(path), "%s/tasks", s->hk_dir);
	out = open(path, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		pid_t tid = (pid_t)atoi(line);
		size_t n = strcspn(line, "\n");
		cpu_set_t aff;

		if (tid <= 0 || is_own_thread(tid))
			continue;
		if (sched_getaffinity(tid, sizeof(aff), &aff))
			continue; /* gone */
		switch (move_verdict(s, tid, &aff, &root_cpus)) {
		case KEEP_HOUSEKEEPING:
			s->tasks_kept++;
			continue;
		case KEEP_PINNED:
			s->tasks_pinned++;
			continue;
		case KEEP_UNMOVABLE:
			s->tasks_unmovable++;
			continue;
		case KEEP_IRQ_THREAD:
			s->irq_threads++;
			continue;
		case MOVE:
			break;
		}
		if (write(out, line, n) == (ssize_t)n)
			s->tasks_moved++;
		else if (errno != ESRCH)
			s->tasks_unmovable++;
	}
	close(out);
	fclose(f);
}

/* ---- cgroup v2: an isolated partition (see the top of this file) ---- */

static bool word_in(const char *path, const char *word)
{
	char buf[1024];

	return jl_knob_read(path, buf, sizeof(buf)) == 0 && has_word(buf, word, " ");
}

int jl_shield_v2_self_cgroup(char *out, size_t len)
{
	FILE *f = fopen("/proc/self/cgroup", "re");
	char line[1024];
	int rc = -1;

	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, "0::", 3)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line + 3);
			rc = 0;
			break;
		}
	if (f)
		fclose(f);
	return rc;
}

/* v2: the tasks whose owners pinned them inside the shield lose those CPUs while the partition lasts (the
 * kernel runs them on the housekeeping CPUs and gives their masks back afterwards, since Linux 6.2): count
 * them (tasks_pinned; per-CPU kernel threads, which cpusets do not move, as tasks_unmovable). */
static void count_pinned(pid_t tid, const cpu_set_t *aff, void *ctx)
{
	struct jl_shield *s = ctx;
	cpu_set_t out;

	CPU_AND(&out, aff, &s->hk);
	if (CPU_COUNT(&out) || !CPU_COUNT(aff))
		return;
	if (is_kthread(tid))
		s->tasks_unmovable++;
	else
		s->tasks_pinned++;
}

/* Call FN for every task on the machine but this process's own threads, with its CPU mask. */
static void each_task(void (*fn)(pid_t tid, const cpu_set_t *aff, void *ctx), void *ctx)
{
	DIR *proc = opendir("/proc");
	struct dirent *p;

	while (proc && (p = readdir(proc))) {
		char dir[300];
		DIR *tasks;
		struct dirent *t;

		if (p->d_name[0] < '0' || p->d_name[0] > '9')
			continue;
		snprintf(dir, sizeof(dir), "/proc/%s/task", p->d_name);
		tasks = opendir(dir);
		while (tasks && (t = readdir(tasks))) {
			pid_t tid = (pid_t)atoi(t->d_name);
			cpu_set_t aff;

			if (tid > 0 && !is_own_thread(tid) && sched_getaffinity(tid, sizeof(aff), &aff) == 0)
				fn(tid, &aff, ctx);
		}
		if (tasks)
			closedir(tasks);
	}
	if (proc)
		closedir(proc);
}

static void v2_count_pinned(struct jl_shield *s)
{
	each_task(count_pinned, s);
}

/* v2 before Linux 6.2: creating and removing the partition resets the mask of every task of the root
 * cgroup, its owner's sched_setaffinity request included. Journal every narrowed mask first (one entry,
 * undone after the partition is gone); tasks on every online CPU get that back by themselves. Per-CPU
 * kernel threads (PF_NO_SETAFFINITY: the kernel skips them) and IRQ threads (they follow their IRQ: the
 * irqthreads entry) are left out. */
struct narrowed {
	cpu_set_t online;
	struct jl_task_mask *t;
	int n, cap;
	bool nomem;
};

static void add_narrowed(pid_t tid, const cpu_set_t *aff, void *ctx)
{
	struct narrowed *w = ctx;
	unsigned long long flags;

	if (CPU_EQUAL(aff, &w->online) || jl_proc_flags(tid, &flags) || (flags & 0x04000000ULL) || /* PF_NO_SETAFFINITY */
	    jl_irq_thread_irq(tid, NULL) >= 0)
		return;
	if (w->n == w->cap) {
		struct jl_task_mask *m = realloc(w->t, (size_t)(w->cap ? 2 * w->cap : 64) * sizeof(*m));

		if (!m) {
			w->nomem = true;
			return;
		}
		w->t = m;
		w->cap = w->cap ? 2 * w->cap : 64;
	}
	w->t[w->n].tid = tid;
	w->t[w->n].cpus = *aff;
	if (jl_proc_start_time(tid, &w->t[w->n].start) == 0)
		w->n++;
}

static int v2_record_masks(struct jl_shield *s, struct jl_journal *j)
{
	struct narrowed w = { .t = NULL };
	int rc;

	CPU_OR(&w.online, &s->shield, &s->hk);
	each_task(add_narrowed, &w);
	if (w.nomem) {
		free(w.t);
		errno = ENOMEM;
		return -1;
	}
	rc = w.n ? jl_journal_record_masks(j, w.t, w.n) : 0;
	s->masks_journalled = w.n;
	free(w.t);
	return rc;
}

static int v2_apply(struct jl_shield *s, struct jl_journal *j, char *err, size_t errlen)
{
	char path[600], self[512], list[1024], num[32];

	/* 0. what the cgroup changes below reset and the kernel does not put back, journalled before any of
	 * them so that it is undone after all of them: IRQ threads' masks; before 6.2 every task's narrowed
	 * mask (enabling cpuset, making and removing the partition each reset them) */
	if (jl_journal_record_irq_threads(j) ||
	    (!jl_kernel_has(JL_KERNEL_USER_MASK_KEPT, NULL) && v2_record_masks(s, j))) {
		snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		return -1;
	}
	/* 1. the cpuset controller for the root's children */
	snprintf(path, sizeof(path), "%s/cgroup.subtree_control", s->root);
	if (!word_in(path, "cpuset")) {
		if (jl_journal_record_subtree(j, path, "cpuset")) {
			snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
			return -1;
		}
		if (jl_knob_write(path, "+cpuset")) {
			snprintf(err, errlen, "shield: cannot enable cpuset in %s: %s", path, strerror(errno));
			return -1;
		}
		s->v2_enabled_cpuset = true;
	}
	/* 2. this process into the root cgroup: its threads can then join a top-level threaded cgroup */
	if (jl_shield_v2_self_cgroup(self, sizeof(self))) {
		snprintf(err, errlen, "shield: cannot tell this process's cgroup (/proc/self/cgroup has no 0:: line)");
		return -1;
	}
	if (strcmp(self, "/")) {
		snprintf(s->v2_home, sizeof(s->v2_home), "%s%s/cgroup.procs", s->root, self);
		if (jl_journal_record_move(j, getpid(), s->v2_home)) {
			snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
			return -1;
		}
		snprintf(path, sizeof(path), "%s/cgroup.procs", s->root);
		snprintf(num, sizeof(num), "%d", (int)getpid());
		if (jl_knob_write(path, num)) {
			snprintf(err, errlen, "shield: cannot move this process from %s into the root cgroup: %s", self,
				 strerror(errno));
			return -1;
		}
		s->v2_moved_self = true;
	}
	/* 3. the shield: a threaded member cgroup on the shield CPUs, sealed as a partition later */
	snprintf(s->shield_dir, sizeof(s->shield_dir), "%s/" JL_CPUSET_PREFIX "%d-shield", s->root, (int)getpid());
	snprintf(path, sizeof(path), "%s/cgroup.threads", s->root);
	if (jl_journal_record_cgroup(j, s->shield_dir, "cgroup.threads", path)) {
		snprintf(err, errlen, "shield: cannot write the journal %s: %s", jl_journal_path(j), strerror(errno));
		return -1;
	}
	if (mkdir(s->shield_dir, 0755)) {
		snprintf(err, errlen, "shield: cannot create %s: %s", s->shield_dir, strerror(errno));
		return -1;
	}
	jl_cpulist_format(&s->shield, list, sizeof(list));
	if (set_own(s->shield_dir, "cgroup.type", "threaded", err, errlen) ||
	    set_own(s->shield_dir, "cpuset.cpus", list, err, errlen))
		return -1;
	v2_count_pinned(s);
	return 0;
}

int jl_shield_seal(struct jl_shield *s, char *err, size_t errlen)
{
	char path[600], got[256];
	int64_t t0 = 0;
	struct timespec ts;

	if (!s || s->method != JL_SHIELD_CGROUP_V2)
		return 0;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	t0 = ts.tv_sec * 1000000000LL + ts.tv_nsec;
	if (set_own(s->shield_dir, "cpuset.cpus.partition", "isolated", err, errlen))
		return -1;
	snprintf(path, sizeof(path), "%s/cpuset.cpus.partition", s->shield_dir);
	if (jl_knob_read(path, got, sizeof(got)))
		got[0] = '\0';
	snprintf(s->partition, sizeof(s->partition), "%s", got);
	if (strcmp(got, "isolated")) {
		snprintf(err, errlen, "shield: the kernel refused the isolated partition: %s reads '%s' (another cgroup's "
			 "cpuset.cpus or cpuset.cpus.exclusive claims these CPUs, e.g. a systemd slice's AllowedCPUs; or "
			 "they are isolated at boot or offline)", path, got);
		return -1;
	}
	/* the partition rebuilds the scheduler domains and flushes workqueues: wait until the root's effective
	 * CPUs no longer hold the shield (2 s at most), then a little more for the dust to settle */
	snprintf(path, sizeof(path), "%s/cpuset.cpus.effective", s->root);
	for (int i = 0; i < 200; i++) {
		char eff[1024], perr[128];
		cpu_set_t e, both;

		if (jl_knob_read(path, eff, sizeof(eff)) == 0 && jl_cpulist_parse(eff, &e, perr, sizeof(perr)) == 0) {
			CPU_AND(&both, &e, &s->shield);
			if (CPU_COUNT(&both) == 0)
				break;
		}
		nanosleep(&(struct timespec){ .tv_nsec = 10 * 1000 * 1000 }, NULL);
	}
	nanosleep(&(struct timespec){ .tv_nsec = 100 * 1000 * 1000 }, NULL);
	clock_gettime(CLOCK_MONOTONIC, &ts);
	s->settle_ns = ts.tv_sec * 1000000000LL + ts.tv_nsec - t0;
	return 0;
}

int jl_shield_apply(struct jl_shield *s, const struct jl_shield_config *cfg, struct jl_journal *j, char *err,
		    size_t errlen)
{
	char mems[256], path[512];

	memset(s, 0, sizeof(*s));
	s->shield = cfg->shield;
	CPU_XOR(&s->hk, &cfg->online, &cfg->shield);
	CPU_AND(&s->hk, &s->hk, &cfg->online);
	if (cfg->isolated_at_boot) {
		s->method = JL_SHIELD_BOOT; /* the kernel keeps every other task off these CPUs already */
		return 0;
	} else if (cfg->cpuset_root[0]) {
		snprintf(s->root, sizeof(s->root), "%s", cfg->cpuset_root);
		s->method = JL_SHIELD_CGROUP_V1;
	} else {
		s->method = jl_shield_detect(s->root, sizeof(s->root));
	}
	if (s->method == JL_SHIELD_NONE) {
		snprintf(err, errlen, "shield: isolate needs cpusets (no cpuset controller on a v1 or v2 hierarchy)");
		return -1;
	}
	if (CPU_COUNT(&s->hk) == 0 || CPU_COUNT(&s->shield) == 0) {
		snprintf(err, errlen, "shield: isolate must leave at least one housekeeping CPU");
		return -1;
	}
	if (s->method == JL_SHIELD_CGROUP_V2)
		return v2_apply(s, j, err, errlen);
	snprintf(path, sizeof(path), "%s/cpuset.mems", s->root);
	if (jl_knob_read(path, mems, sizeof(mems))) {
		snprintf(err, errlen, "shield: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(s->hk_dir, sizeof(s->hk_dir), "%s/" JL_CPUSET_PREFIX "%d-housekeeping", s->root, (int)getpid());
	snprintf(s->shield_dir, sizeof(s->shield_dir), "%s/" JL_CPUSET_PREFIX "%d-shield", s->root, (int)getpid());
	if (make_cpuset(j, s, s->hk_dir, &s->hk, mems, err, errlen) ||
	    make_cpuset(j, s, s->shield_dir, &s->shield, mems, err, errlen))
		return -1;
	s->exclusive = set_own(s->hk_dir, "cpuset.cpu_exclusive", "1", NULL, 0) == 0 &&
		       set_own(s->shield_dir, "cpuset.cpu_exclusive", "1", NULL, 0) == 0;
	if (set_knob(j, s->root, "cpuset.sched_load_balance", "0", err, errlen))
		return -1;
	move_tasks(s);
	return 0;
}

int jl_shield_place(struct jl_shield *s, pid_t tid, bool measured)
{
	char path[512], num[32];
	cpu_set_t aff, online, in_shield, out_shield, now;
	bool v2;

	if (!s || s->method == JL_SHIELD_NONE || s->method == JL_SHIELD_BOOT)
		return 0;
	v2 = s->method == JL_SHIELD_CGROUP_V2;
	if (sched_getaffinity(tid, sizeof(aff), &aff))
		return -1;
	CPU_OR(&online, &s->hk, &s->shield);
	CPU_AND(&in_shield, &aff, &s->shield);
	CPU_AND(&out_shield, &aff, &s->hk);
	if (measured || (v2 && CPU_COUNT(&in_shield) && !CPU_COUNT(&out_shield))) {
		snprintf(path, sizeof(path), "%s/%s", s->shield_dir, v2 ? "cgroup.threads" : "tasks");
	} else if (v2) {
		return 0; /* the root cgroup: the partition leaves it the housekeeping CPUs by itself */
	} else {
		if (!CPU_EQUAL(&aff, &online) && CPU_COUNT(&in_shield))
			return 0; /* its cpus name shield CPUs: it stays in the root cpuset, where they say */
		snprintf(path, sizeof(path), "%s/tasks", s->hk_dir);
	}
	snprintf(num, sizeof(num), "%d", (int)tid);
	if (jl_knob_write(path, num))
		return -1;
	/* kernels before 6.2 reset a moved thread's mask to its new cpuset's CPUs: give it back */
	if (!sched_getaffinity(tid, sizeof(now), &now) && !CPU_EQUAL(&now, &aff)) {
		cpu_set_t want;

		CPU_AND(&want, &aff, measured || !strstr(path, "housekeeping") ? &s->shield : &s->hk);
		if (CPU_COUNT(&want) && !CPU_EQUAL(&want, &now))
			sched_setaffinity(tid, sizeof(want), &want);
	}
	if (measured)
		s->threads_shielded++;
	else if (strstr(path, "-shield/"))
		s->neighbours_shielded++;
	return 0;
}

void jl_shield_describe(const struct jl_shield *s, json_object *obj)
{
	char list[1024];

	json_object_object_add(obj, "cpus", json_object_new_string(jl_cpulist_format(&s->shield, list, sizeof(list))));
	json_object_object_add(obj, "housekeeping", json_object_new_string(jl_cpulist_format(&s->hk, list, sizeof(list))));
	json_object_object_add(obj, "method", json_object_new_string(jl_shield_method_name(s->method)));
	json_object_object_add(obj, "exclusive", json_object_new_boolean(s->exclusive));
	json_object_object_add(obj, "tasks_moved", json_object_new_int(s->tasks_moved));
	json_object_object_add(obj, "tasks_unmovable", json_object_new_int(s->tasks_unmovable));
	json_object_object_add(obj, "tasks_pinned", json_object_new_int(s->tasks_pinned));
	json_object_object_add(obj, "tasks_kept", json_object_new_int(s->tasks_kept));
	json_object_object_add(obj, "irq_threads", json_object_new_int(s->irq_threads));
	json_object_object_add(obj, "threads_shielded", json_object_new_int(s->threads_shielded));
	json_object_object_add(obj, "neighbours_shielded", json_object_new_int(s->neighbours_shielded));
	if (s->method == JL_SHIELD_CGROUP_V2)
		json_object_object_add(obj, "masks_journalled", json_object_new_int(s->masks_journalled));
	if (s->method == JL_SHIELD_CGROUP_V2) {
		char path[600], iso[256] = "";

		snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", s->root);
		jl_knob_read(path, iso, sizeof(iso));
		json_object_object_add(obj, "cgroup", json_object_new_string(s->shield_dir));
		json_object_object_add(obj, "partition", json_object_new_string(s->partition));
		json_object_object_add(obj, "root_isolated", json_object_new_string(iso));
		json_object_object_add(obj, "settle_ms", json_object_new_double((double)s->settle_ns / 1e6));
		json_object_object_add(obj, "enabled_cpuset", json_object_new_boolean(s->v2_enabled_cpuset));
		json_object_object_add(obj, "moved_to_root_cgroup", json_object_new_boolean(s->v2_moved_self));
	}
}

int jl_shield_list_stale(const char *root, const pid_t *live_pids, int nlive, void (*fn)(const char *dir, void *ctx),
			 void *ctx)
{
	DIR *d = opendir(root);
	struct dirent *e;
	int n = 0;

	if (!d)
		return -1;
	while ((e = readdir(d))) {
		char dir[600];
		pid_t pid;
		bool live = false;

		pid = jl_stale_cpuset_pid(e->d_name);
		if (!pid)
			continue; /* not a name jitterlab gives (a user's jitterlab-foo) */
		for (int i = 0; i < nlive; i++)
			live |= live_pids[i] == pid;
		if (live)
			continue;
		snprintf(dir, sizeof(dir), "%s/%s", root, e->d_name);
		if (fn)
			fn(dir, ctx);
		n++;
	}
	closedir(d);
	return n;
}

int jl_shield_remove_dir(const char *root, const char *dir, char *why, size_t whylen)
{
	char parent[512], probe[512];
	bool v2;

	snprintf(probe, sizeof(probe), "%s/cgroup.threads", root);
	v2 = access(probe, F_OK) == 0; /* a v2 root has cgroup.threads, a v1 one tasks */
	snprintf(parent, sizeof(parent), "%s/%s", root, v2 ? "cgroup.threads" : "tasks");
	return jl_cgroup_remove(dir, v2 ? "cgroup.threads" : "tasks", parent, why, whylen);
}
