/* bandwidth: what kept a woken real-time task waiting while lower tasks, or nothing, ran on its CPU.
 * Plain priority scheduling preempts a lower task at once, so a long stretch of lower time has a cause of
 * its own, and the evidence decides which one is named (measured on Linux 6.18, see docs/design-notes.md):
 * - RT throttling (sched_rt_runtime_us of sched_rt_period_us spent): RT time ran right up to the stretch,
 *   the stretch is no longer than 1.3x the throttled share of a period, and it ends when
 *   sched_rt_period_timer fires (on any CPU, or its IPI reaches this one) and unthrottles the RT queues
 *   (IRQs on this CPU after the timer delay the switch-in, and keep their own parts: they do not count
 *   against the lead; seen in the RT lane's guest, a 4.5 ms tick handler right after the timer);
 * - the fair server (Linux 6.12+: CFS gets its runtime per period while RT tasks are runnable): on a
 *   kernel that has one, RT time ran right up to the stretch, the stretch is mostly CFS time no longer
 *   than 1.3x the server's runtime, and the server's dl_task_timer fired on the CPU at its start;
 * - without the timers' evidence (the timer group not recorded, or neither timer near): a stretch with the
 *   shape of a budget (RT time ran up to it, about the throttled time or the fair server's runtime long)
 *   is RT bandwidth, mechanism not told;
 * - otherwise a lower task that kept running JL_UNPREEMPTED_NS or more: a non-preemptible section or the
 *   host taking the vCPU (the trace cannot tell); a shorter one is the preemption path ("preempting X");
 *   idle is the switch out of it ("switch from idle") up to JL_SWITCH_IDLE_MAX_NS, and beyond that a wait
 *   no event explains ("runnable, CPU idle").
 * IRQs and softirqs inside the stretch keep their own parts. Pure: reads the analysis only. */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "decompose.h"
#include "event.h"
#include "parts.h"

#define UNTHROTTLE_LEAD_NS 3000000LL /* sched_rt_period_timer fires this long at most before the switch-in */
#define FAIR_START_NS 1000000LL      /* the fair server's timer fires this close to the stretch's start */
#define MIN_BUDGET_NS 500000LL       /* a shorter stretch is never named bandwidth control */

static bool mark_in(const struct jl_analysis_mark *m, size_t n, int cpu, int64_t from, int64_t to)
{
	for (size_t i = 0; i < n; i++)
		if ((cpu < 0 || m[i].cpu == cpu) && m[i].ts >= from && m[i].ts <= to)
			return true;
	return false;
}

/* IRQ and softirq time on CPU in [A, B). */
static int64_t irq_time(const struct jl_analysis *an, int cpu, int64_t a, int64_t b)
{
	int64_t sum = 0;

	for (size_t i = jl_analysis_seg_find(an, cpu, a); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t lo = s->start > a ? s->start : a, hi = s->end < b ? s->end : b;

		if (s->start >= b)
			break;
		if (jl_part_kinds[s->kind].interrupt && hi > lo)
			sum += hi - lo;
	}
	return sum;
}

/* Did sched_rt_period_timer fire (on any CPU) at most UNTHROTTLE_LEAD_NS before TO, IRQ time on CPU in
 * between aside? */
static bool unthrottled_before(const struct jl_analysis *an, int cpu, int64_t to, int64_t whole)
{
	for (size_t i = 0; i < an->n_rt_unthrottle; i++) {
		int64_t ts = an->rt_unthrottle[i].ts;

		if (ts <= to && ts >= to - whole && to - ts - irq_time(an, cpu, ts, to) <= UNTHROTTLE_LEAD_NS)
			return true;
	}
	return false;
}

struct lower_time {
	int64_t task_ns, idle_ns, unknown_ns, rt_ns;  /* in the window; rt_ns: lower RT tasks */
	int64_t irq_ns;                                /* IRQs and softirqs in the window (their own parts) */
	int64_t main_ns;                               /* the lower task that ran longest */
	int32_t main_pid, main_prio;
	char main_name[JL_EVENT_COMM + 8];
	int64_t cfs_ns_whole;                          /* CFS time in the whole stretch */
};

static void tally(const struct jl_analysis *an, const struct jl_segment *s, int64_t a, int64_t b, struct lower_time *t,
		  struct jl_cycle *c, bool in_window)
{
	if (b <= a)
		return;
	if (jl_part_kinds[s->kind].interrupt) {
		if (in_window) {
			jl_cycle_add_part(c, s->kind, jl_analysis_name(an, s->name), s->pid, 0, b - a, NULL);
			t->irq_ns += b - a;
		}
		return;
	}
	if (s->kind == JL_PART_TASK && s->kprio >= 100 && s->kprio < 140)
		t->cfs_ns_whole += b - a;
	if (!in_window)
		return;
	if (s->kind == JL_PART_TASK) {
		t->task_ns += b - a;
		if (s->kprio < 100)
			t->rt_ns += b - a;
		/* per task: the main one is the longest in the window (segments of one task add up) */
		if (s->pid == t->main_pid || t->main_pid <= 0) {
			t->main_pid = s->pid;
			t->main_prio = s->kprio;
			snprintf(t->main_name, sizeof(t->main_name), "%s", jl_analysis_name(an, s->name));
			t->main_ns += b - a;
		} else if (b - a > t->main_ns) {
			t->main_pid = s->pid;
			t->main_prio = s->kprio;
			snprintf(t->main_name, sizeof(t->main_name), "%s", jl_analysis_name(an, s->name));
			t->main_ns = b - a;
		}
	} else if (s->pid == 0) {
		t->idle_ns += b - a;
	} else {
		t->unknown_ns += b - a;
	}
}

static const char *name_of(const struct jl_analysis *an, int32_t pid, const char *fallback)
{
	int ti = jl_analysis_thread_of(an, pid);

	return ti >= 0 && an->threads[ti].name[0] ? an->threads[ti].name : fallback;
}

/* "hog.0 (pid 123) ran 48.9 ms" or "the CPU idled 40.2 ms", what ran meanwhile. */
static void meanwhile(const struct jl_analysis *an, const struct lower_time *t, char *buf, size_t len)
{
	if (t->main_pid > 0 && t->main_ns >= t->idle_ns)
		snprintf(buf, len, "%s (pid %d) ran %.1f ms", name_of(an, t->main_pid, t->main_name), t->main_pid,
			 (double)t->main_ns / 1e6);
	else
		snprintf(buf, len, "the CPU idled %.1f ms", (double)t->idle_ns / 1e6);
}

/* Did an RT task run on CPU right up to TS (the segment ending there, IRQs aside)? RT bandwidth control
 * stops RT tasks that were running: a stretch that follows idle or CFS time is no budget spent. */
static bool rt_before(const struct jl_analysis *an, int cpu, int64_t ts)
{
	for (size_t i = jl_analysis_seg_find(an, cpu, ts); i-- > 0;) {
		const struct jl_segment *s = &an->segs[cpu][i];

		if (jl_part_kinds[s->kind].interrupt)
			continue;
		return s->end == ts && s->kind == JL_PART_TASK && s->kprio < 100;
	}
	return false;
}

/* IDLE ns of idle while an RT task was runnable, in a stretch of WHOLE ns: up to JL_SWITCH_IDLE_MAX_NS the
 * switch out of the idle task; longer, a part of its own that says no event explains it (none of RT
 * bandwidth's shapes matched: the stretch's length is said beside the budgets it was held against). */
static void idle_part(struct jl_cycle *c, int64_t idle, int64_t whole, int64_t throttled_ns, int64_t fair_ns)
{
	char detail[200];

	if (idle <= JL_SWITCH_IDLE_MAX_NS) {
		jl_cycle_add_part(c, JL_PART_OTHER, "switch from idle", -1, 0, idle, NULL);
		return;
	}
	snprintf(detail, sizeof(detail), "no event says why: a %.1f ms stretch, not RT bandwidth's shape (%.0f ms "
		 "throttled per period, fair server %.0f ms); the vCPU may not have run", (double)whole / 1e6,
		 (double)throttled_ns / 1e6, (double)fair_ns / 1e6);
	jl_cycle_add_part(c, JL_PART_OTHER, "runnable, CPU idle", -1, 0, idle, detail);
}

/* A stretch of lower-priority time that delayed an RT task on CPU: [FROM, TO) accounted, from START its
 * shape; what ran in it (T), the budgets it is held against, and what ran meanwhile in words (WHAT). */
struct stretch {
	int cpu;
	int64_t from, to, start, whole; /* whole = to - start */
	int64_t throttled_ns, fair_ns;  /* RT throttling's share of a period, the fair server's runtime (0: none) */
	bool after_rt;                  /* an RT task ran right up to START */
	struct lower_time t;
	int64_t lower;                  /* its task, idle and unknown time */
	char what[96];
};

static void add_budget_part(const struct stretch *st, const char *name, const char *detail, struct jl_cycle *c)
{
	jl_cycle_add_part(c, JL_PART_THROTTLE, name, st->t.main_pid > 0 ? st->t.main_pid : -1,
			  st->t.main_pid > 0 ? st->t.main_prio : 0, st->lower, detail);
}

/* RT bandwidth control, when the stretch has one of its shapes: RT throttling (RT time ran up to it, it is
 * no longer than the throttled share of a period, and the unthrottle came just before it ended), the fair
 * server (mostly CFS time no longer than its runtime, started by its timer on this CPU), or, without those
 * timers in the trace, a budget's length alone. True when a part was added. */
static bool budget_part(const struct jl_analysis *an, const struct stretch *st, struct jl_cycle *c)
{
	const struct jl_analysis_budget *bw = &an->budget;
	const struct lower_time *t = &st->t;
	char detail[160];

	if (t->rt_ns * 10 >= st->lower)
		return false;
	if (st->throttled_ns > 0 && st->after_rt && st->whole >= MIN_BUDGET_NS && st->whole * 10 <= st->throttled_ns * 13 &&
	    unthrottled_before(an, st->cpu, st->to, st->whole)) {
		snprintf(detail, sizeof(detail), "RT throttling: %s (RT runtime %.0f ms per %.0f ms spent; "
			 "sched_rt_period_timer ended it)", st->what, (double)bw->rt_runtime_ns / 1e6,
			 (double)bw->rt_period_ns / 1e6);
		add_budget_part(st, "RT throttling", detail, c);
		return true;
	}
	if (st->fair_ns > 0 && st->after_rt && st->whole >= MIN_BUDGET_NS && st->whole * 10 <= st->fair_ns * 13 &&
	    t->cfs_ns_whole * 2 > st->whole &&
	    mark_in(an->fair_start, an->n_fair_start, st->cpu, st->start - FAIR_START_NS, st->start + FAIR_START_NS)) {
		snprintf(detail, sizeof(detail), "fair server: %s (%.0f ms per %.0f ms on CPU %d%s)", st->what,
			 (double)bw->fair_runtime_ns / 1e6, (double)bw->fair_period_ns / 1e6, st->cpu,
			 bw->fair_known ? "" : ", the defaults");
		add_budget_part(st, "fair server", detail, c);
		return true;
	}
	/* the shape alone: without timer events, or with them and none of the two timers near (seen on our
	 * 6.18 hosts with RT group scheduling: a throttled CPU whose period timer never showed in the trace) */
	if (st->lower >= MIN_BUDGET_NS && (st->throttled_ns > 0 || st->fair_ns > 0)) {
		int64_t blo = st->throttled_ns && (!st->fair_ns || st->throttled_ns < st->fair_ns) ? st->throttled_ns : st->fair_ns;
		int64_t bhi = st->throttled_ns > st->fair_ns ? st->throttled_ns : st->fair_ns;
		/* the shape counts from where RT time stopped: the stretch's start when an RT task ran right
		 * before it (it was throttled or set aside), else the waking (an idle CPU is no budget) */
		int64_t span = st->after_rt ? st->whole : st->to - st->from;

		if (blo > 0 && span * 10 >= blo * 6 && span * 10 <= bhi * 13) {
			snprintf(detail, sizeof(detail), "RT bandwidth: %s, %.1f ms with the shape of a budget %s", st->what,
				 (double)span / 1e6, an->timer_events ? "(neither sched_rt_period_timer nor the fair "
				 "server's timer in the trace to tell which)" : "(record the timer group to tell RT "
				 "throttling from the fair server)");
			add_budget_part(st, "RT bandwidth", detail, c);
			return true;
		}
	}
	return false;
}

/* A lower task that ran on for JL_UNPREEMPTED_NS or more while the RT task was runnable. */
static void add_unpreempted(const struct jl_analysis *an, const struct stretch *st, struct jl_cycle *c)
{
	const struct lower_time *t = &st->t;
	char name[JL_EVENT_COMM + 24], detail[160];

	snprintf(name, sizeof(name), "%s kept running", name_of(an, t->main_pid, t->main_name));
	snprintf(detail, sizeof(detail), "%s while an RT task was runnable: a non-preemptible section or the "
		 "vCPU taken by the host (the trace cannot tell)", st->what);
	jl_cycle_add_part(c, JL_PART_UNPREEMPTED, name, t->main_pid, t->main_prio, t->task_ns, detail);
	if (t->idle_ns)
		idle_part(c, t->idle_ns, st->whole, st->throttled_ns, st->fair_ns);
	if (t->unknown_ns)
		jl_cycle_add_part(c, JL_PART_OTHER, "unknown (not traced)", -1, 0, t->unknown_ns, NULL);
}

/* A short stretch: the preemption path, task by task; idle: the switch out of it (or, long, a wait of its
 * own). */
static void add_preemption_path(const struct jl_analysis *an, const struct stretch *st, struct jl_cycle *c)
{
	if (st->t.idle_ns > JL_SWITCH_IDLE_MAX_NS)
		idle_part(c, st->t.idle_ns, st->whole, st->throttled_ns, st->fair_ns);
	for (size_t i = jl_analysis_seg_find(an, st->cpu, st->from); i < an->nsegs[st->cpu]; i++) {
		const struct jl_segment *s = &an->segs[st->cpu][i];
		int64_t a = s->start > st->from ? s->start : st->from, b = s->end < st->to ? s->end : st->to;
		char name[JL_EVENT_COMM + 24];

		if (s->start >= st->to)
			break;
		if (b <= a || jl_part_kinds[s->kind].interrupt)
			continue;
		if (s->kind == JL_PART_TASK) {
			snprintf(name, sizeof(name), "preempting %s", jl_analysis_name(an, s->name));
			jl_cycle_add_part(c, JL_PART_OTHER, name, s->pid, s->kprio, b - a, NULL);
		} else if (s->pid != 0 || st->t.idle_ns <= JL_SWITCH_IDLE_MAX_NS) {
			jl_cycle_add_part(c, JL_PART_OTHER, s->pid == 0 ? "switch from idle" : "unknown (not traced)", -1, 0,
					  b - a, NULL);
		}
	}
}

int64_t jl_analysis_add_lower_stretch(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int64_t start,
				 int32_t self_prio, struct jl_cycle *c)
{
	const struct jl_analysis_budget *bw = &an->budget;
	struct stretch st = { .cpu = cpu, .from = from, .to = to, .start = start, .whole = to - start,
			      .throttled_ns = bw->rt_runtime_ns >= 0 ? bw->rt_period_ns - bw->rt_runtime_ns : 0,
			      .fair_ns = bw->fair_server ? bw->fair_runtime_ns : 0, .after_rt = rt_before(an, cpu, start),
			      .t = { .main_pid = -1 } };
	const int64_t lo = start < from ? start : from;

	(void)self_prio;
	/* the window [from, to) is accounted whole (a lower RT task at its front included); the non-RT time
	 * before it, from START, only tells the stretch's shape */
	for (size_t i = jl_analysis_seg_find(an, cpu, lo); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];

		if (s->start >= to)
			break;
		if (start < from && s->start < from)
			tally(an, s, s->start > start ? s->start : start, s->end < from ? s->end : from, &st.t, c, false);
		if (s->end > from)
			tally(an, s, s->start > from ? s->start : from, s->end < to ? s->end : to, &st.t, c, true);
	}
	st.lower = st.t.task_ns + st.t.idle_ns + st.t.unknown_ns;
	if (st.lower <= 0)
		return st.t.irq_ns;
	meanwhile(an, &st.t, st.what, sizeof(st.what));
	if (!budget_part(an, &st, c)) {
		if (st.t.task_ns >= JL_UNPREEMPTED_NS)
			add_unpreempted(an, &st, c);
		else
			add_preemption_path(an, &st, c);
	}
	return st.lower + st.t.irq_ns;
}
