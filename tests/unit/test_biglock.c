/* test_biglock: the interpreter-lock rule (rt/base/biglock.c, the rule lock.c's biglock runs with real
 * threads) on a fake clock: the events of each case are played in their time order by hand, with the
 * times in the comments, and what the rule must decide at each is asserted. The rule (CPython's
 * ceval_gil.c with FORCE_SWITCHING): a waiter waits one switch interval at a time and sets the drop
 * request when an interval passed with the lock still in the same hands; the holder drops it at its next
 * check point when asked, and waits until another thread took it; a take clears the request. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt/base/biglock.h"

/* Switch interval 5 ms; the holder H computes with a check point every 1 ms.
 *   t=0    H takes it (free).
 *   t=2.3  W asks: held, W waits until 7.3 (seen = 1).
 *   t=3..7 H's check points: no request, H goes on.
 *   t=7.3  W's interval passes with the lock in H's hands: the request is set; W waits again.
 *   t=8    H's check point: it must drop; releases (seen 1); W, signalled, takes it (switch 2, request
 *          cleared); H may go on (it changed hands) and asks again: held, H waits. */
static void test_waiter_gets_it_at_the_next_check_point(void **state)
{
	struct jl_biglock b = { 0 };
	uint64_t w_seen, h_seen;

	(void)state;
	assert_true(jl_biglock_try_take(&b));            /* t=0 H */
	assert_false(jl_biglock_try_take(&b));           /* t=2.3 W */
	w_seen = b.switch_number;
	for (int t = 3; t <= 7; t++)
		assert_false(jl_biglock_must_drop(&b));  /* H's check points before W's interval ends */
	jl_biglock_waited(&b, w_seen, true);             /* t=7.3 */
	assert_true(jl_biglock_must_drop(&b));
	assert_false(jl_biglock_try_take(&b));           /* W waits again: still H's */
	w_seen = b.switch_number;
	assert_true(jl_biglock_must_drop(&b));           /* t=8 H's check point */
	h_seen = jl_biglock_release(&b);
	assert_false(jl_biglock_switched(&b, h_seen));   /* H must wait: nobody took it yet */
	jl_biglock_waited(&b, w_seen, false);            /* W woken by the signal */
	assert_true(jl_biglock_try_take(&b));            /* W takes it at 8 */
	assert_false(jl_biglock_must_drop(&b));          /* the take cleared the request */
	assert_true(jl_biglock_switched(&b, h_seen));    /* H goes on */
	assert_false(jl_biglock_try_take(&b));           /* and waits for W */
	assert_int_equal(b.switch_number, 2);
}

/* No waiter, no drop: H computes from 0 to 100 ms through 100 check points without a request, and
 * a waiter's wait that ends by a signal (not the interval) sets none either. */
static void test_no_waiter_no_drop(void **state)
{
	struct jl_biglock b = { 0 };

	(void)state;
	assert_true(jl_biglock_try_take(&b));
	for (int t = 1; t <= 100; t++)
		assert_false(jl_biglock_must_drop(&b));
	jl_biglock_waited(&b, b.switch_number, false);
	assert_false(jl_biglock_must_drop(&b));
}

/* Two waiters: W1 asks at 1, W2 at 3 (both see switch 1: H holds it).
 *   t=6   W1's interval passes, same hands: request. H's check point at 6: drop; W1 takes (switch 2).
 *   t=8   W2's interval passes: the lock changed hands since W2 began (2 != 1): no request; W2 waits
 *         again from 8, seeing 2.
 *   t=13  W2's interval passes with W1 still holding: request; W1 drops at its next check point; W2
 *         takes it (switch 3). A release without a request (W1's work ended) lets a waiter take it at once.
 */
static void test_a_change_of_hands_restarts_the_interval(void **state)
{
	struct jl_biglock b = { 0 };
	uint64_t w1, w2, seen;

	(void)state;
	assert_true(jl_biglock_try_take(&b));            /* H */
	assert_false(jl_biglock_try_take(&b));           /* t=1 W1 */
	w1 = b.switch_number;
	assert_false(jl_biglock_try_take(&b));           /* t=3 W2 */
	w2 = b.switch_number;
	jl_biglock_waited(&b, w1, true);                 /* t=6 */
	assert_true(jl_biglock_must_drop(&b));
	seen = jl_biglock_release(&b);                   /* H at its check point */
	assert_true(jl_biglock_try_take(&b));            /* W1 */
	assert_true(jl_biglock_switched(&b, seen));
	jl_biglock_waited(&b, w2, true);                 /* t=8: it changed hands since W2 began */
	assert_false(jl_biglock_must_drop(&b));
	assert_false(jl_biglock_try_take(&b));
	w2 = b.switch_number;
	jl_biglock_waited(&b, w2, true);                 /* t=13: W1 held it the whole interval */
	assert_true(jl_biglock_must_drop(&b));
	seen = jl_biglock_release(&b);                   /* W1 at its check point */
	assert_true(jl_biglock_try_take(&b));            /* W2 */
	assert_int_equal(b.switch_number, 3);
	jl_biglock_release(&b);                          /* W2's work ends: an unforced release */
	assert_true(jl_biglock_try_take(&b));            /* the next asker takes it at once */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_waiter_gets_it_at_the_next_check_point),
		cmocka_unit_test(test_no_waiter_no_drop),
		cmocka_unit_test(test_a_change_of_hands_restarts_the_interval),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
