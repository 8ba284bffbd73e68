/* run_stages: the stages of one run, in order. Signals are blocked in every thread and taken synchronously here
 * (sigtimedwait), so stop and restore always run in normal context. The main thread is the watchdog:
 * it runs at SCHED_FIFO 99 while the threads run, pinned to the housekeeping CPUs (those no measured
 * thread may use) when there are any, so no scenario thread can starve it (a thread at 99 is refused on
 * those CPUs: scenario_check.c). */
#include "run_stages.h"
#include "run_outputs.h"

#include <errno.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../../affinity/cpulist.h"
#include "../engine/machine.h"
#include "commands.h"
#include "../engine/engine.h"
#include "../summary/expect.h"
#include "../base/documents.h"
#include "../base/host.h"
#include "../base/memlock.h"
#include "../base/memory.h"
#include "../base/output.h"
#include "../base/path.h"
#include "../base/units.h"
#include "../summary/plot.h"
#include "../engine/leftovers.h"
#include "../engine/results.h"
#include "../engine/collector.h"
#include "../base/stop.h"
#include "../summary/summary.h"
#include "../summary/table.h"
#include "../summary/verdict.h"
#include "oneline.h"
#include "../trace/io/trace.h"
#include "../base/summary_keys.h"

/* The watchdog: see watchdog_on. */
struct watchdog {
	cpu_set_t saved;
	bool pinned;
	char cpus[256];   /* where it ran, for the summary ("" = unpinned: no CPU is free of measured threads) */
};

struct run_ctx {
	struct jl_scenario *sc;
	const struct jl_run_opts *o;
	struct jl_machine *machine;
	struct jl_trace *trace;
	struct jl_engine eng;
	char dir[4096];
	char started[64];
	bool interrupted;
	char trace_error[1024];
	struct watchdog watchdog;
	struct jl_host_sample phase[2]; /* steal time and SMIs at the start and end of the measured phase */
	bool phase_taken;
	struct jl_leftovers leftovers;     /* what the neighbours leave behind (processes, /dev/shm) */
	struct jl_collector collector;          /* the run's reader while it runs (collector.h) */
	bool collecting;
	bool stopped_at;                /* [run] stop_at ended the run */
	struct jl_memory_budget mem;    /* projected when the measured phase begins, the peak at the end */
};

static enum jl_samples_mode samples_mode(const struct run_ctx *r)
{
	return jl_engine_samples_mode(r->sc);
}

static const char *samples_mode_name(enum jl_samples_mode m)
{
	return m == JL_SAMPLES_NONE ? "none" : m == JL_SAMPLES_WORST ? "worst" : "all";
}

static void log_msg(const struct run_ctx *r, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

static void log_msg(const struct run_ctx *r, const char *fmt, ...)
{
	va_list ap;

	if (r->o->quiet || r->o->json)
		return;
	va_start(ap, fmt);
	vfprintf(stderr, fmt, ap);
	va_end(ap);
}

static void block_signals(sigset_t *set)
{
	sigemptyset(set);
	sigaddset(set, SIGINT);
	sigaddset(set, SIGTERM);
	sigaddset(set, SIGHUP);
	sigaddset(set, SIGQUIT);
	pthread_sigmask(SIG_BLOCK, set, NULL);
}

static bool signal_pending(const sigset_t *set)
{
	struct timespec zero = { 0, 0 };

	return sigtimedwait(set, NULL, &zero) > 0;
}

/* One scan of the run's tree (leftovers.h). It reads /proc: long on a machine with thousands of tasks, and
 * longer than its 500 ms period under emulation. At the watchdog's FIFO 99 it kept every other RT task
 * off the housekeeping CPU: in the RT lane's guest RCU's kthread (FIFO 1, which RT throttling does not
 * protect) starved for minutes and the run hung. The watchdog steps down to SCHED_OTHER for it. */
static void scan_tree(struct run_ctx *r)
{
	struct sched_param other = { .sched_priority = 0 };
	int policy = SCHED_OTHER;
	struct sched_param was;

	if (pthread_getschedparam(pthread_self(), &policy, &was) || policy == SCHED_OTHER) {
		jl_leftovers_scan(&r->leftovers, &r->eng);
		return;
	}
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &other);
	jl_leftovers_scan(&r->leftovers, &r->eng);
	pthread_setschedparam(pthread_self(), policy, &was);
}

/* Wait until DEADLINE (CLOCK_MONOTONIC ns), a signal or the collector's stop_at. Returns true when
 * interrupted (r->stopped_at says which). While the watchdog is pinned to housekeeping CPUs, scans the
 * run's tree every 500 ms (leftovers.h); with a stop_at, looks at the collector every 50 ms. */
static bool wait_until(struct run_ctx *r, const sigset_t *set, int64_t deadline)
{
	int64_t next_scan = jl_now_ns() + 500000000LL;

	for (;;) {
		int64_t now = jl_now_ns(), left = deadline - now;
		struct timespec ts;
		int sig;

		if (r->collecting && jl_collector_stop_fired(&r->collector)) {
			r->stopped_at = true;
			return true;
		}
		if (left <= 0)
			return false;
		if (r->collecting && r->sc->run.stop_at.set && left > 50000000LL)
			left = 50000000LL;
		if (r->watchdog.pinned && now >= next_scan) {
			scan_tree(r);
			next_scan = jl_now_ns() + 500000000LL;
			continue;
		}
		if (r->watchdog.pinned && next_scan - now < left)
			left = next_scan - now;
		ts.tv_sec = left / 1000000000LL;
		ts.tv_nsec = left % 1000000000LL;
		sig = sigtimedwait(set, NULL, &ts);
		if (sig > 0)
			return true;
	}
}

static int hook_thread_ready(void *ctx, struct jl_thread *th)
{
	struct run_ctx *r = ctx;

	if (th->is_exec) /* a probed program is measured: it goes where measured threads go */
		return jl_machine_register_child(r->machine, th->tid) ||
		       jl_machine_place_thread(r->machine, th->tid, th->measured);
	return jl_machine_place_thread(r->machine, th->tid, th->measured);
}

static int hook_all_ready(void *ctx, char *err, size_t errlen)
{
	struct run_ctx *r = ctx;

	return jl_machine_seal(r->machine, err, errlen);
}

/* Does a thread of SC measure an exec'd program through the probe? */
static bool has_probe(const struct jl_scenario *sc)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (sc->threads[i].beh.measure == JL_MEASURE_PROBE) /* the socket is the probe's only */
			return true;
	return false;
}

/* The housekeeping CPUs of this run, where the trace reader, the probe server and the watchdog go:
 * [run] housekeeping, or auto (jl_scenario_auto_housekeeping: the online CPUs no measured thread, probed
 * program or executor is pinned to, none isolated; none when one of those may run anywhere). */
static bool housekeeping_cpus(const struct jl_engine *eng, cpu_set_t *out)
{
	if (jl_cpulist_online(out))
		return false;
	if (!eng->sc->run.housekeeping_set) /* auto: the one rule, which cyclictest's sides use too */
		return jl_scenario_auto_housekeeping(eng->sc, out);
	CPU_AND(out, out, &eng->sc->run.housekeeping); /* the scenario's (validated against the measured threads) */
	return CPU_COUNT(out) > 0;
}

/* The watchdog (this thread) at FIFO 99 while the threads run, pinned to CPUS when there are any
 * (housekeeping: CPUs no measured thread may use), so that it never wakes on a measured CPU; its old
 * mask comes back with the old policy. */
static void watchdog_on(struct watchdog *w, const cpu_set_t *cpus)
{
	struct sched_param sp = { .sched_priority = 99 };

	w->pinned = false;
	w->cpus[0] = '\0';
	if (cpus && pthread_getaffinity_np(pthread_self(), sizeof(w->saved), &w->saved) == 0 &&
	    pthread_setaffinity_np(pthread_self(), sizeof(*cpus), cpus) == 0) {
		w->pinned = true;
		jl_cpulist_format(cpus, w->cpus, sizeof(w->cpus));
	}
	if (geteuid() == 0)
		pthread_setschedparam(pthread_self(), SCHED_FIFO, &sp);
}

static void watchdog_off(struct watchdog *w)
{
	struct sched_param sp = { .sched_priority = 0 };

	if (geteuid() == 0)
		pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	if (w->pinned)
		pthread_setaffinity_np(pthread_self(), sizeof(w->saved), &w->saved);
}

static int write_run_scenario(struct run_ctx *r)
{
	char path[4200];

	snprintf(path, sizeof(path), "%s/scenario.ini", r->dir);
	return jl_scenario_write_file(path, r->sc);
}

static json_object *trace_block_disabled(const char *why)
{
	json_object *t = json_object_new_object();

	json_object_object_add(t, JL_K(enabled), json_object_new_boolean(false));
	if (why && why[0])
		json_object_object_add(t, JL_K(error), json_object_new_string(why));
	return t;
}

/* An exec neighbour that could not run, or that died with an error before the end, means the run
 * did not measure what the scenario describes: a runtime failure. One that ended cleanly early is
 * only worth a warning (its load was gone for the rest of the run). */
static int check_children(const struct jl_engine *eng, int status)
{
	for (int i = 0; i < eng->nthreads; i++) {
		const struct jl_thread *th = &eng->threads[i];
		int st = th->exit_status;

		if (!th->is_exec)
			continue;
		if (th->errmsg[0]) {
			fprintf(stderr, "jitterlab: neighbour '%s': %s\n", th->name, th->errmsg);
			status = JL_EXIT_RUNTIME;
		} else if (th->ended_early && st >= 0 && (!WIFEXITED(st) || WEXITSTATUS(st) != 0)) {
			fprintf(stderr, "jitterlab: neighbour '%s' died before the end (%s %d): see %s.log\n", th->name,
				WIFEXITED(st) ? "exit status" : "signal", WIFEXITED(st) ? WEXITSTATUS(st) : WTERMSIG(st),
				th->name);
			status = JL_EXIT_RUNTIME;
		} else if (th->ended_early) {
			fprintf(stderr, "jitterlab: warning: neighbour '%s' ended before the run did: its load was gone "
					"for the rest of the run\n", th->name);
		}
	}
	return status;
}

/* After the threads have ended: analysis, outputs, expectations. Returns the exit status. */
/* The machine first: nothing after the measurement needs the shield, IRQ steering or RT settings, and a
 * failure in the analysis must not leave them applied; then the trace's end (trace.dat, the analysis)
 * into TR. Returns the status. */
static int finish_machine_and_trace(struct run_ctx *r, json_object *host, struct jl_trace_result *tr, int status)
{
	char err[1024] = "";

	jl_machine_describe(r->machine, host);
	if (r->phase_taken)
		jl_host_add_phase(host, &r->phase[0], &r->phase[1]);
	if (jl_machine_restore(r->machine, host)) {
		fprintf(stderr, "jitterlab: some machine settings could not be restored: run `jitterlab restore`\n");
		status = JL_EXIT_RUNTIME;
	}
	r->machine = NULL;
	if (r->trace) {
		jl_engine_set_mark(&r->eng, NULL, NULL, 0); /* no thread may call into the trace from here on */
		if (jl_trace_finish(r->trace, &r->eng, r->dir, host, tr, err, sizeof(err))) {
			fprintf(stderr, "jitterlab: tracing: %s\n", err);
			snprintf(r->trace_error, sizeof(r->trace_error), "%s", err);
		}
		jl_trace_destroy(r->trace);
		r->trace = NULL;
	}
	return status;
}

/* [expect], [budget], [run] stop_at and an interruption judged into SUMMARY: the run's exit status. */
static int judge(const struct run_ctx *r, json_object *summary, int status)
{
	int failed = 0;

	json_object_object_add(summary, JL_K(expect), jl_expect_evaluate(r->sc, summary, &failed));
	if (status == JL_EXIT_OK && failed)
		status = JL_EXIT_EXPECT;
	if (r->sc->nbudgets) {
		json_object_object_add(summary, JL_K(budget), jl_budget_evaluate(r->sc, summary, &failed));
		if (status == JL_EXIT_OK && failed)
			status = JL_EXIT_EXPECT; /* a budget exceeded: exit 3, like an expectation */
	}
	if (r->stopped_at && status == JL_EXIT_OK)
		status = JL_EXIT_EXPECT; /* a cycle crossed [run] stop_at: exit 3, like a failed expectation */
	else if (r->interrupted && !r->stopped_at && status != JL_EXIT_RUNTIME)
		status = JL_EXIT_INTERRUPTED; /* 130 means: interrupted, and everything was restored */
	json_object_object_add(summary, JL_K(exit_status), json_object_new_int(status));
	return status;
}

/* The plots, then what the terminal shows: the JSON, or the table with the worst cycles, the warnings,
 * and where the run directory is. */
static void finish_print(struct run_ctx *r, json_object *summary)
{
	char err[1024] = "";

	if (!r->o->quiet && jl_plot_run(r->dir, err, sizeof(err)) <= 0 && err[0] && !r->o->json)
		fprintf(stderr, "jitterlab: plots: %s\n", err);
	if (r->o->json) {
		jl_json_print(stdout, summary);
	} else if (!r->o->quiet) {
		jl_table_print(stdout, summary, JL_TABLE_TEXT);
		jl_verdict_cycles(stdout, summary);
	}
	if (r->eng.watchdog_fired)
		fprintf(stderr, "jitterlab: watchdog: threads did not end in time and were demoted to SCHED_OTHER%s%s\n",
			r->eng.stuck[0] ? "; still stuck: " : "", r->eng.stuck);
	fputs(jl_leftovers_warning(&r->leftovers, err, sizeof(err)), stderr);
	if (r->o->json)
		return;
	if (!r->o->quiet) {
		/* the answer last, where the eye lands: the verdict, then where to look */
		fflush(stderr);
		jl_verdict_line(stdout, summary);
		jl_verdict_files(stdout, r->dir);
		jl_verdict_kshark(stdout, summary, r->dir, jl_find_program("kernelshark", NULL, 0));
	}
	if (!strcmp(r->sc->path, JL_ONELINE_PATH)) /* a one-liner becomes a file */
		printf("scenario: %s/scenario.ini (the command line as a scenario: jitterlab run it to run this again)\n",
		       r->dir);
	printf("run directory: %s\n", r->dir);
}

static int finish(struct run_ctx *r, int status)
{
	struct jl_engine *eng = &r->eng;
	struct jl_series_result *res = NULL;
	struct jl_trace_result tr = { 0 };
	const enum jl_samples_mode smode = samples_mode(r);
	struct jl_summary_info info = { .scenario_path = r->sc->path, .run_dir = r->dir,
					.interrupted = r->interrupted && !r->stopped_at, .watchdog_fired = eng->watchdog_fired,
					.stuck = eng->stuck, .watchdog_cpus = r->watchdog.cpus,
					.collector = r->collecting ? &r->collector : NULL, .samples_mode = samples_mode_name(smode) };
	json_object *summary, *host = jl_host_describe();

	snprintf(info.started, sizeof(info.started), "%s", r->started);
	status = finish_machine_and_trace(r, host, &tr, status);
	status = check_children(eng, status);
	/* sized after the trace: it adds the series of probed programs */
	res = calloc(eng->nseries > 0 ? (size_t)eng->nseries : 1, sizeof(*res));
	if (!res || jl_results_compute(eng, res, r->collecting ? jl_collector_accs(&r->collector) : NULL,
						  r->collecting ? r->collector.nseries : 0, smode == JL_SAMPLES_WORST)) {
		fprintf(stderr, "jitterlab: cannot compute the results: %s\n", strerror(errno));
		free(res);
		jl_trace_result_free(&tr);
		json_object_put(host);
		return JL_EXIT_RUNTIME;
	}
	summary = jl_summary_build(eng, res, &info, host);
	json_object_object_add(summary, JL_K(trace), tr.block ? json_object_get(tr.block) : trace_block_disabled(r->trace_error));
	jl_summary_lock_boosts(summary);
	json_object_object_add(summary, JL_K(leftovers), jl_leftovers_json(&r->leftovers));
	json_object_object_add(summary, JL_K(memory), jl_memory_json(&r->mem));
	status = judge(r, summary, status);

	/* the run directory's files written at the end (run_outputs.c: the registry of them all) */
	if (jl_run_outputs_write(&(struct jl_run_out){ .dir = r->dir, .eng = eng, .res = res, .nseries = eng->nseries,
						       .summary = summary, .trace = &tr, .samples = smode,
						       .plots = !r->o->quiet })) {
		fprintf(stderr, "jitterlab: cannot write the results to %s: %s\n", r->dir, strerror(errno));
		status = JL_EXIT_RUNTIME;
	}
	jl_output_link_latest(r->dir);
	finish_print(r, summary);
	json_object_put(summary);
	jl_trace_result_free(&tr);
	jl_results_free(res, eng->nseries);
	free(res);
	return status;
}

/* The collector's checkpoint hook (its thread): summary.json with the figures so far */
static void checkpoint(void *ctx, const struct jl_collector *w)
{
	struct run_ctx *r = ctx;
	struct jl_summary_info info = { .scenario_path = r->sc->path, .run_dir = r->dir, .collector = w,
					.samples_mode = samples_mode_name(samples_mode(r)) };
	json_object *cp;

	snprintf(info.started, sizeof(info.started), "%s", r->started);
	cp = jl_summary_checkpoint(&r->eng, w, &info);
	if (jl_output_write_json(r->dir, jl_document_file(JL_DOC_RUN), cp))
		fprintf(stderr, "\njitterlab: warning: checkpoint: %s/summary.json: %s\n", r->dir, strerror(errno));
	json_object_put(cp);
}

/* [run] interval auto: a 60th of the duration, between 1 s and 5 min */
static int64_t interval_ns(const struct jl_scenario *sc)
{
	int64_t v = sc->run.interval_ns;

	if (v > 0)
		return v;
	v = sc->run.duration_ns / 60;
	return v < JL_NSEC_PER_SEC ? JL_NSEC_PER_SEC : v > 300 * JL_NSEC_PER_SEC ? 300 * JL_NSEC_PER_SEC : v;
}

static uint64_t lost_now(void *ctx)
{
	return jl_trace_lost_now(((struct run_ctx *)ctx)->trace);
}

/* The collector's cycle hook: the flight recorder's windows (io/recorder.c), the live analysis' (io/live.c) */
static void keep_cycle(void *ctx, int series, const struct jl_sample *x, const struct jl_cycle_figures *f)
{
	struct run_ctx *r = ctx;

	jl_trace_recorder_cycle(r->trace, series, &r->eng.series[series], x, f->latency, f->response, f->miss);
	jl_trace_live_cycle(r->trace, series, x, f->latency, f->response, f->miss);
}

static int collector_start(struct run_ctx *r, char *err, size_t errlen)
{
	cpu_set_t hk;
	bool have_hk = housekeeping_cpus(&r->eng, &hk);
	struct jl_collector_opts o = {
		/* the progress line: on a terminal, never on a measured CPU */
		.progress = have_hk && !r->o->quiet && !r->o->json && isatty(STDERR_FILENO),
		.stream_rows = r->eng.rings && samples_mode(r) == JL_SAMPLES_ALL,
		.spill = r->eng.rings && jl_engine_spill_fits(r->sc, NULL),
		.dir = r->dir,
		.interval_ns = interval_ns(r->sc),
		.checkpoint_ns = r->sc->run.checkpoint_ns,
		.checkpoint = checkpoint,
		.ctx = r,
		.cpus = have_hk ? &hk : NULL,
		.lost = r->trace ? lost_now : NULL,
		.cycle = r->trace ? keep_cycle : NULL,
	};

	if (jl_collector_init(&r->collector, &r->eng, &o, err, errlen))
		return -1;
	if (jl_collector_start(&r->collector, err, errlen)) {
		jl_collector_free(&r->collector);
		return -1;
	}
	r->collecting = true;
	return 0;
}

/* Before the machine changes: the run directory and its scenario.ini, the engine (locking what its
 * measured threads touch from here on), then the machine's settings. JL_EXIT_OK, or the exit status with
 * everything this step did undone. */
static int run_prepare(struct run_ctx *r, char *err, size_t errlen)
{
	struct jl_engine_hooks hooks = { .ctx = r, .thread_ready = hook_thread_ready, .all_ready = hook_all_ready };

	if (jl_machine_check_stale(err, errlen)) {
		fprintf(stderr, "jitterlab: %s\n", err);
		return JL_EXIT_RUNTIME;
	}
	if (jl_output_make_run_dir(r->o->out_root, r->sc->run.name, r->dir, sizeof(r->dir), err, errlen) ||
	    write_run_scenario(r)) {
		int e = errno;

		fprintf(stderr, "jitterlab: %s\n", err[0] ? err : strerror(e));
		return e == EPERM ? JL_EXIT_USAGE : JL_EXIT_RUNTIME; /* an --out jitterlab refuses: nothing touched */
	}
	/* lock only what the measured threads touch (memlock.h): each piece as it is made, from here on, until
	 * jl_memlock_end on every way out */
	jl_memlock_begin();
	jl_memlock_code();
	if (jl_engine_init(&r->eng, r->sc, &hooks, err, errlen))
		goto fail;
	snprintf(r->eng.log_dir, sizeof(r->eng.log_dir), "%s", r->dir);
	r->eng.defer_sort = true; /* the collector reads the arrays while the run goes: sorted after it */
	/* from here on the machine may change: every path goes through jl_machine_restore() */
	if (jl_machine_apply(&r->machine, r->sc, r->o->unsafe, err, errlen))
		goto fail_engine;
	return JL_EXIT_OK;

fail_engine:
	jl_engine_free(&r->eng);
fail:
	fprintf(stderr, "jitterlab: %s\n", err);
	jl_memlock_end();
	return JL_EXIT_RUNTIME;
}

/* The trace, when [run] trace asks for one: a run goes on without it when it cannot start (the reason
 * goes to summary.json); the reader and the probe's server on the housekeeping CPUs. */
static void run_trace_begin(struct run_ctx *r, char *err, size_t errlen)
{
	const struct jl_scenario *sc = r->sc;
	cpu_set_t free_cpus;

	if (!sc->run.trace_groups) {
		snprintf(r->trace_error, sizeof(r->trace_error), "tracing is off");
		return;
	}
	if (jl_trace_start(&r->trace, &sc->run, err, errlen)) {
		fprintf(stderr, "jitterlab: warning: running without a trace: %s\n", err);
		snprintf(r->trace_error, sizeof(r->trace_error), "%s", err);
		r->trace = NULL;
		return;
	}
	/* the reader thread drains the buffers from a CPU no measured thread uses, if any */
	if (housekeeping_cpus(&r->eng, &free_cpus)) {
		cpu_set_t measured;

		jl_trace_set_reader_cpus(r->trace, &free_cpus);
		/* IRQ and timer events only where measured threads run (all CPUs otherwise) */
		if (jl_cpulist_online(&measured) == 0) {
			CPU_XOR(&measured, &measured, &free_cpus);
			if (CPU_COUNT(&measured) && jl_trace_limit_local(r->trace, &measured))
				log_msg(r, "jitterlab: note: IRQ/timer events recorded on every CPU: %s\n", strerror(errno));
		}
	}
	/* the flight recorder: asked for, or a long run's (its loops keep rings) */
	if (jl_scenario_trace_worst(sc, jl_engine_long(sc)) && jl_trace_recorder_start(r->trace, err, errlen))
		fprintf(stderr, "jitterlab: warning: the trace keeps every page: %s\n", err);
	if (jl_trace_record(r->trace, err, errlen)) {
		fprintf(stderr, "jitterlab: warning: running without a trace: %s\n", err);
		snprintf(r->trace_error, sizeof(r->trace_error), "%s", err);
		jl_trace_destroy(r->trace);
		r->trace = NULL;
		return;
	}
	jl_engine_set_mark(&r->eng, jl_trace_mark, r->trace, sc->run.trace_threshold_ns);
	if (has_probe(sc) &&
	    jl_trace_probe_serve(r->trace, housekeeping_cpus(&r->eng, &free_cpus) ? &free_cpus : NULL, err, errlen))
		fprintf(stderr, "jitterlab: warning: %s: probed programs are not measured\n", err);
}

/* The memory budget, when the measured phase begins: what is set up (measured), and what the analysis will
 * add at the trace's rate of events (base/memory.h) over the last second before (the warm-up's, when it
 * lasts a second or more; else the measured phase's first). Stated on stderr where it matters
 * (jl_engine_memory_matters) unless quiet, in summary.json always. Call at the measured phase's start with
 * the events counted a second before it or at its start (EV0 at T0). True when the run was stopped meanwhile. */
#define MEMORY_RATE_OVER_NS 1000000000LL
static bool project_memory(struct run_ctx *r, const sigset_t *sigs, uint64_t ev0, int64_t t0)
{
	uint64_t events;
	enum jl_analysis_hold hold = jl_trace_analysis_hold(r->trace, &r->eng, &events);
	char line[512];

	if (hold != JL_HOLD_NONE && jl_now_ns() - t0 < MEMORY_RATE_OVER_NS / 2) {
		int64_t at = t0 + MEMORY_RATE_OVER_NS;

		if (wait_until(r, sigs, at < r->eng.t_end ? at : r->eng.t_end))
			return true;
		hold = jl_trace_analysis_hold(r->trace, &r->eng, &events);
	}
	r->mem.setup = jl_memory_status("VmRSS");
	r->mem.samples = (int64_t)jl_results_series_bytes(&r->eng);
	jl_memory_project(&r->mem, hold, events, events > ev0 ? events - ev0 : 0, jl_now_ns() - t0,
			  r->eng.t_end - jl_now_ns());
	jl_memory_line(&r->mem, line, sizeof(line));
	if (jl_engine_memory_matters(r->sc))
		log_msg(r, "jitterlab: %s\n", line);
	return false;
}

/* The threads have started: the watchdog, the live analysis and the collector, then the warm-up and the
 * measured phase until their end, a signal or [run] stop_at; then the threads are stopped and joined and
 * what they locked is unlocked. Returns the status so far. */
static int run_measure(struct run_ctx *r, const sigset_t *sigs, char *err, size_t errlen)
{
	const struct jl_scenario *sc = r->sc;
	int status = JL_EXIT_OK;
	cpu_set_t hk;
	bool stopped;
	uint64_t ev0 = 0;
	int64_t ev0_at;

	watchdog_on(&r->watchdog, housekeeping_cpus(&r->eng, &hk) ? &hk : NULL);
	if (r->trace) { /* a long run's analysis goes along with it (before the collector: it hands it the cycles) */
		json_object *host = jl_host_describe();

		if (jl_trace_live_start(r->trace, &r->eng, host, err, errlen) < 0)
			log_msg(r, "jitterlab: note: the trace is analysed after the run: %s\n", err);
		json_object_put(host);
	}
	if (collector_start(r, err, errlen)) {
		/* the rings need their reader: without it the run would measure nothing */
		fprintf(stderr, "jitterlab: %s\n", err);
		jl_stop_request(JL_STOP_ERROR);
		jl_engine_stop_window(&r->eng, jl_now_ns());
		status = JL_EXIT_RUNTIME;
	}
	/* steal time and SMIs: read at the start and the end of the measured phase (host.c) */
	/* the memory budget's rate of events: from a second before the measured phase (project_memory) */
	ev0_at = r->eng.t_measure - MEMORY_RATE_OVER_NS;
	stopped = status != JL_EXIT_OK || wait_until(r, sigs, ev0_at > jl_now_ns() ? ev0_at : jl_now_ns());
	if (!stopped) {
		ev0_at = jl_now_ns();
		(void)jl_trace_analysis_hold(r->trace, &r->eng, &ev0);
		stopped = wait_until(r, sigs, r->eng.t_measure);
	}
	if (!stopped) {
		jl_host_sample_take(&r->phase[0]);
		r->phase_taken = true;
		stopped = project_memory(r, sigs, ev0, ev0_at) || wait_until(r, sigs, r->eng.t_end);
	}
	if (r->phase_taken)
		jl_host_sample_take(&r->phase[1]);
	if (stopped && r->stopped_at) {
		char thr[64], val[64];

		r->interrupted = true; /* the window ended early (the collector set t_stopped at the crossing) */
		log_msg(r, "\njitterlab: stop_at: %s.%s was %s (over %s) at cycle %llu: stopping, writing what was "
			   "measured\n", sc->run.stop_at.series,
			sc->run.stop_at.metric == JL_STOP_AT_RESPONSE ? "response" : "latency",
			jl_format_duration(r->collector.stopped.value, val, sizeof(val)),
			jl_format_duration(sc->run.stop_at.threshold_ns, thr, sizeof(thr)),
			(unsigned long long)r->collector.stopped.cycle);
	} else if (stopped && status == JL_EXIT_OK) {
		r->interrupted = true;
		jl_stop_request(JL_STOP_SIGNAL);
		jl_engine_stop_window(&r->eng, jl_now_ns());
		log_msg(r, "\njitterlab: interrupted: stopping, restoring, writing what was measured\n");
	}
	jl_leftovers_scan(&r->leftovers, &r->eng); /* the tree and its files while the neighbours still run */
	if (jl_engine_stop(&r->eng, r->eng.t_end > jl_now_ns() ? jl_now_ns() + sc->run.grace_ns
								: r->eng.t_end + sc->run.grace_ns))
		status = JL_EXIT_RUNTIME;
	watchdog_off(&r->watchdog);
	/* the measured phase is over: what it locked may be paged again (the analysis below is not timed) */
	jl_memlock_end();
	if (r->collecting && jl_collector_finish(&r->collector)) {
		fprintf(stderr, "jitterlab: samples.csv: %s\n", strerror(errno));
		status = JL_EXIT_RUNTIME;
	}
	if (r->collecting && jl_collector_stop_fired(&r->collector) && !r->stopped_at) {
		r->stopped_at = r->interrupted = true; /* a crossing the collector found in its last looks */
		status = status == JL_EXIT_OK ? JL_EXIT_EXPECT : status;
	}
	return status;
}

/* The run's lifecycle: prepare (nothing to undo on failure), the trace, the threads, the measured phase,
 * then the end (finish: restore, analysis, files); a failure before the threads start restores the
 * machine and frees what was made, in reverse order. */
int jl_run_execute(struct jl_scenario *sc, const struct jl_run_opts *o)
{
	struct run_ctx *r = calloc(1, sizeof(*r));
	char err[1024] = "";
	sigset_t sigs;
	time_t now = time(NULL);
	struct tm tm;
	int status;

	if (!r)
		return JL_EXIT_RUNTIME;
	r->sc = sc;
	r->o = o;
	gmtime_r(&now, &tm);
	strftime(r->started, sizeof(r->started), "%Y-%m-%dT%H:%M:%SZ", &tm);
	block_signals(&sigs);
	jl_stop_reset();
	status = run_prepare(r, err, sizeof(err));
	if (status != JL_EXIT_OK) {
		free(r);
		return status;
	}
	/* a probe's rendezvous is this run's or none: never one inherited from our own environment */
	unsetenv("JITTERLAB_PROBE");
	unsetenv("JITTERLAB_PROBE_MARKER");
	run_trace_begin(r, err, sizeof(err));
	if (signal_pending(&sigs)) {
		r->interrupted = true;
		status = JL_EXIT_INTERRUPTED;
		goto restore;
	}
	log_msg(r, "jitterlab: %s: %d thread(s), %.3f s warm-up + %.3f s measured, results in %s\n", sc->run.name,
		r->eng.nthreads, (double)sc->run.warmup_ns / 1e9, (double)sc->run.duration_ns / 1e9, r->dir);
	if (jl_leftovers_begin(&r->leftovers, sc->run.cleanup, NULL))
		log_msg(r, "jitterlab: note: cannot become a child subreaper (%s): orphans of the neighbours may go "
			   "unnoticed\n", strerror(errno));
	if (jl_engine_start(&r->eng, err, sizeof(err))) {
		fprintf(stderr, "jitterlab: %s\n", err);
		status = JL_EXIT_RUNTIME;
		goto restore;
	}
	status = run_measure(r, &sigs, err, sizeof(err));
	if (!r->eng.stuck[0])
		jl_engine_sort_series(&r->eng);
	jl_leftovers_collect(&r->leftovers, &r->eng);
	if (signal_pending(&sigs))
		r->interrupted = true;
	status = finish(r, status);
	if (r->collecting)
		jl_collector_free(&r->collector);
	r->collecting = false;
	jl_leftovers_free(&r->leftovers);
	if (r->eng.stuck[0])
		return status; /* a thread the watchdog gave up on may still touch the engine: leave it be */
	jl_engine_free(&r->eng);
	free(r);
	return status;

restore:
	jl_memlock_end();
	jl_leftovers_collect(&r->leftovers, &r->eng);
	fputs(jl_leftovers_warning(&r->leftovers, err, sizeof(err)), stderr);
	jl_leftovers_free(&r->leftovers);
	if (r->trace)
		jl_trace_destroy(r->trace);
	if (jl_machine_restore(r->machine, NULL)) {
		fprintf(stderr, "jitterlab: some machine settings could not be restored: run `jitterlab restore`\n");
		status = JL_EXIT_RUNTIME;
	}
	jl_engine_free(&r->eng);
	free(r);
	return status;
}
