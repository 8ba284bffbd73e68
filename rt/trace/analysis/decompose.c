/* decompose: the wakeup window's decomposition (release -> wake) into parts: the timer (slack, a
 * late interrupt, its handler, the timer softirq), the idle exit, what ran on the CPU meanwhile, and the
 * switch-in. The time a lower task or nothing ran while an RT task waited is classified by
 * bandwidth.c. Pure: no tracefs, no files, no globals; it only reads the analysis. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "decompose.h"
#include "parts.h"

static void add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d)
{
	jl_cycle_add_part(c, kind, name, pid, kprio, d, NULL);
}

static int64_t clip(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* What ran on CPU in [A, B) while the timer's interrupt had not come: idle is the idle exit; a task means
 * the interrupt came late while it ran (interrupts off, or the vCPU not running: the trace cannot tell);
 * IRQs and softirqs by name. Their sum. */
static int64_t add_interrupt_late(const struct jl_analysis *an, int cpu, int64_t a, int64_t b, struct jl_cycle *c)
{
	int64_t sum = 0;

	for (size_t i = jl_analysis_seg_find(an, cpu, a); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t x = s->start > a ? s->start : a, y = s->end < b ? s->end : b;

		if (s->start >= b)
			break;
		if (y <= x)
			continue;
		if (s->kind == JL_PART_OTHER && s->pid == 0)
			add_part(c, JL_PART_IDLE_EXIT, "idle exit", -1, 0, y - x);
		else if (s->kind == JL_PART_TASK)
			jl_cycle_add_part(c, JL_PART_TIMER, "timer interrupt late", s->pid, s->kprio, y - x,
					  "the interrupt came late while this task ran: interrupts off, or the vCPU "
					  "not running (the trace cannot tell)");
		else if (s->kind == JL_PART_LOST)
			jl_cycle_add_part(c, JL_PART_LOST, "lost events", -1, 0, y - x, "events were lost here");
		else
			add_part(c, s->kind, jl_analysis_name(an, s->name), s->pid, s->kprio, y - x);
		sum += y - x;
	}
	return sum;
}

/* From the interrupt (IRQ) to the expiry (ENTRY) of a soft timer: the interrupt raised HRTIMER_SOFTIRQ, run
 * on PREEMPT_RT by ktimers/N (the task the expiry ran in): its wait for the CPU (the tasks it waited behind,
 * named) and its run are the timer's softirq; on other kernels the softirq runs at the interrupt's exit. */
static int64_t add_softirq_handoff(const struct jl_analysis *an, const struct jl_pair *p, int64_t irq, int64_t entry,
				   struct jl_cycle *c)
{
	const char *comm = p->timer_runner > 0 ? jl_analysis_comm(an, p->timer_runner) : NULL;
	char name[JL_ANALYSIS_NAME_MAX + 32], detail[240];
	int64_t ran = 0, sum = 0;

	snprintf(name, sizeof(name), "timer softirq%s%s", comm ? " in " : "", comm ? comm : "");
	snprintf(detail, sizeof(detail), "the timer is a soft one: its interrupt raised HRTIMER_SOFTIRQ%s%s%s, which ran "
		 "its expiry", comm ? " and " : "", comm ? comm : "", comm ? " ran it (PREEMPT_RT)" : "");
	for (size_t i = jl_analysis_seg_find(an, p->timer_cpu, irq); i < an->nsegs[p->timer_cpu]; i++) {
		const struct jl_segment *s = &an->segs[p->timer_cpu][i];
		int64_t x = s->start > irq ? s->start : irq, y = s->end < entry ? s->end : entry;

		if (s->start >= entry)
			break;
		if (y <= x)
			continue;
		sum += y - x;
		if ((s->kind == JL_PART_TASK && s->pid == p->timer_runner) || s->kind == JL_PART_SOFTIRQ ||
		    (s->kind == JL_PART_IRQ && s->pid == JL_EVENT_IRQ_LOCAL_TIMER))
			ran += y - x; /* the interrupt that raised it, then the softirq (in its thread) */
		else if (s->kind == JL_PART_OTHER && s->pid == 0)
			add_part(c, JL_PART_IDLE_EXIT, "idle exit", -1, 0, y - x);
		else if (s->kind == JL_PART_LOST)
			jl_cycle_add_part(c, JL_PART_LOST, "lost events", -1, 0, y - x, "events were lost here");
		else /* what the softirq (its thread) waited behind */
			add_part(c, s->kind, jl_analysis_name(an, s->name), s->pid, s->kprio, y - x);
	}
	if (ran)
		jl_cycle_add_part(c, JL_PART_TIMER, name, p->timer_runner > 0 ? p->timer_runner : -1, 0, ran, detail);
	return sum;
}

/* Release -> waking when the hrtimer that woke the task is in the trace: the slack it was armed with
 * (expires - softexpires: the kernel may fire it anywhere in between), the interrupt's lateness from there
 * to the local timer interrupt (where recorded; else to the expiry) with what ran on that CPU meanwhile
 * (add_interrupt_late), then the handler: for a soft timer the softirq's hand-off (add_softirq_handoff),
 * then the callback up to the waking. What the trace does not explain stays "timer". */
static void add_timer_parts(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			    int64_t pre)
{
	const int64_t end = p->waking, entry = clip(p->timer_entry, release, end);
	/* the interrupt, where it lies between the release and the expiry (an older one is a soft pass' stale
	 * raise: not this timer's) */
	const int64_t irq = p->timer_irq >= release && p->timer_irq <= entry ? p->timer_irq : entry;
	int64_t t = release, sum = 0, d;
	char detail[160];

	if (p->timer_expires > p->timer_soft && p->timer_soft > 0) {
		d = clip(p->timer_expires < p->timer_now ? p->timer_expires : p->timer_now, release, irq) - release;
		snprintf(detail, sizeof(detail), "armed with %lld us of slack (expires - softexpires)",
			 (long long)((p->timer_expires - p->timer_soft) / 1000));
		jl_cycle_add_part(c, JL_PART_TIMER, "timer slack", -1, 0, d, detail);
		sum += d;
		t += d;
	}
	if (p->timer_cpu >= 0 && p->timer_cpu < an->ncpus && irq > t)
		sum += add_interrupt_late(an, p->timer_cpu, t, irq, c);
	if (p->timer_cpu >= 0 && p->timer_cpu < an->ncpus && entry > irq) {
		if (p->timer_in_softirq) {
			sum += add_softirq_handoff(an, p, irq, entry, c);
		} else {
			jl_cycle_add_part(c, JL_PART_TIMER, "timer interrupt", -1, 0, entry - irq,
					  "from the local timer interrupt's entry to the hrtimer callback's");
			sum += entry - irq;
		}
	}
	if (end > entry) {
		jl_cycle_add_part(c, JL_PART_TIMER, "timer handler", -1, 0, end - entry,
				  "from the hrtimer callback's entry to the waking");
		sum += end - entry;
	}
	if (pre > sum)
		add_part(c, JL_PART_TIMER, "timer", -1, 0, pre - sum);
}

/* Release -> waking when ktimers/N woke the task (PREEMPT_RT: a SCHED_OTHER task's hrtimer expires in
 * softirq, which that thread runs): the time ktimers ran before the waking is the timer's softirq, named;
 * idle before it is the idle exit; the rest (the hard IRQ, ktimers' own wakeup) stays "timer". */
static bool add_timer_softirq(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			      int64_t pre)
{
	int cpu = p->wake_cpu;
	int64_t ran = 0, idle = 0, other = 0;
	char name[JL_ANALYSIS_NAME_MAX + 32], detail[200];
	const char *comm = jl_analysis_comm(an, p->waker_pid);

	for (size_t i = jl_analysis_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t a = s->start > release ? s->start : release, b = s->end < p->waking ? s->end : p->waking;

		if (s->start >= p->waking)
			break;
		if (b <= a)
			continue;
		if (s->kind == JL_PART_TASK && s->pid == p->waker_pid)
			ran += b - a;
		else if (s->kind == JL_PART_OTHER && s->pid == 0)
			idle += b - a;
		else if (s->kind == JL_PART_TASK)
			other += b - a; /* what delayed ktimers: named as it is, a task the timer thread waited behind */
		if (s->kind == JL_PART_TASK && s->pid != p->waker_pid)
			jl_cycle_add_part(c, JL_PART_TASK, jl_analysis_name(an, s->name), s->pid, s->kprio, b - a, NULL);
	}
	snprintf(name, sizeof(name), "timer softirq in %s", comm);
	snprintf(detail, sizeof(detail), "on PREEMPT_RT a SCHED_OTHER task's timer expires in softirq: %s ran it and "
		 "woke the task", comm);
	if (ran)
		jl_cycle_add_part(c, JL_PART_TIMER, name, p->waker_pid, 0, ran, detail);
	if (idle)
		add_part(c, JL_PART_IDLE_EXIT, "idle exit", -1, 0, idle);
	if (pre > ran + idle + other)
		add_part(c, JL_PART_TIMER, "timer", -1, 0, pre - ran - idle - other);
	return true;
}

/* Release -> waking without the timer's events: what ran on the CPU the waking was recorded on (where
 * the timer fired) says what kept it. A task that ran JL_UNPREEMPTED_NS or more of it: the interrupt came
 * late while it ran (interrupts off, or the vCPU not running: the trace cannot tell), a part naming it,
 * beside the idle exit and the IRQs it holds; what remains is the timer. False (nothing added) when no task
 * ran that long: the caller names the whole as before (idle exit, or timer). */
static bool add_late_interrupt(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			       int64_t pre)
{
	int cpu = p->wake_cpu;
	int64_t task = 0, idle = 0, sum = 0, main_ns = 0;
	int32_t main_pid = -1, main_prio = 0;
	const char *main_name = NULL;
	char detail[200];

	if (cpu < 0 || cpu >= an->ncpus || pre <= 0)
		return false;
	if (p->waker_pid > 0 && !strncmp(jl_analysis_comm(an, p->waker_pid) ? jl_analysis_comm(an, p->waker_pid) : "", "ktimers/", 8))
		return add_timer_softirq(an, p, release, c, pre);
	if (p->waker_pid > 0)
		return false; /* a task woke it (a trigger, a condition variable): no timer to be late */
	for (size_t i = jl_analysis_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t a = s->start > release ? s->start : release, b = s->end < p->waking ? s->end : p->waking;

		if (s->start >= p->waking)
			break;
		if (b <= a || s->kind != JL_PART_TASK)
			continue;
		task += b - a;
		if (b - a > main_ns) {
			main_ns = b - a;
			main_pid = s->pid;
			main_prio = s->kprio;
			main_name = jl_analysis_name(an, s->name);
		}
	}
	if (task < JL_UNPREEMPTED_NS)
		return false;
	for (size_t i = jl_analysis_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t a = s->start > release ? s->start : release, b = s->end < p->waking ? s->end : p->waking;

		if (s->start >= p->waking)
			break;
		if (b <= a || s->kind == JL_PART_TASK)
			continue;
		if (s->kind == JL_PART_OTHER && s->pid == 0)
			idle += b - a;
		else if (s->kind == JL_PART_LOST)
			jl_cycle_add_part(c, JL_PART_LOST, "lost events", -1, 0, b - a, "events were lost here");
		else
			add_part(c, s->kind, jl_analysis_name(an, s->name), s->pid, s->kprio, b - a);
		sum += b - a;
	}
	snprintf(detail, sizeof(detail), "the waking came while %s ran: the timer's interrupt late (interrupts off, "
		 "or the vCPU not running: the trace cannot tell; record the timer group to see the timer)",
		 main_name ? main_name : "a task");
	jl_cycle_add_part(c, JL_PART_TIMER, "timer interrupt late", main_pid, main_prio, task, detail);
	sum += task;
	if (idle)
		add_part(c, JL_PART_IDLE_EXIT, "idle exit", -1, 0, idle - (sum > pre ? sum - pre : 0));
	if (pre > sum)
		add_part(c, JL_PART_TIMER, "timer", -1, 0, pre - sum);
	return true;
}

/* The wait from the waking to the switch-in, read on each runqueue the task was on: sched_waking's target
 * (the CPU it last ran on), moved at once by the wakeup itself when it picks another CPU (a migration
 * recorded on the waker's CPU before anything else: its placement, not a wait), then every CPU a later
 * sched_migrate_task moved it to, the last one up to the switch-in on the switch-in's CPU. */
static void add_wait_pieces(const struct jl_analysis *an, const struct jl_pair *p, struct jl_cycle *c)
{
	int ti = jl_analysis_thread_of(an, p->pid);
	const struct jl_analysis_thread *t = ti >= 0 ? &an->threads[ti] : NULL;
	int cpu = p->queue_cpu >= 0 && p->queue_cpu < an->ncpus ? p->queue_cpu : p->cpu;
	int64_t from = p->waking;

	for (size_t k = t ? jl_analysis_state_after(t, p->waking) : 0; t && k < t->nstates; k++) {
		const struct jl_tstate *st = &t->states[k];

		if (st->what != JL_TS_MIGRATED)
			continue;
		if (st->ts >= p->switch_in)
			break;
		if (from == p->waking && st->rec_cpu == p->wake_cpu && (k == 0 || t->states[k - 1].ts <= p->waking)) {
			cpu = st->cpu; /* the wakeup's own placement */
			continue;
		}
		jl_analysis_add_window(an, cpu, from, st->ts, p->pid, p->kprio, c, true);
		from = st->ts;
		cpu = st->cpu;
		c->migrations++;
	}
	if (cpu != p->cpu && from == p->waking && !c->migrations)
		cpu = p->cpu; /* no migration seen: the switch-in's CPU is where it waited */
	else if (cpu != p->cpu)
		c->migrations++, cpu = p->cpu; /* moved without a record we saw: the last piece is where it ran */
	jl_analysis_add_window(an, cpu, from, p->switch_in, p->pid, p->kprio, c, true);
}

void jl_analysis_decompose(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, int64_t wake,
		      struct jl_cycle *c)
{
	int64_t ret;

	c->nparts = 0;
	c->window = JL_WINDOW_WAKEUP;
	c->release = release;
	c->waking = p->waking;
	c->switch_in = p->switch_in;
	c->wake = wake;
	c->cpu = p->cpu;
	c->implicit = p->implicit;
	/* a release without a wake (a trace-only cycle from its timer): the wakeup ends at the switch-in */
	c->latency_ns = release > 0 ? (wake > 0 ? wake : p->switch_in) - release : p->switch_in - p->waking;
	if (release > 0) {
		int64_t pre = p->waking > release ? p->waking - release : 0;
		const struct jl_segment *s = jl_analysis_segment_at(an, p->wake_cpu, release < p->waking ? release : p->waking - 1);
		bool idle = s && s->kind == JL_PART_OTHER && s->pid == 0;

		if (p->timer_cpu >= 0 && p->timer_now > 0 && pre > 0)
			add_timer_parts(an, p, release, c, pre);
		else if (add_late_interrupt(an, p, release, c, pre))
			;
		else if (idle && pre > JL_IDLE_EXIT_MAX_NS)
			/* no idle state takes this long to leave: the wakeup came late, and nothing says why */
			jl_cycle_add_part(c, JL_PART_OTHER, "woken late, CPU idle, no event says why", -1, 0, pre,
					  "the CPU idled from the release to the waking, longer than any idle exit: the "
					  "timer fired late or elsewhere, or the vCPU did not run (record the timer group "
					  "to see the timer)");
		else
			add_part(c, idle ? JL_PART_IDLE_EXIT : JL_PART_TIMER, idle ? "idle exit" : "timer", -1, 0, pre);
	}
	add_wait_pieces(an, p, c);
	if (wake > 0 && wake > p->switch_in) {
		ret = wake - p->switch_in - jl_analysis_add_window(an, p->cpu, p->switch_in, wake, p->pid, p->kprio, c, false);
		if (ret > JL_SWITCH_IDLE_MAX_NS)
			/* the return path takes microseconds: this long, with nothing else traced on the CPU, is
			 * not a return, and nothing says what it is */
			jl_cycle_add_part(c, JL_PART_OTHER, "switched in, no event says why", -1, 0, ret,
					  "from the switch-in to the loop's own clock read with nothing else traced on its "
					  "CPU: the kernel's return path takes microseconds; a section the trace does not "
					  "show, or the vCPU not running");
		else
			add_part(c, JL_PART_OTHER, "return", -1, 0, ret > 0 ? ret : 0);
	} else if (wake > 0 && (wake != p->switch_in || p->implicit)) {
		add_part(c, JL_PART_OTHER, "return", -1, 0, 0);
	} /* a wake at the switch-in itself: a trace-only cycle, no return path of its own */
	c->lost_in_window = jl_analysis_lost_in(an, -1, release > 0 && release < p->waking ? release : p->waking,
					   wake > p->switch_in ? wake : p->switch_in);
	jl_analysis_finish_parts(an, c);
}
