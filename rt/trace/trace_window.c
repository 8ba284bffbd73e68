/* trace_window: the response window of a cycle (release -> end of its work), for the cycles that missed
 * their deadline: the wakeup part as trace_decompose.c explains it, then, from the thread's own switches
 * and wakings (trace_events.c keeps them), the work part: running (less the IRQs that interrupted it),
 * preempted (waiting for the CPU behind a task, an IRQ or RT bandwidth control), blocked (asleep inside its
 * work, and who ended the sleep: the task, IRQ, softirq or hrtimer that woke it) and the wait after that
 * wakeup. Pure: reads the analysis only. */
#include <stdio.h>
#include <string.h>

#include "trace_events.h"

/* First state of T after TS. */
static size_t state_after(const struct jl_tan_thread *t, int64_t ts)
{
	size_t lo = 0, hi = t->nstates;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->states[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Running on CPU in [from, to): the thread's own time is "running", IRQs on top of it their parts. */
static void add_running(const struct jl_tan *an, int cpu, int64_t from, int64_t to, int32_t pid, int32_t kprio,
			struct jl_cycle *c)
{
	int64_t others;

	if (to <= from)
		return;
	others = jl_tan_add_window(an, cpu, from, to, pid, kprio, c, false);
	if (to - from > others)
		jl_cycle_add_part(c, JL_PART_RUNNING, "running", -1, 0, to - from - others, NULL);
}

/* Waiting on CPU in [from, to) (preempted, or woken and not yet switched in): what ran there. */
static void add_waiting(const struct jl_tan *an, int cpu, int64_t from, int64_t to, int32_t pid, int32_t kprio,
			struct jl_cycle *c)
{
	int64_t seen;

	if (to <= from)
		return;
	seen = jl_tan_add_window(an, cpu, from, to, pid, kprio, c, true);
	if (to - from > seen)
		jl_cycle_add_part(c, JL_PART_OTHER, "waiting (not traced)", -1, 0, to - from - seen, NULL);
}

static void add_blocked(struct jl_cycle *c, const struct jl_tstate *woken, int64_t d)
{
	char name[72], detail[160];

	if (!woken) {
		jl_cycle_add_part(c, JL_PART_BLOCKED, "blocked", -1, 0, d,
				  "asleep inside its work (who woke it, if anyone, is not in the window)");
		return;
	}
	switch (woken->by_kind) {
	case JL_PART_TASK:
		snprintf(name, sizeof(name), "blocked, woken by %s", woken->by);
		snprintf(detail, sizeof(detail), "asleep inside its work until %s (pid %d) woke it", woken->by, woken->by_pid);
		break;
	case JL_PART_IRQ:
	case JL_PART_SOFTIRQ:
		snprintf(name, sizeof(name), "blocked, woken by %s%s", woken->by_kind == JL_PART_SOFTIRQ ? "softirq " : "",
			 woken->by);
		snprintf(detail, sizeof(detail), "asleep inside its work until %s%s woke it (in interrupt context)",
			 woken->by_kind == JL_PART_SOFTIRQ ? "softirq " : "", woken->by);
		break;
	default:
		snprintf(name, sizeof(name), "blocked");
		snprintf(detail, sizeof(detail), "asleep inside its work until %s woke it", woken->by);
		break;
	}
	jl_cycle_add_part(c, JL_PART_BLOCKED, name, woken->by_kind == JL_PART_TASK ? woken->by_pid : -1, 0, d, detail);
}

void jl_tan_decompose_response(const struct jl_tan *an, int ti, size_t si, struct jl_cycle *c)
{
	const struct jl_tan_thread *t = &an->threads[ti];
	const struct jl_tan_sample *s = &t->samples[si];
	long pi = t->sample_pair ? t->sample_pair[si] : -1;
	int32_t kprio = 120;
	int64_t cursor, block_from = 0;
	int state = JL_TS_IN, cpu = -1;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (pi >= 0) {
		jl_tan_decompose(an, &t->pairs[pi], s->release, s->wake, c);
		kprio = t->pairs[pi].kprio;
		cpu = t->pairs[pi].cpu;
	} else {
		/* no wakeup of this release: the previous cycle ran past it (no sleep at all), or it was not
		 * traced (lost events, or a trace that started later) */
		int64_t late = si > 0 && t->samples[si - 1].end > s->release ? t->samples[si - 1].end - s->release : 0;

		if (late > s->wake - s->release)
			late = s->wake - s->release;
		if (t->npairs)
			kprio = t->pairs[0].kprio;
		if (late > 0)
			jl_cycle_add_part(c, JL_PART_OTHER, "previous cycle overran", -1, 0, late,
					  "no sleep: the previous cycle ended after this release");
		if (s->wake - s->release > late)
			jl_cycle_add_part(c, JL_PART_OTHER, "wakeup (not traced)", -1, 0, s->wake - s->release - late, NULL);
	}
	c->window = JL_WINDOW_RESPONSE;
	c->thread = ti;
	c->cycle = s->cycle;
	c->release = s->release;
	c->wake = s->wake;
	c->end = s->end;
	c->miss = s->miss;
	c->latency_ns = s->wake - s->release; /* the response is end - release */
	k = state_after(t, s->wake);
	if (cpu < 0)
		cpu = k > 0 ? t->states[k - 1].cpu : 0;
	c->cpu = cpu;
	cursor = s->wake;
	for (; k < t->nstates && t->states[k].ts < s->end; k++) {
		const struct jl_tstate *st = &t->states[k];

		switch (state) {
		case JL_TS_IN:
			add_running(an, cpu, cursor, st->ts, t->pid, kprio, c);
			break;
		case JL_TS_PREEMPTED:
			add_waiting(an, st->what == JL_TS_IN ? st->cpu : cpu, cursor, st->ts, t->pid, kprio, c);
			break;
		case JL_TS_BLOCKED:
			if (st->what == JL_TS_MIGRATED)
				continue; /* moved while asleep: still asleep, from block_from */
			add_blocked(c, st->what == JL_TS_WOKEN ? st : NULL, st->ts - block_from);
			break;
		case JL_TS_WOKEN:
			add_waiting(an, st->what == JL_TS_IN ? st->cpu : cpu, cursor, st->ts, t->pid, kprio, c);
			break;
		}
		if (st->what == JL_TS_BLOCKED)
			block_from = st->ts;
		/* a migration changes where it waits, not how; a waking while not blocked changes nothing */
		if (st->what == JL_TS_MIGRATED)
			cpu = st->cpu;
		else if (st->what != JL_TS_WOKEN || state == JL_TS_BLOCKED)
			state = st->what;
		if (st->what == JL_TS_IN || st->what == JL_TS_PREEMPTED)
			cpu = st->cpu;
		cursor = st->ts;
	}
	switch (state) {
	case JL_TS_IN:
		add_running(an, cpu, cursor, s->end, t->pid, kprio, c);
		break;
	case JL_TS_BLOCKED:
		add_blocked(c, NULL, s->end - block_from);
		break;
	default:
		add_waiting(an, cpu, cursor, s->end, t->pid, kprio, c);
		break;
	}
	c->lost_in_window = jl_tan_lost_in(an, -1, s->release, s->end);
	jl_tan_finish_parts(an, c);
}
