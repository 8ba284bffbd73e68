/* offcpu: where a thread's time went in a window (off_cpu): running, preempted (behind whom),
 * blocked (and who ended each sleep), waiting after its wakeup, migrations; stepped state by state, so
 * that a pruned analysis can step the states it forgets (prune.c). Pure: reads the analysis. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "offcpu.h"
#include "parts.h"
#include "../../base/summary_keys.h"

static void who_add(struct jl_offcpu_who *w, int *n, int max, const char *name, int64_t ns)
{
	for (int i = 0; i < *n; i++)
		if (!strcmp(w[i].name, name)) {
			w[i].ns += ns;
			w[i].count++;
			return;
		}
	if (*n < max) {
		snprintf(w[*n].name, sizeof(w[*n].name), "%s", name);
		w[*n].ns = ns;
		w[*n].count = 1;
		(*n)++;
	}
}

static int cmp_who(const void *a, const void *b)
{
	const struct jl_offcpu_who *x = a, *y = b;

	return (y->ns > x->ns) - (y->ns < x->ns);
}

static json_object *who_json(struct jl_offcpu_who *w, int n, bool counts)
{
	json_object *a = json_object_new_array();

	qsort(w, (size_t)n, sizeof(*w), cmp_who);
	for (int i = 0; i < n && i < 5; i++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, JL_K(name), json_object_new_string(w[i].name));
		json_object_object_add(o, counts ? JL_K(blocked_ns) : JL_K(ns), json_object_new_int64(w[i].ns));
		if (counts)
			json_object_object_add(o, JL_K(times), json_object_new_int64((int64_t)w[i].count));
		json_object_array_add(a, o);
	}
	return a;
}

/* What ran on CPU in [FROM, TO) other than PID: into BEHIND (the tasks, IRQs, softirqs it waited behind). */
static void behind(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t pid, struct jl_offcpu_who *w,
		   int *n, int max)
{
	if (cpu < 0 || cpu >= an->ncpus)
		return;
	for (size_t i = jl_analysis_seg_find(an, cpu, from); i < an->nsegs[cpu]; i++) {
		const struct jl_segment *g = &an->segs[cpu][i];
		int64_t a = g->start > from ? g->start : from, b = g->end < to ? g->end : to;

		if (g->start >= to)
			break;
		if (b <= a || (g->kind == JL_PART_TASK && g->pid == pid))
			continue;
		who_add(w, n, max, jl_analysis_name(an, g->name)[0] ? jl_analysis_name(an, g->name) : "?", b - a);
	}
}

void jl_offcpu_init(struct jl_offcpu *o, int64_t from, int64_t to)
{
	memset(o, 0, sizeof(*o));
	o->from = o->since = from;
	o->to = to;
	o->state = o->cpu = -1;
}

void jl_offcpu_step(struct jl_offcpu *o, const struct jl_analysis *an, const struct jl_analysis_thread *t,
		    const struct jl_tstate *x)
{
	int64_t ts = x ? x->ts : o->to, a = o->since > o->from ? o->since : o->from, b = ts < o->to ? ts : o->to;

	if (o->done)
		return;
	if (x && x->ts < o->from) { /* the state at the window's start */
		o->state = x->what == JL_TS_MIGRATED ? o->state : x->what;
		o->cpu = x->cpu;
		o->since = x->ts;
		return;
	}
	if (o->state < 0 && x) /* nothing before the window: what its first state says it was doing */
		o->state = x->what == JL_TS_WOKEN ? JL_TS_BLOCKED
			   : x->what == JL_TS_PREEMPTED || x->what == JL_TS_BLOCKED ? JL_TS_IN : -1;
	if (b > a) {
		if (o->state == JL_TS_IN)
			o->run += b - a;
		else if (o->state == JL_TS_PREEMPTED) {
			o->preempted += b - a;
			behind(an, o->cpu, a, b, t->pid, o->pre, &o->npre, JL_OFFCPU_WHO);
		} else if (o->state == JL_TS_BLOCKED)
			o->blocked += b - a;
		else if (o->state == JL_TS_WOKEN)
			o->waiting += b - a;
	}
	if (!x || x->ts >= o->to) {
		o->done = true;
		return;
	}
	if (x->what == JL_TS_MIGRATED) {
		o->migrations++;
		o->cpu = x->cpu;
		o->since = x->ts; /* the time before it is counted: the state goes on, on the new CPU */
		return;
	}
	if (x->what == JL_TS_WOKEN && o->state == JL_TS_BLOCKED) /* the sleep just ended: its time goes to who ended it */
		who_add(o->wk, &o->nwk, JL_OFFCPU_WHO, jl_analysis_name(an, x->by)[0] ? jl_analysis_name(an, x->by) : "?",
			b > a ? b - a : 0);
	o->state = x->what;
	o->cpu = x->cpu;
	o->since = x->ts;
}

json_object *jl_offcpu_json(struct jl_offcpu *o)
{
	json_object *j = json_object_new_object();

	json_object_object_add(j, JL_K(running_ns), json_object_new_int64(o->run));
	json_object_object_add(j, JL_K(preempted_ns), json_object_new_int64(o->preempted));
	json_object_object_add(j, JL_K(preempted_behind), who_json(o->pre, o->npre, false));
	json_object_object_add(j, JL_K(blocked_ns), json_object_new_int64(o->blocked));
	json_object_object_add(j, JL_K(woken_by), who_json(o->wk, o->nwk, true)); /* blocked time each waker ended */
	json_object_object_add(j, JL_K(wakeup_wait_ns), json_object_new_int64(o->waiting));
	json_object_object_add(j, JL_K(migrations), json_object_new_int64((int64_t)o->migrations));
	return j;
}

json_object *jl_analysis_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	struct jl_offcpu *o = malloc(sizeof(*o));
	size_t first = 0;
	json_object *j;

	if (!o)
		return NULL;
	/* a pruned analysis stepped the owner's forgotten states already (the same window: prune.c) */
	if (!an->prune_ops || !an->prune_ops->offcpu(an, t->owner, from, to, o, &first))
		jl_offcpu_init(o, from, to);
	for (size_t i = first; i < t->nstates && !o->done; i++)
		jl_offcpu_step(o, an, t, &t->states[i]);
	jl_offcpu_step(o, an, t, NULL);
	j = jl_offcpu_json(o);
	free(o);
	return j;
}
