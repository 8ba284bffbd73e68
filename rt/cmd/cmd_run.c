/* cmd_run: `jitterlab run [SCENARIO] [options]`: the command line and every check that must happen
 * before anything is started or changed (scenario, overrides, safety, permissions). Without a SCENARIO
 * cyclictest's options describe the loops (oneline.c). Bad input exits 2 with nothing touched; the run
 * itself is rt/cmd/run_stages.c. */
#include <errno.h>
#include <getopt.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "../../affinity/cpulist.h"
#include "../engine/machine.h"
#include "../engine/child.h"
#include "../engine/engine.h"
#include "../engine/results.h"
#include "../base/series.h" /* JL_CYCLICTEST_HIST_US */
#include "../base/units.h"
#include "commands.h"
#include "lifecycle.h"
#include "../../affinity/cli.h"
#include "oneline.h"
#include "run_stages.h"
#include "../scenario/scenario.h"

#define MAX_SETS 128

enum {
	O_DURATION = 1, O_WARMUP, O_OUT, O_NO_TRACE, O_SET, O_UNSAFE, O_QUIET, O_JSON, O_PRIORITY, O_POLICY, O_INTERVAL,
	O_DISTANCE, O_THREADS, O_AFFINITY, O_SMP, O_LOOPS, O_HISTOGRAM, O_MLOCKALL, O_NANOSLEEP, O_LOAD, O_LOAD_CPUS
};

/* The letters are cyclictest's where it has them (-D, -d, -h, -p, -i, -t, -a, -S, -l, -m, -n, -q); -o stays
 * the output root (cyclictest's -o, oscope output, has no counterpart: jitterlab prints no per-cycle lines). */
static const struct jl_cli_opt run_opts[] = {
	{ "duration", 'D', "D", "measured time, overriding [run] duration: 20s, 30m, 1h, 2d, or a bare number of seconds "
	  "(cyclictest's -D); default the scenario's, 10s", O_DURATION },
	{ "warmup", 'w', "D", "time before measuring, overriding [run] warmup (a bare number is seconds; default the "
	  "scenario's, 1s)", O_WARMUP },
	{ "out", 'o', "DIR", "output root (default traces): DIR/<name>/<YYYYmmdd-HHMMSS>/", O_OUT },
	{ "priority", 'p', "PRIO", "without SCENARIO: the loops' priority, SCHED_FIFO unless --policy says (cyclictest "
	  "-p; default 0, SCHED_OTHER)", O_PRIORITY },
	{ "policy", 0, "NAME", "without SCENARIO: other, normal, batch, idle, fifo or rr", O_POLICY },
	{ "interval", 'i', "US", "without SCENARIO: the first loop's period in us (default 1000)", O_INTERVAL },
	{ "distance", 'd', "US", "without SCENARIO: loop N's period is -i + N x US (default 500). -d with a unit "
	  "(-d 20s) is the old --duration: still taken, with a warning, until the next release", O_DISTANCE },
	{ "threads", 't', "[NUM]", "without SCENARIO: NUM loops (default 1); -t alone: one per online CPU", O_THREADS },
	{ "affinity", 'a', "[CPUSET]", "without SCENARIO: loop N on CPU N; with CPUSET, round robin over it", O_AFFINITY },
	{ "smp", 'S', NULL, "without SCENARIO: -a -t, one loop pinned on each CPU, all at -p", O_SMP },
	{ "loops", 'l', "LOOPS", "without SCENARIO: measure LOOPS periods of the longest loop (instead of -D)", O_LOOPS },
	{ "histogram", 'h', "[US]", "histogram.txt's rows up to US, beyond them overflows ([run] histogram, "
	  "cyclictest -h); -h alone is the help", O_HISTOGRAM },
	{ "mlockall", 'm', NULL, "taken for cyclictest's sake: memory is always locked", O_MLOCKALL },
	{ "nanosleep", 'n', NULL, "taken for cyclictest's sake: loops always sleep in clock_nanosleep, absolute",
	  O_NANOSLEEP },
	{ "load", 0, "CMD", "without SCENARIO: a neighbour running CMD (no shell; repeatable, at most 8)", O_LOAD },
	{ "load-cpus", 0, "LIST", "without SCENARIO: the CPUs the --load neighbours run on (default: any)", O_LOAD_CPUS },
	{ "no-trace", 0, NULL, "record no ftrace events (as --set run.trace=off)", O_NO_TRACE },
	{ "set", 's', "S.K=V", "override any scenario key, e.g. control.priority=90 (repeatable, at most 64)", O_SET },
	{ "unsafe", 0, NULL, "allow rt_runtime = unlimited, fair_server = 0 and RT busy threads on every CPU", O_UNSAFE },
	{ "quiet", 'q', NULL, "print only the run directory and errors", O_QUIET },
	{ "json", 'j', NULL, "print summary.json on stdout instead of the table", O_JSON },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_run = { "run", "[SCENARIO]",
				   "run a scenario once and explain its loops' jitter; without one, the loops cyclictest's "
				   "options describe (the scenario.ini it writes runs them again)", run_opts };

static void usage(FILE *out)
{
	jl_cli_help(out, &jl_cli_run);
}

/* Every pinned thread's CPUs must be allowed to this process: a cpuset (another run's shield,
 * a container, taskset) may confine it. Found here, before anything starts. */
static int check_allowed_cpus(const struct jl_scenario *sc, char *err, size_t errlen)
{
	cpu_set_t allowed;
	char a[256], b[256];

	if (sched_getaffinity(0, sizeof(allowed), &allowed))
		return 0;
	if (jl_machine_confined_by_other_run())
		return 0; /* the machine module waits for that run, or refuses and points at restore */
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		cpu_set_t extra;

		if (!t->place.cpus_set)
			continue;
		CPU_XOR(&extra, &t->place.cpus, &allowed);
		CPU_AND(&extra, &extra, &t->place.cpus);
		if (CPU_COUNT(&extra)) {
			snprintf(err, errlen,
				 "thread '%s': CPU %s is not allowed to this process (allowed: %s): a cpuset confines "
				 "jitterlab (another run's shield? taskset? a container?); see `jitterlab doctor`",
				 t->name, jl_cpulist_format(&extra, a, sizeof(a)), jl_cpulist_format(&allowed, b, sizeof(b)));
			return -1;
		}
	}
	return 0;
}

/* An RT thread that never sleeps (back to back, a periodic one that spins through >= 90% of its
 * period, or one that catches up on overruns) on every online CPU can freeze the machine. */
static int check_rt_spinners(const struct jl_scenario *sc, char *err, size_t errlen)
{
	cpu_set_t online, covered;
	char who[256] = "";

	if (jl_cpulist_online(&online))
		return 0;
	CPU_ZERO(&covered);
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		size_t used = strlen(who);

		if (!jl_policy_is_rt(t->place.policy) && t->place.policy != JL_POLICY_DEADLINE)
			continue;
		if (!t->beh.exec[0] && t->beh.work.kind == JL_WORK_SLEEP)
			continue; /* it blocks: it gives the CPU back */
		if (t->beh.period_ns && t->beh.overrun == JL_OVERRUN_SKIP &&
		    !(t->beh.work.kind == JL_WORK_SPIN && t->beh.work.arg * 10 >= t->beh.period_ns * 9))
			continue; /* periodic, and sleeps at least a tenth of each period */
		if (t->place.cpus_set)
			CPU_OR(&covered, &covered, &t->place.cpus);
		else
			CPU_OR(&covered, &covered, &online);
		snprintf(who + used, sizeof(who) - used, "%s'%s' (line %d)", used ? ", " : "", t->name, t->line);
	}
	if (CPU_COUNT(&covered) && CPU_EQUAL(&covered, &online)) {
		snprintf(err, errlen,
			 "%.512s: real-time busy thread(s) %s would cover every online CPU: only RT throttling would keep "
			 "the machine responsive. Pin them to fewer CPUs, make them periodic, or pass --unsafe",
			 sc->path, who);
		return -1;
	}
	return 0;
}

static int check_execs(const struct jl_scenario *sc, char *err, size_t errlen)
{
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		char why[512];

		if (!t->beh.exec[0])
			continue;
		if (jl_child_check_cmdline(t->beh.exec, why, sizeof(why))) {
			return jl_scenario_fail(sc, t->key_line[JL_THREAD_KEY_EXEC], err, errlen, "thread '%s': exec: %s", t->name, why);
		}
	}
	return 0;
}

/* Sample buffers are preallocated and locked in memory: refuse a scenario whose samples would take more
 * than half of the RAM (the OOM killer would pick some process on the machine, not us). A run whose loops
 * keep rings (beyond [run] samples_memory) needs the same memory whatever its duration. Where it matters
 * (jl_engine_memory_matters) a run states what it will take before it starts: memory, and the disk samples.csv will. */
static int check_sample_memory(const struct jl_scenario *sc, const struct jl_run_opts *o, char *err, size_t errlen)
{
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);
	double have = (double)pages * (double)psize, need = 0, rows = 0, kept = 0;
	const bool rings = jl_engine_rings(sc);
	const double per_loop = (double)jl_series_accumulator_bytes();
	const enum jl_samples_mode mode = jl_engine_samples_mode(sc);

	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (!t->beh.period_ns || t->beh.exec[0])
			continue;
		rows += (double)sc->run.duration_ns / (double)t->beh.period_ns * t->place.count;
		kept += (double)jl_series_accumulator_kept_max() * t->place.count;
		if (rings)
			need += ((double)jl_engine_ring_capacity(t->beh.period_ns) * (double)sizeof(struct jl_sample) + per_loop) *
				t->place.count;
	}
	if (!rings)
		need = jl_engine_loop_bytes(sc);
	if (pages > 0 && psize > 0 && need > have / 2)
		return jl_scenario_fail(sc, sc->run.key_line[JL_RUN_KEY_DURATION], err, errlen,
					"the per-cycle samples of this scenario need %.1f GB of locked memory, more than "
					"half of this machine's %.1f GB: shorten the duration, lower the rates or lower "
					"[run] samples_memory (rings then keep the memory flat)",
					need / 1e9, have / 1e9);
	if (jl_engine_memory_matters(sc) && !o->quiet && !o->json) {
		double spill;
		bool exact = !rings || jl_engine_spill_fits(sc, &spill);
		char pct[160];

		if (!rings)
			snprintf(pct, sizeof(pct), "exact percentiles");
		else
			snprintf(pct, sizeof(pct), exact ? "exact percentiles (the values: %.1f MB in /tmp)"
						   : "percentiles from histograms (the values would take %.1f MB)",
				 spill / 1e6);
		fprintf(stderr,
			"jitterlab: projected: %.1f MB of memory for the loops' samples (%s; %s), samples.csv %.1f MB "
			"(samples = %s), %s\n",
			need / 1e6, rings ? "a ring per loop, flat in the duration" : "every cycle kept", pct,
			(mode == JL_SAMPLES_ALL ? rows : mode == JL_SAMPLES_WORST ? (kept < rows ? kept : rows) : 0) * 95.0 / 1e6,
			mode == JL_SAMPLES_ALL ? "all" : mode == JL_SAMPLES_WORST ? "worst" : "none",
			!sc->run.trace_groups ? "no trace"
			: jl_scenario_trace_worst(sc, jl_engine_long(sc)) ? "trace.dat bounded (trace_keep = worst: the last 8 MB of each "
							       "CPU and the worst cycles' windows)"
			: "trace.dat not bounded (trace_keep = all: it grows with the events)");
	}
	return 0;
}

/* Permission problems are found here, before anything starts, with what is missing and how to get it. */
static int check_permissions(const struct jl_scenario *sc, struct jl_run_opts *o, char *err, size_t errlen)
{
	struct rlimit rl;
	int maxprio = 0;
	bool needs_root = false;

	if (geteuid() == 0)
		return 0;
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (jl_policy_is_rt(t->place.policy) && t->place.priority > maxprio)
			maxprio = t->place.priority;
		if (t->place.policy == JL_POLICY_DEADLINE)
			needs_root = true;
		if (t->place.nice < 0 && (getrlimit(RLIMIT_NICE, &rl) || (rlim_t)(20 - t->place.nice) > rl.rlim_cur)) {
			snprintf(err, errlen, "thread '%s': nice %d needs root or RLIMIT_NICE >= %d (ulimit -e); run with sudo",
				 t->name, t->place.nice, 20 - t->place.nice);
			return -1;
		}
	}
	if (needs_root) {
		snprintf(err, errlen, "SCHED_DEADLINE threads need root (CAP_SYS_NICE); run with sudo");
		return -1;
	}
	if (maxprio && (getrlimit(RLIMIT_RTPRIO, &rl) || rl.rlim_cur < (rlim_t)maxprio)) {
		snprintf(err, errlen,
			 "real-time priority %d needs root, or RLIMIT_RTPRIO >= %d (ulimit -r; /etc/security/limits.conf "
			 "'@realtime - rtprio 98'); run with sudo",
			 maxprio, maxprio);
		return -1;
	}
	if (sc->run.isolate_set || sc->run.rt_runtime_us != -2) {
		snprintf(err, errlen, "isolate and rt_runtime change machine settings and need root; run with sudo");
		return -1;
	}
	if (sc->run.trace_groups) {
		fprintf(stderr, "jitterlab: warning: tracing needs root: running without a trace (--no-trace)\n");
		o->no_trace = true;
	}
	return 0;
}

struct run_cmd {
	struct jl_run_opts o;
	struct jl_scenario *sc;
	struct jl_oneline ol; /* the loops without a scenario */
	int status;
};

/* The value of a cyclictest option (-p, -i, -d as a distance, -t, -a, -S, -l, --policy, --load, --load-cpus)
 * into S->ol: 0, or the exit status after saying what is wrong. */
static int oneline_opt(struct run_cmd *s, int c, const char *v, const char *arg)
{
	struct jl_oneline *ol = &s->ol;
	char *end;

	if (!ol->given)
		ol->given = arg;
	switch (c) {
	case O_PRIORITY:
		errno = 0;
		ol->priority = (int)strtol(v, &end, 10);
		if (errno || end == v || *end || ol->priority < 1 || ol->priority > 99) {
			fprintf(stderr, "jitterlab run: -p %s: expected a priority from 1 to 99\n", v);
			return JL_EXIT_USAGE;
		}
		break;
	case O_POLICY: ol->policy = v; break;
	case O_INTERVAL: ol->interval = v; break;
	case O_DISTANCE: ol->distance = v; break;
	case O_THREADS: ol->threads = v ? v : ""; break;
	case O_AFFINITY: ol->affinity = v ? v : ""; break;
	case O_SMP: ol->smp = true; break;
	case O_LOOPS: ol->loops = v; break;
	case O_LOAD_CPUS: ol->load_cpus = v; break;
	default: /* O_LOAD */
		if (ol->nloads == JL_ONELINE_LOADS) {
			fprintf(stderr, "jitterlab run: too many --load (at most %d)\n", JL_ONELINE_LOADS);
			return JL_EXIT_USAGE;
		}
		ol->loads[ol->nloads++] = v;
	}
	return JL_LIFE_GO;
}

/* -D (cyclictest's forms too), -w, and -d with a unit: the old --duration, warned. Into BUF[0] or BUF[1]. */
static int time_opt(int c, const char *v, char (*buf)[160])
{
	char d[64];

	if (c == O_WARMUP) { /* a bare number is seconds here too */
		snprintf(buf[1], sizeof(buf[1]), "run.warmup=%s%s", v, strspn(v, "0123456789") == strlen(v) ? "s" : "");
		return JL_LIFE_GO;
	}
	if (c == O_DISTANCE)
		fprintf(stderr, "jitterlab run: warning: -d %s as the duration is deprecated: -d is cyclictest's distance "
			"(a number of us); -d with a unit means the duration until the next release only. Use -D %s\n", v, v);
	if (!jl_oneline_duration(v, d, sizeof(d))) {
		fprintf(stderr, "jitterlab run: --duration %s: expected a duration (20s, 30m, 1h, 2d) or a number of seconds\n", v);
		return JL_EXIT_USAGE;
	}
	snprintf(buf[0], sizeof(buf[0]), "run.duration=%s", d); /* the last one wins; applied after every --set */
	return JL_LIFE_GO;
}

/* -h US: [run] histogram, after every --set. */
static int histogram_opt(const char *v, const char **sets, int *nsets, char *buf, size_t len)
{
	char *end;
	long us = strtol(v, &end, 10);

	if (end == v || *end || us < 1 || us > JL_CYCLICTEST_HIST_US) {
		fprintf(stderr, "jitterlab run: -h %s: expected the histogram's bound in us, 1 to %d\n", v, JL_CYCLICTEST_HIST_US);
		return JL_EXIT_USAGE;
	}
	snprintf(buf, len, "run.histogram=%ldus", us);
	sets[(*nsets)++] = buf;
	return JL_LIFE_GO;
}

/* The command line into S->o and S->ol, the scenario's path into *SCENARIO (NULL: the loops of S->ol) and the
 * --set values (-D, -w and -h last: applied after every --set) into SETS. JL_LIFE_GO, or the exit status. */
static int run_parse(struct run_cmd *s, int argc, char **argv, const char **scenario, const char **sets, int *nsets,
		     char (*buf)[160])
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v, *hist = NULL;
	int c, rc = JL_LIFE_GO, at = w.i;

	s->o.out_root = "traces";
	while (rc == JL_LIFE_GO && (c = jl_cli_next(&jl_cli_run, argc, argv, &w, &v)) != JL_CLI_END) {
		const char *arg = argv[at]; /* the option as given, for messages */

		at = w.i;
		switch (c) {
		case O_DURATION:
		case O_WARMUP:
			rc = time_opt(c, v, buf);
			break;
		case O_DISTANCE:
			rc = jl_oneline_is_distance(v) ? oneline_opt(s, c, v, arg) : time_opt(c, v, buf);
			break;
		case O_PRIORITY: case O_POLICY: case O_INTERVAL: case O_THREADS: case O_AFFINITY: case O_SMP: case O_LOOPS:
		case O_LOAD: case O_LOAD_CPUS:
			rc = oneline_opt(s, c, v, arg);
			break;
		case O_HISTOGRAM:
			if (!v) {
				fprintf(stderr, "jitterlab run: --histogram needs a value (US)\n");
				return JL_EXIT_USAGE;
			}
			hist = v;
			break;
		case O_MLOCKALL: case O_NANOSLEEP: break; /* what jitterlab always does */
		case O_OUT: s->o.out_root = v; break;
		case O_NO_TRACE: s->o.no_trace = true; break;
		case O_UNSAFE: s->o.unsafe = true; break;
		case O_QUIET: s->o.quiet = true; break;
		case O_JSON: s->o.json = true; break;
		case O_SET:
			if (*nsets >= MAX_SETS) {
				fprintf(stderr, "jitterlab run: too many --set (at most %d)\n", MAX_SETS);
				return JL_EXIT_USAGE;
			}
			sets[(*nsets)++] = v;
			break;
		case JL_CLI_OPERAND:
			if (*scenario) {
				fprintf(stderr, "jitterlab run: more than one SCENARIO\n");
				usage(stderr);
				return JL_EXIT_USAGE;
			}
			*scenario = v;
			break;
		case JL_CLI_HELP:
			usage(stdout);
			return JL_EXIT_OK;
		default:
			usage(stderr);
			return JL_EXIT_USAGE;
		}
	}
	if (rc != JL_LIFE_GO)
		return rc;
	if (*scenario && s->ol.given) {
		fprintf(stderr, "jitterlab run: %s describes the loops of a run without a scenario; with %s, set its keys "
			"with --set (e.g. --set control.priority=80)\n", s->ol.given, *scenario);
		return JL_EXIT_USAGE;
	}
	for (int k = 0; k < 2; k++)
		if (buf[k][0])
			sets[(*nsets)++] = buf[k];
	return hist ? histogram_opt(hist, sets, nsets, buf[2], sizeof(buf[2])) : JL_LIFE_GO;
}

/* What the run would refuse before touching anything (exit 2), and what it cannot do here (exit 1). */
static int run_check(struct run_cmd *s, char *err, size_t errlen)
{
	struct jl_scenario *sc = s->sc;

	if (s->o.no_trace)
		sc->run.trace_groups = 0;
	if (check_execs(sc, err, errlen) || jl_machine_validate(sc, s->o.unsafe, err, errlen))
		return JL_EXIT_USAGE;
	if ((!s->o.unsafe && check_rt_spinners(sc, err, errlen)) || check_sample_memory(sc, &s->o, err, errlen))
		return JL_EXIT_USAGE;
	if (sc->run.rt_runtime_us == -1 && !s->o.unsafe) {
		jl_scenario_fail(sc, sc->run.key_line[JL_RUN_KEY_RT_RUNTIME], err, errlen,
				 "[run] rt_runtime = unlimited disables RT throttling: refused without --unsafe");
		return JL_EXIT_USAGE;
	}
	if (check_permissions(sc, &s->o, err, errlen) || check_allowed_cpus(sc, err, errlen))
		return JL_EXIT_RUNTIME;
	if (s->o.no_trace) /* check_permissions may have turned it off */
		sc->run.trace_groups = 0;
	if (sc->run.trace_timer_implied && sc->run.trace_groups && !s->o.quiet)
		fprintf(stderr, "jitterlab: measure = wakeups: recording the timer group too (trace = sched,timer): each "
				"cycle from its timer's requested expiry, as cyclictest measures (set trace to choose)\n");
	return JL_LIFE_GO;
}

static int run_plan(void *ctx, int argc, char **argv)
{
	struct run_cmd *s = ctx;
	const char *sets[MAX_SETS + 3], *scenario = NULL;
	char buf[3][160] = { "", "", "" }, err[JL_ERR_MAX + 256];
	int nsets = 0, rc = run_parse(s, argc, argv, &scenario, sets, &nsets, buf);

	if (rc != JL_LIFE_GO)
		return rc;
	s->sc = calloc(1, sizeof(*s->sc));
	if (!s->sc) {
		perror("jitterlab run");
		return JL_EXIT_RUNTIME;
	}
	if (scenario)
		rc = jl_scenario_load(scenario, sets, nsets, s->sc, err, sizeof(err));
	else /* cyclictest's command line as a scenario */
		rc = jl_oneline_scenario(&s->ol, sets, nsets, s->sc, err, sizeof(err));
	rc = rc ? JL_EXIT_USAGE : run_check(s, err, sizeof(err));
	if (rc != JL_LIFE_GO)
		fprintf(stderr, "jitterlab run: %s\n", err);
	return rc;
}

static int run_nruns(const void *ctx)
{
	(void)ctx;
	return 1;
}

/* The run itself, in this process (run_stages.c). */
static int run_one(void *ctx, int i, const sigset_t *child_mask)
{
	struct run_cmd *s = ctx;

	(void)i, (void)child_mask;
	s->status = jl_run_execute(s->sc, &s->o);
	return JL_LIFE_STOP;
}

static void run_close(void *ctx, bool interrupted)
{
	(void)ctx, (void)interrupted; /* the run wrote and printed its own */
}

static int run_verdict(void *ctx, bool interrupted)
{
	(void)interrupted; /* the run's status says it (130) */
	return ((struct run_cmd *)ctx)->status;
}

static void run_free(void *ctx)
{
	free(((struct run_cmd *)ctx)->sc);
}

static const struct jl_lifecycle_ops run_ops = {
	.name = "run", .ctx_size = sizeof(struct run_cmd), .children = false, .plan = run_plan, .nruns = run_nruns,
	.run = run_one, .close = run_close, .verdict = run_verdict, .free = run_free,
};

int cmd_run(int argc, char **argv)
{
	return jl_lifecycle_main(&run_ops, argc, argv);
}
