/* test_dispatch: the executor's dispatch model (rt/engine/dispatch.c) on a fake clock: a small discrete
 * event simulation runs N executor threads (each takes the wait in turn, runs the callback for its work
 * time, then returns it) and records every run. Each expected figure is worked out by hand in the comment
 * above its test, from the rule the model states (rclcpp's: a snapshot per wait, timers first, then
 * subscriptions, each in declaration order; busy mutually exclusive groups leave the wait set; a timer that
 * missed periods runs once and keeps its phase). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/engine/dispatch.h"
#include "tests/unit/dispatch_sim.h"

/* A missed timer runs once and keeps its phase: period 10 ms, phase 3 ms, first taken at 47 ms: releases
 * 3, 13, 23, 33, 43 were due; it runs once for 3 (ready = 3), skips 13..43 (4), and is next due at 53. */
static void test_timer_skips_and_keeps_phase(void **state)
{
	struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = 0, .period = 10 * MS, .phase = 3 * MS };
	struct jl_dispatch d;
	int64_t ready = 0;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
	assert_int_equal(jl_dispatch_take(&d, 2 * MS, &ready), -1); /* not due yet */
	assert_int_equal(jl_dispatch_next_release(&d), 3 * MS);
	assert_int_equal(jl_dispatch_take(&d, 47 * MS, &ready), 0);
	assert_int_equal(ready, 3 * MS);
	assert_int_equal(cb.skipped, 4);
	assert_int_equal(cb.next, 53 * MS);
	assert_int_equal(jl_dispatch_take(&d, 48 * MS, &ready), -1); /* its group is busy, and it is not due */
	jl_dispatch_done(&d, 0);
	assert_int_equal(jl_dispatch_take(&d, 53 * MS, &ready), 0);
	assert_int_equal(ready, 53 * MS);
	jl_dispatch_free(&d);
}

/* The published isolation experiment on one single-threaded executor: urgent (20 ms timer, 100 us work,
 * declared first) and heavy (100 ms timer, 150 ms work). At 0 both are ready: urgent runs 0-0.1, heavy
 * 0.1-150.1. At 150.1 the new wait finds both ready again (each missed periods: it runs once): urgent
 * 150.1-150.2, heavy 150.2-300.2; and so on: urgent's period is 150.1 ms, every time. Heavy declared
 * first: at 0 the wait is [heavy, urgent]: heavy 0-150, urgent 150-150.1 (in the same wait); at 150.1
 * urgent is not due (next 160), the wait is [heavy]: 150.1-300.1; at 300.1 [heavy, urgent]: heavy first
 * again, urgent at 450.1: a 300.1 ms period. The published mean of 221.76 ms (max 302.9) lies between
 * the two orders' 150 and 300 ms: an order that changes between waits (hash order) mixes them. On its
 * own executor thread urgent keeps 20 ms. */
static void test_isolation_shared_and_own_thread(void **state)
{
	struct jl_dcb cbs[2] = { { .kind = JL_CB_TIMER, .group = 0, .period = 20 * MS },
				 { .kind = JL_CB_TIMER, .group = 0, .period = 100 * MS } };
	const int64_t work[2] = { 100 * US, 150 * MS };
	struct jl_dispatch d;
	static struct sim s;
	int64_t st[64];
	int n;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, cbs, 2, 1, 0), 0);
	simulate(&d, 1, work, NULL, 0, 1000 * MS, &s);
	n = starts(&s, 0, st, 64);
	assert_true(n >= 6);
	for (int i = 1; i < n; i++)
		assert_int_equal(st[i] - st[i - 1], 150 * MS + 100 * US);
	assert_true(cbs[0].skipped > 0);
	jl_dispatch_free(&d);

	/* heavy declared first: urgent at 150 ms, then every 300.1 ms */
	{
		struct jl_dcb rev[2] = { cbs[1], cbs[0] };
		const int64_t w2[2] = { 150 * MS, 100 * US };

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, rev, 2, 1, 0), 0);
		simulate(&d, 1, w2, NULL, 0, 1000 * MS, &s);
		n = starts(&s, 1, st, 64);
		assert_true(n >= 3);
		assert_int_equal(st[0], 150 * MS);
		for (int i = 1; i < n; i++)
			assert_int_equal(st[i] - st[i - 1], 300 * MS + 100 * US);
		jl_dispatch_free(&d);
	}

	/* urgent alone on its own executor (thread): every 20 ms */
	{
		struct jl_dcb one = { .kind = JL_CB_TIMER, .group = 0, .period = 20 * MS };

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &one, 1, 1, 0), 0);
		simulate(&d, 1, work, NULL, 0, 1000 * MS, &s);
		n = starts(&s, 0, st, 64);
		assert_int_equal(n, 50);
		for (int i = 1; i < n; i++)
			assert_int_equal(st[i] - st[i - 1], 20 * MS);
		jl_dispatch_free(&d);
	}
}

/* rclcpp runs the wait's timers before its subscriptions; fifo runs what became ready first. The thread is
 * busy with B (0-20 ms); S gets a message at 5 ms, T is due at 10 ms. At 20: rclcpp's wait has [T, S]: T
 * starts at 20, S at 20.5; fifo: S (ready at 5) at 20, T (ready at 10) at 20.5. */
static void test_rclcpp_versus_fifo_order(void **state)
{
	const int64_t work[3] = { 20 * MS, 500 * US, 500 * US };
	const struct post posts[1] = { { 5 * MS, 2 } };
	static struct sim s;

	(void)state;
	for (int rule = 0; rule < 2; rule++) {
		struct jl_dcb cbs[3] = { { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS },
					 { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS, .phase = 10 * MS },
					 { .kind = JL_CB_SUBSCRIPTION, .group = 0 } };
		struct jl_dispatch d;
		int64_t t[4], sub[4];

		assert_int_equal(jl_dispatch_init(&d, rule ? JL_DISPATCH_FIFO : JL_DISPATCH_RCLCPP, cbs, 3, 1, 0), 0);
		simulate(&d, 1, work, posts, 1, 100 * MS, &s);
		assert_int_equal(starts(&s, 1, t, 4), 1);
		assert_int_equal(starts(&s, 2, sub, 4), 1);
		if (rule == 0) {
			assert_int_equal(t[0], 20 * MS);
			assert_int_equal(sub[0], 20 * MS + 500 * US);
		} else {
			assert_int_equal(sub[0], 20 * MS);
			assert_int_equal(t[0], 20 * MS + 500 * US);
		}
		jl_dispatch_free(&d);
	}
}

/* A 10 ms timer whose work takes 25 ms, on two threads. In a mutually exclusive group it never runs
 * twice at once: starts 0, 25, 50, ... (the missed releases skipped). Reentrant, the second thread takes
 * the 10 ms release while the first still runs: two runs at once. */
static void test_exclusive_versus_reentrant(void **state)
{
	const int64_t work[1] = { 25 * MS };
	static struct sim s;
	int64_t st[64];

	(void)state;
	for (int reentrant = 0; reentrant < 2; reentrant++) {
		struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = reentrant ? JL_GROUP_REENTRANT : 0, .period = 10 * MS };
		struct jl_dispatch d;
		int n;

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
		simulate(&d, 2, work, NULL, 0, 200 * MS, &s);
		n = starts(&s, 0, st, 64);
		if (!reentrant) {
			assert_int_equal(s.max_parallel[0], 1);
			assert_int_equal(n, 8); /* 0, 25, ..., 175 */
			for (int i = 1; i < n; i++)
				assert_int_equal(st[i] - st[i - 1], 25 * MS);
		} else {
			assert_int_equal(s.max_parallel[0], 2);
			assert_int_equal(st[1], 10 * MS); /* the second thread took the next release */
		}
		jl_dispatch_free(&d);
	}
}

/* The control-vs-scan executor: control (10 ms timer, 200 us work) and scan (1/60 s timer, 500 ms work) in
 * their own mutually exclusive groups on a 4-thread executor: control keeps every 10 ms release (a free
 * thread always takes it) while scan runs on another thread. (Which thread runs what is not the model's
 * to say: in the real executor the threads contend for the wait.) In one group, control cannot run while
 * scan does: about one control run per scan run. */
static void test_control_and_scan_on_a_pool(void **state)
{
	const int64_t work[2] = { 200 * US, 500 * MS };
	static struct sim s;
	int64_t st[256];

	(void)state;
	for (int one_group = 0; one_group < 2; one_group++) {
		struct jl_dcb cbs[2] = { { .kind = JL_CB_TIMER, .group = 0, .period = 10 * MS },
					 { .kind = JL_CB_TIMER, .group = one_group ? 0 : 1, .period = 16666667 } };
		struct jl_dispatch d;
		int n, nscan;

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, cbs, 2, 2, 0), 0);
		simulate(&d, 4, work, NULL, 0, 2000 * MS, &s);
		n = starts(&s, 0, st, 256);
		nscan = starts(&s, 1, st + 200, 50);
		if (!one_group) {
			assert_int_equal(n, 200); /* 2 s at 100 Hz, every release */
			for (int i = 1; i < n; i++)
				assert_int_equal(st[i] - st[i - 1], 10 * MS);
			assert_int_equal(nscan, 4);  /* 0, 500, 1000, 1500 ms */
		} else {
			/* control at 0, scan 0.2-500.2, control 500.2 (49 releases missed), scan 500.4-1000.4, ...:
			 * 4 control runs in 2 s, 3 x 49 releases skipped */
			assert_int_equal(n, 4);
			assert_int_equal(nscan, 4);
			assert_int_equal(cbs[0].skipped, 147);
		}
		jl_dispatch_free(&d);
	}
}

/* rcl_timer_call's boundary rule: a 10 ms timer taken at 0, 20 and 40 ms serves the releases 0, 10 and 20:
 * at 20 the next call (10 + 10 = 20) is due at once, not skipped; at 40 the next (30) has passed: the first
 * boundary at or after 40 is 40 itself, 30 skipped. */
static void test_timer_boundary_is_due(void **state)
{
	struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = 0, .period = 10 * MS };
	struct jl_dispatch d;
	int64_t ready = -1;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
	assert_int_equal(jl_dispatch_take(&d, 0, &ready), 0);
	assert_int_equal(ready, 0);
	jl_dispatch_done(&d, 0);
	assert_int_equal(jl_dispatch_take(&d, 20 * MS, &ready), 0);
	assert_int_equal(ready, 10 * MS);
	assert_int_equal(cb.next, 20 * MS);
	assert_int_equal(cb.skipped, 0);
	jl_dispatch_done(&d, 0);
	assert_int_equal(jl_dispatch_take(&d, 40 * MS, &ready), 0);
	assert_int_equal(ready, 20 * MS);
	assert_int_equal(cb.next, 40 * MS);
	assert_int_equal(cb.skipped, 1);
	jl_dispatch_free(&d);
}

/* Declared jitter: a 10 ms timer with 3 ms of jitter is due at each grid point plus 0..3 ms, not always the
 * same amount, and the same sequence for the same seed (a run is reproducible); another seed, another one. */
static void test_timer_jitter_is_declared(void **state)
{
	int64_t first[20], again[20];

	(void)state;
	for (int pass = 0; pass < 3; pass++) {
		struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = 0, .period = 10 * MS, .jitter = 3 * MS,
				     .seed = pass == 2 ? 43 : 42 };
		struct jl_dispatch d;
		int64_t ready, *out = pass == 0 ? first : again;
		bool differs = false;

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
		for (int k = 0; k < 20; k++) {
			int64_t grid = k * 10 * MS;

			assert_true(jl_dispatch_next_release(&d) >= grid && jl_dispatch_next_release(&d) <= grid + 3 * MS);
			assert_int_equal(jl_dispatch_take(&d, jl_dispatch_next_release(&d), &ready), 0);
			assert_true(ready >= grid && ready <= grid + 3 * MS);
			jl_dispatch_done(&d, 0);
			if (pass < 2)
				out[k] = ready;
			else
				differs |= ready != first[k];
		}
		assert_int_equal(cb.skipped, 0);
		if (pass == 1)
			assert_memory_equal(first, again, sizeof(first));
		if (pass == 2)
			assert_true(differs);
		jl_dispatch_free(&d);
	}
	{
		bool varies = false;

		for (int k = 1; k < 20; k++)
			varies |= first[k] - k * 10 * MS != first[0];
		assert_true(varies);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timer_skips_and_keeps_phase),
		cmocka_unit_test(test_timer_boundary_is_due),
		cmocka_unit_test(test_timer_jitter_is_declared),
		cmocka_unit_test(test_isolation_shared_and_own_thread),
		cmocka_unit_test(test_rclcpp_versus_fifo_order),
		cmocka_unit_test(test_exclusive_versus_reentrant),
		cmocka_unit_test(test_control_and_scan_on_a_pool),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
