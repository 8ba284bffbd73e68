/* Unit tests of the wakeup pairing and latency decomposition (rt/trace/analysis/feed.c) on hand-written event
 * sequences: waking while running, switch-out before switch-in, migration, wakeup_new, a lost-event gap,
 * interleaved CPUs out of order, an untraced switch out of idle (also with two tasks woken from idle),
 * culprits and their priorities. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/event.h"
#include "rt/trace/analysis/parts.h"
#include "rt/trace/analysis/worst.h"
#include "tests/unit/tev_builders.h"

#define LOOP 100
#define HOG 200
#define CFS 300

/* event builders (tev_builders.h): no prev_state here, a waking of any kind */
#define sw(us, cpu, prev, pp, next, np, comm) tev_switch(us, cpu, prev, pp, 0, next, np, comm)
#define wake(...) tev_wake(__VA_ARGS__)

/* The part-kind registry: a row for every kind, names unique and JSON-safe; a cycle's parts come out in
 * the registry's rank order (lower first, the longest first within one rank), and the culprit is the
 * longest part whose kind may be one (a task only with a pid). The cycle is built here by hand. */
static void test_part_kind_registry(void **state)
{
	struct jl_analysis an;
	struct jl_cycle c;
	int best_rank = -1, lo = -1, hi = -1;

	/* the order and culprits explanations have always used (before the registry), and the kinds added
	 * since: kind, rank, culprit */
	static const struct { int kind, rank; bool culprit; const char *name; } was[] = {
		{ JL_PART_TIMER, 0, false, "timer" },     { JL_PART_IDLE_EXIT, 0, false, "idle-exit" },
		{ JL_PART_RUNNING, 0, false, "running" }, { JL_PART_EXECUTOR, 0, false, "executor" },
		{ JL_PART_THROTTLE, 1, true, "throttle" }, { JL_PART_TASK, 1, true, "task" },
		{ JL_PART_BLOCKED, 1, false, "blocked" }, { JL_PART_UNPREEMPTED, 1, true, "unpreempted" },
		{ JL_PART_IRQ, 2, false, "irq" },         { JL_PART_SOFTIRQ, 3, false, "softirq" },
		{ JL_PART_LOST, 4, false, "lost" },       { JL_PART_OTHER, 4, false, "other" },
		{ JL_PART_IPI, 2, false, "ipi" }, /* added with the registry: an IPI's handler was an "irq" */
		{ JL_PART_POOL, 0, false, "pool" },
	};

	(void)state;
	assert_int_equal(sizeof(was) / sizeof(was[0]), JL_PART_N);
	for (size_t i = 0; i < sizeof(was) / sizeof(was[0]); i++) {
		assert_int_equal(jl_part_kinds[was[i].kind].rank, was[i].rank);
		assert_int_equal(jl_part_kinds[was[i].kind].culprit, was[i].culprit);
		assert_string_equal(jl_part_kinds[was[i].kind].name, was[i].name);
	}
	assert_int_equal(jl_npart_kinds, JL_PART_N);
	for (int k = 0; k < JL_PART_N; k++) {
		assert_non_null(jl_part_kinds[k].name);
		assert_non_null(jl_part_kinds[k].help);
		assert_string_equal(jl_part_kind_name((enum jl_part_kind)k), jl_part_kinds[k].name);
		assert_int_equal(strspn(jl_part_kinds[k].name, "abcdefghijklmnopqrstuvwxyz-"), strlen(jl_part_kinds[k].name));
		for (int j = 0; j < k; j++)
			assert_string_not_equal(jl_part_kinds[j].name, jl_part_kinds[k].name);
		if (best_rank < jl_part_kinds[k].rank)
			best_rank = jl_part_kinds[k].rank;
	}
	/* two kinds of different rank: the higher-ranked one added first, and longer, comes out last */
	for (int k = 0; k < JL_PART_N; k++) {
		if (jl_part_kinds[k].rank == 0 && lo < 0 && k != JL_PART_OTHER)
			lo = k;
		if (jl_part_kinds[k].rank == best_rank && hi < 0 && k != JL_PART_OTHER)
			hi = k;
	}
	assert_true(lo >= 0 && hi >= 0 && lo != hi);
	memset(&an, 0, sizeof(an));
	memset(&c, 0, sizeof(c));
	jl_cycle_add_part(&c, hi, "high", -1, 0, 5000, NULL);
	jl_cycle_add_part(&c, lo, "low", -1, 0, 100, NULL);
	jl_cycle_add_part(&c, JL_PART_TASK, "spinner", 42, 10, 300, NULL);
	jl_cycle_add_part(&c, JL_PART_TASK, "nameless", 0, 10, 900, NULL);
	jl_analysis_finish_parts(&an, &c);
	assert_int_equal(c.parts[0].kind, lo);
	assert_int_equal(c.parts[c.nparts - 1].kind, hi);
	/* the 900 us task has no pid: never the culprit; the spinner is, unless a longer culprit kind exists */
	assert_true(jl_part_kinds[JL_PART_TASK].culprit);
	assert_string_equal(c.parts[jl_cycle_culprit(&c)].name,
			    jl_part_kinds[hi].culprit && 5000 > 300 ? "high" : "spinner");
}

/* The word-at-a-time name helpers give libc's answers: random names of every length, names that differ
 * only after their NUL (garbage left by a longer name), bytes 0x80 and 0x01 (the NUL test's false
 * positives lie above a real NUL only), names that fill the buffer. */
static void test_name_helpers_are_libc(void **state)
{
	static const unsigned char alphabet[] = { 'a', 'b', 0x01, 0x80, 0xff, 0x7f, ' ' };
	unsigned seed = 12345;

	(void)state;
	for (int iter = 0; iter < 200000; iter++) {
		char a[JL_EVENT_COMM], b[JL_EVENT_COMM];
		size_t la, lb;

		for (size_t i = 0; i < JL_EVENT_COMM; i++) { /* garbage everywhere first */
			seed = seed * 1103515245u + 12345u;
			a[i] = (char)alphabet[(seed >> 16) % sizeof(alphabet)];
			b[i] = (iter & 1) ? a[i] : (char)alphabet[(seed >> 20) % sizeof(alphabet)];
		}
		seed = seed * 1103515245u + 12345u;
		la = (seed >> 16) % JL_EVENT_COMM;
		lb = (iter & 3) == 0 ? la : (seed >> 24) % JL_EVENT_COMM;
		if ((iter & 7) == 2) /* the same name, different garbage after it */
			memcpy(b, a, la);
		a[la] = 0;
		b[lb] = 0;
		assert_int_equal(jl_event_same(a, b), strcmp(a, b) == 0);
		assert_int_equal(jl_event_same(b, a), strcmp(a, b) == 0);
		assert_int_equal(jl_event_len(a, JL_EVENT_COMM), strlen(a));
		assert_int_equal(jl_event_len(a, la), la); /* cut at MAX */
	}
}

static void setup_an(struct jl_analysis *an, const struct jl_analysis_sample *s, size_t ns)
{
	struct jl_analysis_thread th[2] = { 0 };

	snprintf(th[0].name, sizeof(th[0].name), "control");
	th[0].pid = LOOP;
	th[0].measured = true;
	snprintf(th[0].policy, sizeof(th[0].policy), "FIFO 80");
	th[0].samples = s;
	th[0].nsamples = ns;
	snprintf(th[1].name, sizeof(th[1].name), "scan.0");
	th[1].pid = HOG;
	snprintf(th[1].policy, sizeof(th[1].policy), "FIFO 90");
	assert_int_equal(jl_analysis_init(an, th, 2, 2), 0);
}

static const struct jl_part *find_part(const struct jl_cycle *c, int kind, const char *prefix)
{
	for (int i = 0; i < c->nparts; i++)
		if ((int)c->parts[i].kind == kind && !strncmp(c->parts[i].name, prefix, strlen(prefix)))
			return &c->parts[i];
	return NULL;
}

/* The basic case: idle CPU, timer fires, the loop is switched in. */
static void test_basic_pair_from_idle(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0, 120, "swapper/1"),
		wake(1030, 1, 0, LOOP, 19, JL_EVENT_WAKING),
		sw(1040, 1, 0, 120, LOOP, 19, "control"),
		sw(1100, 1, LOOP, 19, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1043000, .cycle = 7 } };
	struct jl_cycle w[5];
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 4), 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_int_equal(an.threads[0].pairs[0].switch_in - an.threads[0].pairs[0].waking, 10000);
	assert_int_equal(an.threads[0].switch_in, 1);
	assert_int_equal(an.threads[0].switch_out, 2);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(nw, 1);
	assert_int_equal(an.threads[0].matched, 1);
	assert_int_equal(w[0].cycle, 7);
	assert_int_equal(w[0].latency_ns, 43000);
	/* idle when the timer was due: the 30 us before the waking are idle exit */
	assert_non_null(find_part(&w[0], JL_PART_IDLE_EXIT, "idle exit"));
	assert_int_equal(find_part(&w[0], JL_PART_IDLE_EXIT, "idle exit")->duration_ns, 30000);
	assert_int_equal(find_part(&w[0], JL_PART_OTHER, "return")->duration_ns, 3000);
	assert_int_equal(jl_cycle_culprit(&w[0]), -1);
	jl_analysis_free(&an);
}

/* A waking while the task is still running is no wakeup: nothing pairs with the later switch-in. */
static void test_waking_while_running(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, LOOP, 19, "control"),
		wake(10, 1, LOOP, LOOP, 19, JL_EVENT_WAKING),
		sw(20, 1, LOOP, 19, 0, 120, "swapper/1"),
		sw(500, 1, 0, 120, LOOP, 19, "control"),
	};
	struct jl_analysis an;

	(void)state;
	setup_an(&an, NULL, 0);
	assert_int_equal(jl_analysis_run(&an, e, 4), 0);
	assert_int_equal(an.threads[0].npairs, 0);
	assert_int_equal(an.threads[0].wakings, 1);
	jl_analysis_free(&an);
}

/* The task switches out (on its old CPU) before its switch-in: the pending wake is dropped. */
static void test_switch_out_before_switch_in(void **state)
{
	struct jl_event e[] = {
		sw(0, 0, 0, 120, 55, 120, "other"),
		sw(1, 1, 0, 120, 56, 120, "other2"),
		wake(10, 0, 55, LOOP, 19, JL_EVENT_WAKING),
		sw(12, 1, LOOP, 19, 56, 120, "other2"),
		sw(40, 0, 55, 120, LOOP, 19, "control"),
	};
	struct jl_analysis an;

	(void)state;
	setup_an(&an, NULL, 0);
	assert_int_equal(jl_analysis_run(&an, e, 5), 0);
	assert_int_equal(an.threads[0].npairs, 0);
	assert_int_equal(an.threads[0].switch_out, 1);
	assert_int_equal(an.threads[0].switch_in, 1);
	jl_analysis_free(&an);
}

/* Woken on CPU 0, migrated, switched in on CPU 1 behind a FIFO 90 task: the pair and the wait are CPU 1's. */
static void test_migration(void **state)
{
	struct jl_event e[] = {
		sw(0, 0, 0, 120, CFS, 120, "sh"),
		sw(0, 1, 0, 120, HOG, 9, "scan"),
		wake(100, 0, CFS, LOOP, 19, JL_EVENT_WAKING),
		ev(101, 0, CFS, JL_EVENT_MIGRATE, LOOP, NULL),
		sw(400, 1, HOG, 9, LOOP, 19, "control"),
		sw(500, 0, CFS, 120, 0, 120, "swapper/0"),
	};
	struct jl_analysis_sample s[] = { { .release = 90000, .wake = 402000, .cycle = 3 } };
	struct jl_cycle w[5];
	const struct jl_part *p;
	struct jl_analysis an;
	int nw;

	(void)state;
	e[3].target_cpu = 1;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 6), 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_int_equal(an.threads[0].pairs[0].cpu, 1);
	assert_int_equal(an.threads[0].pairs[0].wake_cpu, 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(nw, 1);
	assert_int_equal(w[0].cpu, 1);
	p = &w[0].parts[jl_cycle_culprit(&w[0])];
	assert_int_equal(p->pid, HOG);
	assert_string_equal(p->name, "scan.0");
	assert_int_equal(p->duration_ns, 300000);
	assert_null(find_part(&w[0], JL_PART_TASK, "sh"));
	jl_analysis_free(&an);
}

/* A new thread's first wakeup (sched_wakeup_new) pairs like a waking. */
static void test_wakeup_new(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 120, "jitterlab"),
		wake(10, 1, CFS, LOOP, 120, JL_EVENT_WAKEUP_NEW),
		sw(25, 1, CFS, 120, LOOP, 120, "control"),
	};
	struct jl_analysis an;

	(void)state;
	setup_an(&an, NULL, 0);
	assert_int_equal(jl_analysis_run(&an, e, 3), 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_true(an.threads[0].pairs[0].new_task);
	assert_int_equal(an.threads[0].pairs[0].switch_in - an.threads[0].pairs[0].waking, 15000);
	jl_analysis_free(&an);
}

/* Events were lost between the waking and the switch-in: no pair is made across the gap. */
static void test_lost_event_gap(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 120, "sh"),
		wake(10, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		ev(50, 1, -1, JL_EVENT_LOST, 0, NULL),
		sw(60, 1, CFS, 120, LOOP, 19, "control"),
		sw(70, 1, LOOP, 19, CFS, 120, "sh"),
		wake(100, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		sw(104, 1, CFS, 120, LOOP, 19, "control"),
	};
	struct jl_analysis an;

	(void)state;
	e[2].prev_state = 12;
	setup_an(&an, NULL, 0);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	assert_int_equal(an.lost_gaps, 1);
	assert_int_equal(an.lost_events, 12);
	assert_int_equal(an.threads[0].npairs, 1); /* only the one after the gap */
	assert_int_equal(an.threads[0].pairs[0].waking, 100000);
	jl_analysis_free(&an);
}

/* Per-CPU streams given one after the other (CPU 0's, then CPU 1's): merged by time before pairing. */
static void test_interleaved_cpus_out_of_order(void **state)
{
	struct jl_event e[] = {
		/* CPU 0 */
		sw(0, 0, 0, 120, CFS, 120, "sh"),
		wake(100, 0, CFS, LOOP, 19, JL_EVENT_WAKING),
		sw(300, 0, CFS, 120, 0, 120, "swapper/0"),
		/* CPU 1 */
		sw(50, 1, 0, 120, HOG, 9, "scan"),
		sw(150, 1, HOG, 9, LOOP, 19, "control"),
		sw(170, 1, LOOP, 19, HOG, 9, "scan"),
	};
	struct jl_analysis an;

	(void)state;
	setup_an(&an, NULL, 0);
	assert_int_equal(jl_analysis_run(&an, e, 6), 0);
	for (int i = 1; i < 6; i++)
		assert_true(e[i].ts >= e[i - 1].ts);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_int_equal(an.threads[0].pairs[0].switch_in - an.threads[0].pairs[0].waking, 50000);
	assert_int_equal(an.threads[0].pairs[0].cpu, 1);
	jl_analysis_free(&an);
}

/* The loop's one worst cycle (cycle 812: released at 1 ms, awake at 1331 us) over the N events E: into
 * W[0], and its one-line form into TEXT. */
static void explain_812(struct jl_analysis *an, struct jl_event *e, int n, struct jl_cycle *w, char *text, size_t len)
{
	static struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1331000, .cycle = 812 } };
	int nw;

	setup_an(an, s, 1);
	assert_int_equal(jl_analysis_run(an, e, n), 0);
	assert_int_equal(jl_analysis_worst(an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(nw, 1);
	jl_cycle_format(&w[0], "control", text, len);
}

/* The text and parts of a cycle delayed by a FIFO 90 task and an IRQ. */
static void test_decomposition_text(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, HOG, 9, "scan"),
		wake(1005, 1, HOG, LOOP, 19, JL_EVENT_WAKING),
		ev(2000, 1, HOG, JL_EVENT_IRQ_ENTRY, 36, "virtio1"),
		ev(2006, 1, HOG, JL_EVENT_IRQ_EXIT, 36, NULL),
		ev(3000, 1, HOG, JL_EVENT_SOFTIRQ_ENTRY, 1, NULL),
		ev(3004, 1, HOG, JL_EVENT_SOFTIRQ_EXIT, 1, NULL),
		sw(1329, 1, HOG, 9, LOOP, 19, "control"),
	};
	struct jl_cycle w[5];
	char text[512];
	struct jl_analysis an;

	(void)state;
	/* irq and softirq inside the wait */
	e[2].ts = 1100000, e[3].ts = 1106000, e[4].ts = 1200000, e[5].ts = 1204000;
	explain_812(&an, e, 7, w, text, sizeof(text));
	assert_string_equal(text, "control cycle 812: 331 us = timer 5 us + waited 314 us behind scan.0 (pid 200, FIFO 90)"
				  " + irq 36 virtio1 6 us + softirq TIMER 4 us + return 2 us");
	assert_int_equal(find_part(&w[0], JL_PART_IRQ, "36 virtio1")->pid, 36);
	jl_analysis_free(&an);
}

/* An IPI's handler inside the wait is its own kind, named by the IPI, with no steering advice; a
 * device's IRQ beside it stays "irq". */
static void test_ipi_part(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, HOG, 9, "scan"),
		wake(1005, 1, HOG, LOOP, 19, JL_EVENT_WAKING),
		ev(1100, 1, HOG, JL_EVENT_IRQ_ENTRY, -2, "IPI reschedule"),
		ev(1108, 1, HOG, JL_EVENT_IRQ_EXIT, -2, NULL),
		ev(1200, 1, HOG, JL_EVENT_IRQ_ENTRY, 36, "virtio1"),
		ev(1206, 1, HOG, JL_EVENT_IRQ_EXIT, 36, NULL),
		sw(1329, 1, HOG, 9, LOOP, 19, "control"),
	};
	struct jl_cycle w[5];
	char text[512];
	struct jl_analysis an;

	(void)state;
	explain_812(&an, e, 7, w, text, sizeof(text));
	assert_string_equal(text, "control cycle 812: 331 us = timer 5 us + waited 310 us behind scan.0 (pid 200, FIFO 90)"
				  " + IPI reschedule 8 us + irq 36 virtio1 6 us + return 2 us");
	assert_int_equal(find_part(&w[0], JL_PART_IPI, "IPI reschedule")->pid, -2);
	assert_int_equal(find_part(&w[0], JL_PART_IRQ, "36 virtio1")->pid, 36);
	jl_analysis_free(&an);
}

/* The local APIC timer's interrupt (x86 irq_vectors:local_timer_*, irq -5) makes the waking and goes on
 * for 3 ms after it while a CFS hog is the interrupted task: the wait is that interrupt's, as the kernel's
 * osnoise accounting counts it (irq noise local_timer:236), not the hog "kept running while runnable". */
static void test_local_timer_irq_after_the_waking(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 120, "hog"),
		ev(1000, 1, CFS, JL_EVENT_IRQ_ENTRY, JL_EVENT_IRQ_LOCAL_TIMER, "LOC local timer"),
		wake(1005, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		ev(4000, 1, CFS, JL_EVENT_IRQ_EXIT, JL_EVENT_IRQ_LOCAL_TIMER, NULL),
		sw(4004, 1, CFS, 120, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 4006000, .cycle = 1 } };
	const struct jl_part *p;
	struct jl_cycle w[5];
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 5), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	p = find_part(&w[0], JL_PART_IRQ, "LOC local timer");
	assert_non_null(p);
	assert_int_equal(p->duration_ns, (4000 - 1005) * 1000);
	assert_int_equal(p->pid, JL_EVENT_IRQ_LOCAL_TIMER);
	assert_null(find_part(&w[0], JL_PART_UNPREEMPTED, "hog"));
	assert_null(find_part(&w[0], JL_PART_IPI, "LOC local timer"));
	jl_analysis_free(&an);
}

/* A CFS task preempted by the FIFO loop within 4 us is not a blocking task: that is the preemption path
 * ("preempting hog"). One that keeps running for long is named for it: test_trace_bandwidth.c. */
static void test_lower_priority_is_not_culprit(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 120, "hog"),
		wake(1010, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		sw(1014, 1, CFS, 120, LOOP, 19, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1016000, .cycle = 1 } };
	struct jl_cycle w[5];
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 3), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(jl_cycle_culprit(&w[0]), -1);
	assert_null(find_part(&w[0], JL_PART_TASK, "hog"));
	assert_non_null(find_part(&w[0], JL_PART_OTHER, "preempting hog"));
	assert_int_equal(find_part(&w[0], JL_PART_TIMER, "timer")->duration_ns, 10000);
	jl_analysis_free(&an);
}

/* A CFS loop: whatever ran first (even at a higher nice) had its fair share: it is a blocking task. */
static void test_cfs_loop_blames_any_task(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 125, "batchjob"),
		wake(1010, 1, CFS, LOOP, 120, JL_EVENT_WAKING),
		sw(3010, 1, CFS, 125, LOOP, 120, "control"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 3012000, .cycle = 4 } };
	struct jl_cycle w[5];
	const struct jl_part *p;
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 3), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_true(jl_cycle_culprit(&w[0]) >= 0);
	p = &w[0].parts[jl_cycle_culprit(&w[0])];
	assert_string_equal(p->name, "batchjob");
	assert_string_equal(p->policy, "CFS nice 5");
	assert_int_equal(p->duration_ns, 2000000);
	jl_analysis_free(&an);
}

/* A neighbour that is always late never hides the loop: each measured thread's worst cycle is listed. */
static void test_each_thread_has_its_worst(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, 120, "swapper/1"),
		wake(1000, 1, 0, HOG, 120, JL_EVENT_WAKING), sw(1900, 1, 0, 120, HOG, 120, "scan"),
		sw(1950, 1, HOG, 120, 0, 120, "swapper/1"),
		wake(2000, 1, 0, HOG, 120, JL_EVENT_WAKING), sw(2800, 1, 0, 120, HOG, 120, "scan"),
		sw(2850, 1, HOG, 120, 0, 120, "swapper/1"),
		wake(3000, 1, 0, LOOP, 19, JL_EVENT_WAKING), sw(3010, 1, 0, 120, LOOP, 19, "control"),
		sw(3050, 1, LOOP, 19, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample hs[] = { { .release = 1000000, .wake = 1900000, .cycle = 1 }, { .release = 2000000, .wake = 2800000, .cycle = 2 } };
	struct jl_analysis_sample ls[] = { { .release = 3000000, .wake = 3011000, .cycle = 9 } };
	struct jl_analysis_thread th[2] = { 0 };
	struct jl_cycle w[2];
	struct jl_analysis an;
	int nw;

	(void)state;
	snprintf(th[0].name, sizeof(th[0].name), "scan");
	th[0].pid = HOG, th[0].measured = true, th[0].samples = hs, th[0].nsamples = 2;
	snprintf(th[1].name, sizeof(th[1].name), "control");
	th[1].pid = LOOP, th[1].measured = true, th[1].samples = ls, th[1].nsamples = 1;
	assert_int_equal(jl_analysis_init(&an, th, 2, 2), 0);
	assert_int_equal(jl_analysis_run(&an, e, 10), 0);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 2, 0, &nw, NULL), 0);
	assert_int_equal(nw, 2);
	assert_int_equal(w[0].thread, 0);
	assert_int_equal(w[0].cycle, 1); /* scan's worst, 900 us */
	assert_int_equal(w[1].thread, 1);
	assert_int_equal(w[1].cycle, 9); /* the loop's only cycle replaced scan's second */
	jl_analysis_free(&an);
}

/* Misses too: a neighbour whose every cycle misses for long never hides a loop's one short miss. */
static void test_each_thread_has_its_longest_miss(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, 0, 120, "swapper/1"),
		wake(1000, 1, 0, HOG, 120, JL_EVENT_WAKING), sw(1900, 1, 0, 120, HOG, 120, "scan"),
		sw(1950, 1, HOG, 120, 0, 120, "swapper/1"),
		wake(2000, 1, 0, HOG, 120, JL_EVENT_WAKING), sw(2800, 1, 0, 120, HOG, 120, "scan"),
		sw(2850, 1, HOG, 120, 0, 120, "swapper/1"),
		wake(3000, 1, 0, LOOP, 19, JL_EVENT_WAKING), sw(3010, 1, 0, 120, LOOP, 19, "control"),
		sw(3050, 1, LOOP, 19, 0, 120, "swapper/1"),
	};
	/* scan's responses 5.9 ms and 5.8 ms, the loop's 50 us: all three missed their deadlines */
	struct jl_analysis_sample hs[] = { { .release = 1000000, .wake = 1900000, .end = 6900000, .miss = true, .cycle = 1 },
					   { .release = 2000000, .wake = 2800000, .end = 7800000, .miss = true, .cycle = 2 } };
	struct jl_analysis_sample ls[] = { { .release = 3000000, .wake = 3011000, .end = 3050000, .miss = true, .cycle = 9 } };
	struct jl_analysis_thread th[2] = { 0 };
	struct jl_cycle w[4];
	struct jl_analysis an;
	size_t misses = 0;
	int nw, responses = 0;
	bool loop_miss = false;

	(void)state;
	snprintf(th[0].name, sizeof(th[0].name), "scan");
	th[0].pid = HOG, th[0].measured = true, th[0].samples = hs, th[0].nsamples = 2;
	snprintf(th[1].name, sizeof(th[1].name), "control");
	th[1].pid = LOOP, th[1].measured = true, th[1].samples = ls, th[1].nsamples = 1;
	assert_int_equal(jl_analysis_init(&an, th, 2, 2), 0);
	assert_int_equal(jl_analysis_run(&an, e, 10), 0);
	/* one wakeup listed, two misses at most: the loop's miss takes the place of scan's shorter one */
	assert_int_equal(jl_analysis_worst(&an, 0, w, 1, 2, &nw, &misses), 0);
	assert_int_equal(misses, 3);
	for (int i = 0; i < nw; i++)
		if (w[i].window == JL_WINDOW_RESPONSE) {
			responses++;
			loop_miss |= w[i].thread == 1 && w[i].cycle == 9;
		}
	assert_int_equal(responses, 2);
	assert_true(loop_miss);
	jl_analysis_free(&an);
}

/* The kernel did not record the switch out of idle: the loop's first record places it (implicit),
 * at the idle task's last record. */
static void test_untraced_switch_from_idle(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0, 120, "swapper/1"),
		ev(1020, 1, 0, JL_EVENT_TIMER_ENTRY, 0, "hrtimer_wakeup"),
		wake(1021, 1, 0, LOOP, 19, JL_EVENT_WAKING),
		ev(1022, 1, 0, JL_EVENT_TIMER_EXIT, 0, NULL),
		ev(1090, 1, LOOP, JL_EVENT_OTHER, 0, NULL), /* e.g. hrtimer_start when the loop sleeps again */
		sw(1091, 1, LOOP, 19, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1026000, .cycle = 2 } };
	struct jl_cycle w[5];
	struct jl_analysis an;
	int nw;

	(void)state;
	setup_an(&an, s, 1);
	assert_int_equal(jl_analysis_run(&an, e, 6), 0);
	assert_int_equal(an.threads[0].npairs, 1);
	assert_true(an.threads[0].pairs[0].implicit);
	assert_int_equal(an.threads[0].pairs[0].switch_in, 1022000);
	assert_int_equal(an.threads[0].implicit_in, 1);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(w[0].latency_ns, 26000);
	assert_int_equal(find_part(&w[0], JL_PART_OTHER, "return")->duration_ns, 4000);
	jl_analysis_free(&an);
}

/* Both loops are woken on the idle CPU 1 (the switch out of idle is not recorded there). The FIFO loop
 * runs first and writes nothing until its own switch to the CFS loop: that switch record is its first
 * record on the CPU, so it was switched in (implicitly) at the idle task's last record, and the CFS loop
 * waited behind it, not behind a "switch from idle". */
static void test_untraced_switch_from_idle_two_woken(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, CFS, 120, 0, 120, "swapper/1"),
		wake(1011, 1, 0, LOOP, 19, JL_EVENT_WAKING),
		wake(1012, 1, 0, LOOP, 19, JL_EVENT_WAKEUP),
		wake(1014, 1, 0, CFS, 120, JL_EVENT_WAKING),
		wake(1015, 1, 0, CFS, 120, JL_EVENT_WAKEUP),
		sw(1216, 1, LOOP, 19, CFS, 120, "scan"), /* control's first (and only) record */
		sw(1300, 1, CFS, 120, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample sl[] = { { .release = 1000000, .wake = 1020000, .cycle = 4 } };
	struct jl_analysis_sample sc[] = { { .release = 1000000, .wake = 1217000, .cycle = 5 } };
	struct jl_analysis_thread th[2] = { 0 };
	const struct jl_cycle *scan = NULL;
	struct jl_cycle w[5];
	const struct jl_part *p;
	struct jl_analysis an;
	char text[256];
	int nw;

	(void)state;
	snprintf(th[0].name, sizeof(th[0].name), "control");
	th[0].pid = LOOP;
	th[0].measured = true;
	snprintf(th[0].policy, sizeof(th[0].policy), "FIFO 80");
	th[0].samples = sl;
	th[0].nsamples = 1;
	snprintf(th[1].name, sizeof(th[1].name), "scan");
	th[1].pid = CFS;
	th[1].measured = true;
	snprintf(th[1].policy, sizeof(th[1].policy), "OTHER nice 0");
	th[1].samples = sc;
	th[1].nsamples = 1;
	assert_int_equal(jl_analysis_init(&an, th, 2, 2), 0);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	/* the FIFO loop: switched in untraced at the idle task's last record */
	assert_int_equal(an.threads[0].npairs, 1);
	assert_true(an.threads[0].pairs[0].implicit);
	assert_int_equal(an.threads[0].pairs[0].waking, 1011000);
	assert_int_equal(an.threads[0].pairs[0].switch_in, 1015000);
	assert_int_equal(an.threads[0].implicit_in, 1);
	assert_int_equal(an.threads[0].switch_out, 1);
	/* the CFS loop: its switch-in is traced */
	assert_int_equal(an.threads[1].npairs, 1);
	assert_false(an.threads[1].pairs[0].implicit);
	assert_int_equal(an.threads[1].pairs[0].switch_in, 1216000);
	assert_int_equal(an.implicit_switches, 1);

	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(nw, 2);
	assert_int_equal(an.threads[0].matched, 1);
	assert_int_equal(an.threads[1].matched, 1);
	for (int i = 0; i < nw; i++)
		if (w[i].thread == 1)
			scan = &w[i];
	assert_non_null(scan);
	assert_int_equal(scan->latency_ns, 217000);
	assert_int_equal(find_part(scan, JL_PART_IDLE_EXIT, "idle exit")->duration_ns, 14000);
	assert_true(jl_cycle_culprit(scan) >= 0);
	p = &scan->parts[jl_cycle_culprit(scan)];
	assert_int_equal(p->pid, LOOP);
	assert_string_equal(p->name, "control");
	assert_string_equal(p->policy, "FIFO 80");
	assert_int_equal(p->duration_ns, 201000);
	assert_int_equal(find_part(scan, JL_PART_OTHER, "switch from idle")->duration_ns, 1000);
	assert_int_equal(find_part(scan, JL_PART_OTHER, "return")->duration_ns, 1000);
	jl_cycle_format(scan, "scan", text, sizeof(text));
	assert_string_equal(text, "scan cycle 5: 217 us = idle exit 14 us + waited 201 us behind control (pid 100, "
				  "FIFO 80) + switch from idle 1 us + return 1 us");
	jl_analysis_free(&an);
}

/* Samples before FROM are not measured; unmatched samples lower the matched count. */
static void test_matching_window(void **state)
{
	struct jl_event e[] = {
		sw(0, 1, 0, 120, CFS, 120, "sh"),
		wake(1000, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		sw(1002, 1, CFS, 120, LOOP, 19, "control"),
		sw(1010, 1, LOOP, 19, CFS, 120, "sh"),
		wake(2000, 1, CFS, LOOP, 19, JL_EVENT_WAKING),
		sw(2002, 1, CFS, 120, LOOP, 19, "control"),
		sw(2010, 1, LOOP, 19, CFS, 120, "sh"),
	};
	struct jl_analysis_sample s[] = { { .release = 1000000, .wake = 1003000, .cycle = 0 }, { .release = 2000000, .wake = 2003000, .cycle = 1 }, { .release = 3000000, .wake = 3003000, .cycle = 2 } };
	struct jl_cycle w[5];
	struct jl_analysis an;
	int64_t *v;
	size_t n;
	int nw;

	(void)state;
	setup_an(&an, s, 3);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	assert_int_equal(jl_analysis_worst(&an, 1500000, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(an.threads[0].measured_samples, 2);
	assert_int_equal(an.threads[0].matched, 1);
	assert_int_equal(nw, 1);
	assert_int_equal(w[0].cycle, 1);
	v = jl_analysis_wakeups(&an, 0, 1500000, &n);
	assert_int_equal(n, 1);
	assert_int_equal(v[0], 2000);
	free(v);
	jl_analysis_free(&an);
}

/* Two series written by one thread (two entries with one pid): the thread's wakeups go to the first
 * entry, and each series' samples are paired with them: the second series' worst cycle is explained
 * by the same wakeup as the first one's. */
static void two_series_one_thread(bool first_measured)
{
	struct jl_event e[] = {
		sw(0, 1, LOOP, 19, 0, 120, "swapper/1"),
		wake(1030, 1, 0, LOOP, 19, JL_EVENT_WAKING),
		sw(1040, 1, 0, 120, LOOP, 19, "control"),
		sw(1100, 1, LOOP, 19, 0, 120, "swapper/1"),
		wake(2005, 1, 0, LOOP, 19, JL_EVENT_WAKING),
		sw(2010, 1, 0, 120, LOOP, 19, "control"),
		sw(2050, 1, LOOP, 19, 0, 120, "swapper/1"),
	};
	struct jl_analysis_sample every[] = { { .release = 1000000, .wake = 1043000, .cycle = 1 },
					 { .release = 2000000, .wake = 2012000, .cycle = 2 } };
	struct jl_analysis_sample half[] = { { .release = 1000000, .wake = 1043000, .cycle = 0 } };
	struct jl_analysis_thread th[2] = { 0 };
	struct jl_cycle w[5];
	struct jl_analysis an;
	int nw, seen_half = 0;

	snprintf(th[0].name, sizeof(th[0].name), "x.every");
	snprintf(th[1].name, sizeof(th[1].name), "x.half");
	for (int i = 0; i < 2; i++) {
		th[i].pid = LOOP;
		th[i].measured = true;
		snprintf(th[i].policy, sizeof(th[i].policy), "FIFO 80");
	}
	/* an unmeasured first entry of the pid (a counters-only series) must not swallow its events */
	th[0].measured = first_measured;
	th[0].samples = every;
	th[0].nsamples = 2;
	th[1].samples = half;
	th[1].nsamples = 1;
	assert_int_equal(jl_analysis_init(&an, th, 2, 2), 0);
	assert_int_equal(an.threads[1].owner, first_measured ? 0 : 1);
	assert_int_equal(jl_analysis_thread_of(&an, LOOP), first_measured ? 0 : 1);
	assert_int_equal(jl_analysis_run(&an, e, 7), 0);
	assert_int_equal(an.threads[first_measured ? 0 : 1].npairs, 2);
	assert_int_equal(jl_analysis_worst(&an, 0, w, 5, 0, &nw, NULL), 0);
	assert_int_equal(an.threads[0].matched, first_measured ? 2 : 0);
	assert_int_equal(an.threads[1].matched, 1);
	assert_int_equal(an.threads[1].npairs, 2);
	for (int i = 0; i < nw; i++) {
		if (w[i].thread != 1)
			continue;
		seen_half++;
		assert_int_equal(w[i].latency_ns, 43000);
		assert_int_equal(w[i].waking, 1030000);
		assert_int_equal(w[i].switch_in, 1040000);
	}
	assert_int_equal(seen_half, 1);
	jl_analysis_free(&an);
}

static void test_two_series_one_thread(void **state)
{
	(void)state;
	two_series_one_thread(true);
	two_series_one_thread(false);
}

/* Pid churn (a kernel build, hackbench): 200000 short-lived tasks on CPU 0, each born, woken, run and
 * exited: half of them new pids, half reusing a pid every 4000. The table keeps only the live ones (it does not grow with the churn),
 * a reused pid is the new task (its own comm, never the old one's), and a waker is named by the task that
 * really woke the loop. */
static void test_pid_churn(void **state)
{
	struct jl_analysis an;
	char comm[24];

	(void)state;
	setup_an(&an, NULL, 0);
	for (int i = 0; i < 200000; i++) {
		int pid = i % 2 ? 300000 + i : 10000 + i % 4000; /* new pids, and pids reused every 4000 */
		int64_t t = (int64_t)i * 10;
		struct jl_event born = ev(t, 0, 0, JL_EVENT_NEWTASK, pid, NULL);
		struct jl_event dead = ev(t + 5, 0, pid, JL_EVENT_EXIT, pid, NULL);

		snprintf(comm, sizeof(comm), "job%d", i);
		snprintf(born.comm, sizeof(born.comm), "%s", comm);
		snprintf(dead.comm, sizeof(dead.comm), "%s", comm);
		assert_int_equal(jl_analysis_feed(&an, &born), 0);
		{
			struct jl_event w = tev_wake(t + 1, 0, 0, pid, 120, JL_EVENT_WAKEUP_NEW);
			struct jl_event in = tev_switch(t + 2, 0, 0, 120, 0, pid, 120, comm);

			snprintf(w.comm, sizeof(w.comm), "%s", comm);
			assert_int_equal(jl_analysis_feed(&an, &w), 0);
			assert_int_equal(jl_analysis_feed(&an, &in), 0);
		}
		assert_string_equal(jl_analysis_comm(&an, pid), comm); /* the live task, never a previous one */
		assert_int_equal(jl_analysis_feed(&an, &dead), 0);
		if (i % 3 == 0) { /* preempted while it exits: out still runnable, in again, then its last switch-out */
			struct jl_event pre = tev_switch(t + 6, 0, pid, 120, 0, 0, 120, "swapper/0");
			struct jl_event back = tev_switch(t + 7, 0, 0, 120, 0, pid, 120, comm);

			assert_int_equal(jl_analysis_feed(&an, &pre), 0);
			assert_int_equal(jl_analysis_feed(&an, &back), 0);
		}
		{
			struct jl_event out = tev_switch(t + 8, 0, pid, 120, 0x10 /* EXIT_DEAD */, 0, 120, "swapper/0");

			assert_int_equal(jl_analysis_feed(&an, &out), 0);
		}
		assert_string_equal(jl_analysis_comm(&an, pid), comm); /* gone from the table, its name kept */
	}
	/* what is left: the idle-side tasks the switches named, none of the 200000 */
	assert_true(jl_analysis_tasks_live(&an) < 16);
	assert_true(an.tasks_forgotten >= 200000);
	assert_true(an.task_cap <= 4096);
	jl_analysis_free(&an);
}

/* Live tasks beyond the first table size: it grows, every one still found with its own comm */
static void test_task_table_grows(void **state)
{
	struct jl_analysis an;
	char comm[24];

	(void)state;
	setup_an(&an, NULL, 0);
	for (int pid = 1; pid <= 20000; pid++) {
		struct jl_event w = tev_wake(pid, 0, 0, pid * 7, 120, JL_EVENT_WAKING);

		assert_int_equal(jl_analysis_feed(&an, &w), 0);
	}
	assert_int_equal(jl_analysis_tasks_live(&an), 20000);
	for (int pid = 1; pid <= 20000; pid++) {
		snprintf(comm, sizeof(comm), "t%d", pid * 7);
		assert_string_equal(jl_analysis_comm(&an, pid * 7), comm);
	}
	for (int pid = 1; pid <= 20000; pid += 2) { /* half exit: the others still found after the shifts */
		struct jl_event x = ev(30000 + pid, 0, pid * 7, JL_EVENT_EXIT, pid * 7, NULL);

		assert_int_equal(jl_analysis_feed(&an, &x), 0);
	}
	assert_int_equal(jl_analysis_tasks_live(&an), 10000);
	for (int pid = 2; pid <= 20000; pid += 2) {
		snprintf(comm, sizeof(comm), "t%d", pid * 7);
		assert_string_equal(jl_analysis_comm(&an, pid * 7), comm);
	}
	/* exited, born before the trace: out of the table, its name kept with it (a watched program that ends
	 * keeps its series' name); a task never seen has none */
	assert_string_equal(jl_analysis_comm(&an, 7), "t7");
	assert_int_equal(an.ngone, 10000);
	assert_null(jl_analysis_comm(&an, 3));
	jl_analysis_free(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pid_churn),
		cmocka_unit_test(test_task_table_grows),
		cmocka_unit_test(test_basic_pair_from_idle),
		cmocka_unit_test(test_waking_while_running),
		cmocka_unit_test(test_switch_out_before_switch_in),
		cmocka_unit_test(test_migration),
		cmocka_unit_test(test_wakeup_new),
		cmocka_unit_test(test_lost_event_gap),
		cmocka_unit_test(test_interleaved_cpus_out_of_order),
		cmocka_unit_test(test_decomposition_text),
		cmocka_unit_test(test_lower_priority_is_not_culprit),
		cmocka_unit_test(test_cfs_loop_blames_any_task),
		cmocka_unit_test(test_each_thread_has_its_worst),
		cmocka_unit_test(test_each_thread_has_its_longest_miss),
		cmocka_unit_test(test_untraced_switch_from_idle),
		cmocka_unit_test(test_untraced_switch_from_idle_two_woken),
		cmocka_unit_test(test_matching_window),
		cmocka_unit_test(test_two_series_one_thread),
		cmocka_unit_test(test_name_helpers_are_libc),
		cmocka_unit_test(test_part_kind_registry),
		cmocka_unit_test(test_ipi_part),
		cmocka_unit_test(test_local_timer_irq_after_the_waking),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
