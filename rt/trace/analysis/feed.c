/* feed: the analysis pass over a merged event stream, one handler per event kind (handlers[] below,
 * as rtla's timerlat dispatches its events): wakeup pairs per analysed thread, their states, and each
 * CPU's timeline (timeline.c); decompose.c explains cycles from them. Pure: no tracefs, no files, no
 * globals. Rules (docs/platform-facts.md, tracing notes): first sched_waking (or wakeup_new) of a pid -> next
 * sched_switch with next_pid == pid; a pending wake is dropped if the task switches out first, or when
 * events were lost; the real CPU is the switch record's CPU. A task that writes a record on a CPU where no
 * switch put it was switched in untraced: after lost events (the CPU's state is unknown), or out of idle
 * on a CPU whose trace shows no switch out of the idle task (this VM's kernel records none on some CPUs):
 * the switch is inferred, and counted per CPU. Lost events close the CPU's timeline at its last record
 * before the gap and leave a "lost" piece. The expiries of the timers that end RT throttling and start
 * the fair server are kept as evidence, and so is every switch and waking of an analysed thread (its
 * response window is read from them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "event.h"
#include "parts.h"
#include "prune.h"
#include "analysis_int.h"

static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };


static int append_grow(void *arr, size_t *cap, size_t size)
{
	char **a = arr;
	size_t c = *cap ? *cap * 2 : 64;
	char *p = realloc(*a, c * size);

	if (!p)
		return -1;
	*a = p;
	*cap = c;
	return 0;
}

/* Append ITEM (SIZE bytes) to the growable array *ARR of *N items (*CAP allocated). Inlined: SIZE is a
 * constant at each call, so the copy is a few moves (a state is appended for nearly every event). */
static inline __attribute__((always_inline)) int append(void *arr, size_t *n, size_t *cap, const void *item,
							 size_t size)
{
	char **a = arr;

	if (*n == *cap && append_grow(arr, cap, size) < 0)
		return -1;
	memcpy(*a + *n * size, item, size);
	(*n)++;
	return 0;
}

/* Record a state change of analysed thread TI (measured threads only: others lend only a name), BY the
 * name's id. */
static int note_state_id(struct jl_analysis *an, int ti, int64_t ts, int cpu, int what, int by_kind, int by_pid,
			 uint32_t by)
{
	struct jl_analysis_thread *t = &an->threads[ti];
	struct jl_tstate st = { .ts = ts, .cpu = cpu, .rec_cpu = cpu, .what = what, .by_kind = by_kind, .by_pid = by_pid,
				.by = by };

	if (!t->measured)
		return 0;
	return append(&t->states, &t->nstates, &t->capstates, &st, sizeof(st));
}


/* note_state_id with BY a string constant, or NULL for none. */
static int note_state(struct jl_analysis *an, int ti, int64_t ts, int cpu, int what, int by_kind, int by_pid,
		      const char *by)
{
	if (!an->threads[ti].measured)
		return 0;
	return note_state_id(an, ti, ts, cpu, what, by_kind, by_pid, by ? jl_name_literal(an, by) : 0);
}

static int add_pair(struct jl_analysis *an, int ti, const struct jl_pair *p)
{
	if (an->prune_ops && !an->prune_ops->pair(an, ti, p)) /* a pruned analysis: counted, not kept */
		return 0;
	return jl_analysis_append_pair(&an->threads[ti], p);
}

static bool running_somewhere(const struct jl_analysis *an, int32_t pid)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].known && an->cpu[c].pid == pid)
			return true;
	return false;
}

/* The task CUR wrote a record on CPU at TS but no sched_switch put it there (seen on virtual machines,
 * where the switch out of the idle task is not recorded). Out of idle, the switch follows the wakeup at
 * once: place it at the idle task's last record (not before CUR's waking, and for an RT task not before
 * the last sched_rt_period_timer expiry: a throttled CPU idles with RT tasks runnable); otherwise at TS. */
static int implicit_switch(struct jl_analysis *an, int cpu, int64_t ts, int32_t cur)
{
	struct jl_analysis_cpu *c = &an->cpu[cpu];
	const struct jl_analysis_task *k = jl_task_find(an, cur);
	int64_t at = ts;
	int ti;

	if (c->seen && c->known && c->pid == 0) {
		at = c->last_ts;
		if (k && k->last_waking > at)
			at = k->last_waking;
		/* an RT task cannot have run while RT throttling held the CPU: not before the unthrottle */
		if (k && k->kprio < 100 && an->n_rt_unthrottle && an->rt_unthrottle[an->n_rt_unthrottle - 1].ts > at)
			at = an->rt_unthrottle[an->n_rt_unthrottle - 1].ts;
		/* nor while its CPU's RT queue is set aside (an RT task was switched out runnable for a lower
		 * one, and none ran since): it ran no earlier than its first record. The default trace has no
		 * timer events, and this is the evidence it has (before, the wait read as the task's return) */
		if (k && k->kprio < 100 && c->rt_set_aside > 0)
			at = ts;
		if (at > ts || at < c->seg_start)
			at = ts;
	}
	ts = at;
	if (k && k->kprio < 100) {
		c->rt_set_aside = 0;
		if (c->rt_preempted == cur)
			c->rt_preempted = 0;
	}
	if (jl_timeline_close(an, cpu, ts) < 0)
		return -1;
	an->implicit_switches++;
	if (c->seen && c->known && c->pid == 0)
		an->vm_heuristic[cpu]++;
	c->known = true;
	c->depth = 0;
	c->pid = cur;
	c->kprio = k ? k->kprio : 120;
	jl_event_copy(c->comm, sizeof(c->comm), k ? k->comm : "?", SIZE_MAX);
	c->comm_id = k ? k->name_id : 0;
	c->comm_ok = k && k->comm[0];
	ti = jl_analysis_thread_of(an, cur);
	if (ti >= 0 && note_state(an, ti, ts, cpu, JL_TS_IN, 0, -1, NULL) < 0)
		return -1;
	if (ti >= 0) {
		an->threads[ti].implicit_in++;
		if (an->pending[ti] && an->threads[ti].measured) {
			struct jl_pair p = an->pending_pair[ti];

			p.waking = an->pending[ti];
			p.switch_in = ts;
			p.pid = cur;
			p.cpu = cpu;
			p.wake_cpu = an->pending_cpu[ti];
			p.new_task = an->pending_new[ti];
			p.kprio = an->pending_prio[ti];
			p.implicit = true;

			if (add_pair(an, ti, &p) < 0)
				return -1;
		}
		an->pending[ti] = 0;
	}
	return 0;
}

/* Who woke analysed thread TI: the IRQ, softirq or hrtimer the waking CPU was in (the nesting of the
 * irq/timer events, else common_flags), or the task that ran there. The common_pid of a waking raised
 * in IRQ context is only the task the IRQ interrupted. */
static int note_waker(struct jl_analysis *an, int ti, const struct jl_event *ev)
{
	const struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	const struct jl_analysis_task *k;

	if (c->depth > 0 && c->depth <= CTX_DEPTH) {
		const struct ctx *x = &c->stack[c->depth - 1];

		return note_state_id(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, x->kind, x->pid, x->name_id);
	}
	if (ev->flags & JL_EVENT_F_HARDIRQ)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_IRQ, -1, "an IRQ (irq events not recorded)");
	if (ev->flags & JL_EVENT_F_SOFTIRQ)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_SOFTIRQ, -1,
				  "a softirq (irq events not recorded)");
	if (!ev->has_cur)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_OTHER, -1, "unknown");
	if (ev->cur == 0)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_OTHER, 0, "the idle task");
	k = jl_task_find(an, ev->cur);
	if (k && k->comm[0])
		return note_state_id(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_TASK, ev->cur, k->name_id);
	return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_TASK, ev->cur, "?");
}

/* What a wakeup of analysed thread TI starts from: the runqueue it goes to, and the hrtimer whose
 * callback raised it (with that timer as hrtimer_start armed it, when that was seen). */
static void note_wake_cause(struct jl_analysis *an, int ti, const struct jl_event *ev)
{
	const struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	struct jl_pair *p = &an->pending_pair[ti];

	memset(p, 0, sizeof(*p));
	p->queue_cpu = ev->target_cpu >= 0 ? ev->target_cpu : ev->cpu;
	p->timer_cpu = -1;
	/* a task woke it (not an IRQ on that task's back): on PREEMPT_RT a CFS task's timer is run by ktimers/N */
	p->waker_pid = ev->has_cur && ev->cur > 0 && c->depth == 0 && !(ev->flags & JL_EVENT_F_HARDIRQ) ? ev->cur : -1;
	if (c->depth > 0 && c->depth <= CTX_DEPTH && c->stack[c->depth - 1].timer) {
		const struct ctx *x = &c->stack[c->depth - 1];

		int64_t off;

		p->timer_cpu = ev->cpu;
		p->timer_entry = x->entry;
		p->timer_irq = x->irq;
		p->timer_in_softirq = x->soft;
		p->timer_runner = ev->has_cur ? ev->cur : -1;
		p->timer_fn = x->name_id;
		p->timer_armer = -1;
		/* its times are on its own clock: placed on the trace's (a wall-clock timer's too) */
		p->timer_clock = jl_analysis_timer_clock(an, x->now, x->entry, &off);
		if (p->timer_clock == JL_TIMER_CLOCK_UNPLACED)
			return;
		p->timer_now = x->now - off;
		if (x->armed) {
			p->timer_expires = x->expires - off;
			p->timer_soft = x->softexpires - off;
			p->timer_armer = x->armer;
			p->timer_mode = x->mode;
		}
	}
}

/* The expiries that end RT throttling (sched_rt_period_timer unthrottles every CPU's RT queues, from
 * whichever CPU it fires on) and start the fair server (its dl_task_timer, on the server's CPU). */
static int note_bandwidth_timer(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_mark m = { .ts = ev->ts, .cpu = ev->cpu };

	an->timer_events++;
	if (!strcmp(ev->comm, "sched_rt_period_timer"))
		return append(&an->rt_unthrottle, &an->n_rt_unthrottle, &an->cap_rt_unthrottle, &m, sizeof(m));
	if (!strcmp(ev->comm, "dl_task_timer"))
		return append(&an->fair_start, &an->n_fair_start, &an->cap_fair_start, &m, sizeof(m));
	return 0;
}

/* The RT queue set aside: a lower task (or idle) is switched in while an RT task that was switched out on C
 * still runnable has not run since (it, or the task leaving now). */
static void track_set_aside(struct jl_analysis_cpu *c, const struct jl_event *ev)
{
	if (ev->prev_pid > 0 && ev->prev_prio < 100 && (ev->prev_state & ~0x100LL) == 0)
		c->rt_preempted = ev->prev_pid;
	if (ev->pid == c->rt_preempted)
		c->rt_preempted = 0;
	if (ev->prio >= 100 && c->rt_preempted > 0)
		c->rt_set_aside = ev->ts;
	else if (ev->pid > 0 && ev->prio < 100)
		c->rt_set_aside = 0;
}

/* The task leaving: its thread's state (preempted, or blocked), and the task table. 0, or -1 (ENOMEM). */
static int switched_out(struct jl_analysis *an, const struct jl_event *ev)
{
	int ti = jl_analysis_thread_of(an, ev->prev_pid);

	if (ti >= 0) {
		an->threads[ti].switch_out++;
		an->pending[ti] = 0; /* switched out before its switch-in: drop the wake */
		/* prev_state 0 (R) or only the preempted bit: still runnable; anything else: it blocked */
		if (note_state(an, ti, ev->ts, ev->cpu,
			       (ev->prev_state & ~0x100LL) == 0 ? JL_TS_PREEMPTED : JL_TS_BLOCKED, 0, -1, NULL) < 0)
			return -1;
	}
	/* a task's last switch-out (prev_state EXIT_DEAD or EXIT_ZOMBIE, after its sched_process_exit) does not
	 * bring it back into the table, and takes it out if it ran again between its exit and now (preempted
	 * while it exited: a neighbour that forks thousands of children a second would fill the table) */
	if (ev->prev_state & 0x30) {
		const struct jl_analysis_task *k = jl_task_find(an, ev->prev_pid);

		/* (not a new task that got the pid meanwhile: its birth is there, not exited) */
		if (k && (!k->birth || k->birth > an->nbirths || an->births[k->birth - 1].exited))
			jl_task_forget(an, ev->prev_pid, ev->ts);
	} else {
		jl_task_note(an, ev->prev_pid, ev->prev_prio, ev->prev_comm);
	}
	return 0;
}

/* The task coming in: C's state, and for a measured thread woken before, its wakeup pair. 0, or -1. */
static int switched_in(struct jl_analysis *an, struct jl_analysis_cpu *c, const struct jl_event *ev)
{
	const struct jl_analysis_task *k = jl_task_note(an, ev->pid, ev->prio, ev->comm);
	int ti;

	c->known = true;
	c->depth = 0;
	c->pid = ev->pid;
	c->kprio = ev->prio;
	jl_event_copy(c->comm, sizeof(c->comm), ev->comm, sizeof(ev->comm));
	/* the task's id when the record names it as the table does */
	c->comm_ok = k && jl_event_same(k->comm, c->comm);
	c->comm_id = c->comm_ok ? k->name_id : 0;
	ti = jl_analysis_thread_of(an, ev->pid);
	if (ti < 0)
		return 0;
	if (note_state(an, ti, ev->ts, ev->cpu, JL_TS_IN, 0, -1, NULL) < 0)
		return -1;
	an->threads[ti].switch_in++;
	if (an->pending[ti] && an->threads[ti].measured) {
		struct jl_pair p = an->pending_pair[ti];

		p.waking = an->pending[ti];
		p.switch_in = ev->ts;
		p.pid = ev->pid;
		p.cpu = ev->cpu;
		p.wake_cpu = an->pending_cpu[ti];
		p.kprio = an->pending_prio[ti];
		p.new_task = an->pending_new[ti];
		if (add_pair(an, ti, &p) < 0)
			return -1;
	}
	an->pending[ti] = 0;
	return 0;
}

static int on_switch(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];

	/* the record says who ran up to now: its prio and name hold for the piece it closes (a task
	 * whose switch-in was inferred may have had them guessed) */
	if (c->known && c->pid == ev->prev_pid && ev->prev_pid > 0) {
		c->kprio = ev->prev_prio;
		if (ev->prev_comm[0] && !jl_event_same(c->comm, ev->prev_comm)) {
			jl_event_copy(c->comm, sizeof(c->comm), ev->prev_comm, sizeof(ev->prev_comm));
			c->comm_ok = false;
		}
	}
	if (jl_timeline_close(an, ev->cpu, ev->ts) < 0)
		return -1;
	track_set_aside(c, ev);
	if (switched_out(an, ev) < 0)
		return -1;
	return switched_in(an, c, ev);
}


/* A waking of thread TI while it is on a CPU. For a thread measured from the trace alone (a watched or
 * `measure = wakeups` thread), a waking on its own CPU from the expiry of a timer it armed is a release it
 * caught before it slept: it had set itself to sleep and the timer fired before schedule() (a loop that
 * overran and sleeps to a release already due: cyclictest prints that cycle), so nothing switches it in.
 * That is a cycle, its switch-in the waking. Not so a waking recorded on another CPU (there the waking of a
 * thread still inside schedule() is recorded before its own switch-out: it will be switched out and in), a
 * waking by a timer that is not its own (the tick), any other waking while running, or any for a thread
 * whose cycles are samples of its own. 0, or -1. */
static int caught_running(struct jl_analysis *an, int ti, const struct jl_event *ev)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	struct jl_pair p;
	int cpu = -1;

	if (!t->measured || t->sampled)
		return 0;
	for (int c = 0; c < an->ncpus && cpu < 0; c++)
		if (an->cpu[c].known && an->cpu[c].pid == ev->pid)
			cpu = c;
	if (cpu != ev->cpu)
		return 0;
	note_wake_cause(an, ti, ev); /* into the pending pair: none is pending */
	p = an->pending_pair[ti];
	memset(&an->pending_pair[ti], 0, sizeof(an->pending_pair[ti]));
	if (p.timer_cpu < 0)
		return 0;
	p.waking = p.switch_in = ev->ts;
	p.pid = ev->pid;
	p.cpu = cpu;
	p.wake_cpu = ev->cpu;
	p.kprio = ev->prio;
	p.caught_running = true;
	{
		int why;

		if (jl_analysis_release(an, &p, &why) <= 0) /* not a timer it armed, or one the trace lacks */
			return 0;
	}
	an->threads[ti].caught_running++;
	return add_pair(an, ti, &p);
}

static int on_waking(struct jl_analysis *an, const struct jl_event *ev)
{
	int ti;

	jl_task_note(an, ev->pid, ev->prio, ev->comm);
	if (jl_task_find(an, ev->pid))
		jl_task_find(an, ev->pid)->last_waking = ev->ts;
	ti = jl_analysis_thread_of(an, ev->pid);
	if (ti < 0)
		return 0;
	an->threads[ti].wakings++;
	if (an->pending[ti])
		return 0; /* the first waking counts */
	if (running_somewhere(an, ev->pid))
		return caught_running(an, ti, ev);
	if (note_waker(an, ti, ev) < 0)
		return -1;
	an->pending[ti] = ev->ts;
	an->pending_cpu[ti] = ev->cpu;
	an->pending_new[ti] = ev->kind == JL_EVENT_WAKEUP_NEW;
	an->pending_prio[ti] = ev->prio;
	note_wake_cause(an, ti, ev);
	return 0;
}


static int on_irq_entry(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	char name[JL_EVENT_COMM + 8];

	if (jl_timeline_close(an, ev->cpu, ev->ts) < 0)
		return -1;
	if (ev->pid >= 0 && ev->pid < JL_ANALYSIS_IRQS && ev->comm[0] && !an->irq_name[ev->pid])
		an->irq_name[ev->pid] = jl_name_intern(an, ev->comm);
	if (ev->pid >= 0)
		snprintf(name, sizeof(name), "%d %s", ev->pid, ev->comm);
	else
		snprintf(name, sizeof(name), "%s", ev->comm); /* a vector: "IPI reschedule", "LOC local timer" */
	jl_timeline_push_ctx(an, c, ev->pid < 0 && ev->pid != JL_EVENT_IRQ_LOCAL_TIMER ? JL_PART_IPI : JL_PART_IRQ, ev->pid,
			     name);
	if (c->depth <= CTX_DEPTH)
		c->stack[c->depth - 1].entry = ev->ts;
	return 0;
}


static int on_softirq_entry(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];

	if (jl_timeline_close(an, ev->cpu, ev->ts) < 0)
		return -1;
	jl_timeline_push_ctx(an, c, JL_PART_SOFTIRQ, ev->pid,
		 ev->pid >= 0 && ev->pid < 10 ? softirq_names[ev->pid] : "?");
	return 0;
}


/* An hrtimer's expiry begins (X: its context, just pushed): the timer, when the expiry pass read its clock,
 * the arming it expires (taken from the armed table: an arming expires once, so a stale one of the same
 * address never links), and the interrupt that delivered it: the local timer interrupt it runs in, or for a
 * soft timer (HRTIMER_SOFTIRQ: outside hard IRQ context; ktimers/N on PREEMPT_RT) the one that raised the
 * softirq. */
static void note_expiry(struct jl_analysis *an, struct jl_analysis_cpu *c, struct ctx *x, const struct jl_event *ev)
{
	struct jl_analysis_armed *a = jl_armed_slot(an, ev->arg);

	x->timer = ev->arg;
	x->entry = ev->ts;
	x->now = ev->expires;
	x->soft = !(ev->flags & JL_EVENT_F_HARDIRQ);
	for (int d = c->depth - 2; d >= 0 && d < CTX_DEPTH && !x->irq; d--)
		if (c->stack[d].kind == JL_PART_IRQ && c->stack[d].pid == JL_EVENT_IRQ_LOCAL_TIMER)
			x->irq = c->stack[d].entry, x->soft = false;
	if (x->soft) {
		if (c->hrtimer_raise) /* the first expiry of the softirq's pass takes the raise */
			c->hrtimer_pass = c->hrtimer_raise, c->hrtimer_raise = 0;
		x->irq = c->hrtimer_pass;
	}
	if (ev->arg && a->timer == ev->arg) {
		x->armed = true;
		x->expires = a->expires;
		x->softexpires = a->soft;
		x->armer = a->pid;
		x->mode = a->mode;
		a->timer = 0;
	}
}

/* HRTIMER_SOFTIRQ raised (the timer group records that vector alone): by the local timer interrupt this
 * CPU is in, whose entry is then when the soft timers' expiry was known. */
static int on_softirq_raise(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];

	if (ev->pid != JL_SOFTIRQ_HRTIMER || c->hrtimer_raise)
		return 0;
	c->hrtimer_raise = ev->ts;
	for (int d = c->depth - 1; d >= 0; d--)
		if (d < CTX_DEPTH && c->stack[d].kind == JL_PART_IRQ && c->stack[d].pid == JL_EVENT_IRQ_LOCAL_TIMER) {
			c->hrtimer_raise = c->stack[d].entry;
			break;
		}
	return 0;
}

static int on_timer_entry(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	char name[JL_EVENT_COMM + 8];

	if (jl_timeline_close(an, ev->cpu, ev->ts) < 0 || note_bandwidth_timer(an, ev) < 0)
		return -1;
	snprintf(name, sizeof(name), "hrtimer %s", ev->comm);
	jl_timeline_push_ctx(an, c, JL_PART_IRQ, -1, name);
	if (c->depth <= CTX_DEPTH)
		note_expiry(an, c, &c->stack[c->depth - 1], ev);
	return 0;
}


static int on_interrupt_exit(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];

	if (jl_timeline_close(an, ev->cpu, ev->ts) < 0)
		return -1;
	jl_timeline_pop_ctx(c);
	return 0;
}


static int on_lost(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	/* nothing is known since the CPU's last record: close its timeline there, not at the gap's end */
	int64_t from = c->seen && c->last_ts >= c->seg_start ? c->last_ts : ev->ts;
	struct jl_analysis_gap g = { .from = from, .to = ev->ts, .cpu = ev->cpu,
				.lost = ev->prev_state > 0 ? (uint64_t)ev->prev_state : 0 };

	if (c->seen && from < ev->ts) {
		if (jl_timeline_close(an, ev->cpu, from) < 0 ||
		    jl_timeline_push(an, ev->cpu, from, ev->ts, JL_PART_LOST, -1, 0, jl_name_literal(an, "lost events")) < 0)
			return -1;
		c->seg_start = ev->ts;
	} else if (jl_timeline_close(an, ev->cpu, ev->ts) < 0) {
		return -1;
	}
	if (append(&an->gaps, &an->ngaps, &an->capgaps, &g, sizeof(g)) < 0)
		return -1;
	an->lost_gaps++;
	if (ev->prev_state > 0)
		an->lost_events += (uint64_t)ev->prev_state;
	for (int i = 0; i < an->nthreads; i++)
		an->pending[i] = 0;
	c->known = false;
	c->depth = 0;
	c->hrtimer_raise = c->hrtimer_pass = 0;
	return 0;
}


static int on_mark(struct jl_analysis *an, const struct jl_event *ev)
{
	(void)ev;
	an->markers++;
	return 0;
}


static int on_probe(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_probe p = { .ts = ev->ts, .release = ev->expires, .pid = ev->cur, .kind = ev->mark_thread,
				  .cpu = ev->cpu };

	snprintf(p.name, sizeof(p.name), "%s", ev->comm);
	if (ev->cur > 0 && append(&an->probes, &an->nprobes, &an->capprobes, &p, sizeof(p)) < 0)
		return -1;
	return 0;
}


static int on_task_exit(struct jl_analysis *an, const struct jl_event *ev)
{
	/* a task that exits leaves the table (its pid may come back as another task); the current
	 * task of no CPU is it any more once it has switched out (sched_switch follows) */
	jl_task_forget(an, ev->pid, ev->ts);
	return 0;
}


/* A task born: sched_process_fork and task_newtask both say so (one birth: the second adds the thread
 * flag, or is a new task of a reused pid once the first has exited) */
static int on_birth(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_birth b = { .pid = ev->pid, .parent = ev->prev_pid, .born = ev->ts,
				  .thread = ev->kind == JL_EVENT_NEWTASK && (ev->arg & 0x10000) };
	struct jl_analysis_task *t;

	if (ev->pid <= 0)
		return 0;
	t = jl_task_find(an, ev->pid);
	if (t && t->birth && t->birth <= an->nbirths && !an->births[t->birth - 1].exited) {
		an->births[t->birth - 1].thread |= b.thread;
		return 0;
	}
	if (append(&an->births, &an->nbirths, &an->capbirths, &b, sizeof(b)) < 0)
		return -1;
	t = jl_task_slot(an, ev->pid);
	if (t)
		t->birth = an->nbirths;
	return 0;
}


static int on_timer_start(struct jl_analysis *an, const struct jl_event *ev)
{
	if (ev->arg) {
		struct jl_analysis_armed *a = jl_armed_slot(an, ev->arg);

		a->timer = ev->arg;
		a->expires = ev->expires;
		a->soft = ev->softexpires;
		a->pid = ev->has_cur ? ev->cur : -1;
		a->mode = (int32_t)ev->prev_state;
	}
	return 0;
}


static int on_migrate(struct jl_analysis *an, const struct jl_event *ev)
{
	int ti;

	for (int k = 0; k < an->ncpus; k++) /* moved away: it no longer waits on that CPU */
		if (an->cpu[k].rt_preempted == ev->pid && k != ev->target_cpu)
			an->cpu[k].rt_preempted = 0;
	ti = jl_analysis_thread_of(an, ev->pid);
	if (ti >= 0 && note_state(an, ti, ev->ts, ev->target_cpu, JL_TS_MIGRATED, 0, ev->cur, NULL) < 0)
		return -1;
	if (ti >= 0 && an->threads[ti].measured)
		an->threads[ti].states[an->threads[ti].nstates - 1].rec_cpu = ev->cpu;
	return 0;
}


static int on_pi_setprio(struct jl_analysis *an, const struct jl_event *ev)
{
	int ti;

	/* a priority-inheritance change: a boost raises the task (a lower kernel prio), the undo lowers it */
	ti = jl_analysis_thread_of(an, ev->pid);
	if (ti >= 0 && ev->prio < ev->prev_prio) {
		an->threads[ti].boosts++;
		if (!an->threads[ti].boost_prio || ev->prio < an->threads[ti].boost_prio)
			an->threads[ti].boost_prio = ev->prio;
	}
	/* written by the waiter as it blocks on the holder's lock (rt_mutex): what it lent, to whom */
	ti = ev->has_cur ? jl_analysis_thread_of(an, ev->cur) : -1;
	if (ti >= 0 && an->threads[ti].measured && ev->prio < ev->prev_prio && ev->pid != ev->cur &&
	    an->threads[ti].nlent < JL_ANALYSIS_LENT_MAX) {
		struct jl_analysis_lent l = { .ts = ev->ts, .holder = ev->pid, .kprio = ev->prio };

		if (append(&an->threads[ti].lent, &an->threads[ti].nlent, &an->threads[ti].caplent, &l,
			   sizeof(l)) < 0)
			return -1;
	}
	return 0;
}


static int on_ipi(struct jl_analysis *an, const struct jl_event *ev)
{
	/* the unthrottle reaches a throttled CPU as an IPI sent from sched_rt_period_timer: evidence even
	 * when hrtimer events are recorded on the measured CPUs only */
	if (!strncmp(ev->prev_comm, "sched_rt_period_timer", 21)) {
		struct jl_analysis_mark m = { .ts = ev->ts, .cpu = ev->target_cpu };

		if (append(&an->rt_unthrottle, &an->n_rt_unthrottle, &an->cap_rt_unthrottle, &m, sizeof(m)) < 0)
			return -1;
	}
	return 0;
}

typedef int (*handler_fn)(struct jl_analysis *an, const struct jl_event *ev);

/* What each event kind does (NULL: nothing beyond the untraced switch and the CPU's last record). */
static const handler_fn handlers[] = {
	[JL_EVENT_SWITCH] = on_switch,
	[JL_EVENT_WAKING] = on_waking,
	[JL_EVENT_WAKEUP_NEW] = on_waking,
	[JL_EVENT_IRQ_ENTRY] = on_irq_entry,
	[JL_EVENT_SOFTIRQ_ENTRY] = on_softirq_entry,
	[JL_EVENT_TIMER_ENTRY] = on_timer_entry,
	[JL_EVENT_IRQ_EXIT] = on_interrupt_exit,
	[JL_EVENT_SOFTIRQ_EXIT] = on_interrupt_exit,
	[JL_EVENT_TIMER_EXIT] = on_interrupt_exit,
	[JL_EVENT_LOST] = on_lost,
	[JL_EVENT_MARK] = on_mark,
	[JL_EVENT_PROBE] = on_probe,
	[JL_EVENT_EXIT] = on_task_exit,
	[JL_EVENT_FORK] = on_birth,
	[JL_EVENT_NEWTASK] = on_birth,
	[JL_EVENT_TIMER_START] = on_timer_start,
	[JL_EVENT_MIGRATE] = on_migrate,
	[JL_EVENT_PI_SETPRIO] = on_pi_setprio,
	[JL_EVENT_IPI] = on_ipi,
	[JL_EVENT_SOFTIRQ_RAISE] = on_softirq_raise,
};

int jl_analysis_feed(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c;

	if (ev->cpu < 0 || jl_analysis_grow_cpus(an, ev->cpu) < 0)
		return ev->cpu < 0 ? 0 : -1;
	c = &an->cpu[ev->cpu];
	an->events++;
	if (an->first_ts < 0)
		an->first_ts = ev->ts;
	if (ev->ts > an->last_ts)
		an->last_ts = ev->ts;
	/* A record written by a task that no switch put on this CPU: an untraced switch-in. A sched_switch
	 * record counts too when the CPU is idle for us (a task woken from idle that runs to its switch-out
	 * without writing anything else, e.g. a FIFO loop that spins and sleeps: its time is its own, and
	 * not the idle task's, for whoever was woken with it and waits behind it). */
	if (ev->kind == JL_EVENT_SWITCH && ev->prev_pid == 0 && ev->pid > 0)
		c->idle_exit_traced = true; /* from now on, never infer a switch out of idle on this CPU */
	if (ev->has_cur && ev->kind != JL_EVENT_LOST &&
	    (ev->kind != JL_EVENT_SWITCH ? !c->known || (c->pid != ev->cur && (c->pid != 0 || !c->idle_exit_traced))
				       : c->seen && c->known && c->pid == 0 && ev->cur > 0 && !c->idle_exit_traced) &&
	    implicit_switch(an, ev->cpu, ev->ts, ev->cur) < 0)
		return -1;

	if ((unsigned)ev->kind < sizeof(handlers) / sizeof(handlers[0]) && handlers[ev->kind] &&
	    handlers[ev->kind](an, ev) < 0)
		return -1;
	c->last_ts = ev->ts;
	return an->prune_ops ? an->prune_ops->compact(an, ev->ts) : 0;
}

int jl_analysis_run(struct jl_analysis *an, struct jl_event *ev, size_t n)
{
	if (jl_event_sort(ev, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jl_analysis_feed(an, &ev[i]) < 0)
			return -1;
	jl_analysis_end(an);
	return 0;
}
