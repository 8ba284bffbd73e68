/* timeline: each CPU's timeline, non-overlapping pieces (a task, an IRQ, a softirq, an hrtimer callback,
 * idle, lost events), built as the events come and read by the decomposition. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_int.h"

int jl_timeline_push(struct jl_analysis *an, int cpu, int64_t start, int64_t end, int kind, int pid, int kprio,
		    uint32_t name)
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
	s->name = name;
	return 0;
}

/* Close the piece of CPU's timeline that ends at TS (whatever is on top of its context stack). */
int jl_timeline_close(struct jl_analysis *an, int cpu, int64_t ts)
{
	struct jl_analysis_cpu *c = &an->cpu[cpu];
	int rc = 0;

	if (!c->seen) {
		c->seen = true;
		c->seg_start = ts;
		return 0;
	}
	if (c->depth > 0) {
		/* nesting deeper than we keep (entries without exits): the deepest one kept */
		const struct ctx *x = &c->stack[(c->depth < CTX_DEPTH ? c->depth : CTX_DEPTH) - 1];

		rc = jl_timeline_push(an, cpu, c->seg_start, ts, x->kind, x->pid, 0, x->name_id);
	} else if (c->known) {
		if (!c->comm_ok) { /* the task's name, interned once per name it has on this CPU */
			c->comm_id = jl_name_intern(an, c->comm);
			c->comm_ok = true;
		}
		rc = jl_timeline_push(an, cpu, c->seg_start, ts, c->pid == 0 ? JL_PART_OTHER : JL_PART_TASK, c->pid,
			      c->kprio, c->pid == 0 ? jl_name_literal(an, "idle") : c->comm_id);
	} else {
		rc = jl_timeline_push(an, cpu, c->seg_start, ts, JL_PART_OTHER, -1, 0, jl_name_literal(an, "unknown (not traced)"));
	}
	c->seg_start = ts;
	return rc;
}

void jl_timeline_push_ctx(struct jl_analysis *an, struct jl_analysis_cpu *c, int kind, int pid, const char *name)
{
	if (c->depth < CTX_DEPTH) {
		memset(&c->stack[c->depth], 0, sizeof(c->stack[c->depth]));
		c->stack[c->depth].kind = kind;
		c->stack[c->depth].pid = pid;
		jl_event_copy(c->stack[c->depth].name, sizeof(c->stack[c->depth].name), name, SIZE_MAX);
		c->stack[c->depth].name_id = jl_name_intern(an, c->stack[c->depth].name);
	}
	c->depth++;
}

int64_t jl_analysis_timeline_closed(const struct jl_analysis *an, int64_t now)
{
	int64_t t = now;

	for (int c = 0; c < an->ncpus; c++) {
		const struct jl_analysis_cpu *x = &an->cpu[c];

		/* an idle CPU's open piece holds nobody back (no task waits behind idle): a tickless CPU may
		 * record nothing for minutes */
		if (!x->seen || (x->known && x->pid == 0 && x->depth == 0))
			continue;
		if (x->seg_start < t)
			t = x->seg_start;
	}
	return t;
}

void jl_analysis_end(struct jl_analysis *an)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].seen)
			jl_timeline_close(an, c, an->last_ts);
}

size_t jl_analysis_seg_find(const struct jl_analysis *an, int cpu, int64_t ts)
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

const struct jl_segment *jl_analysis_segment_at(const struct jl_analysis *an, int cpu, int64_t ts)
{
	size_t i;

	if (cpu < 0 || cpu >= an->ncpus)
		return NULL;
	i = jl_analysis_seg_find(an, cpu, ts);
	if (i < an->nsegs[cpu] && an->segs[cpu][i].start <= ts)
		return &an->segs[cpu][i];
	return NULL;
}

bool jl_analysis_lost_in(const struct jl_analysis *an, int cpu, int64_t from, int64_t to)
{
	for (size_t i = 0; i < an->ngaps; i++)
		if ((cpu < 0 || an->gaps[i].cpu == cpu) && an->gaps[i].from < to && an->gaps[i].to > from)
			return true;
	return false;
}
