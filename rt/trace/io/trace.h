/* trace: what a run sees of tracing: ftrace capture, trace.dat, the wakeup analysis, the KernelShark
 * session. The run calls jl_trace_start() before the threads go, passes jl_trace_mark() to the engine as
 * its marker hook, then jl_trace_finish() after the threads have ended, and jl_trace_destroy() on every
 * path (it removes the private tracing instance). Nothing here runs on a measured CPU's hot path except
 * jl_trace_mark(), which is one write() to trace_marker_raw on interesting cycles only.
 * Two layers (docs/design-notes.md, "The trace in two layers"): rt/trace/analysis, the pure event model
 * and wakeup analysis (no tracefs, no files; a header per concept), below rt/trace/io, which records,
 * reads and writes traces and implements this interface (capture.c, recorder.c, probe_server.c,
 * probe_ring.c, decode.c, pages.c, read.c, rows.c, discover.c, dat.c, kshark.c, live.c, finish.c). */
#ifndef JL_TRACE_H
#define JL_TRACE_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "../../base/memory.h"
#include "../../engine/engine.h"
#include "../../scenario/scenario.h"

struct jl_trace;

/* One recorded event: its tracefs system and name. REQUIRED: the run fails without it (sched_waking,
 * sched_switch); the others are skipped where the kernel lacks them. LOCAL: recorded only on the CPUs the
 * measured threads may use, once jl_trace_limit_local() is called (a CPU filter on the event). */
enum { JL_TRACE_EV_REQUIRED = 1 << 0, JL_TRACE_EV_LOCAL = 1 << 1 };
struct jl_trace_event {
	const char *system, *name;
	unsigned flags;            /* JL_TRACE_EV_* */
	const char *filter;        /* the records kept (a tracefs filter on its fields, ANDed with LOCAL's CPU
				    * filter); NULL: every one */
};

/* The event groups of [run] trace (docs/scenario-format.md): the one registry; `jitterlab list` prints it. A
 * group's events may come from several tracefs systems (sched takes task_*, irq takes ipi_*): trace.dat
 * stores the formats of every system the recorded groups use. */
struct jl_trace_group {
	unsigned bit;              /* JL_TRACE_* */
	const char *name;          /* the group's name in [run] trace */
	const struct jl_trace_event *events; /* ended by { NULL } */
	const char *help;
	bool where_it_exists;      /* a kernel without any of its events lacks nothing a run needs */
};
extern const struct jl_trace_group jl_trace_groups[];
extern const int jl_trace_ngroups;


struct jl_trace_result {
	json_object *block; /* summary.json "trace" object (owned by the caller after finish) */
	char *text;         /* worst cycles explained, for the terminal and report.md (malloc'd; may be NULL) */
};

/* Create a private instance (jitterlab-<pid>), set the mono clock and buffer size, enable the event
 * groups of RUN->trace_groups and start the reader (recording begins with jl_trace_record()). Returns 0, or -1 with ERR set (and nothing left). */
int jl_trace_start(struct jl_trace **out, const struct jl_run_spec *run, char *err, size_t errlen);
/* Begin recording: after jl_trace_limit_local() (so no event of another CPU lands before its filter) and
 * before the threads go. 0, or -1 with ERR. */
int jl_trace_record(struct jl_trace *t, char *err, size_t errlen);

/* Keep the trace reader thread (SCHED_OTHER) on CPUS, e.g. the CPUs no measured thread uses; by default
 * it avoids [run] isolate only. Returns 0, or -1 with errno. */
int jl_trace_set_reader_cpus(struct jl_trace *t, const cpu_set_t *cpus);

/* Record the LOCAL events (IRQs, softirqs, hrtimers) only on CPUS, the CPUs the measured threads may use
 * (a `CPU & CPUS{...}` filter on each). Call right after jl_trace_start(); without it they are recorded on
 * every CPU. Returns 0, or -1 with errno (the events then stay unfiltered: more events, same analysis). */
int jl_trace_limit_local(struct jl_trace *t, const cpu_set_t *cpus);

/* Serve the probe (include/jitterlab/probe.h): a unix socket that hands the run's trace_marker_raw to
 * the programs the run starts (JITTERLAB_PROBE, JITTERLAB_PROBE_MARKER in the environment), served by a
 * thread on CPUS. Call after jl_trace_start(), before the children start; jl_trace_destroy() ends it.
 * Returns 0, or -1 with ERR set (nothing left). */
int jl_trace_probe_serve(struct jl_trace *t, const cpu_set_t *cpus, char *err, size_t errlen);
/* End the probe server (its socket gone, the environment cleared); safe when not serving. */
void jl_trace_probe_unserve(struct jl_trace *t);

/* [run] trace_keep = worst: keep only the pages the worst cycles and the first misses need, and the last
 * ones (recorder.c); call before jl_trace_record(). 0, or -1 with ERR (then every page is kept). */
int jl_trace_recorder_start(struct jl_trace *t, char *err, size_t errlen);
/* The collector's, for each measured cycle it reads (its thread): the flight recorder's windows. A no-op
 * without the recorder. SERIES: the index of S in the engine. */
void jl_trace_recorder_cycle(struct jl_trace *t, int series, const struct jl_series *s, const struct jl_sample *x,
			 int64_t latency, int64_t response, bool miss);

/* The analysis while the run goes (live.c): when every page is kept (no flight recorder) and every
 * measured entry is a loop keeping a ring (a long run), a thread on the reader's CPUs feeds the pruned
 * analysis the pages as they are drained, a few hundred ms behind the collector (whose cycles, through
 * jl_trace_live_cycle, give it the windows first); jl_trace_finish then feeds only the rest. HOST: the
 * RT bandwidth (jl_host_describe). 1 started, 0 not for this run, -1 with ERR. */
int jl_trace_live_start(struct jl_trace *t, const struct jl_engine *eng, json_object *host, char *err, size_t errlen);
/* The collector's cycle of SERIES (the same arguments as jl_trace_recorder_cycle); no-op without a live analysis. */
void jl_trace_live_cycle(struct jl_trace *t, int series, const struct jl_sample *x, int64_t latency,
			 int64_t response, bool miss);

/* Engine marker hook (struct jl_engine_hooks.mark); CTX is the struct jl_trace *. */
void jl_trace_mark(void *ctx, const struct jl_series *s, uint64_t cycle, int64_t latency_ns, bool miss);
/* While it records: the events the kernel lost so far (the progress line; never on a measured CPU). */
uint64_t jl_trace_lost_now(const struct jl_trace *t);
/* For the memory budget (base/memory.h): how the analysis will hold the trace, and the events recorded so
 * far (*EVENTS: the kernel's, and the probes' records that join them in trace.dat). T may be NULL (no trace). */
enum jl_analysis_hold jl_trace_analysis_hold(const struct jl_trace *t, const struct jl_engine *eng, uint64_t *events);

/* Stop recording, write RUN_DIR/trace.dat and RUN_DIR/kernelshark.json, add the series of the probed
 * threads of `measure = probe` units to ENG (probe_server.c), analyse the wakeups of the engine's measured
 * series (RT bandwidth as HOST, the summary's host block, describes it) and fill RES. Returns 0, or -1 with ERR set. */
int jl_trace_finish(struct jl_trace *t, struct jl_engine *eng, const char *run_dir, json_object *host,
		    struct jl_trace_result *res, char *err, size_t errlen);

/* Stop and remove the instance; safe on NULL and after finish. */
void jl_trace_destroy(struct jl_trace *t);

void jl_trace_result_free(struct jl_trace_result *res);

#endif
