/* results: turn samples into the contract's per-thread figures. Runs after the measured phase. */
#include "results.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../affinity/cpulist.h"

static int thread_result(const struct jl_engine *eng, const struct jl_thread *th, struct jl_thread_result *r,
			 int64_t *lat, int64_t *per, int64_t *resp, int64_t *scratch)
{
	const struct jl_thread_spec *spec = th->spec;
	size_t n = atomic_load_explicit(&th->nsamples, memory_order_acquire);
	size_t first = th->samples ? jl_thread_first_measured(th) : 0;
	int64_t deadline = spec->deadline_ns ? spec->deadline_ns : spec->period_ns;
	int64_t win_start, win_end;
	size_t np = 0;
	int64_t work_sum = 0, work_max = 0;

	memset(r, 0, sizeof(*r));
	r->th = th;
	snprintf(r->name, sizeof(r->name), "%s", th->name);
	if (spec->cpus_set)
		jl_cpulist_format(&spec->cpus, r->cpus, sizeof(r->cpus));
	else
		snprintf(r->cpus, sizeof(r->cpus), "all");
	jl_cpulist_format(&th->cpus_used, r->cpus_used, sizeof(r->cpus_used));
	r->measured = th->measured;
	r->periodic = spec->period_ns > 0;
	r->period_ns = spec->period_ns;
	r->nominal_hz = spec->period_ns ? 1e9 / (double)spec->period_ns : 0.0;
	r->work_calls = th->work_calls;
	r->work_mean_ns = th->work_calls ? (double)th->work_sum_ns / (double)th->work_calls : 0.0;
	r->work_max_ns = th->work_max_ns;
	r->cpu_time_ns = th->cpu_time_ns;
	r->ctx_voluntary = th->ctx_voluntary;
	r->ctx_involuntary = th->ctx_involuntary;

	win_start = eng->t_measure;
	if (spec->start_ns)
		win_start = th->first_release;
	win_end = eng->t_stopped && eng->t_stopped < eng->t_end ? eng->t_stopped : eng->t_end;
	r->window_s = win_end > win_start ? (double)(win_end - win_start) / 1e9 : 0.0;
	if (!r->periodic)
		return 0;

	/* cycles released after an early stop (SIGINT) ran only to notice it: they do not count */
	while (n > first && th->samples[n - 1].release >= win_end)
		n--;
	r->first = first;
	r->cycles = n - first;
	for (size_t i = first; i < n; i++) {
		const struct jl_sample *s = &th->samples[i];
		size_t k = i - first;

		lat[k] = s->wake - s->release;
		resp[k] = s->end - s->release;
		if (k > 0)
			per[np++] = s->wake - th->samples[i - 1].wake;
		r->misses += s->end > s->release + deadline;
		r->skipped += s->skipped;
		work_sum += s->end - s->wake;
		if (s->end - s->wake > work_max)
			work_max = s->end - s->wake;
	}
	/* a loop's work figures cover the measured cycles only, like every other figure of it */
	r->work_calls = r->cycles;
	r->work_mean_ns = r->cycles ? (double)work_sum / (double)r->cycles : 0.0;
	r->work_max_ns = work_max;
	{
		/* achieved rate = nominal rate x the share of the window's releases that ran: exact at the
		 * window's edges, where counting cycles over seconds is off by up to one cycle */
		int64_t p = spec->period_ns, r0 = th->first_release, expected = 0;

		if (r0 < win_start)
			r0 += (win_start - r0 + p - 1) / p * p;
		if (win_end > r0)
			expected = (win_end - r0 + p - 1) / p;
		r->releases = (uint64_t)expected;
		r->rate_hz = expected ? r->nominal_hz * (double)r->cycles / (double)expected : 0.0;
	}
	if (jl_dist_compute(lat, r->cycles, scratch, &r->latency) ||
	    jl_dist_compute(per, np, scratch, &r->period) ||
	    jl_dist_compute(resp, r->cycles, scratch, &r->response))
		return -1;
	if (r->cycles)
		r->latency_max_cycle = th->samples[first + r->latency.max_index].cycle;
	return 0;
}

int jl_results_compute(const struct jl_engine *eng, struct jl_thread_result *res)
{
	size_t cap = 1;
	int64_t *buf;
	int rc = 0;

	for (int i = 0; i < eng->nthreads; i++)
		if (eng->threads[i].cap > cap)
			cap = eng->threads[i].cap;
	buf = malloc(4 * cap * sizeof(*buf));
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < eng->nthreads && !rc; i++)
		rc = thread_result(eng, &eng->threads[i], &res[i], buf, buf + cap, buf + 2 * cap, buf + 3 * cap);
	free(buf);
	return rc;
}
