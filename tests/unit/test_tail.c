/* test_tail: the tail's buckets and its arithmetic (rt/trace/analysis/tail.c) on cycles with no trace (each
 * one cause, "unexplained", its whole latency), counted here with plain loops: the nearest-rank p99
 * (docs/outputs.md), the cycles above the threshold and the misses, their excess over p50. Its decomposition
 * against the whole analysis' is test_trace_prune's (the live matcher's tail equals every sample's). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <stdbool.h>
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

/* 1,000 cycles with no trace (each is one cause, "unexplained", its whole latency): 950 near 50 us, 50 between
 * 1 and 5 ms, and 6 misses among the short ones (their work ran long). Counted here with plain loops from the
 * reported threshold (checked against the nearest-rank p99 of docs/outputs.md): the tail is every cycle above
 * it and every miss; its excess over p50; the misses' responses in all. */
static void test_tail_arithmetic(void **state)
{
	struct jl_tail_acc *a = jl_tail_new(0);
	struct jl_tail *t = calloc(1, sizeof(*t));
	int64_t lat[1000], sorted[1000], p50, p99, resp = 0;
	double want = 0;
	uint64_t above = 0, misses = 0, both = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(t);
	for (int i = 0; i < 1000; i++) {
		struct jl_analysis_sample s = { .release = 1000000000LL * i, .cycle = (uint64_t)i };

		lat[i] = i % 20 == 7 ? 1000000 + (int64_t)i * 4000 : 50000 + (i * 37) % 900;
		s.wake = s.release + lat[i];
		s.miss = i % 150 == 3 || i == 987; /* 3, 153, ... 903: short latencies; 987: a long one, above too */
		s.end = s.wake + (s.miss ? 2000000 : 100000);
		jl_tail_add(a, NULL, 0, &s, NULL, 0);
		if (s.miss)
			resp += s.end - s.release;
	}
	memcpy(sorted, lat, sizeof(lat));
	qsort(sorted, 1000, sizeof(sorted[0]), cmp64);
	p50 = sorted[499];
	p99 = sorted[989];
	jl_tail_result(a, t);
	assert_true(t->computed);
	assert_int_equal((int)t->measured, 1000);
	assert_true(t->threshold >= p99 && t->threshold <= p99 + p99 / 8);
	assert_true(llabs(t->p50 - p50) <= p50 / 8);
	for (int i = 0; i < 1000; i++) {
		bool miss = i % 150 == 3 || i == 987;

		above += lat[i] > t->threshold;
		misses += miss;
		both += miss && lat[i] > t->threshold;
		if (lat[i] > t->threshold || miss)
			want += (double)(lat[i] - t->p50);
	}
	assert_int_equal((int)t->above, (int)above);
	assert_int_equal((int)t->misses, (int)misses);
	assert_int_equal((int)both, 1); /* cycle 987 is above and missed: counted once */
	assert_int_equal((int)t->cycles, (int)(above + misses - both));
	assert_true(above > 0 && above <= 10);
	/* the misses' excess is a few us each, above and below p50: their bucket sums as here */
	assert_true(fabs(t->excess.total_ns - want) <= 1e-6 * want + 6 * 1000);
	/* one cause, all of it, in both tables */
	assert_string_equal(t->excess.c[0].name, "unexplained");
	assert_true(fabs(t->excess.c[0].ns - t->excess.total_ns) < 1e-6 * t->excess.total_ns);
	assert_int_equal((int)t->excess.c[0].largest, (int)t->cycles);
	assert_true(fabs(t->response.total_ns - (double)resp) < 1e-6 * (double)resp);
	assert_int_equal((int)t->response.c[0].largest, (int)misses);
	jl_tail_free(a);
	free(t);
}

/* A threshold given ([run] tail = 500us): the tail is the cycles above its bucket's top (at most 1/8 over
 * it) and the misses, whatever p99 is; here 50 of the 1,000 cycles are above it, five times p99's tail. */
static void test_tail_fixed_threshold(void **state)
{
	struct jl_tail_acc *a = jl_tail_new(500000);
	struct jl_tail *t = calloc(1, sizeof(*t));
	uint64_t above = 0;

	(void)state;
	assert_non_null(a);
	assert_non_null(t);
	for (int i = 0; i < 1000; i++) {
		struct jl_analysis_sample s = { .release = 1000000000LL * i, .cycle = (uint64_t)i };
		int64_t lat = i % 20 == 7 ? 1000000 + (int64_t)i * 4000 : 50000 + (i * 37) % 900;

		s.wake = s.release + lat;
		s.end = s.wake + 100000;
		jl_tail_add(a, NULL, 0, &s, NULL, 0);
	}
	jl_tail_result(a, t);
	assert_true(t->computed && t->fixed);
	assert_true(t->threshold >= 500000 && t->threshold <= 500000 + 500000 / 8);
	for (int i = 0; i < 1000; i++)
		above += (i % 20 == 7 ? 1000000 + (int64_t)i * 4000 : 50000 + (i * 37) % 900) > t->threshold;
	assert_int_equal((int)above, 50);
	assert_int_equal((int)t->above, 50);
	assert_int_equal((int)t->cycles, 50);
	assert_int_equal((int)t->misses, 0);
	jl_tail_free(a);
	free(t);
}

/* No cycle: not computed, and why */
static void test_empty(void **state)
{
	struct jl_tail_acc *a = jl_tail_new(0);
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
		cmocka_unit_test(test_tail_arithmetic),
		cmocka_unit_test(test_tail_fixed_threshold),
		cmocka_unit_test(test_empty),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
