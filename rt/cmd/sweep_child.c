/* sweep_child: run `jitterlab run` as a fresh child of this binary, forward SIGINT/SIGTERM to it, its
 * log created by the output writer (jl_output_create_path: O_EXCL, never through a symlink, the sudo
 * user's) before the fork, and the summary reader sweeps and comparisons share. Never uses a shell;
 * never leaves a child running. */
#include "sweep_child.h"
#include "../base/units.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/output.h"
#include "../base/stop.h"
#include "../summary/summary_read.h"

int jl_child_signals_block(sigset_t *old)
{
	sigset_t set;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	return sigprocmask(SIG_BLOCK, &set, old);
}

bool jl_child_signals_drain(void)
{
	struct timespec zero = { 0, 0 };
	sigset_t set;
	bool intr = false;
	int sig;

	sigemptyset(&set);
	sigaddset(&set, SIGINT);
	sigaddset(&set, SIGTERM);
	sigaddset(&set, SIGCHLD);
	while ((sig = sigtimedwait(&set, NULL, &zero)) > 0)
		if (sig != SIGCHLD)
			intr = true;
	if (intr)
		jl_stop_request(JL_STOP_SIGNAL);
	return intr;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void child_exec(const struct jl_child_run *cr, const sigset_t *child_mask, int log_fd)
{
	char *argv[10 + 2 * JL_CHILD_MAX_SETS + 4];
	char namebuf[256];
	int a = 0;

	setpgid(0, 0); /* a terminal ^C reaches the parent only; the parent forwards it once */
	prctl(PR_SET_PDEATHSIG, SIGINT);
	if (log_fd >= 0) {
		dup2(log_fd, 1);
		dup2(log_fd, 2);
	}
	signal(SIGINT, SIG_DFL);
	signal(SIGTERM, SIG_DFL);
	sigprocmask(SIG_SETMASK, child_mask, NULL);
	argv[a++] = (char *)"jitterlab";
	argv[a++] = (char *)"run";
	argv[a++] = (char *)cr->scenario;
	argv[a++] = (char *)"--out";
	argv[a++] = (char *)cr->out_dir;
	/* a sweep's and a comparison's readers take every cycle from samples.csv: keep them all there */
	argv[a++] = (char *)"--set";
	argv[a++] = (char *)"run.samples=all";
	for (int i = 0; i < cr->nsets && i < JL_CHILD_MAX_SETS; i++) {
		argv[a++] = (char *)"--set";
		argv[a++] = (char *)cr->sets[i];
	}
	if (cr->name) {
		snprintf(namebuf, sizeof(namebuf), "run.name=%s", cr->name);
		argv[a++] = (char *)"--set";
		argv[a++] = namebuf;
	}
	argv[a++] = (char *)"--quiet";
	argv[a] = NULL;
	execv("/proc/self/exe", argv);
	fprintf(stderr, "jitterlab: cannot run /proc/self/exe: %s\n", strerror(errno));
	_exit(127);
}

/* Wait for the run PID into *STATUS: a SIGINT or SIGTERM is passed on as SIGINT (*INTERRUPTED), a run past
 * its timeout is stopped the same way, and one that does not end 30 s (10 s) after is killed. 0, or -1
 * with ERR. */
static int wait_run(const struct jl_child_run *cr, pid_t pid, int *status, bool *interrupted, char *err,
		    size_t errlen)
{
	int64_t start = mono_ns(), kill_at = 0;
	bool sent_int = false;
	sigset_t waitset;

	sigemptyset(&waitset);
	sigaddset(&waitset, SIGINT);
	sigaddset(&waitset, SIGTERM);
	sigaddset(&waitset, SIGCHLD);
	for (;;) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		pid_t w = waitpid(pid, status, WNOHANG);
		int sig;

		if (w == pid)
			return 0;
		if (w < 0 && errno != EINTR) {
			snprintf(err, errlen, "waiting for the run: %s", strerror(errno));
			return -1;
		}
		sig = sigtimedwait(&waitset, NULL, &ts);
		if (sig == SIGINT || sig == SIGTERM) {
			*interrupted = true;
			jl_stop_request(JL_STOP_SIGNAL);
			kill(pid, SIGINT);
			sent_int = true;
			if (!kill_at)
				kill_at = mono_ns() + 30 * 1000000000LL;
		}
		if (cr->timeout_ns > 0 && !sent_int && mono_ns() - start > cr->timeout_ns) {
			fprintf(stderr, "jitterlab: run did not end in %.0f s: stopping it\n", (double)cr->timeout_ns / 1e9);
			kill(pid, SIGINT);
			sent_int = true;
			kill_at = mono_ns() + 10 * 1000000000LL;
		}
		if (kill_at && mono_ns() > kill_at) {
			kill(pid, SIGKILL);
			kill_at = mono_ns() + 3600 * 1000000000LL;
		}
	}
}

int jl_child_run_exec(const struct jl_child_run *cr, const sigset_t *child_mask, bool *interrupted,
		      char *run_dir, size_t dirlen, char *err, size_t errlen)
{
	pid_t pid;
	int status = 0, log_fd = -1;

	if (run_dir && dirlen)
		run_dir[0] = '\0';
	if (cr->nsets > JL_CHILD_MAX_SETS) {
		snprintf(err, errlen, "too many --set overrides (at most %d)", JL_CHILD_MAX_SETS);
		return -1;
	}
	if (cr->log_path && (log_fd = jl_output_create_path(cr->log_path)) < 0) {
		snprintf(err, errlen, "cannot create %s: %s", cr->log_path, strerror(errno));
		return -1;
	}
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		snprintf(err, errlen, "cannot start a run: fork: %s", strerror(errno));
		if (log_fd >= 0)
			close(log_fd);
		return -1;
	}
	if (pid == 0)
		child_exec(cr, child_mask, log_fd);
	if (log_fd >= 0)
		close(log_fd);

	if (wait_run(cr, pid, &status, interrupted, err, errlen) < 0)
		return -1;
	if (run_dir && dirlen && cr->name) {
		char link[PATH_MAX], *real;

		snprintf(link, sizeof(link), "%s/%s/latest", cr->out_dir, cr->name);
		real = realpath(link, NULL);
		if (real) {
			snprintf(run_dir, dirlen, "%s", real);
			free(real);
		}
	}
	if (WIFEXITED(status))
		return WEXITSTATUS(status);
	if (WIFSIGNALED(status))
		return 128 + WTERMSIG(status);
	return 1;
}

json_object *jl_child_read_summary(const char *run_dir, char *err, size_t errlen)
{
	return jl_summary_read(run_dir, err, errlen);
}

/* ---- the options of sweep and cyclictest ---- */

enum { R_RUNS = 1, R_OUT, R_SET, R_DURATION, R_WARMUP, R_NO_TRACE, R_QUIET, R_JSON, R_BASELINE };

/* The options every repeating command has (sweep adds --baseline). */
#define REPEAT_OPTS \
	{ "runs", 'n', "N", "runs of each condition (sweep: default [sweep] runs, 5) or side (cyclictest: default 1), " \
			    "interleaved (sweep: in rounds, each in a shuffled order)", R_RUNS }, \
	{ "out", 'o', "DIR", "output root (default traces)", R_OUT }, \
	{ "set", 's', "S.K=V", "override any scenario key in every run (repeatable, at most 64)", R_SET }, \
	{ "duration", 'd', "D", "measured time of each run, overriding [run] duration", R_DURATION }, \
	{ "warmup", 'w', "D", "time before measuring in each run, overriding [run] warmup", R_WARMUP }, \
	{ "no-trace", 0, NULL, "record no ftrace events (as --set run.trace=off)", R_NO_TRACE }, \
	{ "quiet", 'q', NULL, "print only where the results are, and errors", R_QUIET }, \
	{ "json", 'j', NULL, "print the document written (sweep.json, cyclictest.json) on stdout instead of the table", \
	  R_JSON },

const struct jl_cli_opt jl_repeat_cli_opts[] = {
	REPEAT_OPTS
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli_opt jl_sweep_cli_opts[] = {
	REPEAT_OPTS
	{ "baseline", 'b', "BASELINE", "after the runs, compare them against BASELINE (a baseline's directory, or its name "
				       "under ./baselines) and check the scenario's [gate]s: compare.json and compare.md in "
				       "the sweep's directory, exit 3 when a gate fails", R_BASELINE },
	{ NULL, 0, NULL, NULL, 0 },
};

int jl_repeat_opts_parse(const struct jl_cli *cli, int argc, char **argv, int max_runs, struct jl_repeat_opts *o)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;
	int c, nbuf = 0;

	memset(o, 0, sizeof(*o));
	o->out = "traces";
	while ((c = jl_cli_next(cli, argc, argv, &w, &v)) != JL_CLI_END) {
		if ((c == R_SET || c == R_DURATION || c == R_WARMUP || c == R_NO_TRACE) && o->nsets >= JL_REPEAT_MAX_SETS) {
			fprintf(stderr, "jitterlab %s: too many --set overrides (at most %d)\n", cli->command,
				JL_REPEAT_MAX_SETS);
			return -1;
		}
		switch (c) {
		case R_BASELINE:
			o->baseline = v;
			break;
		case R_RUNS: {
			long long n;
			char why[128];

			if (jl_parse_int(v, 1, max_runs, &n, why, sizeof(why))) {
				fprintf(stderr, "jitterlab %s: --runs %s: %s\n", cli->command, v, why);
				return -1;
			}
			o->runs = (int)n;
			break;
		}
		case R_OUT:
			o->out = v;
			break;
		case R_SET:
			o->sets[o->nsets++] = v;
			break;
		case R_DURATION:
		case R_WARMUP:
			if (nbuf == 3) {
				fprintf(stderr, "jitterlab %s: --duration and --warmup at most three times\n", cli->command);
				return -1;
			}
			snprintf(o->setbuf[nbuf], sizeof(o->setbuf[nbuf]), "run.%s=%s", c == R_DURATION ? "duration" : "warmup", v);
			o->sets[o->nsets++] = o->setbuf[nbuf++];
			break;
		case R_NO_TRACE:
			o->sets[o->nsets++] = "run.trace=off";
			break;
		case R_QUIET:
			o->quiet = true;
			break;
		case R_JSON:
			o->json = true;
			break;
		case JL_CLI_OPERAND:
			if (o->scenario) {
				fprintf(stderr, "jitterlab %s: more than one SCENARIO ('%s')\n", cli->command, v);
				jl_cli_help(stderr, cli);
				return -1;
			}
			o->scenario = v;
			break;
		case JL_CLI_HELP:
			jl_cli_help(stdout, cli);
			return 1;
		default:
			jl_cli_help(stderr, cli);
			return -1;
		}
	}
	if (!o->scenario) {
		fprintf(stderr, "jitterlab %s: missing SCENARIO\n", cli->command);
		jl_cli_help(stderr, cli);
		return -1;
	}
	return 0;
}
