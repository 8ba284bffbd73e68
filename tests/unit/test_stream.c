/* test_stream: rt/base/stream.c — the constant-memory figures of a long run. Checked against what is
 * computed here directly from the values: percentiles against exact nearest-rank of the sorted values
 * (ceil(q/100 n)-th, written out here, not jl_percentile_rank), on random and adversarial data, with the
 * stated bound (never below, at most 2^-10 above); the top K against a sort; min, max, mean, stddev
 * against two-pass formulas. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/stream.h"

static int cmp_i64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return (x > y) - (x < y);
}

/* the exact nearest-rank percentile: the smallest value with at least q% of the values at or below it */
static int64_t exact_pct(const int64_t *sorted, size_t n, double q)
{
	for (size_t i = 0; i < n; i++)
		if ((double)(i + 1) * 100.0 >= q * (double)n - 1e-9)
			return sorted[i];
	return sorted[n - 1];
}

static uint64_t rng_state = 88172645463325252ULL;

static uint64_t xorshift(void)
{
	rng_state ^= rng_state << 13;
	rng_state ^= rng_state >> 7;
	rng_state ^= rng_state << 17;
	return rng_state;
}

/* the bound: reported value r for exact value v: v <= r <= v + v * 2^-10 */
static void check_against_exact(const int64_t *v, size_t n)
{
	static const double qs[] = { 1, 10, 50, 90, 99, 99.9, 99.99, 100 };
	struct jl_stream st;
	struct jl_dist d;
	int64_t *s = malloc(n * sizeof(*s));
	double sum = 0, ss = 0, mean;

	assert_non_null(s);
	assert_int_equal(jl_stream_init(&st, 8, true), 0);
	for (size_t i = 0; i < n; i++) {
		jl_stream_add(&st, v[i], i);
		sum += (double)v[i];
	}
	memcpy(s, v, n * sizeof(*s));
	qsort(s, n, sizeof(*s), cmp_i64);
	for (size_t k = 0; k < sizeof(qs) / sizeof(qs[0]); k++) {
		int64_t e = exact_pct(s, n, qs[k]);
		int64_t r = jl_hist_percentile(&st.hist, qs[k]);

		if (r > s[n - 1])
			r = s[n - 1]; /* what jl_stream_dist reports: clamped to the exact max */
		assert_true(r >= e);
		assert_true((double)(r - e) <= (double)e / 1024.0);
	}
	jl_stream_dist(&st, &d);
	assert_int_equal(d.min, s[0]);
	assert_int_equal(d.max, s[n - 1]);
	mean = sum / (double)n;
	for (size_t i = 0; i < n; i++)
		ss += ((double)v[i] - mean) * ((double)v[i] - mean);
	assert_true(fabs(d.mean - mean) <= 1e-6 * fabs(mean) + 1e-9);
	if (n > 1)
		assert_true(fabs(d.stddev - sqrt(ss / (double)(n - 1))) <= 1e-6 * sqrt(ss / (double)(n - 1)) + 1e-9);
	assert_true(d.p50 >= exact_pct(s, n, 50) && d.p999 >= exact_pct(s, n, 99.9));
	assert_true(d.p999 <= d.max);
	jl_stream_free(&st);
	free(s);
}

static void test_random_latencies(void **state)
{
	size_t n = 200000;
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	for (size_t i = 0; i < n; i++) {
		/* a latency-like mix: mostly 2-20 us, a tail to 5 ms */
		uint64_t r = xorshift();

		v[i] = (r % 100) < 99 ? 2000 + (int64_t)(r % 18000) : 20000 + (int64_t)(r % 5000000);
	}
	check_against_exact(v, n);
	free(v);
}

static void test_adversarial(void **state)
{
	int64_t v[4096];
	size_t n = 0;

	(void)state;
	/* values on both sides of every bucket edge of a few octaves, powers of two, exact small values */
	for (int e = 10; e < 40 && n + 8 < sizeof(v) / sizeof(v[0]); e += 3) {
		int64_t p = (int64_t)1 << e;

		v[n++] = p - 1;
		v[n++] = p;
		v[n++] = p + 1;
		v[n++] = p + (p >> 10) - 1; /* the last value of the octave's first bucket */
		v[n++] = p + (p >> 10);     /* the first of its second */
		v[n++] = 2 * p - 1;
	}
	for (int64_t x = 0; x < 1100 && n < sizeof(v) / sizeof(v[0]); x += 7)
		v[n++] = x;
	check_against_exact(v, n);
	/* one value, and all equal values */
	check_against_exact(v + 3, 1);
	for (size_t i = 0; i < 1000; i++)
		v[i] = 123456789;
	check_against_exact(v, 1000);
}

static void test_bucket_edges(void **state)
{
	(void)state;
	/* every bucket's values map back to it, and buckets tile the range without gaps */
	for (size_t b = 1; b < jl_hist_buckets(); b++)
		assert_int_equal(jl_hist_bucket_low(b), jl_hist_bucket_high(b - 1) + 1);
	for (size_t b = 0; b < jl_hist_buckets(); b += 97) {
		int64_t lo = jl_hist_bucket_low(b), hi = jl_hist_bucket_high(b);

		assert_int_equal(jl_hist_bucket(lo), b);
		assert_int_equal(jl_hist_bucket(hi), b);
		assert_true((double)(hi - lo) <= (double)lo / 1024.0);
	}
	assert_int_equal(jl_hist_bucket(-5), 0);
	assert_int_equal(jl_hist_bucket((int64_t)1 << 50), jl_hist_buckets() - 1);
}

static int cmp_entry_desc(const void *a, const void *b)
{
	const struct jl_topk_entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return (x->cycle > y->cycle) - (x->cycle < y->cycle);
}

static void test_topk_against_sort(void **state)
{
	enum { N = 5000, K = 10 };
	struct jl_topk_entry all[N], got[JL_TOPK_MAX];
	struct jl_topk t;
	uint64_t payload[K]; /* what a caller keeps beside each entry, by the slot jl_topk_add returns */

	(void)state;
	jl_topk_init(&t, K);
	for (int i = 0; i < N; i++) {
		int slot;

		all[i].value = (int64_t)(xorshift() % 300); /* many ties */
		all[i].cycle = (uint64_t)i;
		slot = jl_topk_add(&t, all[i].value, all[i].cycle);
		assert_true(slot >= -1 && slot < K);
		if (slot >= 0)
			payload[slot] = all[i].cycle * 7;
	}
	qsort(all, N, sizeof(all[0]), cmp_entry_desc); /* stable on ties by cycle: the earlier first */
	assert_int_equal(jl_topk_sorted(&t, got), K);
	for (int i = 0; i < K; i++) {
		assert_int_equal(got[i].value, all[i].value);
		assert_int_equal(got[i].cycle, all[i].cycle);
		assert_int_equal(payload[got[i].slot], all[i].cycle * 7);
	}
	/* fewer values than K */
	jl_topk_init(&t, K);
	jl_topk_add(&t, 5, 1);
	jl_topk_add(&t, 9, 2);
	assert_int_equal(jl_topk_sorted(&t, got), 2);
	assert_int_equal(got[0].value, 9);
	assert_int_equal(got[1].cycle, 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_random_latencies),
		cmocka_unit_test(test_adversarial),
		cmocka_unit_test(test_bucket_edges),
		cmocka_unit_test(test_topk_against_sort),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
