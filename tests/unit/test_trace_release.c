/* Unit tests of where a trace-only cycle begins (measure = wakeups: rt/trace/analysis/release.c, the timer
 * linked in feed.c, its parts in decompose.c): the requested expiry of the timer the thread slept on, or its
 * waking. The fixtures are recorded traces (tests/unit/fixtures/release/, each says how it was recorded):
 * every figure checked here is read off the fixture's own lines by hand (a timestamp, a softexpires), never
 * computed with the analysis' rules. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>

#include <cmocka.h>

#include "rt/base/series.h"
#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/parts.h"
#include "rt/trace/analysis/worst.h"
#include "tests/unit/trace_fixture.h"

#define MAXEV 128

/* The analysis of fixture NAME with thread PID measured from its wakeups alone (no samples: a trace-only
 * series), CLOCKS as the run read them. Its events stay in E (the caller's). */
static void analyse(struct jl_analysis *an, const char *name, int32_t pid, const struct jl_analysis_clocks *clocks,
		    struct jl_event *e, bool drop_arming)
{
	struct jl_analysis_thread th = { .pid = pid, .measured = true };
	char path[96];
	size_t n, k = 0;

	snprintf(th.name, sizeof(th.name), "loop.sleeper");
	snprintf(path, sizeof(path), "release/%s", name);
	n = load_fixture(path, e, MAXEV);
	assert_true(n > 5);
	for (size_t i = 0; i < n; i++) /* a recording that began mid-sleep holds no arming */
		if (!drop_arming || e[i].kind != JL_EVENT_TIMER_START)
			e[k++] = e[i];
	assert_int_equal(jl_analysis_init(an, &th, 1, 2), 0);
	if (clocks)
		an->clocks = *clocks;
	assert_int_equal(jl_analysis_run(an, e, k), 0);
}

/* The last wakeup of the measured thread, with its release and why. */
static const struct jl_pair *last_pair(const struct jl_analysis *an, int64_t *release, int *why)
{
	const struct jl_analysis_thread *t = &an->threads[0];

	assert_true(t->npairs >= 1);
	*release = jl_analysis_release(an, &t->pairs[t->npairs - 1], why);
	return &t->pairs[t->npairs - 1];
}

static const struct jl_part *part_named(const struct jl_cycle *c, const char *name)
{
	for (int i = 0; i < c->nparts; i++)
		if (!strcmp(c->parts[i].name, name))
			return &c->parts[i];
	return NULL;
}

/* The worst (here: the last, the only whole) cycle of the thread, its parts adding up to its latency. */
static void worst_cycle(struct jl_analysis *an, struct jl_cycle *c)
{
	struct jl_cycle w[8];
	int nw = 0;
	int64_t sum = 0;

	assert_int_equal(jl_analysis_worst(an, 0, w, 4, 0, &nw, NULL), 0);
	assert_true(nw >= 1);
	*c = w[0];
	for (int i = 0; i < c->nparts; i++)
		sum += c->parts[i].duration_ns;
	assert_true(llabs(sum - c->latency_ns) <= 1000);
}

/* cyclictest's loop after a late wakeup: it armed its next release 1.1 us before it was due and the timer
 * fired before it slept, a waking while it ran. Measured from the trace alone, that is a cycle of its own,
 * switched in at the waking (cyclictest prints it); for a thread whose cycles are its own samples it is no
 * wakeup. Every time is a line of the fixture. */
static void test_caught_running(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	const struct jl_analysis_thread *t;
	struct jl_analysis_thread sampled = { .pid = 17873, .measured = true, .sampled = true };
	int64_t r;
	int why;
	size_t n;

	(void)state;
	analyse(&an, "caught-running.txt", 17873, NULL, e, false);
	t = &an.threads[0];
	assert_int_equal(t->npairs, 2);
	assert_int_equal(t->caught_running, 1);
	assert_int_equal(t->pairs[0].switch_in, 39713373094382);   /* the late one, from idle */
	assert_int_equal(jl_analysis_release(&an, &t->pairs[0], &why), 39713372100107);
	assert_int_equal(t->pairs[1].waking, 39713373110162);      /* the caught one: its waking ... */
	assert_int_equal(t->pairs[1].switch_in, 39713373110162);   /* ... is its switch-in */
	assert_int_equal(t->pairs[1].cpu, 1);
	assert_false(t->pairs[0].caught_running);
	assert_true(t->pairs[1].caught_running);
	assert_int_equal(t->pairs[1].timer_irq, 39713373109501);   /* local_timer_entry */
	r = jl_analysis_release(&an, &t->pairs[1], &why);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(r, 39713373100107);                       /* softexpires of its arming */
	jl_analysis_free(&an);

	snprintf(sampled.name, sizeof(sampled.name), "loop.own");
	n = load_fixture("release/caught-running.txt", e, MAXEV);
	assert_int_equal(jl_analysis_init(&an, &sampled, 1, 2), 0);
	assert_int_equal(jl_analysis_run(&an, e, n), 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_int_equal(an.threads[0].caught_running, 0);
	jl_analysis_free(&an);
}

/* What is not a caught release (two hand-made sequences): a waking recorded on another CPU while the thread
 * is still inside schedule() on its own (its switch-out follows: it is switched out, then in), and a waking by
 * a timer that is not the thread's own (the tick). Neither makes a cycle at the waking. */
static void test_not_caught_running(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	const struct jl_analysis_thread *t;

	(void)state;
	analyse(&an, "caught-remote.txt", 17873, NULL, e, false);
	t = &an.threads[0];
	assert_int_equal(t->caught_running, 0);
	for (size_t i = 0; i < t->npairs; i++) /* no cycle 4 us long at the remote waking (39713.001004) */
		assert_int_not_equal(t->pairs[i].switch_in, 39713001004000);
	assert_int_equal(t->npairs, 1); /* the next release's, from idle at 39713.002008 */
	assert_int_equal(t->pairs[0].switch_in, 39713002008000);
	jl_analysis_free(&an);

	analyse(&an, "caught-tick.txt", 17873, NULL, e, false);
	t = &an.threads[0];
	assert_int_equal(t->caught_running, 0);
	assert_int_equal(t->npairs, 1); /* the waking at 39713.000400, switched in at .000401 */
	assert_int_equal(t->pairs[0].switch_in, 39713000401000);
	jl_analysis_free(&an);
}

/* Absolute clock_nanosleep at FIFO 80, woken from idle: from its softexpires (no slack), the interrupt late
 * while the CPU idled, the interrupt to the callback, the callback to the waking, then the switch-in. */
static void test_abs_fifo_from_its_timer(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	struct jl_cycle c;
	int64_t r;
	int why;
	const struct jl_pair *p;

	(void)state;
	analyse(&an, "abs-fifo.txt", 12404, NULL, e, false);
	p = last_pair(&an, &r, &why);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(r, 73339722751176);                    /* softexpires of its last arming */
	assert_int_equal(p->switch_in, 73339722815853);
	assert_int_equal(p->timer_irq, 73339722804401);          /* local_timer_entry */
	worst_cycle(&an, &c);
	assert_int_equal(c.release_by, JL_RELEASE_TIMER);
	assert_int_equal(c.latency_ns, 73339722815853 - 73339722751176);
	assert_null(part_named(&c, "timer slack"));
	assert_non_null(part_named(&c, "idle exit"));
	assert_int_equal(part_named(&c, "idle exit")->duration_ns, 73339722804401 - 73339722751176);
	assert_int_equal(part_named(&c, "timer interrupt")->duration_ns, 73339722805243 - 73339722804401);
	assert_int_equal(part_named(&c, "timer handler")->duration_ns, 73339722807006 - 73339722805243);
	jl_analysis_free(&an);
}

/* The same recording begun mid-sleep (no hrtimer_start): the waking, and why. */
static void test_mid_sleep_from_the_waking(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	struct jl_cycle c;
	int64_t r;
	int why;

	(void)state;
	analyse(&an, "abs-fifo.txt", 12404, NULL, e, true);
	last_pair(&an, &r, &why);
	assert_int_equal(r, 0);
	assert_int_equal(why, JL_RELEASE_WHY_UNARMED);
	worst_cycle(&an, &c);
	assert_int_equal(c.release_by, JL_RELEASE_WAKING);
	assert_int_equal(c.latency_ns, 73339722815853 - 73339722807006);
	jl_analysis_free(&an);
}

/* A relative nanosleep of a CFS task: armed REL with 50 us of slack, the interrupt after the hard expiry. */
static void test_rel_cfs_slack_then_late(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	struct jl_cycle c;
	int64_t r;
	int why;
	const struct jl_pair *p;

	(void)state;
	analyse(&an, "rel-cfs.txt", 14490, NULL, e, false);
	p = last_pair(&an, &r, &why);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(r, 73463312743815);
	assert_true(p->timer_mode & JL_HRTIMER_MODE_REL);
	worst_cycle(&an, &c);
	assert_int_equal(part_named(&c, "timer slack")->duration_ns, 73463312793815 - 73463312743815);
	/* from the hard expiry to the interrupt, the CPU idle */
	assert_int_equal(part_named(&c, "idle exit")->duration_ns, 73463312820476 - 73463312793815);
	jl_analysis_free(&an);
}

/* timerfd in epoll and a POSIX timer: timer objects, released at their softexpires. */
static void test_timer_objects(void **state)
{
	static const struct { const char *file; int32_t pid; int64_t release, switch_in; } cases[] = {
		{ "timerfd-epoll.txt", 12455, 73343860229808, 73343860264874 },
		{ "posix-timer.txt", 12506, 73347037032096, 73347037068385 },
	};
	struct jl_event e[MAXEV];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		struct jl_analysis an;
		int64_t r;
		int why;
		const struct jl_pair *p;

		analyse(&an, cases[i].file, cases[i].pid, NULL, e, false);
		p = last_pair(&an, &r, &why);
		assert_int_equal(why, JL_RELEASE_WHY_TIMER);
		assert_int_equal(r, cases[i].release);
		assert_int_equal(p->switch_in, cases[i].switch_in);
		jl_analysis_free(&an);
	}
}

/* A CLOCK_REALTIME timer: placed on the trace's clock with the offset the run read; without it, from the
 * waking (a clock not placed). */
static void test_realtime_placed_by_the_offset(void **state)
{
	/* now - timestamp of its hrtimer_expire_entry: the offset less the 0.3 us between them */
	struct jl_analysis_clocks clocks = { .known = true, .realtime = 1796472465976382639 - 73317159668707,
					     .tai = 1796472465976382639 - 73317159668707 + 37000000000LL };
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	int64_t r;
	int why;
	const struct jl_pair *p;

	(void)state;
	analyse(&an, "realtime.txt", 11987, &clocks, e, false);
	p = last_pair(&an, &r, &why);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(p->timer_clock, JL_TIMER_CLOCK_REALTIME);
	assert_true(llabs(r - 73317159640042) < 1000); /* where the run, with the offset it read, placed it */
	jl_analysis_free(&an);

	analyse(&an, "realtime.txt", 11987, NULL, e, false);
	last_pair(&an, &r, &why);
	assert_int_equal(r, 0);
	assert_int_equal(why, JL_RELEASE_WHY_CLOCK);
	jl_analysis_free(&an);

	clocks.stepped = true; /* the wall clock was set during the recording */
	analyse(&an, "realtime.txt", 11987, &clocks, e, false);
	last_pair(&an, &r, &why);
	assert_int_equal(why, JL_RELEASE_WHY_CLOCK);
	jl_analysis_free(&an);
}

/* poll with a timeout: a cycle its timeout ends is from the timer; one a message ends (the writer thread
 * wakes it) is from the waking, woken by that task. */
static void test_poll_timeout_and_message(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	const struct jl_analysis_thread *t;
	int why;

	(void)state;
	analyse(&an, "poll-message.txt", 12841, NULL, e, false);
	t = &an.threads[0];
	assert_int_equal(t->npairs, 2);
	assert_int_equal(jl_analysis_release(&an, &t->pairs[0], &why), 73381163330684);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(jl_analysis_release(&an, &t->pairs[1], &why), 0);
	assert_int_equal(why, JL_RELEASE_WHY_NOT_TIMER);
	assert_int_equal(t->pairs[1].waker_pid, 12843);
	assert_int_equal(t->pairs[1].waking, 73381168314609);
	jl_analysis_free(&an);
}

/* PREEMPT_RT (the RT lane's guest): a SCHED_OTHER sleeper's timer expires in HRTIMER_SOFTIRQ, run by
 * ktimers/1. From the interrupt that raised it to the expiry: the interrupt, the softirq thread's wait (here
 * the CPU idle) and run, one part named after ktimers/1. */
static void test_preempt_rt_soft_timer_names_ktimers(void **state)
{
	struct jl_event e[MAXEV];
	struct jl_analysis an;
	struct jl_cycle c;
	const struct jl_part *k;
	int64_t r;
	int why;
	const struct jl_pair *p;

	(void)state;
	analyse(&an, "ktimers-preempt-rt.txt", 157, NULL, e, false);
	p = last_pair(&an, &r, &why);
	assert_int_equal(why, JL_RELEASE_WHY_TIMER);
	assert_int_equal(r, 8852959511);
	assert_true(p->timer_in_softirq);
	assert_int_equal(p->timer_irq, 8853109471); /* the local timer interrupt that raised HRTIMER */
	assert_int_equal(p->timer_runner, 28);
	worst_cycle(&an, &c);
	assert_int_equal(part_named(&c, "timer slack")->duration_ns, 8853009511 - 8852959511);
	k = part_named(&c, "timer softirq in ktimers/1");
	assert_non_null(k);
	assert_int_equal(k->kind, JL_PART_TIMER);
	/* the interrupt (109471 -> 142371), ktimers/1 switched in to its softirq (155681 -> 171401), the softirq
	 * up to the expiry (171401 -> 177851) */
	assert_int_equal(k->duration_ns, (8853142371 - 8853109471) + (8853171401 - 8853155681) + (8853177851 - 8853171401));
	/* idle: from the hard expiry to the interrupt, and from its exit to ktimers' switch-in */
	assert_int_equal(part_named(&c, "idle exit")->duration_ns,
			 (8853109471 - 8853009511) + (8853155681 - 8853142371));
	assert_int_equal(part_named(&c, "timer handler")->duration_ns, 8853179691 - 8853177851);
	jl_analysis_free(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_abs_fifo_from_its_timer),
		cmocka_unit_test(test_caught_running),
		cmocka_unit_test(test_not_caught_running),
		cmocka_unit_test(test_mid_sleep_from_the_waking),
		cmocka_unit_test(test_rel_cfs_slack_then_late),
		cmocka_unit_test(test_timer_objects),
		cmocka_unit_test(test_realtime_placed_by_the_offset),
		cmocka_unit_test(test_poll_timeout_and_message),
		cmocka_unit_test(test_preempt_rt_soft_timer_names_ktimers),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
