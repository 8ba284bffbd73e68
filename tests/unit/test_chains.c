/* test_chains: a chain's data age, reaction time, per-stage breakdown and bound (rt/engine/chains.c) on
 * hand-made series: a 10 ms timer A, a callback B triggered by each of A's messages, a 33 ms poll C of
 * B's topic. Every expected figure is worked out by hand in the comments from the definitions in
 * chains.h (never with the code's own arithmetic).
 *
 * The runs (ms; A's run k released at r = 10k):
 *   A: ready r, start r+1, end r+2, origin r                                  (k = 0..9)
 *   B: ready r+2 (A's publish), start r+3, end r+5, origin r, from A run k      (k = 0..9)
 *   C: released 5, 38, 71; starts 1 ms later, ends 2 ms after that; reads the newest B that ended:
 *      at 6: B0 (ended 5), origin 0, end 8; at 39: B3 (ended 35), origin 30, end 41;
 *      at 72: B6 (ended 65; B7 ends at 75), origin 60, end 74. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/engine/chains.h"

#define MS 1000000LL
#define T0 1000 /* ms: the clock's zero is no time (an origin of 0 means no data) */
#define AT(ms) ((T0 + (ms)) * MS)

enum { A, B, C, NS };

static void series_init(struct jl_series *s, int id, const char *name, size_t cap)
{
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->id = id;
	s->has_origin = true;
	assert_int_equal(jl_series_alloc(s, cap), 0);
}

static void add(struct jl_series *s, uint32_t run, int64_t ready, int64_t start, int64_t end, int64_t origin, int src,
		uint32_t src_run)
{
	jl_series_append(s, &(struct jl_sample){ .release = AT(ready), .wake = AT(start), .end = AT(end),
						 .origin = AT(origin), .run = run, .src = (uint16_t)(src + 1),
						 .src_run = src_run });
}

/* A and B as above (B's runs stored in REVERSED order when asked: a reentrant series sorted afterwards
 * does not keep run = index) */
static void make_ab(struct jl_series *s, bool reversed)
{
	series_init(&s[A], A, "A", 16);
	series_init(&s[B], B, "B", 16);
	s[A].period_ns = 10 * MS;
	s[B].msgs.subscriber = true;
	for (int k = 0; k < 10; k++)
		add(&s[A], (uint32_t)k, 10 * k, 10 * k + 1, 10 * k + 2, 10 * k, -1, 0);
	for (int i = 0; i < 10; i++) {
		int k = reversed ? 9 - i : i;

		add(&s[B], (uint32_t)k, 10 * k + 2, 10 * k + 3, 10 * k + 5, 10 * k, A, (uint32_t)k);
	}
}

/* C, the 33 ms poll of B's topic, with no run yet */
static void c_empty(struct jl_series *s)
{
	series_init(&s[C], C, "C", 16);
	s[C].period_ns = 33 * MS;
	s[C].msgs.subscriber = s[C].msgs.poll = true;
}

static void make_c(struct jl_series *s)
{
	c_empty(s);
	add(&s[C], 0, 5, 6, 8, 0, B, 0);
	add(&s[C], 1, 38, 39, 41, 30, B, 3);
	add(&s[C], 2, 71, 72, 74, 60, B, 6);
}

static void free_all(struct jl_series *s, int n)
{
	for (int i = 0; i < n; i++)
		jl_series_free(&s[i]);
}

/* The chain A -> B -> C over the window [0, 100 ms):
 * - path A, B, C; 3 outputs (C's runs), all on it;
 * - breakdown, the output of origin 60 (the worst: 74 - 60 = 14): A wait 61-60 = 1, run 1; B wait
 *   63-62 = 1, run 2; C wait 72-65 = 7, run 2: 1+1+1+2+7+2 = 14. C's waits over the outputs: 6-5 = 1,
 *   39-35 = 4, 7: mean 4, max 7;
 * - inputs: A's runs released in the window, up to the newest origin an output carries (60): 0..60 = 7,
 *   pending 70, 80, 90 = 3; used 0, 30, 60, unused 10, 20, 40, 50 = 4;
 * - data age per used input (the last output that used it): 8, 11, 14: mean 11, max 14;
 * - reaction per input (the first output with data as new or newer): 0 -> 8; 10, 20, 30 -> the output
 *   of 30 ending at 41: 31, 21, 11; 40, 50, 60 -> the one of 60 ending at 74: 34, 24, 14.
 *   {8, 31, 21, 11, 34, 24, 14}: max 34, sum 143;
 * - bound: A's response (2) + B's (ready 2 -> end 5: 3) + C's period (33) and response (3) = 41. */
static void check_abc(const struct jl_chain *c)
{
	assert_int_equal(c->nstages, 3);
	assert_int_equal(c->stages[0].series, A);
	assert_int_equal(c->stages[1].series, B);
	assert_int_equal(c->stages[2].series, C);
	assert_int_equal(c->outputs, 3);
	assert_int_equal(c->other_paths, 0);
	assert_int_equal(c->broken, 0);
	assert_int_equal(c->worst_e2e, 14 * MS);
	assert_int_equal(c->worst_end, AT(74));
	assert_int_equal(c->stages[0].worst_wait, 1 * MS);
	assert_int_equal(c->stages[0].worst_run, 1 * MS);
	assert_int_equal(c->stages[1].worst_wait, 1 * MS);
	assert_int_equal(c->stages[1].worst_run, 2 * MS);
	assert_int_equal(c->stages[2].worst_wait, 7 * MS);
	assert_int_equal(c->stages[2].worst_run, 2 * MS);
	assert_int_equal(c->stages[2].wait.max, 7 * MS);
	assert_true(c->stages[2].wait.mean > 3.999 * MS && c->stages[2].wait.mean < 4.001 * MS);
	assert_int_equal(c->inputs, 7);
	assert_int_equal(c->pending_inputs, 3);
	assert_int_equal(c->unused_inputs, 4);
	assert_int_equal(c->data_age.n, 3);
	assert_int_equal(c->data_age.max, 14 * MS);
	assert_int_equal(c->data_age.min, 8 * MS);
	assert_true(c->data_age.mean > 10.999 * MS && c->data_age.mean < 11.001 * MS);
	assert_int_equal(c->reaction.n, 7);
	assert_int_equal(c->reaction.max, 34 * MS);
	assert_int_equal(c->reaction.min, 8 * MS);
	assert_true(c->reaction.mean * 7 > 142.999 * MS && c->reaction.mean * 7 < 143.001 * MS);
	assert_int_equal(c->bound_ns, 41 * MS);
}

static void test_chain_breakdown_age_reaction_bound(void **state)
{
	struct jl_series s[NS];
	struct jl_chain c;

	(void)state;
	make_ab(s, false);
	make_c(s);
	assert_int_equal(jl_chain_compute(s, NS, C, AT(0), AT(100), &c), 0);
	check_abc(&c);
	free_all(s, NS);
}

/* The same runs with B's samples stored out of run order: the links name runs, not indices */
static void test_chain_follows_runs_not_indices(void **state)
{
	struct jl_series s[NS];
	struct jl_chain c;

	(void)state;
	make_ab(s, true);
	make_c(s);
	assert_int_equal(jl_chain_compute(s, NS, C, AT(0), AT(100), &c), 0);
	check_abc(&c);
	free_all(s, NS);
}

/* The two-stage chain A -> B: every input is used by exactly one output, released at r + 2, ending at
 * r + 5: data age = reaction = 5 ms for each of the 10 inputs (B's last output, of origin 90, is in the
 * window: nothing pending); bound: A's response 2 + B's 3 = 5 */
static void test_chain_of_triggers(void **state)
{
	struct jl_series s[NS];
	struct jl_chain c;

	(void)state;
	make_ab(s, false);
	assert_int_equal(jl_chain_compute(s, 2, B, AT(0), AT(100), &c), 0);
	assert_int_equal(c.nstages, 2);
	assert_int_equal(c.outputs, 10);
	assert_int_equal(c.inputs, 10);
	assert_int_equal(c.pending_inputs, 0);
	assert_int_equal(c.unused_inputs, 0);
	assert_int_equal(c.data_age.min, 5 * MS);
	assert_int_equal(c.data_age.max, 5 * MS);
	assert_int_equal(c.reaction.max, 5 * MS);
	assert_int_equal(c.bound_ns, 5 * MS);
	free_all(s, 2);
}

/* A poll that reads the same message again (a re-read, C's run at 50 reading B3 once more, ending at
 * 53): input 30's data age is to the LAST output that used it, 53 - 30 = 23 (not 11), the worst output
 * is that re-read; its reaction stays the first output's (11). Output count 4. */
static void test_chain_data_age_is_the_last_use(void **state)
{
	struct jl_series s[NS];
	struct jl_chain c;

	(void)state;
	make_ab(s, false);
	c_empty(s);
	add(&s[C], 0, 5, 6, 8, 0, B, 0);
	add(&s[C], 1, 38, 39, 41, 30, B, 3);
	jl_series_append(&s[C], &(struct jl_sample){ .release = AT(50), .wake = AT(51), .end = AT(53), .origin = AT(30),
						     .run = 2, .src = B + 1, .src_run = 3, .reread = 1 });
	add(&s[C], 3, 71, 72, 74, 60, B, 6);
	assert_int_equal(jl_chain_compute(s, NS, C, AT(0), AT(100), &c), 0);
	assert_int_equal(c.outputs, 4);
	assert_int_equal(c.data_age.n, 3);
	assert_int_equal(c.data_age.max, 23 * MS); /* {8, 23, 14} */
	assert_int_equal(c.worst_e2e, 23 * MS);
	assert_int_equal(c.worst_end, AT(53));
	assert_int_equal(c.reaction.max, 34 * MS); /* unchanged: first outputs */
	assert_int_equal(c.stages[2].worst_wait, 51 * MS - 35 * MS);
	free_all(s, NS);
}

/* A lost link (C's run naming B's run 50, which no sample holds) is counted, never guessed; a link
 * before the window is followed (C's first output is in the window, its data older than it) */
static void test_chain_lost_link_is_counted(void **state)
{
	struct jl_series s[NS];
	struct jl_chain c;

	(void)state;
	make_ab(s, false);
	c_empty(s);
	add(&s[C], 0, 5, 6, 8, 0, B, 0);
	add(&s[C], 1, 38, 39, 41, 30, B, 50);
	add(&s[C], 2, 71, 72, 74, 60, B, 6);
	assert_int_equal(jl_chain_compute(s, NS, C, AT(3), AT(100), &c), 0);
	assert_int_equal(c.broken, 1);
	assert_int_equal(c.outputs, 2);
	/* the window starts at 3: input 0 is before it; inputs 10..60 (6), used 60 only (30's output was lost) */
	assert_int_equal(c.inputs, 6);
	assert_int_equal(c.unused_inputs, 5);
	assert_int_equal(c.worst_e2e, 14 * MS);
	free_all(s, NS);
}

/* Two heads into one end through a sync (a set's data is as old as its older part, whose path it
 * takes): 3 outputs come from X, 1 from Y. The chain is X's path, the other counted; a sync on the path
 * has no bound (it waits for a partner) */
static void test_chain_two_paths_through_a_sync(void **state)
{
	struct jl_series s[3];
	struct jl_chain c;

	(void)state;
	series_init(&s[0], 0, "X", 8);
	series_init(&s[1], 1, "Y", 8);
	series_init(&s[2], 2, "E", 8);
	s[2].msgs.subscriber = true;
	for (int k = 0; k < 4; k++) {
		add(&s[0], (uint32_t)k, 20 * k, 20 * k, 20 * k + 1, 20 * k, -1, 0);
		add(&s[1], (uint32_t)k, 20 * k + 3, 20 * k + 3, 20 * k + 4, 20 * k + 3, -1, 0);
	}
	for (int k = 0; k < 4; k++) {
		const int from = k == 2 ? 1 : 0;
		const int64_t origin = 20 * k + (from ? 3 : 0);

		jl_series_append(&s[2], &(struct jl_sample){ .release = AT(20 * k + 5), .wake = AT(20 * k + 6),
							     .end = AT(20 * k + 8), .origin = AT(origin), .run = (uint32_t)k,
							     .src = (uint16_t)(from + 1), .src_run = (uint32_t)k, .via_sync = 1 });
	}
	assert_int_equal(jl_chain_compute(s, 3, 2, AT(0), AT(100), &c), 0);
	assert_int_equal(c.nstages, 2);
	assert_int_equal(c.stages[0].series, 0);
	assert_int_equal(c.stages[1].via_sync, 1);
	assert_int_equal(c.outputs, 3);
	assert_int_equal(c.other_paths, 1);
	assert_int_equal(c.bound_ns, 0);
	/* X's inputs 0, 20, 40, 60; used 0, 20, 60 (E's output 2 came from Y); input 40's reaction: the
	 * next X output, of 60, ending at 68: 28 */
	assert_int_equal(c.inputs, 4);
	assert_int_equal(c.unused_inputs, 1);
	assert_int_equal(c.reaction.max, 28 * MS);
	free_all(s, 3);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_chain_breakdown_age_reaction_bound),
		cmocka_unit_test(test_chain_follows_runs_not_indices),
		cmocka_unit_test(test_chain_of_triggers),
		cmocka_unit_test(test_chain_data_age_is_the_last_use),
		cmocka_unit_test(test_chain_lost_link_is_counted),
		cmocka_unit_test(test_chain_two_paths_through_a_sync),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
