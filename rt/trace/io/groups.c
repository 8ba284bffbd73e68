/* groups: the registry of trace groups (one row per group: its events, its help) that the
 * capture, `jitterlab list`, doctor and trace.dat's event systems read. */
#include <stdio.h>
#include <string.h>

#include <tracefs.h>

#include "capture.h"
#include "trace.h"

/* What each group records. Only what the analysis reads (read.c), plus the rare task-lifetime events
 * the next analyses need. sched_wakeup is not recorded: the analysis starts a wakeup at sched_waking
 * (sched_wakeup only marks the task runnable a moment later, on the same path), and one event fewer per
 * wakeup is the cheapest cut; the reader still takes it from other traces. The task events live in the
 * `task` system but belong to `sched`: they are as rare as forks and renames, cost nothing per wakeup,
 * and without them a measured program's threads are nameless, so no separate group to forget. */
static const struct jl_trace_event sched_events[] = {
	{ "sched", "sched_waking", JL_TRACE_EV_REQUIRED, NULL },
	{ "sched", "sched_wakeup_new", 0, NULL },
	{ "sched", "sched_switch", JL_TRACE_EV_REQUIRED, NULL },
	{ "sched", "sched_migrate_task", 0, NULL },
	{ "sched", "sched_pi_setprio", 0, NULL },
	{ "sched", "sched_process_fork", 0, NULL },
	{ "sched", "sched_process_exit", 0, NULL },
	{ "task", "task_newtask", 0, NULL },
	{ "task", "task_rename", 0, NULL },
	{ NULL, NULL, 0, NULL },
};
/* IRQ and timer events are recorded only on the CPUs the measured threads may use (jl_trace_limit_local):
 * that is where their wakeups are decomposed. IPIs are recorded on the sender's CPU, so no CPU filter;
 * they exist since Linux 6.5 and are skipped where they do not. */
static const struct jl_trace_event irq_events[] = {
	{ "irq", "irq_handler_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq", "irq_handler_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "irq", "softirq_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq", "softirq_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "ipi", "ipi_send_cpu", 0, NULL },
	{ "ipi", "ipi_send_cpumask", 0, NULL },
	/* the IPI handlers on the receiving CPU (x86: irq_vectors), so a wait names them; absent elsewhere */
	{ "irq_vectors", "reschedule_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "reschedule_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "call_function_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "call_function_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "call_function_single_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "call_function_single_exit", JL_TRACE_EV_LOCAL, NULL },
	/* the local APIC timer's interrupt: the hrtimers' (the loop's own) */
	{ "irq_vectors", "local_timer_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "local_timer_exit", JL_TRACE_EV_LOCAL, NULL },
	{ NULL, NULL, 0, NULL },
};
/* A timer's life: armed (hrtimer_start: the requested expiry, the release of a program that sleeps on it),
 * its interrupt (local_timer_entry: when the hardware said so; also in irq), handed to HRTIMER_SOFTIRQ
 * where it is a soft timer (softirq_raise of that vector alone: on PREEMPT_RT every timer not marked hard,
 * run by ktimers/N), its expiry (the callback that wakes the task). */
static const struct jl_trace_event timer_events[] = {
	{ "timer", "hrtimer_start", JL_TRACE_EV_LOCAL, NULL },
	{ "timer", "hrtimer_expire_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "timer", "hrtimer_expire_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "local_timer_entry", JL_TRACE_EV_LOCAL, NULL },
	{ "irq_vectors", "local_timer_exit", JL_TRACE_EV_LOCAL, NULL },
	{ "irq", "softirq_raise", JL_TRACE_EV_LOCAL, "vec == 8" },
	{ NULL, NULL, 0, NULL },
};

/* The kernel's own interference accounting (Linux 5.16+): osnoise:* fire only on the CPUs where the
 * osnoise or timerlat tracer's workload samples (rtla osnoise / timerlat running), each an interference with
 * its start and its duration net of what nested in it. Useless in a normal run (nothing fires) and the
 * tracer disturbs a loop: `jitterlab cyclictest` records them on its timerlat column's run. */
static const struct jl_trace_event osnoise_events[] = {
	{ "osnoise", "irq_noise", 0, NULL },
	{ "osnoise", "softirq_noise", 0, NULL },
	{ "osnoise", "thread_noise", 0, NULL },
	{ "osnoise", "nmi_noise", 0, NULL },
	{ "osnoise", "sample_threshold", 0, NULL },
	{ NULL, NULL, 0, NULL },
};

const struct jl_trace_group jl_trace_groups[] = {
	{ JL_TRACE_SCHED, "sched", sched_events,
	  "wakeups and who held the CPU; priority inheritance; threads born, renamed, gone", false },
	{ JL_TRACE_IRQ, "irq", irq_events,
	  "interrupt time in a wait (IRQs, softirqs on the measured CPUs); inter-processor interrupts (6.5+)", false },
	{ JL_TRACE_TIMER, "timer", timer_events,
	  "timers armed, their interrupts and callbacks (on the measured CPUs), named in trace.dat: a program's "
	  "release from its timer (measure = wakeups)", false },
	{ JL_TRACE_OSNOISE, "osnoise", osnoise_events,
	  "the kernel's interference accounting (irq/softirq/thread/nmi noise): only while rtla timerlat or "
	  "osnoise runs (jitterlab cyclictest's timerlat column)", true },
};
const int jl_trace_ngroups = sizeof(jl_trace_groups) / sizeof(jl_trace_groups[0]);

int jl_trace_systems(unsigned groups, const char **out, int max)
{
	int n = 0;

	for (int g = 0; g < jl_trace_ngroups; g++) {
		if (!(groups & jl_trace_groups[g].bit))
			continue;
		for (const struct jl_trace_event *e = jl_trace_groups[g].events; e->name; e++) {
			char dir[96];
			int i;

			for (i = 0; i < n && strcmp(out[i], e->system); i++)
				;
			if (i < n || n == max)
				continue;
			snprintf(dir, sizeof(dir), "events/%s", e->system);
			if (tracefs_dir_exists(NULL, dir))
				out[n++] = e->system;
		}
	}
	return n;
}
