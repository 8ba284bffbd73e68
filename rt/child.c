/* child: fork/exec of external neighbours with placement applied before exec, and their ending.
 * Never runs on a measured thread; the child side between fork and exec only makes syscalls. */
#include "child.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
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

#include "units.h"

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

static bool find_program(const char *prog)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/'))
		return access(prog, X_OK) == 0;
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
		if (access(buf, X_OK) == 0)
			return true;
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}

int jl_child_check_cmdline(const char *cmdline, char *err, size_t errlen)
{
	wordexp_t we;
	int rc = 0;

	if (split_argv(cmdline, &we, err, errlen))
		return -1;
	if (!find_program(we.we_wordv[0])) {
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

enum { STAGE_OK, STAGE_AFFINITY, STAGE_POLICY, STAGE_NICE, STAGE_EXEC };

static const char *const stage_names[] = { "ok", "sched_setaffinity", "sched_setscheduler", "setpriority (nice)",
					   "exec" };

static int apply_placement(const struct jl_thread_spec *spec)
{
	struct sched_param sp = { 0 };
	int policy = SCHED_OTHER;

	if (spec->cpus_set && sched_setaffinity(0, sizeof(spec->cpus), &spec->cpus))
		return STAGE_AFFINITY;
	switch (spec->policy) {
	case JL_POLICY_FIFO:
	case JL_POLICY_RR:
		sp.sched_priority = spec->priority;
		policy = spec->policy == JL_POLICY_FIFO ? SCHED_FIFO : SCHED_RR;
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
	if ((policy == SCHED_OTHER || policy == SCHED_BATCH) && setpriority(PRIO_PROCESS, 0, spec->nice))
		return STAGE_NICE;
	return STAGE_OK;
}

static void redirect(const char *log_path)
{
	int in = open("/dev/null", O_RDONLY), out;

	if (in >= 0) {
		dup2(in, 0);
		close(in);
	}
	if (!log_path)
		return;
	out = open(log_path, O_WRONLY | O_CREAT | O_APPEND, 0644);
	if (out >= 0) {
		dup2(out, 1);
		dup2(out, 2);
		close(out);
	}
}

static _Noreturn void child_main(const struct jl_thread_spec *spec, char **argv, int go_rd, int err_wr, pid_t parent,
				 const char *log_path)
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

		if (rep.stage == STAGE_OK)
			rep.error = 0;
		if (write(err_wr, &rep, sizeof(rep)) != (ssize_t)sizeof(rep) || rep.stage != STAGE_OK)
			_exit(126);
	}
	redirect(log_path);
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
	struct jl_child *c;
	int go[2], ep[2];
	wordexp_t we;
	pid_t parent = getpid();

	if (split_argv(spec->exec, &we, err, errlen))
		return NULL;
	c = calloc(1, sizeof(*c));
	if (!c || pipe2(go, O_CLOEXEC)) {
		snprintf(err, errlen, "thread '%s': cannot prepare the child: %s", name, strerror(errno));
		free(c);
		wordfree(&we);
		return NULL;
	}
	if (pipe2(ep, O_CLOEXEC)) {
		snprintf(err, errlen, "thread '%s': cannot prepare the child: %s", name, strerror(errno));
		close(go[0]), close(go[1]);
		free(c);
		wordfree(&we);
		return NULL;
	}
	c->pid = fork();
	if (c->pid < 0) {
		snprintf(err, errlen, "thread '%s': fork: %s", name, strerror(errno));
		close(go[0]), close(go[1]), close(ep[0]), close(ep[1]);
		free(c);
		wordfree(&we);
		return NULL;
	}
	if (c->pid == 0) {
		close(go[1]);
		close(ep[0]);
		child_main(spec, we.we_wordv, go[0], ep[1], parent, log_path);
	}
	setpgid(c->pid, c->pid); /* also done by the child: whichever runs first wins the race */
	close(go[0]);
	close(ep[1]);
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
					 rep.error == EPERM ? " (needs root or CAP_SYS_NICE)" :
					 rep.stage == STAGE_AFFINITY ? " (is a cpuset confining jitterlab?)" : "");
			else
				snprintf(err, errlen, "thread '%s': the child died before it was placed", name);
			jl_child_stop(c, 0);
			jl_child_free(c);
			return NULL;
		}
	}
	return c;
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
