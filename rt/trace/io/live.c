/* live: the analysis of a long run's trace while the run goes (trace.h, jl_trace_live_start).
 *
 * When every page is kept (trace_keep = all) and every measured entry is a loop keeping a ring, the
 * pruned analysis (analysis/prune.c) only needs to know its windows before it is fed the events in them.
 * The collector reads each loop's cycles within about 100 ms of their end and hands each one here
 * (jl_trace_live_cycle): the cycles that are among the loop's worst or longest misses so far get their
 * whole window, its first misses their wakeup window (the same rules as the flight recorder and the
 * rings, so the cycles kept at the end are among them; a loop's last cycles are known only at the end:
 * their pairs wait in the analysis' tail ring). A thread on the reader's CPUs then feeds the analysis
 * the pages the reader has drained, in time order, up to
 * - the point before which every CPU's buffer was found empty (10 ms of margin), and
 * - the earliest release the collector has not seen yet, less a candidate's look back and 50 ms:
 *   no window can start before it any more.
 * jl_trace_finish then stops the thread, gives the analysis the entries' final samples
 * (jl_analysis_prune_settle) and feeds it only what is left: the last second or so, whatever the duration. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <event-parse.h>

#include "../../base/clock.h"
#include "../../base/housekeeping_thread.h"
#include "../../base/stream.h"
#include "../../engine/results.h"
#include "capture.h"
#include "live.h"
#include "read.h"
#include "syms.h"
#include "trace.h"
#include "../analysis/analysis.h"
#include "../analysis/prune.h"
#include "../analysis/summarize.h"
#include "../analysis/trace_series.h"
#include "../analysis/worst.h"
#include "../../base/summary_keys.h"

#define LIVE_PERIOD_NS 200000000L    /* the thread's step */
#define LIVE_DRAIN_MARGIN_NS 10000000LL
#define LIVE_COLLECTOR_MARGIN_NS 50000000LL

struct live_series {
	struct jl_topk lat, miss;
	int64_t wlat[JL_ANALYSIS_PRUNE_WORST][2], wmiss[JL_ANALYSIS_PRUNE_MISSES][2]; /* each slot's whole window */
	uint64_t misses, cycles;
	int64_t last_release;
	int64_t rel[JL_KEEP_TAIL];    /* the releases of its last cycles (a ring): its kept tail's start */
	bool seen;
	struct jl_analysis_sample *cyc; /* every measured cycle since the last step: the matcher's */
	size_t ncyc, capcyc;
};

struct jl_trace_live {
	struct jl_trace *t;
	struct jl_analysis an;
	struct jl_trace_stream *st;
	struct jl_trace_pages src;
	int *fds;
	uint64_t *bytes;              /* the sizes the stream reads up to (a snapshot of the reader's) */
	int64_t from, back, fed_to;
	pthread_t thread;
	bool started;
	atomic_bool stop;
	atomic_int error;
	/* from the collector, under mu */
	pthread_mutex_t mu;
	struct live_series *ser;
	int nser;
	int64_t (*pend)[2];
	size_t npend, cappend;
	bool cand_changed;
	bool matching;                /* every cycle goes to the analysis' matcher (jl_analysis_prune_match) */
	int64_t (*cand)[2];           /* scratch: every series' candidates' windows */
	/* figures */
	uint64_t steps;
	double busy_s, max_lag_s;
};

static void pend(struct jl_trace_live *L, const struct jl_analysis_sample *x, bool whole)
{
	if (L->npend == L->cappend) {
		size_t cap = L->cappend ? L->cappend * 2 : 64;
		int64_t (*p)[2] = realloc(L->pend, cap * sizeof(*p));

		if (!p) {
			atomic_store(&L->error, ENOMEM);
			return;
		}
		L->pend = p;
		L->cappend = cap;
	}
	jl_analysis_prune_window(x, whole, L->back, L->pend[L->npend++]);
}

void jl_trace_live_cycle(struct jl_trace *t, int series, const struct jl_sample *x, int64_t latency,
			 int64_t response, bool miss)
{
	struct jl_trace_live *L = t ? t->live : NULL;
	struct jl_analysis_sample s;
	struct live_series *k;
	int slot;

	if (!L || series < 0 || series >= L->nser)
		return;
	s = (struct jl_analysis_sample){ .release = x->release, .wake = x->wake, .end = x->end, .miss = miss, .cycle = x->cycle };
	pthread_mutex_lock(&L->mu);
	k = &L->ser[series];
	if (x->release >= L->from) {
		/* a candidate while it is among the worst so far: its whole window in its slot (the one it
		 * displaced leaves with its window) */
		if ((slot = jl_topk_add(&k->lat, latency, x->cycle)) >= 0) {
			jl_analysis_prune_window(&s, true, L->back, k->wlat[slot]);
			L->cand_changed = true;
		}
		if (miss) {
			if ((slot = jl_topk_add(&k->miss, response, x->cycle)) >= 0) {
				jl_analysis_prune_window(&s, true, L->back, k->wmiss[slot]);
				L->cand_changed = true;
			}
			if (k->misses++ < JL_KEEP_MISSES) /* the ring keeps the first misses: their pairs */
				pend(L, &s, false);
		}
	}
	k->last_release = x->release;
	k->rel[k->cycles++ % JL_KEEP_TAIL] = x->release;
	k->seen = true;
	if (L->matching) {
		if (k->ncyc == k->capcyc) {
			size_t cap = k->capcyc ? k->capcyc * 2 : 256;
			struct jl_analysis_sample *g = realloc(k->cyc, cap * sizeof(*g));

			if (!g) {
				atomic_store(&L->error, ENOMEM);
				pthread_mutex_unlock(&L->mu);
				return;
			}
			k->cyc = g;
			k->capcyc = cap;
		}
		k->cyc[k->ncyc++] = s;
	}
	pthread_mutex_unlock(&L->mu);
}

/* Every series' candidates now to the analysis (under mu). */
static int live_candidates(struct jl_trace_live *L)
{
	size_t n = 0;

	for (int i = 0; i < L->nser; i++) {
		const struct live_series *k = &L->ser[i];

		for (int j = 0; j < k->lat.n; j++) {
			L->cand[n][0] = k->wlat[k->lat.e[j].slot][0];
			L->cand[n++][1] = k->wlat[k->lat.e[j].slot][1];
		}
		for (int j = 0; j < k->miss.n; j++) {
			L->cand[n][0] = k->wmiss[k->miss.e[j].slot][0];
			L->cand[n++][1] = k->wmiss[k->miss.e[j].slot][1];
		}
	}
	L->cand_changed = false;
	return jl_analysis_prune_candidates(&L->an, (const int64_t (*)[2])L->cand, n);
}

/* The windows and candidates the collector gave since the last look, to the analysis (under mu). */
static void take_windows(struct jl_trace_live *L)
{
	if (L->npend && jl_analysis_prune_add(&L->an, (const int64_t (*)[2])L->pend, L->npend) < 0)
		atomic_store(&L->error, ENOMEM);
	L->npend = 0;
	if (L->cand_changed && live_candidates(L) < 0)
		atomic_store(&L->error, ENOMEM);
	for (int i = 0; L->matching && i < L->nser; i++) {
		struct live_series *k = &L->ser[i];

		if (k->ncyc && jl_analysis_prune_cycles(&L->an, i, k->cyc, k->ncyc) < 0)
			atomic_store(&L->error, ENOMEM);
		k->ncyc = 0;
	}
}

/* Feed the analysis what is safe now: see the file's comment. */
static int live_step(struct jl_trace_live *L)
{
	struct jl_trace *t = L->t;
	int64_t collector = INT64_MAX, drained = INT64_MAX, limit, t0;

	pthread_mutex_lock(&L->mu);
	take_windows(L);
	for (int i = 0; i < L->nser; i++) {
		const struct live_series *k = &L->ser[i];

		if (!L->an.threads[i].measured)
			continue;
		if (k->cycles >= JL_KEEP_TAIL) /* pairs before its last JL_KEEP_TAIL cycles are nobody's */
			jl_analysis_prune_tail_from(&L->an, i, k->rel[k->cycles % JL_KEEP_TAIL] - JL_ANALYSIS_CLOCK_SLACK_NS);
		if (!k->seen) /* no cycle yet: one may come, released at the window's start */
			collector = L->from < collector ? L->from : collector;
		else if (k->last_release < collector)
			collector = k->last_release;
	}
	pthread_mutex_unlock(&L->mu);
	if (atomic_load(&L->error))
		return -1;
	for (int c = 0; c < t->ncpus; c++) {
		int64_t d = __atomic_load_n(&t->cpu[c].drained_ns, __ATOMIC_ACQUIRE);

		if (!t->cpu[c].tcpu) /* an offline CPU: nothing to wait for */
			continue;
		drained = d < drained ? d : drained;
		L->bytes[c] = __atomic_load_n(&t->cpu[c].bytes, __ATOMIC_ACQUIRE);
	}
	limit = collector == INT64_MAX ? INT64_MAX : collector - L->back - LIVE_COLLECTOR_MARGIN_NS;
	if (drained - LIVE_DRAIN_MARGIN_NS < limit)
		limit = drained - LIVE_DRAIN_MARGIN_NS;
	if (limit <= L->fed_to)
		return 0;
	t0 = jl_now_ns();
	if (jl_trace_stream_feed(L->st, limit) < 0) {
		atomic_store(&L->error, errno ? errno : EIO);
		return -1;
	}
	{
		int64_t done = jl_now_ns();

		L->busy_s += (double)(done - t0) / 1e9;
		L->steps++;
		if ((double)(done - limit) / 1e9 > L->max_lag_s)
			L->max_lag_s = (double)(done - limit) / 1e9;
	}
	L->fed_to = limit;
	return 0;
}

static void *live_main(void *arg)
{
	struct jl_trace_live *L = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&L->stop)) {
		next.tv_nsec += LIVE_PERIOD_NS;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
		if (atomic_load(&L->stop) || live_step(L) < 0)
			break;
	}
	return NULL;
}

void jl_trace_live_free(struct jl_trace *t)
{
	struct jl_trace_live *L = t ? t->live : NULL;

	if (!L)
		return;
	jl_trace_live_stop(t);
	jl_trace_stream_close(L->st);
	jl_analysis_free(&L->an);
	pthread_mutex_destroy(&L->mu);
	for (int i = 0; L->ser && i < L->nser; i++)
		free(L->ser[i].cyc);
	free(L->ser);
	free(L->cand);
	free(L->pend);
	free(L->fds);
	free(L->bytes);
	free(L);
	t->live = NULL;
}

/* L's tables: per series its worst latencies and misses so far, the candidates, each CPU's file and bytes
 * fed; and every cycle matched as it comes where the series are the analysis' N threads (its wakeup figures
 * exact where the rings' percentiles are). 0, or -1 (ENOMEM). */
static int live_tables(struct jl_trace_live *L, const struct jl_engine *eng, int n, int ncpus)
{
	int rc;

	L->nser = eng->nseries < n ? eng->nseries : n;
	L->ser = calloc((size_t)(L->nser > 0 ? L->nser : 1), sizeof(*L->ser));
	L->cand = calloc((size_t)(L->nser > 0 ? L->nser : 1) * (JL_ANALYSIS_PRUNE_WORST + JL_ANALYSIS_PRUNE_MISSES),
			 sizeof(*L->cand));
	L->fds = calloc((size_t)ncpus, sizeof(*L->fds));
	L->bytes = calloc((size_t)ncpus, sizeof(*L->bytes));
	if (!L->ser || !L->cand || !L->fds || !L->bytes)
		return -1;
	for (int i = 0; i < L->nser; i++) {
		jl_topk_init(&L->ser[i].lat, JL_ANALYSIS_PRUNE_WORST);
		jl_topk_init(&L->ser[i].miss, JL_ANALYSIS_PRUNE_MISSES);
	}
	rc = L->nser == n ? jl_analysis_prune_match(&L->an, jl_engine_spill_fits(eng->sc, NULL),
						    eng->sc ? eng->sc->run.tail_ns : 0) : 0;
	if (rc < 0)
		return -1;
	L->matching = rc > 0;
	return 0;
}

int jl_trace_live_start(struct jl_trace *t, const struct jl_engine *eng, json_object *host, char *err, size_t errlen)
{
	struct jl_analysis_thread *threads = NULL;
	struct jl_trace_live *L;
	int n = 0, rc;

	/* with the flight recorder (its circle is overwritten), or without a CPU beside the measured ones (it
	 * would compete with them): the analysis after the run */
	if (!t || t->rec || !t->reader_started || !eng->rings || !CPU_COUNT(&t->reader_cpus))
		return 0;
	for (int u = 0; u < eng->nunits; u++) /* a program measured from the trace needs its first pass */
		if (JL_MEASURE_FROM_TRACE(eng->units[u].spec->beh.measure))
			return 0;
	L = calloc(1, sizeof(*L));
	if (!L)
		goto nomem;
	L->t = t;
	t->live = L;
	pthread_mutex_init(&L->mu, NULL);
	/* the entries alone: the loops append meanwhile, and the samples come at the end (rings: kept cycles) */
	threads = jl_trace_engine_series(eng, NULL, &n, true);
	if (!threads)
		goto nomem;
	if (jl_analysis_init(&L->an, threads, n, t->ncpus) < 0)
		goto nomem;
	free(threads);
	threads = NULL;
	if (host)
		jl_trace_budget_from_host(host, &L->an.budget);
	jl_trace_irq_names(&L->an);
	L->an.clocks = t->clocks; /* read as recording began, before this start */
	L->from = eng->t_measure;
	L->back = jl_analysis_prune_lookback_ns(&L->an.budget);
	L->fed_to = INT64_MIN;
	rc = jl_analysis_prune_live(&L->an, L->from);
	if (rc <= 0) { /* an entry that needs every wakeup: the analysis after the run */
		jl_trace_live_free(t);
		if (rc < 0)
			goto nomem_nolive;
		return 0;
	}
	if (live_tables(L, eng, n, t->ncpus) < 0)
		goto nomem;
	for (int c = 0; c < t->ncpus; c++)
		L->fds[c] = t->cpu[c].fd;
	L->src = (struct jl_trace_pages){ .tep = jl_trace_tep(t, err, errlen), .ncpus = t->ncpus,
					  .page_size = t->page_size, .cpu_fd = L->fds, .cpu_bytes = L->bytes };
	if (!L->src.tep) {
		jl_trace_live_free(t);
		return -1;
	}
	L->st = jl_trace_stream_open(&L->src, &L->an, jl_trace_ksyms(t));
	if (!L->st)
		goto nomem;
	rc = jl_housekeeping_thread_start(&L->thread, &t->reader_cpus, "jl-analysis", live_main, L); /* beside the reader */
	if (rc) {
		snprintf(err, errlen, "trace: cannot start the live analysis: %s", strerror(rc));
		jl_trace_live_free(t);
		return -1;
	}
	L->started = true;
	return 1;
nomem:
	free(threads);
	jl_trace_live_free(t);
nomem_nolive:
	snprintf(err, errlen, "trace: out of memory for the live analysis");
	return -1;
}

void jl_trace_live_stop(struct jl_trace *t)
{
	struct jl_trace_live *L = t ? t->live : NULL;

	if (!L || !L->started)
		return;
	atomic_store(&L->stop, true);
	pthread_join(L->thread, NULL);
	L->started = false;
	/* the windows the collector asked for since the thread's last step */
	pthread_mutex_lock(&L->mu);
	take_windows(L);
	pthread_mutex_unlock(&L->mu);
}

struct jl_analysis *jl_trace_live_analysis(struct jl_trace *t)
{
	return t && t->live && !atomic_load(&t->live->error) ? &t->live->an : NULL;
}

struct jl_trace_stream *jl_trace_live_stream(struct jl_trace *t)
{
	return t && t->live ? t->live->st : NULL;
}

struct jl_trace_pages *jl_trace_live_pages(struct jl_trace *t)
{
	return t && t->live ? &t->live->src : NULL;
}

void jl_trace_live_describe(const struct jl_trace *t, json_object *block, double feed_s, double post_s,
			    uint64_t post_events)
{
	const struct jl_trace_live *L = t ? t->live : NULL;
	uint64_t live;
	json_object *o;

	if (!L)
		return;
	live = jl_trace_stream_info(L->st)->records - post_events; /* fed while the run went */
	o = json_object_new_object();
	json_object_object_add(o, JL_K(events), json_object_new_int64((int64_t)live));
	json_object_object_add(o, JL_K(busy_s), json_object_new_double(L->busy_s));
	/* how fast it went through them (the events per second it can sustain), and the fastest step */
	json_object_object_add(o, JL_K(events_per_busy_s), json_object_new_double(L->busy_s > 0 ? (double)live / L->busy_s : 0));
	json_object_object_add(o, JL_K(steps), json_object_new_int64((int64_t)L->steps));
	json_object_object_add(o, JL_K(max_lag_s), json_object_new_double(L->max_lag_s));
	json_object_object_add(o, JL_K(after_run_events), json_object_new_int64((int64_t)post_events));
	json_object_object_add(o, JL_K(after_run_analysis_s), json_object_new_double(feed_s));
	json_object_object_add(o, JL_K(after_run_s), json_object_new_double(post_s));
	json_object_object_add(block, JL_K(live), o);
}
