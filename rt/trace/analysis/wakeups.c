/* wakeups: a program's threads measured from the trace alone (measure = wakeups, threads = PATTERN),
 * for programs that cannot be changed (a ROS 2 node one cannot recompile).
 *
 * A `measure = wakeups` unit's threads are its exec'd child and every task born in its process tree (the
 * fork and task_newtask events: followed through fork, exec and rename), filtered by the pattern: a glob
 * on the thread's name (its last comm), tid:N, or new:N (the Nth task the tree created). Each selected
 * thread is one series whose samples are its wakeups: ready = the requested expiry of the timer it slept on
 * where the trace shows one (release.c: what cyclictest measures from), else the sched_waking; start = the
 * switch-in; end = its next switch-out (run time per wakeup). With kthread:GLOB the unit's threads are instead the
 * kernel threads born during the run (kthreadd's children) whose names match: rtla timerlat's timerlat/N,
 * started by the kernel when rtla starts the tracer, belong to no program's tree. A thread whose releases come at a steady period (80% of
 * the intervals within 10% of their median) gets that period as its nominal rate. Pure (reads the
 * analysis), except for adding the series to the engine after the run. */
#include <fnmatch.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../engine/attach.h"
#include "../../base/stats.h"
#include "analysis.h"
#include "analysis_int.h"
#include "offcpu.h"
#include "prune.h"
#include "trace_series.h"

#define KTHREADD 2 /* the parent of every kernel thread */

static bool selected(const char *pattern, int32_t pid, int nth, const char *comm)
{
	if (!strncmp(pattern, "kthread:", 8))
		return comm && fnmatch(pattern + 8, comm, 0) == 0;
	if (!pattern[0])
		return true;
	if (!strncmp(pattern, "tid:", 4))
		return pid == (int32_t)atol(pattern + 4);
	if (!strncmp(pattern, "new:", 4))
		return nth == atoi(pattern + 4);
	return comm && fnmatch(pattern, comm, 0) == 0;
}

/* A series of unit TH's for task PID (named after its comm), unless one exists: 1 added, 0 not, -1 with ERR. */
static int add_series(struct jl_engine *eng, const struct jl_thread *th, const struct jl_analysis *an, int32_t pid,
		      char *err, size_t errlen)
{
	const char *comm = jl_analysis_comm(an, pid);
	char what[24], name[JL_SERIES_NAME_MAX];
	struct jl_series *s;

	for (int k = 0; k < eng->nseries; k++)
		if (eng->series[k].trace_only && eng->series[k].tid == pid)
			return 0;
	snprintf(what, sizeof(what), "%s", comm ? comm : "");
	jl_analysis_clean_name(what);
	if (!what[0])
		snprintf(what, sizeof(what), "%d", (int)pid);
	snprintf(name, sizeof(name), "%.40s.%s", th->spec->name, what);
	for (int k = 0; k < eng->nseries; k++)
		if (!strcmp(eng->series[k].name, name)) {
			snprintf(name, sizeof(name), "%.40s.%.12s.%d", th->spec->name, what, (int)pid);
			break;
		}
	s = jl_engine_add_found_series(eng, th->unit, name, 0, err, errlen);
	if (!s)
		return -1;
	s->kind = "wakeups";
	s->tid = pid;
	s->measured = true;
	s->trace_only = true;
	return 1;
}

/* An exec'd program's threads: the child first, then its tree's tasks in the order they were born (or, for
 * kthread:GLOB, the kernel threads born during the run). How many were added, or -1. */
static int exec_series(struct jl_engine *eng, const struct jl_thread *th, const struct jl_analysis *an, char *err,
		       size_t errlen)
{
	const struct jl_thread_spec *spec = th->spec;
	bool kthreads = !strncmp(spec->beh.threads, "kthread:", 8);
	int nth = 0, found = 0;

	for (long i = -1; i < (long)an->nbirths; i++) {
		int32_t pid = i < 0 ? th->tid : an->births[i].pid;
		int rc;

		if (kthreads && (i < 0 || jl_analysis_parent(an, pid) != KTHREADD))
			continue;
		if (i >= 0) {
			bool again = false;

			/* task_newtask and sched_process_fork both record a clone: count each task once */
			for (long j = 0; j < i && !again; j++)
				again = an->births[j].pid == pid;
			if (again || (!kthreads && !jl_analysis_in_tree(an, th->tid, pid)))
				continue;
			nth++;
		}
		if (!selected(spec->beh.threads, pid, nth, jl_analysis_comm(an, pid)))
			continue;
		if ((rc = add_series(eng, th, an, pid, err, errlen)) < 0)
			return -1;
		found += rc;
	}
	return found;
}

/* Does attach section TH (its selectors SEL[0..N)) take task PID, which ran during the trace (GONE_BEFORE: it
 * was born before the trace and has exited)? Its threads found running at the start; a task born since in
 * the tree of a pid:N; one whose name (as the trace last saw it: renamed later too) a comm:GLOB matches; for
 * rt, one the trace saw at an RT priority that is a user-space RT thread now (a PI boost lends a CFS task an
 * RT priority for a moment: its policy decides), or was born in the trace and is gone. Never a kernel
 * thread, never one of this run's own. */
/* PID's kernel prio as the trace last saw it (alive, or when it exited), -1 unknown. */
static int32_t last_kprio(const struct jl_analysis *an, int32_t pid)
{
	const struct jl_analysis_task *t = jl_task_find(an, pid);

	if (t)
		return t->kprio;
	for (size_t i = an->nbirths; i-- > 0;)
		if (an->births[i].pid == pid && an->births[i].exited)
			return an->births[i].kprio;
	for (size_t i = an->ngone; i-- > 0;)
		if (an->gone[i].pid == pid)
			return an->gone[i].kprio;
	return -1;
}

static bool attach_takes(const struct jl_thread *th, const struct jl_attach_sel *sel, int n, const struct jl_analysis *an,
			 int32_t pid, bool gone_before)
{
	const int32_t kprio = last_kprio(an, pid);
	const bool born = jl_analysis_parent(an, pid) != 0;

	/* this run's own threads (alive, or born in its tree and joined since), and kernel threads: never */
	if (jl_attach_is_self(pid) || jl_analysis_in_tree(an, getpid(), pid) || jl_analysis_parent(an, pid) == KTHREADD ||
	    (!gone_before && jl_attach_alive(pid) && jl_attach_is_kthread(pid)))
		return false;
	for (int i = 0; i < th->nseed; i++) /* found at the start (not a task born since with its tid) */
		if (th->seed[i] == pid && !born)
			return true;
	if (gone_before) /* born before the trace, gone now: only what the start's /proc scan could vouch for */
		return false;
	for (int i = 0; i < n; i++) {
		bool rt = sel[i].kind == JL_ATTACH_RT && kprio >= 0 && kprio < 100 &&
			  (jl_attach_is_rt_user(pid) || (born && !jl_attach_alive(pid)));

		if ((sel[i].kind == JL_ATTACH_PID && pid != sel[i].id && jl_analysis_in_tree(an, sel[i].id, pid)) ||
		    (sel[i].kind == JL_ATTACH_TID && pid == sel[i].id) ||
		    (sel[i].kind == JL_ATTACH_COMM && jl_analysis_comm(an, pid) &&
		     fnmatch(sel[i].glob, jl_analysis_comm(an, pid), 0) == 0) ||
		    rt)
			return true;
	}
	return false;
}

/* An attach section's threads: every task of the trace it takes (attach_takes) that ran: those alive at the
 * end (in the task table's order), then those gone. */
static int attach_series(struct jl_engine *eng, const struct jl_thread *th, const struct jl_analysis *an, char *err,
			 size_t errlen)
{
	struct jl_attach_sel sel[16];
	int nsel = jl_attach_parse(th->spec->beh.attach, sel, 16), found = 0, rc;

	for (size_t i = 0; i < an->task_cap; i++) { /* the tasks alive at the end, then those that exited */
		int32_t pid = an->tasks ? an->tasks[i].pid : 0;

		if (pid > 0 && attach_takes(th, sel, nsel, an, pid, false) &&
		    selected(th->spec->beh.threads, pid, 0, an->tasks[i].comm)) {
			if ((rc = add_series(eng, th, an, pid, err, errlen)) < 0)
				return -1;
			found += rc;
		}
	}
	for (size_t i = 0; i < an->nbirths + an->ngone; i++) { /* gone: born in the trace, or before it */
		int32_t pid = i < an->nbirths ? an->births[i].pid : an->gone[i - an->nbirths].pid;

		if ((i >= an->nbirths || an->births[i].exited) && attach_takes(th, sel, nsel, an, pid, i >= an->nbirths) &&
		    selected(th->spec->beh.threads, pid, 0, jl_analysis_comm(an, pid))) {
			if ((rc = add_series(eng, th, an, pid, err, errlen)) < 0)
				return -1;
			found += rc;
		}
	}
	return found;
}

int jl_trace_wakeup_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen)
{
	for (int t = 0; t < eng->nthreads; t++) {
		const struct jl_thread *th = &eng->threads[t];
		const struct jl_thread_spec *spec = th->spec;
		int found;

		if (!th->is_exec || spec->beh.measure != JL_MEASURE_WAKEUPS || (th->tid <= 0 && !th->attached))
			continue;
		found = th->attached ? attach_series(eng, th, an, err, errlen) : exec_series(eng, th, an, err, errlen);
		if (found < 0)
			return -1;
		if (!found && th->attached)
			fprintf(stderr, "jitterlab: warning: thread '%s': attach = %s matched no thread that ran\n", spec->name,
				spec->beh.attach);
		else if (!found)
			fprintf(stderr, "jitterlab: warning: thread '%s': threads = %s matched no thread of the program\n",
				spec->name, spec->beh.threads[0] ? spec->beh.threads : "all");
	}
	return 0;
}

/* Median of the intervals between the releases REL[0..N) if they are steady, else 0. */
static int64_t steady_period(const int64_t *rel, size_t nrel)
{
	int64_t *v, median = 0;
	size_t n = 0, near = 0;

	if (nrel < 8)
		return 0;
	v = malloc(nrel * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 1; i < nrel; i++)
		v[n++] = rel[i] - rel[i - 1];
	median = jl_median_i64(v, n);
	for (size_t i = 0; i < n; i++)
		near += llabs(v[i] - median) * 10 <= median;
	free(v);
	return near * 10 >= n * 8 ? median : 0;
}

/* An attached thread's policy: as it is now, or, gone, as its last wakeup's priority says (RT: FIFO, the
 * trace cannot tell it from RR). */
static void seen_policy(struct jl_series *s, const struct jl_analysis_thread *t)
{
	s->seen_policy = jl_attach_policy(s->tid, &s->seen_priority, &s->seen_nice);
	if (s->seen_policy < 0 && t->npairs) {
		int32_t kprio = t->pairs[t->npairs - 1].kprio;

		s->seen_policy = kprio >= 0 && kprio < 100 ? JL_POLICY_FIFO : JL_POLICY_OTHER;
		s->seen_priority = kprio >= 0 && kprio < 100 ? 99 - kprio : 0;
		s->seen_nice = kprio >= 100 ? kprio - 120 : 0;
	}
}

/* Wakeup P's release into *RELEASE: its timer's requested expiry, else its waking; counted in S when it
 * falls in the measured window [FROM, TO), as the series' figures are. */
static uint8_t release_of(struct jl_series *s, const struct jl_analysis *an, const struct jl_pair *p, int64_t from,
			  int64_t to, int64_t *release)
{
	int why;
	int64_t r = jl_analysis_release(an, p, &why);

	*release = r > 0 ? r : p->waking;
	if (*release >= from && *release < to) {
		s->release.timer += r > 0;
		s->release.relative += r > 0 && (p->timer_mode & JL_HRTIMER_MODE_REL);
		s->release.waking += r <= 0;
		s->release.unarmed += why == JL_RELEASE_WHY_UNARMED;
		s->release.clock += why == JL_RELEASE_WHY_CLOCK;
		s->release.caught += p->caught_running;
	}
	return r > 0 ? JL_RELEASE_TIMER : JL_RELEASE_WAKING;
}

int jl_trace_wakeup_fill(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen)
{
	for (int i = 0; i < eng->nseries && i < an->nthreads; i++) {
		struct jl_series *s = &eng->series[i];
		const struct jl_analysis_thread *t = &an->threads[i];
		size_t st = 0;
		int64_t *rel;

		if (!s->trace_only)
			continue;
		rel = malloc((t->npairs ? t->npairs : 1) * sizeof(*rel));
		if (!rel || jl_series_alloc(s, t->npairs)) {
			free(rel);
			snprintf(err, errlen, "trace: out of memory for the wakeups of %s", s->name);
			return -1;
		}
		memset(&s->release, 0, sizeof(s->release));
		s->release.timer_recorded = an->timer_events > 0;
		for (size_t k = 0; k < t->npairs; k++) {
			const struct jl_pair *p = &t->pairs[k];
			int64_t end = p->switch_in;
			uint8_t by = release_of(s, an, p, eng->t_measure, jl_engine_window_end(eng), &rel[k]);

			/* its run: until the next switch-out (preempted or blocked) after this switch-in, ... */
			while (st < t->nstates && t->states[st].ts <= p->switch_in)
				st++;
			for (size_t j = st; j < t->nstates; j++)
				if (t->states[j].what == JL_TS_PREEMPTED || t->states[j].what == JL_TS_BLOCKED) {
					end = t->states[j].ts;
					break;
				}
			/* ... and no later than the next cycle's switch-in: a release caught while it still ran
			 * (feed.c caught_running) starts a cycle with no switch between */
			if (k + 1 < t->npairs && t->pairs[k + 1].switch_in > p->switch_in && t->pairs[k + 1].switch_in < end)
				end = t->pairs[k + 1].switch_in;
			jl_series_append(s, &(struct jl_sample){ .release = rel[k], .wake = p->switch_in, .end = end,
								  .origin = rel[k], .cycle = k, .cpu = p->cpu,
								  .tid = s->tid, .release_by = by });
			jl_series_count_work(s, end - p->switch_in);
		}
		s->seen_policy = -1;
		if (eng->units[s->unit].spec->beh.attach[0]) /* not ours: as it is now, else as the trace saw it */
			seen_policy(s, t);
		s->period_ns = steady_period(rel, t->npairs);
		s->first_release = t->npairs ? rel[0] : 0;
		free(rel);
	}
	return 0;
}
