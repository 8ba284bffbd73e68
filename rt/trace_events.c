/* trace_events: pairing of wakeups and per-cycle latency decomposition over a merged event stream.
 * Pure: no tracefs, no files, no globals. Rules (platform-facts.md, tracing notes): first sched_waking
 * (or wakeup_new) of a pid -> next sched_switch with next_pid == pid; a pending wake is dropped if the
 * task switches out first, or when events were lost; the real CPU is the switch record's CPU. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_events.h"

#define CTX_DEPTH 8
#define MATCH_SLACK_NS 50000 /* trace clock vs CLOCK_MONOTONIC, and clock_gettime after the switch */

struct ctx {
	int32_t kind, pid;
	char name[JL_TEV_COMM + 8];
};

#define TASK_HASH 8192

struct jl_tan_task {
	int32_t pid;          /* 0 = empty slot (the idle task is never stored) */
	int32_t kprio;
	int64_t last_waking;
	char comm[JL_TEV_COMM];
};

struct jl_tan_cpu {
	bool seen, known;
	int64_t seg_start;
	int64_t last_ts;      /* the CPU's previous record */
	int32_t pid, kprio;
	char comm[JL_TEV_COMM];
	int depth;
	struct ctx stack[CTX_DEPTH];
};

static const char *const part_names[] = {
	[JL_PART_IRQ] = "irq", [JL_PART_SOFTIRQ] = "softirq", [JL_PART_TASK] = "task",
	[JL_PART_TIMER] = "timer", [JL_PART_IDLE_EXIT] = "idle-exit", [JL_PART_OTHER] = "other",
};

static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };

const char *jl_part_kind_name(enum jl_part_kind k)
{
	return (unsigned)k < sizeof(part_names) / sizeof(part_names[0]) ? part_names[k] : "other";
}

/* ---- sorting ---- */

static void merge_pass(struct jl_tev *a, struct jl_tev *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(*a));
}

int jl_tev_sort(struct jl_tev *ev, size_t n)
{
	struct jl_tev *tmp;
	size_t width, lo;
	bool sorted = true;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = ev[i].ts >= ev[i - 1].ts;
	if (sorted)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (width = 1; width < n; width *= 2)
		for (lo = 0; lo < n - width; lo += 2 * width)
			merge_pass(ev, tmp, lo, lo + width, lo + 2 * width < n ? lo + 2 * width : n);
	free(tmp);
	return 0;
}

/* ---- state ---- */

int jl_tan_init(struct jl_tan *an, const struct jl_tan_thread *threads, int nthreads, int ncpus)
{
	memset(an, 0, sizeof(*an));
	if (ncpus < 1)
		ncpus = 1;
	an->nthreads = nthreads;
	an->ncpus = ncpus;
	an->threads = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->threads));
	an->pending = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending));
	an->pending_cpu = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_cpu));
	an->pending_new = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_new));
	an->cpu = calloc(ncpus, sizeof(*an->cpu));
	an->tasks = calloc(TASK_HASH, sizeof(*an->tasks));
	an->segs = calloc(ncpus, sizeof(*an->segs));
	an->nsegs = calloc(ncpus, sizeof(*an->nsegs));
	an->capsegs = calloc(ncpus, sizeof(*an->capsegs));
	if (!an->threads || !an->pending || !an->pending_cpu || !an->pending_new || !an->cpu || !an->tasks || !an->segs ||
	    !an->nsegs || !an->capsegs) {
		jl_tan_free(an);
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < nthreads; i++) {
		an->threads[i] = threads[i];
		an->threads[i].pairs = NULL;
		an->threads[i].npairs = an->threads[i].cap = 0;
		an->threads[i].switch_in = an->threads[i].switch_out = an->threads[i].wakings = 0;
		an->threads[i].matched = an->threads[i].measured_samples = 0;
	}
	an->first_ts = -1;
	return 0;
}

void jl_tan_free(struct jl_tan *an)
{
	if (an->threads)
		for (int i = 0; i < an->nthreads; i++)
			free(an->threads[i].pairs);
	if (an->segs)
		for (int c = 0; c < an->ncpus; c++)
			free(an->segs[c]);
	free(an->threads);
	free(an->pending);
	free(an->pending_cpu);
	free(an->pending_new);
	free(an->cpu);
	free(an->tasks);
	free(an->segs);
	free(an->nsegs);
	free(an->capsegs);
	memset(an, 0, sizeof(*an));
}

static int grow_cpus(struct jl_tan *an, int cpu)
{
	int n = cpu + 1;
	void *p;

	if (cpu < an->ncpus)
		return 0;
#define GROW(field)                                                                   \
	do {                                                                          \
		p = realloc(an->field, n * sizeof(*an->field));                       \
		if (!p)                                                               \
			return -1;                                                    \
		an->field = p;                                                        \
		memset(an->field + an->ncpus, 0, (n - an->ncpus) * sizeof(*an->field)); \
	} while (0)
	GROW(cpu);
	GROW(segs);
	GROW(nsegs);
	GROW(capsegs);
#undef GROW
	an->ncpus = n;
	return 0;
}

static int thread_of(const struct jl_tan *an, int32_t pid)
{
	if (pid <= 0)
		return -1;
	for (int i = 0; i < an->nthreads; i++)
		if (an->threads[i].pid == pid)
			return i;
	return -1;
}

/* The pid's slot in the task hash (open addressing; a full table reuses the home slot). */
static struct jl_tan_task *task_slot(struct jl_tan *an, int32_t pid)
{
	unsigned h = ((unsigned)pid * 2654435761u) % TASK_HASH;

	for (unsigned i = 0; i < 64; i++) {
		struct jl_tan_task *t = &an->tasks[(h + i) % TASK_HASH];

		if (t->pid == pid || t->pid == 0)
			return t;
	}
	return &an->tasks[h];
}

static void task_note(struct jl_tan *an, int32_t pid, int32_t kprio, const char *comm)
{
	struct jl_tan_task *t;

	if (pid <= 0)
		return;
	t = task_slot(an, pid);
	t->pid = pid;
	t->kprio = kprio;
	if (comm && comm[0])
		snprintf(t->comm, sizeof(t->comm), "%s", comm);
}

static int push_seg(struct jl_tan *an, int cpu, int64_t start, int64_t end, int kind, int pid, int kprio,
		    const char *name)
{
	struct jl_segment *s;

	if (end <= start)
		return 0;
	if (an->nsegs[cpu] == an->capsegs[cpu]) {
		size_t cap = an->capsegs[cpu] ? an->capsegs[cpu] * 2 : 1024;

		s = realloc(an->segs[cpu], cap * sizeof(*s));
		if (!s)
			return -1;
		an->segs[cpu] = s;
		an->capsegs[cpu] = cap;
	}
	s = &an->segs[cpu][an->nsegs[cpu]++];
	s->start = start;
	s->end = end;
	s->kind = kind;
	s->pid = pid;
	s->kprio = kprio;
	snprintf(s->name, sizeof(s->name), "%s", name);
	return 0;
}

/* Close the piece of CPU's timeline that ends at TS (whatever is on top of its context stack). */
static int close_seg(struct jl_tan *an, int cpu, int64_t ts)
{
	struct jl_tan_cpu *c = &an->cpu[cpu];
	int rc = 0;

	if (!c->seen) {
		c->seen = true;
		c->seg_start = ts;
		return 0;
	}
	if (c->depth > 0) {
		const struct ctx *x = &c->stack[c->depth - 1];

		rc = push_seg(an, cpu, c->seg_start, ts, x->kind, x->pid, 0, x->name);
	} else if (c->known) {
		rc = push_seg(an, cpu, c->seg_start, ts, c->pid == 0 ? JL_PART_OTHER : JL_PART_TASK, c->pid,
			      c->kprio, c->pid == 0 ? "idle" : c->comm);
	} else {
		rc = push_seg(an, cpu, c->seg_start, ts, JL_PART_OTHER, -1, 0, "unknown (not traced)");
	}
	c->seg_start = ts;
	return rc;
}

static void push_ctx(struct jl_tan_cpu *c, int kind, int pid, const char *name)
{
	if (c->depth < CTX_DEPTH) {
		c->stack[c->depth].kind = kind;
		c->stack[c->depth].pid = pid;
		snprintf(c->stack[c->depth].name, sizeof(c->stack[c->depth].name), "%s", name);
	}
	c->depth++;
}

static void pop_ctx(struct jl_tan_cpu *c)
{
	if (c->depth > 0)
		c->depth--;
}

static int add_pair(struct jl_tan_thread *t, const struct jl_pair *p)
{
	if (t->npairs == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct jl_pair *n = realloc(t->pairs, cap * sizeof(*n));

		if (!n)
			return -1;
		t->pairs = n;
		t->cap = cap;
	}
	t->pairs[t->npairs++] = *p;
	return 0;
}

static bool running_somewhere(const struct jl_tan *an, int32_t pid)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].known && an->cpu[c].pid == pid)
			return true;
	return false;
}

/* The task CUR wrote a record on CPU at TS but no sched_switch put it there (seen on virtual machines,
 * where the switch out of the idle task is not recorded). Out of idle, the switch follows the wakeup at
 * once: place it at the idle task's last record (not before CUR's waking); otherwise at TS. */
static int implicit_switch(struct jl_tan *an, int cpu, int64_t ts, int32_t cur)
{
	struct jl_tan_cpu *c = &an->cpu[cpu];
	const struct jl_tan_task *k = cur > 0 ? task_slot(an, cur) : NULL;
	int64_t at = ts;
	int ti;

	if (k && k->pid != cur)
		k = NULL;
	if (c->seen && c->known && c->pid == 0) {
		at = c->last_ts;
		if (k && k->last_waking > at)
			at = k->last_waking;
		if (at > ts || at < c->seg_start)
			at = ts;
	}
	ts = at;
	if (close_seg(an, cpu, ts) < 0)
		return -1;
	an->implicit_switches++;
	c->known = true;
	c->depth = 0;
	c->pid = cur;
	c->kprio = k ? k->kprio : 120;
	snprintf(c->comm, sizeof(c->comm), "%s", k ? k->comm : "?");
	ti = thread_of(an, cur);
	if (ti >= 0) {
		an->threads[ti].implicit_in++;
		if (an->pending[ti] && an->threads[ti].measured) {
			struct jl_pair p = { .waking = an->pending[ti], .switch_in = ts, .pid = cur, .cpu = cpu,
					     .wake_cpu = an->pending_cpu[ti], .new_task = an->pending_new[ti],
					     .implicit = true };

			if (add_pair(&an->threads[ti], &p) < 0)
				return -1;
		}
		an->pending[ti] = 0;
	}
	return 0;
}

int jl_tan_feed(struct jl_tan *an, const struct jl_tev *ev)
{
	struct jl_tan_cpu *c;
	char name[JL_TEV_COMM + 8];
	int ti;

	if (ev->cpu < 0 || grow_cpus(an, ev->cpu) < 0)
		return ev->cpu < 0 ? 0 : -1;
	c = &an->cpu[ev->cpu];
	an->events++;
	if (an->first_ts < 0)
		an->first_ts = ev->ts;
	if (ev->ts > an->last_ts)
		an->last_ts = ev->ts;
	if (ev->has_cur && ev->kind != JL_TEV_SWITCH && ev->kind != JL_TEV_LOST && (!c->known || c->pid != ev->cur) &&
	    implicit_switch(an, ev->cpu, ev->ts, ev->cur) < 0)
		return -1;

	switch (ev->kind) {
	case JL_TEV_SWITCH:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		ti = thread_of(an, ev->prev_pid);
		if (ti >= 0) {
			an->threads[ti].switch_out++;
			an->pending[ti] = 0; /* switched out before its switch-in: drop the wake */
		}
		task_note(an, ev->prev_pid, ev->prev_prio, ev->prev_comm);
		task_note(an, ev->pid, ev->prio, ev->comm);
		c->known = true;
		c->depth = 0;
		c->pid = ev->pid;
		c->kprio = ev->prio;
		snprintf(c->comm, sizeof(c->comm), "%s", ev->comm);
		ti = thread_of(an, ev->pid);
		if (ti >= 0) {
			an->threads[ti].switch_in++;
			if (an->pending[ti] && an->threads[ti].measured) {
				struct jl_pair p = { .waking = an->pending[ti], .switch_in = ev->ts, .pid = ev->pid,
						     .cpu = ev->cpu, .wake_cpu = an->pending_cpu[ti],
						     .new_task = an->pending_new[ti] };

				if (add_pair(&an->threads[ti], &p) < 0)
					return -1;
			}
			an->pending[ti] = 0;
		}
		break;
	case JL_TEV_WAKING:
	case JL_TEV_WAKEUP_NEW:
		task_note(an, ev->pid, ev->prio, ev->comm);
		if (ev->pid > 0)
			task_slot(an, ev->pid)->last_waking = ev->ts;
		ti = thread_of(an, ev->pid);
		if (ti < 0)
			break;
		an->threads[ti].wakings++;
		if (an->pending[ti] || running_somewhere(an, ev->pid))
			break; /* first waking counts; a waking while running is no wakeup */
		an->pending[ti] = ev->ts;
		an->pending_cpu[ti] = ev->cpu;
		an->pending_new[ti] = ev->kind == JL_TEV_WAKEUP_NEW;
		break;
	case JL_TEV_IRQ_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		snprintf(name, sizeof(name), "%d %s", ev->pid, ev->comm);
		push_ctx(c, JL_PART_IRQ, ev->pid, name);
		break;
	case JL_TEV_SOFTIRQ_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		push_ctx(c, JL_PART_SOFTIRQ, ev->pid,
			 ev->pid >= 0 && ev->pid < 10 ? softirq_names[ev->pid] : "?");
		break;
	case JL_TEV_TIMER_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		snprintf(name, sizeof(name), "hrtimer %s", ev->comm);
		push_ctx(c, JL_PART_IRQ, -1, name);
		break;
	case JL_TEV_IRQ_EXIT:
	case JL_TEV_SOFTIRQ_EXIT:
	case JL_TEV_TIMER_EXIT:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		pop_ctx(c);
		break;
	case JL_TEV_LOST:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		an->lost_gaps++;
		if (ev->prev_state > 0)
			an->lost_events += (uint64_t)ev->prev_state;
		for (int i = 0; i < an->nthreads; i++)
			an->pending[i] = 0;
		c->known = false;
		c->depth = 0;
		break;
	case JL_TEV_MARK:
		an->markers++;
		break;
	default:
		break;
	}
	c->last_ts = ev->ts;
	return 0;
}

void jl_tan_end(struct jl_tan *an)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].seen)
			close_seg(an, c, an->last_ts);
}

int jl_tan_run(struct jl_tan *an, struct jl_tev *ev, size_t n)
{
	if (jl_tev_sort(ev, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jl_tan_feed(an, &ev[i]) < 0)
			return -1;
	jl_tan_end(an);
	return 0;
}

/* ---- decomposition ---- */

/* First segment of CPU whose end is after TS. */
static size_t seg_find(const struct jl_tan *an, int cpu, int64_t ts)
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
	i = seg_find(an, cpu, ts);
	if (i < an->nsegs[cpu] && an->segs[cpu][i].start <= ts)
		return &an->segs[cpu][i];
	return NULL;
}

static void add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d)
{
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *p = &c->parts[i];

		if ((int)p->kind == kind && p->pid == pid && !strcmp(p->name, name)) {
			p->duration_ns += d;
			return;
		}
	}
	if (c->nparts == JL_MAX_PARTS) {
		add_part(c, JL_PART_OTHER, "others", -1, 0, d);
		return;
	}
	if (c->nparts == JL_MAX_PARTS - 1 && !(kind == JL_PART_OTHER && !strcmp(name, "others"))) {
		add_part(c, JL_PART_OTHER, "others", -1, 0, 0);
		add_part(c, JL_PART_OTHER, "others", -1, 0, d);
		return;
	}
	c->parts[c->nparts].kind = kind;
	snprintf(c->parts[c->nparts].name, sizeof(c->parts[c->nparts].name), "%s", name);
	c->parts[c->nparts].pid = pid;
	c->parts[c->nparts].kprio = kprio;
	c->parts[c->nparts].duration_ns = d;
	c->nparts++;
}

/* Add what ran on CPU in [from, to) except SELF; returns the time accounted. */
static int64_t add_window(const struct jl_tan *an, int cpu, int64_t from, int64_t to, int32_t self,
			  struct jl_cycle *c, bool idle_as_switch)
{
	int64_t sum = 0;

	if (cpu < 0 || cpu >= an->ncpus || to <= from)
		return 0;
	for (size_t i = seg_find(an, cpu, from); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *s = &an->segs[cpu][i];
		int64_t a = s->start > from ? s->start : from, b = s->end < to ? s->end : to;

		if (s->start >= to)
			break;
		if (b <= a || (s->kind == JL_PART_TASK && s->pid == self))
			continue;
		if (s->kind == JL_PART_OTHER && s->pid == 0)
			add_part(c, JL_PART_OTHER, idle_as_switch ? "switch from idle" : "idle", -1, 0, b - a);
		else
			add_part(c, s->kind, s->name, s->pid, s->kprio, b - a);
		sum += b - a;
	}
	return sum;
}

static int cmp_part(const void *pa, const void *pb)
{
	const struct jl_part *a = pa, *b = pb;
	/* order: timer/idle-exit, tasks, irq, softirq, other; longest first within a kind */
	static const int rank[] = { [JL_PART_TIMER] = 0, [JL_PART_IDLE_EXIT] = 0, [JL_PART_TASK] = 1,
				    [JL_PART_IRQ] = 2, [JL_PART_SOFTIRQ] = 3, [JL_PART_OTHER] = 4 };

	if (rank[a->kind] != rank[b->kind])
		return rank[a->kind] - rank[b->kind];
	if (a->kind == JL_PART_OTHER && !strcmp(a->name, "return"))
		return 1;
	if (b->kind == JL_PART_OTHER && !strcmp(b->name, "return"))
		return -1;
	return a->duration_ns < b->duration_ns ? 1 : a->duration_ns > b->duration_ns ? -1 : 0;
}

void jl_tan_decompose(const struct jl_tan *an, const struct jl_pair *p, int64_t release, int64_t wake,
		      struct jl_cycle *c)
{
	int64_t ret;

	c->nparts = 0;
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

		add_part(c, idle ? JL_PART_IDLE_EXIT : JL_PART_TIMER, idle ? "idle exit" : "timer", -1, 0, pre);
	}
	add_window(an, p->cpu, p->waking, p->switch_in, p->pid, c, true);
	if (wake > 0 && wake > p->switch_in) {
		ret = wake - p->switch_in - add_window(an, p->cpu, p->switch_in, wake, p->pid, c, false);
		add_part(c, JL_PART_OTHER, "return", -1, 0, ret > 0 ? ret : 0);
	} else if (wake > 0) {
		add_part(c, JL_PART_OTHER, "return", -1, 0, 0);
	}
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *pt = &c->parts[i];
		int ti;

		if (pt->kind != JL_PART_TASK)
			continue;
		ti = thread_of(an, pt->pid);
		if (ti >= 0 && an->threads[ti].name[0])
			snprintf(pt->name, sizeof(pt->name), "%s", an->threads[ti].name);
		if (ti >= 0 && an->threads[ti].policy[0])
			snprintf(pt->policy, sizeof(pt->policy), "%s", an->threads[ti].policy);
		else
			jl_kprio_format(pt->kprio, pt->policy, sizeof(pt->policy));
	}
	qsort(c->parts, c->nparts, sizeof(c->parts[0]), cmp_part);
}

/* Last pair of T whose waking is at or before TS. */
static long pair_before(const struct jl_tan_thread *t, int64_t ts)
{
	size_t lo = 0, hi = t->npairs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->pairs[mid].waking <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return (long)lo - 1;
}

struct cand {
	int thread;
	long pair;
	int64_t latency, release, wake;
	uint64_t cycle;
};

static void keep_worst(struct cand *w, int n, int *nw, const struct cand *c)
{
	int i;

	if (*nw == n && w[n - 1].latency >= c->latency)
		return;
	i = *nw < n ? (*nw)++ : n - 1;
	while (i > 0 && w[i - 1].latency < c->latency) {
		w[i] = w[i - 1];
		i--;
	}
	w[i] = *c;
}

int jl_tan_worst(struct jl_tan *an, int64_t from, struct jl_cycle *out, int n, int *nout)
{
	struct cand *w;
	int nw = 0;

	*nout = 0;
	if (n <= 0)
		return 0;
	w = calloc(n, sizeof(*w));
	if (!w)
		return -1;
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_tan_thread *t = &an->threads[ti];

		if (!t->measured)
			continue;
		t->matched = t->measured_samples = 0;
		if (t->samples) {
			for (size_t i = 0; i < t->nsamples; i++) {
				const struct jl_tan_sample *s = &t->samples[i];
				long pi;

				if (s->release < from)
					continue;
				t->measured_samples++;
				pi = pair_before(t, s->wake + MATCH_SLACK_NS);
				if (pi < 0 || t->pairs[pi].waking < s->release - MATCH_SLACK_NS)
					continue;
				if (t->pairs[pi].implicit && s->wake < t->pairs[pi].switch_in) /* refine the bound */
					t->pairs[pi].switch_in = s->wake > t->pairs[pi].waking ? s->wake : t->pairs[pi].waking;
				t->matched++;
				keep_worst(w, n, &nw,
					   &(struct cand){ ti, pi, s->wake - s->release, s->release, s->wake, s->cycle });
			}
		} else {
			for (size_t i = 0; i < t->npairs; i++) {
				if (t->pairs[i].waking < from)
					continue;
				keep_worst(w, n, &nw,
					   &(struct cand){ ti, (long)i, t->pairs[i].switch_in - t->pairs[i].waking, 0, 0,
							   i });
			}
		}
	}
	for (int i = 0; i < nw; i++) {
		memset(&out[i], 0, sizeof(out[i]));
		jl_tan_decompose(an, &an->threads[w[i].thread].pairs[w[i].pair], w[i].release, w[i].wake, &out[i]);
		out[i].thread = w[i].thread;
		out[i].cycle = w[i].cycle;
	}
	*nout = nw;
	free(w);
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
		if (t->pairs[i].waking >= from)
			v[(*n)++] = t->pairs[i].switch_in - t->pairs[i].waking;
	return v;
}

int jl_cycle_culprit(const struct jl_cycle *c)
{
	int best = -1;

	for (int i = 0; i < c->nparts; i++)
		if (c->parts[i].kind == JL_PART_TASK && c->parts[i].pid > 0 &&
		    (best < 0 || c->parts[i].duration_ns > c->parts[best].duration_ns))
			best = i;
	return best;
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
	APPEND("%s cycle %llu: %lld us =", thread, (unsigned long long)c->cycle, us(c->latency_ns));
	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];

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
		default:
			APPEND("%s %lld us", p->name, us(p->duration_ns));
			break;
		}
	}
#undef APPEND
}
