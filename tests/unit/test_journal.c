/* test_journal: affinity/journal.c, irq.c and topology.c on a temp directory with fake knob files:
 * write/replay in reverse order, a crash (the writer killed) between the journal write and the knob
 * change, a torn last line, cgroup directory entries, children (a reused pid is never killed), IRQ
 * steering on a fake /proc/irq, IRQ threads' masks put back (fake tasks through jl_irq_threads_set_ops),
 * SMT siblings on a fake sysfs. Touches no machine state. */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "affinity/cpulist.h"
#include "affinity/fair_server.h"
#include "affinity/irq.h"
#include "affinity/irq_threads.h"
#include "affinity/journal.h"
#include "affinity/stale_runs.h"
#include "rt/engine/machine.h"
#include "affinity/shield.h"
#include "affinity/topology.h"
#include "affinity/procfs.h"
#include "affinity/runnames.h"

struct fixture {
	char root[256];
	char state[300];
};

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));

	snprintf(f->root, sizeof(f->root), "/tmp/jl-test-journal-XXXXXX");
	if (!mkdtemp(f->root))
		return -1;
	snprintf(f->state, sizeof(f->state), "%s/state", f->root);
	jl_journal_allow_prefix(f->root); /* fake knob files: outside /proc/irq and the cgroup mounts */
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[400];

	jl_journal_allow_prefix(NULL);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", f->root);
	if (system(cmd)) {
		/* best effort */
	}
	free(f);
	return 0;
}

static void put(const char *dir, const char *name, const char *value)
{
	char path[600];
	FILE *fp;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fprintf(fp, "%s\n", value);
	fclose(fp);
}

static const char *get(const char *dir, const char *name)
{
	static char buf[256];
	char path[600];

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	assert_int_equal(jl_knob_read(path, buf, sizeof(buf)), 0);
	return buf;
}

static void path_of(char *out, size_t len, const char *dir, const char *name)
{
	snprintf(out, len, "%s/%s", dir, name);
}

/* Change a knob the way the modules do: journal first, then write. */
static void change(struct jl_journal *j, const char *dir, const char *name, const char *value)
{
	char path[600], old[256];

	path_of(path, sizeof(path), dir, name);
	assert_int_equal(jl_knob_read(path, old, sizeof(old)), 0);
	assert_int_equal(jl_journal_record_write(j, path, old), 0);
	assert_int_equal(jl_knob_write(path, value), 0);
}

static void test_write_and_undo_reverse_order(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char report[512], jpath[600];
	struct stat st;

	put(f->root, "a", "old_a");
	put(f->root, "b", "old_b");
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	assert_int_equal(stat(jpath, &st), 0);
	change(j, f->root, "a", "new_a");
	change(j, f->root, "b", "new_b");
	change(j, f->root, "a", "newer_a"); /* only the reverse replay ends with old_a */
	assert_string_equal(get(f->root, "a"), "newer_a");
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	assert_string_equal(get(f->root, "a"), "old_a");
	assert_string_equal(get(f->root, "b"), "old_b");
	assert_int_equal(stat(jpath, &st), -1); /* removed after a full restore */
}

/* A child process journals, changes some knobs, journals one more and is SIGKILLed before changing it. */
static void test_crash_then_replay(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info info[4];
	char report[512], path[600];
	pid_t pid;
	int status, n;

	put(f->root, "rt", "950000");
	put(f->root, "lb", "1");
	pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct jl_journal *j;

		if (jl_journal_open(&j, f->state))
			_exit(2);
		change(j, f->root, "rt", "900000");
		change(j, f->root, "lb", "0");
		path_of(path, sizeof(path), f->root, "rt");
		jl_journal_record_write(j, path, "900000"); /* journalled, the knob not changed yet */
		raise(SIGKILL);
		_exit(3);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_true(WIFSIGNALED(status));
	assert_string_equal(get(f->root, "rt"), "900000");
	assert_string_equal(get(f->root, "lb"), "0");

	n = jl_journal_list(f->state, info, 4);
	assert_int_equal(n, 1);
	assert_int_equal(info[0].pid, pid);
	assert_false(info[0].alive);
	assert_int_equal(info[0].entries, 3);

	assert_int_equal(jl_journal_replay(info[0].path, report, sizeof(report), NULL), 3);
	assert_string_equal(get(f->root, "rt"), "950000");
	assert_string_equal(get(f->root, "lb"), "1");
	assert_int_equal(jl_journal_list(f->state, info, 4), 0);
}

static void test_live_owner_is_not_stale(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info info[4];
	struct jl_journal *j;
	char report[256];

	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_true(info[0].alive);
	assert_int_equal(info[0].pid, getpid());
	assert_int_equal(info[0].entries, 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	assert_int_equal(jl_journal_list(f->state, info, 4), 0);
}

static void test_torn_last_line(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char report[256], jpath[600], path[600];
	FILE *fp;

	put(f->root, "k", "orig");
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	change(j, f->root, "k", "changed");
	jl_journal_abandon(j);
	fp = fopen(jpath, "a");
	assert_non_null(fp);
	path_of(path, sizeof(path), f->root, "k");
	fprintf(fp, "{\"op\":\"write\",\"path\":\"%s\",\"ol", path); /* crash mid-write */
	fclose(fp);
	assert_int_equal(jl_journal_replay(jpath, report, sizeof(report), NULL), 1);
	assert_string_equal(get(f->root, "k"), "orig");
}

static void test_failed_undo_keeps_journal(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char report[512], jpath[600], path[600];
	struct stat st;

	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	snprintf(path, sizeof(path), "%s/no-such-dir/knob", f->root);
	assert_int_equal(jl_journal_record_write(j, path, "1"), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), -1);
	assert_non_null(strstr(report, "no-such-dir"));
	assert_int_equal(stat(jpath, &st), 0); /* kept for a later `restore` */
	unlink(jpath);
}

static void test_cgroup_entry(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char report[256], dir[600], parent[600];
	struct stat st;

	snprintf(dir, sizeof(dir), "%s/jitterlab-1-shield", f->root);
	put(f->root, "tasks", "");
	path_of(parent, sizeof(parent), f->root, "tasks");
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_journal_record_cgroup(j, dir, "tasks", parent), 0);
	assert_int_equal(mkdir(dir, 0755), 0);
	/* a cgroup journalled but never created (crash between the two) is fine too */
	snprintf(report, sizeof(report), "%s/never-made", f->root);
	assert_int_equal(jl_journal_record_cgroup(j, report, "tasks", parent), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	assert_int_equal(stat(dir, &st), -1);
}

static pid_t sleeper(void)
{
	pid_t pid = fork();

	if (pid == 0) {
		for (;;)
			pause();
	}
	return pid;
}

static void test_child_is_ended_but_reused_pid_is_not(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char report[256], jpath[600];
	unsigned long long start;
	pid_t kid = sleeper(), other = sleeper();
	int status;
	FILE *fp;

	assert_true(kid > 0 && other > 0);
	assert_int_equal(jl_proc_start_time(kid, &start), 0);
	assert_true(jl_proc_is(kid, start));
	assert_false(jl_proc_is(kid, start + 1));
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	assert_int_equal(jl_journal_record_child(j, kid), 0);
	jl_journal_abandon(j);
	/* OTHER stands for a process that reused a recorded pid: the start time differs */
	assert_int_equal(jl_proc_start_time(other, &start), 0);
	fp = fopen(jpath, "a");
	assert_non_null(fp);
	fprintf(fp, "{\"op\":\"child\",\"pid\":%d,\"start\":%llu}\n", (int)other, start + 12345);
	fclose(fp);

	assert_int_equal(jl_journal_replay(jpath, report, sizeof(report), NULL), 2);
	assert_int_equal(waitpid(kid, &status, 0), kid);
	assert_true(WIFSIGNALED(status));
	assert_int_equal(waitpid(other, &status, WNOHANG), 0); /* still running */
	kill(other, SIGKILL);
	waitpid(other, &status, 0);
}

/* The recorded child died (SIGKILL), but a grandchild in its process group still runs: replay ends it. */
static void test_orphaned_grandchild_is_ended(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info info[4];
	char report[256];
	int fds[2], status;
	pid_t a, grandchild = 0;

	assert_int_equal(pipe(fds), 0);
	a = fork();
	assert_true(a >= 0);
	if (a == 0) {
		struct jl_journal *j;
		int inner[2];
		pid_t b, c = 0;

		if (pipe(inner))
			_exit(2);
		b = fork();
		if (b == 0) {
			setpgid(0, 0);
			c = fork();
			if (c == 0) {
				for (;;)
					pause();
			}
			if (write(inner[1], &c, sizeof(c)) != sizeof(c))
				_exit(2);
			for (;;)
				pause();
		}
		if (read(inner[0], &c, sizeof(c)) != sizeof(c) || jl_journal_open(&j, f->state) ||
		    jl_journal_record_child(j, b))
			_exit(2);
		if (write(fds[1], &c, sizeof(c)) != sizeof(c))
			_exit(2);
		kill(b, SIGKILL);
		waitpid(b, NULL, 0);
		_exit(0); /* "crash": the journal is left behind */
	}
	assert_int_equal(read(fds[0], &grandchild, sizeof(grandchild)), sizeof(grandchild));
	assert_int_equal(waitpid(a, &status, 0), a);
	assert_int_equal(WEXITSTATUS(status), 0);
	assert_int_equal(kill(grandchild, 0), 0); /* still running */
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_false(info[0].alive);
	assert_true(jl_journal_replay(info[0].path, report, sizeof(report), NULL) >= 0);
	for (int i = 0; i < 100; i++) {
		char path[64], buf[256];

		snprintf(path, sizeof(path), "/proc/%d/stat", (int)grandchild);
		if (jl_knob_read(path, buf, sizeof(buf)) || strstr(buf, ") Z "))
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
		if (i == 99)
			fail_msg("grandchild %d still runs", (int)grandchild);
	}
	close(fds[0]);
	close(fds[1]);
}

/* A journal without a readable owner line: being created right now (young file or live pid: left
 * alone) or left by a crash while creating it (old file, dead pid: stale, nothing to undo). */
static void test_ownerless_journal(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info info[4];
	char path[600];
	pid_t dead = fork();
	struct timespec old[2] = { { .tv_sec = 1000 }, { .tv_sec = 1000 } };
	FILE *fp;

	if (dead == 0)
		_exit(0);
	waitpid(dead, NULL, 0);
	mkdir(f->state, 0755);
	snprintf(path, sizeof(path), "%s/run-%d.journal", f->state, (int)dead);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_true(info[0].alive); /* young: maybe being written right now */
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_false(info[0].alive);
	assert_int_equal(info[0].pid, dead);
	assert_int_equal(info[0].entries, 0);
	unlink(path);
	snprintf(path, sizeof(path), "%s/run-%d.journal", f->state, (int)getpid());
	fp = fopen(path, "w");
	fclose(fp);
	assert_int_equal(utimensat(AT_FDCWD, path, old, 0), 0);
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_true(info[0].alive); /* its pid runs */
	unlink(path);
}

/* The run's stale check (jl_machine_check_stale) on a journal directory given by JITTERLAB_STATE_DIR:
 * a dead run's journal with changes refuses and names restore; one without changes does not. */
static void test_machine_check_stale(void **state)
{
	struct fixture *f = *state;
	char err[1024] = "", path[600];
	pid_t pid;
	int status;

	setenv("JITTERLAB_STATE_DIR", f->state, 1);
	if (jl_machine_check_stale(err, sizeof(err))) {
		/* the real machine has a stale jitterlab cpuset (it also counts): not this test's business */
		unsetenv("JITTERLAB_STATE_DIR");
		skip();
	}
	put(f->root, "knob", "1");
	for (int with_change = 0; with_change < 2; with_change++) {
		pid = fork();
		if (pid == 0) {
			struct jl_journal *j;

			if (jl_journal_open(&j, f->state))
				_exit(2);
			if (with_change) {
				path_of(path, sizeof(path), f->root, "knob");
				jl_journal_record_write(j, path, "1");
			}
			raise(SIGKILL);
		}
		waitpid(pid, &status, 0);
		err[0] = '\0';
		if (with_change) {
			assert_int_equal(jl_machine_check_stale(err, sizeof(err)), -1);
			assert_non_null(strstr(err, "jitterlab restore"));
			snprintf(path, sizeof(path), "run-%d.journal", (int)pid);
			assert_non_null(strstr(err, path));
		} else {
			assert_int_equal(jl_machine_check_stale(err, sizeof(err)), 0);
		}
	}
	unsetenv("JITTERLAB_STATE_DIR");
}

static void test_proc_start_time(void **state)
{
	unsigned long long start;

	(void)state;
	assert_int_equal(jl_proc_start_time(getpid(), &start), 0);
	assert_true(start > 0);
	errno = 0;
	assert_int_equal(jl_proc_start_time(4194304 + 7, &start), -1); /* beyond pid_max */
	assert_int_equal(errno, ESRCH);
}

static void test_lock_is_exclusive(void **state)
{
	struct fixture *f = *state;
	int a = jl_journal_lock(f->state, 0), b;
	pid_t pid;
	int status;

	assert_true(a >= 0);
	pid = fork();
	if (pid == 0) {
		b = jl_journal_lock(f->state, 100);
		_exit(b < 0 && errno == EWOULDBLOCK ? 0 : 1);
	}
	assert_int_equal(waitpid(pid, &status, 0), pid);
	assert_int_equal(WEXITSTATUS(status), 0);
	close(a);
	b = jl_journal_lock(f->state, 0);
	assert_true(b >= 0);
	close(b);
}

static void test_irq_mask_format(void **state)
{
	cpu_set_t s;
	char buf[128];

	(void)state;
	CPU_ZERO(&s);
	CPU_SET(0, &s);
	CPU_SET(1, &s);
	assert_string_equal(jl_irq_format_mask(&s, buf, sizeof(buf)), "3");
	CPU_ZERO(&s);
	CPU_SET(32, &s);
	assert_string_equal(jl_irq_format_mask(&s, buf, sizeof(buf)), "1,00000000");
	CPU_SET(4, &s);
	assert_string_equal(jl_irq_format_mask(&s, buf, sizeof(buf)), "1,00000010");
	CPU_ZERO(&s);
	assert_string_equal(jl_irq_format_mask(&s, buf, sizeof(buf)), "0");
}

/* IRQ steering on a fake /proc/irq: every IRQ moves off CPU 1 (or stays), then the journal puts back. */
static void test_irq_steer_fake_proc(void **state)
{
	struct fixture *f = *state;
	struct jl_irq_steer st;
	struct jl_journal *j;
	char proc[400], d[600], err[256], report[256];
	cpu_set_t hk;

	snprintf(proc, sizeof(proc), "%s/irq", f->root);
	assert_int_equal(mkdir(proc, 0755), 0);
	put(proc, "default_smp_affinity", "3");
	snprintf(d, sizeof(d), "%s/24", proc);
	mkdir(d, 0755);
	put(d, "smp_affinity_list", "0-1");
	snprintf(d, sizeof(d), "%s/25", proc);
	mkdir(d, 0755);
	put(d, "smp_affinity_list", "1");
	snprintf(d, sizeof(d), "%s/26", proc);
	mkdir(d, 0755);
	put(d, "smp_affinity_list", "0");
	snprintf(d, sizeof(d), "%s/27", proc); /* refuses writes, like a managed IRQ */
	mkdir(d, 0755);
	put(d, "smp_affinity_list", "1");
	snprintf(d, sizeof(d), "%s/27/smp_affinity_list", proc);
	chmod(d, 0444);

	CPU_ZERO(&hk);
	CPU_SET(0, &hk);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_irq_steer_apply(&st, proc, &hk, j, err, sizeof(err)), 0);
	snprintf(d, sizeof(d), "%s/24", proc);
	assert_string_equal(get(d, "smp_affinity_list"), "0");
	snprintf(d, sizeof(d), "%s/25", proc);
	assert_string_equal(get(d, "smp_affinity_list"), "0");
	assert_string_equal(get(proc, "default_smp_affinity"), "1");
	assert_int_equal(st.kept, 1);
	if (geteuid() != 0) { /* root writes even a 0444 file */
		assert_int_equal(st.moved, 2);
		assert_int_equal(st.nrefused, 1);
		assert_int_equal(st.refused[0], 27);
	}
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	snprintf(d, sizeof(d), "%s/24", proc);
	assert_string_equal(get(d, "smp_affinity_list"), "0-1");
	snprintf(d, sizeof(d), "%s/25", proc);
	assert_string_equal(get(d, "smp_affinity_list"), "1");
	snprintf(d, sizeof(d), "%s/27", proc);
	assert_string_equal(get(d, "smp_affinity_list"), "1");
	assert_string_equal(get(proc, "default_smp_affinity"), "3");
}

/* [run] fair_server on a fake fair_server directory: every CPU's runtime is journalled and set, the replay
 * puts each back, and a CPU already at the value is not touched. */
static void test_fair_server_apply_and_undo(void **state)
{
	struct fixture *f = *state;
	struct jl_journal *j;
	char dir[400], d[600], err[256], report[256];
	cpu_set_t cpus;
	int nset;

	snprintf(dir, sizeof(dir), "%s/fair_server", f->root);
	assert_int_equal(mkdir(dir, 0755), 0);
	for (int c = 0; c < 3; c++) {
		snprintf(d, sizeof(d), "%s/cpu%d", dir, c);
		mkdir(d, 0755);
		put(d, "runtime", c == 2 ? "40000000" : "50000000");
		put(d, "period", "1000000000");
	}
	setenv("JITTERLAB_FAIR_SERVER_DIR", dir, 1);
	assert_int_equal(jl_fair_server_probe(err, sizeof(err)), 0);
	CPU_ZERO(&cpus);
	for (int c = 0; c < 3; c++)
		CPU_SET(c, &cpus);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_fair_server_apply(j, &cpus, 40000000, &nset, err, sizeof(err)), 0);
	assert_int_equal(nset, 2);
	for (int c = 0; c < 3; c++) {
		snprintf(d, sizeof(d), "%s/cpu%d", dir, c);
		assert_string_equal(get(d, "runtime"), "40000000");
	}
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	for (int c = 0; c < 3; c++) {
		snprintf(d, sizeof(d), "%s/cpu%d", dir, c);
		assert_string_equal(get(d, "runtime"), c == 2 ? "40000000" : "50000000");
		assert_string_equal(get(d, "period"), "1000000000");
	}
	/* a kernel without a fair server: the probe says so */
	snprintf(d, sizeof(d), "%s/none", f->root);
	setenv("JITTERLAB_FAIR_SERVER_DIR", d, 1);
	assert_int_equal(jl_fair_server_probe(err, sizeof(err)), -1);
	assert_non_null(strstr(err, "no fair server"));
	unsetenv("JITTERLAB_FAIR_SERVER_DIR");
}

/* CPUs isolated at boot are adopted: the shield is a no-op (nothing journalled, nothing made, no thread
 * moved) that says so. */
static void test_shield_isolated_at_boot_is_a_no_op(void **state)
{
	struct fixture *f = *state;
	struct jl_shield_config cfg = { .isolated_at_boot = true };
	struct jl_shield sh;
	struct jl_journal *j;
	char err[256], report[256];
	json_object *o = json_object_new_object(), *v;

	CPU_ZERO(&cfg.shield);
	CPU_SET(1, &cfg.shield);
	CPU_ZERO(&cfg.online);
	CPU_SET(0, &cfg.online);
	CPU_SET(1, &cfg.online);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_shield_apply(&sh, &cfg, j, err, sizeof(err)), 0);
	assert_int_equal(sh.method, JL_SHIELD_BOOT);
	assert_int_equal(jl_shield_place(&sh, getpid(), true), 0);
	assert_int_equal(jl_shield_seal(&sh, err, sizeof(err)), 0);
	assert_int_equal(sh.threads_shielded, 0);
	jl_shield_describe(&sh, o);
	assert_true(json_object_object_get_ex(o, "method", &v));
	assert_string_equal(json_object_get_string(v), "isolated at boot");
	json_object_put(o);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
}

/* Only the fair server's cpuN/runtime files are debugfs paths a journal may name. */
static void test_fair_server_paths_allowed(void **state)
{
	(void)state;
	assert_true(jl_journal_path_allowed("/sys/kernel/debug/sched/fair_server/cpu0/runtime"));
	assert_true(jl_journal_path_allowed("/sys/kernel/debug/sched/fair_server/cpu17/runtime"));
	assert_false(jl_journal_path_allowed("/sys/kernel/debug/sched/fair_server/cpu0/period"));
	assert_false(jl_journal_path_allowed("/sys/kernel/debug/sched/fair_server/cpu/runtime"));
	assert_false(jl_journal_path_allowed("/sys/kernel/debug/sched/features"));
	assert_false(jl_journal_path_allowed("/sys/kernel/debug/sched/fair_server/cpu0/runtime/x"));
}

/* The kernel's part in a fake /proc/irq/N: when the mask file names CPU 1 alone, the IRQ's next
 * interrupt comes and is delivered there (effective_affinity_list becomes "1"). */
struct fake_irq {
	char dir[600];
	atomic_bool stop, saw_effective_write;
};

static void *fake_irq_kernel(void *arg)
{
	struct fake_irq *k = arg;

	while (!atomic_load(&k->stop)) {
		const char *mask = get(k->dir, "smp_affinity_list");

		if (!strcmp(mask, "1") && strcmp(get(k->dir, "effective_affinity_list"), "1")) {
			atomic_store(&k->saw_effective_write, true);
			put(k->dir, "effective_affinity_list", "1");
		}
		usleep(1000);
	}
	return NULL;
}

/* An IRQ delivered to CPU 1 inside mask 0-1, steered to CPU 0 (and delivered there): the undo writes
 * the old effective CPU first, waits for the IRQ to land there, then writes the old mask. */
static void test_irq_undo_effective_cpu_first(void **state)
{
	struct fixture *f = *state;
	struct jl_irq_steer st;
	struct jl_journal *j;
	struct fake_irq k = { .stop = false, .saw_effective_write = false };
	char proc[400], err[256], report[512];
	cpu_set_t hk;
	pthread_t kernel;

	snprintf(proc, sizeof(proc), "%s/irq", f->root);
	assert_int_equal(mkdir(proc, 0755), 0);
	snprintf(k.dir, sizeof(k.dir), "%s/24", proc);
	mkdir(k.dir, 0755);
	put(k.dir, "smp_affinity_list", "0-1");
	put(k.dir, "effective_affinity_list", "1");
	CPU_ZERO(&hk);
	CPU_SET(0, &hk);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_irq_steer_apply(&st, proc, &hk, j, err, sizeof(err)), 0);
	assert_string_equal(get(k.dir, "smp_affinity_list"), "0");
	put(k.dir, "effective_affinity_list", "0"); /* an interrupt came during the run */

	assert_int_equal(pthread_create(&kernel, NULL, fake_irq_kernel, &k), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	atomic_store(&k.stop, true);
	pthread_join(kernel, NULL);
	assert_true(atomic_load(&k.saw_effective_write));
	assert_string_equal(get(k.dir, "smp_affinity_list"), "0-1");
	assert_string_equal(get(k.dir, "effective_affinity_list"), "1");
	assert_null(strstr(report, "delivered to CPU"));
}

/* An MSI-like IRQ: a write of CPU 1 shows as effective at once, but the move is done only when an
 * interrupt comes on the new vector (its count on CPU 1 grows, 30 ms later here); the old mask written
 * before that (0-1, which holds the old CPU) takes the IRQ back to CPU 0, as x86 does. */
struct fake_msi {
	char dir[600], root[400];
	atomic_bool stop, reverted;
};

static void interrupts(const char *root, int on0, int on1)
{
	char line[128];

	snprintf(line, sizeof(line), "           CPU0       CPU1\n 26: %10d %10d   PCI-MSI 32769-edge      virtio0-requests",
		 on0, on1);
	put(root, "interrupts", line);
}

static void *fake_msi_kernel(void *arg)
{
	struct fake_msi *k = arg;
	struct timespec t0 = { 0 }, now;
	bool moving = false, done = false;

	while (!atomic_load(&k->stop)) {
		const char *mask = get(k->dir, "smp_affinity_list");

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (!strcmp(mask, "1") && !moving && !done) {
			put(k->dir, "effective_affinity_list", "1");
			moving = true;
			t0 = now;
		} else if (moving && !strcmp(mask, "0-1")) {
			put(k->dir, "effective_affinity_list", "0"); /* the old vector again */
			atomic_store(&k->reverted, true);
			moving = false;
		} else if (moving && (now.tv_sec - t0.tv_sec) * 1000000000L + now.tv_nsec - t0.tv_nsec > 30000000L) {
			interrupts(k->root, 500, 1); /* the first interrupt on the new vector: the move is done */
			moving = false;
			done = true;
		}
		usleep(1000);
	}
	return NULL;
}

static void test_irq_undo_waits_for_the_move_to_complete(void **state)
{
	struct fixture *f = *state;
	struct jl_irq_steer st;
	struct jl_journal *j;
	struct fake_msi k = { .stop = false, .reverted = false };
	char proc[400], err[256], report[512];
	cpu_set_t hk;
	pthread_t kernel;

	snprintf(k.root, sizeof(k.root), "%s", f->root);
	snprintf(proc, sizeof(proc), "%s/irq", f->root);
	assert_int_equal(mkdir(proc, 0755), 0);
	snprintf(k.dir, sizeof(k.dir), "%s/26", proc);
	mkdir(k.dir, 0755);
	put(k.dir, "smp_affinity_list", "0-1");
	put(k.dir, "effective_affinity_list", "1");
	interrupts(f->root, 0, 0);
	CPU_ZERO(&hk);
	CPU_SET(0, &hk);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_irq_steer_apply(&st, proc, &hk, j, err, sizeof(err)), 0);
	put(k.dir, "effective_affinity_list", "0");
	interrupts(f->root, 500, 0); /* it ran on CPU 0 during the run */

	assert_int_equal(pthread_create(&kernel, NULL, fake_msi_kernel, &k), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	atomic_store(&k.stop, true);
	pthread_join(kernel, NULL);
	assert_false(atomic_load(&k.reverted));
	assert_string_equal(get(k.dir, "smp_affinity_list"), "0-1");
	assert_string_equal(get(k.dir, "effective_affinity_list"), "1");
	assert_null(strstr(report, "delivered to CPU"));
}

/* No interrupt comes to apply the move back: the mask is restored all the same, and the report says
 * where the IRQ is still delivered. */
static void test_irq_undo_effective_cpu_not_back(void **state)
{
	struct fixture *f = *state;
	struct jl_irq_steer st;
	struct jl_journal *j;
	json_object *notes, *n, *v;
	char proc[400], d[600], err[256], report[512];
	cpu_set_t hk;

	snprintf(proc, sizeof(proc), "%s/irq", f->root);
	assert_int_equal(mkdir(proc, 0755), 0);
	snprintf(d, sizeof(d), "%s/25", proc);
	mkdir(d, 0755);
	put(d, "smp_affinity_list", "0-1");
	put(d, "effective_affinity_list", "1");
	CPU_ZERO(&hk);
	CPU_SET(0, &hk);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_irq_steer_apply(&st, proc, &hk, j, err, sizeof(err)), 0);
	put(d, "effective_affinity_list", "0");
	notes = json_object_new_array();
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), notes), 0);
	assert_string_equal(get(d, "smp_affinity_list"), "0-1");
	assert_non_null(strstr(report, "IRQ 25: delivered to CPU 0, was 1"));
	/* the same, as the note summary.json and `restore --json` carry */
	assert_int_equal(json_object_array_length(notes), 1);
	n = json_object_array_get_idx(notes, 0);
	assert_true(json_object_object_get_ex(n, "irq", &v) && json_object_get_int(v) == 25);
	assert_true(json_object_object_get_ex(n, "kind", &v) && !strcmp(json_object_get_string(v), "irq"));
	assert_true(json_object_object_get_ex(n, "effective_before", &v) && !strcmp(json_object_get_string(v), "1"));
	assert_true(json_object_object_get_ex(n, "effective_after", &v) && !strcmp(json_object_get_string(v), "0"));
	assert_true(json_object_object_get_ex(n, "why", &v) && strstr(json_object_get_string(v), "next interrupt"));
	/* the mask now back (0-1) holds CPU 0: no later interrupt moves it back, and the note says so */
	assert_non_null(strstr(json_object_get_string(v), "stays there until its affinity is written again"));
	json_object_put(notes);
}

static void test_smt_siblings_fake_sysfs(void **state)
{
	struct fixture *f = *state;
	char sys[400], d[600], which[32];
	cpu_set_t a, b, sib;

	snprintf(sys, sizeof(sys), "%s/cpu", f->root);
	mkdir(sys, 0755);
	for (int c = 0; c < 4; c++) {
		snprintf(d, sizeof(d), "%s/cpu%d", sys, c);
		mkdir(d, 0755);
		snprintf(d, sizeof(d), "%s/cpu%d/topology", sys, c);
		mkdir(d, 0755);
		put(d, "thread_siblings_list", c % 2 ? "1,3" : "0,2");
	}
	assert_int_equal(jl_topo_siblings(sys, 0, &sib), 0);
	assert_int_equal(CPU_COUNT(&sib), 2);
	assert_true(CPU_ISSET(2, &sib));
	CPU_ZERO(&a);
	CPU_SET(1, &a);
	CPU_ZERO(&b);
	CPU_SET(0, &b);
	assert_false(jl_topo_smt_shared(sys, &a, &b, which, sizeof(which)));
	CPU_SET(3, &b);
	assert_true(jl_topo_smt_shared(sys, &a, &b, which, sizeof(which)));
	assert_string_equal(which, "1/3");
	/* no sysfs: every CPU is its own core */
	assert_false(jl_topo_smt_shared("/nonexistent", &a, &b, which, sizeof(which)));
	assert_true(jl_topo_numa_nodes() >= 1);
}

/* Write a journal file by hand: NAME in the state dir, LINES as given (owner lines included). */
static void put_journal(struct fixture *f, const char *name, const char *lines)
{
	char path[700];
	FILE *fp;

	mkdir(f->state, 0755);
	snprintf(path, sizeof(path), "%s/%s", f->state, name);
	fp = fopen(path, "w");
	assert_non_null(fp);
	fputs(lines, fp);
	fclose(fp);
}

static pid_t dead_pid(void)
{
	pid_t pid = fork();

	if (pid == 0)
		_exit(0);
	waitpid(pid, NULL, 0);
	return pid;
}

/* Only the last line may be torn: a bad line in the middle fails the replay (line named, file kept),
 * the entries that parsed are still undone. */
static void test_corrupt_middle_line(void **state)
{
	struct fixture *f = *state;
	char report[1024], path_a[600], path_b[600], lines[2048], jpath[700];
	pid_t dead = dead_pid();
	struct stat st;

	put(f->root, "a", "changed_a");
	put(f->root, "b", "changed_b");
	path_of(path_a, sizeof(path_a), f->root, "a");
	path_of(path_b, sizeof(path_b), f->root, "b");
	snprintf(lines, sizeof(lines),
		 "{\"op\":\"owner\",\"pid\":%d,\"start\":1,\"time\":1}\n"
		 "{\"op\":\"write\",\"path\":\"%s\",\"old\":\"orig_a\"}\n"
		 "{\"op\":\"write\",\"pa GARBAGE\n"
		 "{\"op\":\"write\",\"path\":\"%s\",\"old\":\"orig_b\"}\n",
		 (int)dead, path_a, path_b);
	put_journal(f, "run-1.journal", lines);
	snprintf(jpath, sizeof(jpath), "%s/run-1.journal", f->state);
	assert_int_equal(jl_journal_replay(jpath, report, sizeof(report), NULL), -1);
	assert_non_null(strstr(report, "journal corrupted at line 3"));
	assert_int_equal(stat(jpath, &st), 0);
	assert_string_equal(get(f->root, "a"), "orig_a");
	assert_string_equal(get(f->root, "b"), "orig_b");
}

/* A bad owner line over entries: stale, even when the pid in the name is alive (ours). */
static void test_bad_owner_with_entries_is_stale(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info info[4];
	char name[64], lines[1024], path[600];

	path_of(path, sizeof(path), f->root, "k");
	snprintf(name, sizeof(name), "run-%d.journal", (int)getpid());
	snprintf(lines, sizeof(lines), "{\"op\":\"own XX\n{\"op\":\"write\",\"path\":\"%s\",\"old\":\"1\"}\n", path);
	put_journal(f, name, lines);
	assert_int_equal(jl_journal_list(f->state, info, 4), 1);
	assert_false(info[0].alive);
	assert_int_equal(info[0].entries, 1);
}

/* A write whose target vanished (IRQ freed, cgroup directory gone) is undone, with a note. */
static void test_vanished_target_is_undone(void **state)
{
	struct fixture *f = *state;
	char report[1024], jpath[700];
	struct jl_journal *j;
	struct stat st;

	if (stat("/proc/irq/9999", &st) == 0)
		skip();
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	assert_int_equal(jl_journal_record_write(j, "/proc/irq/9999/smp_affinity_list", "0-1"), 0);
	if (stat("/sys/fs/cgroup/cpuset/tasks", &st) == 0)
		assert_int_equal(jl_journal_record_write(j, "/sys/fs/cgroup/cpuset/jitterlab-1-gone/cpuset.cpus", "1"), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
	assert_non_null(strstr(report, "/proc/irq/9999"));
	assert_int_equal(stat(jpath, &st), -1);
}

/* Entries naming anything but the knobs jitterlab changes are refused as corruption. */
static void test_path_outside_knobs_refused(void **state)
{
	struct fixture *f = *state;
	char report[1024], outside[600], jpath[700];
	struct jl_journal *j;
	struct stat st;

	snprintf(outside, sizeof(outside), "%s-outside", f->root);
	put("/tmp", strrchr(outside, '/') + 1, "keep");
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	snprintf(jpath, sizeof(jpath), "%s", jl_journal_path(j));
	assert_int_equal(jl_journal_record_write(j, outside, "overwritten"), 0);
	assert_int_equal(jl_journal_record_write(j, "/etc/../etc/jl-no-such-knob", "x"), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), -1);
	assert_non_null(strstr(report, "journal corrupted at line 2"));
	assert_non_null(strstr(report, "journal corrupted at line 3"));
	assert_string_equal(get("/tmp", strrchr(outside, '/') + 1), "keep");
	assert_int_equal(stat(jpath, &st), 0);
	unlink(outside);
	assert_false(jl_journal_path_allowed("/etc/passwd"));
	assert_true(jl_journal_path_allowed("/proc/irq/5/smp_affinity_list"));
	assert_true(jl_journal_path_allowed("/proc/sys/kernel/sched_rt_runtime_us"));
	assert_false(jl_journal_path_allowed("/proc/sys/kernel/sched_rt_period_us"));
	assert_false(jl_journal_path_allowed("/proc/irq/../sys/kernel/core_pattern"));
}

/* Journals are never read or created through a symlink; an unsafe state directory is refused. */
static void test_symlink_and_unsafe_dir_refused(void **state)
{
	struct fixture *f = *state;
	char jpath[700], target[600], report[512];
	struct jl_journal *j;

	mkdir(f->state, 0755);
	path_of(target, sizeof(target), f->root, "target");
	put(f->root, "target", "{\"op\":\"owner\",\"pid\":1,\"start\":1}");
	snprintf(jpath, sizeof(jpath), "%s/run-%d.journal", f->state, (int)getpid());
	assert_int_equal(symlink(target, jpath), 0);
	assert_int_equal(jl_journal_open(&j, f->state), -1);
	assert_int_equal(jl_journal_replay(jpath, report, sizeof(report), NULL), -1);
	unlink(jpath);
	assert_int_equal(chmod(f->state, 0777), 0);
	assert_int_equal(jl_journal_open(&j, f->state), -1);
	assert_int_equal(errno, EPERM);
	assert_int_equal(jl_journal_lock(f->state, 0), -1);
	assert_int_equal(chmod(f->state, 0755), 0);
	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_journal_finish(j, report, sizeof(report), NULL), 0);
}

/* Several stale journals are listed (and so replayed) newest first by the owner's start time: the
 * oldest one's old value is what stays. Also more than 64 journals are listed. */
static void test_stale_journals_newest_first(void **state)
{
	struct fixture *f = *state;
	struct jl_journal_info *all;
	char path[600], lines[1024], name[64], report[512];
	int order[] = { 3, 1, 4, 0, 2 }, n;

	path_of(path, sizeof(path), f->root, "k");
	put(f->root, "k", "v5");
	for (int i = 0; i < 5; i++) {
		int k = order[i];

		/* journal k (start 100+k) changed v(k) to v(k+1) */
		snprintf(lines, sizeof(lines),
			 "{\"op\":\"owner\",\"pid\":%d,\"start\":%d,\"time\":%d}\n"
			 "{\"op\":\"write\",\"path\":\"%s\",\"old\":\"v%d\"}\n",
			 900000 + k, 100 + k, 1000 + k, path, k);
		snprintf(name, sizeof(name), "run-%d.journal", 900000 + k);
		put_journal(f, name, lines);
	}
	n = jl_journal_list_all(f->state, &all);
	assert_int_equal(n, 5);
	for (int i = 0; i < n; i++) {
		assert_int_equal(all[i].start, 104 - i);
		assert_int_equal(jl_journal_replay(all[i].path, report, sizeof(report), NULL), 1);
	}
	free(all);
	assert_string_equal(get(f->root, "k"), "v0");

	for (int i = 0; i < 100; i++) {
		snprintf(lines, sizeof(lines), "{\"op\":\"owner\",\"pid\":%d,\"start\":%d,\"time\":1}\n", 800000 + i, i + 1);
		snprintf(name, sizeof(name), "run-%d.journal", 800000 + i);
		put_journal(f, name, lines);
	}
	n = jl_journal_list_all(f->state, &all);
	assert_int_equal(n, 100);
	free(all);
}

static void test_leftover_names(void **state)
{
	(void)state;
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-123-shield"), 123);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-123-housekeeping"), 123);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-foo"), 0);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-123"), 0);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-123-shield-x"), 0);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab-12x-shield"), 0);
	assert_int_equal(jl_stale_cpuset_pid("jitterlab--1-shield"), 0);
	assert_int_equal(jl_stale_instance_pid("jitterlab-42"), 42);
	assert_int_equal(jl_stale_instance_pid("jitterlab-foo"), 0);
	assert_int_equal(jl_stale_instance_pid("jitterlab-42x"), 0);
	assert_int_equal(jl_stale_instance_pid("jitterlab-42-shield"), 0);
	assert_int_equal(jl_stale_instance_pid("jitterlab-"), 0);
}

/* ---- IRQ threads' masks (issue 39): fake tasks, a fake cgroup and a fake IRQ ---- */

struct fake_task {
	pid_t tid;
	int irq;
	cpu_set_t mask;
};

static struct {
	struct fake_task t[4];
	int n, sets, sets_before_undo;
	bool kept;            /* the kernel keeps a user mask (6.2+) */
	char cgdir[600];      /* must be gone when a thread's mask is set back */
	char irqdir[600];     /* its smp_affinity_list must be back when a thread's mask is set back */
} ft;

static struct fake_task *ft_find(pid_t tid)
{
	for (int i = 0; i < ft.n; i++)
		if (ft.t[i].tid == tid)
			return &ft.t[i];
	return NULL;
}

static bool ft_same(pid_t tid, unsigned long long start, int irq)
{
	struct fake_task *t = ft_find(tid);

	return t && start == 1000u + (unsigned)tid && t->irq == irq;
}

static int ft_get(pid_t tid, cpu_set_t *m)
{
	struct fake_task *t = ft_find(tid);

	if (!t) {
		errno = ESRCH;
		return -1;
	}
	*m = t->mask;
	return 0;
}

static int ft_set(pid_t tid, const cpu_set_t *m)
{
	struct fake_task *t = ft_find(tid);
	struct stat st;
	char now[64];

	if (!t) {
		errno = ESRCH;
		return -1;
	}
	/* the order: the partition is gone and every IRQ is back before any thread's mask is set */
	if (stat(ft.cgdir, &st) == 0 || jl_knob_read(ft.irqdir, now, sizeof(now)) || strcmp(now, "0-1"))
		ft.sets_before_undo++;
	t->mask = *m;
	ft.sets++;
	return 0;
}

static bool ft_kept(void)
{
	return ft.kept;
}

static const struct jl_task_ops fake_ops = { ft_same, ft_get, ft_set, ft_kept };

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;

	assert_int_equal(jl_cpulist_parse(list, &s, NULL, 0), 0);
	return s;
}

/* A shielded run's journal as v2_apply and the IRQ steering write it: the IRQ threads' masks first, then
 * the partition's cgroup, then an IRQ's move. During the run the partition rewrote the threads' masks
 * ("1 -> 0-1", "0 -> 0-1"). The replay undoes the IRQ, then the cgroup, then sets each thread back. */
static void replay_irq_threads(struct fixture *f, bool kept, json_object *notes, char *report, size_t rlen)
{
	struct jl_irq_thread_mask t[3] = {
		{ .tid = 101, .start = 1101, .irq = 9, .effective = "1" },     /* irq/9-acpi: 1 */
		{ .tid = 102, .start = 1102, .irq = 12, .effective = "" },     /* its IRQ's effective CPU unknown */
		{ .tid = 103, .start = 1103, .irq = 1, .effective = "1" },     /* never fired: 0-1 */
	};
	struct jl_irq_steer st;
	struct jl_journal *j;
	char proc[400], parent[600], err[256], line[8192];
	cpu_set_t hk = cpus("0");
	FILE *fp;
	int lines = 0;

	memset(&ft, 0, sizeof(ft));
	ft.kept = kept;
	t[0].cpus = cpus("1");
	t[1].cpus = cpus("0");
	t[2].cpus = cpus("0-1");
	for (int i = 0; i < 3; i++)
		ft.t[ft.n++] = (struct fake_task){ t[i].tid, t[i].irq, t[i].cpus };
	jl_irq_threads_set_ops(&fake_ops);

	snprintf(ft.cgdir, sizeof(ft.cgdir), "%s/jitterlab-1-shield", f->root);
	put(f->root, "tasks", "");
	path_of(parent, sizeof(parent), f->root, "tasks");
	snprintf(proc, sizeof(proc), "%s/irq", f->root);
	assert_int_equal(mkdir(proc, 0755), 0);
	snprintf(ft.irqdir, sizeof(ft.irqdir), "%s/24", proc);
	assert_int_equal(mkdir(ft.irqdir, 0755), 0);
	put(ft.irqdir, "smp_affinity_list", "0-1");
	put(ft.irqdir, "effective_affinity_list", "0");
	snprintf(ft.irqdir, sizeof(ft.irqdir), "%s/24/smp_affinity_list", proc);

	assert_int_equal(jl_journal_open(&j, f->state), 0);
	assert_int_equal(jl_journal_record_irq_thread_masks(j, t, 3), 0);
	assert_int_equal(jl_journal_record_irq_threads(j), 0); /* the steering's own: already there, nothing */
	assert_int_equal(jl_journal_record_cgroup(j, ft.cgdir, "tasks", parent), 0);
	assert_int_equal(mkdir(ft.cgdir, 0755), 0);
	assert_int_equal(jl_irq_steer_apply(&st, proc, &hk, j, err, sizeof(err)), 0);
	fp = fopen(jl_journal_path(j), "r");
	assert_non_null(fp);
	while (fgets(line, sizeof(line), fp))
		lines += strstr(line, "\"irqthreads\"") != NULL;
	fclose(fp);
	assert_int_equal(lines, 1);

	ft.t[0].mask = cpus("0-1"); /* the partition, made and dissolved */
	ft.t[1].mask = cpus("0-1");
	ft.t[2].mask = cpus("0");   /* and a thread that followed its IRQ */
	assert_int_equal(jl_journal_finish(j, report, rlen, notes), 0);
	jl_irq_threads_set_ops(NULL);
	assert_int_equal(ft.sets_before_undo, 0);
}

static json_object *thread_note(json_object *notes, int pid)
{
	for (size_t i = 0; i < json_object_array_length(notes); i++) {
		json_object *n = json_object_array_get_idx(notes, i), *v;

		if (json_object_object_get_ex(n, "kind", &v) && !strcmp(json_object_get_string(v), "irq_thread") &&
		    json_object_object_get_ex(n, "pid", &v) && json_object_get_int(v) == pid)
			return n;
	}
	return NULL;
}

/* Before Linux 6.2 every thread is set back, and none is reported. */
static void test_irq_threads_put_back_after_the_partition(void **state)
{
	json_object *notes = json_object_new_array();
	char report[1024];

	replay_irq_threads(*state, false, notes, report, sizeof(report));
	assert_int_equal(ft.sets, 3);
	for (int i = 0; i < 3; i++) {
		cpu_set_t want = cpus(i == 0 ? "1" : i == 1 ? "0" : "0-1");

		assert_true(CPU_EQUAL(&ft.t[i].mask, &want));
		assert_null(thread_note(notes, ft.t[i].tid));
	}
	assert_null(strstr(report, "IRQ thread"));
	json_object_put(notes);
}

/* From 6.2 a thread is set back only where the user mask it leaves is its IRQ's one effective CPU; the
 * others are left to the kernel and said, with why. */
static void test_irq_threads_left_to_the_kernel_on_6_2(void **state)
{
	json_object *notes = json_object_new_array(), *n, *v;
	char report[1024];
	cpu_set_t one = cpus("1"), both = cpus("0-1"), zero = cpus("0");

	replay_irq_threads(*state, true, notes, report, sizeof(report));
	assert_int_equal(ft.sets, 1);
	assert_true(CPU_EQUAL(&ft.t[0].mask, &one));
	assert_null(thread_note(notes, 101));
	assert_true(CPU_EQUAL(&ft.t[1].mask, &both));
	assert_true(CPU_EQUAL(&ft.t[2].mask, &zero));
	for (int pid = 102; pid <= 103; pid++) {
		n = thread_note(notes, pid);
		assert_non_null(n);
		assert_true(json_object_object_get_ex(n, "why", &v));
		assert_non_null(strstr(json_object_get_string(v), "left to the kernel"));
	}
	assert_true(json_object_object_get_ex(thread_note(notes, 103), "mask", &v));
	assert_string_equal(json_object_get_string(v), "0");
	assert_non_null(strstr(report, "2 IRQ threads not back"));
	json_object_put(notes);
}

static void test_irq_thread_may_set(void **state)
{
	cpu_set_t one = cpus("1"), both = cpus("0-1");

	(void)state;
	assert_true(jl_irq_thread_may_set(&both, "1", false)); /* before 6.2: no user mask is kept */
	assert_true(jl_irq_thread_may_set(&one, "", false));
	assert_true(jl_irq_thread_may_set(&one, "1", true));   /* the IRQ's own single CPU */
	assert_false(jl_irq_thread_may_set(&one, "0", true));  /* another CPU than its IRQ's */
	assert_false(jl_irq_thread_may_set(&one, "", true));   /* unknown */
	assert_false(jl_irq_thread_may_set(&both, "0-1", true)); /* a wide mask would narrow later ones */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_write_and_undo_reverse_order, setup, teardown),
		cmocka_unit_test_setup_teardown(test_crash_then_replay, setup, teardown),
		cmocka_unit_test_setup_teardown(test_live_owner_is_not_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_torn_last_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_failed_undo_keeps_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_cgroup_entry, setup, teardown),
		cmocka_unit_test_setup_teardown(test_child_is_ended_but_reused_pid_is_not, setup, teardown),
		cmocka_unit_test_setup_teardown(test_orphaned_grandchild_is_ended, setup, teardown),
		cmocka_unit_test_setup_teardown(test_ownerless_journal, setup, teardown),
		cmocka_unit_test_setup_teardown(test_machine_check_stale, setup, teardown),
		cmocka_unit_test(test_proc_start_time),
		cmocka_unit_test_setup_teardown(test_lock_is_exclusive, setup, teardown),
		cmocka_unit_test(test_irq_mask_format),
		cmocka_unit_test_setup_teardown(test_irq_steer_fake_proc, setup, teardown),
		cmocka_unit_test_setup_teardown(test_fair_server_apply_and_undo, setup, teardown),
		cmocka_unit_test(test_fair_server_paths_allowed),
		cmocka_unit_test_setup_teardown(test_shield_isolated_at_boot_is_a_no_op, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_undo_effective_cpu_first, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_undo_effective_cpu_not_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_undo_waits_for_the_move_to_complete, setup, teardown),
		cmocka_unit_test_setup_teardown(test_smt_siblings_fake_sysfs, setup, teardown),
		cmocka_unit_test_setup_teardown(test_corrupt_middle_line, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_owner_with_entries_is_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_vanished_target_is_undone, setup, teardown),
		cmocka_unit_test_setup_teardown(test_path_outside_knobs_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_symlink_and_unsafe_dir_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_stale_journals_newest_first, setup, teardown),
		cmocka_unit_test(test_leftover_names),
		cmocka_unit_test_setup_teardown(test_irq_threads_put_back_after_the_partition, setup, teardown),
		cmocka_unit_test_setup_teardown(test_irq_threads_left_to_the_kernel_on_6_2, setup, teardown),
		cmocka_unit_test(test_irq_thread_may_set),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
