/* engine: expands a scenario into units, threads and series, starts every thread from one barrier with a
 * common t0, runs each unit's driver, stops and joins them.
 *
 * The shape, for every kind of program jitterlab measures:
 * - a *unit* is one scenario section that makes OS threads ([thread NAME], [executor NAME], a
 *   [source]'s thread): its placement (scenario.h: policy, priority, cpus, ...) says where its threads
 *   run, its behaviour which *driver* runs them;
 * - a *thread* is one OS thread (or exec'd child) of a unit, set up the same way whatever it does
 *   (policy, priority, affinity, memory, timer slack, barrier);
 * - a *series* (series.h) is what gets measured; a unit's driver decides how many it has and which
 *   thread writes each. Outputs iterate series, never threads.
 * A driver is a table of operations with a lifecycle (struct jl_driver): init (make the unit's series
 * and state, before any thread exists), run (one thread, after the gate), stop (wake what waits inside
 * the driver), fini (free its state), and how it ends at the normal end of a run. A new behaviour is one
 * struct jl_driver and one line in jl_drivers (and its keys: scenario_keys.c).
 *
 * Rules for every driver, now and to come:
 * - The cycle path of a measured thread (inside a driver, between two releases) never allocates, does
 *   I/O, takes locks or makes syscalls other than clock_nanosleep/clock_gettime (measured threads set a
 *   1 ns timer slack before the start gate, so the sleep ends when asked whatever the policy); the only
 *   exception is the trace marker hook, called on interesting cycles only (a miss, or a latency over the
 *   threshold). Samples go to preallocated series (jl_series_append).
 * - An executor's dispatch takes one priority-inheriting lock for its ready queue (a PI futex or a
 *   PTHREAD_PRIO_INHERIT mutex: glibc condition variables are not PI-aware and librtpi is not packaged,
 *   so never a condvar), uses preallocated messages, and waits with one timed wait on CLOCK_MONOTONIC for
 *   "the next timer or a message"; no allocation, I/O or logging there either. Its state lives in the
 *   unit's ctx (made by init, freed by fini); its stop op posts the wake-up its threads wait for. */
#ifndef JL_ENGINE_H
#define JL_ENGINE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "../scenario/scenario.h"
#include "../base/clock.h"
#include "../base/series.h"
#include "sync.h"
#include "../base/work.h"

struct jl_engine;
struct jl_child;
struct jl_thread;

struct jl_unit;

/* How a driver's threads end at the normal end of a run (an early stop, a signal or the watchdog,
 * always ends everything at once: stop.h). */
enum jl_end_mode {
	JL_END_AT_RELEASE, /* the cycle in progress runs to its end and the thread leaves at its next
			    * release (a loop: its last cycle is measured whole) */
	JL_END_NOW,        /* stop at once, the work cut short (a neighbour's load) */
};

/* A driver: what a unit's threads do after the start gate, with its lifecycle. */
struct jl_driver {
	const char *name;            /* the series' kind in summary.json: "periodic", ... */
	enum jl_end_mode end;
	/* Before any thread exists (setup: may allocate): add the unit's series (jl_unit_add_series) and
	 * make its state in u->ctx. 0, or -1 with ERR. */
	int (*init)(struct jl_unit *u, char *err, size_t errlen);
	/* One thread of the unit, after the start gate. NULL: the threads are child processes (exec). */
	void (*run)(struct jl_thread *th);
	/* The run is ending and the stop flag is up: wake any thread waiting inside the driver (an
	 * executor posts to its ready queue). Main thread. NULL: the flag is enough. */
	void (*stop)(struct jl_unit *u);
	/* After every thread of the unit has been joined: free u->ctx. NULL: nothing to free. */
	void (*fini)(struct jl_unit *u);
};

/* The drivers, by behaviour kind (drivers.c). */
extern const struct jl_driver *const jl_drivers[JL_BEH_N];
extern const struct jl_driver jl_driver_periodic;   /* engine.c: a loop releasing at absolute times */
extern const struct jl_driver jl_driver_continuous; /* engine.c: a thread that works until the end */
extern const struct jl_driver jl_driver_exec;       /* engine.c: a child process (child.c) */
extern const struct jl_driver jl_driver_executor; /* executor.c */
extern const struct jl_driver jl_driver_source;   /* executor.c: a [source]'s thread */
extern const struct jl_driver jl_driver_attach;   /* engine.c: threads already running, measured from the trace */

/* One scenario section that makes threads, with its driver's state. */
struct jl_unit {
	const struct jl_thread_spec *spec;
	const struct jl_driver *drv;
	struct jl_engine *eng;
	void *ctx;                  /* the driver's state */
	bool inited;                /* its init succeeded: fini is called */
	int first_thread, nthreads; /* into eng->threads */
	int first_series, nseries;  /* into eng->series */
};

struct jl_thread {
	const struct jl_thread_spec *spec;
	struct jl_engine *eng;
	int unit;                   /* index into eng->units */
	char name[JL_NAME_MAX];     /* NAME, or NAME.i for count > 1 */
	int copy;                   /* i of NAME.i, 0 for a single thread */
	bool measured;              /* it writes a measured series: 1 ns timer slack, placed in the shield */
	bool is_exec;               /* a child process: its unit's driver has no run */
	pid_t tid;                  /* kernel thread id (or the child's pid for exec) */
	pthread_t pthread;
	bool created, joined;
	int64_t first_release;      /* t0 or t_measure + start */
	int first_series, nseries;  /* the series it writes (into eng->series) */
	int mem_node_used;          /* NUMA node of its samples when mem_node is set, else -1 */
	uint64_t callbacks_run;     /* an executor's thread: the callbacks it ran */

	/* kept by the thread, read after join */
	struct jl_work_state work;
	cpu_set_t cpus_used;
	int64_t cpu_time_ns;
	long ctx_voluntary, ctx_involuntary;
	int64_t started_ns, ended_ns;

	/* setup failure, reported by the thread before the barrier */
	int error;
	char errmsg[256];

	struct jl_child *child;     /* exec neighbours */
	bool attached;              /* an attach section's (is_exec too, with no child): the threads it measures run
				     * already; nothing of them is started, placed or stopped */
	int32_t *seed;              /* attached: the threads its selection found running at the start (attach.c) */
	int nseed;
	int exit_status;            /* exec: wait status, -1 while running */
	bool ended_early;           /* exec: it had ended before the run stopped it */
};

typedef void (*jl_mark_fn)(void *ctx, const struct jl_series *s, uint64_t cycle, int64_t latency_ns, bool miss);

/* Hooks through which other modules join the engine without it knowing them. */
struct jl_engine_hooks {
	void *ctx;
	/* Called in the main thread once every thread exists (tid known), before the go barrier.
	 * E.g. move a measured thread into the shield. Return -1 (errno) to abort the run. */
	int (*thread_ready)(void *ctx, struct jl_thread *th);
	/* Called once after every thread_ready, before t0 is set (e.g. seal the shield). -1 (errno, and
	 * ERR filled) aborts the run. */
	int (*all_ready)(void *ctx, char *err, size_t errlen);
	/* Called on the cycle path for interesting cycles only (miss, or latency over threshold).
	 * Must be cheap: one write to a trace marker at most. Gets mark_ctx, not ctx. */
	void (*mark)(void *ctx, const struct jl_series *s, uint64_t cycle, int64_t latency_ns, bool miss);
	void *mark_ctx;             /* the ctx passed to mark (e.g. the struct jl_trace *) */
	int64_t mark_threshold_ns;  /* 0 = only misses */
};

struct jl_engine {
	const struct jl_scenario *sc;
	struct jl_engine_hooks hooks;
	/* hooks.mark as the threads read it: cleared before the trace goes away, so a thread that
	 * outlives the run (the watchdog gave up on it) can never call into freed memory */
	_Atomic(jl_mark_fn) hooks_mark;
	const struct jl_driver *const *drivers; /* by behaviour kind: jl_drivers, or a test's table */
	int nunits, nthreads, nseries;
	struct jl_unit *units;
	struct jl_thread *threads;
	struct jl_series *series;
	void *app;                  /* shared by the units of the application structure: the topics (executor.c) */
	struct jl_lock *locks;      /* the scenario's [lock]s, in its order (lock.h) */
	int nlocks;
	/* start gate (setup only, never on the cycle path) */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	int gate_arrived;
	bool gate_open, gate_init;
	int64_t t0;          /* first release of threads with start = 0 (warm-up begins) */
	int64_t t0_realtime; /* the wall clock (CLOCK_REALTIME, ns) at t0 */
	int64_t t_measure;   /* t0 + warmup: the measured phase begins */
	int64_t t_end;       /* t_measure + duration */
	_Atomic int64_t t_stopped; /* when the window ended early (<= t_end when interrupted): jl_engine_stop_window */
	bool rings;          /* the loops' samples go through rings (jl_engine_rings): the collector reads them */
	bool defer_sort;     /* a reader looks at the arrays while the run goes (the collector): reentrant
			      * callbacks' series are put in release order by jl_engine_sort_series after it */
	bool watchdog_fired;
	char log_dir[4096];  /* exec children write NAME.log here ("" = inherit stdout/stderr) */
	char stuck[256];     /* threads that did not end in time */
};

/* The engine's [lock] named NAME, or NULL */
struct jl_lock *jl_engine_lock(struct jl_engine *eng, const char *name);

/* Expand the scenario into units, threads and series (each unit's driver init), allocate and prefault
 * everything. No thread starts. */
int jl_engine_init(struct jl_engine *eng, const struct jl_scenario *sc, const struct jl_engine_hooks *hooks,
		   char *err, size_t errlen);
/* The same with DRIVERS, a table by behaviour kind, in place of jl_drivers (tests). */
int jl_engine_init_drivers(struct jl_engine *eng, const struct jl_scenario *sc, const struct jl_engine_hooks *hooks,
			   const struct jl_driver *const *drivers, char *err, size_t errlen);
/* In a driver's init: add a series to unit U, written by the unit's thread THREAD (0-based within the
 * unit, -1 = any of them), with room for CAP samples. Returns it (the driver fills in the rest), or NULL
 * with ERR. */
struct jl_series *jl_unit_add_series(struct jl_unit *u, const char *name, int thread, size_t cap, char *err,
				     size_t errlen);
/* After the run (every thread joined, every child ended): add a series found in the trace to unit UNIT
 * (a probed program's thread), written by no engine thread, with room for CAP samples. Returns it, or
 * NULL with ERR. Series pointers taken before are invalid afterwards. */
struct jl_series *jl_engine_add_found_series(struct jl_engine *eng, int unit, const char *name, size_t cap, char *err,
					     size_t errlen);
/* The run's syncs (executor.c) after the threads ended: each one's section and its model's counts. */
struct jl_sync_report {
	const struct jl_sync_spec *spec;
	struct jl_sync model;
};
int jl_executor_syncs(const struct jl_engine *eng, struct jl_sync_report *out, int max);
/* The thread's K-th series. */
struct jl_series *jl_thread_series(const struct jl_thread *th, int k);
/* The thread that writes S, or NULL. */
const struct jl_thread *jl_series_thread(const struct jl_engine *eng, const struct jl_series *s);
/* Samples a series released every PERIOD_NS needs for the whole run (warm-up included). */
size_t jl_engine_loop_capacity(const struct jl_scenario *sc, int64_t period_ns);
/* The memory the loops' ([thread] with a period) samples take when every cycle is kept, in bytes. */
double jl_engine_loop_bytes(const struct jl_scenario *sc);
/* Do the loops of SC keep a ring each? Every loop does, whatever the duration: the run's memory is flat
 * in it, the ring's size per loop (the collector reads the rings; results.h). */
bool jl_engine_rings(const struct jl_scenario *sc);
/* Is SC a long run: would its loops' cycles take more than [run] samples_memory if kept? Then samples =
 * auto keeps the worst rows only and trace_keep = auto the worst cycles' pages (disk, not memory). */
bool jl_engine_long(const struct jl_scenario *sc);
/* Does SC's memory projection matter enough to be stated before and when it measures: a long run, one
 * near its budget (the loops' cycles would take half of [run] samples_memory), or one of 10 minutes or
 * more. A short run's is in summary.json (memory) alone. */
bool jl_engine_memory_matters(const struct jl_scenario *sc);
size_t jl_engine_ring_capacity(int64_t period_ns);
/* The rings' figures are exact when every value they see is written to a file as well (results.h's
 * spill): [run] percentiles = exact, or auto and the file fits (in /tmp on a disk, at most
 * JL_SPILL_MAX_BYTES and a quarter of its free space; in a /tmp in memory, tmpfs, at most [run]
 * samples_memory). *BYTES: what the values of the run's loops take (3 of 8 bytes per cycle). */
#define JL_SPILL_MAX_BYTES (1ULL << 30)
bool jl_engine_spill_fits(const struct jl_scenario *sc, double *bytes);
/* Set (FN) or clear (NULL) the marker hook; clear it before its CTX goes away. */
void jl_engine_set_mark(struct jl_engine *eng, jl_mark_fn fn, void *ctx, int64_t threshold_ns);
/* Create every thread and child, wait until all are ready, call hooks.thread_ready, set t0 and go.
 * On failure everything already started is stopped and joined. */
int jl_engine_start(struct jl_engine *eng, char *err, size_t errlen);
/* Raise the stop flag, end children (SIGINT, grace, SIGKILL), join threads; the watchdog demotes
 * threads that do not end by DEADLINE (absolute ns) and gives up on them after a second grace. */
int jl_engine_stop(struct jl_engine *eng, int64_t deadline_ns);
void jl_engine_free(struct jl_engine *eng);

/* The measured window ends at T at the latest (a signal, a stop_at crossing, the engine's stop): the
 * earliest of them wins, whichever thread sets it (lock-free, lowers only). */
void jl_engine_stop_window(struct jl_engine *eng, int64_t t);
/* The end of the measured window: t_end, or the early stop before it. */
static inline int64_t jl_engine_window_end(const struct jl_engine *eng)
{
	int64_t st = atomic_load(&((struct jl_engine *)eng)->t_stopped);

	return st && st < eng->t_end ? st : eng->t_end;
}
/* Put the series that reentrant callbacks wrote out of order in release order (after every reader of the
 * run's arrays has finished: defer_sort; otherwise the executor does it when its threads end). */
void jl_engine_sort_series(struct jl_engine *eng);
/* What samples.csv holds for SC: [run] samples, auto resolved (all when every sample is kept). */
enum jl_samples_mode jl_engine_samples_mode(const struct jl_scenario *sc);
/* Sleep until T (CLOCK_MONOTONIC, absolute), in slices that notice an early stop; false when stopping. */
bool jl_sleep_until(int64_t t);

#endif
