/* waited: the parts of a stretch of time on a CPU while a thread waited there: the tasks, IRQs
 * and softirqs that ran, idle, lost events, and the time lower tasks held an RT task off (classified by
 * bandwidth.c). Pure: reads the analysis. */
#include <stdio.h>
#include <string.h>

#include "analysis.h"
#include "decompose.h"
#include "parts.h"

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
static int64_t stretch_start(const struct jl_analysis *an, int cpu, size_t i, size_t last)
{
	size_t j = i;

	while (j <= last && !non_rt(&an->segs[cpu][j]))
		j++;
	if (j > last)
		return an->segs[cpu][i].start;
	while (j > 0) {
		const struct jl_segment *p = &an->segs[cpu][j - 1];

		if (p->end < an->segs[cpu][j].start || !(non_rt(p) || jl_part_kinds[p->kind].interrupt))
			break;
		j--;
	}
	return an->segs[cpu][j].start;
}

/* Add what ran on CPU in [from, to) except SELF (kernel prio SELF_PRIO); returns the time accounted.
 * For a real-time SELF, each stretch of lower time (lower tasks, idle, IRQs among them) goes to
 * bandwidth.c, which says whether RT bandwidth control, a non-preemptible section or just the
 * preemption path kept SELF waiting. */
int64_t jl_analysis_add_window(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t self, int32_t self_prio,
			  struct jl_cycle *c, bool idle_as_switch)
{
	int64_t sum = 0;

	if (cpu < 0 || cpu >= an->ncpus || to <= from)
		return 0;
	for (size_t i = jl_analysis_seg_find(an, cpu, from); i < an->nsegs[cpu]; i++) {
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
			       (lower_for_rt(&an->segs[cpu][j + 1], self_prio) ||
				jl_part_kinds[an->segs[cpu][j + 1].kind].interrupt)) {
				j++;
				end = an->segs[cpu][j].end;
			}
			sum += jl_analysis_add_lower_stretch(an, cpu, a, end < to ? end : to, stretch_start(an, cpu, i, j),
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
			add_part(c, s->kind, jl_analysis_name(an, s->name), s->pid, s->kprio, b - a);
		sum += b - a;
	}
	return sum;
}
