/* probe_series: after the run, the probe records (read from trace.dat with the sched events, same clock)
 * become one series per probing thread of a `measure = probe` unit, so that they get everything a built-in
 * loop gets. A record belongs to the unit whose exec'd child the writing thread descends from (the fork and
 * task_newtask events of the trace). The records come from programs that mark their own cycles
 * (include/jitterlab/probe.h) through io/probe_server.c. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/jitterlab/probe.h"
#include "../../base/stats.h"
#include "../../base/units.h"
#include "analysis.h"
#include "series.h"

/* The unit (a `measure = probe` exec) whose process tree PID is in, or -1. */
static int unit_of(const struct jl_engine *eng, const struct jl_analysis *an, int32_t pid)
{
	for (int t = 0; t < eng->nthreads; t++) {
		const struct jl_thread *th = &eng->threads[t];

		if (th->is_exec && th->tid > 0 && th->spec->beh.measure == JL_MEASURE_PROBE && jl_analysis_in_tree(an, th->tid, pid))
			return th->unit;
	}
	return -1;
}

struct prober {
	int32_t pid;
	int unit;
	char name[16];
	size_t nwake;
};

/* The period of a probed series: the scenario's, else the median step between the releases it named
 * (or between its wakes when it named none); 0 when it has fewer than 3 cycles. */
static int64_t probe_period(const struct jl_thread_spec *spec, const struct jl_analysis *an, int32_t pid)
{
	int64_t *v, prev = 0, period = 0;
	size_t n = 0;

	if (spec->beh.period_ns)
		return spec->beh.period_ns;
	v = malloc((an->nprobes ? an->nprobes : 1) * sizeof(*v));
	if (!v)
		return 0;
	for (size_t i = 0; i < an->nprobes; i++) {
		const struct jl_analysis_probe *p = &an->probes[i];
		int64_t at;

		if (p->pid != pid || p->kind != JL_PROBE_WAKE)
			continue;
		at = p->release ? p->release : p->ts;
		if (prev && at > prev)
			v[n++] = at - prev;
		prev = at;
	}
	if (n >= 2)
		period = jl_median_i64(v, n);
	free(v);
	return period;
}

int jl_trace_probe_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen)
{
	struct prober *pr = NULL;
	size_t npr = 0;
	int rc = -1;

	/* the probing threads, in the order they first wrote */
	for (size_t i = 0; i < an->nprobes; i++) {
		const struct jl_analysis_probe *p = &an->probes[i];
		size_t k;

		for (k = 0; k < npr && pr[k].pid != p->pid; k++)
			;
		if (k == npr) {
			int u = unit_of(eng, an, p->pid);
			struct prober *grown;

			if (u < 0)
				continue; /* a program of no `measure = probe` unit: not measured */
			grown = realloc(pr, (npr + 1) * sizeof(*pr));
			if (!grown)
				goto oom;
			pr = grown;
			pr[npr] = (struct prober){ .pid = p->pid, .unit = u };
			npr++;
		}
		if (p->kind == JL_PROBE_NAME && p->name[0])
			snprintf(pr[k].name, sizeof(pr[k].name), "%s", p->name);
		if (p->kind == JL_PROBE_WAKE)
			pr[k].nwake++;
	}
	for (size_t k = 0; k < npr; k++) {
		const struct jl_thread_spec *spec = eng->units[pr[k].unit].spec;
		char name[JL_SERIES_NAME_MAX], what[16];
		struct jl_series *s;
		int64_t wake = 0, release = 0, period = probe_period(spec, an, pr[k].pid);
		uint64_t cycle = 0, unpaired = 0, far = 0;
		bool open = false, named_release = false;

		/* UNIT.NAME: the probe's name, else the thread's comm, else its tid; a second thread of the same
		 * name gets its tid appended */
		snprintf(what, sizeof(what), "%s", pr[k].name);
		if (!what[0] && jl_analysis_comm(an, pr[k].pid))
			snprintf(what, sizeof(what), "%s", jl_analysis_comm(an, pr[k].pid));
		jl_analysis_clean_name(what); /* a comm may hold anything: a series name must not */
		if (!what[0])
			snprintf(what, sizeof(what), "%d", (int)pr[k].pid);
		snprintf(name, sizeof(name), "%.40s.%s", spec->name, what);
		for (int i = 0; i < eng->nseries; i++)
			if (!strcmp(eng->series[i].name, name)) {
				snprintf(name, sizeof(name), "%.40s.%.12s.%d", spec->name, what, (int)pr[k].pid);
				break;
			}
		s = jl_engine_add_found_series(eng, pr[k].unit, name, pr[k].nwake + 1, err, errlen);
		if (!s)
			goto out;
		s->kind = "probe";
		s->tid = pr[k].pid;
		s->measured = true;
		s->periodic = period > 0;
		s->period_ns = period;
		s->deadline_ns = spec->beh.deadline_ns ? spec->beh.deadline_ns : period;
		for (size_t i = 0; i < an->nprobes; i++) {
			const struct jl_analysis_probe *p = &an->probes[i];

			if (p->pid != pr[k].pid)
				continue;
			if (p->kind == JL_PROBE_WAKE) {
				unpaired += open; /* a wake after a wake: the first had no end */
				wake = p->ts;
				release = p->release ? p->release : p->ts;
				named_release |= p->release != 0;
				/* a release more than 10 s from its wake is not CLOCK_MONOTONIC ns (us? the wall clock?) */
				far += p->release && (p->release - p->ts > 10 * JL_NSEC_PER_SEC || p->ts - p->release > 10 * JL_NSEC_PER_SEC);
				open = true;
				if (!s->first_release)
					s->first_release = release;
			} else if (p->kind == JL_PROBE_END && !open) {
				unpaired++;
			} else if (p->kind == JL_PROBE_END && open) {
				/* the cycle index counts releases on the grid from the first, so skipped ones show */
				int64_t on_grid = period > 0 ? (release - s->first_release + period / 2) / period : (int64_t)cycle;
				uint64_t c = on_grid > 0 ? (uint64_t)on_grid : 0;

				if (c < cycle)
					c = cycle; /* never backwards (a release off the grid) */
				jl_series_append(s, &(struct jl_sample){ .release = release, .wake = wake, .end = p->ts,
									  .origin = release, .tid = pr[k].pid, .cycle = c,
									  .skipped = (uint32_t)(c - cycle), .cpu = p->cpu });
				jl_series_count_work(s, p->ts - wake);
				cycle = c + 1;
				open = false;
			}
		}
		s->next_release = jl_series_count(s) ? jl_series_at(s, jl_series_count(s) - 1)->release + period : 0;
		if (!named_release && !spec->beh.period_ns) {
			/* no release was named: ready = wake, not a grid (a grid would invent skipped releases) */
			s->periodic = false;
		}
		if (unpaired)
			fprintf(stderr, "jitterlab: warning: probe %s: %llu wake or end records without their pair "
				"(not cycles)\n", s->name, (unsigned long long)unpaired);
		if (far)
			fprintf(stderr, "jitterlab: warning: probe %s: %llu releases more than 10 s from their wake: "
				"jl_probe_wake takes CLOCK_MONOTONIC ns\n", s->name, (unsigned long long)far);
	}
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "probe: out of memory");
out:
	free(pr);
	return rc;
}
