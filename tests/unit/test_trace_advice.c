/* test_trace_advice: the advice rules (rt/trace/analysis/advice.c), each on a hand-made cycle whose culprit
 * is the part a rule is keyed on, and what the run already does: a rule never says what the run follows
 * (the IRQ steered: only the priority; the loop above the IRQ threads and the IRQ steered: nothing). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt/trace/analysis/advice.h"
#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/parts.h"

static struct jl_analysis an;
static struct jl_analysis_thread th;

static void loop_is(const char *policy)
{
	memset(&an, 0, sizeof(an));
	memset(&th, 0, sizeof(th));
	snprintf(th.name, sizeof(th.name), "loop");
	snprintf(th.policy, sizeof(th.policy), "%s", policy);
	th.pid = 100;
	an.threads = &th;
	an.nthreads = 1;
}

/* A cycle on CPU 1 whose one long part is KIND NAME (kernel prio KPRIO), 10 ms. */
static struct jl_cycle cycle(int kind, const char *name, int kprio)
{
	struct jl_cycle c = { .thread = 0, .cpu = 1, .release = 1000, .waking = 2000, .switch_in = 3000, .wake = 4000 };

	c.parts[0] = (struct jl_part){ .kind = kind, .pid = kind == JL_PART_TASK ? 112 : -1, .kprio = kprio,
				       .duration_ns = 10000000 };
	snprintf(c.parts[0].name, sizeof(c.parts[0].name), "%s", name);
	snprintf(c.parts[0].policy, sizeof(c.parts[0].policy), "RT %d", 99 - kprio);
	c.parts[1] = (struct jl_part){ .kind = JL_PART_OTHER, .pid = -1, .duration_ns = 2000 };
	snprintf(c.parts[1].name, sizeof(c.parts[1].name), "return");
	c.latency_ns = 10002000;
	c.nparts = 2;
	return c;
}

static struct jl_trace_advice_in facts(bool vm, int irq_steered)
{
	struct jl_trace_advice_in in;

	jl_trace_advice_from_host(NULL, &in);
	in.vm = vm;
	in.irq_steered = irq_steered;
	in.dma_latency_us = 0;
	return in;
}

static void test_irq_thread_says_what_the_run_does_not(void **state)
{
	struct jl_cycle c = cycle(JL_PART_TASK, "the handler thread irq/25 of IRQ 25 virtio0-requests", 49);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("FIFO 40");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "irq-thread");
	assert_non_null(strstr(out, "priority = 51 or more"));
	assert_non_null(strstr(out, "steer IRQ 25 off CPU 1"));
	in.irq_steered = 1; /* the run already steers IRQs: only the priority */
	assert_non_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_non_null(strstr(out, "priority = 51 or more"));
	assert_null(strstr(out, "steer"));
	loop_is("FIFO 60"); /* above the IRQ threads and steering: nothing left to say */
	assert_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_string_equal(out, "");
}

static void test_throttle_and_fair_server(void **state)
{
	struct jl_cycle c = cycle(JL_PART_THROTTLE, "RT throttling", 120);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("FIFO 70");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "rt-budget");
	assert_non_null(strstr(out, "starve ksoftirqd, kworkers and RCU")); /* the warning with rt_runtime */
	c = cycle(JL_PART_THROTTLE, "fair server", 120);
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "fair-server");
	assert_non_null(strstr(out, "fair_server"));
}

static void test_cfs_loop_and_higher_rt(void **state)
{
	struct jl_cycle c = cycle(JL_PART_TASK, "scan", 120);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("CFS nice 0");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "cfs-loop");
	assert_non_null(strstr(out, "policy = fifo"));
	loop_is("FIFO 40");
	c = cycle(JL_PART_TASK, "hog", 9); /* FIFO 90 */
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "higher-rt-task");
	assert_non_null(strstr(out, "higher priority than 90"));
}

static void test_idle_exit_and_unpreempted_by_host(void **state)
{
	struct jl_cycle c = cycle(JL_PART_IDLE_EXIT, "idle exit", 0);
	struct jl_trace_advice_in in = facts(true, 0);
	char out[512];

	(void)state;
	loop_is("FIFO 80");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "idle-exit");
	assert_non_null(strstr(out, "hypervisor"));
	in.vm = false; /* bare metal, cpu_dma_latency already 0: no advice to hold it */
	assert_non_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_null(strstr(out, "cpu_dma_latency = 0us"));
	snprintf(in.idle_states, sizeof(in.idle_states), "POLL 0 us, C1 2 us, C6 170 us"); /* the states it saw */
	assert_non_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_non_null(strstr(out, "C6 170 us"));
	in.dma_latency_us = -1;
	assert_non_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_non_null(strstr(out, "cpu_dma_latency = 0us"));
	c = cycle(JL_PART_UNPREEMPTED, "scan kept running", 120);
	snprintf(in.preempt_mode, sizeof(in.preempt_mode), "voluntary");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "unpreempted");
	assert_non_null(strstr(out, "preempt=full"));
	in.rt_kernel = true;
	assert_non_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
	assert_non_null(strstr(out, "rare on PREEMPT_RT"));
}

/* An IPI is not a device IRQ: no steering advice for it, even unsteered; its own rule names who sent it. */
static void test_ipi_is_not_steered(void **state)
{
	struct jl_cycle c = cycle(JL_PART_IPI, "IPI reschedule", 0);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("FIFO 80");
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "ipi");
	assert_non_null(strstr(out, "woke a task onto this CPU"));
	assert_null(strstr(out, "irq_affinity"));
	c = cycle(JL_PART_IRQ, "36 virtio1", 0); /* a device's: the steering advice */
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "irq-on-cpu");
}

/* A request that waited for an exhausted pool gets the pool's remedies; a request that was on its way to a
 * free worker (an "other" part) gets none: nothing was exhausted. */
static void test_pool_exhausted(void **state)
{
	struct jl_cycle c = cycle(JL_PART_POOL, "pool: all 4 workers busy serving b.price", 0);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("CFS nice 0");
	/* a second stretch in which the workers served pings: the pool was held through both */
	c.parts[2] = c.parts[0];
	snprintf(c.parts[2].name, sizeof(c.parts[2].name), "pool: all 4 workers busy serving b.ping");
	c.parts[2].duration_ns = 3000000;
	c.nparts = 3;
	assert_string_equal(jl_trace_advice(&an, &c, &in, out, sizeof(out)), "pool");
	assert_string_equal(out, "the request waited 13.0 ms for a worker, its pool held (all 4 workers busy serving "
				 "b.price): more workers, a separate pool for the cheap methods, deadlines propagated (a "
				 "call then ends with its caller) or a limit on the slow method's queue");
	c = cycle(JL_PART_OTHER, "on its way to a free worker", 0);
	assert_null(jl_trace_advice(&an, &c, &in, out, sizeof(out)));
}

static void test_no_rule_no_advice(void **state)
{
	struct jl_cycle c = cycle(JL_PART_RUNNING, "running", 0);
	struct jl_trace_advice_in in = facts(false, 0);
	char out[512];

	(void)state;
	loop_is("FIFO 80");
	assert_null(jl_trace_advice(&an, &c, &in, out, sizeof(out))); /* the work itself: no guess */
	assert_string_equal(out, "");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_irq_thread_says_what_the_run_does_not),
		cmocka_unit_test(test_throttle_and_fair_server),
		cmocka_unit_test(test_cfs_loop_and_higher_rt),
		cmocka_unit_test(test_idle_exit_and_unpreempted_by_host),
		cmocka_unit_test(test_ipi_is_not_steered),
		cmocka_unit_test(test_pool_exhausted),
		cmocka_unit_test(test_no_rule_no_advice),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
