/* child: fork/exec of external neighbours with placement applied before exec, and their ending.
 * Its log is created by the parent through the output writer (jl_output_create_path: never through a
 * symlink, the sudo user's); with `user = invoking` the child drops to the sudo user (the groups looked
 * up by the parent) after its placement, so policy, priority and CPUs survive the drop.
 * Never runs on a measured thread; the child side between fork and exec only makes syscalls. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <poll.h>
#include <pwd.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include <wordexp.h>

#include "../base/output.h"
#include "../base/path.h"
#include "../base/units.h"

struct jl_child {
	pid_t pid;
	int go_fd;          /* write end: start time, then closed */
	int err_fd;         /* read end: errno of a failed exec */
	bool reaped;
	bool ended_early;   /* it had ended before the run stopped it */
	int status;
	char error[256];
};

static int split_argv(const char *cmdline, wordexp_t *we, char *err, size_t errlen)
{
	int rc = wordexp(cmdline, we, WRDE_NOCMD | WRDE_UNDEF);

	if (rc == 0 && we->we_wordc > 0)
		return 0;
	if (rc == 0)
		wordfree(we);
	snprintf(err, errlen, "cannot split '%s' into a command line (%s)", cmdline,
		 rc == WRDE_BADCHAR  ? "unquoted | & ; < > ( ) { } or newline: exec runs no shell"
		 : rc == WRDE_CMDSUB ? "command substitution is not allowed"
		 : rc == WRDE_BADVAL ? "undefined variable"
		 : rc == WRDE_SYNTAX ? "unbalanced quotes"
				     : "empty command");
	return -1;
}

int jl_child_check_cmdline(const char *cmdline, char *err, size_t errlen)
{
	wordexp_t we;
	int rc = 0;

	if (split_argv(cmdline, &we, err, errlen))
		return -1;
	if (!jl_find_program(we.we_wordv[0], NULL, 0)) {
		snprintf(err, errlen, "program '%s' not found in PATH (install it, or give its full path)", we.we_wordv[0]);
		rc = -1;
	}
	wordfree(&we);
	return rc;
}

/* What the child reports on its status pipe: first its placement (stage 0 = placed), later, only if
 * execvp fails, the exec error. */
struct child_report {
	int stage;
	int error;
};

enum { STAGE_OK, STAGE_AFFINITY, STAGE_POLICY, STAGE_NICE, STAGE_USER, STAGE_EXEC };

static const char *const stage_names[] = { "ok", "sched_setaffinity", "sched_setscheduler", "setpriority (nice)",
					   "user = invoking (setgroups/setgid/setuid)", "exec" };

/* What the child needs besides its spec, prepared by the parent (the child only makes syscalls). */
struct child_setup {
	int log_fd;         /* stdout and stderr (-1: inherited) */
	bool drop;          /* user = invoking */
	uid_t uid;
	gid_t gid;
	int ngroups;
	gid_t *groups;
};

/* The invoking user's identity for SETUP (user = invoking): SUDO_UID/SUDO_GID and the groups of that
 * user's name (what initgroups would set), or only SUDO_GID when the uid has no passwd entry. */
static int prepare_user(struct child_setup *setup, const char *name, char *err, size_t errlen)
{
	struct passwd pw, *res = NULL;
	char buf[4096];
	int n = 32;

	if (!jl_output_sudo_user(&setup->uid, &setup->gid)) {
		snprintf(err, errlen, "thread '%s': user = invoking needs jitterlab to run as root under sudo (SUDO_UID, SUDO_GID)",
			 name);
		return -1;
	}
	setup->drop = true;
	if (getpwuid_r(setup->uid, &pw, buf, sizeof(buf), &res) || !res) {
		setup->groups = malloc(sizeof(gid_t));
		if (!setup->groups)
			goto oom;
		setup->groups[0] = setup->gid;
		setup->ngroups = 1;
		return 0;
	}
	for (int tries = 0; tries < 4; tries++) {
		gid_t *g = realloc(setup->groups, (size_t)n * sizeof(gid_t));

		if (!g)
			goto oom;
		setup->groups = g;
		if (getgrouplist(pw.pw_name, setup->gid, setup->groups, &n) >= 0) {
			setup->ngroups = n;
			return 0;
		}
	}
oom:
	snprintf(err, errlen, "thread '%s': cannot look up the groups of uid %lu", name, (unsigned long)setup->uid);
	return -1;
}

/* Become the invoking user (groups first, then gid, then uid). 0, or -1 with errno. */
static int drop_user(const struct child_setup *setup)
{
	if (setgroups((size_t)setup->ngroups, setup->groups) || setgid(setup->gid) || setuid(setup->uid))
		return -1;
	if (getuid() != setup->uid || geteuid() != setup->uid || getegid() != setup->gid) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

static int apply_placement(const struct jl_thread_spec *spec)
{
	struct sched_param sp = { 0 };
	int policy = SCHED_OTHER;

	if (spec->place.cpus_set && sched_setaffinity(0, sizeof(spec->place.cpus), &spec->place.cpus))
		return STAGE_AFFINITY;
	switch (spec->place.policy) {
	case JL_POLICY_FIFO:
	case JL_POLICY_RR:
		sp.sched_priority = spec->place.priority;
		policy = spec->place.policy == JL_POLICY_FIFO ? SCHED_FIFO : SCHED_RR;
		break;
	case JL_POLICY_BATCH:
		policy = SCHED_BATCH;
		break;
	case JL_POLICY_IDLE:
		policy = SCHED_IDLE;
		break;
	case JL_POLICY_OTHER:
	case JL_POLICY_DEADLINE: /* refused by the scenario checks */
	case JL_POLICY_N:
		break;
	}
	if (sched_setscheduler(0, policy, &sp))
		return STAGE_POLICY;
	if ((policy == SCHED_OTHER || policy == SCHED_BATCH) && setpriority(PRIO_PROCESS, 0, spec->place.nice))
		return STAGE_NICE;
	return STAGE_OK;
}

static void redirect(int log_fd)
{
	int in = open("/dev/null", O_RDONLY);

	if (in >= 0) {
		dup2(in, 0);
		close(in);
	}
	if (log_fd < 0)
		return;
	dup2(log_fd, 1);
	dup2(log_fd, 2);
	close(log_fd);
}

static _Noreturn void child_main(const struct jl_thread_spec *spec, char **argv, int go_rd, int err_wr, pid_t parent,
				 const struct child_setup *setup)
{
	sigset_t all;
	int64_t start;
	struct timespec ts;

	setpgid(0, 0);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	if (getppid() != parent)
		_exit(1);
	for (int s = 1; s < NSIG; s++)
		signal(s, SIG_DFL);
	sigemptyset(&all);
	sigprocmask(SIG_SETMASK, &all, NULL);
	{
		struct child_report rep = { apply_placement(spec), errno };

		/* the placement is done as root; a policy, priority and mask survive setuid */
		if (rep.stage == STAGE_OK && setup->drop && drop_user(setup))
			rep = (struct child_report){ STAGE_USER, errno };
		if (rep.stage == STAGE_OK && setup->drop) {
			prctl(PR_SET_PDEATHSIG, SIGKILL); /* a credential change clears it */
			if (getppid() != parent)
				_exit(1);
		}
		if (rep.stage == STAGE_OK)
			rep.error = 0;
		if (write(err_wr, &rep, sizeof(rep)) != (ssize_t)sizeof(rep) || rep.stage != STAGE_OK)
			_exit(126);
	}
	redirect(setup->log_fd);
	/* A measured program keeps its own timer slack (unlike a built-in measured thread: engine.c): the
	 * slack is part of how it behaves. Measured here: a two-thread Python script with 4 time.sleep(0)
	 * per 100 Hz tick beside a pure-Python scan kept 33 Hz with the default 50 us slack and 99 Hz with
	 * 1 ns, because a sleep(0) then returns before the scan thread can take the interpreter lock. */
	if (read(go_rd, &start, sizeof(start)) != (ssize_t)sizeof(start))
		_exit(0); /* the run was abandoned before it started */
	close(go_rd);
	ts.tv_sec = start / JL_NSEC_PER_SEC;
	ts.tv_nsec = start % JL_NSEC_PER_SEC;
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	execvp(argv[0], argv);
	{
		struct child_report rep = { STAGE_EXEC, errno };

		if (write(err_wr, &rep, sizeof(rep)) < 0)
			_exit(127);
	}
	_exit(127);
}

struct jl_child *jl_child_spawn(const struct jl_thread_spec *spec, const char *name, const char *log_path,
				char *err, size_t errlen)
{
	struct child_setup setup = { .log_fd = -1 };
	struct jl_child *c = NULL;
	int go[2] = { -1, -1 }, ep[2] = { -1, -1 };
	wordexp_t we;
	pid_t parent = getpid();

	if (split_argv(spec->beh.exec, &we, err, errlen))
		return NULL;
	if (spec->place.user == JL_USER_INVOKING && prepare_user(&setup, name, err, errlen))
		goto fail;
	if (log_path && (setup.log_fd = jl_output_create_path(log_path)) < 0) {
		snprintf(err, errlen, "thread '%s': cannot create %s: %s", name, log_path, strerror(errno));
		goto fail;
	}
	c = calloc(1, sizeof(*c));
	if (!c || pipe2(go, O_CLOEXEC) || pipe2(ep, O_CLOEXEC)) {
		snprintf(err, errlen, "thread '%s': cannot prepare the child: %s", name, strerror(errno));
		goto fail;
	}
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "thread '%s': fork: %s", name, strerror(errno));
		goto fail;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(spec, we.we_wordv, go[0], ep[1], parent, &setup);
	}
	setpgid(c->pid, c->pid); /* also done by the child: whichever runs first wins the race */
	close(go[0]);
	close(ep[1]);
	if (setup.log_fd >= 0)
		close(setup.log_fd);
	free(setup.groups);
	c->go_fd = go[1];
	c->err_fd = ep[0];
	wordfree(&we);
	{
		/* wait until the child is placed: the run's placement hook then sees its final affinity,
		 * and a refused policy or CPU is an error before anything starts */
		struct child_report rep;
		ssize_t n;

		do
			n = read(c->err_fd, &rep, sizeof(rep));
		while (n < 0 && errno == EINTR);
		if (n != (ssize_t)sizeof(rep) || rep.stage != STAGE_OK) {
			if (n == (ssize_t)sizeof(rep))
				snprintf(err, errlen, "thread '%s': %s: %s%s", name,
					 stage_names[rep.stage < STAGE_EXEC ? rep.stage : STAGE_EXEC], strerror(rep.error),
					 rep.error == EPERM && rep.stage != STAGE_USER ? " (needs root or CAP_SYS_NICE)" :
					 rep.stage == STAGE_AFFINITY ? " (is a cpuset confining jitterlab?)" : "");
			else
				snprintf(err, errlen, "thread '%s': the child died before it was placed", name);
			jl_child_stop(c, 0);
			jl_child_free(c);
			return NULL;
		}
	}
	return c;
fail:
	for (int i = 0; i < 2; i++) {
		if (go[i] >= 0)
			close(go[i]);
		if (ep[i] >= 0)
			close(ep[i]);
	}
	if (setup.log_fd >= 0)
		close(setup.log_fd);
	free(setup.groups);
	free(c);
	wordfree(&we);
	return NULL;
}

int jl_child_go(struct jl_child *c, int64_t start_ns)
{
	ssize_t n;

	if (c->go_fd < 0) {
		errno = EBADF;
		return -1;
	}
	n = write(c->go_fd, &start_ns, sizeof(start_ns));
	close(c->go_fd);
	c->go_fd = -1;
	return n == (ssize_t)sizeof(start_ns) ? 0 : -1;
}

pid_t jl_child_pid(const struct jl_child *c)
{
	return c->pid;
}

static bool reap(struct jl_child *c, bool block)
{
	pid_t r;

	if (c->reaped)
		return true;
	do
		r = waitpid(c->pid, &c->status, block ? 0 : WNOHANG);
	while (r < 0 && errno == EINTR);
	if (r == c->pid) {
		c->reaped = true;
		return true;
	}
	if (r < 0 && errno == ECHILD) {
		c->reaped = true;
		c->status = -1;
		return true;
	}
	return false;
}

void jl_child_interrupt(struct jl_child *c)
{
	if (c->go_fd >= 0) { /* never started: it waits in read(); it has nothing to say on SIGINT */
		close(c->go_fd);
		c->go_fd = -1;
		kill(-c->pid, SIGKILL);
		return;
	}
	c->ended_early = reap(c, false);
	if (!c->reaped)
		kill(-c->pid, SIGINT);
}

int jl_child_finish(struct jl_child *c, int64_t deadline_ns)
{
	struct child_report rep;

	while (!reap(c, false)) {
		struct timespec ts = { 0, 10 * 1000000L }, now;

		clock_gettime(CLOCK_MONOTONIC, &now);
		if (now.tv_sec * JL_NSEC_PER_SEC + now.tv_nsec >= deadline_ns) {
			kill(-c->pid, SIGKILL);
			reap(c, true);
			break;
		}
		nanosleep(&ts, NULL);
	}
	kill(-c->pid, SIGKILL); /* grandchildren left in the group, if any */
	if (c->err_fd >= 0) {
		if (read(c->err_fd, &rep, sizeof(rep)) == (ssize_t)sizeof(rep) && rep.stage == STAGE_EXEC)
			snprintf(c->error, sizeof(c->error), "exec failed: %s", strerror(rep.error));
		close(c->err_fd);
		c->err_fd = -1;
	}
	return c->status;
}

int jl_child_stop(struct jl_child *c, int64_t grace_ns)
{
	struct timespec now;

	clock_gettime(CLOCK_MONOTONIC, &now);
	jl_child_interrupt(c);
	return jl_child_finish(c, now.tv_sec * JL_NSEC_PER_SEC + now.tv_nsec + grace_ns);
}

bool jl_child_ended_early(const struct jl_child *c)
{
	return c->ended_early;
}

const char *jl_child_error(const struct jl_child *c)
{
	return c->error;
}

void jl_child_free(struct jl_child *c)
{
	if (!c)
		return;
	if (c->go_fd >= 0)
		close(c->go_fd);
	if (c->err_fd >= 0)
		close(c->err_fd);
	free(c);
}
