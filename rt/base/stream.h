/* stream: the figures of one metric in constant memory, for runs too long to keep every sample.
 *
 * - min, max (and the cycle of the first max), mean and standard deviation: exact (Welford's method,
 *   the one jl_dist_compute uses: stats.h);
 * - the K largest values with their cycle numbers: exact (a min-heap of K entries);
 * - percentiles: nearest-rank over a log-linear histogram. Values below 2^JL_HIST_SUB_BITS ns have a
 *   bucket each; above, each power of two is cut into 2^JL_HIST_SUB_BITS buckets of equal width, so a
 *   bucket is never wider than 2^-JL_HIST_SUB_BITS of its lower bound. A percentile is reported as the
 *   highest value of the bucket that holds its rank (clamped to the exact min and max): it is never
 *   below the exact nearest-rank value and at most JL_HIST_REL_ERROR of it above (0.098%). Values up to
 *   2^JL_HIST_MAX_BITS ns (18 min) are binned; larger ones (and negative ones) go to the last (first)
 *   bucket and are counted as such.
 *
 * Adding a value is O(log K): no allocation, no syscall (the histogram is allocated once). */
#ifndef JL_STREAM_H
#define JL_STREAM_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define JL_HIST_SUB_BITS 10
#define JL_HIST_MAX_BITS 40
#define JL_HIST_REL_ERROR (1.0 / (double)(1 << JL_HIST_SUB_BITS))
#define JL_TOPK_MAX 32

struct jl_hist {
	uint64_t *counts;     /* jl_hist_buckets() entries */
	uint64_t n;
	uint64_t under, over; /* values below 0, and at or above 2^JL_HIST_MAX_BITS */
};

size_t jl_hist_buckets(void);
/* The bucket of V, and the lowest and highest value a bucket holds. */
size_t jl_hist_bucket(int64_t v);
int64_t jl_hist_bucket_low(size_t b);
int64_t jl_hist_bucket_high(size_t b);
int jl_hist_alloc(struct jl_hist *h);
void jl_hist_free(struct jl_hist *h);
void jl_hist_reset(struct jl_hist *h);
static inline void jl_hist_add(struct jl_hist *h, int64_t v)
{
	if (!h->counts)
		return;
	h->counts[jl_hist_bucket(v)]++;
	h->n++;
	h->under += v < 0;
	h->over += v >= ((int64_t)1 << JL_HIST_MAX_BITS);
}
/* Nearest-rank percentile Q of what H holds, as the highest value of its bucket (see above). */
int64_t jl_hist_percentile(const struct jl_hist *h, double q);

struct jl_topk_entry {
	int64_t value;
	uint64_t cycle;
	int slot;
};

/* The K largest values seen (ties: the earlier cycle is kept). Each entry has a slot in 0..K-1 that
 * stays its own while it is kept: a caller keeps what goes with an entry (the whole sample) in an array
 * of K indexed by the slot jl_topk_add returns. */
struct jl_topk {
	int k, n;
	struct jl_topk_entry e[JL_TOPK_MAX]; /* a min-heap on value while adding */
};

void jl_topk_init(struct jl_topk *t, int k);
/* Returns the slot V now holds, or -1 when it is not among the K largest. */
int jl_topk_add(struct jl_topk *t, int64_t v, uint64_t cycle);
/* The entries, largest first (ties: smaller cycle first), into OUT (t->n entries); returns t->n. */
int jl_topk_sorted(const struct jl_topk *t, struct jl_topk_entry *out);

/* One metric: everything above. */
struct jl_stream {
	int64_t min, max;
	uint64_t max_cycle;  /* cycle of the first maximum */
	struct jl_moments m;
	struct jl_hist hist;
	struct jl_topk top;
};

/* K: the top K kept; HIST: with a histogram (else percentiles are left to the caller: a run that keeps
 * every value computes them exactly). 0, or -1 with errno. */
int jl_stream_init(struct jl_stream *s, int k, bool hist);
void jl_stream_free(struct jl_stream *s);
/* Returns the slot of V among the top K (jl_topk_add), or -1. */
int jl_stream_add(struct jl_stream *s, int64_t v, uint64_t cycle);
/* D from the stream: min, max, mean, stddev exact; percentiles from the histogram (max_index unset). */
void jl_stream_dist(const struct jl_stream *s, struct jl_dist *d);

#endif
