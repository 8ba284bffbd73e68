/* test_tail: the tail's buckets and its arithmetic (rt/trace/analysis/tail.c), on cycles with no wakeup (the
 * path that needs no trace: each is one cause, "no wakeup", its whole latency), counted here with plain
 * loops: the nearest-rank p99 (docs/outputs.md), the cycles above it, their excess over p50. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "rt/trace/analysis/tail.h"

/* Every bucket holds [low, high], the next starts at high + 1, each at most 1/8 of its low wide. */
static void test_buckets(void **state)
{
	(void)state;
	assert_int_equal(jl_tail_bucket(0), 0);
	assert_int_equal(jl_tail_bucket(1023), 0);
	assert_int_equal(jl_tail_bucket(1024), 1);
	for (int b = 1; b < JL_TAIL_BUCKETS - 1; b++) {
		int64_t lo = jl_tail_bucket_low(b), hi = jl_tail_bucket_high(b);

		assert_int_equal(jl_tail_bucket(lo), b);
		assert_int_equal(jl_tail_bucket(hi), b);
		assert_int_equal(jl_tail_bucket(hi + 1), b + 1);
		assert_true((double)(hi - lo + 1) <= (double)lo / 8 + 1e-9);
	}
	assert_int_equal(jl_tail_bucket(INT64_MAX / 2), JL_TAIL_BUCKETS - 1);
}

static int cmp64(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* 1,000 cycles: 950 near 50 us, 50 between 1 and 5 ms. The tail is the 10 ranked above p99 (rank 990);
 * p50 within its bucket's width of the exact one; the excess within 1/8 of theirs over p50. */
static void test_no_wakeup_tail(void **state)
{
	struct jl_tail_acc *a = jl_tail_new();
	struct jl_tail *t = calloc(1, sizeof(*t));
	int64_t lat[1000], sorted[1000], p50, want = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(t);
	for (int i = 0; i < 1000; i++) {
		lat[i] = i % 20 == 7 ? 1000000 + (int64_t)i * 4000 : 50000 + (i * 37) % 900;
		jl_tail_add(a, NULL, 0, NULL, 1000000000LL * i, 1000000000LL * i + lat[i]);
	}
	memcpy(sorted, lat, sizeof(lat));
	qsort(sorted, 1000, sizeof(sorted[0]), cmp64);
	jl_tail_result(a, t);
	assert_true(t->computed);
	assert_int_equal((int)t->measured, 1000);
	assert_int_equal((int)t->cycles, 1000 - 990);
	p50 = sorted[499];
	assert_true(llabs(t->p50 - p50) <= p50 / 8);
	assert_true(t->threshold >= sorted[989] && t->threshold <= sorted[989] + sorted[989] / 8);
	for (int i = 990; i < 1000; i++)
		want += sorted[i] - t->p50;
	assert_true(fabs(t->excess_ns - (double)want) <= (double)want / 8);
	/* one cause, all of it */
	assert_string_equal(t->c[0].name, "no wakeup (running late: it did not sleep)");
	assert_true(fabs(t->c[0].ns - t->excess_ns) < 1e-6 * t->excess_ns);
	assert_int_equal((int)t->no_wakeup, (int)t->cycles);
	jl_tail_free(a);
	free(t);
}

/* No cycle: not computed, and why */
static void test_empty(void **state)
{
	struct jl_tail_acc *a = jl_tail_new();
	struct jl_tail t;

	(void)state;
	jl_tail_result(a, &t);
	assert_false(t.computed);
	assert_true(strlen(t.why) > 0);
	jl_tail_free(a);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_buckets),
		cmocka_unit_test(test_no_wakeup_tail),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
