/* test_leftovers: rt/engine/leftovers.c. The pure parts (the stat and maps parsers, which processes are the
 * run's from one scan and what was recorded before, the /dev/shm diff and the guarded unlink on a fake
 * directory), then the whole cycle on a fake shm directory with real processes: a "neighbour" whose
 * grandchild leaves its session and holds a file open, ended like child.c ends one; report keeps both,
 * remove ends the grandchild and unlinks the file, never an unrelated one. No root needed. */
#include <errno.h>
#include <fcntl.h>
#include <setjmp.h>
#include <signal.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/engine/engine.h"
#include "rt/engine/leftovers.h"

static void test_parse_stat(void **state)
{
	struct jl_proc_rec r = { 0 };

	(void)state;
	assert_int_equal(jl_leftovers_parse_stat("4242 (a (b) c) S 17 4242 4242 0 -1 4194560 99 0 0 0 1 2 0 0 20 0 1 0 "
					       "123456 1000 100 18446744073709551615\n", &r), 0);
	assert_int_equal(r.pid, 4242);
	assert_string_equal(r.comm, "a (b) c");
	assert_int_equal(r.state, 'S');
	assert_int_equal(r.ppid, 17);
	assert_int_equal(r.pgid, 4242);
	assert_int_equal(r.sid, 4242);
	assert_true(r.start == 123456ULL);
	assert_int_equal(jl_leftovers_parse_stat("12 (x) S 1 2", &r), -1);
	assert_int_equal(jl_leftovers_parse_stat("garbage", &r), -1);
}

static struct jl_proc_rec proc(pid_t pid, pid_t ppid, unsigned long long start)
{
	return (struct jl_proc_rec){ .pid = pid, .ppid = ppid, .pgid = pid, .sid = pid, .start = start, .state = 'S' };
}

static void test_mark_tree(void **state)
{
	const pid_t self = 100, roots[] = { 200, 300 };
	struct jl_proc_rec p[] = {
		proc(1, 0, 1),     /* init */
		proc(100, 1, 10),  /* jitterlab */
		proc(200, 100, 20), /* a root */
		proc(201, 200, 21), /* its child */
		proc(202, 201, 22), /* a grandchild */
		proc(210, 100, 30), /* an orphan reparented to the subreaper */
		proc(211, 210, 31), /* its child */
		proc(300, 1, 40),  /* a pid of a root, but not our child: reused by someone else */
		proc(400, 1, 50),  /* unrelated */
		proc(401, 400, 51),
		proc(500, 202, 5), /* "child" of 202 that started before it: 202's pid was reused */
	};
	int n = (int)(sizeof(p) / sizeof(p[0]));

	(void)state;
	assert_int_equal(jl_leftovers_mark_tree(p, n, self, true, roots, 2, NULL, 0), 5);
	assert_false(p[0].ours);
	assert_false(p[1].ours); /* never jitterlab itself */
	assert_true(p[2].ours);
	assert_int_equal(p[2].root, 0);
	assert_true(p[3].ours);
	assert_int_equal(p[3].root, 0);
	assert_true(p[4].ours);
	assert_int_equal(p[4].root, 0);
	assert_true(p[5].ours);
	assert_true(p[5].reparented);
	assert_int_equal(p[5].root, -1);
	assert_true(p[6].ours);
	assert_false(p[6].reparented);
	assert_false(p[7].ours);
	assert_false(p[8].ours);
	assert_false(p[9].ours);
	assert_false(p[10].ours);

	/* without the subreaper flag a child jitterlab did not fork is not taken for ours */
	assert_int_equal(jl_leftovers_mark_tree(p, n, self, false, roots, 2, NULL, 0), 3);
	assert_false(p[5].ours);
	assert_false(p[6].ours);
}

static void test_mark_tree_known(void **state)
{
	const pid_t self = 100, roots[] = { 200 };
	struct jl_proc_rec known[] = { proc(202, 201, 22), proc(203, 201, 23) };
	/* the root and 201 are gone; 202 now hangs on init (no subreaper); 203's pid was reused */
	struct jl_proc_rec p[] = { proc(1, 0, 1), proc(202, 1, 22), proc(203, 1, 99), proc(204, 202, 25) };

	(void)state;
	known[0].ours = known[1].ours = true;
	known[0].root = known[1].root = 0;
	assert_int_equal(jl_leftovers_mark_tree(p, 4, self, false, roots, 1, known, 2), 2);
	assert_true(p[1].ours);
	assert_int_equal(p[1].root, 0);
	assert_false(p[2].ours); /* same pid, another start time: not the one recorded */
	assert_true(p[3].ours);
	assert_int_equal(p[3].root, 0);
}

static void test_maps_line(void **state)
{
	char name[256];
	dev_t dev;
	ino_t ino;

	(void)state;
	assert_true(jl_leftovers_parse_maps_line("7fc25a436000-7fc25a437000 rw-s 00000000 00:1b 107                "
					       "        /dev/shm/fastrtps_abc\n", "/dev/shm", name, sizeof(name), &dev, &ino));
	assert_string_equal(name, "fastrtps_abc");
	assert_true(dev == makedev(0, 0x1b));
	assert_true(ino == 107);
	assert_false(jl_leftovers_parse_maps_line("7f-7f rw-s 00000000 00:1b 108 /dev/shm/x (deleted)\n", "/dev/shm", name,
						sizeof(name), &dev, &ino));
	assert_false(jl_leftovers_parse_maps_line("7f-7f rw-s 00000000 00:1b 109 /dev/shm/dir/x\n", "/dev/shm", name,
						sizeof(name), &dev, &ino));
	assert_false(jl_leftovers_parse_maps_line("7f-7f rw-s 00000000 00:1b 110 /dev/shmx/y\n", "/dev/shm", name,
						sizeof(name), &dev, &ino));
	assert_false(jl_leftovers_parse_maps_line("7f-7f r-xp 00000000 fd:01 111 /usr/lib/libc.so.6\n", "/dev/shm", name,
						sizeof(name), &dev, &ino));
	assert_false(jl_leftovers_parse_maps_line("7f-7f rw-p 00000000 00:00 0 [heap]\n", "/dev/shm", name, sizeof(name),
						&dev, &ino));
}

static void touch(const char *dir, const char *name)
{
	char path[512];
	int fd;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0600);
	assert_true(fd >= 0);
	close(fd);
}

static const struct jl_shm_entry *find(const struct jl_vec *v, const char *name)
{
	for (int i = 0; i < v->n; i++) {
		const struct jl_shm_entry *e = jl_vec_at(v, i);

		if (!strcmp(e->name, name))
			return e;
	}
	return NULL;
}

static int rm_rf(const char *dir)
{
	char cmd[600];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd);
}

static void test_shm_diff(void **state)
{
	char dir[] = "/tmp/jl-leftovers-XXXXXX", path[512];
	struct jl_vec before, now, ours, other, ev;
	const struct jl_shm_entry *e;
	struct jl_shm_evidence *x;

	(void)state;
	assert_non_null(mkdtemp(dir));
	jl_vec_init(&before, sizeof(struct jl_shm_entry));
	jl_vec_init(&now, sizeof(struct jl_shm_entry));
	jl_vec_init(&ours, sizeof(struct jl_shm_entry));
	jl_vec_init(&other, sizeof(struct jl_shm_entry));
	jl_vec_init(&ev, sizeof(struct jl_shm_evidence));
	touch(dir, "old");
	touch(dir, "replaced");
	assert_int_equal(jl_leftovers_list_dir(dir, &before), 0);
	assert_int_equal(before.n, 2);
	/* during the run: two new files, one replaced under its old name (a new inode), a symlink */
	touch(dir, "ours");
	touch(dir, "theirs");
	snprintf(path, sizeof(path), "%s/replaced", dir);
	assert_int_equal(unlink(path), 0);
	touch(dir, "ours-too");
	snprintf(path, sizeof(path), "%s/ours-too", dir);
	{
		char to[512];

		snprintf(to, sizeof(to), "%s/replaced", dir);
		assert_int_equal(rename(path, to), 0);
	}
	snprintf(path, sizeof(path), "%s/link", dir);
	assert_int_equal(symlink("/etc/passwd", path), 0);
	assert_int_equal(jl_leftovers_list_dir(dir, &now), 0);
	assert_int_equal(now.n, 5);
	/* evidence: a process of the run had "ours" open, and "replaced" under its earlier name */
	x = jl_vec_push(&ev);
	e = find(&now, "ours");
	x->dev = e->dev;
	x->ino = e->ino;
	x->btime_ns = -1; /* a filesystem without birth times: device and inode decide */
	x = jl_vec_push(&ev);
	e = find(&now, "replaced");
	x->dev = e->dev;
	x->ino = e->ino;
	x->btime_ns = e->btime_ns;
	snprintf(x->name, sizeof(x->name), "ours-too");
	/* an open file of the run whose inode number "theirs" got later: another birth time, not a proof */
	e = find(&now, "theirs");
	if (e->btime_ns >= 0) { /* (a filesystem without birth times cannot tell them apart) */
		x = jl_vec_push(&ev);
		x->dev = e->dev;
		x->ino = e->ino;
		x->btime_ns = e->btime_ns - 1;
	}
	jl_leftovers_shm_diff(&before, &now, &ev, &ours, &other);
	assert_int_equal(ours.n, 2);
	assert_non_null(find(&ours, "ours"));
	assert_non_null(find(&ours, "replaced"));
	assert_int_equal(other.n, 2);
	assert_non_null(find(&other, "theirs"));
	assert_non_null(find(&other, "link"));
	assert_true(S_ISLNK(find(&other, "link")->mode));
	assert_null(find(&ours, "old"));
	assert_null(find(&other, "old"));
	jl_vec_free(&before);
	jl_vec_free(&now);
	jl_vec_free(&ours);
	jl_vec_free(&other);
	jl_vec_free(&ev);
	assert_int_equal(rm_rf(dir), 0);
}

static void test_unlink_guarded(void **state)
{
	char dir[] = "/tmp/jl-leftovers-XXXXXX", path[512], target[] = "/tmp/jl-leftovers-target-XXXXXX";
	struct stat st, tst;
	int tfd = mkstemp(target);

	(void)state;
	assert_true(tfd >= 0);
	close(tfd);
	assert_non_null(mkdtemp(dir));
	touch(dir, "f");
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(stat(path, &st), 0);
	/* another inode under that name: kept */
	assert_int_equal(jl_leftovers_unlink(dir, "f", st.st_dev, st.st_ino + 1), -1);
	assert_int_equal(errno, ESTALE);
	assert_int_equal(access(path, F_OK), 0);
	/* a symlink carrying the target's inode: never followed, never removed */
	assert_int_equal(stat(target, &tst), 0);
	snprintf(path, sizeof(path), "%s/l", dir);
	assert_int_equal(symlink(target, path), 0);
	assert_int_equal(jl_leftovers_unlink(dir, "l", tst.st_dev, tst.st_ino), -1);
	assert_int_equal(errno, ESTALE);
	assert_int_equal(access(target, F_OK), 0);
	/* no path in a name */
	assert_int_equal(jl_leftovers_unlink(dir, "../x", st.st_dev, st.st_ino), -1);
	assert_int_equal(errno, EINVAL);
	/* the right one */
	assert_int_equal(jl_leftovers_unlink(dir, "f", st.st_dev, st.st_ino), 0);
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(access(path, F_OK), -1);
	unlink(target);
	assert_int_equal(rm_rf(dir), 0);
}

/* A neighbour like `sh -c 'setsid holder & exec sleep'`: the child forks a grandchild that starts a
 * session of its own and holds DIR/held open, then waits on its go pipe and exits (as a killed neighbour
 * would once *GO is closed). Returns the child's pid; *GRAND gets the grandchild's. */
static pid_t spawn_neighbour(const char *dir, pid_t *grand, int *go_wr)
{
	int p[2], go[2];
	pid_t c;

	assert_int_equal(pipe(p), 0);
	assert_int_equal(pipe(go), 0);
	c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		pid_t g = fork();

		if (g == 0) {
			char path[512];

			close(go[0]); /* the go pipe is the child's: its end must come when the test closes it */
			close(go[1]);
			close(p[0]);
			setsid();
			snprintf(path, sizeof(path), "%s/held", dir);
			if (open(path, O_CREAT | O_RDWR, 0600) < 0)
				_exit(1);
			if (write(p[1], &(pid_t){ getpid() }, sizeof(pid_t)) < 0)
				_exit(1);
			for (;;)
				pause();
		}
		{
			char b;

			close(go[1]);
			if (read(go[0], &b, 1) < 0)
				_exit(1);
		}
		_exit(0);
	}
	close(go[0]);
	assert_int_equal(read(p[0], grand, sizeof(*grand)), (ssize_t)sizeof(*grand));
	close(p[0]);
	close(p[1]);
	*go_wr = go[1]; /* closing it lets the child exit */
	return c;
}

static void run_cycle(enum jl_cleanup cleanup)
{
	char dir[] = "/tmp/jl-leftovers-XXXXXX", path[512];
	struct jl_leftovers r;
	struct jl_scenario sc = { 0 };
	struct jl_thread_spec spec = { 0 };
	struct jl_thread th = { 0 };
	struct jl_engine eng = { 0 };
	pid_t child, grand = 0;
	json_object *j, *procs, *shm, *other;
	int go = -1;
	char warn[512];

	assert_non_null(mkdtemp(dir));
	touch(dir, "before");
	assert_int_equal(jl_leftovers_begin(&r, cleanup, dir), 0);
	child = spawn_neighbour(dir, &grand, &go);
	snprintf(th.name, sizeof(th.name), "esc");
	th.is_exec = true;
	th.tid = child;
	th.spec = &spec;
	eng.sc = &sc;
	eng.threads = &th;
	eng.nthreads = 1;
	jl_leftovers_scan(&r, &eng);
	touch(dir, "unrelated"); /* created by this test, not by the run */
	/* end the neighbour as child.c does: it exits, jitterlab reaps it */
	close(go);
	assert_int_equal(waitpid(child, NULL, 0), child);
	jl_leftovers_collect(&r, &eng);
	j = jl_leftovers_json(&r);
	procs = json_object_object_get(j, "processes");
	shm = json_object_object_get(j, "shm");
	other = json_object_object_get(j, "shm_not_ours");
	assert_int_equal(json_object_array_length(procs), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(json_object_array_get_idx(procs, 0), "pid")), grand);
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_array_get_idx(procs, 0),
									  "neighbour")), "esc");
	assert_int_equal(json_object_array_length(shm), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_array_get_idx(shm, 0), "name")),
			    "held");
	assert_int_equal(json_object_array_length(other), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(json_object_array_get_idx(other, 0), "name")),
			    "unrelated");
	jl_leftovers_warning(&r, warn, sizeof(warn));
	snprintf(path, sizeof(path), "%s/held", dir);
	if (cleanup == JL_CLEANUP_REPORT) {
		assert_non_null(strstr(warn, "1 process of its tree alive and 1 /dev/shm entry"));
		assert_int_equal(kill(grand, 0), 0);
		assert_int_equal(access(path, F_OK), 0);
		kill(grand, SIGKILL);
		waitpid(grand, NULL, 0); /* reparented to us (the subreaper) */
	} else {
		assert_non_null(strstr(warn, "ended 1 process of the run, removed 1 /dev/shm entry"));
		assert_null(strstr(warn, "warning"));
		assert_true(json_object_get_boolean(json_object_object_get(json_object_array_get_idx(procs, 0), "ended")));
		assert_true(json_object_get_boolean(json_object_object_get(json_object_array_get_idx(shm, 0), "removed")));
		assert_int_equal(kill(grand, 0), -1); /* gone and reaped */
		assert_int_equal(access(path, F_OK), -1);
	}
	snprintf(path, sizeof(path), "%s/unrelated", dir);
	assert_int_equal(access(path, F_OK), 0);
	snprintf(path, sizeof(path), "%s/before", dir);
	assert_int_equal(access(path, F_OK), 0);
	{
		int flag = -1;

		assert_int_equal(prctl(PR_GET_CHILD_SUBREAPER, &flag), 0);
		assert_int_equal(flag, 0); /* put back */
	}
	json_object_put(j);
	jl_leftovers_free(&r);
	assert_int_equal(rm_rf(dir), 0);
}

static void test_cycle_report(void **state)
{
	(void)state;
	run_cycle(JL_CLEANUP_REPORT);
}

static void test_cycle_remove(void **state)
{
	(void)state;
	run_cycle(JL_CLEANUP_REMOVE);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_stat),
		cmocka_unit_test(test_mark_tree),
		cmocka_unit_test(test_mark_tree_known),
		cmocka_unit_test(test_maps_line),
		cmocka_unit_test(test_shm_diff),
		cmocka_unit_test(test_unlink_guarded),
		cmocka_unit_test(test_cycle_report),
		cmocka_unit_test(test_cycle_remove),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
