/* series: a measured series, the thing every output iterates. Results, summary.json, [expect], sweeps,
 * plots, samples.csv and the trace analysis see series, not OS threads: a `[thread]` is the case of one
 * series written by one thread (its series has the thread's name), an executor will be many series
 * (one per callback) written by a pool of threads, a probe one series per probed point.
 *
 * A series owns its samples and the counters of its work. The OS thread that writes it (tid, CPUs,
 * rusage) is the engine's (engine.h); a sample names its tid, so that the trace analysis can pair each
 * sample with the wakeups of the thread that ran it, whichever thread of a pool that was.
 *
 * Storage sits behind jl_series_append() and jl_series_at(): preallocated, prefaulted, written by one
 * thread at a time (the one running the series' work: a loop's own thread, or the executor thread that
 * holds the callback). It is one of:
 * - an array of capacity `cap` that keeps every sample of the run (read after the writers have ended,
 *   or while they run up to jl_series_count(): a sample is complete before the count says it is there);
 * - a ring of `cap` (a power of two) for runs too long to keep every sample: the one reader (the run's
 *   collector, rt/engine/collector.h) takes samples as they come and says how far it has read
 *   (jl_series_consumed); a full ring drops the sample and counts it, never blocks. After the run the
 *   reader gives the series the samples it kept (jl_series_adopt): from then on it is an array of those,
 *   `partial` set, and `appended` says how many there were in all. */
#ifndef JL_SERIES_H
#define JL_SERIES_H

#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_SERIES_NAME_MAX 64

/* One measured cycle (a loop's cycle; later one callback run). Times are CLOCK_MONOTONIC ns. */
struct jl_sample {
	int64_t release;   /* ready: when the cycle was due (a loop's release; a callback's ready time) */
	int64_t wake;      /* start: when it began to run (a loop: when its thread woke up) */
	int64_t end;       /* when its work ended */
	int64_t origin;    /* when the data it consumed was produced (a loop: its own release) */
	uint64_t cycle;    /* release index since the series' first release (warm-up included) */
	uint32_t skipped;  /* releases dropped just before this cycle */
	int32_t cpu;       /* CPU the cycle ran on (at its end) */
	int32_t tid;       /* the OS thread that ran it */
	/* a callback's provenance (chains): which run published the message it consumed */
	uint32_t run;      /* its own run number: its index among the series' appends, from 0 */
	uint32_t src_run;  /* the run (of series src - 1) that published the message it consumed */
	uint16_t src;      /* that publisher's series id + 1; 0: none (a timer, a loop: its origin is its own) */
	uint8_t via_sync;  /* the message came out of sync via_sync - 1 (0: straight from its publisher) */
	uint8_t reread;    /* a poll read a message it had read before: its origin is no new age */
	uint8_t release_by; /* where release came from: enum jl_release_by */
};

/* How a sample's release was found: the series' own (a loop's grid, a callback's ready time, a probe's named
 * release); a trace-only series' (measure = wakeups): the requested expiry of the timer the thread slept on,
 * or its waking (trace/analysis/release.c). samples.csv's release_by column names it. */
enum jl_release_by { JL_RELEASE_OWN, JL_RELEASE_TIMER, JL_RELEASE_WAKING };

static inline const char *jl_release_by_name(uint8_t by)
{
	return by == JL_RELEASE_TIMER ? "timer" : by == JL_RELEASE_WAKING ? "waking" : "own";
}

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

/* cyclictest's rule (rt-tests), for its histogram and histogram.txt: a cycle's latency in whole us as
 * calcdiff(now, next) computes it: the seconds' difference in us plus the nanoseconds' difference
 * divided by 1000 in C, truncated toward zero (the floor of wake - expiry in us, rounded up instead when
 * the wake falls in the next second: a share of about latency / 1 s of the cycles); 1 us buckets, values
 * at or beyond JL_CYCLICTEST_HIST_US us are overflows. */
#define JL_CYCLICTEST_HIST_US 20000

static inline int64_t jl_cyclictest_latency_us(int64_t release_ns, int64_t wake_ns)
{
	int64_t ds = wake_ns / 1000000000LL - release_ns / 1000000000LL;
	int64_t dn = wake_ns % 1000000000LL - release_ns % 1000000000LL;

	return ds * 1000000 + dn / 1000;
}

struct jl_series {
	char name[JL_SERIES_NAME_MAX];
	const char *kind;           /* the driver's name: "periodic", "continuous", "exec", ... */
	int id;                     /* its index among the run's series (the trace marker names it by this) */
	int thread;                 /* index of the engine thread that writes it; -1 = none (or any) */
	int32_t tid;                /* the OS thread that wrote it when it is none of the engine's (a probed
				     * program's thread); 0 otherwise */
	int unit;                   /* index of the unit (scenario section) it belongs to */
	int group;                  /* a callback: its mutually exclusive group in its executor (-1: reentrant) */
	bool measured;              /* its samples are the measured figures (samples.csv, latency, ...) */
	bool periodic;              /* released on a grid: first_release + k * period_ns */
	bool trace_only;            /* measure = wakeups: its samples are a thread's wakeups, from the trace */
	bool any_thread;            /* a probed server's request series (a SERIES name): any of its unit's threads
				     * serves one, each sample's tid says which (the trace explains it as a pool's) */
	/* a request series: the work its requests did after their client had given up (wasted), and of those
	 * that were a client's (a series with a deadline), how many it gave up on (probe_series.c) */
	int64_t wasted_ns;
	uint64_t given_up;
	/* a trace-only series (measure = wakeups): how its cycles' releases were found (wakeups.c) */
	struct {
		uint64_t timer;         /* the requested expiry of the timer it slept on */
		uint64_t waking;        /* its sched_waking: woken by no timer of its own, or one the trace lacks */
		uint64_t unarmed;       /* of waking: its own timer, whose arming the trace does not hold */
		uint64_t clock;         /* of waking: its timer runs on a clock not placed on the trace's */
		uint64_t relative;      /* of timer: armed relative (nanosleep, time.sleep): each cycle measured
					 * against what its sleep asked for, not against a period grid */
		uint64_t caught;        /* woken by its timer while it still ran (the release was due before it
					 * slept): the cycle's switch-in is the waking */
		bool timer_recorded;    /* the timer group was recorded (else every cycle is from its waking) */
	} release;
	/* a thread jitterlab did not place (an attach section's): its policy as found (enum jl_policy, -1: the
	 * unit's own), priority and nice */
	int seen_policy, seen_priority, seen_nice;
	int64_t period_ns;          /* 0 = not periodic */
	int64_t deadline_ns;        /* what a cycle is judged by (jl_missed) */
	int64_t start_ns;           /* its start after the warm-up (0 = with everything at t0) */
	/* set by the engine at start, by the driver at its end */
	int64_t first_release;      /* the grid's base (t0, or t_measure + start_ns) */
	int64_t next_release;       /* periodic: the first release its loop did not run */

	/* storage (see above): never touch these directly, use the functions below */
	struct jl_sample *samples;
	size_t cap;
	atomic_size_t n;            /* samples appended (a ring: in all, the index of the next one) */
	atomic_size_t consumed;     /* a ring: samples its reader is done with */
	bool ring;                  /* a ring (else an array) */
	bool partial;               /* an array of the samples a ring's reader kept (jl_series_adopt) */
	bool adopted_heap;          /* the array is malloc()'s (adopted), not mmap()'s */
	uint64_t appended;          /* partial: the samples appended in all, kept or not */
	uint64_t dropped;           /* appends beyond cap, or into a full ring (reported, never silent) */

	/* counters of its work, kept by the writer */
	uint64_t work_calls;
	int64_t work_sum_ns, work_max_ns;

	/* a callback that consumes a topic's messages: its samples' origin is the data's, and its history's
	 * counts (kept by the writer) */
	bool has_origin;
	struct {
		bool subscriber;        /* it consumes a topic (the counts below are its history's) */
		bool poll;              /* it reads the newest message on its own period (else: once per message) */
		bool queue;             /* it serves a [queue]: its messages are requests (summary.json sources) */
		uint64_t published;     /* messages published to its history */
		uint64_t consumed;      /* taken (a trigger), or read for the first time (a poll) */
		uint64_t dropped;       /* a full keep-last history dropped its oldest */
		uint64_t rereads;       /* a poll read a message it had read before */
		uint64_t never;         /* gone (overwritten, dropped) before it was consumed */
		uint64_t limit_errors;  /* keep = all: the history's resource limit was full */
	} msgs;
};

/* Preallocate and prefault CAP samples (0: a series of counters only). 0, or -1 with errno. */
int jl_series_alloc(struct jl_series *s, size_t cap);
void jl_series_free(struct jl_series *s);

/* A ring of CAP samples (rounded up to a power of two), preallocated and prefaulted. 0, or -1 (errno). */
int jl_series_alloc_ring(struct jl_series *s, size_t cap);

/* On the cycle path: store X (no allocation, no syscall, no lock; one writer at a time). */
static inline void jl_series_append(struct jl_series *s, const struct jl_sample *x)
{
	size_t n = atomic_load_explicit(&s->n, memory_order_relaxed);

	if (s->ring ? n - atomic_load_explicit(&s->consumed, memory_order_acquire) < s->cap : n < s->cap) {
		s->samples[s->ring ? n & (s->cap - 1) : n] = *x;
		atomic_store_explicit(&s->n, n + 1, memory_order_release);
	} else {
		s->dropped++;
	}
}

/* On the cycle path: one call of the work took NS. */
static inline void jl_series_count_work(struct jl_series *s, int64_t ns)
{
	s->work_calls++;
	s->work_sum_ns += ns;
	if (ns > s->work_max_ns)
		s->work_max_ns = ns;
}

/* Readers: the samples [0, count) of an array; of a ring, [consumed, count) are there to read. */
static inline size_t jl_series_count(const struct jl_series *s)
{
	return s->samples ? atomic_load_explicit(&s->n, memory_order_acquire) : 0;
}

static inline const struct jl_sample *jl_series_at(const struct jl_series *s, size_t i)
{
	return &s->samples[s->ring ? i & (s->cap - 1) : i];
}

/* A ring's reader: the samples before UPTO are read, their slots free again. */
static inline void jl_series_consumed(struct jl_series *s, size_t upto)
{
	atomic_store_explicit(&s->consumed, upto, memory_order_release);
}

/* After the writers have ended: the ring gives way to the N samples in KEPT (malloc()'d, in release
 * order; the series owns them now): partial set, appended = what the ring took in all. */
void jl_series_adopt(struct jl_series *s, struct jl_sample *kept, size_t n);

/* After the writers have ended: the samples in release order (writers that end runs out of order: a
 * reentrant callback on several threads). */
void jl_series_sort_by_release(struct jl_series *s);
/* The memory the samples live in (for a NUMA binding): its address and length. */
void *jl_series_memory(const struct jl_series *s, size_t *len);

#endif
