/* results: turn a series' samples into the contract's figures. Runs after the measured phase. */
#include "results.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../affinity/cpulist.h"
#include "../base/lock.h"
#include "../base/output.h"
#include "request.h"

/* Releases of a loop on its grid BASE + k * P (k >= 0) that lie in [LO, HI). */
static uint64_t grid_count(int64_t base, int64_t p, int64_t lo, int64_t hi)
{
	int64_t a, b;

	if (lo < base)
		lo = base;
	if (hi <= lo)
		return 0;
	a = (lo - base + p - 1) / p; /* first k with base + k p >= lo */
	b = (hi - base + p - 1) / p; /* first k with base + k p >= hi */
	return (uint64_t)(b - a);
}

/* Every release of the window [WS, WE) is one of: a cycle that ran (a sample), a skipped release (one
 * between two cycles that ran, or between the last one and the loop's next_release: overrun = skip), or
 * one not started (at or after next_release: a catchup backlog the end cut off, or a loop that never
 * ran). Counted here from the releases themselves, so that cycles + skipped + not_started == releases.
 * N: the samples the loop stored (warm-up and any after the window included). */
static void account_releases(const struct jl_engine *eng, const struct jl_series *ser, size_t n, int64_t ws,
			     int64_t we, struct jl_series_result *r)
{
	const int64_t p = ser->period_ns;
	const int64_t base = ser->first_release > eng->t0 ? ser->first_release : eng->t0;
	int64_t prev = base - p, next = ser->next_release > base ? ser->next_release : base;

	r->releases = grid_count(base, p, ws, we);
	r->skipped = 0;
	for (size_t i = 0; i < n; i++) {
		int64_t rel = jl_series_at(ser, i)->release;

		r->skipped += grid_count(base, p, prev + p > ws ? prev + p : ws, rel < we ? rel : we);
		prev = rel;
	}
	if (n && next < prev + p)
		next = prev + p;
	r->skipped += grid_count(base, p, prev + p > ws ? prev + p : ws, next < we ? next : we);
	r->not_started = grid_count(base, p, next > ws ? next : ws, we);
}

static int series_result(const struct jl_engine *eng, const struct jl_series *ser, struct jl_series_result *r,
			 int64_t *lat, int64_t *per, int64_t *resp, int64_t *scratch)
{
	const struct jl_thread *th = jl_series_thread(eng, ser);
	const struct jl_thread_spec *spec = eng->units[ser->unit].spec;
	size_t n = jl_series_count(ser);
	size_t first = jl_engine_first_measured(eng, ser);
	int64_t win_start, win_end;
	cpu_set_t used;
	size_t np = 0;
	int64_t work_sum = 0, work_max = 0;

	memset(r, 0, sizeof(*r));
	r->s = ser;
	r->th = th;
	r->spec = spec;
	snprintf(r->name, sizeof(r->name), "%s", ser->name);
	if (spec->place.cpus_set)
		jl_cpulist_format(&spec->place.cpus, r->cpus, sizeof(r->cpus));
	else
		snprintf(r->cpus, sizeof(r->cpus), "all");
	if (th)
		jl_cpulist_format(&th->cpus_used, r->cpus_used, sizeof(r->cpus_used));
	r->measured = ser->measured;
	r->periodic = ser->periodic;
	r->period_ns = ser->period_ns;
	r->nominal_hz = ser->period_ns ? 1e9 / (double)ser->period_ns : 0.0;
	r->work_calls = ser->work_calls;
	r->work_mean_ns = ser->work_calls ? (double)ser->work_sum_ns / (double)ser->work_calls : 0.0;
	r->work_max_ns = ser->work_max_ns;
	if (th) {
		r->cpu_time_ns = th->cpu_time_ns;
		r->ctx_voluntary = th->ctx_voluntary;
		r->ctx_involuntary = th->ctx_involuntary;
	}

	win_start = eng->t_measure;
	if (ser->start_ns)
		win_start = ser->first_release;
	win_end = eng->t_stopped && eng->t_stopped < eng->t_end ? eng->t_stopped : eng->t_end;
	r->window_start_ns = win_start;
	r->window_end_ns = win_end > win_start ? win_end : win_start;
	r->window_s = (double)(r->window_end_ns - win_start) / 1e9;
	if (!r->periodic && !(ser->measured && n))
		return 0;

	/* a series on a grid accounts for every release of the window; one that is not (the wakeups of a
	 * thread measured from the trace) has only the cycles it ran */
	if (r->periodic)
		account_releases(eng, ser, n, win_start, r->window_end_ns, r);
	/* cycles released after an early stop (SIGINT) ran only to notice it: they do not count */
	while (n > first && jl_series_at(ser, n - 1)->release >= win_end)
		n--;
	r->first = first;
	r->cycles = n - first;
	CPU_ZERO(&used);
	for (size_t i = first; i < n; i++) {
		const struct jl_sample *s = jl_series_at(ser, i);
		size_t k = i - first;

		lat[k] = jl_latency_ns(s->release, s->wake);
		resp[k] = jl_response_ns(s->release, s->end);
		if (k > 0)
			per[np++] = s->wake - jl_series_at(ser, i - 1)->wake;
		r->misses += ser->deadline_ns > 0 && jl_missed(s->release, s->end, ser->deadline_ns);
		work_sum += s->end - s->wake;
		if (s->end - s->wake > work_max)
			work_max = s->end - s->wake;
		if (s->cpu >= 0 && s->cpu < CPU_SETSIZE)
			CPU_SET(s->cpu, &used);
	}
	/* a loop's work figures and CPUs cover the measured cycles only, like every other figure of it */
	jl_cpulist_format(&used, r->cpus_used, sizeof(r->cpus_used));
	r->work_calls = r->cycles;
	r->work_mean_ns = r->cycles ? (double)work_sum / (double)r->cycles : 0.0;
	r->work_max_ns = work_max;
	r->rate_hz = r->window_s > 0 ? (double)r->cycles / r->window_s : 0.0;
	if (!r->periodic)
		r->releases = r->cycles;
	if (ser->has_origin) {
		/* the age of the consumed data at start, for the cycles that had data (the latency buffer is
		 * reused once its distribution is computed) */
		if (jl_dist_compute(lat, r->cycles, scratch, &r->latency))
			return -1;
		for (size_t i = first; i < n; i++) {
			const struct jl_sample *s = jl_series_at(ser, i);

			if (s->origin > 0 && !s->reread) /* a poll's re-read is no new age */
				lat[r->aged++] = s->wake - s->origin;
		}
		if (jl_dist_compute(lat, r->aged, scratch, &r->age))
			return -1;
		for (size_t i = first, k = 0; i < n; i++) {
			const struct jl_sample *s = jl_series_at(ser, i);

			if (s->origin > 0 && !s->reread)
				lat[k++] = s->end - s->origin;
		}
		if (jl_dist_compute(lat, r->aged, scratch, &r->e2e))
			return -1;
		for (size_t i = first; i < n; i++) /* the latencies back, for the distribution below */
			lat[i - first] = jl_latency_ns(jl_series_at(ser, i)->release, jl_series_at(ser, i)->wake);
	}
	if (jl_dist_compute(lat, r->cycles, scratch, &r->latency) ||
	    jl_dist_compute(per, np, scratch, &r->period) ||
	    jl_dist_compute(resp, r->cycles, scratch, &r->response))
		return -1;
	if (r->cycles)
		r->latency_max_cycle = jl_series_at(ser, first + r->latency.max_index)->cycle;
	return 0;
}

int jl_results_compute(const struct jl_engine *eng, struct jl_series_result *res)
{
	size_t cap = 1;
	int64_t *buf;
	int rc = 0;

	for (int i = 0; i < eng->nseries; i++)
		if (eng->series[i].cap > cap)
			cap = eng->series[i].cap;
	buf = malloc(4 * cap * sizeof(*buf));
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < eng->nseries && !rc; i++)
		rc = series_result(eng, &eng->series[i], &res[i], buf, buf + cap, buf + 2 * cap, buf + 3 * cap);
	free(buf);
	return rc;
}

/* samples.csv (outputs.md): one row per measured cycle of every measured series, through the one
 * root-safe writer. */
int jl_results_write_samples(const char *dir, const struct jl_series_result *res, int n)
{
	struct jl_outfile of;

	if (jl_output_open(&of, dir, "samples.csv"))
		return -1;
	fputs("thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped\n", of.fp);
	for (int t = 0; t < n; t++) {
		const struct jl_series_result *r = &res[t];
		const struct jl_series *ser = r->s;

		if (!r->measured)
			continue;
		for (size_t i = r->first; i < r->first + r->cycles; i++) {
			const struct jl_sample *s = jl_series_at(ser, i);
			int64_t period = i > r->first ? s->wake - jl_series_at(ser, i - 1)->wake : 0;

			fprintf(of.fp, "%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%u\n",
				r->name, s->cycle, s->release, s->wake, s->end, jl_latency_ns(s->release, s->wake), period,
				jl_response_ns(s->release, s->end), jl_missed(s->release, s->end, ser->deadline_ns), s->skipped);
		}
	}
	return jl_output_commit(&of);
}

int jl_results_write_callbacks(const char *dir, const struct jl_engine *eng, const struct jl_series_result *res, int n)
{
	struct jl_outfile of;
	bool any = false;

	for (int t = 0; t < n; t++)
		any |= res[t].measured && eng->units[res[t].s->unit].spec->beh.kind == JL_BEH_EXECUTOR;
	if (!any)
		return 0;
	if (jl_output_open(&of, dir, "callbacks.csv"))
		return -1;
	fputs("callback,executor,thread,tid,cycle,run,ready_ns,start_ns,end_ns,origin_ns,source,source_run,sync,reread\n", of.fp);
	for (int t = 0; t < n; t++) {
		const struct jl_series_result *r = &res[t];
		const struct jl_unit *u = &eng->units[r->s->unit];

		if (!r->measured || u->spec->beh.kind != JL_BEH_EXECUTOR)
			continue;
		for (size_t i = r->first; i < r->first + r->cycles; i++) {
			const struct jl_sample *s = jl_series_at(r->s, i);
			/* the run that published what it consumed: the chain's link (empty for a timer) */
			const char *src = s->src && s->src <= eng->nseries ? eng->series[s->src - 1].name : "";
			const char *via = s->via_sync && s->via_sync <= eng->sc->nsyncs ? eng->sc->syncs[s->via_sync - 1].name : "";
			char src_run[16] = "";
			int k = -1;

			for (int j = 0; j < u->nthreads && k < 0; j++) /* which pool thread ran it */
				if (eng->threads[u->first_thread + j].tid == s->tid)
					k = j;
			if (src[0])
				snprintf(src_run, sizeof(src_run), "%u", s->src_run);
			fprintf(of.fp, "%s,%s,%d,%d,%" PRIu64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%s,%s,%d\n",
				r->name, u->spec->name, k, (int)s->tid, s->cycle, s->run, s->release, s->wake, s->end,
				s->origin, src, src_run, via, s->reread);
		}
	}
	return jl_output_commit(&of);
}

int jl_results_write_locks(const char *dir, const struct jl_engine *eng)
{
	struct jl_outfile of;

	if (!eng->nlocks)
		return 0;
	if (jl_output_open(&of, dir, "locks.csv"))
		return -1;
	fputs("lock,thread,tid,ask_ns,got_ns,rel_ns\n", of.fp);
	for (int i = 0; i < eng->nlocks; i++) {
		const struct jl_lock *l = &eng->locks[i];

		for (size_t k = 0; k < jl_lock_count(l); k++) {
			const struct jl_lock_sample *x = &l->samples[k];
			const char *who = "";

			for (int t = 0; t < eng->nthreads; t++)
				if (eng->threads[t].tid == x->tid)
					who = eng->threads[t].name;
			fprintf(of.fp, "%s,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 "\n", l->name, who, (int)x->tid, x->ask, x->got,
				x->rel);
		}
	}
	return jl_output_commit(&of);
}

int jl_results_write_requests(const char *dir, const struct jl_engine *eng)
{
	size_t n, lost;
	const struct jl_request *reqs = jl_executor_requests(eng, &n, &lost);
	struct jl_outfile of;

	if (!eng->sc->nsources && !n)
		return 0;
	if (jl_output_open(&of, dir, "requests.csv"))
		return -1;
	fputs("request,queue,source,parent,server,status,created_ns,deadline_ns,start_ns,end_ns,gave_up_ns,wasted_ns\n", of.fp);
	for (size_t i = 0; i < n; i++) {
		const struct jl_request *r = &reqs[i];
		const char *src = r->source >= 0 && r->source < eng->sc->nsources ? eng->sc->sources[r->source].t.name : "";
		const char *srv = r->server >= 0 && r->server < eng->nseries ? eng->series[r->server].name : "";
		char parent[16] = "";

		if (r->parent >= 0)
			snprintf(parent, sizeof(parent), "%d", r->parent);
		fprintf(of.fp, "%zu,%s,%s,%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", i,
			r->topic >= 0 && r->topic < eng->sc->ntopics ? eng->sc->topics[r->topic].name : "", src, parent, srv,
			jl_req_status_name(jl_request_status(r)), r->created,
			r->deadline, r->start, r->end, jl_request_gave_up(r),
			jl_request_wasted(reqs, n, r));
	}
	return jl_output_commit(&of);
}
