/* Unit tests of what kept an RT task waiting (rt/trace/analysis/bandwidth.c) and of the response window
 * (rt/trace/analysis/window.c), lost events, the VM heuristic and sample matching (rt/trace/analysis/feed.c,
 * rt/trace/analysis/decompose.c). Two fixtures are recorded traces (tests/unit/fixtures/, each says how it was
 * recorded and what it shows): RT throttling and the fair server, as Linux 6.18 produces them on our
 * VMs. The rest are hand-made sequences, each saying which rule it shows. */
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/trace/analysis/advice.h"
#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/event.h"
#include "rt/trace/analysis/parts.h"
#include "rt/trace/analysis/worst.h"
#include "tests/unit/tev_builders.h"
#include "tests/unit/trace_fixture.h"

#define LOOP 100
#define HOG 200
#define CFS 300
#define HIGH 400

/* ---- hand-made event builders (tev_builders.h) ---- */

#define sw(...) tev_switch(__VA_ARGS__)
#define wake(us, cpu, cur, pid, prio) tev_wake(us, cpu, cur, pid, prio, JL_EVENT_WAKING)

static void setup_one(struct jl_analysis *an, int pid, const char *name, const struct jl_analysis_sample *s, size_t ns)
{
	struct jl_analysis_thread th = { 0 };

	snprintf(th.name, sizeof(th.name), "%s", name);
	th.pid = pid;
	th.measured = true;
	snprintf(th.policy, sizeof(th.policy), "FIFO 80");
	th.samples = s;
	th.nsamples = ns;
	assert_int_equal(jl_analysis_init(an, &th, 1, 2), 0);
}

static const struct jl_part *find_kind(const struct jl_cycle *c, int kind)
{
	for (int i = 0; i < c->nparts; i++)
		if ((int)c->parts[i].kind == kind)
			return &c->parts[i];
	return NULL;
}

/* The parts of every explained window add up to its length (release to wake, or to the end of the work
 * for a response window), within 1 us. */
static void assert_parts_add_up(const struct jl_cycle *c)
{
	int64_t sum = 0, whole = c->window == JL_WINDOW_RESPONSE ? c->end - c->release : c->latency_ns;

	for (int i = 0; i < c->nparts; i++)
		sum += c->parts[i].duration_ns;
	if (llabs(sum - whole) > 1000) {
		char text[2048];

		jl_cycle_format(c, "cycle", text, sizeof(text));
		print_error("parts add up to %lld ns, the window is %lld ns: %s\n", (long long)sum, (long long)whole, text);
		fail();
	}
}

/* Every part within its kind's meaning: "return" (the switch-in to the loop's own clock read) and
 * "switch from idle" take at most JL_SWITCH_IDLE_MAX_NS (the CPU is awake by then); a longer wait with no
 * event behind it is a part that says so, never one of these. */
static void assert_parts_bounded(const struct jl_cycle *c)
{
	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];

		if ((p->kind == JL_PART_OTHER && (!strcmp(p->name, "return") || !strcmp(p->name, "switch from idle")) &&
		     p->duration_ns > JL_SWITCH_IDLE_MAX_NS) ||
		    (p->kind == JL_PART_OTHER && !strncmp(p->name, "preempting ", 11) && p->duration_ns >= JL_UNPREEMPTED_NS)) {
			char text[2048];

			jl_cycle_format(c, "cycle", text, sizeof(text));
			print_error("\"%s\" %lld ns is beyond its bound: %s\n", p->name, (long long)p->duration_ns, text);
			fail();
		}
	}
}

/* The response window (a missed deadline) among W[0..NW), or NULL. */
static const struct jl_cycle *response_of(const struct jl_cycle *w, int nw)
{
	for (int i = 0; i < nw; i++)
		if (w[i].window == JL_WINDOW_RESPONSE)
			return &w[i];
	return NULL;
}

static const struct jl_cycle *worst_of(struct jl_analysis *an, struct jl_event *e, size_t n, struct jl_cycle *w, int *nw)
{
	assert_int_equal(jl_analysis_run(an, e, n), 0);
	assert_int_equal(jl_analysis_worst(an, 0, w, 5, 5, nw, NULL), 0);
	assert_true(*nw >= 1);
	for (int i = 0; i < *nw; i++) {
		assert_parts_add_up(&w[i]);
		assert_parts_bounded(&w[i]);
	}
	return &w[0];
}

/* A recorded RT throttling (FIXTURE, the loop PID's cycle S): the wait is one throttle part called NAME,
 * between LO and HI ns, the culprit; never "switch from idle" over 1 ms. The analysis is left in AN, the
 * worst cycle in W[0]. */
static const struct jl_cycle *recorded_throttle(struct jl_analysis *an, const char *fixture, int32_t pid,
						 struct jl_analysis_sample *s, struct jl_cycle *w, const char *name, int64_t lo,
						 int64_t hi)
{
	static struct jl_event e[512];
	const struct jl_cycle *c;
	const struct jl_part *p;
	size_t n = load_fixture(fixture, e, 512);
	int nw;

	assert_true(n > 5);
	setup_one(an, pid, "loop", s, 1);
	c = worst_of(an, e, n, w, &nw);
	p = find_kind(c, JL_PART_THROTTLE);
	assert_non_null(p);
	assert_string_equal(p->name, name);
	assert_true(p->duration_ns > lo && p->duration_ns < hi);
	assert_int_equal(jl_cycle_culprit(c), (int)(p - c->parts));
	for (int i = 0; i < c->nparts; i++)
		assert_true(c->parts[i].kind != JL_PART_OTHER || strcmp(c->parts[i].name, "switch from idle") ||
			    c->parts[i].duration_ns < 1000000);
	return c;
}

/* Recorded: RT throttling. The 48 ms the loop waited are one throttle part, "RT throttling", the culprit;
 * not "switch from idle". */
static void test_recorded_rt_throttling(void **state)
{
	struct jl_analysis_sample s[] = { { .release = 788387762576, .wake = 788435923660, .cycle = 311 } };
	struct jl_cycle w[10];
	char text[2048];
	struct jl_analysis an;
	const struct jl_cycle *c = recorded_throttle(&an, "rt-throttling.txt", 15273, s, w, "RT throttling", 40000000,
						   49000000);

	(void)state;
	jl_cycle_format(c, "loop", text, sizeof(text));
	assert_non_null(strstr(text, "RT throttled"));
	assert_non_null(strstr(text, "sched_rt_period_timer"));
	jl_analysis_free(&an);
}

/* Recorded on PREEMPT_RT (the RT lane's guest): the timer that ends throttling is followed by a 4.5 ms
 * tick handler on the loop's CPU before the switch-in. The handler is an IRQ part of its own and does not
 * count against the unthrottle's lead: the wait is still "RT throttling", never "switch from idle". */
static void test_recorded_rt_throttling_preempt_rt(void **state)
{
	struct jl_analysis_sample s[] = { { .release = 112601749007, .wake = 112652793917, .cycle = 276 } };
	struct jl_cycle w[10];
	struct jl_analysis an;
	const struct jl_cycle *c = recorded_throttle(&an, "rt-throttling-preempt-rt.txt", 347, s, w, "RT throttling",
						   40000000, 49000000);
	bool long_tick = false;

	(void)state;
	for (int i = 0; i < c->nparts; i++)
		long_tick |= c->parts[i].kind == JL_PART_IRQ && strstr(c->parts[i].name, "tick_sched_timer") &&
			     c->parts[i].duration_ns > 4000000;
	assert_true(long_tick);
	jl_analysis_free(&an);
}

/* Recorded with the default `trace = sched` (no timer events; this kernel records no switch out of the
 * idle task): the loop's RT queue was set aside (its spinner switched out runnable for a CFS kworker), the
 * CPU idled 47.5 ms, and the loop's first record came after. The wait is one throttle part, "RT
 * bandwidth" by the budget's shape, the culprit; the idle exit before it stays tens of us, and nothing
 * called "return" or "switch from idle" holds the wait (before: "idle exit 32 us + return 47482 us"). */
static void test_recorded_rt_throttling_sched_only(void **state)
{
	struct jl_analysis_sample s[] = { { .release = 14290476876374, .wake = 14290524390352, .cycle = 713 } };
	struct jl_cycle w[10];
	char text[2048], out[512];
	struct jl_trace_advice_in in;
	struct jl_analysis an;
	const struct jl_cycle *c = recorded_throttle(&an, "rt-throttling-sched-only.txt", 11124, s, w, "RT bandwidth",
						     45000000, 48000000);
	const struct jl_part *p = find_kind(c, JL_PART_IDLE_EXIT);

	(void)state;
	assert_true(p && p->duration_ns > 10000 && p->duration_ns < 100000); /* release -> waking: 31.6 us */
	jl_cycle_format(c, "loop", text, sizeof(text));
	assert_non_null(strstr(text, "with the shape of a budget"));
	/* the advice names who spent the budget: the spinner, the RT task that ran before the wait */
	jl_trace_advice_from_host(NULL, &in);
	assert_string_equal(jl_trace_advice(&an, c, &in, out, sizeof(out)), "rt-budget");
	assert_non_null(strstr(out, "spinner (pid 11125, RT 40) spent CPU 1's RT budget"));
	jl_analysis_free(&an);
}

/* Every bounded part kind at its bound and just past it (hand-made, no timer events): the switch out of
 * idle (1 ms), the return (1 ms), the idle exit from the release to the waking (5 ms) and a lower task's
 * preemption path (100 us). At the bound the part keeps its name; past it the time is a part that says
 * what it is (or that no event says why), and the parts still add up to the latency. */
static void test_part_bounds(void **state)
{
	static const struct {
		const char *what;
		int kind;        /* 0: idle -> switch, 1: return, 2: idle exit, 3: a CFS task kept running */
		int64_t us;      /* the stretch */
		int want_kind;
		const char *want;
	} cases[] = {
		{ "switch from idle at its bound", 0, 1000, JL_PART_OTHER, "switch from idle" },
		{ "switch from idle past it", 0, 1001, JL_PART_OTHER, "runnable, CPU idle" },
		{ "return at its bound", 1, 1000, JL_PART_OTHER, "return" },
		{ "return past it", 1, 1001, JL_PART_OTHER, "switched in, no event says why" },
		{ "idle exit at its bound", 2, 5000, JL_PART_IDLE_EXIT, "idle exit" },
		{ "idle exit past it", 2, 5001, JL_PART_OTHER, "woken late, CPU idle, no event says why" },
		{ "preempting under its bound", 3, 99, JL_PART_OTHER, "preempting scan" },
		{ "preempting at it", 3, 100, JL_PART_UNPREEMPTED, "scan kept running" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		const int64_t d = cases[k].us, rel = 1000;
		struct jl_event e[8];
		struct jl_analysis_sample s[1];
		struct jl_cycle w[10];
		const struct jl_cycle *c;
		struct jl_analysis an;
		int n = 0, nw;
		bool found = false;

		switch (cases[k].kind) {
		case 0: /* woken from idle at 1010, switched in D later */
			e[n++] = sw(0, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			e[n++] = wake(rel + 10, 1, 0, LOOP, 19);
			e[n++] = sw(rel + 10 + d, 1, 0, 120, 0, LOOP, 19, "control");
			e[n++] = sw(rel + 10 + d + 50, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			s[0] = (struct jl_analysis_sample){ .release = rel * 1000, .wake = (rel + 10 + d) * 1000 + 2000, .cycle = 1 };
			break;
		case 1: /* switched in at 1012, its clock read D later */
			e[n++] = sw(0, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			e[n++] = wake(rel + 10, 1, 0, LOOP, 19);
			e[n++] = sw(rel + 12, 1, 0, 120, 0, LOOP, 19, "control");
			e[n++] = sw(rel + 12 + d + 50, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			s[0] = (struct jl_analysis_sample){ .release = rel * 1000, .wake = (rel + 12 + d) * 1000, .cycle = 1 };
			break;
		case 2: /* the CPU idles D from the release to the waking */
			e[n++] = sw(0, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			e[n++] = wake(rel + d, 1, 0, LOOP, 19);
			e[n++] = sw(rel + d + 3, 1, 0, 120, 0, LOOP, 19, "control");
			e[n++] = sw(rel + d + 50, 1, LOOP, 19, 0x1, 0, 120, "swapper/1");
			s[0] = (struct jl_analysis_sample){ .release = rel * 1000, .wake = (rel + d + 3) * 1000 + 2000, .cycle = 1 };
			break;
		default: /* a CFS task still runs D after the waking */
			e[n++] = sw(0, 1, LOOP, 19, 0x1, CFS, 120, "scan");
			e[n++] = wake(rel + 10, 1, CFS, LOOP, 19);
			e[n++] = sw(rel + 10 + d, 1, CFS, 120, 0x100, LOOP, 19, "control");
			e[n++] = sw(rel + 10 + d + 50, 1, LOOP, 19, 0x1, CFS, 120, "scan");
			s[0] = (struct jl_analysis_sample){ .release = rel * 1000, .wake = (rel + 10 + d) * 1000 + 2000, .cycle = 1 };
			break;
		}
		setup_one(&an, LOOP, "control", s, 1);
		assert_int_equal(jl_analysis_run(&an, e, (size_t)n), 0);
		assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 5, &nw, NULL), 0);
		assert_true(nw >= 1);
		c = &w[0];
		assert_parts_add_up(c);
		assert_parts_bounded(c);
		for (int i = 0; i < c->nparts; i++)
			found |= (int)c->parts[i].kind == cases[k].want_kind && !strcmp(c->parts[i].name, cases[k].want) &&
				 c->parts[i].duration_ns >= (d - 10) * 1000;
		if (!found) {
			char text[2048];

			jl_cycle_format(c, "control", text, sizeof(text));
			print_error("%s: no \"%s\" part of %lld us: %s\n", cases[k].what, cases[k].want, (long long)d, text);
			fail();
		}
		jl_analysis_free(&an);
	}
}

/* Recorded on PREEMPT_RT (the RT lane's guest): a FIFO 40 loop waits 3.4 ms behind the handler thread of
 * IRQ 27 (FIFO 50). The part names the thread by its IRQ's number and full name (from irq_handler_entry;
 * the task name is cut at 15 characters), it is the culprit, and the advice offers both remedies (the
 * loop above FIFO 50, or IRQ 27 steered off CPU 1) since this run did neither. */
static void test_recorded_irq_thread_preempt_rt(void **state)
{
	static struct jl_event e[256];
	struct jl_analysis_sample s[] = { { .release = 19068747134, .wake = 19072369554, .cycle = 219 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	const struct jl_part *p;
	struct jl_trace_advice_in in;
	char out[512];
	struct jl_analysis an;
	size_t n = load_fixture("irq-thread-preempt-rt.txt", e, 256);
	int nw;

	(void)state;
	assert_true(n > 90);
	setup_one(&an, 173, "below", s, 1);
	snprintf(an.threads[0].policy, sizeof(an.threads[0].policy), "FIFO 40");
	c = worst_of(&an, e, n, w, &nw);
	p = find_kind(c, JL_PART_TASK);
	assert_non_null(p);
	assert_string_equal(p->name, "the handler thread irq/27 of IRQ 27 virtio1-requests");
	assert_int_equal(p->pid, 113);
	assert_int_equal(p->kprio, 49); /* FIFO 50 */
	assert_true(p->duration_ns > 3000000 && p->duration_ns < 3600000);
	assert_int_equal(jl_cycle_culprit(c), (int)(p - c->parts));
	in = (struct jl_trace_advice_in){ .dma_latency_us = 0, .irq_steered = 0 };
	assert_string_equal(jl_trace_advice(&an, c, &in, out, sizeof(out)), "irq-thread");
	assert_non_null(strstr(out, "priority = 51 or more"));
	assert_non_null(strstr(out, "steer IRQ 27 off CPU 1"));
	jl_analysis_free(&an);
}

/* PREEMPT_RT's threads by what they run: a FIFO 40 loop woken while the handler thread of IRQ 25 runs at
 * FIFO 50 waits behind it, named with the IRQ's number and full name (its task name is cut at 15
 * characters; the name comes from irq_handler_entry), and its policy. The same wait behind ktimers/1 says
 * it is the timer softirq's thread. */
static void test_rt_kernel_threads_named(void **state)
{
	static const struct { int pid; const char *comm, *want; } cases[] = {
		{ 112, "irq/25-virtio0-", "the handler thread irq/25 of IRQ 25 virtio0-requests" },
		{ 15, "ktimers/1", "ktimers/1, the timer softirq's thread" },
	};

	(void)state;
	for (size_t k = 0; k < sizeof(cases) / sizeof(cases[0]); k++) {
		struct jl_event e[] = {
			sw(0, 1, 0, 120, 0, CFS, 120, "scan"),
			ev(900, 1, CFS, JL_EVENT_IRQ_ENTRY, 25, "virtio0-requests"),
			wake(901, 1, CFS, cases[k].pid, 49),
			ev(902, 1, CFS, JL_EVENT_IRQ_EXIT, 25, NULL),
			sw(903, 1, CFS, 120, 0x100, cases[k].pid, 49, cases[k].comm),
			wake(1005, 1, cases[k].pid, LOOP, 59),
			sw(1400, 1, cases[k].pid, 49, 1, LOOP, 59, "control"),
		};
		struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1402000, .cycle = 3 } };
		struct jl_cycle w[10];
		const struct jl_cycle *c;
		const struct jl_part *p;
		char text[2048];
		struct jl_analysis an;
		int nw;

		setup_one(&an, LOOP, "control", s, 1);
		c = worst_of(&an, e, sizeof(e) / sizeof(e[0]), w, &nw);
		p = find_kind(c, JL_PART_TASK);
		assert_non_null(p);
		assert_int_equal(p->pid, cases[k].pid);
		assert_string_equal(p->name, cases[k].want);
		jl_cycle_format(c, "control", text, sizeof(text));
		assert_non_null(strstr(text, cases[k].want));
		assert_non_null(strstr(text, "RT 50")); /* kernel prio 49: FIFO 50 */
		jl_analysis_free(&an);
	}
}

/* Recorded with `trace = sched`: the throttle began while the loop slept (the spinner was preempted by
 * the loop, then the CPU idled with the spinner still runnable). The loop's wait is the budget's shape,
 * never "switched in, no event says why" (what this run read before the rule followed a preempted RT
 * task). */
static void test_recorded_rt_throttling_sched_only_asleep(void **state)
{
	struct jl_analysis_sample s[] = { { .release = 18572984889113, .wake = 18573024600665, .cycle = 186 } };
	struct jl_cycle w[10];
	struct jl_analysis an;

	(void)state;
	recorded_throttle(&an, "rt-throttling-sched-only-asleep.txt", 4585, s, w, "RT bandwidth", 39000000, 40000000);
	jl_analysis_free(&an);
}

/* Recorded: the fair server. The ~52 ms are "fair server", naming the CFS hog that ran, and it is the
 * culprit; the hog is never a blocking "task". */
static void test_recorded_fair_server(void **state)
{
	static struct jl_event e[512];
	struct jl_analysis_sample s[] = { { .release = 819599356994, .wake = 819652015548, .cycle = 291 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	const struct jl_part *p;
	char text[2048];
	struct jl_analysis an;
	size_t n = load_fixture("fair-server.txt", e, 512);
	int nw;

	(void)state;
	assert_true(n > 150);
	setup_one(&an, 15488, "loop", s, 1);
	c = worst_of(&an, e, n, w, &nw);
	p = find_kind(c, JL_PART_THROTTLE);
	assert_non_null(p);
	assert_string_equal(p->name, "fair server");
	assert_int_equal(p->pid, 15490);
	assert_true(p->duration_ns > 45000000 && p->duration_ns < 56000000);
	assert_int_equal(jl_cycle_culprit(c), (int)(p - c->parts));
	for (int i = 0; i < c->nparts; i++)
		assert_false(c->parts[i].kind == JL_PART_TASK && c->parts[i].pid == 15490);
	jl_cycle_format(c, "loop", text, sizeof(text));
	assert_non_null(strstr(text, "fair server: hog (pid 15490) ran"));
	jl_analysis_free(&an);
}

/* Hand-made: a CFS task keeps running 2 ms after the FIFO loop's wakeup, timer events recorded, no
 * bandwidth timer near: "unpreempted" (not preemptible, or the vCPU), never throttle, never "preempting". */
static void test_cfs_running_on_is_unpreempted_not_throttle(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, CFS, 120, "scan"),
		ev(1005, 1, CFS, JL_EVENT_TIMER_ENTRY, -1, "hrtimer_wakeup"),
		wake(1006, 1, CFS, LOOP, 19),
		ev(1007, 1, CFS, JL_EVENT_TIMER_EXIT, -1, NULL),
		sw(3000, 1, CFS, 120, 0x100, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 3002000, .cycle = 7 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	const struct jl_part *p;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	c = worst_of(&an, e, 5, w, &nw);
	assert_null(find_kind(c, JL_PART_THROTTLE));
	p = find_kind(c, JL_PART_UNPREEMPTED);
	assert_non_null(p);
	assert_int_equal(p->pid, CFS);
	assert_int_equal(p->duration_ns, 1993000); /* 1994 us less the 1 us of the hrtimer after the waking */
	assert_int_equal(jl_cycle_culprit(c), (int)(p - c->parts));
	jl_analysis_free(&an);
}

/* Hand-made: the same shape without timer events, 45 ms of a CFS task: the shape of a budget (the fair
 * server's 50 ms): "RT bandwidth", mechanism not told. */
static void test_budget_shape_without_timer_events(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, CFS, 120, "scan"),
		wake(1006, 1, CFS, LOOP, 19),
		sw(46000, 1, CFS, 120, 0x100, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 46002000, .cycle = 7 } };
	struct jl_cycle w[10];
	const struct jl_part *p;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	p = find_kind(worst_of(&an, e, 3, w, &nw), JL_PART_THROTTLE);
	assert_non_null(p);
	assert_string_equal(p->name, "RT bandwidth");
	assert_non_null(strstr(p->detail, "timer group"));
	jl_analysis_free(&an);
}

/* Hand-made: a 4 us switch from a CFS task is the preemption path: "preempting scan", no culprit. */
static void test_short_preemption_path(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, CFS, 120, "scan"),
		wake(1010, 1, CFS, LOOP, 19),
		sw(1014, 1, CFS, 120, 0x100, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1016000, .cycle = 1 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	c = worst_of(&an, e, 3, w, &nw);
	assert_int_equal(jl_cycle_culprit(c), -1);
	assert_null(find_kind(c, JL_PART_UNPREEMPTED));
	assert_null(find_kind(c, JL_PART_THROTTLE));
	assert_string_equal(find_kind(c, JL_PART_OTHER)->name, "preempting scan");
	jl_analysis_free(&an);
}

/* Hand-made: a miss caused during the work: the loop (FIFO 80) is preempted by a FIFO 90 thread for 8 ms
 * after its wakeup; the response window names it. */
static void test_response_window_preempted_by_higher(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, LOOP, 19, "control"),
		sw(1100, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
		wake(10000, 1, 0, LOOP, 19),
		sw(10010, 1, 0, 120, 0, LOOP, 19, "control"),
		wake(10500, 1, LOOP, HIGH, 9),
		sw(10502, 1, LOOP, 19, 0x100, HIGH, 9, "high"),
		sw(18502, 1, HIGH, 9, 0x1, LOOP, 19, "control"),
		sw(19000, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 10000000, .wake = 10012000, .end = 18990000, .miss = true, .cycle = 1 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c = NULL;
	const struct jl_part *p = NULL;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	worst_of(&an, e, 8, w, &nw);
	c = response_of(w, nw);
	assert_non_null(c);
	assert_true(c->miss);
	assert_int_equal(c->end - c->release, 8990000);
	assert_int_equal(c->latency_ns, 12000); /* its wakeup latency */
	for (int i = 0; i < c->nparts; i++)
		if (c->parts[i].kind == JL_PART_TASK && c->parts[i].pid == HIGH)
			p = &c->parts[i];
	assert_non_null(p);
	assert_int_equal(p->duration_ns, 8000000);
	assert_int_equal(jl_cycle_culprit(c), (int)(p - c->parts));
	assert_non_null(find_kind(c, JL_PART_RUNNING));
	jl_analysis_free(&an);
}

/* Hand-made: the loop blocks inside its work (a pipe read) until a CFS writer wakes it, and a second
 * time until an hrtimer wakes it: blocked parts name the writer and the timer, not the interrupted task. */
static void test_response_window_blocked(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, LOOP, 19, "control"),
		sw(200, 1, LOOP, 19, 0x1, CFS, 120, "writer"),    /* blocks in read() */
		wake(5200, 1, CFS, LOOP, 19),                      /* the writer wakes it */
		sw(5203, 1, CFS, 120, 0x100, LOOP, 19, "control"),
		sw(5300, 1, LOOP, 19, 0x1, CFS, 120, "writer"),   /* nanosleep inside the work */
		ev(8300, 1, CFS, JL_EVENT_TIMER_ENTRY, -1, "hrtimer_wakeup"),
		wake(8301, 1, CFS, LOOP, 19),                      /* raised in the timer: cur is the writer */
		ev(8302, 1, CFS, JL_EVENT_TIMER_EXIT, -1, NULL),
		sw(8304, 1, CFS, 120, 0x100, LOOP, 19, "control"),
		sw(9000, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 0, .wake = 10000, .end = 8990000, .miss = true, .cycle = 0 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c = NULL;
	const struct jl_part *by_task = NULL, *by_timer = NULL;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 10), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 5, &nw, NULL), 0);
	c = response_of(w, nw);
	assert_non_null(c);
	for (int i = 0; i < c->nparts; i++) {
		if (c->parts[i].kind != JL_PART_BLOCKED)
			continue;
		if (strstr(c->parts[i].name, "writer"))
			by_task = &c->parts[i];
		if (strstr(c->parts[i].name, "hrtimer hrtimer_wakeup"))
			by_timer = &c->parts[i];
	}
	assert_non_null(by_task);
	assert_int_equal(by_task->pid, CFS);
	assert_int_equal(by_task->duration_ns, 5000000);
	assert_non_null(by_timer);
	assert_int_equal(by_timer->duration_ns, 3001000);
	jl_analysis_free(&an);
}

/* Hand-made: the loop blocks inside its work on a PI lock that a FIFO 10 thread holds; as it blocks it
 * raises the holder to its own priority (sched_pi_setprio, written by the loop), and the holder wakes it
 * when it lets go. The response window names the lock's holder and the boost. */
static void test_pi_lock_holder_named(void **state)
{
	const int low = 400;
	struct jl_event boost = { .ts = 200000, .cpu = 1, .kind = JL_EVENT_PI_SETPRIO, .has_cur = true, .cur = LOOP,
				.pid = low, .prev_prio = 89, .prio = 19 };
	struct jl_event unboost = { .ts = 5201000, .cpu = 1, .kind = JL_EVENT_PI_SETPRIO, .has_cur = true, .cur = low,
				  .pid = low, .prev_prio = 19, .prio = 89 };
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, LOOP, 19, "control"),
		boost,
		sw(201, 1, LOOP, 19, 0x1, low, 19, "low"),          /* blocks; the holder runs, boosted */
		wake(5200, 1, low, LOOP, 19),                        /* the holder lets go */
		unboost,
		sw(5203, 1, low, 89, 0x100, LOOP, 19, "control"),
		sw(9000, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 0, .wake = 10000, .end = 8990000, .miss = true, .cycle = 0 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	const struct jl_part *blocked = NULL;
	struct jl_analysis an;
	int nw;

	(void)state;
	snprintf(e[0].prev_comm, sizeof(e[0].prev_comm), "swapper/1");
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, sizeof(e) / sizeof(e[0])), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 5, &nw, NULL), 0);
	c = response_of(w, nw);
	assert_non_null(c);
	assert_parts_add_up(c);
	for (int i = 0; i < c->nparts; i++)
		if (c->parts[i].kind == JL_PART_BLOCKED)
			blocked = &c->parts[i];
	assert_non_null(blocked);
	assert_string_equal(blocked->name, "blocked on a PI lock held by low (boosted to RT 80)");
	assert_int_equal(blocked->pid, low);
	assert_int_equal(blocked->duration_ns, 4999000);
	{
		struct jl_trace_advice_in in;
		char out[512];

		jl_trace_advice_from_host(NULL, &in);
		assert_string_equal(jl_trace_advice(&an, c, &in, out, sizeof(out)), "pi-holder");
	}
	jl_analysis_free(&an);
}

/* Hand-made, as on PREEMPT_RT (sched only): a SCHED_OTHER loop's timer expires in softirq, so ktimers/1
 * (FIFO 1) runs it and wakes the loop. Release -> waking is the idle exit, then the timer softirq in
 * ktimers/1 (named, not "timer interrupt late": the interrupt came on time), and the advice says
 * policy = fifo. */
static void test_cfs_loop_woken_by_ktimers(void **state)
{
	const int kt = 15;
	struct jl_event e[] = {
		sw(0, 1, LOOP, 120, 0x1, 0, 120, "swapper/1"),
		wake(1008, 1, 0, kt, 98),                          /* the hard IRQ wakes the timer softirq's thread */
		sw(1012, 1, 0, 120, 0, kt, 98, "ktimers/1"),
		wake(1180, 1, kt, LOOP, 120),                       /* it runs the expiry and wakes the loop */
		sw(1190, 1, kt, 98, 0x1, LOOP, 120, "control"),
		sw(1400, 1, LOOP, 120, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1192000, .cycle = 4 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	const struct jl_part *p;
	struct jl_trace_advice_in in;
	char out[512];
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	snprintf(an.threads[0].policy, sizeof(an.threads[0].policy), "CFS nice 0");
	c = worst_of(&an, e, sizeof(e) / sizeof(e[0]), w, &nw);
	p = find_kind(c, JL_PART_TIMER);
	assert_non_null(p);
	assert_string_equal(p->name, "timer softirq in ktimers/1");
	assert_int_equal(p->duration_ns, 168000); /* 1012 -> 1180 us */
	p = find_kind(c, JL_PART_IDLE_EXIT);
	assert_true(p && p->duration_ns == 12000); /* 1000 -> 1012 us */
	jl_trace_advice_from_host(NULL, &in);
	assert_string_equal(jl_trace_advice(&an, c, &in, out, sizeof(out)), "timer-softirq");
	assert_non_null(strstr(out, "policy = fifo"));
	jl_analysis_free(&an);
}

/* Hand-made: events were lost on CPU 1 while the loop worked, right after its switch-in (the CPU's last
 * record before the gap is a piece boundary): the timeline stops there, a "lost" part covers the gap,
 * and the missed cycle says so. */
static void test_lost_events_in_window(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
		wake(1000, 1, 0, LOOP, 19),
		sw(1001, 1, 0, 120, 0, LOOP, 19, "control"),
		ev(2000, 1, -1, JL_EVENT_LOST, 0, NULL),
		sw(2500, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1002000, .end = 2400000, .miss = true, .cycle = 3 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c = NULL;
	const struct jl_part *p;
	char text[1024];
	struct jl_analysis an;
	int nw;

	(void)state;
	e[3].prev_state = 40; /* 40 events lost */
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 5), 0);
	assert_int_equal(an.ngaps, 1);
	assert_int_equal(an.gaps[0].from, 1001000); /* the switch-in, the CPU's last record before the gap */
	assert_int_equal(an.gaps[0].to, 2000000);
	assert_true(jl_analysis_lost_in(&an, 1, 1500000, 1600000));
	assert_false(jl_analysis_lost_in(&an, 1, 2000000, 2400000));
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 5, &nw, NULL), 0);
	c = response_of(w, nw);
	assert_non_null(c);
	assert_true(c->lost_in_window);
	p = find_kind(c, JL_PART_LOST);
	assert_non_null(p);
	assert_int_equal(p->duration_ns, 999000); /* from its switch-in at 1001 us to the gap's end */
	assert_parts_add_up(c);
	jl_cycle_format(c, "control", text, sizeof(text));
	assert_non_null(strstr(text, "events were lost"));
	jl_analysis_free(&an);
}

/* Hand-made: 100 ms of CFS time, then the loop is woken and preempts it within 5 us; the RT period timer
 * happened to fire 2 ms before. That is no throttling (no RT time ran up to the stretch, and it is far
 * longer than a throttled share): just the preemption path. */
static void test_period_timer_nearby_is_not_throttling(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, CFS, 120, "scan"),
		ev(98000, 1, CFS, JL_EVENT_TIMER_ENTRY, -1, "sched_rt_period_timer"),
		ev(98001, 1, CFS, JL_EVENT_TIMER_EXIT, -1, NULL),
		wake(100000, 1, CFS, LOOP, 19),
		sw(100005, 1, CFS, 120, 0x100, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 100000000, .wake = 100007000, .cycle = 9 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	c = worst_of(&an, e, 5, w, &nw);
	assert_null(find_kind(c, JL_PART_THROTTLE));
	assert_int_equal(jl_cycle_culprit(c), -1);
	jl_analysis_free(&an);
}

/* Hand-made: the loop blocks in its work, is woken, is moved to CPU 1 and waits 499 us there behind a
 * FIFO 90 task: the response window keeps that wait and names the task. */
static void test_response_window_migration(void **state)
{
	struct jl_event e[] = {
		sw(0, 0, 0, 120, 0, LOOP, 19, "control"),
		sw(0, 1, 0, 120, 0, HIGH, 9, "high"),
		sw(100, 0, LOOP, 19, 0x1, 0, 120, "swapper/0"),
		wake(400, 0, 0, LOOP, 19),
		ev(401, 1, HIGH, JL_EVENT_MIGRATE, LOOP, NULL),
		sw(900, 1, HIGH, 9, 0x1, LOOP, 19, "control"),
		sw(950, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 0, .wake = 10000, .end = 940000, .miss = true, .cycle = 0 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c = NULL;
	int64_t behind = 0;
	struct jl_analysis an;
	int nw;

	(void)state;
	e[4].target_cpu = 1;
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 5, &nw, NULL), 0);
	c = response_of(w, nw);
	assert_non_null(c);
	for (int i = 0; i < c->nparts; i++)
		if (c->parts[i].kind == JL_PART_TASK && c->parts[i].pid == HIGH)
			behind += c->parts[i].duration_ns;
	assert_int_equal(behind, 499000);
	assert_int_equal(c->end - c->release, 940000);
	jl_analysis_free(&an);
}

/* Hand-made: the VM heuristic (a woken task's first record on a CPU believed idle is its switch-in) is used
 * on a CPU whose trace shows no switch out of idle, and not on one that records them. */
static void test_vm_heuristic_only_where_needed(void **state)
{
	struct jl_event e[] = {
		sw(0, 0, LOOP, 19, 0x1, 0, 120, "swapper/0"),
		sw(0, 1, CFS, 120, 0x1, 0, 120, "swapper/1"),
		/* CPU 0 records its switches out of idle */
		sw(100, 0, 0, 120, 0, HOG, 120, "hog"),
		sw(200, 0, HOG, 120, 0x1, 0, 120, "swapper/0"),
		/* CPU 1 does not: the loop is woken there and its next record is all there is */
		wake(1000, 1, 0, LOOP, 19),
		ev(1040, 1, LOOP, JL_EVENT_OTHER, 0, NULL),
		sw(1100, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
		/* on CPU 0 a record by a task while the CPU is idle is not taken as its switch-in */
		ev(1500, 0, CFS, JL_EVENT_OTHER, 0, NULL),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1042000, .cycle = 0 } };
	struct jl_analysis an;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 8), 0);
	assert_int_equal(an.vm_heuristic[1], 1);
	assert_int_equal(an.vm_heuristic[0], 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_int_equal(an.threads[0].pairs[0].switch_in, 1000000); /* the idle task's last record on CPU 1 */
	jl_analysis_free(&an);
}

/* Hand-made: a loop with a long period sleeps in 50 ms slices: the sample is paired with the first wakeup
 * at or after its release (the slice that ends at the release), not an earlier slice's, and the wakeup
 * metric counts only that one. */
static void test_match_first_wakeup_after_release(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
		wake(50000, 1, 0, LOOP, 19),                      /* a sleep slice ends */
		sw(50100, 1, 0, 120, 0, LOOP, 19, "control"),
		sw(50110, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
		wake(99999, 1, 0, LOOP, 19),                      /* the release (100 ms), trace clock 1 us behind */
		sw(100020, 1, 0, 120, 0, LOOP, 19, "control"),
		sw(100500, 1, LOOP, 19, 0x1, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 100000000, .wake = 100022000, .cycle = 0 } };
	struct jl_cycle w[10];
	struct jl_analysis an;
	int64_t *v;
	size_t n;
	int nw;

	(void)state;
	setup_one(&an, LOOP, "control", s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(nw, 1);
	assert_int_equal(w[0].waking, 99999000);
	v = jl_analysis_wakeups(&an, 0, 0, &n);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 21000);
	free(v);
	jl_analysis_free(&an);
}

/* Hand-made: the release -> waking part when the timer is in the trace: armed at the release with 50 us of
 * slack, the interrupt 30 us past the hard expiry while a CFS task ran, the handler 2 us to the waking. */
static void test_timer_split(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0x1, CFS, 120, "scan"),
		ev(10, 1, CFS, JL_EVENT_OTHER, 0, NULL),
		ev(1080, 1, CFS, JL_EVENT_TIMER_ENTRY, -1, "hrtimer_wakeup"),
		wake(1082, 1, CFS, LOOP, 19),
		ev(1083, 1, CFS, JL_EVENT_TIMER_EXIT, -1, NULL),
		sw(1085, 1, CFS, 120, 0x100, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1087000, .cycle = 1 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	char text[1024];
	struct jl_analysis an;
	int nw;

	(void)state;
	/* armed in the previous cycle (before the first record here): hrtimer_start before the switch */
	e[1].kind = JL_EVENT_TIMER_START;
	e[1].arg = 0xabc0;
	e[1].softexpires = 1000000;
	e[1].expires = 1050000;
	e[2].arg = 0xabc0;
	e[2].expires = 1079000; /* the interrupt's now */
	setup_one(&an, LOOP, "control", s, 1);
	c = worst_of(&an, e, 6, w, &nw);
	jl_cycle_format(c, "control", text, sizeof(text));
	/* 50 + 30 + 2 us to the waking; then 1 us of the callback and 2 us of scan to the switch, 2 us back */
	assert_string_equal(text, "control cycle 1: 87 us = timer slack 50 us + timer interrupt late 30 us + timer handler 2 us"
				  " + irq hrtimer hrtimer_wakeup 1 us + preempting scan 2 us + return 2 us");
	jl_analysis_free(&an);
}

/* Hand-made: the loop is woken onto CPU 0 (the wakeup places it there), waits behind a FIFO 90 task, is
 * moved to CPU 1 by a migration recorded there, waits behind another FIFO 90 task, runs on CPU 1: the wait
 * is read piece by piece on each runqueue. */
static void test_wait_across_a_migration(void **state)
{
	struct jl_event e[] = {
		sw(0, 0, 0, 120, 0, HIGH, 9, "high0"),
		sw(0, 1, 0, 120, 0, HOG, 9, "high1"),
		wake(1000, 0, HIGH, LOOP, 19),
		ev(1001, 0, HIGH, JL_EVENT_MIGRATE, LOOP, NULL),   /* the wakeup's placement: CPU 0 */
		ev(1200, 1, HOG, JL_EVENT_MIGRATE, LOOP, NULL),    /* pulled to CPU 1 */
		sw(1300, 1, HOG, 9, 0x1, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1302000, .cycle = 5 } };
	struct jl_cycle w[10];
	const struct jl_cycle *c;
	struct jl_analysis an;
	int nw;
	int64_t on0 = 0, on1 = 0;

	(void)state;
	e[2].target_cpu = 1; /* the CPU it last ran on */
	e[3].target_cpu = 0;
	e[4].target_cpu = 1;
	setup_one(&an, LOOP, "control", s, 1);
	c = worst_of(&an, e, 6, w, &nw);
	for (int i = 0; i < c->nparts; i++) {
		if (c->parts[i].kind == JL_PART_TASK && c->parts[i].pid == HIGH)
			on0 += c->parts[i].duration_ns;
		if (c->parts[i].kind == JL_PART_TASK && c->parts[i].pid == HOG)
			on1 += c->parts[i].duration_ns;
	}
	assert_int_equal(on0, 200000); /* 1000 -> 1200 us on CPU 0 */
	assert_int_equal(on1, 100000); /* 1200 -> 1300 us on CPU 1 */
	assert_int_equal(c->migrations, 1);
	jl_analysis_free(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recorded_rt_throttling),
		cmocka_unit_test(test_recorded_rt_throttling_preempt_rt),
		cmocka_unit_test(test_recorded_rt_throttling_sched_only),
		cmocka_unit_test(test_recorded_rt_throttling_sched_only_asleep),
		cmocka_unit_test(test_part_bounds),
		cmocka_unit_test(test_rt_kernel_threads_named),
		cmocka_unit_test(test_recorded_irq_thread_preempt_rt),
		cmocka_unit_test(test_pi_lock_holder_named),
		cmocka_unit_test(test_cfs_loop_woken_by_ktimers),
		cmocka_unit_test(test_recorded_fair_server),
		cmocka_unit_test(test_cfs_running_on_is_unpreempted_not_throttle),
		cmocka_unit_test(test_budget_shape_without_timer_events),
		cmocka_unit_test(test_short_preemption_path),
		cmocka_unit_test(test_response_window_preempted_by_higher),
		cmocka_unit_test(test_response_window_blocked),
		cmocka_unit_test(test_lost_events_in_window),
		cmocka_unit_test(test_vm_heuristic_only_where_needed),
		cmocka_unit_test(test_match_first_wakeup_after_release),
		cmocka_unit_test(test_timer_split),
		cmocka_unit_test(test_period_timer_nearby_is_not_throttling),
		cmocka_unit_test(test_response_window_migration),
		cmocka_unit_test(test_wait_across_a_migration),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
