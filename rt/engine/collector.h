/* collector: the run's reader while it runs, on a housekeeping CPU (one no measured thread may use).
 *
 * Every COLLECT_TICK (100 ms) it takes the samples each measured series gained since its last look and
 * puts them through the series' accumulator (results.h): what a long run looks at while it runs and
 * what survives it when the samples are not all kept:
 * - a series whose storage is a ring (a run too long to keep every sample: series.h) is drained here:
 *   its figures are this accumulator's (histogram percentiles, exact moments and worst cycles), its
 *   kept cycles (results.h) are what the series holds after the run, and with samples = all its rows
 *   are written to samples.csv as they come;
 * - the maximum latency of every interval (`[run] interval`: the OSADL farm's "max per 5 min"), with the
 *   temperature of each thermal zone and the frequency of each CPU over the same intervals, where the
 *   machine exposes them (/sys/class/thermal, cpufreq);
 * - `[run] stop_at`: the first cycle over the threshold ends the run (the window ends with it);
 * - a progress line on a terminal every few seconds; a checkpoint (CHECKPOINT hook) every few minutes.
 *
 * It never touches a measured thread: it reads what the writers published (series.h), and a ring's
 * writer never waits for it (a full ring is counted). */
#ifndef JL_COLLECTOR_H
#define JL_COLLECTOR_H

#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "engine.h"
#include "results.h"
#include "../base/output.h"

#define JL_COLLECTOR_MAX_INTERVALS JL_MAX_INTERVALS
#define JL_COLLECTOR_MAX_ZONES 32

struct jl_collector;
typedef void (*jl_collector_checkpoint_fn)(void *ctx, const struct jl_collector *w);

struct jl_collector_opts {
	bool progress;               /* print the progress line (a terminal, not --quiet) */
	bool stream_rows;            /* write the rings' rows to DIR/samples.csv while the run goes */
	bool spill;                  /* every value of the rings to a file too: exact percentiles (results.h) */
	const char *dir;
	int64_t interval_ns;         /* > 0 */
	int64_t checkpoint_ns;       /* 0: none */
	jl_collector_checkpoint_fn checkpoint;
	void *ctx;
	const cpu_set_t *cpus;       /* housekeeping CPUs; NULL: there are none (no progress line then) */
	uint64_t (*lost)(void *ctx); /* the trace's lost events so far, for the progress line (NULL: no trace) */
	/* each measured cycle as it is read (series index, sample, its figures), for the trace's flight
	 * recorder (NULL: none); called on the collector's thread */
	void (*cycle)(void *ctx, int series, const struct jl_sample *x, const struct jl_cycle_figures *f);
};

/* One interval of a series: its worst latency and where. */
struct jl_collector_interval {
	int64_t max_latency;
	uint64_t max_cycle;
	uint64_t cycles, misses;
};

/* What the machine said over one interval: each zone's highest temperature (millidegrees C), each
 * CPU's lowest, mean and highest frequency (kHz); -1 when it said nothing. */
struct jl_collector_machine {
	int nzones, ncpus;
	char zone[JL_COLLECTOR_MAX_ZONES][32];
	int zone_fd[JL_COLLECTOR_MAX_ZONES];
	int cpu[CPU_SETSIZE > 1024 ? 1024 : CPU_SETSIZE];
	int *cpu_fd;
	int64_t *temp;               /* [interval][zone] */
	int64_t *freq;               /* [interval][cpu][3]: min, sum (then mean), max */
	int64_t *nfreq;              /* [interval][cpu] */
};

struct jl_collector {
	struct jl_engine *eng;
	struct jl_collector_opts o;
	pthread_t thread;
	bool started;
	atomic_bool quit;
	int nseries;
	struct jl_series_accumulator **acc;  /* per series (NULL: not collected) */
	size_t *cursor;              /* per series: the next sample to read */
	struct jl_collector_interval *intervals; /* [series][interval] */
	int nintervals;              /* intervals of the measured phase */
	int64_t t_first;             /* the first interval's start (t_measure) */
	struct jl_collector_machine m;
	struct jl_outfile rows;      /* samples.csv while the rings are drained */
	bool rows_open;
	int rows_error;              /* errno of a failed write of samples.csv */
	/* stop_at */
	int stop_series;             /* -1: none */
	int stop_metric;             /* JL_ACC_LATENCY or JL_ACC_RESPONSE */
	int64_t stop_threshold;
	atomic_bool stop_fired;
	struct { uint64_t cycle; int64_t value, at; } stopped;
	int64_t next_progress, next_checkpoint;
	int checkpoints;
	bool progress_shown;
	char cpus[256];              /* where it ran ("" unpinned) */
};

/* Set W up for ENG after jl_engine_start (t0, t_measure, t_end are set). STOP_AT: the scenario's, or
 * NULL. 0, or -1 with ERR. */
int jl_collector_init(struct jl_collector *w, struct jl_engine *eng, const struct jl_collector_opts *o, char *err, size_t errlen);
int jl_collector_start(struct jl_collector *w, char *err, size_t errlen);
/* After the engine has stopped (every writer ended): the last samples, the rings' kept cycles into
 * their series (jl_series_adopt), samples.csv committed. 0, or -1 with errno (samples.csv). */
int jl_collector_finish(struct jl_collector *w);
void jl_collector_free(struct jl_collector *w);
static inline bool jl_collector_stop_fired(const struct jl_collector *w)
{
	return atomic_load_explicit(&w->stop_fired, memory_order_acquire);
}
/* The accumulators, indexed by series, for jl_results_compute (NULL when nothing streams). */
struct jl_series_accumulator *const *jl_collector_accs(const struct jl_collector *w);

#endif
