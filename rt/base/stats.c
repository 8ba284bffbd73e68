/* stats: exact percentiles, mean and standard deviation. Runs after the measured phase only. */
#include "stats.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

uint64_t jl_percentile_rank(uint64_t n, double q)
{
	/* rank = ceil(q/100 * n) in integer arithmetic: in doubles, 99.9/100*1000 is 999.0000000000001
	 * and ceil() made p99.9 of 1000 samples the maximum. Q is taken to a millionth of a percent. */
	unsigned long long qm = q > 0 ? (unsigned long long)llround(q * 1e6) : 0; /* 99.9 -> 99900000 */
	unsigned __int128 rank = ((unsigned __int128)qm * n + 100000000ULL - 1) / 100000000ULL;

	if (rank < 1)
		rank = 1;
	if (rank > n)
		rank = n;
	return (uint64_t)rank;
}

int64_t jl_buckets_percentile(const uint64_t *cnt, int nbuckets, uint64_t overflows, double q)
{
	uint64_t n = overflows, cum = 0, rank;

	for (int b = 0; b < nbuckets; b++)
		n += cnt[b];
	if (!n)
		return -1;
	rank = jl_percentile_rank(n, q);
	for (int b = 0; b < nbuckets; b++) {
		cum += cnt[b];
		if (cum >= rank)
			return b;
	}
	return -1; /* the rank lies among the overflows */
}

int64_t jl_percentile_sorted(const int64_t *sorted, size_t n, double q)
{
	return sorted[jl_percentile_rank(n, q) - 1];
}

int64_t jl_median_i64(int64_t *v, size_t n)
{
	if (!n)
		return 0;
	qsort(v, n, sizeof(*v), cmp_i64);
	return v[n / 2];
}

int jl_dist_compute(const int64_t *values, size_t n, int64_t *scratch, struct jl_dist *d)
{
	int64_t *s = scratch;
	struct jl_moments m = { 0 };

	memset(d, 0, sizeof(*d));
	if (n == 0)
		return 0;
	if (!s) {
		s = malloc(n * sizeof(*s));
		if (!s) {
			errno = ENOMEM;
			return -1;
		}
	}
	d->n = n;
	d->min = d->max = values[0];
	for (size_t i = 0; i < n; i++) {
		jl_moments_add(&m, (double)values[i]);
		if (values[i] < d->min)
			d->min = values[i];
		if (values[i] > d->max) {
			d->max = values[i];
			d->max_index = i;
		}
	}
	d->mean = m.mean;
	d->stddev = jl_moments_stddev(&m);
	memcpy(s, values, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);
	d->p50 = jl_percentile_sorted(s, n, 50.0);
	d->p90 = jl_percentile_sorted(s, n, 90.0);
	d->p99 = jl_percentile_sorted(s, n, 99.0);
	d->p999 = jl_percentile_sorted(s, n, 99.9);
	if (s != scratch)
		free(s);
	return 0;
}

double jl_moments_stddev(const struct jl_moments *m)
{
	return m->n > 1 ? sqrt(m->m2 / (double)(m->n - 1)) : 0.0;
}

int64_t jl_bin_width(int64_t max, int64_t min_width, int64_t max_bin)
{
	static const int64_t steps[] = { 1, 2, 5 };

	for (int64_t dec = min_width > 0 ? min_width : 1;; dec *= 10)
		for (int i = 0; i < 3; i++)
			if ((max > 0 ? max : 0) / (steps[i] * dec) <= max_bin)
				return steps[i] * dec;
}
