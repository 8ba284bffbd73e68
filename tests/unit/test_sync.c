/* test_sync: two-topic pairing (rt/engine/sync.c) on hand-made stamps (ms), arrivals in stamp order. The
 * expected sets are worked out by hand in each comment, from the rules sync.h states. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rt/engine/sync.h"

struct arrival {
	int input;
	int64_t t;
};

/* feed the arrivals; record each set and the arrival that emitted it */
static int feed(struct jl_sync *s, const struct arrival *a, int n, int64_t (*sets)[2], int64_t *at, int max)
{
	int total = 0;

	for (int i = 0; i < n; i++) {
		int64_t out[4][2];
		int k = jl_sync_add(s, a[i].input, a[i].t, out, 4);

		for (int j = 0; j < k && total < max; j++, total++) {
			sets[total][0] = out[j][0];
			sets[total][1] = out[j][1];
			at[total] = a[i].t;
		}
	}
	return total;
}

/* 10 Hz lidar (0, 100, 200, 300) and 30 Hz camera (2, 35, 68, 101, 134, 167, 202, 235, 268, 301): both
 * algorithms pair each lidar with its nearest camera: (0, 2), (100, 101), (200, 202), (300, 301): the output
 * runs at the lidar's rate, every lidar and a third of the cameras used. ApproximateTime emits a set when the
 * next lidar shows no nearer one can come (at 100, 200, 300: one lidar period late, the last one still
 * waiting); slop (20 ms) emits on the arrival that completes it (at 2, 101, 202, 301). */
static void test_lidar_and_camera(void **state)
{
	static const struct arrival a[] = {
		{ 0, 0 },   { 1, 2 },   { 1, 35 },  { 1, 68 },  { 0, 100 }, { 1, 101 }, { 1, 134 },
		{ 1, 167 }, { 0, 200 }, { 1, 202 }, { 1, 235 }, { 1, 268 }, { 0, 300 }, { 1, 301 },
	};
	const int n = (int)(sizeof(a) / sizeof(a[0]));
	int64_t sets[8][2], at[8];
	struct jl_sync s;
	int k;

	(void)state;
	jl_sync_init(&s, JL_SYNC_APPROXIMATE, 0, 0, 10);
	k = feed(&s, a, n, sets, at, 8);
	assert_int_equal(k, 3);
	assert_int_equal(sets[0][0], 0);
	assert_int_equal(sets[0][1], 2);
	assert_int_equal(at[0], 100);
	assert_int_equal(sets[1][0], 100);
	assert_int_equal(sets[1][1], 101);
	assert_int_equal(at[1], 200);
	assert_int_equal(sets[2][0], 200);
	assert_int_equal(sets[2][1], 202);
	assert_int_equal(at[2], 300);
	assert_int_equal(s.used[0], 3);
	assert_int_equal(s.in[1], 10);
	assert_int_equal(s.diff_max, 2);
	assert_int_equal(s.diff_sum, 2 + 1 + 2);

	jl_sync_init(&s, JL_SYNC_SLOP, 20, 0, 10);
	k = feed(&s, a, n, sets, at, 8);
	assert_int_equal(k, 4);
	for (int i = 0; i < 4; i++) {
		assert_int_equal(sets[i][0], i * 100);
		assert_int_equal(at[i], sets[i][1]); /* on the camera's arrival */
	}
	assert_int_equal(sets[1][1], 101);
}

/* Where they differ: camera 12 then lidar 20 then camera 22 (slop 10, queue 10). Slop emits (20, 12) as
 * lidar 20 arrives (within 10); ApproximateTime waits: camera 22 is nearer to lidar 20 (2 against 8), and
 * once lidar 40 shows nothing nearer can come for camera 22, it emits (20, 22). */
static void test_slop_takes_the_first_approximate_the_best(void **state)
{
	static const struct arrival a[] = { { 1, 12 }, { 0, 20 }, { 1, 22 }, { 0, 40 } };
	int64_t sets[4][2], at[4];
	struct jl_sync s;

	(void)state;
	jl_sync_init(&s, JL_SYNC_SLOP, 10, 0, 10);
	assert_int_equal(feed(&s, a, 4, sets, at, 4), 1);
	assert_int_equal(sets[0][1], 12);
	assert_int_equal(at[0], 20);

	jl_sync_init(&s, JL_SYNC_APPROXIMATE, 0, 10, 10);
	assert_int_equal(feed(&s, a, 4, sets, at, 4), 1);
	assert_int_equal(sets[0][0], 20);
	assert_int_equal(sets[0][1], 22);
	assert_int_equal(at[0], 40);
}

/* max_interval: a mutual best pair farther apart than it is not a set (lidar 0, camera 50, lidar 100,
 * camera 150 with max 10: nothing is emitted). */
static void test_max_interval(void **state)
{
	static const struct arrival a[] = { { 0, 0 }, { 1, 50 }, { 0, 100 }, { 1, 150 }, { 0, 200 } };
	int64_t sets[4][2], at[4];
	struct jl_sync s;

	(void)state;
	jl_sync_init(&s, JL_SYNC_APPROXIMATE, 0, 10, 10);
	assert_int_equal(feed(&s, a, 5, sets, at, 4), 0);
	assert_int_equal(s.out, 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lidar_and_camera),
		cmocka_unit_test(test_slop_takes_the_first_approximate_the_best),
		cmocka_unit_test(test_max_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
