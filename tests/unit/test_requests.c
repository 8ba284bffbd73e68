/* test_requests: a request's give-up and wasted work (rt/engine/request.h: jl_request_given_up,
 * jl_request_wasted) on hand-made chains of requests: a client's request to B, B's call to C. Every
 * figure is worked out by hand in the comments from the definitions (the earliest give-up on the
 * request's chain: its caller's, or its own deadline passing before its reply; wasted = service after
 * that), never with the code's arithmetic. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include <cmocka.h>

#include "rt/engine/request.h"

#define MS 1000000LL
#define T(ms) ((1000 + (ms)) * MS)

static void req(struct jl_request *r, int parent, int64_t created, int64_t deadline, int64_t start, int64_t end,
		int64_t gave_up)
{
	memset(r, 0, sizeof(*r));
	r->parent = parent;
	r->source = parent < 0 ? 0 : -1;
	r->created = created;
	r->deadline = deadline;
	r->start = start;
	r->end = end;
	atomic_store(&r->gave_up, gave_up);
}

/* The published case, deadline set, not propagated: the client's request (deadline 1 s) is served by B
 * from 0 to 5000 (B waits for C), B's call (no deadline, never given up) by C from 1 to 5001.
 * - the client's request: its deadline (1000) passed before its reply (5000): given up at 1000, B's
 *   service after it: 5000 - 1000 = 4000 ms wasted;
 * - B's call: its own give-up 0, no deadline; its parent's 1000: given up at 1000; C served 1..5001:
 *   5001 - 1000 = 4001 ms wasted. */
static void test_client_deadline_not_propagated(void **state)
{
	struct jl_request r[2];

	(void)state;
	req(&r[0], -1, T(0), T(1000), T(0), T(5000), 0);
	req(&r[1], 0, T(0), 0, T(1), T(5001), 0);
	assert_int_equal(jl_request_given_up(r, 2, &r[0]), T(1000));
	assert_int_equal(jl_request_given_up(r, 2, &r[1]), T(1000));
	assert_int_equal(jl_request_wasted(r, 2, &r[0]), 4000 * MS);
	assert_int_equal(jl_request_wasted(r, 2, &r[1]), 4001 * MS);
}

/* Propagated (margin 50): B's call carries 950 and B gives up at 950; C (cooperative, 100 ms slices)
 * stops at 1001; B replies at 951, before the client's 1000: the client's request is not given up
 * (0, nothing wasted: B's failure is a reply); the call is given up at 950: C's 1001 - 950 = 51 ms. */
static void test_propagated_deadline(void **state)
{
	struct jl_request r[2];

	(void)state;
	req(&r[0], -1, T(0), T(1000), T(0), T(951), 0);
	req(&r[1], 0, T(0), T(950), T(1), T(1001), T(950));
	assert_int_equal(jl_request_given_up(r, 2, &r[0]), 0);
	assert_int_equal(jl_request_wasted(r, 2, &r[0]), 0);
	assert_int_equal(jl_request_given_up(r, 2, &r[1]), T(950));
	assert_int_equal(jl_request_wasted(r, 2, &r[1]), 51 * MS);
}

/* A request that waited in its queue past its client's deadline (created 0, deadline 1000, served
 * 2000..3000): wasted is its whole service (from its start, the later of start and give-up): 1000 ms.
 * A refused one (no service) and one never served waste nothing. */
static void test_wasted_counts_service_only(void **state)
{
	struct jl_request r[3];

	(void)state;
	req(&r[0], -1, T(0), T(1000), T(2000), T(3000), 0);
	req(&r[1], -1, T(0), T(1000), 0, T(0), 0);
	req(&r[2], -1, T(0), T(1000), 0, 0, 0);
	assert_int_equal(jl_request_wasted(r, 3, &r[0]), 1000 * MS);
	assert_int_equal(jl_request_wasted(r, 3, &r[1]), 0);
	assert_int_equal(jl_request_given_up(r, 3, &r[2]), T(1000)); /* never replied: its deadline passed */
	assert_int_equal(jl_request_wasted(r, 3, &r[2]), 0);
}

/* The earliest give-up on the chain wins: a call given up at 700 under a client deadline of 1000 is
 * given up at 700; under a client whose deadline (400) came first, at 400 */
static void test_earliest_give_up_wins(void **state)
{
	struct jl_request r[2];

	(void)state;
	req(&r[0], -1, T(0), T(1000), T(0), T(2000), 0);
	req(&r[1], 0, T(1), 0, T(2), T(1500), T(700));
	assert_int_equal(jl_request_given_up(r, 2, &r[1]), T(700));
	r[0].deadline = T(400);
	assert_int_equal(jl_request_given_up(r, 2, &r[1]), T(400));
	assert_int_equal(jl_request_wasted(r, 2, &r[1]), 1100 * MS);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_client_deadline_not_propagated),
		cmocka_unit_test(test_propagated_deadline),
		cmocka_unit_test(test_wasted_counts_service_only),
		cmocka_unit_test(test_earliest_give_up_wins),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
