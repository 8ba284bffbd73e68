/* window: the response window of a cycle (release -> end of its work), for the cycles that missed
 * their deadline: the wakeup part as decompose.c explains it, then, from the thread's own switches
 * and wakings (feed.c keeps them), the work part: running (less the IRQs that interrupted it),
 * preempted (waiting for the CPU behind a task, an IRQ or RT bandwidth control), blocked (asleep inside its
 * work, and who ended the sleep: the task, IRQ, softirq or hrtimer that woke it) and the wait after that
 * wakeup. Pure: reads the analysis only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "decompose.h"
#include "parts.h"
#include "worst.h"

/* Running on CPU in [from, to): the thread's own time is "running", IRQs on top of it their parts. */
static void add_running(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t pid, int32_t kprio,
			struct jl_cycle *c)
{
	int64_t others;

	if (to <= from)
		return;
	others = jl_analysis_add_window(an, cpu, from, to, pid, kprio, c, false);
	if (to - from > others)
		jl_cycle_add_part(c, JL_PART_RUNNING, "running", -1, 0, to - from - others, NULL);
}

/* Waiting on CPU in [from, to) (preempted, or woken and not yet switched in): what ran there. */
static void add_waiting(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t pid, int32_t kprio,
			struct jl_cycle *c)
{
	int64_t seen;

	if (to <= from)
		return;
	seen = jl_analysis_add_window(an, cpu, from, to, pid, kprio, c, true);
	if (to - from > seen)
		jl_cycle_add_part(c, JL_PART_OTHER, "waiting (not traced)", -1, 0, to - from - seen, NULL);
}

/* What kept the task that woke a sleeper off its CPU: the task that ran longest on CPU in [FROM, TO)
 * other than the waker WAKER and the sleeper SELF (a lock's holder preempted by a spinner: the
 * inversion), into NAME; its time, or 0 when none ran a tenth of the interval */
static int64_t waker_kept_by(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t waker, int32_t self,
			     char *name, size_t len)
{
	struct jl_cycle tmp;
	int64_t best = 0;

	if (!an || cpu < 0 || to <= from)
		return 0;
	memset(&tmp, 0, sizeof(tmp));
	jl_analysis_add_window(an, cpu, from, to, waker, 120, &tmp, false); /* as a CFS task: each task its own part */
	jl_analysis_finish_parts(an, &tmp);
	for (int i = 0; i < tmp.nparts; i++) {
		const struct jl_part *p = &tmp.parts[i];

		if (p->pid > 0 && p->pid != waker && p->pid != self && p->duration_ns > best) {
			const int ti = jl_analysis_thread_of(an, p->pid);

			best = p->duration_ns;
			snprintf(name, len, "%s%s%s", ti >= 0 && an->threads[ti].name[0] ? an->threads[ti].name : p->name,
				 p->policy[0] ? ", " : "", p->policy);
		}
	}
	return best * 10 >= to - from ? best : 0;
}

/* The priority SELF lent HOLDER through a PI lock as it blocked in [FROM, TO) (a little before FROM: the
 * boost is written just before the switch-out), or NULL. */
static const struct jl_analysis_lent *lent_to(const struct jl_analysis *an, int32_t self, int32_t holder, int64_t from, int64_t to)
{
	int ti = jl_analysis_thread_of(an, self);

	for (size_t i = 0; ti >= 0 && i < an->threads[ti].nlent; i++) {
		const struct jl_analysis_lent *l = &an->threads[ti].lent[i];

		if (l->ts > to)
			break;
		if (l->holder == holder && l->ts >= from - 1000000)
			return l;
	}
	return NULL;
}

/* Asleep in [FROM, FROM + D), ended by WOKEN (NULL: not in the window); WHERE: "inside its work", ...
 * When a task woke it (a lock's holder giving it back), what kept that task off its CPU meanwhile is
 * named: the middle task of a priority inversion. */
static void add_blocked(const struct jl_analysis *an, int32_t self, struct jl_cycle *c, const struct jl_tstate *woken,
			int64_t from, int64_t d, const char *where)
{
	char name[72], detail[160], kept[48];
	int64_t behind;

	if (!woken) {
		snprintf(detail, sizeof(detail), "asleep %s (who woke it, if anyone, is not in the window)", where);
		jl_cycle_add_part(c, JL_PART_BLOCKED, "blocked", -1, 0, d, detail);
		return;
	}
	switch (woken->by_kind) {
	case JL_PART_TASK:
		behind = waker_kept_by(an, woken->rec_cpu, from, from + d, woken->by_pid, self, kept, sizeof(kept));
		snprintf(name, sizeof(name), "blocked, woken by %s", jl_analysis_name(an, woken->by));
		if (behind) /* the name says who: the part's task is the waker, the one kept off is named */
			snprintf(name, sizeof(name), "blocked, woken by %s (it waited behind %.40s)", jl_analysis_name(an, woken->by), kept);
		{
			/* a PI lock (a PI futex, or a sleeping spinlock on PREEMPT_RT): this thread raised the one
			 * that woke it to its own priority as it blocked, sched_pi_setprio says so */
			const struct jl_analysis_lent *l = lent_to(an, self, woken->by_pid, from, from + d);
			char boosted[24];

			if (l) {
				jl_kprio_format(l->kprio, boosted, sizeof(boosted));
				snprintf(name, sizeof(name), "blocked on a PI lock held by %.24s (boosted to %s%s%.24s)",
					 jl_analysis_name(an, woken->by), boosted, behind ? "; it waited behind " : "",
					 behind ? kept : "");
			}
		}
		if (behind)
			snprintf(detail, sizeof(detail), "asleep %s until %s (pid %d) woke it; meanwhile %s ran %.1f ms on "
				 "its CPU %d", where, jl_analysis_name(an, woken->by), woken->by_pid, kept, (double)behind / 1e6, woken->rec_cpu);
		else
			snprintf(detail, sizeof(detail), "asleep %s until %s (pid %d) woke it", where, jl_analysis_name(an, woken->by), woken->by_pid);
		break;
	default:
		if ((unsigned)woken->by_kind < JL_PART_N && jl_part_kinds[woken->by_kind].interrupt) {
			snprintf(name, sizeof(name), "blocked, woken by %s%s", woken->by_kind == JL_PART_SOFTIRQ ? "softirq " : "",
				 jl_analysis_name(an, woken->by));
			snprintf(detail, sizeof(detail), "asleep %s until %s%s woke it (in interrupt context)", where,
				 woken->by_kind == JL_PART_SOFTIRQ ? "softirq " : "", jl_analysis_name(an, woken->by));
			break;
		}
		snprintf(name, sizeof(name), "blocked");
		snprintf(detail, sizeof(detail), "asleep %s until %s woke it", where, jl_analysis_name(an, woken->by));
		break;
	}
	jl_cycle_add_part(c, JL_PART_BLOCKED, name, woken->by_kind == JL_PART_TASK ? woken->by_pid : -1, 0, d, detail);
}

/* [FROM, TO) of thread T from its own states, STATE (and CPU) being its state at FROM: running (less the
 * IRQs on it), waiting (preempted, or woken and not yet in: behind what ran there), blocked (and who ended
 * it; WHERE says where in the cycle it slept). */
static void explain_states(const struct jl_analysis *an, const struct jl_analysis_thread *t, int64_t from, int64_t to,
			   int state, int cpu, int32_t kprio, const char *where, struct jl_cycle *c)
{
	size_t k = jl_analysis_state_after(t, from);
	int64_t cursor = from, block_from = from;

	for (; k < t->nstates && t->states[k].ts < to; k++) {
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
			add_blocked(an, t->pid, c, st->what == JL_TS_WOKEN ? st : NULL, block_from, st->ts - block_from, where);
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
		add_running(an, cpu, cursor, to, t->pid, kprio, c);
		break;
	case JL_TS_BLOCKED:
		add_blocked(an, t->pid, c, NULL, block_from, to - block_from, where);
		break;
	default:
		add_waiting(an, cpu, cursor, to, t->pid, kprio, c);
		break;
	}
}

void jl_analysis_decompose_response(const struct jl_analysis *an, int ti, size_t si, struct jl_cycle *c)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	const struct jl_analysis_sample *s = &t->samples[si];
	long pi = t->sample_pair ? t->sample_pair[si] : -1;
	int32_t kprio = 120;
	int cpu = -1;
	size_t k;

	memset(c, 0, sizeof(*c));
	if (t->executor) {
		/* a callback: its wait is its executor's first (then its thread's wakeup), its work is
		 * explained from the states of the thread that ran it (a pool's: the pool thread's) */
		const struct jl_analysis_thread *run = t;

		jl_analysis_decompose_callback(an, ti, si, pi >= 0 ? &t->pairs[pi] : NULL, c);
		for (int j = 0; t->pool_size > 1 && j < an->nthreads; j++)
			if (an->threads[j].pool && an->threads[j].executor == t->executor && an->threads[j].pid == s->tid)
				run = &an->threads[j];
		if (run->npairs)
			kprio = run->pairs[0].kprio;
		k = jl_analysis_state_after(run, s->wake);
		cpu = c->waking ? c->cpu : k > 0 ? run->states[k - 1].cpu : 0;
		c->window = JL_WINDOW_RESPONSE;
		c->cpu = cpu;
		explain_states(an, run, s->wake, s->end, JL_TS_IN, cpu, kprio, "inside its work", c);
		c->lost_in_window = jl_analysis_lost_in(an, -1, s->release, s->end);
		jl_analysis_finish_parts(an, c);
		return;
	}
	jl_analysis_decompose_loop_response(an, ti, s, pi >= 0 ? &t->pairs[pi] : NULL, si > 0 ? t->samples[si - 1].end : 0, c);
}

/* Cycle S of loop entry TI, woken by P (NULL: no wakeup matched it; PREV_END: the previous cycle's end, 0
 * unknown): its wait into C, *KPRIO and *CPU its priority and CPU where the pair says them */
static void loop_wait(const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s, const struct jl_pair *p,
		      int64_t prev_end, struct jl_cycle *c, int32_t *kprio, int *cpu)
{
	const struct jl_analysis_thread *t = &an->threads[ti];

	if (p) {
		jl_analysis_decompose_cycle(an, ti, p, s->release, s->wake, c);
		*kprio = p->kprio;
		*cpu = p->cpu;
	} else {
		/* no wakeup of this release: the previous cycle ran past it (no sleep at all), or it was not
		 * traced (lost events, or a trace that started later) */
		int64_t late = prev_end > s->release ? prev_end - s->release : 0;

		if (late > s->wake - s->release)
			late = s->wake - s->release;
		if (t->npairs)
			*kprio = t->pairs[0].kprio;
		if (late > 0)
			jl_cycle_add_part(c, JL_PART_OTHER, "previous cycle overran", -1, 0, late,
					  "no sleep: the previous cycle ended after this release");
		if (s->wake - s->release > late)
			jl_cycle_add_part(c, JL_PART_OTHER, "wakeup (not traced)", -1, 0, s->wake - s->release - late, NULL);
	}
}

void jl_analysis_decompose_loop_wait(const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
				     const struct jl_pair *p, int64_t prev_end, struct jl_cycle *c)
{
	int32_t kprio = 120;
	int cpu = -1;

	memset(c, 0, sizeof(*c));
	loop_wait(an, ti, s, p, prev_end, c, &kprio, &cpu);
	c->thread = ti;
	c->cycle = s->cycle;
}

void jl_analysis_decompose_loop_response(const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
					 const struct jl_pair *p, int64_t prev_end, struct jl_cycle *c)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	int32_t kprio = 120;
	int cpu = -1;
	size_t k;

	memset(c, 0, sizeof(*c));
	loop_wait(an, ti, s, p, prev_end, c, &kprio, &cpu);
	c->window = JL_WINDOW_RESPONSE;
	c->thread = ti;
	c->cycle = s->cycle;
	c->release = s->release;
	c->wake = s->wake;
	c->end = s->end;
	c->miss = s->miss;
	c->latency_ns = s->wake - s->release; /* the response is end - release */
	k = jl_analysis_state_after(t, s->wake);
	if (cpu < 0)
		cpu = k > 0 ? t->states[k - 1].cpu : 0;
	c->cpu = cpu;
	explain_states(an, t, s->wake, s->end, JL_TS_IN, cpu, kprio, "inside its work", c);
	c->lost_in_window = jl_analysis_lost_in(an, -1, s->release, s->end);
	jl_analysis_finish_parts(an, c);
}

void jl_analysis_decompose_cycle(const struct jl_analysis *an, int ti, const struct jl_pair *p, int64_t release, int64_t wake,
			    struct jl_cycle *c)
{
	/* a server's worker has no samples of its own, but its states: what held it after its wakeup (a lock,
	 * the interpreter's) is said as for a loop */
	if ((!an->threads[ti].samples && !an->threads[ti].sampled && !(an->threads[ti].pool && an->threads[ti].requests)) ||
	    wake <= p->switch_in ||
	    !jl_analysis_left_cpu(an, ti, p->switch_in, wake)) {
		jl_analysis_decompose(an, p, release, wake, c);
		return;
	}
	/* it ran, left the CPU and came back before its cycle began: the wakeup up to the switch-in, then
	 * from its own states */
	jl_analysis_decompose(an, p, release, p->switch_in, c);
	explain_states(an, &an->threads[ti], p->switch_in, wake, JL_TS_IN, p->cpu, p->kprio,
		       "between its wakeup and the start of its cycle (a lock, e.g. an interpreter's)", c);
	c->wake = wake;
	c->latency_ns = wake - release;
	c->lost_in_window = jl_analysis_lost_in(an, -1, release > 0 && release < p->waking ? release : p->waking, wake);
	jl_analysis_finish_parts(an, c);
}

bool jl_analysis_left_cpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to)
{
	const struct jl_analysis_thread *t = &an->threads[ti];

	for (size_t k = jl_analysis_state_after(t, from); k < t->nstates && t->states[k].ts < to; k++)
		if (t->states[k].what == JL_TS_PREEMPTED || t->states[k].what == JL_TS_BLOCKED)
			return true;
	return false;
}

/* The rest of a callback's wait, [FROM, WAKE), was the wakeup P of thread entry TI: its parts into C,
 * and the wakeup's times */
static void add_wakeup_rest(const struct jl_analysis *an, int ti, const struct jl_pair *p, int64_t from, int64_t wake,
			    struct jl_cycle *c)
{
	struct jl_cycle w;

	memset(&w, 0, sizeof(w));
	jl_analysis_decompose_cycle(an, ti, p, from, wake, &w);
	for (int i = 0; i < w.nparts; i++)
		/* a server's worker: an empty "timer" (a loop's always shows) says nothing, no timer woke it */
		if (w.parts[i].duration_ns > 0 || !an->threads[ti].requests)
			jl_cycle_add_part(c, (int)w.parts[i].kind, w.parts[i].name, w.parts[i].pid, w.parts[i].kprio,
					  w.parts[i].duration_ns, w.parts[i].detail[0] ? w.parts[i].detail : NULL);
	c->waking = p->waking;
	c->switch_in = p->switch_in;
	c->cpu = p->cpu;
}

/* A run of another callback of the executor (a request a worker served, or a call it made while serving
 * one) inside a late callback's wait */
struct pool_run {
	int64_t from, to;            /* its overlap with the wait */
	int64_t wake;                /* its own start: the outermost of a worker's runs started first */
	int entry;
	int32_t tid;                 /* the thread that ran it */
	bool group;                  /* of the late callback's own mutually exclusive group */
};

/* The pool thread TID's wakeup that ended in [FROM - slack, TO]: the last one (FIRST: the first one), or
 * NULL; *ENTRY: that thread's entry. An executor's thread may be woken more than once before it takes a
 * callback (the last one dispatched it); a server's worker is woken first by the request's arrival, and
 * what held it after that is in its states. */
static const struct jl_pair *pool_wakeup(const struct jl_analysis *an, int executor, int32_t tid, int64_t from, int64_t to,
					 bool first, int *entry)
{
	const struct jl_pair *best = NULL;

	for (int j = 0; j < an->nthreads; j++) {
		const struct jl_analysis_thread *o = &an->threads[j];

		if (!o->pool || o->executor != executor || o->pid != tid)
			continue;
		*entry = j;
		for (size_t k = 0; k < o->npairs; k++)
			if (o->pairs[k].waking >= from - JL_ANALYSIS_CLOCK_SLACK_NS && o->pairs[k].switch_in <= to &&
			    !(first && best))
				best = &o->pairs[k];
		return best;
	}
	return NULL;
}

/* The value most common in V[0..N), or -1 when N is 0 */
static int mode_of(const int *v, int n)
{
	int best = -1, best_n = 0;

	for (int i = 0; i < n; i++) {
		int k = 0;

		for (int j = 0; j < n; j++)
			k += v[j] == v[i];
		if (k > best_n)
			best = v[i], best_n = k;
	}
	return best;
}

/* An end of a run in a late callback's wait: its start or its end */
struct run_edge {
	int64_t t;
	int r;
	bool start;
};

static int cmp_edge(const void *pa, const void *pb)
{
	const struct run_edge *a = pa, *b = pb;

	if (a->t != b->t)
		return a->t < b->t ? -1 : 1;
	return (int)a->start - (int)b->start; /* at one time the ends first: a stretch holds the runs it is inside */
}

/* What the pool's threads did through a stretch of a wait, ACT[0..NACT) the runs active in it: *BUSY the
 * threads that ran something, *HOLDER a run of the late callback's own group (an entry, -1: none); of a
 * server's workers, *IN_CALLS those inside a call, *SERVING and *CALL the entries most of them served and
 * called (-1: none). SERVE and CALLS: scratch, NACT each. */
static void stretch_of(const struct pool_run *runs, const int *act, int nact, int *serve, int *calls, int *busy, int *holder,
		       int *in_calls, int *serving, int *call)
{
	*busy = *in_calls = 0;
	*holder = -1;
	for (int i = 0; i < nact; i++) {
		int outer = act[i], inner = act[i];
		bool seen = false;

		if (runs[act[i]].group && *holder < 0)
			*holder = runs[act[i]].entry;
		for (int k = 0; k < nact; k++) { /* a thread counts once: at its first active run */
			const int q = act[k];

			if (k == i || runs[q].tid != runs[act[i]].tid)
				continue;
			seen |= k < i;
			if (runs[q].wake < runs[outer].wake)
				outer = q;
			if (runs[q].wake > runs[inner].wake)
				inner = q;
		}
		if (seen)
			continue;
		serve[(*busy)++] = runs[outer].entry;
		if (inner != outer) /* a run inside another of its thread: a call made while serving */
			calls[(*in_calls)++] = runs[inner].entry;
	}
	*serving = mode_of(serve, *busy);
	*call = mode_of(calls, *in_calls);
}

/* A server's stretches of a wait in which every worker was busy, summed by the request series most of them
 * served: one part each, its detail the workers' share of it inside calls they made */
struct busy_sum {
	int serving;
	int64_t ns;
	double thread_ns, in_calls_ns; /* thread-time busy, and of it inside a call */
	int call;                      /* the call series of the longest stretch with calls (-1: none) */
	int64_t call_ns;
};

/* A request's wait while a worker of its server was free: no pool held it (an "other" part) */
static void add_on_its_way(struct jl_cycle *c, int64_t d)
{
	jl_cycle_add_part(c, JL_PART_OTHER, "on its way to a free worker", -1, 0, d,
			  "a worker of its program was free: the request was on its way (the network, the server's "
			  "queue) or being handed over");
}

/* The sweep over a pooled cycle's wait: the runs that overlap it and their ends in time order, the runs
 * active now, the busy stretches summed per request series, and how far the sweep has come. */
struct pool_sweep {
	struct pool_run *runs;
	struct run_edge *edges;
	struct busy_sum *sums;
	int *act, *serve, *calls; /* the active runs; stretch_of's scratch */
	int nruns, nact, nsums;
	size_t ne, e;
	int64_t at;          /* swept up to here */
	int64_t busy_until;  /* the end of the last stretch in which it could not start */
	int64_t free_before; /* free time followed by a blocked stretch: the hand-offs between them */
	int64_t free_run;    /* free time since the last blocked stretch */
	int64_t worker_free; /* the worker that took it was busy until then */
};

static void pool_sweep_free(struct pool_sweep *sw)
{
	free(sw->runs);
	free(sw->edges);
	free(sw->sums);
	free(sw->act);
	free(sw->serve);
	free(sw->calls);
}

/* Should run O's sample X count as a run that overlaps the wait of T's sample S ([A, B): its overlap)? */
static bool overlaps_wait(const struct jl_analysis_thread *t, const struct jl_analysis_sample *s,
			  const struct jl_analysis_sample *x, int64_t *a, int64_t *b)
{
	*a = x->wake > s->release ? x->wake : s->release;
	*b = x->end < s->wake ? x->end : s->wake;
	if (*b <= *a)
		return false;
	/* a request's call was made by its own worker, inside it: what held that worker was the request */
	return !(t->requests && x->tid == s->tid && x->wake <= s->wake && s->end <= x->end);
}

/* The runs of the executor's other callbacks (a server's other requests) that overlap the wait, and their
 * ends sorted: two passes, to count them, then to keep them. -1: out of memory. */
static int collect_runs(const struct jl_analysis *an, int ti, size_t si, struct pool_sweep *sw)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	const struct jl_analysis_sample *s = &t->samples[si];
	size_t n = 0, room;

	for (int pass = 0; pass < 2; pass++) {
		for (int j = 0; j < an->nthreads; j++) {
			const struct jl_analysis_thread *o = &an->threads[j];

			if (o->executor != t->executor || !o->samples || o->pool)
				continue;
			for (size_t k = 0; k < o->nsamples; k++) {
				const struct jl_analysis_sample *x = &o->samples[k];
				int64_t a, b;

				if ((j == ti && k == si) || !overlaps_wait(t, s, x, &a, &b))
					continue;
				if (pass)
					sw->runs[sw->nruns++] = (struct pool_run){ a, b, x->wake, j, x->tid,
										   t->group >= 0 && o->group == t->group };
				else
					n++;
			}
		}
		if (pass)
			break;
		room = n ? n : 1;
		sw->runs = malloc(room * sizeof(*sw->runs));
		sw->edges = malloc((2 * n + 1) * sizeof(*sw->edges));
		sw->sums = malloc(room * sizeof(*sw->sums));
		sw->act = malloc(room * sizeof(*sw->act));
		sw->serve = malloc(room * sizeof(*sw->serve));
		sw->calls = malloc(room * sizeof(*sw->calls));
		if (!sw->runs || !sw->edges || !sw->sums || !sw->act || !sw->serve || !sw->calls)
			return -1;
	}
	for (int r = 0; r < sw->nruns; r++) {
		sw->edges[sw->ne++] = (struct run_edge){ sw->runs[r].from, r, true };
		sw->edges[sw->ne++] = (struct run_edge){ sw->runs[r].to, r, false };
		if (sw->runs[r].tid == s->tid && sw->runs[r].to > sw->worker_free)
			sw->worker_free = sw->runs[r].to;
	}
	qsort(sw->edges, sw->ne, sizeof(*sw->edges), cmp_edge);
	return 0;
}

/* The runs active from SW->at on: the edges up to it applied. */
static void advance_edges(struct pool_sweep *sw)
{
	for (; sw->e < sw->ne && sw->edges[sw->e].t <= sw->at; sw->e++) {
		const struct run_edge *ed = &sw->edges[sw->e];

		if (ed->start) {
			sw->act[sw->nact++] = ed->r;
			continue;
		}
		for (int i = 0; i < sw->nact; i++)
			if (sw->act[i] == ed->r) {
				sw->act[i] = sw->act[--sw->nact];
				break;
			}
	}
}

/* The stretch [SW->at, NEXT): a part when it could not start then (a group's holder, every pool thread
 * busy; a server's busy stretches are summed per series instead). False: a free stretch. */
static bool blocked_stretch(const struct jl_analysis *an, int ti, struct pool_sweep *sw, int64_t next, struct jl_cycle *c)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	int holder, busy, in_calls, serving, call, k;
	const int64_t d = next - sw->at;
	char name[96];

	stretch_of(sw->runs, sw->act, sw->nact, sw->serve, sw->calls, &busy, &holder, &in_calls, &serving, &call);
	if (holder >= 0) {
		snprintf(name, sizeof(name), "executor: %s held its group%s", an->threads[holder].name,
			 holder == ti ? " (its previous run)" : "");
		jl_cycle_add_part(c, JL_PART_EXECUTOR, name, -1, 0, d,
				  "a callback of its mutually exclusive group ran: it could not start on any thread");
		return true;
	}
	if (busy < t->pool_size)
		return false;
	if (!t->requests || serving < 0) {
		snprintf(name, sizeof(name), "executor: all %d threads busy", t->pool_size);
		jl_cycle_add_part(c, JL_PART_EXECUTOR, name, -1, 0, d, "every thread of its executor ran another callback");
		return true;
	}
	for (k = 0; k < sw->nsums && sw->sums[k].serving != serving; k++)
		;
	if (k == sw->nsums)
		sw->sums[sw->nsums++] = (struct busy_sum){ .serving = serving, .call = -1 };
	sw->sums[k].ns += d;
	sw->sums[k].thread_ns += (double)busy * (double)d;
	sw->sums[k].in_calls_ns += (double)in_calls * (double)d;
	if (call >= 0 && d > sw->sums[k].call_ns)
		sw->sums[k].call = call, sw->sums[k].call_ns = d;
	return true;
}

/* A server's busy stretches, one part per request series most workers served. */
static void add_busy_sums(const struct jl_analysis *an, const struct jl_analysis_thread *t, const struct pool_sweep *sw,
			  struct jl_cycle *c)
{
	char name[96], detail[160];

	for (int k = 0; k < sw->nsums; k++) {
		const struct busy_sum *b = &sw->sums[k];

		if (t->pool_size > 1)
			snprintf(name, sizeof(name), "pool: all %d workers busy serving %s", t->pool_size,
				 an->threads[b->serving].name);
		else
			snprintf(name, sizeof(name), "pool: its one worker busy serving %s", an->threads[b->serving].name);
		if (b->call >= 0)
			snprintf(detail, sizeof(detail), "every worker of its program served another request, inside calls they "
				 "made (%s) %.0f%% of the time", an->threads[b->call].name, 100.0 * b->in_calls_ns / b->thread_ns);
		else
			snprintf(detail, sizeof(detail), "every worker of its program served another request, none inside a call");
		jl_cycle_add_part(c, JL_PART_POOL, name, -1, 0, b->ns, detail);
	}
}

/* What is left of the wait after the last blocked stretch: the wakeup of the pool thread that took it (a
 * server's worker: its first wakeup once it was free, a wakeup inside its previous request is that
 * request's; an executor's thread: its last one, it may be woken more than once before it takes one), or
 * the dispatch when that thread was awake already. */
static void add_taker_wakeup(const struct jl_analysis *an, const struct jl_analysis_thread *t,
			     const struct jl_analysis_sample *s, const struct pool_sweep *sw, struct jl_cycle *c)
{
	const int64_t from = t->requests && sw->worker_free > sw->busy_until ? sw->worker_free : sw->busy_until;
	int pe = -1;
	const struct jl_pair *p = pool_wakeup(an, t->executor, s->tid, from, s->wake + JL_ANALYSIS_CLOCK_SLACK_NS,
					      t->requests, &pe);
	char detail[160];

	if (p && pe >= 0 && t->requests) {
		/* asleep until the request reached it: the server's own thread (its poller) woke it, no timer: the
		 * time before that waking was the request on its way (the waking bounded by its start: the trace
		 * clock may read a little ahead) */
		const int64_t waking = p->waking < s->wake ? p->waking : s->wake;

		if (waking > sw->busy_until)
			add_on_its_way(c, waking - sw->busy_until);
		add_wakeup_rest(an, pe, p, waking > sw->busy_until ? waking : sw->busy_until, s->wake, c);
	} else if (p && pe >= 0) { /* explained as one wakeup */
		add_wakeup_rest(an, pe, p, sw->busy_until, s->wake, c);
	} else if (s->wake > sw->busy_until) {
		snprintf(detail, sizeof(detail), "from when it could run to its start on %s thread %d (awake already)",
			 t->requests ? "worker" : "pool", (int)s->tid);
		jl_cycle_add_part(c, JL_PART_OTHER, "dispatch", -1, 0, s->wake - sw->busy_until, detail);
	}
}

/* A callback of a multi-threaded executor, or a request of a probed server: in its wait [release, start),
 * the stretches in which it could not start (a callback of its own mutually exclusive group ran: named; or
 * every pool thread ran another callback, or served another request: which, and the calls they were in),
 * the free time between them, then the wakeup of the pool thread that took it (its trace pair), or the
 * dispatch when that thread was awake already. The stretches come from one sweep over the ends of the runs
 * that overlap the wait. */
static void decompose_pool_callback(const struct jl_analysis *an, int ti, size_t si, struct jl_cycle *c)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	const struct jl_analysis_sample *s = &t->samples[si];
	struct pool_sweep sw = { .at = s->release, .busy_until = s->release };

	if (collect_runs(an, ti, si, &sw) < 0) {
		jl_cycle_add_part(c, JL_PART_OTHER, "not explained (out of memory)", -1, 0, s->wake - s->release, NULL);
		pool_sweep_free(&sw);
		return;
	}
	while (sw.at < s->wake) {
		int64_t next;

		advance_edges(&sw);
		next = sw.e < sw.ne && sw.edges[sw.e].t < s->wake ? sw.edges[sw.e].t : s->wake;
		if (!blocked_stretch(an, ti, &sw, next, c)) {
			sw.free_run += next - sw.at;
			sw.at = next;
			continue;
		}
		sw.free_before += sw.free_run;
		sw.free_run = 0;
		sw.busy_until = next;
		sw.at = next;
	}
	add_busy_sums(an, t, &sw, c);
	if (sw.free_before && t->requests)
		add_on_its_way(c, sw.free_before);
	else if (sw.free_before)
		jl_cycle_add_part(c, JL_PART_EXECUTOR, "executor: between callbacks", -1, 0, sw.free_before,
				  "a thread and its group were free, and no thread had taken it yet");
	add_taker_wakeup(an, t, s, &sw, c);
	pool_sweep_free(&sw);
}

void jl_analysis_decompose_callback(const struct jl_analysis *an, int ti, size_t si, const struct jl_pair *p, struct jl_cycle *c)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	const struct jl_analysis_sample *s = &t->samples[si];
	int64_t busy_until = s->release, ran_total = 0;

	memset(c, 0, sizeof(*c));
	if (t->pool_size > 1 || t->requests) {
		decompose_pool_callback(an, ti, si, c);
		c->tid = s->tid;
		goto done;
	}
	/* the executor's one thread ran other callbacks: each one's time in [release, wake) */
	for (int j = 0; j < an->nthreads; j++) {
		const struct jl_analysis_thread *o = &an->threads[j];
		int64_t ran = 0, last = 0;
		char name[96], detail[160];

		if (o->executor != t->executor || !o->samples)
			continue;
		for (size_t k = 0; k < o->nsamples; k++) { /* its own earlier runs too: an overrun holds the thread */
			const struct jl_analysis_sample *x = &o->samples[k];
			int64_t a = x->wake > s->release ? x->wake : s->release, b = x->end < s->wake ? x->end : s->wake;

			if (b > a && !(j == ti && k == si)) {
				ran += b - a;
				last = b > last ? b : last;
			}
		}
		if (!ran)
			continue;
		ran_total += ran;
		if (last > busy_until)
			busy_until = last;
		snprintf(name, sizeof(name), "executor: %s ran%s", o->name, j == ti ? " (its previous run)" : "");
		snprintf(detail, sizeof(detail), "ready while its executor's thread ran callback %s", o->name);
		jl_cycle_add_part(c, JL_PART_EXECUTOR, name, -1, 0, ran, detail);
	}
	if (busy_until - s->release > ran_total) /* between those runs: the lock hand-off, the thread off its CPU */
		jl_cycle_add_part(c, JL_PART_EXECUTOR, "executor: between callbacks", -1, 0,
				  busy_until - s->release - ran_total, "the executor's thread between two of its callbacks");
	if (p && p->waking >= busy_until - JL_ANALYSIS_CLOCK_SLACK_NS) {
		/* what is left was a wakeup of the thread: explained as one, from when the executor was free */
		add_wakeup_rest(an, ti, p, busy_until, s->wake, c);
	} else if (s->wake > busy_until) {
		jl_cycle_add_part(c, JL_PART_OTHER, "dispatch", -1, 0, s->wake - busy_until,
				  "from the end of the executor's previous callback to this one's start");
	}
done:
	c->thread = ti;
	c->window = JL_WINDOW_WAKEUP;
	c->cycle = s->cycle;
	c->release = s->release;
	c->wake = s->wake;
	c->end = s->end;
	c->miss = s->miss;
	c->latency_ns = s->wake - s->release;
	c->lost_in_window = jl_analysis_lost_in(an, -1, s->release, s->wake);
	jl_analysis_finish_parts(an, c);
}
