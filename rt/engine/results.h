/* results: the figures of each measured series of a run (series.h), computed from its samples after
 * the threads have ended (never during the measured phase). Only cycles released in the measured phase
 * count. One result per series, in the engine's series order: what summary.json's `threads`,
 * samples.csv and [expect] list (a [thread] is one series, named like the thread). */
#ifndef JL_RESULTS_H
#define JL_RESULTS_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "../base/stats.h"
#include "../base/stream.h"

/* What a run keeps of a series' cycles when it does not keep them all (samples = worst, or a ring):
 * its JL_WORST_K worst cycles by latency (summary.json `worst`), its first JL_KEEP_MISSES misses, and
 * its last JL_KEEP_TAIL cycles; each with the period before it (wake - the previous cycle's wake). */
#define JL_WORST_K 10
#define JL_KEEP_MISSES 1000
#define JL_KEEP_TAIL 1024

/* A series' latency by cyclictest's rule (series.h: whole us, 1 us buckets): histogram.txt */
#define JL_CYCLICTEST_OVERFLOW_CYCLES 1024
struct jl_us_hist {
	uint64_t count[JL_CYCLICTEST_HIST_US];
	uint64_t cycles, overflows;
	int64_t min, max, sum;                  /* of the us values */
	uint64_t over_cycle[JL_CYCLICTEST_OVERFLOW_CYCLES]; /* the cycles of the first overflows */
};

/* One cycle's latency US (jl_cyclictest_latency_us) into H: the one place cyclictest's histogram rule is applied
 * to jitterlab's cycles (histogram.txt, and `jitterlab cyclictest`'s jitterlab column). */
void jl_us_hist_add(struct jl_us_hist *h, int64_t us, uint64_t cycle);

struct jl_kept {
	struct jl_sample s;
	int64_t period;     /* 0 for the first cycle of the window */
};

/* The figures of one series, cycle by cycle: one accumulator, fed the series' samples in order either
 * after the run (from the array that kept them all: results below) or while it runs (by the collector, from
 * a ring). It counts what results.h reports (cycles, misses, skipped and not-started releases, work,
 * CPUs), streams each metric (stream.h: exact moments and top K, percentiles from a histogram when
 * HIST), optionally keeps the values (for exact percentiles) and the cycles above (KEEP). */
struct jl_series_accumulator {
	const struct jl_series *ser;
	int64_t ws, we;                 /* the window: cycles released in [ws, we) count */
	int64_t base, prev_rel;         /* release accounting: the grid's base, the last release seen */
	uint64_t skipped;
	uint64_t cycles, misses, aged, seen;
	int64_t prev_wake;              /* the last counted cycle's wake (0: none yet) */
	int64_t work_sum, work_max;
	cpu_set_t used;
	struct jl_stream latency, period, response, age, e2e;
	int64_t *vals[5];               /* optional: every value, per metric (latency..e2e), for exact figures */
	/* optional: every value on disk instead (a ring's accumulator: exact percentiles in flat memory);
	 * NULL where the metric is not kept, or when a write failed (the histograms then say) */
	struct jl_spill *spill[5];
	/* keep: the cycles kept (see above) */
	bool keep;
	struct jl_kept top[JL_WORST_K];
	struct jl_kept *missed;         /* JL_KEEP_MISSES */
	size_t nmissed;
	struct jl_kept *tail;           /* a ring of JL_KEEP_TAIL */
	uint64_t ntail;
	struct jl_us_hist *us;          /* cyclictest's histogram of the latency (histogram.txt) */
};

enum { JL_ACC_LATENCY, JL_ACC_PERIOD, JL_ACC_RESPONSE, JL_ACC_AGE, JL_ACC_E2E };

/* Set A up for S of ENG (after the engine started: t0 and t_end are set). HIST: percentiles from
 * histograms; KEEP: keep the cycles above; SPILL (with HIST): every value to a file too, for exact
 * percentiles (the histograms stay, for the checkpoints and in case a write fails). 0, or -1 with errno. */
int jl_series_accumulator_init(struct jl_series_accumulator *a, const struct jl_engine *eng, const struct jl_series *s, bool hist,
		       bool keep, bool spill);
void jl_series_accumulator_free(struct jl_series_accumulator *a);
/* A measured cycle's figures, as the accumulator counted them (period: 0 for the window's first) */
struct jl_cycle_figures {
	int64_t latency, response, period;
	bool miss;
};

/* One sample, in append order (a warm-up one too: it counts for the releases). The window's end may only
 * move earlier (an early stop) before the samples it cuts off are added. Returns true when the sample
 * counted as a measured cycle, its figures then in FIG (may be NULL). */
bool jl_series_accumulator_add(struct jl_series_accumulator *a, const struct jl_sample *x, struct jl_cycle_figures *fig);
/* The kept cycles, in release order, without repeats, into OUT (at most jl_series_accumulator_kept_max()). */
size_t jl_series_accumulator_kept_max(void);
size_t jl_series_accumulator_kept(const struct jl_series_accumulator *a, struct jl_kept *out);
/* What one accumulator takes beside its series (histograms, spill buffers, kept cycles), in bytes */
size_t jl_series_accumulator_bytes(void);
/* What ENG's series take now: their rings or arrays, and a ring's accumulator (the collector's), in bytes */
size_t jl_results_series_bytes(const struct jl_engine *eng);

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
	bool exact;              /* percentiles exact (every cycle kept), else from histograms (stream.h) */
	struct jl_topk_entry worst[JL_WORST_K]; /* the worst cycles by latency, largest first */
	int nworst;
	const struct jl_kept *kept; /* samples = worst, or a partial series: the rows of samples.csv */
	size_t nkept;
	struct jl_us_hist *us;   /* the latency by cyclictest's rule (a copy: the result owns it) */
	uint64_t work_calls;
	double work_mean_ns;
	int64_t work_max_ns;
	int64_t cpu_time_ns;
	long ctx_voluntary, ctx_involuntary;
};

/* Compute one result per series into RES (eng->nseries entries). A partial series' figures come from
 * ACCS[i] (its collector's accumulator; NACCS of them, the series the collector knew; NULL when none), and so do
 * its kept cycles; KEEP_ONLY:
 * samples = worst (the rows are the kept cycles of every series). 0 or -1 with errno. */
int jl_results_compute(const struct jl_engine *eng, struct jl_series_result *res, struct jl_series_accumulator *const *accs,
		       int naccs, bool keep_only);
void jl_results_free(struct jl_series_result *res, int n);
/* The result of a series so far, from its collector's accumulator A, the window cut at UPTO (a checkpoint
 * while the run goes: histogram figures). Free with jl_results_free. 0, or -1 with errno. */
int jl_results_snapshot(const struct jl_engine *eng, const struct jl_series_accumulator *a, int64_t upto,
			struct jl_series_result *r);

/* samples.csv: its header, and one row (the one formatter: the collector streams rows with it too). */
#define JL_SAMPLES_HEADER "thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped,release_by\n"
void jl_results_sample_row(FILE *fp, const char *name, const struct jl_series *ser, const struct jl_sample *s,
			   int64_t period);
/* Write RUN_DIR/samples.csv from the N results: every measured cycle, or a result's kept cycles when it
 * has them. 0, or -1 with errno. */
int jl_results_write_samples(const char *dir, const struct jl_series_result *res, int n);
/* Write RUN_DIR/histogram.txt: the measured loops' latency histograms in cyclictest's --histfile format
 * (1 us rows, one tab-separated column per loop, then # Total, # Min/Avg/Max Latencies, # Histogram
 * Overflows and the overflows' cycle numbers), so the tools people run on cyclictest's read it. Rows up
 * to the largest latency seen (at least 100, at most JL_CYCLICTEST_HIST_US), or BOUND_US of them ([run]
 * histogram, cyclictest -h US; 0: auto), the latencies beyond counted as overflows. 0, or -1 with errno. */
int jl_results_write_histfile(const char *dir, const struct jl_series_result *res, int n, int64_t bound_us);
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
