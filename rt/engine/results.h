/* results: the figures of each measured series of a run (series.h), computed from its samples after
 * the threads have ended (never during the measured phase). Only cycles released in the measured phase
 * count. One result per series, in the engine's series order: what summary.json's `threads`,
 * samples.csv and [expect] list (a [thread] is one series, named like the thread). */
#ifndef JL_RESULTS_H
#define JL_RESULTS_H

#include <stdbool.h>
#include <stdint.h>

#include "engine.h"
#include "../base/stats.h"

struct jl_series_result {
	const struct jl_series *s;
	const struct jl_thread *th; /* the OS thread that writes it (tid, rusage), or NULL */
	const struct jl_thread_spec *spec; /* its unit's section */
	char name[JL_NAME_MAX];
	char cpus[256];          /* as configured ("all" if unpinned) */
	char cpus_used[256];     /* where it actually ran */
	bool measured, periodic;
	int64_t period_ns;
	uint64_t cycles;         /* measured cycles (= rows in samples.csv) */
	uint64_t releases;       /* releases due in the measured window: cycles + skipped + not_started */
	uint64_t not_started;    /* releases of the window never started: a catchup backlog cut off at the end */
	int64_t window_start_ns, window_end_ns; /* the measured window [start, end), CLOCK_MONOTONIC */
	size_t first;            /* index of the first measured sample */
	double rate_hz, nominal_hz;
	double window_s;         /* measured time the rate is over: rate_hz = cycles / window_s */
	uint64_t misses, skipped;
	struct jl_dist latency, period, response;
	struct jl_dist age;      /* has_origin: the age of the consumed data at start (start - origin) */
	uint64_t aged;           /* cycles that had data (origin known) */
	struct jl_dist e2e;      /* origin -> end, over the same cycles: the data's age when the callback ended */
	uint64_t latency_max_cycle;
	uint64_t work_calls;
	double work_mean_ns;
	int64_t work_max_ns;
	int64_t cpu_time_ns;
	long ctx_voluntary, ctx_involuntary;
};

/* Compute one result per series into RES (eng->nseries entries). 0 or -1 with errno. */
int jl_results_compute(const struct jl_engine *eng, struct jl_series_result *res);

/* Write RUN_DIR/samples.csv from the N results. 0, or -1 with errno. */
int jl_results_write_samples(const char *dir, const struct jl_series_result *res, int n);
/* Write RUN_DIR/callbacks.csv (when the run has executors): one row per measured callback run, integers in
 * ns, with the executor thread that ran it (its index in the pool) and the origin of the data it consumed
 * (0: none, or a poll's re-read). 0, or -1 with errno. */
int jl_results_write_callbacks(const char *dir, const struct jl_engine *eng, const struct jl_series_result *res, int n);
/* Write RUN_DIR/locks.csv (when the run has [lock]s): one row per acquisition kept (the warm-up's too),
 * integers in ns: the lock, the thread that took it, when it asked, took and gave it back. 0, or -1. */
int jl_results_write_locks(const char *dir, const struct jl_engine *eng);
/* Write RUN_DIR/requests.csv (when the run has [source]s): one row per request (a source's, or a call a
 * handler made: its parent), its queue, status and times in ns, and the work done for it after its
 * requester had given up. 0, or -1 with errno. */
int jl_results_write_requests(const char *dir, const struct jl_engine *eng);

#endif
