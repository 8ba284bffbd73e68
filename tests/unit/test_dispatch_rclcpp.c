/* test_dispatch_rclcpp: the dispatch model (rt/engine/dispatch.c) against the cases of rclcpp's own executor
 * tests, on the fake clock of dispatch_sim.h. Each test cites the rclcpp test it comes from (ros2/rclcpp at
 * commit a0a2a067d84fd6a38ab4f71b691d51ca5aa97ba5, 29.3.0; paths inside that repository), says what that
 * test asserts and how the case maps onto timers, subscriptions and groups, and works every figure out by
 * hand from the model's rule (dispatch.h), never from the model's code. Where rclcpp behaves otherwise the
 * test asserts what the model does and says so ("Differs"); docs/design-notes.md (issue 13) lists them. */
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

static const enum jl_dispatch_rule rules[2] = { JL_DISPATCH_RCLCPP, JL_DISPATCH_FIFO };

/* how many runs callback CB had */
static int count(const struct sim *s, int cb)
{
	int n = 0;

	for (int i = 0; i < s->nruns; i++)
		n += s->runs[i].cb == cb;
	return n;
}

/* Run I of the simulation was callback CB, started at START on thread THREAD, ready at READY
 * (THREAD < 0: any thread). */
static void expect_run(const struct sim *s, int i, int cb, int64_t start, int64_t ready, int thread)
{
	assert_true(i < s->nruns);
	assert_int_equal(s->runs[i].cb, cb);
	assert_int_equal(s->runs[i].start, start);
	assert_int_equal(s->runs[i].ready, ready);
	if (thread >= 0)
		assert_int_equal(s->runs[i].thread, thread);
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_multi_threaded_executor.cpp,
 * TEST_F(TestMultiThreadedExecutor, timer_over_take): a MultiThreadedExecutor of 2 threads (yield before
 * execute), one 1 s wall timer in a reentrant group; the callback cancels the executor on its 6th call and
 * asserts that each call comes more than PERIOD - TOLERANCE (0.75 s) after the one before: a release is
 * never taken by both threads. Here: period 1000 ms, phase 1000 ms (a wall timer's first call is one period
 * after its creation), reentrant, 2 threads, to 6500 ms.
 * Work 100 us: at each release thread 0's wait is [T] and it takes T; thread 1's wait finds T's next call a
 * period on (not ready): 6 calls at 1000, 2000, ..., 6000 ms, each 1000 ms after the last, never two at once.
 * Work 1500 ms (longer than the period: a thread is free at the next release while the other still runs,
 * the hand-over of the wait the test is about): 1000 on thread 0 (to 2500), 2000 on thread 1 (to 3500); at
 * 2500 thread 0's wait finds T due at 3000 only: 3000 on thread 0, 4000 on 1, 5000 on 0, 6000 on 1. Still
 * each release once, 1000 ms apart, ready = start (none late, none skipped), two runs at once (reentrant).
 * Agrees. */
static void test_rclcpp_timer_over_take(void **state)
{
	static struct sim s;

	(void)state;
	for (int longwork = 0; longwork < 2; longwork++) {
		struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = JL_GROUP_REENTRANT, .period = 1000 * MS,
				     .phase = 1000 * MS };
		const int64_t work[1] = { longwork ? 1500 * MS : 100 * US };
		struct jl_dispatch d;

		assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
		simulate(&d, 2, work, NULL, 0, 6500 * MS, &s);
		assert_int_equal(s.nruns, 6);
		for (int i = 0; i < 6; i++)
			expect_run(&s, i, 0, (i + 1) * 1000 * MS, (i + 1) * 1000 * MS, longwork ? i % 2 : 0);
		assert_int_equal(s.max_parallel[0], longwork ? 2 : 1);
		assert_int_equal(cb.skipped, 0);
		jl_dispatch_free(&d);
	}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_executors.cpp, TYPED_TEST(TestExecutors, spinSome)
 * (every executor type, the events executor too): in an isolated mutually exclusive group, spin_some with
 * nothing ready returns at once; with one waitable triggered it runs it once; with two triggered it runs
 * each once (counts +1 and 1) and returns without waiting for more. Here the waitables are subscriptions A
 * and B in group 0 with one message each (the model has timers and subscriptions only), one thread (spin_some
 * spins the caller's), both rules. Nothing posted: nothing to take, no release to wait for. A posted at
 * 1 ms: A, then nothing. A and B posted at 2 ms: A, B (rclcpp: the wait's subscriptions in declaration
 * order; fifo: A was posted first), then nothing. A twice in all, B once. Agrees (spin_some's one wait is
 * the model's snapshot; the model has no spin_some: a take after its snapshot is spent waits again). */
static void test_rclcpp_spin_some_runs_each_ready_once(void **state)
{
	(void)state;
	for (int r = 0; r < 2; r++) {
		struct jl_dcb cbs[2] = { { .kind = JL_CB_SUBSCRIPTION, .group = 0 },
					 { .kind = JL_CB_SUBSCRIPTION, .group = 0 } };
		struct jl_dispatch d;
		int64_t ready = -1;

		assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 2, 1, 0), 0);
		assert_int_equal(jl_dispatch_take(&d, 0, &ready), -1);
		assert_true(jl_dispatch_next_release(&d) == INT64_MAX);

		jl_dispatch_post(&d, 0, 1 * MS);
		assert_int_equal(jl_dispatch_take(&d, 1 * MS, &ready), 0);
		assert_int_equal(ready, 1 * MS);
		jl_dispatch_done(&d, 0);
		assert_int_equal(jl_dispatch_take(&d, 1 * MS, &ready), -1);

		jl_dispatch_post(&d, 0, 2 * MS);
		jl_dispatch_post(&d, 1, 2 * MS);
		assert_int_equal(jl_dispatch_take(&d, 2 * MS, &ready), 0);
		jl_dispatch_done(&d, 0);
		assert_int_equal(jl_dispatch_take(&d, 2 * MS, &ready), 1);
		assert_int_equal(ready, 2 * MS);
		jl_dispatch_done(&d, 1);
		assert_int_equal(jl_dispatch_take(&d, 2 * MS, &ready), -1);
		assert_int_equal(cbs[0].runs, 2);
		assert_int_equal(cbs[1].runs, 1);
		jl_dispatch_free(&d);
	}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_executors_busy_waiting.cpp,
 * TYPED_TEST(TestBusyWaiting, test_spin_some), test_spin_all and test_spin: a waitable in a mutually
 * exclusive group triggers itself again during its first execution ("new entities becoming ready while the
 * executor is executing something else"); spin_some, which collects work once, runs it once; spin_all and
 * spin run it twice; none busy-waits (is_ready called under 10 times per execution). Here: A (group 0, a
 * message at 0, 1 ms of work) gets its second message at 0.5 ms, while it runs; B (group 0, declared after A,
 * a message at 0, 1 ms) marks where the first wait ends; one thread, both rules.
 * rclcpp: the wait at 0 is [A, B]: A 0-1, B 1-2 (the rest of that wait: all spin_some runs), then a new wait
 * [A]: A 2-3 (the second run of spin and spin_all, ready at 0.5). fifo: A and B ready at 0, A posted first:
 * A 0-1; A's second message is ready at 0.5, after B (0): B 1-2, A 2-3. Both: A, B, A, then nothing.
 * Agrees (the busy-wait check is on the driver's futex wait, not the model). */
static void test_rclcpp_retrigger_waits_for_the_next_wait(void **state)
{
	const int64_t work[2] = { 1 * MS, 1 * MS };
	const struct post posts[3] = { { 0, 0 }, { 0, 1 }, { 500 * US, 0 } };
	static struct sim s;

	(void)state;
	for (int r = 0; r < 2; r++) {
		struct jl_dcb cbs[2] = { { .kind = JL_CB_SUBSCRIPTION, .group = 0 },
					 { .kind = JL_CB_SUBSCRIPTION, .group = 0 } };
		struct jl_dispatch d;

		assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 2, 1, 0), 0);
		simulate(&d, 1, work, posts, 3, 10 * MS, &s);
		assert_int_equal(s.nruns, 3);
		expect_run(&s, 0, 0, 0, 0, 0);
		expect_run(&s, 1, 1, 1 * MS, 0, 0);
		expect_run(&s, 2, 0, 2 * MS, 500 * US, 0);
		assert_int_equal(cbs[0].pending + cbs[1].pending, 0);
		jl_dispatch_free(&d);
	}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_reinitialized_timers.cpp,
 * TYPED_TEST(TestTimersLifecycle, timers_lifecycle_reinitialized_object): two 50 ms timers on one node (its
 * default group, mutually exclusive), spun until the second has run 10 times: count_2 >= 10 and
 * count_2 - count_1 <= 1; both timers made anew and spun again: the same. Here: T1, T2 in group 0, period and
 * phase 50 ms, 100 us of work, both rules, 1 and 2 threads, to 525 ms; then jl_dispatch_start (the timers
 * anew, from a new start) and the same run again. At each release k x 50 ms (k = 1..10) both are due:
 * rclcpp's wait is [T1, T2]; fifo's tie (both ready at the release) goes to the one declared first: T1 at
 * k x 50, T2 at k x 50 + 0.1 ms (on 2 threads too: one group, so T2 waits for T1). 10 runs each, the counts
 * never more than 1 apart, the same after the restart. Agrees. */
static void test_rclcpp_two_timers_keep_step_after_restart(void **state)
{
	const int64_t work[2] = { 100 * US, 100 * US };
	static struct sim s;

	(void)state;
	for (int r = 0; r < 2; r++)
		for (int nthreads = 1; nthreads <= 2; nthreads++) {
			struct jl_dcb cbs[2] = {
				{ .kind = JL_CB_TIMER, .group = 0, .period = 50 * MS, .phase = 50 * MS },
				{ .kind = JL_CB_TIMER, .group = 0, .period = 50 * MS, .phase = 50 * MS } };
			struct jl_dispatch d;

			assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 2, 1, 0), 0);
			for (int pass = 0; pass < 2; pass++) {
				int c[2] = { 0, 0 };

				if (pass)
					jl_dispatch_start(&d, 0);
				simulate(&d, nthreads, work, NULL, 0, 525 * MS, &s);
				assert_int_equal(s.nruns, 20);
				for (int i = 0; i < s.nruns; i++) {
					int k = i / 2 + 1;

					expect_run(&s, i, i % 2, k * 50 * MS + (i % 2) * 100 * US, k * 50 * MS, -1);
					c[s.runs[i].cb]++;
					assert_true(abs(c[1] - c[0]) <= 1);
				}
				assert_int_equal(c[0], 10);
				assert_int_equal(c[1], 10);
			}
			jl_dispatch_free(&d);
		}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_events_executor.cpp,
 * TEST_F(TestEventsExecutor, cancel_while_timers_running): an EventsExecutor, two 1 ms timers whose
 * callbacks sleep 50 ms, cancelled 10 ms after spin starts, while t1's callback runs: each ran at most once
 * (EXPECT_GE(1u, t1_runs), the same for t2). Here: fifo, one thread, T1 and T2 with period and phase 1 ms,
 * 50 ms of work. To 10 ms: T1 at 1 (both ready at 1, the tie to T1), still running at 10: T1 once, T2 never.
 * Agrees.
 * Past the cancel (to 200 ms, the model's own figures): at 51 T2 (ready since 1) goes before T1 (taken at 1,
 * its next call one period on: 2, not yet past); T2 taken at 51 moves to 51 (2..50 skipped: 49); at 101 T1
 * (ready 2) before T2 (51), moving to 101 (3..100: 98 skipped); at 151 T2 (ready 51), to 151 (52..150: 99,
 * 148 in all). Runs T1@1 (ready 1), T2@51 (1), T1@101 (2), T2@151 (51). The events executor differs from the
 * fourth run on: its timers thread calls each timer at every release and queues one event per call
 * (rclcpp/src/rclcpp/experimental/timers_manager.cpp, execute_ready_timers_unsafe), so the queue gains two
 * events a millisecond while a callback runs and its fourth run is T2's call of 2 ms, not of 51: it does not
 * skip missed periods under spin(), it works through a backlog. Differs (past the cancel). Every take here
 * lands on a 1 ms boundary: the skip counts are the model's boundary rule's (rcl 9 would skip one more each
 * time; see test_rclcpp_timer_not_ready_after_its_call). */
static void test_rclcpp_events_timers_while_one_runs(void **state)
{
	const int64_t work[2] = { 50 * MS, 50 * MS };
	struct jl_dcb cbs[2] = { { .kind = JL_CB_TIMER, .group = 0, .period = 1 * MS, .phase = 1 * MS },
				 { .kind = JL_CB_TIMER, .group = 0, .period = 1 * MS, .phase = 1 * MS } };
	static struct sim s;
	struct jl_dispatch d;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_FIFO, cbs, 2, 1, 0), 0);
	simulate(&d, 1, work, NULL, 0, 10 * MS, &s);
	assert_int_equal(count(&s, 0), 1);
	assert_int_equal(count(&s, 1), 0);
	expect_run(&s, 0, 0, 1 * MS, 1 * MS, 0);

	jl_dispatch_start(&d, 0);
	simulate(&d, 1, work, NULL, 0, 200 * MS, &s);
	assert_int_equal(s.nruns, 4);
	expect_run(&s, 0, 0, 1 * MS, 1 * MS, 0);
	expect_run(&s, 1, 1, 51 * MS, 1 * MS, 0);
	expect_run(&s, 2, 0, 101 * MS, 2 * MS, 0);
	expect_run(&s, 3, 1, 151 * MS, 51 * MS, 0);
	assert_int_equal(cbs[0].skipped, 98);
	assert_int_equal(cbs[1].skipped, 148);
	jl_dispatch_free(&d);
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_events_executor.cpp,
 * TEST_F(TestEventsExecutor, spin_some_max_duration), spin_some_zero_duration and spin_all_max_duration: a
 * 10 s timer is not run by a spin_some or spin_all of 10 ms (t_runs 0); a 10 ms (or 20 ms) timer that became
 * due while the test slept before spinning runs once (t_runs 1) and the spin returns. Here: both rules, one
 * thread. A timer of period and phase 10 s: nothing to take at 10 ms, its release at 10 s. A timer of
 * period and phase 10 ms taken late, at 35 ms (10, 20 and 30 due): once (ready 10), 20 and 30 skipped, then
 * nothing to take until 40. Agrees (the events executor's spin_some runs its ready timers itself, each once,
 * and rcl_timer_call skips the missed calls). */
static void test_rclcpp_events_spin_some_due_timer_once(void **state)
{
	(void)state;
	for (int r = 0; r < 2; r++) {
		struct jl_dcb cbs[2] = { { .kind = JL_CB_TIMER, .group = 0, .period = 10000 * MS, .phase = 10000 * MS },
					 { .kind = JL_CB_TIMER, .group = 1, .period = 10 * MS, .phase = 10 * MS } };
		struct jl_dispatch d;
		int64_t ready = -1;

		assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 1, 1, 0), 0); /* the 10 s timer alone */
		assert_int_equal(jl_dispatch_take(&d, 10 * MS, &ready), -1);
		assert_int_equal(jl_dispatch_next_release(&d), 10000 * MS);
		jl_dispatch_free(&d);

		assert_int_equal(jl_dispatch_init(&d, rules[r], cbs + 1, 1, 2, 0), 0); /* the 10 ms one alone */
		assert_int_equal(jl_dispatch_take(&d, 35 * MS, &ready), 0);
		assert_int_equal(ready, 10 * MS);
		assert_int_equal(cbs[1].skipped, 2);
		jl_dispatch_done(&d, 0);
		assert_int_equal(jl_dispatch_take(&d, 35 * MS, &ready), -1);
		assert_int_equal(jl_dispatch_next_release(&d), 40 * MS);
		jl_dispatch_free(&d);
	}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/executors/test_executors_intraprocess.cpp,
 * TYPED_TEST(TestIntraprocessExecutors, testIntraprocessRetrigger): 100 messages published at once to a
 * subscription of depth 100, then spin with a 10 ms timer that cancels the executor once all are taken:
 * callback_count == 100 (the subscription stays ready while messages remain, with nobody publishing). Here:
 * S (group 0, 10 us of work) with 100 messages at 0, T (group 0, declared after S, period and phase 10 ms,
 * 1 us), both rules, 1 and 2 threads, to 10.5 ms. Until 10 ms S is the only ready callback and each wait
 * (rclcpp) or pick (fifo) takes it once while messages remain: S at 0, 10, ..., 990 us on thread 0 (on 2
 * threads the other cannot take S: one group), 100 runs, none pending after 1 ms; T at 10 ms once, with all
 * 100 taken. Agrees. */
static void test_rclcpp_backlog_retriggers_until_empty(void **state)
{
	const int64_t work[2] = { 10 * US, 1 * US };
	static struct post posts[100];
	static struct sim s;

	(void)state;
	for (int i = 0; i < 100; i++)
		posts[i] = (struct post){ 0, 0 };
	for (int r = 0; r < 2; r++)
		for (int nthreads = 1; nthreads <= 2; nthreads++) {
			struct jl_dcb cbs[2] = { { .kind = JL_CB_SUBSCRIPTION, .group = 0 },
						 { .kind = JL_CB_TIMER, .group = 0, .period = 10 * MS, .phase = 10 * MS } };
			struct jl_dispatch d;

			assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 2, 1, 0), 0);
			simulate(&d, nthreads, work, posts, 100, 10 * MS + 500 * US, &s);
			assert_int_equal(s.nruns, 101);
			for (int i = 0; i < 100; i++) {
				assert_int_equal(s.runs[i].cb, 0);
				assert_int_equal(s.runs[i].start, i * 10 * US);
				assert_int_equal(s.runs[i].thread, 0);
			}
			expect_run(&s, 100, 1, 10 * MS, 10 * MS, -1);
			assert_int_equal(cbs[0].runs, 100);
			assert_int_equal(cbs[0].pending, 0);
			jl_dispatch_free(&d);
		}
}

/* ros2/rclcpp@a0a2a06 rclcpp/test/rclcpp/test_timer.cpp, TEST_P(TestTimer, callback_with_timer) and
 * TEST_P(TestTimer, callback_with_timer_info) (a 1 ms timer, spin_once until it is called): after the call
 * time_until_trigger() >= 0 and is_ready() is false; TimerInfo's actual_call_time >= expected_call_time.
 * Here: period and phase 1 ms, taken late at 3.5 ms: ready (rcl's expected_call_time, the oldest due call)
 * 1 ms <= 3.5 (the actual call); its next call, 2, has passed: the first boundary after 3.5 is 4 (2 and 3
 * skipped), 0.5 ms ahead, and at 3.5 it is not ready. Agrees.
 * Taken exactly on a boundary, at 5 ms (due at 4): the model's next call is 5 itself, due at once (is_ready
 * would be true), Humble's and Iron's rcl_timer_call; rcl since ros2/rcl#1089 (ros2/rcl@c19dab5, 9.2.0:
 * `next_call_time <= now`, then 1 + now_ahead / period periods) moves it to 6, strictly after now. Differs,
 * only on an exact boundary (a fake clock's case; test_dispatch.c's test_timer_boundary_is_due has it too). */
static void test_rclcpp_timer_not_ready_after_its_call(void **state)
{
	struct jl_dcb cb = { .kind = JL_CB_TIMER, .group = 0, .period = 1 * MS, .phase = 1 * MS };
	struct jl_dispatch d;
	int64_t ready = -1;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, &cb, 1, 1, 0), 0);
	assert_int_equal(jl_dispatch_take(&d, 3 * MS + 500 * US, &ready), 0);
	assert_int_equal(ready, 1 * MS);
	assert_int_equal(cb.skipped, 2);
	jl_dispatch_done(&d, 0);
	assert_int_equal(jl_dispatch_next_release(&d), 4 * MS);
	assert_int_equal(jl_dispatch_take(&d, 3 * MS + 500 * US, &ready), -1);

	assert_int_equal(jl_dispatch_take(&d, 5 * MS, &ready), 0);
	assert_int_equal(ready, 4 * MS);
	jl_dispatch_done(&d, 0);
	assert_int_equal(jl_dispatch_next_release(&d), 5 * MS); /* rcl 9: 6 ms */
	assert_int_equal(cb.skipped, 2);                       /* rcl 9: 3 */
	assert_int_equal(jl_dispatch_take(&d, 5 * MS, &ready), 0);
	assert_int_equal(ready, 5 * MS);
	jl_dispatch_free(&d);
}

/* The header's known difference, made concrete. No rclcpp test asserts it; the code does
 * (ros2/rclcpp@a0a2a06 rclcpp/src/rclcpp/executor.cpp, Executor::get_next_ready_executable: a timer whose
 * group cannot be taken from is passed over and stays in the wait result; a subscription is cleared from the
 * wait result by next_ready_subscription before its group is checked, so a busy group's subscription is
 * dropped, as in the model). Timers C, E1, E2 in group 0 and F in group 1, declared in that order, on 2
 * threads; E1, E2 and F due at 0, C at 5 ms (period 1000 ms); work E1 10 ms, F 20 ms, C and E2 1 ms.
 * At 0 the wait is [E1, E2, F]: thread 0 takes E1; thread 1 passes over E2 (group 0 busy: dropped) and takes
 * F. At 10 thread 0 is free (thread 1 runs F to 20); the model's snapshot is spent, its new wait is [C, E2]
 * (declaration order): C at 10 (ready 5), E2 at 11 (ready 0). rclcpp's thread 0 still has E2 in its wait
 * result: E2 at 10, C at 11 after a new wait. Differs, as dispatch.h says (for timers). */
static void test_busy_group_timer_dropped_from_the_wait(void **state)
{
	const int64_t work[4] = { 1 * MS, 10 * MS, 1 * MS, 20 * MS };
	struct jl_dcb cbs[4] = { { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS, .phase = 5 * MS },
				 { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS },
				 { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS },
				 { .kind = JL_CB_TIMER, .group = 1, .period = 1000 * MS } };
	static struct sim s;
	struct jl_dispatch d;

	(void)state;
	assert_int_equal(jl_dispatch_init(&d, JL_DISPATCH_RCLCPP, cbs, 4, 2, 0), 0);
	simulate(&d, 2, work, NULL, 0, 100 * MS, &s);
	assert_int_equal(s.nruns, 4);
	expect_run(&s, 0, 1, 0, 0, 0);              /* E1 */
	expect_run(&s, 1, 3, 0, 0, 1);              /* F */
	expect_run(&s, 2, 0, 10 * MS, 5 * MS, 0);   /* C (rclcpp: E2 here) */
	expect_run(&s, 3, 2, 11 * MS, 0, 0);        /* E2 (rclcpp: C here) */
	jl_dispatch_free(&d);
}

/* fifo against the events executor's queue with a backlog. No rclcpp test asserts the order; the code has
 * one queue event per message, run in queue order (ros2/rclcpp@a0a2a06
 * rclcpp/src/rclcpp/experimental/executors/events_executor/events_executor.cpp, execute_event). B (a timer
 * due at 0, 10 ms of work) holds the thread; S1 gets messages at 1 and 2 ms, S2 at 5 ms (0.5 ms of work
 * each). The events executor runs S1 (1), S1 (2), S2 (5). The model keeps one ready time per callback: S1
 * (ready 1) at 10; its next message then waits behind what is ready at 10 (its ready time becomes 10): S2
 * (ready 5) at 10.5, S1 at 11 (the model's ready 10; the driver reports the message's own arrival, 2). Under
 * rclcpp's rule the same order: the wait at 10 is [S1, S2], then [S1]. Differs (fifo orders a callback's
 * backlog after the others' first messages, not by each message's arrival). */
static void test_fifo_backlog_behind_others(void **state)
{
	const int64_t work[3] = { 10 * MS, 500 * US, 500 * US };
	const struct post posts[3] = { { 1 * MS, 1 }, { 2 * MS, 1 }, { 5 * MS, 2 } };
	static struct sim s;

	(void)state;
	for (int r = 0; r < 2; r++) {
		struct jl_dcb cbs[3] = { { .kind = JL_CB_TIMER, .group = 0, .period = 1000 * MS },
					 { .kind = JL_CB_SUBSCRIPTION, .group = 0 },
					 { .kind = JL_CB_SUBSCRIPTION, .group = 0 } };
		struct jl_dispatch d;

		assert_int_equal(jl_dispatch_init(&d, rules[r], cbs, 3, 1, 0), 0);
		simulate(&d, 1, work, posts, 3, 100 * MS, &s);
		assert_int_equal(s.nruns, 4);
		expect_run(&s, 0, 0, 0, 0, 0);
		expect_run(&s, 1, 1, 10 * MS, 1 * MS, 0);
		expect_run(&s, 2, 2, 10 * MS + 500 * US, 5 * MS, 0);
		expect_run(&s, 3, 1, 11 * MS, 10 * MS, 0);
		jl_dispatch_free(&d);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rclcpp_timer_over_take),
		cmocka_unit_test(test_rclcpp_spin_some_runs_each_ready_once),
		cmocka_unit_test(test_rclcpp_retrigger_waits_for_the_next_wait),
		cmocka_unit_test(test_rclcpp_two_timers_keep_step_after_restart),
		cmocka_unit_test(test_rclcpp_events_timers_while_one_runs),
		cmocka_unit_test(test_rclcpp_events_spin_some_due_timer_once),
		cmocka_unit_test(test_rclcpp_backlog_retriggers_until_empty),
		cmocka_unit_test(test_rclcpp_timer_not_ready_after_its_call),
		cmocka_unit_test(test_busy_group_timer_dropped_from_the_wait),
		cmocka_unit_test(test_fifo_backlog_behind_others),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
