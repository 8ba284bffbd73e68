/* test_stats: rt/base/stats.c — exact nearest-rank percentiles, mean and sample stddev, min/max and the
 * index of the first maximum, on known vectors. */
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/stats.h"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* cmocka 1.1 has no assert_double_equal */
#define assert_near(a, b, eps)                                                                       \
	do {                                                                                         \
		double _a = (a), _b = (b);                                                           \
		if (!(fabs(_a - _b) <= (eps))) {                                                     \
			print_error("%s = %.17g, expected %.17g (+-%g)\n", #a, _a, _b, (double)(eps)); \
			fail();                                                                      \
		}                                                                                    \
	} while (0)

static void test_percentile_sorted(void **state)
{
	static const int64_t v[] = { 15, 20, 35, 40, 50 }; /* the textbook nearest-rank example */

	(void)state;
	assert_int_equal(jl_percentile_sorted(v, 5, 5), 15);
	assert_int_equal(jl_percentile_sorted(v, 5, 30), 20);
	assert_int_equal(jl_percentile_sorted(v, 5, 40), 20);
	assert_int_equal(jl_percentile_sorted(v, 5, 50), 35);
	assert_int_equal(jl_percentile_sorted(v, 5, 100), 50);
	assert_int_equal(jl_percentile_sorted(v, 5, 0.0001), 15);
}

/* 1..N: pQ is exactly ceil(Q*N/100); 99.9 of 1000 is the 999th value, not the maximum. */
static void test_percentile_ranks(void **state)
{
	static const double qs[] = { 50, 90, 99, 99.9 };
	static const size_t ns[] = { 1, 2, 3, 10, 100, 1000, 1001, 10000, 100000 };
	int64_t *v = malloc(100000 * sizeof(*v));

	(void)state;
	assert_non_null(v);
	for (size_t i = 0; i < 100000; i++)
		v[i] = (int64_t)i + 1;
	for (size_t a = 0; a < N(ns); a++) {
		for (size_t b = 0; b < N(qs); b++) {
			/* expected rank in integer arithmetic, with Q in tenths */
			long long q10 = llround(qs[b] * 10);
			size_t rank = (size_t)((q10 * (long long)ns[a] + 999) / 1000);

			if (rank < 1)
				rank = 1;
			assert_int_equal(jl_percentile_sorted(v, ns[a], qs[b]), (int64_t)rank);
		}
	}
	assert_int_equal(jl_percentile_sorted(v, 1000, 99.9), 999);
	assert_int_equal(jl_percentile_sorted(v, 1000, 99), 990);
	assert_int_equal(jl_percentile_sorted(v, 100, 99), 99);
	assert_int_equal(jl_percentile_sorted(v, 10, 90), 9);
	assert_int_equal(jl_percentile_sorted(v, 100000, 99.9), 99900);
	free(v);
}

static void test_dist_known(void **state)
{
	/* unsorted; mean 5, sample variance 32/7 */
	static const int64_t v[] = { 4, 2, 9, 4, 5, 5, 7, 4 };
	int64_t copy[N(v)];
	struct jl_dist d;

	(void)state;
	memcpy(copy, v, sizeof(v));
	assert_int_equal(jl_dist_compute(v, N(v), NULL, &d), 0);
	assert_memory_equal(copy, v, sizeof(v)); /* input untouched */
	assert_int_equal(d.n, 8);
	assert_int_equal(d.min, 2);
	assert_int_equal(d.max, 9);
	assert_int_equal(d.max_index, 2);
	assert_near(d.mean, 5.0, 1e-12);
	assert_near(d.stddev, sqrt(32.0 / 7.0), 1e-12);
	/* sorted: 2 4 4 4 5 5 7 9 */
	assert_int_equal(d.p50, 4);
	assert_int_equal(d.p90, 9);
	assert_int_equal(d.p99, 9);
	assert_int_equal(d.p999, 9);
}

static void test_dist_scratch(void **state)
{
	static const int64_t v[] = { 30, 10, 20 };
	int64_t scratch[3] = { -1, -1, -1 };
	struct jl_dist d;

	(void)state;
	assert_int_equal(jl_dist_compute(v, 3, scratch, &d), 0);
	assert_int_equal(scratch[0], 10); /* the caller's scratch holds the sorted values */
	assert_int_equal(scratch[2], 30);
	assert_int_equal(d.p50, 20);
	assert_near(d.mean, 20.0, 1e-12);
	assert_near(d.stddev, 10.0, 1e-12);
}

static void test_dist_small(void **state)
{
	static const int64_t one[] = { 42 }, two[] = { 10, 20 };
	struct jl_dist d;

	(void)state;
	assert_int_equal(jl_dist_compute(one, 1, NULL, &d), 0);
	assert_int_equal(d.n, 1);
	assert_int_equal(d.min, 42);
	assert_int_equal(d.max, 42);
	assert_int_equal(d.p50, 42);
	assert_int_equal(d.p999, 42);
	assert_int_equal(d.max_index, 0);
	assert_near(d.mean, 42.0, 0);
	assert_near(d.stddev, 0.0, 0); /* fewer than two samples */

	assert_int_equal(jl_dist_compute(two, 2, NULL, &d), 0);
	assert_int_equal(d.p50, 10); /* nearest rank: ceil(0.5*2) = 1st */
	assert_int_equal(d.p90, 20);
	assert_int_equal(d.max_index, 1);
	assert_near(d.mean, 15.0, 1e-12);
	assert_near(d.stddev, sqrt(50.0), 1e-12);

	memset(&d, 0x55, sizeof(d));
	assert_int_equal(jl_dist_compute(NULL, 0, NULL, &d), 0);
	assert_int_equal(d.n, 0);
	assert_int_equal(d.max, 0);
	assert_int_equal(d.p99, 0);
	assert_near(d.mean, 0.0, 0);
}

static void test_dist_duplicates_negative(void **state)
{
	static const int64_t same[] = { 7, 7, 7, 7, 7 };
	static const int64_t neg[] = { -5, -1, -10, 3, -10, 3 };
	static const int64_t firstmax[] = { 1, 9, 3, 9, 9, 2 };
	struct jl_dist d;

	(void)state;
	assert_int_equal(jl_dist_compute(same, N(same), NULL, &d), 0);
	assert_int_equal(d.min, 7);
	assert_int_equal(d.p50, 7);
	assert_int_equal(d.max_index, 0); /* first of equal maxima */
	assert_near(d.stddev, 0.0, 1e-12);

	assert_int_equal(jl_dist_compute(neg, N(neg), NULL, &d), 0);
	assert_int_equal(d.min, -10);
	assert_int_equal(d.max, 3);
	assert_int_equal(d.max_index, 3);
	assert_near(d.mean, -20.0 / 6.0, 1e-12);
	/* sorted: -10 -10 -5 -1 3 3 */
	assert_int_equal(d.p50, -5);
	assert_int_equal(d.p90, 3);

	assert_int_equal(jl_dist_compute(firstmax, N(firstmax), NULL, &d), 0);
	assert_int_equal(d.max_index, 1);
}

/* Large values: Welford keeps the mean and stddev exact where a naive sum of squares would not. */
static void test_dist_large_values(void **state)
{
	int64_t v[1000];
	struct jl_dist d;

	(void)state;
	for (int i = 0; i < 1000; i++)
		v[i] = 1000000000000LL + (i % 2 ? 1 : -1); /* 1e12 +- 1 */
	assert_int_equal(jl_dist_compute(v, 1000, NULL, &d), 0);
	assert_near(d.mean, 1e12, 1e-3);
	assert_near(d.stddev, sqrt(1000.0 / 999.0), 1e-6);
	assert_int_equal(d.p50, 1000000000000LL - 1);
	assert_int_equal(d.max_index, 1);
}

/* the histograms' bin width: the smallest 1/2/5 x 10^k (from the floor given) that puts the maximum in the
 * last bin allowed or before; the widths worked out by hand */
static void test_bin_width(void **state)
{
	(void)state;
	assert_int_equal(jl_bin_width(0, 1, 399), 1);
	assert_int_equal(jl_bin_width(-5, 1, 399), 1);
	assert_int_equal(jl_bin_width(399, 1, 399), 1);      /* 399 / 1 = 399: the last bin */
	assert_int_equal(jl_bin_width(400, 1, 399), 2);      /* 400 / 1 = 400 > 399 */
	assert_int_equal(jl_bin_width(999, 1, 399), 5);      /* 999 / 2 = 499 > 399, / 5 = 199 */
	assert_int_equal(jl_bin_width(4000, 1, 399), 20);    /* / 10 = 400, / 20 = 200 */
	assert_int_equal(jl_bin_width(5000, 1000, 200), 1000);
	assert_int_equal(jl_bin_width(201000, 1000, 200), 2000); /* / 1000 = 201 > 200 */
	assert_int_equal(jl_bin_width(64000000, 1000, 200), 500000); /* / 200000 = 320, / 500000 = 128 */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_percentile_sorted),
		cmocka_unit_test(test_percentile_ranks),
		cmocka_unit_test(test_dist_known),
		cmocka_unit_test(test_dist_scratch),
		cmocka_unit_test(test_dist_small),
		cmocka_unit_test(test_dist_duplicates_negative),
		cmocka_unit_test(test_dist_large_values),
		cmocka_unit_test(test_bin_width),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
