/* engine: the thread engine. Expands a scenario's [thread] sections into running threads (built-in
 * threads and exec'd neighbours), starts them from one barrier with a common t0, runs each thread's
 * driver (periodic or back-to-back), and collects per-cycle samples into preallocated memory.
 *
 * Shape: a thread is set up the same way whatever it does (policy, priority, affinity, memory, signal
 * mask, barrier); what it does after the barrier is its driver. Today's drivers are `periodic` (a
 * control loop: absolute-time releases) and `continuous` (a neighbour: work back to back). Today one
 * [thread] is one OS thread and one measured series, and results, summary, expect, sweeps, samples.csv
 * and the trace analysis assume it: an executor (callbacks on a pool of threads) needs the split of
 * issue 11 (placement apart from behaviour, a measured series apart from the OS thread, driver ops with a
 * lifecycle), not just one more line in jl_drivers.
 *
 * Rules for every driver, now and to come:
 * - The cycle path of a measured thread (inside a driver, between two releases) never allocates, does
 *   I/O, takes locks or makes syscalls other than clock_nanosleep/clock_gettime (measured threads set a
 *   1 ns timer slack before the start gate, so the sleep ends when asked whatever the policy); the only
 *   exception is the trace marker hook, called on interesting cycles only (a miss, or a latency over the
 *   threshold).
 * - An executor's dispatch will take one priority-inheriting lock for its ready queue (a PI futex or a
 *   PTHREAD_PRIO_INHERIT mutex: glibc condition variables are not PI-aware and librtpi is not packaged,
 *   so never a condvar), use preallocated messages, and wait with one timed wait on CLOCK_MONOTONIC for
 *   "the next timer or a message"; no allocation, I/O or logging there either. */
#ifndef JL_ENGINE_H
#define JL_ENGINE_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

#include "scenario.h"
#include "work.h"

/* One measured cycle. Times are CLOCK_MONOTONIC ns. */
struct jl_sample {
	int64_t release;   /* when the cycle was due */
	int64_t wake;      /* when the thread woke up */
	int64_t end;       /* when its work ended */
	uint64_t cycle;    /* release index since the thread's first release (warm-up included) */
	uint32_t skipped;  /* releases dropped just before this cycle */
	int32_t cpu;       /* CPU the cycle ran on (at its end) */
};

/* The formulas every output uses (samples.csv contract), written once: latency = wake - release,
 * response = end - release, a miss = work ending after release + deadline. */
static inline int64_t jl_latency_ns(int64_t release, int64_t wake)
{
	return wake - release;
}

static inline int64_t jl_response_ns(int64_t release, int64_t end)
{
	return end - release;
}

static inline bool jl_missed(int64_t release, int64_t end, int64_t deadline)
{
	return end > release + deadline;
}

struct jl_engine;
struct jl_child;
struct jl_thread;

enum jl_driver_id { JL_DRIVER_PERIODIC, JL_DRIVER_CONTINUOUS, JL_DRIVER_EXEC, JL_DRIVER_N };

struct jl_driver {
	const char *name;
	void (*run)(struct jl_thread *th); /* NULL for exec: the child runs itself */
};

extern const struct jl_driver jl_drivers[JL_DRIVER_N];

struct jl_thread {
	const struct jl_thread_spec *spec;
	struct jl_engine *eng;
	char name[JL_NAME_MAX];     /* NAME, or NAME.i for count > 1 */
	int copy;                   /* i of NAME.i, 0 for a single thread */
	bool measured;
	enum jl_driver_id driver;
	bool is_exec;               /* driver == JL_DRIVER_EXEC */
	pid_t tid;                  /* kernel thread id (or the child's pid for exec) */
	pthread_t pthread;
	bool created, joined;
	int64_t first_release;      /* t0 or t_measure + start */

	/* samples: preallocated, written only by the thread itself */
	struct jl_sample *samples;
	size_t cap;
	atomic_size_t nsamples;
	uint64_t dropped_samples;   /* cycles beyond cap (should never happen) */
	int mem_node_used;          /* NUMA node of the sample buffer when mem_node is set, else -1 */

	/* counters kept by the thread, read after join */
	struct jl_work_state work;
	uint64_t work_calls;
	int64_t work_sum_ns, work_max_ns;
	int64_t next_release;       /* periodic: the first release the loop did not run (see drive_periodic) */
	cpu_set_t cpus_used;
	int64_t cpu_time_ns;
	long ctx_voluntary, ctx_involuntary;
	int64_t started_ns, ended_ns;

	/* setup failure, reported by the thread before the barrier */
	int error;
	char errmsg[256];

	struct jl_child *child;     /* exec neighbours */
	int exit_status;            /* exec: wait status, -1 while running */
	bool ended_early;           /* exec: it had ended before the run stopped it */
};

typedef void (*jl_mark_fn)(void *ctx, const struct jl_thread *th, uint64_t cycle, int64_t latency_ns, bool miss);

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
	void (*mark)(void *ctx, const struct jl_thread *th, uint64_t cycle, int64_t latency_ns, bool miss);
	void *mark_ctx;             /* the ctx passed to mark (e.g. the struct jl_trace *) */
	int64_t mark_threshold_ns;  /* 0 = only misses */
};

struct jl_engine {
	const struct jl_scenario *sc;
	struct jl_engine_hooks hooks;
	/* hooks.mark as the threads read it: cleared before the trace goes away, so a thread that
	 * outlives the run (the watchdog gave up on it) can never call into freed memory */
	_Atomic(jl_mark_fn) hooks_mark;
	int nthreads;
	struct jl_thread *threads;
	/* start gate (setup only, never on the cycle path) */
	pthread_mutex_t gate_mu;
	pthread_cond_t gate_cv;
	int gate_arrived;
	bool gate_open, gate_init;
	int64_t t0;          /* first release of threads with start = 0 (warm-up begins) */
	int64_t t_measure;   /* t0 + warmup: the measured phase begins */
	int64_t t_end;       /* t_measure + duration */
	int64_t t_stopped;   /* when the stop was requested (<= t_end when interrupted) */
	bool watchdog_fired;
	char log_dir[4096];  /* exec children write NAME.log here ("" = inherit stdout/stderr) */
	char stuck[256];     /* threads that did not end in time */
};

/* Expand the scenario into threads, allocate and prefault everything. No thread starts. */
int jl_engine_init(struct jl_engine *eng, const struct jl_scenario *sc, const struct jl_engine_hooks *hooks,
		   char *err, size_t errlen);
/* Set (FN) or clear (NULL) the marker hook; clear it before its CTX goes away. */
void jl_engine_set_mark(struct jl_engine *eng, jl_mark_fn fn, void *ctx, int64_t threshold_ns);
/* Create every thread and child, wait until all are ready, call hooks.thread_ready, set t0 and go.
 * On failure everything already started is stopped and joined. */
int jl_engine_start(struct jl_engine *eng, char *err, size_t errlen);
/* Raise the stop flag, end children (SIGINT, grace, SIGKILL), join threads; the watchdog demotes
 * threads that do not end by DEADLINE (absolute ns) and gives up on them after a second grace. */
int jl_engine_stop(struct jl_engine *eng, int64_t deadline_ns);
void jl_engine_free(struct jl_engine *eng);

/* Index of the first measured sample (release >= t_measure). */
size_t jl_thread_first_measured(const struct jl_thread *th);

int64_t jl_now_ns(void);

#endif
