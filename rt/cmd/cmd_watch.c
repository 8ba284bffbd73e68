/* cmd_watch: `jitterlab watch --pid N | --tid N | --comm GLOB | --rt [options]`: measure threads that are
 * already running, from the trace alone, until the duration ends or SIGINT/SIGTERM (the normal end: exit 0,
 * every file written). It is a run of a scenario with one attach section (the scenario.ini it writes runs it
 * again): nothing started, nothing placed, no machine knob changed, only the run's own tracing instance,
 * removed on every exit path (restore after a SIGKILL). The selectors go in through jl_scenario_set, as
 * --set would put them, never pasted into the scenario's text. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../affinity/journal.h"
#include "../engine/attach.h"
#include "../../affinity/cli.h"
#include "commands.h"
#include "lifecycle.h"
#include "oneline.h"
#include "run_stages.h"
#include "../scenario/scenario.h"

#define WATCH_NAME "watch"
#define WATCH_FOREVER "1000h" /* until SIGINT or SIGTERM (41 days: 12,000 of the 5 min intervals) */
#define MAX_SELECTORS 16

enum { O_PID = 1, O_TID, O_COMM, O_RT, O_CPUS, O_DURATION, O_TRACE, O_OUT, O_JSON, O_QUIET, O_SET };

static const struct jl_cli_opt watch_opts[] = {
	{ "pid", 'p', "PID", "the process PID, its threads and the tasks they create (repeatable)", O_PID },
	{ "tid", 't', "TID", "the thread TID (repeatable)", O_TID },
	{ "comm", 'c', "GLOB", "threads whose name matches GLOB, also those that appear or are renamed later "
	  "(repeatable)", O_COMM },
	{ "rt", 'r', NULL, "every user-space SCHED_FIFO, RR or DEADLINE thread, also those that start later (OSADL's "
	  "monitoring, with the causes)", O_RT },
	{ "cpus", 'a', "LIST", "the CPUs whose IRQ and timer events are recorded for the explanations (default: all)",
	  O_CPUS },
	{ "duration", 'D', "D", "how long to watch: 20s, 30m, 1h, 2d, or a number of seconds (default: until SIGINT "
	  "or SIGTERM, the normal end)", O_DURATION },
	{ "trace", 0, "GROUPS", "the event groups ([run] trace; default sched,timer: each cycle from its timer)",
	  O_TRACE },
	{ "out", 'o', "DIR", "output root (default traces): DIR/watch/<YYYYmmdd-HHMMSS>/", O_OUT },
	{ "set", 's', "S.K=V", "override a key of the scenario watch writes (repeatable, at most 16)", O_SET },
	{ "quiet", 'q', NULL, "print only the run directory and errors", O_QUIET },
	{ "json", 'j', NULL, "print summary.json on stdout instead of the table", O_JSON },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_watch = { "watch", "",
				     "measure threads already running, from the trace alone, and explain their worst "
				     "cycles (nothing started, nothing changed); until -D or SIGINT", watch_opts };

struct watch_cmd {
	struct jl_run_opts o;
	struct jl_scenario *sc;
	char attach[256];
	const char *cpus, *trace, *duration, *sets[MAX_SELECTORS];
	int nsets, status;
};

static void usage(FILE *out)
{
	jl_cli_help(out, &jl_cli_watch);
}

/* One selector into W->attach ("pid:N,comm:GLOB,..."): 0, or the exit status after saying why. */
static int add_selector(struct watch_cmd *w, const char *kind, const char *v)
{
	size_t n = strlen(w->attach);

	if (v && (!*v || strchr(v, ',') || strchr(v, ' '))) {
		fprintf(stderr, "jitterlab watch: --%s %s: expected one %s (no ',' or spaces)\n", kind, v,
			!strcmp(kind, "comm") ? "glob" : "number");
		return JL_EXIT_USAGE;
	}
	if ((size_t)snprintf(w->attach + n, sizeof(w->attach) - n, "%s%s%s%s", n ? "," : "", kind, v ? ":" : "",
			     v ? v : "") >= sizeof(w->attach) - n) {
		fprintf(stderr, "jitterlab watch: too many selectors\n");
		return JL_EXIT_USAGE;
	}
	return JL_LIFE_GO;
}

static int watch_parse(struct watch_cmd *w, int argc, char **argv)
{
	struct jl_cli_walk walk = JL_CLI_START;
	const char *v;
	int c, rc = JL_LIFE_GO;

	w->o.out_root = "traces";
	while (rc == JL_LIFE_GO && (c = jl_cli_next(&jl_cli_watch, argc, argv, &walk, &v)) != JL_CLI_END) {
		switch (c) {
		case O_PID: rc = add_selector(w, "pid", v); break;
		case O_TID: rc = add_selector(w, "tid", v); break;
		case O_COMM: rc = add_selector(w, "comm", v); break;
		case O_RT: rc = add_selector(w, "rt", NULL); break;
		case O_CPUS: w->cpus = v; break;
		case O_DURATION: w->duration = v; break;
		case O_TRACE: w->trace = v; break;
		case O_OUT: w->o.out_root = v; break;
		case O_QUIET: w->o.quiet = true; break;
		case O_JSON: w->o.json = true; break;
		case O_SET:
			if (w->nsets == MAX_SELECTORS) {
				fprintf(stderr, "jitterlab watch: too many --set (at most %d)\n", MAX_SELECTORS);
				return JL_EXIT_USAGE;
			}
			w->sets[w->nsets++] = v;
			break;
		case JL_CLI_HELP:
			usage(stdout);
			return JL_EXIT_OK;
		case JL_CLI_OPERAND:
			fprintf(stderr, "jitterlab watch: %s: watch takes no operand (select with --pid, --tid, --comm or --rt)\n", v);
			return JL_EXIT_USAGE;
		default:
			usage(stderr);
			return JL_EXIT_USAGE;
		}
	}
	if (rc == JL_LIFE_GO && !w->attach[0]) {
		fprintf(stderr, "jitterlab watch: nothing to watch (expected --pid, --tid, --comm or --rt)\n");
		return JL_EXIT_USAGE;
	}
	return rc;
}

/* Does another run hold the machine's lock (its shield, IRQs or RT settings in force)? The lock is only
 * tried: a watch changes no knob and never holds it. */
static bool another_run(void)
{
	int fd = jl_journal_lock(jl_journal_default_dir(), 0);

	if (fd >= 0)
		close(fd);
	return fd < 0 && errno == EWOULDBLOCK;
}

/* A key of the watch's scenario, as --set puts it: 0, or -1 with ERR. */
static int set_key(struct jl_scenario *sc, const char *key, const char *value, char *err, size_t errlen)
{
	char set[512];

	snprintf(set, sizeof(set), "%s=%s", key, value);
	return jl_scenario_set(sc, set, err, errlen);
}

/* The scenario: [run] (no warm-up, the duration or until a signal, the trace, and cpu_dma_latency off: the
 * default would hold the CPUs out of deep idle states, the very exits being watched) and [thread watched]. */
static int watch_scenario(struct watch_cmd *w, char *err, size_t errlen)
{
	static const char text[] = "[run]\nname = " WATCH_NAME "\nwarmup = 0s\nduration = " WATCH_FOREVER
				   "\ntrace = sched,timer\ncpu_dma_latency = off\n\n[thread watched]\nattach = rt\n";
	char d[64];

	if (jl_scenario_parse_string("watch", text, w->sc, err, errlen) ||
	    set_key(w->sc, "watched.attach", w->attach, err, errlen) ||
	    (w->cpus && set_key(w->sc, "watched.cpus", w->cpus, err, errlen)) ||
	    (w->trace && set_key(w->sc, "run.trace", w->trace, err, errlen)))
		return -1;
	if (w->duration) {
		if (!jl_oneline_duration(w->duration, d, sizeof(d))) {
			snprintf(err, errlen, "--duration %s: expected a duration (20s, 30m, 1h, 2d) or a number of seconds",
				 w->duration);
			return -1;
		}
		if (set_key(w->sc, "run.duration", d, err, errlen))
			return -1;
	}
	for (int i = 0; i < w->nsets; i++)
		if (jl_scenario_set(w->sc, w->sets[i], err, errlen))
			return -1;
	if (jl_scenario_validate(w->sc, err, errlen))
		return -1;
	return jl_attach_refused(w->attach, getpid(), err, errlen) ? -1 : 0;
}

static int watch_plan(void *ctx, int argc, char **argv)
{
	struct watch_cmd *w = ctx;
	char err[JL_ERR_MAX + 256];
	int rc = watch_parse(w, argc, argv);

	if (rc != JL_LIFE_GO)
		return rc;
	if (geteuid() != 0) {
		fprintf(stderr, "jitterlab watch: needs root (it reads the kernel's trace); run with sudo\n");
		return JL_EXIT_RUNTIME;
	}
	w->sc = calloc(1, sizeof(*w->sc));
	if (!w->sc) {
		perror("jitterlab watch");
		return JL_EXIT_RUNTIME;
	}
	if (watch_scenario(w, err, sizeof(err))) {
		fprintf(stderr, "jitterlab watch: %s\n", err);
		return JL_EXIT_USAGE;
	}
	if (another_run()) {
		fprintf(stderr, "jitterlab watch: another jitterlab run holds the machine (%s/machine.lock): what it "
			"changes (a shield, IRQs, RT throttling) is not the machine to watch; watch when it has ended\n",
			jl_journal_default_dir());
		return JL_EXIT_USAGE;
	}
	if (!w->o.quiet)
		fprintf(stderr, "jitterlab watch: watching %s%s%s; %s\n", w->attach, w->cpus ? " on CPUs " : "",
			w->cpus ? w->cpus : "", w->duration ? "until the duration ends or SIGINT" : "until SIGINT or SIGTERM");
	return JL_LIFE_GO;
}

static int watch_nruns(const void *ctx)
{
	(void)ctx;
	return 1;
}

static int watch_one(void *ctx, int i, const sigset_t *child_mask)
{
	struct watch_cmd *w = ctx;

	(void)i, (void)child_mask;
	w->status = jl_run_execute(w->sc, &w->o);
	return JL_LIFE_STOP;
}

static void watch_close(void *ctx, bool interrupted)
{
	(void)ctx, (void)interrupted; /* the run wrote and printed its own */
}

/* SIGINT or SIGTERM is how a watch ends: its results are written, and that is success. */
static int watch_verdict(void *ctx, bool interrupted)
{
	int st = ((struct watch_cmd *)ctx)->status;

	(void)interrupted;
	return st == JL_EXIT_INTERRUPTED ? JL_EXIT_OK : st;
}

static void watch_free(void *ctx)
{
	free(((struct watch_cmd *)ctx)->sc);
}

static const struct jl_lifecycle_ops watch_ops = {
	.name = "watch", .ctx_size = sizeof(struct watch_cmd), .children = false, .plan = watch_plan,
	.nruns = watch_nruns, .run = watch_one, .close = watch_close, .verdict = watch_verdict, .free = watch_free,
};

int cmd_watch(int argc, char **argv)
{
	return jl_lifecycle_main(&watch_ops, argc, argv);
}
