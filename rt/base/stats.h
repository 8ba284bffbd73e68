/* stats: exact order statistics and moments of one metric over the measured cycles.
 * Percentiles are exact nearest-rank values (no interpolation, no histogram bins): pQ is the smallest
 * sample with at least Q% of the samples at or below it. Mean and standard deviation use Welford's
 * method; stddev is the sample standard deviation (n - 1), 0 for fewer than two samples. */
#ifndef JL_STATS_H
#define JL_STATS_H

#include <stddef.h>
#include <stdint.h>

/* Welford's running mean and variance: the one implementation (jl_dist_compute and stream.h use it). */
struct jl_moments {
	uint64_t n;
	double mean, m2;
};

static inline void jl_moments_add(struct jl_moments *m, double x)
{
	double delta = x - m->mean;

	m->n++;
	m->mean += delta / (double)m->n;
	m->m2 += delta * (x - m->mean);
}

double jl_moments_stddev(const struct jl_moments *m); /* the sample standard deviation (n - 1) */

struct jl_dist {
	size_t n;
	int64_t min, max;
	size_t max_index;   /* index (into the input order) of the first maximum */
	double mean, stddev;
	int64_t p50, p90, p99, p999;
};

/* The nearest-rank rule: the 1-based rank ceil(Q/100 * N) of percentile Q, clamped to 1..N (N > 0).
 * Every percentile jitterlab reports uses it, histogram ones included (jl_buckets_percentile). */
uint64_t jl_percentile_rank(uint64_t n, double q);
/* Nearest-rank percentile Q over histogram buckets CNT[0..NBUCKETS) plus OVERFLOWS values beyond the
 * last: the bucket's index, or -1 when the rank falls among the overflows (or there is no value). The
 * rule of cyclictest's and rtla's 1 us histograms (cyclictest.h, rtla.h). */
int64_t jl_buckets_percentile(const uint64_t *cnt, int nbuckets, uint64_t overflows, double q);
/* Nearest-rank percentile Q (0 < Q <= 100) of SORTED[0..N). N must be > 0. */
int64_t jl_percentile_sorted(const int64_t *sorted, size_t n, double q);

/* Compute D over VALUES[0..N); VALUES is left untouched (SCRATCH, N entries, is used for sorting; it
 * may be NULL, then one is allocated). Returns 0, or -1 with errno (ENOMEM). N = 0 gives all zeros. */
/* The upper median of V[0..N) (V[N/2] once sorted; V is sorted in place); 0 when N is 0. */
int64_t jl_median_i64(int64_t *v, size_t n);
int jl_dist_compute(const int64_t *values, size_t n, int64_t *scratch, struct jl_dist *d);

/* A histogram's bin width for values up to MAX: the smallest 1, 2 or 5 x 10^k, at least MIN_WIDTH (a power of
 * ten), that puts MAX in bin MAX_BIN or below. The one rule of the plots' and report.html's histograms. */
int64_t jl_bin_width(int64_t max, int64_t min_width, int64_t max_bin);

#endif
