/* run_series: what the analysis is given of the run, whether it runs live or after the run: the
 * engine's series and their samples, and the IRQs' names. */
#include <stdio.h>
#include <stdlib.h>

#include "../../../affinity/irq.h"
#include "analysis.h"
#include "trace_series.h"

/* A probed server's workers: the threads that served its request series (any_thread), per unit. */
struct worker {
	int unit;
	int32_t tid;
};

/* The distinct (unit, tid) of the samples of every any_thread series into *W (caller frees); their count, or
 * -1 (ENOMEM). */
static int probe_workers(const struct jl_engine *eng, struct worker **w)
{
	int n = 0, cap = 0;

	*w = NULL;
	for (int i = 0; i < eng->nseries; i++) {
		const struct jl_series *es = &eng->series[i];

		for (size_t j = 0; es->any_thread && j < jl_series_count(es); j++) {
			const int32_t tid = jl_series_at(es, j)->tid;
			int k;

			for (k = 0; k < n && ((*w)[k].unit != es->unit || (*w)[k].tid != tid); k++)
				;
			if (k < n)
				continue;
			if (n == cap) {
				struct worker *grown = realloc(*w, (size_t)(cap = cap ? 2 * cap : 16) * sizeof(**w));

				if (!grown) {
					free(*w);
					*w = NULL;
					return -1;
				}
				*w = grown;
			}
			(*w)[n++] = (struct worker){ es->unit, tid };
		}
	}
	return n;
}

/* How many of W[0..N) are UNIT's: its pool's size */
static int workers_of(const struct worker *w, int n, int unit)
{
	int size = 0;

	for (int i = 0; i < n; i++)
		size += w[i].unit == unit;
	return size;
}

/* Series ES as the analysis' entry TH, its N cycles from FIRST copied into SAMPLES from K on (the next K
 * returned; SAMPLES NULL: none copied, the entry has no samples): a callback's entry names its executor,
 * a server method's its workers (WORKERS[0..NWORKERS)). PARTIAL: a ring's kept cycles, to which the
 * analysis may be pruned. */
static size_t series_entry(const struct jl_engine *eng, const struct jl_series *es, size_t first, size_t n,
			   const struct worker *workers,
			   int nworkers, bool partial, struct jl_analysis_thread *th, struct jl_analysis_sample *samples,
			   size_t k)
{
	const struct jl_thread *et = jl_series_thread(eng, es);
	const struct jl_unit *un = &eng->units[es->unit];
	const struct jl_thread_spec *spec = un->spec;

	snprintf(th->name, sizeof(th->name), "%s", es->name);
	th->pid = et ? et->tid : es->tid; /* a probed thread is none of the engine's */
	/* a callback: its late starts are first its executor's other runs, then its thread's wakeup */
	if (spec->beh.kind == JL_BEH_EXECUTOR) {
		th->executor = es->unit + 1;
		th->pool_size = un->nthreads;
		th->group = es->group;
	} else if (es->any_thread) { /* a server's method: its pool is the unit's workers */
		th->executor = es->unit + 1;
		th->requests = true;
		th->group = -1;
		th->pool_size = workers_of(workers, nworkers, es->unit);
	}
	th->measured = es->measured;
	th->sampled = es->measured && !es->trace_only;
	jl_policy_format(spec->place.policy, spec->place.priority, spec->place.nice, true, th->policy, sizeof(th->policy));
	if (spec->beh.attach[0]) /* a thread jitterlab did not place: its policy from the trace's priorities */
		th->policy[0] = '\0';
	th->partial = es->partial || partial;
	if (!samples)
		return k;
	th->samples = samples + k;
	th->nsamples = n;
	for (size_t j = first; j < first + n; j++, k++) {
		const struct jl_sample *s = jl_series_at(es, j);

		samples[k].release = s->release;
		samples[k].wake = s->wake;
		samples[k].end = s->end;
		samples[k].miss = es->deadline_ns > 0 && jl_missed(s->release, s->end, es->deadline_ns);
		samples[k].cycle = s->cycle;
		samples[k].tid = s->tid;
	}
	if (!es->measured || es->trace_only) { /* trace_only: its wakeups are what is analysed */
		th->samples = NULL;
		th->nsamples = 0;
	}
	return k;
}

/* The pool threads' entries from TH[E] on: a multi-threaded executor's threads, then a probed server's
 * workers (their policy: from the trace, the program may set its threads' own). The entries' count. */
static int pool_entries(const struct jl_engine *eng, const struct worker *workers, int nworkers,
			struct jl_analysis_thread *th, int e)
{
	for (int u = 0; u < eng->nunits; u++) {
		const struct jl_unit *un = &eng->units[u];

		if (un->spec->beh.kind != JL_BEH_EXECUTOR || un->nthreads < 2)
			continue;
		for (int t = un->first_thread; t < un->first_thread + un->nthreads; t++, e++) {
			snprintf(th[e].name, sizeof(th[e].name), "%s", eng->threads[t].name);
			th[e].pid = eng->threads[t].tid;
			th[e].measured = th[e].pool = true;
			th[e].executor = u + 1;
			th[e].pool_size = un->nthreads;
			jl_policy_format(un->spec->place.policy, un->spec->place.priority, un->spec->place.nice, true,
					 th[e].policy, sizeof(th[e].policy));
		}
	}
	for (int w = 0; w < nworkers; w++, e++) {
		const struct jl_thread_spec *spec = eng->units[workers[w].unit].spec;

		snprintf(th[e].name, sizeof(th[e].name), "%.40s.worker-%d", spec->name, (int)workers[w].tid);
		th[e].pid = workers[w].tid;
		th[e].measured = th[e].pool = th[e].requests = true;
		th[e].executor = workers[w].unit + 1;
		th[e].pool_size = workers_of(workers, nworkers, workers[w].unit);
	}
	return e;
}

/* The engine's series as the analysis sees them, one entry each, in the engine's order (the trace
 * marker names a series by its index); an entry's pid is the thread that writes the series, so the
 * wakeups of that thread are what its samples are paired with. Then the pools' threads: a multi-threaded
 * executor's, and a probed server's workers (its request series are explained as a pool's callbacks:
 * whichever worker served one). Samples converted (caller frees *SAMPLES; SAMPLES NULL: entries only,
 * nothing read of the samples, as the live analysis starts while the loops append). Each series' count is
 * read once: a thread the watchdog gave up on may still append at the end (a second reading of a count
 * that grew wrote past the samples' end; seen when the live start still copied samples). */
struct jl_analysis_thread *jl_trace_engine_series(const struct jl_engine *eng, struct jl_analysis_sample **samples, int *count,
					     bool partial)
{
	struct jl_analysis_thread *th;
	struct worker *workers;
	size_t total = 0, k = 0, *counts, *first;
	int npool = 0, nworkers, e;

	if (samples)
		*samples = NULL;
	for (int u = 0; u < eng->nunits; u++) /* a multi-threaded executor's pool threads: entries of their own */
		if (eng->units[u].spec->beh.kind == JL_BEH_EXECUTOR && eng->units[u].nthreads > 1)
			npool += eng->units[u].nthreads;
	if ((nworkers = probe_workers(eng, &workers)) < 0)
		return NULL;
	th = calloc((size_t)(eng->nseries + npool + nworkers) + 1, sizeof(*th));
	counts = calloc((size_t)eng->nseries + 1, sizeof(*counts));
	first = calloc((size_t)eng->nseries + 1, sizeof(*first));
	if (!th || !counts || !first)
		goto nomem;
	for (int i = 0; samples && i < eng->nseries; i++) {
		const struct jl_series *es = &eng->series[i];

		/* a ring still being written: only [consumed, count) is there to read (the slots before are
		 * the next ones written; copying them read the ring round and round, count's worth) */
		counts[i] = jl_series_count(es);
		first[i] = es->ring ? atomic_load_explicit(&es->consumed, memory_order_acquire) : 0;
		counts[i] = counts[i] > first[i] ? counts[i] - first[i] : 0;
		total += counts[i];
	}
	if (samples && !(*samples = calloc(total ? total : 1, sizeof(**samples))))
		goto nomem;
	for (int i = 0; i < eng->nseries; i++)
		k = series_entry(eng, &eng->series[i], first[i], counts[i], workers, nworkers, partial, &th[i],
				 samples ? *samples : NULL, k);
	e = pool_entries(eng, workers, nworkers, th, eng->nseries);
	free(workers);
	free(counts);
	free(first);
	*count = e;
	return th;
nomem:
	free(th);
	free(counts);
	free(first);
	free(workers);
	return NULL;
}

static void set_irq_name(void *ctx, int irq, const char *name)
{
	jl_analysis_set_irq_name(ctx, irq, name);
}

void jl_trace_irq_names(struct jl_analysis *an)
{
	jl_irq_names(NULL, set_irq_name, an);
}
