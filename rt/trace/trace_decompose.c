/* trace_decompose: the wakeup window's decomposition (release -> wake), matching samples to wakeups, the
 * worst cycles (by wakeup latency, plus every miss explained in its response window: trace_window.c) and
 * their one-line explanations, over a finished analysis (trace_events.c builds it). The time a lower task
 * or nothing ran while an RT task waited is classified by trace_bandwidth.c. Pure: no tracefs, no files,
 * no globals; it only reads the analysis (except the matching marks and untraced switch-in refinement). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_events.h"

/* ---- decomposition ---- */

size_t jl_tan_seg_find(const struct jl_tan *an, int cpu, int64_t ts)
{
	size_t lo = 0, hi = an->nsegs[cpu];

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (an->segs[cpu][mid].end <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

static const struct jl_segment *seg_at(const struct jl_tan *an, int cpu, int64_t ts)
{
	size_t i;

	if (cpu < 0 || cpu >= an->ncpus)
		return NULL;
	i = jl_tan_seg_find(an, cpu, ts);
	if (i < an->nsegs[cpu] && an->segs[cpu][i].start <= ts)
		return &an->segs[cpu][i];
	return NULL;
}

void jl_cycle_add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d,
		       const char *detail)
{
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *p = &c->parts[i];

		if ((int)p->kind == kind && p->pid == pid && !strcmp(p->name, name) &&
		    !strcmp(p->detail, detail ? detail : "")) {
			p->duration_ns += d;
			return;
		}
	}
	if (c->nparts == JL_MAX_PARTS) {
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, d, NULL);
		return;
	}
	if (c->nparts == JL_MAX_PARTS - 1 && !(kind == JL_PART_OTHER && !strcmp(name, "others"))) {
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, 0, NULL);
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, d, NULL);
		return;
	}
	memset(&c->parts[c->nparts], 0, sizeof(c->parts[c->nparts]));
	c->parts[c->nparts].kind = kind;
	snprintf(c->parts[c->nparts].name, sizeof(c->parts[c->nparts].name), "%s", name);
	snprintf(c->parts[c->nparts].detail, sizeof(c->parts[c->nparts].detail), "%s", detail ? detail : "");
	c->parts[c->nparts].pid = pid;
	c->parts[c->nparts].kprio = kprio;
	c->parts[c->nparts].duration_ns = d;
	c->nparts++;
}

static void add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d)
{
	jl_cycle_add_part(c, kind, name, pid, kprio, d, NULL);
}

/* Is segment S time a woken RT task (kernel prio SELF_PRIO < 100) waits for without a right to it: a
 * lower task, the idle task, or nothing known? */
static bool lower_for_rt(const struct jl_segment *s, int32_t self_prio)
{
	if (self_prio >= 100)
		return false;
	if (s->kind == JL_PART_TASK)
		return s->kprio > self_prio;
	return s->kind == JL_PART_OTHER; /* idle (pid 0) or not traced (-1) */
}

/* Not real-time time: a CFS task, idle or nothing known (what RT bandwidth control leaves running). */
static bool non_rt(const struct jl_segment *s)
{
	return s->kind == JL_PART_TASK ? s->kprio >= 100 : s->kind == JL_PART_OTHER;
}

/* Where the run of non-RT time (IRQs inside it included) that the stretch of lower time from segment I
 * to segment LAST holds began, looking back before I: the shape RT bandwidth control is told by (a lower
 * RT task that ran before is no part of it). */
static int64_t stretch_start(const struct jl_tan *an, int cpu, size_t i, size_t last)
{
	size_t j = i;

	while (j <= last && !non_rt(&an->segs[cpu][j]))
		j++;
	if (j > last)
		return an->segs[cpu][i].start;
	while (j > 0) {
		const struct jl_segment *p = &an->segs[cpu][j - 1];

		if (p->end < an->segs[cpu][j].start || !(non_rt(p) || p->kind == JL_PART_IRQ || p->kind == JL_PART_SOFTIRQ))
			break;
		j--;
	}
	return an->segs[cpu][j].start;
}

/* Add what ran on CPU in [from, to) except SELF (kernel prio SELF_PRIO); returns the time accounted.
 * For a real-time SELF, each stretch of lower time (lower tasks, idle, IRQs among them) goes to
 * trace_bandwidth.c, which says whether RT bandwidth control, a non-preemptible section or just the
 * preemption path kept SELF waiting. */
int64_t jl_tan_add_window(const struct jl_tan *an, int cpu, int64_t from, int64_t to, int32_t self, int32_t self_prio,
			  struct jl_cycle *c, bool idle_as_switch)
{
	int64_t sum = 0;

	if (cpu < 0 || cpu >= an->ncpus || to <= from)
		return 0;
	for (size_t i = jl_tan_seg_find(an, cpu, from); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t a = s->start > from ? s->start : from, b = s->end < to ? s->end : to;

		if (s->start >= to)
			break;
		if (b <= a || (s->kind == JL_PART_TASK && s->pid == self))
			continue;
		if (lower_for_rt(s, self_prio)) {
			/* the whole stretch of lower time from here, IRQs inside it included */
			size_t j = i;
			int64_t end = s->end;

			while (j + 1 < an->nsegs[cpu] && an->segs[cpu][j + 1].start < to &&
			       (lower_for_rt(&an->segs[cpu][j + 1], self_prio) || an->segs[cpu][j + 1].kind == JL_PART_IRQ ||
				an->segs[cpu][j + 1].kind == JL_PART_SOFTIRQ)) {
				j++;
				end = an->segs[cpu][j].end;
			}
			sum += jl_tan_add_lower_stretch(an, cpu, a, end < to ? end : to, stretch_start(an, cpu, i, j),
							self_prio, c);
			i = j;
			continue;
		}
		if (s->kind == JL_PART_LOST)
			jl_cycle_add_part(c, JL_PART_LOST, "lost events", -1, 0, b - a,
					  "events were lost here: what ran is unknown");
		else if (s->kind == JL_PART_OTHER && s->pid == 0)
			add_part(c, JL_PART_OTHER, idle_as_switch ? "switch from idle" : "idle", -1, 0, b - a);
		else
			add_part(c, s->kind, jl_tan_name(an, s->name), s->pid, s->kprio, b - a);
		sum += b - a;
	}
	return sum;
}

static int cmp_part(const void *pa, const void *pb)
{
	const struct jl_part *a = pa, *b = pb;
	/* order: timer/idle-exit, tasks, irq, softirq, other; longest first within a kind */
	static const int rank[JL_PART_N] = { [JL_PART_TIMER] = 0, [JL_PART_IDLE_EXIT] = 0, [JL_PART_RUNNING] = 0,
					     [JL_PART_THROTTLE] = 1, [JL_PART_TASK] = 1, [JL_PART_BLOCKED] = 1,
					     [JL_PART_UNPREEMPTED] = 1, [JL_PART_EXECUTOR] = 0, [JL_PART_IRQ] = 2,
					     [JL_PART_SOFTIRQ] = 3,
					     [JL_PART_LOST] = 4, [JL_PART_OTHER] = 4 };

	if (rank[a->kind] != rank[b->kind])
		return rank[a->kind] - rank[b->kind];
	if (a->kind == JL_PART_OTHER && !strcmp(a->name, "return"))
		return 1;
	if (b->kind == JL_PART_OTHER && !strcmp(b->name, "return"))
		return -1;
	return a->duration_ns < b->duration_ns ? 1 : a->duration_ns > b->duration_ns ? -1 : 0;
}

static int64_t clip(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

/* Release -> waking when the hrtimer that woke the task is in the trace: the slack it was armed with
 * (expires - softexpires: the kernel may fire it anywhere in between), the interrupt's lateness past the
 * hard expiry with what ran on that CPU meanwhile (idle: the idle exit; IRQs, softirqs and other hrtimers
 * by name; a task: the interrupt came late while it ran, with interrupts off or the vCPU not running),
 * and the handler up to the waking. What the trace does not explain stays "timer". */
static void add_timer_parts(const struct jl_tan *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			    int64_t pre)
{
	const int64_t end = p->waking, entry = clip(p->timer_entry, release, end);
	int64_t t = release, sum = 0, d;
	char detail[160];

	if (p->timer_expires > p->timer_soft && p->timer_soft > 0) {
		d = clip(p->timer_expires < p->timer_now ? p->timer_expires : p->timer_now, release, entry) - release;
		snprintf(detail, sizeof(detail), "armed with %lld us of slack (expires - softexpires)",
			 (long long)((p->timer_expires - p->timer_soft) / 1000));
		jl_cycle_add_part(c, JL_PART_TIMER, "timer slack", -1, 0, d, detail);
		sum += d;
		t += d;
	}
	if (p->timer_cpu >= 0 && p->timer_cpu < an->ncpus && entry > t) {
		for (size_t i = jl_tan_seg_find(an, p->timer_cpu, t); i < an->nsegs[p->timer_cpu]; i++) {
			const struct jl_segment *s = &an->segs[p->timer_cpu][i];
			int64_t a = s->start > t ? s->start : t, b = s->end < entry ? s->end : entry;

			if (s->start >= entry)
				break;
			if (b <= a)
				continue;
			if (s->kind == JL_PART_OTHER && s->pid == 0)
				add_part(c, JL_PART_IDLE_EXIT, "idle exit", -1, 0, b - a);
			else if (s->kind == JL_PART_TASK)
				jl_cycle_add_part(c, JL_PART_TIMER, "timer interrupt late", s->pid, s->kprio, b - a,
						  "the interrupt came late while this task ran: interrupts off, or the vCPU "
						  "not running (the trace cannot tell)");
			else if (s->kind == JL_PART_LOST)
				jl_cycle_add_part(c, JL_PART_LOST, "lost events", -1, 0, b - a, "events were lost here");
			else
				add_part(c, s->kind, jl_tan_name(an, s->name), s->pid, s->kprio, b - a);
			sum += b - a;
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
static bool add_timer_softirq(const struct jl_tan *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			      int64_t pre)
{
	int cpu = p->wake_cpu;
	int64_t ran = 0, idle = 0, other = 0;
	char name[JL_TAN_NAME_MAX + 32], detail[200];
	const char *comm = jl_tan_comm(an, p->waker_pid);

	for (size_t i = jl_tan_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
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
			jl_cycle_add_part(c, JL_PART_TASK, jl_tan_name(an, s->name), s->pid, s->kprio, b - a, NULL);
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
static bool add_late_interrupt(const struct jl_tan *an, const struct jl_pair *p, int64_t release, struct jl_cycle *c,
			       int64_t pre)
{
	int cpu = p->wake_cpu;
	int64_t task = 0, idle = 0, sum = 0, main_ns = 0;
	int32_t main_pid = -1, main_prio = 0;
	const char *main_name = NULL;
	char detail[200];

	if (cpu < 0 || cpu >= an->ncpus || pre <= 0)
		return false;
	if (p->waker_pid > 0 && !strncmp(jl_tan_comm(an, p->waker_pid) ? jl_tan_comm(an, p->waker_pid) : "", "ktimers/", 8))
		return add_timer_softirq(an, p, release, c, pre);
	if (p->waker_pid > 0)
		return false; /* a task woke it (a trigger, a condition variable): no timer to be late */
	for (size_t i = jl_tan_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
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
			main_name = jl_tan_name(an, s->name);
		}
	}
	if (task < JL_UNPREEMPTED_NS)
		return false;
	for (size_t i = jl_tan_seg_find(an, cpu, release); i < an->nsegs[cpu]; i++) {
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
			add_part(c, s->kind, jl_tan_name(an, s->name), s->pid, s->kprio, b - a);
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
static void add_wait_pieces(const struct jl_tan *an, const struct jl_pair *p, struct jl_cycle *c)
{
	int ti = jl_tan_thread_of(an, p->pid);
	const struct jl_tan_thread *t = ti >= 0 ? &an->threads[ti] : NULL;
	int cpu = p->queue_cpu >= 0 && p->queue_cpu < an->ncpus ? p->queue_cpu : p->cpu;
	int64_t from = p->waking;

	for (size_t k = 0; t && k < t->nstates; k++) {
		const struct jl_tstate *st = &t->states[k];

		if (st->ts <= p->waking || st->what != JL_TS_MIGRATED)
			continue;
		if (st->ts >= p->switch_in)
			break;
		if (from == p->waking && st->rec_cpu == p->wake_cpu && (k == 0 || t->states[k - 1].ts <= p->waking)) {
			cpu = st->cpu; /* the wakeup's own placement */
			continue;
		}
		jl_tan_add_window(an, cpu, from, st->ts, p->pid, p->kprio, c, true);
		from = st->ts;
		cpu = st->cpu;
		c->migrations++;
	}
	if (cpu != p->cpu && from == p->waking && !c->migrations)
		cpu = p->cpu; /* no migration seen: the switch-in's CPU is where it waited */
	else if (cpu != p->cpu)
		c->migrations++, cpu = p->cpu; /* moved without a record we saw: the last piece is where it ran */
	jl_tan_add_window(an, cpu, from, p->switch_in, p->pid, p->kprio, c, true);
}

void jl_tan_decompose(const struct jl_tan *an, const struct jl_pair *p, int64_t release, int64_t wake,
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
	c->latency_ns = release > 0 && wake > 0 ? wake - release : p->switch_in - p->waking;
	if (release > 0) {
		int64_t pre = p->waking > release ? p->waking - release : 0;
		const struct jl_segment *s = seg_at(an, p->wake_cpu, release < p->waking ? release : p->waking - 1);
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
		ret = wake - p->switch_in - jl_tan_add_window(an, p->cpu, p->switch_in, wake, p->pid, p->kprio, c, false);
		if (ret > JL_SWITCH_IDLE_MAX_NS)
			/* the return path takes microseconds: this long, with nothing else traced on the CPU, is
			 * not a return, and nothing says what it is */
			jl_cycle_add_part(c, JL_PART_OTHER, "switched in, no event says why", -1, 0, ret,
					  "from the switch-in to the loop's own clock read with nothing else traced on its "
					  "CPU: the kernel's return path takes microseconds; a section the trace does not "
					  "show, or the vCPU not running");
		else
			add_part(c, JL_PART_OTHER, "return", -1, 0, ret > 0 ? ret : 0);
	} else if (wake > 0) {
		add_part(c, JL_PART_OTHER, "return", -1, 0, 0);
	}
	c->lost_in_window = jl_tan_lost_in(an, -1, release > 0 && release < p->waking ? release : p->waking,
					   wake > p->switch_in ? wake : p->switch_in);
	jl_tan_finish_parts(an, c);
}

/* A PREEMPT_RT kernel thread's task name NAME as an RT engineer says it, into OUT: a threaded IRQ
 * handler ("irq/25-virtio0-", cut at 15 characters) as "the handler thread irq/25 of IRQ 25
 * virtio0-requests", the IRQ's full name from the trace or /proc/irq; the timer softirq's, softirq and RCU
 * callback threads with what they run. False for any other task. */
static bool rt_kthread_name(const struct jl_tan *an, const char *name, char *out, size_t len)
{
	static const struct { const char *prefix, *what; } kthreads[] = {
		{ "ktimers/", "the timer softirq's thread" },
		{ "ksoftirqd/", "the softirq thread" },
		{ "rcuc/", "the RCU callback thread" },
	};
	int n, end = 0;

	if (sscanf(name, "irq/%d-%n", &n, &end) == 1 && end > 0 && n >= 0) {
		const char *full = n < JL_TAN_IRQS && an->irq_name[n] ? jl_tan_name(an, an->irq_name[n]) : name + end;

		snprintf(out, len, "the handler thread irq/%d of IRQ %d %s", n, n, full);
		return true;
	}
	for (size_t k = 0; k < sizeof(kthreads) / sizeof(kthreads[0]); k++)
		if (!strncmp(name, kthreads[k].prefix, strlen(kthreads[k].prefix))) {
			snprintf(out, len, "%s, %s", name, kthreads[k].what);
			return true;
		}
	return false;
}

/* Name the tasks of C's parts as the run knows them (thread names, policies) and order the parts. */
void jl_tan_finish_parts(const struct jl_tan *an, struct jl_cycle *c)
{
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *pt = &c->parts[i];
		char kname[sizeof(pt->name)];
		int ti;

		if (pt->pid <= 0 || (pt->kind != JL_PART_TASK && pt->kind != JL_PART_OTHER && pt->kind != JL_PART_UNPREEMPTED))
			continue;
		if (pt->kind == JL_PART_TASK && rt_kthread_name(an, pt->name, kname, sizeof(kname)))
			memcpy(pt->name, kname, sizeof(pt->name));
		ti = jl_tan_thread_of(an, pt->pid);
		if (ti >= 0 && an->threads[ti].name[0] && pt->kind != JL_PART_UNPREEMPTED)
			snprintf(pt->name, sizeof(pt->name), "%s%s", pt->kind == JL_PART_OTHER ? "preempting " : "",
				 an->threads[ti].name);
		if (ti >= 0 && an->threads[ti].policy[0])
			snprintf(pt->policy, sizeof(pt->policy), "%s", an->threads[ti].policy);
		else
			jl_kprio_format(pt->kprio, pt->policy, sizeof(pt->policy));
	}
	qsort(c->parts, c->nparts, sizeof(c->parts[0]), cmp_part);
}

bool jl_tan_lost_in(const struct jl_tan *an, int cpu, int64_t from, int64_t to)
{
	for (size_t i = 0; i < an->ngaps; i++)
		if ((cpu < 0 || an->gaps[i].cpu == cpu) && an->gaps[i].from < to && an->gaps[i].to > from)
			return true;
	return false;
}

/* First pair of T whose waking is at or after TS. */
static size_t pair_from(const struct jl_tan_thread *t, int64_t ts)
{
	size_t lo = 0, hi = t->npairs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->pairs[mid].waking < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entries that share a thread with an earlier one (two series written by one thread) get a copy of its
 * wakeup pairs and states: the events went to the first entry with the pid (jl_tan_thread_of). */
static int share_thread_events(struct jl_tan *an)
{
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_tan_thread *t = &an->threads[ti];
		const struct jl_tan_thread *o = &an->threads[t->owner];

		if (t->owner == ti || t->pairs || t->states || (!o->npairs && !o->nstates))
			continue;
		t->pairs = malloc((o->npairs ? o->npairs : 1) * sizeof(*t->pairs));
		t->states = malloc((o->nstates ? o->nstates : 1) * sizeof(*t->states));
		if (!t->pairs || !t->states) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(t->pairs, o->pairs, o->npairs * sizeof(*t->pairs));
		memcpy(t->states, o->states, o->nstates * sizeof(*t->states));
		t->npairs = t->cap = o->npairs;
		t->nstates = t->capstates = o->nstates;
		t->switch_in = o->switch_in;
		t->switch_out = o->switch_out;
		t->wakings = o->wakings;
		t->implicit_in = o->implicit_in;
	}
	return 0;
}

int jl_tan_match(struct jl_tan *an, int64_t from)
{
	if (share_thread_events(an))
		return -1;
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_tan_thread *t = &an->threads[ti];

		t->matched = t->measured_samples = 0;
		if (!t->measured || !t->samples)
			continue;
		free(t->sample_pair);
		t->sample_pair = malloc((t->nsamples ? t->nsamples : 1) * sizeof(*t->sample_pair));
		if (!t->sample_pair) {
			errno = ENOMEM;
			return -1;
		}
		for (size_t i = 0; i < t->npairs; i++)
			t->pairs[i].matched = false;
		for (size_t i = 0; i < t->nsamples; i++) {
			const struct jl_tan_sample *s = &t->samples[i];
			size_t pi;

			t->sample_pair[i] = -1;
			if (s->release < from)
				continue;
			t->measured_samples++;
			/* the wakeup of this release: the first at or after it (its timer fires no earlier), and
			 * before the thread's own wake time; the trace clock may read a little behind */
			pi = pair_from(t, s->release - JL_TAN_CLOCK_SLACK_NS);
			if (pi >= t->npairs || t->pairs[pi].waking > s->wake + JL_TAN_CLOCK_SLACK_NS)
				continue;
			if (t->pairs[pi].implicit && s->wake < t->pairs[pi].switch_in) /* refine the bound */
				t->pairs[pi].switch_in = s->wake > t->pairs[pi].waking ? s->wake : t->pairs[pi].waking;
			t->pairs[pi].matched = true;
			t->sample_pair[i] = (long)pi;
			t->matched++;
		}
	}
	return 0;
}

struct cand {
	int thread;
	long pair;
	size_t sample;
	int64_t latency, release, wake;
	uint64_t cycle;
};

static void keep_worst(struct cand *w, int n, int *nw, const struct cand *c)
{
	int i;

	if (n <= 0)
		return;
	if (*nw == n && w[n - 1].latency >= c->latency)
		return;
	i = *nw < n ? (*nw)++ : n - 1;
	while (i > 0 && w[i - 1].latency < c->latency) {
		w[i] = w[i - 1];
		i--;
	}
	w[i] = *c;
}

/* Make sure the worst cycle of every measured thread is in W (replacing the least bad ones of threads that
 * already have one), so that a loop is never hidden behind a neighbour that always overruns. */
static void keep_each_thread(struct cand *w, int n, int *nw, const struct cand *best, int nthreads)
{
	for (int ti = 0; ti < nthreads; ti++) {
		bool present = false;
		int victim = -1;

		if (best[ti].thread < 0)
			continue;
		for (int i = 0; i < *nw; i++)
			present |= w[i].thread == ti;
		if (present)
			continue;
		if (*nw < n) {
			w[(*nw)++] = best[ti];
		} else {
			for (int i = n - 1; i >= 0 && victim < 0; i--) { /* least bad of a thread seen twice */
				int count = 0;

				for (int j = 0; j < *nw; j++)
					count += w[j].thread == w[i].thread;
				if (count > 1)
					victim = i;
			}
			if (victim < 0)
				continue;
			w[victim] = best[ti];
		}
		/* keep W worst first: the replaced entry may sit anywhere */
		for (int i = 1; i < *nw; i++)
			for (int j = i; j > 0 && w[j].latency > w[j - 1].latency; j--) {
				struct cand tmp = w[j];

				w[j] = w[j - 1];
				w[j - 1] = tmp;
			}
	}
}

int jl_tan_worst(struct jl_tan *an, int64_t from, struct jl_cycle *out, int n, int n_misses, int *nout,
		 size_t *misses)
{
	struct cand *w, *best, *m;
	int nw = 0, nm = 0;

	*nout = 0;
	if (misses)
		*misses = 0;
	if (n <= 0 || jl_tan_match(an, from) < 0)
		return n <= 0 ? 0 : -1;
	w = calloc(n, sizeof(*w));
	best = calloc(an->nthreads > 0 ? an->nthreads : 1, sizeof(*best));
	m = calloc(n_misses > 0 ? n_misses : 1, sizeof(*m));
	if (!w || !best || !m) {
		free(w);
		free(best);
		free(m);
		return -1;
	}
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_tan_thread *t = &an->threads[ti];
		int one = 0;

		best[ti].thread = -1;
		if (!t->measured || t->pool) /* a pool thread's wakeups explain its callbacks' starts */
			continue;
		if (t->samples) {
			for (size_t i = 0; i < t->nsamples; i++) {
				const struct jl_tan_sample *s = &t->samples[i];
				long pi = t->sample_pair[i];
				struct cand c = { ti, pi, i, s->wake - s->release, s->release, s->wake, s->cycle };

				/* a pruned analysis explains only the cycles whose whole window it kept */
				bool whole = jl_tan_sample_whole(an, ti, i);

				if (s->release < from)
					continue;
				if (s->miss && s->end > s->wake) {
					struct cand mc = c;

					if (misses)
						(*misses)++;
					mc.latency = s->end - s->release; /* the worst responses first */
					if (whole)
						keep_worst(m, n_misses, &nm, &mc);
				}
				if (!whole)
					continue;
				if (pi < 0 && !t->executor)
					continue; /* a callback's start needs no wakeup of its own: its executor may have been busy */
				keep_worst(w, n, &nw, &c);
				keep_worst(&best[ti], 1, &one, &c);
			}
		} else {
			for (size_t i = 0; i < t->npairs; i++) {
				struct cand c = { ti, (long)i, 0, t->pairs[i].switch_in - t->pairs[i].waking, 0, 0, i };

				if (t->pairs[i].waking < from)
					continue;
				keep_worst(w, n, &nw, &c);
				keep_worst(&best[ti], 1, &one, &c);
			}
		}
	}
	keep_each_thread(w, n, &nw, best, an->nthreads);
	free(best);
	for (int i = 0; i < nw; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		if (an->threads[w[i].thread].executor)
			jl_tan_decompose_callback(an, w[i].thread, w[i].sample,
						  w[i].pair >= 0 ? &an->threads[w[i].thread].pairs[w[i].pair] : NULL, &out[i]);
		else
			jl_tan_decompose_cycle(an, w[i].thread, &an->threads[w[i].thread].pairs[w[i].pair], w[i].release,
					       w[i].wake, &out[i]);
		out[i].thread = w[i].thread;
		out[i].cycle = w[i].cycle;
		if (an->threads[w[i].thread].samples) {
			out[i].end = an->threads[w[i].thread].samples[w[i].sample].end;
			out[i].miss = an->threads[w[i].thread].samples[w[i].sample].miss;
		}
	}
	for (int i = 0; i < nm; i++) {
		memset(&out[nw + i], 0, sizeof(out[nw + i]));
		jl_tan_decompose_response(an, m[i].thread, m[i].sample, &out[nw + i]);
	}
	*nout = nw + nm;
	free(w);
	free(m);
	return 0;
}

int64_t *jl_tan_wakeups(const struct jl_tan *an, int ti, int64_t from, size_t *n)
{
	const struct jl_tan_thread *t = &an->threads[ti];
	int64_t *v = malloc((t->npairs ? t->npairs : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->npairs; i++)
		if (t->pairs[i].waking >= from && (!t->samples || t->pairs[i].matched))
			v[(*n)++] = t->pairs[i].switch_in - t->pairs[i].waking;
	return v;
}

int jl_cycle_culprit(const struct jl_cycle *c)
{
	int best = -1;

	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];
		bool can = (p->kind == JL_PART_TASK && p->pid > 0) || p->kind == JL_PART_THROTTLE ||
			   p->kind == JL_PART_UNPREEMPTED;

		if (can && (best < 0 || p->duration_ns > c->parts[best].duration_ns))
			best = i;
	}
	return best;
}

/* The priority as a user sets it: rt_priority for RT tasks, nice for CFS, -1 for DEADLINE. */
int jl_kprio_user(int kprio)
{
	if (kprio < 0)
		return -1;
	if (kprio < 99)
		return 99 - kprio;
	if (kprio >= 100 && kprio < 140)
		return kprio - 120;
	return kprio;
}

void jl_kprio_format(int kprio, char *buf, size_t len)
{
	if (kprio < 0)
		snprintf(buf, len, "DEADLINE");
	else if (kprio < 99)
		snprintf(buf, len, "RT %d", 99 - kprio);
	else if (kprio >= 100 && kprio < 140)
		snprintf(buf, len, "CFS nice %d", kprio - 120);
	else
		snprintf(buf, len, "prio %d", kprio);
}

static long long us(int64_t ns)
{
	return (long long)((ns + (ns >= 0 ? 500 : -500)) / 1000);
}

void jl_cycle_format(const struct jl_cycle *c, const char *thread, char *buf, size_t len)
{
	size_t o = 0;
	bool first = true, waited = false;

#define APPEND(...)                                                          \
	do {                                                                 \
		if (o < len)                                                 \
			o += snprintf(buf + o, len - o, __VA_ARGS__);        \
	} while (0)
	if (c->window == JL_WINDOW_RESPONSE)
		APPEND("%s cycle %llu missed its deadline: response %lld us =", thread, (unsigned long long)c->cycle,
		       us(c->end - c->release));
	else
		APPEND("%s %s %llu: %lld us =", thread, c->release > 0 ? "cycle" : "wakeup", (unsigned long long)c->cycle,
		       us(c->latency_ns));
	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];

		/* under half a microsecond says nothing in a line (it is in the JSON); keep the fixed parts */
		if (p->duration_ns < 500 && !(p->kind == JL_PART_TIMER && !strcmp(p->name, "timer")) &&
		    p->kind != JL_PART_IDLE_EXIT && p->kind != JL_PART_LOST && strcmp(p->name, "return"))
			continue;
		APPEND("%s", first ? " " : " + ");
		first = false;
		switch (p->kind) {
		case JL_PART_TIMER:
		case JL_PART_IDLE_EXIT:
			APPEND("%s %lld us", p->name, us(p->duration_ns));
			break;
		case JL_PART_TASK:
			if (!waited)
				APPEND("waited %lld us behind %s (pid %d, %s)", us(p->duration_ns), p->name, p->pid,
				       p->policy);
			else
				APPEND("%s (pid %d, %s) %lld us", p->name, p->pid, p->policy, us(p->duration_ns));
			waited = true;
			break;
		case JL_PART_IRQ:
			APPEND("irq %s %lld us", p->name, us(p->duration_ns));
			break;
		case JL_PART_SOFTIRQ:
			APPEND("softirq %s %lld us", p->name, us(p->duration_ns));
			break;
		case JL_PART_THROTTLE:
			APPEND("RT throttled %lld us (%s)", us(p->duration_ns), p->detail);
			break;
		case JL_PART_UNPREEMPTED:
			APPEND("%s %lld us while it was runnable (a non-preemptible section or the vCPU: the trace "
			       "cannot tell)", p->name, us(p->duration_ns));
			break;
		case JL_PART_LOST:
			APPEND("lost events %lld us", us(p->duration_ns));
			break;
		default:
			APPEND("%s %lld us", p->name, us(p->duration_ns));
			break;
		}
	}
	if (c->lost_in_window)
		APPEND(" [events were lost in this window: the explanation may be incomplete]");
#undef APPEND
}
