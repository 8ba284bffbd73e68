/* test_spill: rt/base/spill.c. Its order statistics against a sort of the same values (qsort, in this
 * file), on series made to be hard for a radix selection: duplicates, negatives, the int64 extremes, values
 * that share all but their lowest byte, more values than one buffer or one read holds. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/spill.h"
#include "rt/base/stats.h"

static int cmp(const void *a, const void *b)
{
	int64_t x = *(const int64_t *)a, y = *(const int64_t *)b;

	return x < y ? -1 : x > y;
}

/* Every rank of V[0..N) (a sample of them when N is large) through a spill, against the sorted copy. */
static void check_all_ranks(const int64_t *v, size_t n)
{
	struct jl_spill s;
	int64_t *sorted = malloc(n * sizeof(*sorted));
	uint64_t ranks[64];
	int64_t got[64];
	size_t step = n > 500 ? n / 500 : 1;

	assert_non_null(sorted);
	assert_int_equal(jl_spill_open(&s), 0);
	for (size_t i = 0; i < n; i++)
		assert_int_equal(jl_spill_add(&s, v[i]), 0);
	memcpy(sorted, v, n * sizeof(*sorted));
	qsort(sorted, n, sizeof(*sorted), cmp);
	for (size_t r = 1; r <= n;) {
		int k = 0;

		for (; k < 64 && r <= n; k++, r += step)
			ranks[k] = r;
		if (r > n && ranks[k - 1] != n && k < 64)
			ranks[k++] = n; /* the maximum always */
		assert_int_equal(jl_spill_select(&s, ranks, k, got), 0);
		for (int j = 0; j < k; j++)
			assert_true(got[j] == sorted[ranks[j] - 1]);
	}
	jl_spill_close(&s);
	free(sorted);
}

static void test_small_and_signed(void **state)
{
	const int64_t v[] = { 5, -3, 5, 0, INT64_MAX, INT64_MIN, -1, 1, 255, 256, -256, 5 };

	(void)state;
	check_all_ranks(v, sizeof(v) / sizeof(v[0]));
	check_all_ranks(v, 1);
}

static void test_many_values_near_each_other(void **state)
{
	size_t n = 3 * JL_SPILL_BUF + 17; /* several buffers, and a read that ends mid-way */
	int64_t *v = malloc(n * sizeof(*v));

	(void)state;
	assert_non_null(v);
	srand(7);
	for (size_t i = 0; i < n; i++) /* latencies: one value of a few, +- a few hundred ns, in any order */
		v[i] = 50000 + (rand() % 4) * 7 + (rand() % 600) - (i % 97 == 0 ? 40000 : 0);
	check_all_ranks(v, n);
	for (size_t i = 0; i < n; i++) /* all equal */
		v[i] = 123456789;
	check_all_ranks(v, n);
	for (size_t i = 0; i < n; i++) /* wide: the whole int64 range */
		v[i] = (int64_t)(((uint64_t)rand() << 33) ^ ((uint64_t)rand() << 2) ^ (uint64_t)rand());
	check_all_ranks(v, n);
	free(v);
}

/* The percentiles are the nearest-rank ones jl_dist_compute gives from every value in memory. */
static void test_percentiles_as_in_memory(void **state)
{
	size_t n = 100003;
	int64_t *v = malloc(n * sizeof(*v));
	struct jl_dist mem, disk = { .n = n };
	struct jl_spill s;

	(void)state;
	assert_non_null(v);
	srand(11);
	assert_int_equal(jl_spill_open(&s), 0);
	for (size_t i = 0; i < n; i++) {
		v[i] = 10000 + rand() % 90000 + (i % 1000 == 0 ? 5000000 : 0); /* a tail of outliers */
		assert_int_equal(jl_spill_add(&s, v[i]), 0);
	}
	assert_int_equal(jl_dist_compute(v, n, NULL, &mem), 0);
	assert_int_equal(jl_spill_percentiles(&s, &disk), 0);
	assert_true(disk.p50 == mem.p50 && disk.p90 == mem.p90 && disk.p99 == mem.p99 && disk.p999 == mem.p999);
	disk.n = n - 1; /* a distribution of other values is refused */
	assert_int_equal(jl_spill_percentiles(&s, &disk), -1);
	jl_spill_close(&s);
	free(v);
}

static void test_rank_out_of_range(void **state)
{
	struct jl_spill s;
	uint64_t r0 = 0, r4 = 4;
	int64_t out;

	(void)state;
	assert_int_equal(jl_spill_open(&s), 0);
	for (int i = 0; i < 3; i++)
		assert_int_equal(jl_spill_add(&s, i), 0);
	assert_int_equal(jl_spill_select(&s, &r0, 1, &out), -1);
	assert_int_equal(jl_spill_select(&s, &r4, 1, &out), -1);
	jl_spill_close(&s);
	jl_spill_close(&s); /* twice: harmless */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_small_and_signed),
		cmocka_unit_test(test_many_values_near_each_other),
		cmocka_unit_test(test_percentiles_as_in_memory),
		cmocka_unit_test(test_rank_out_of_range),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
