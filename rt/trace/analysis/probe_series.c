/* probe_series: after the run, the probe records (read from trace.dat with the sched events, same clock)
 * become one series per probing thread of a `measure = probe` unit, so that they get everything a built-in
 * loop gets. A record belongs to the unit whose exec'd child the writing thread descends from (the fork and
 * task_newtask events of the trace). The records come from programs that mark their own cycles
 * (include/jitterlab/probe.h) through io/probe_server.c. A wake marked with a SERIES name goes to that
 * name's series of the unit, whichever of its threads made it (a server's method, served by any worker). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../include/jitterlab/probe.h"
#include "../../base/stats.h"
#include "../../base/units.h"
#include "../../engine/request.h"
#include "analysis.h"
#include "trace_series.h"

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

/* A series of probe records: a probing thread's own (its wakes without a SERIES record), or a named one
 * of a unit (every wake its threads marked with that SERIES name). */
struct prober {
	int32_t pid;        /* the thread's, or the first writer's of a named series */
	int unit;
	bool named;         /* a SERIES name: all of the unit's threads' wakes of that name */
	char name[16];
	size_t nwake;
	/* while the records are turned into cycles */
	int si;             /* its series in the engine (an index: adding a series may move them all); -1: none */
	int64_t period;
	uint64_t cycle, unpaired, far;
	bool named_release;
};

/* A thread's state while its records are read: the SERIES name its next wake takes, and its open wakes
 * (an end closes the latest: a request's own outgoing call nests inside it). */
#define OPEN_MAX 8
struct writer {
	int32_t pid;
	char pending[16];
	int nopen;
	struct {
		size_t key;
		int64_t wake, release;
	} open[OPEN_MAX];
};

/* The period of a probed series: the scenario's, else the median step between the releases it named
 * (or between its wakes when it named none); 0 when it has fewer than 3 cycles. KOF[i] is the series of
 * probe record i's wake (-1: not a wake). */
static int64_t probe_period(const struct jl_thread_spec *spec, const struct jl_analysis *an, const long *kof, long key)
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

		if (kof[i] != key)
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

static struct writer *writer_of(struct writer **w, size_t *nw, int32_t pid)
{
	struct writer *grown;

	for (size_t i = 0; i < *nw; i++)
		if ((*w)[i].pid == pid)
			return &(*w)[i];
	grown = realloc(*w, (*nw + 1) * sizeof(**w));
	if (!grown)
		return NULL;
	*w = grown;
	memset(&grown[*nw], 0, sizeof(grown[*nw]));
	grown[*nw].pid = pid;
	return &grown[(*nw)++];
}

/* The series a record of thread PID of UNIT goes to (a new one when none is): its index, or -1 (ENOMEM). */
static long key_of(struct prober **pr, size_t *npr, int32_t pid, int unit, const char *series)
{
	struct prober *grown;

	for (size_t k = 0; k < *npr; k++) {
		if (series && (*pr)[k].named && (*pr)[k].unit == unit && !strcmp((*pr)[k].name, series))
			return (long)k;
		if (!series && !(*pr)[k].named && (*pr)[k].pid == pid)
			return (long)k;
	}
	grown = realloc(*pr, (*npr + 1) * sizeof(**pr));
	if (!grown)
		return -1;
	*pr = grown;
	grown[*npr] = (struct prober){ .pid = pid, .unit = unit, .named = series != NULL, .si = -1 };
	if (series)
		snprintf(grown[*npr].name, sizeof(grown[*npr].name), "%s", series);
	return (long)(*npr)++;
}

/* ---- the work done after a client gave up (wasted) ----
 * A request series with a deadline (its unit's `deadline`) is a client's: a request of it not answered by
 * its release + deadline was given up then. The probe's requests become the model's (rt/engine/request.h),
 * linked the same way, so that the model's rule says what was wasted (jl_request_wasted): a call made inside
 * a request (a sample inside another of its thread) has that request as its parent, and the request a call
 * became at its server (the same release, another thread, started after the call: the caller passes its
 * call's start as the send time, as examples/grpc_chain does) has that call as its parent. A call is its
 * caller's time, not work of its own: it passes the moment on and adds nothing. */
struct req {
	const struct jl_sample *x;
	int si;          /* its series in the engine */
	long parent;     /* a call: the request of its thread it was made in; -1: none */
	long cause;      /* a request its server got: the call it was (another thread's); -1: none */
};

struct by_release {
	int64_t release;
	long i;
};

static int cmp_tid_wake(const void *pa, const void *pb)
{
	const struct req *a = pa, *b = pb;

	if (a->x->tid != b->x->tid)
		return a->x->tid < b->x->tid ? -1 : 1;
	if (a->x->wake != b->x->wake)
		return a->x->wake < b->x->wake ? -1 : 1;
	return a->x->end > b->x->end ? -1 : a->x->end < b->x->end; /* the outer first */
}

static int cmp_release(const void *pa, const void *pb)
{
	const struct by_release *a = pa, *b = pb;

	return a->release < b->release ? -1 : a->release > b->release;
}

/* The calls among Q[0..N): per thread, in start order, a request inside the latest one still open is a call
 * made in it (its parent). Into CALLS, sorted by release (OPEN: scratch, N long). How many. */
static size_t nest_calls(struct req *q, size_t n, struct by_release *calls, long *open)
{
	size_t ncalls = 0;
	int depth = 0;

	qsort(q, n, sizeof(*q), cmp_tid_wake);
	for (size_t i = 0; i < n; i++) {
		if (i && q[i].x->tid != q[i - 1].x->tid)
			depth = 0;
		while (depth && q[open[depth - 1]].x->end <= q[i].x->wake)
			depth--;
		if (depth && q[i].x->end <= q[open[depth - 1]].x->end) {
			q[i].parent = open[depth - 1];
			calls[ncalls++] = (struct by_release){ q[i].x->release, (long)i };
		}
		open[depth++] = (long)i;
	}
	qsort(calls, ncalls, sizeof(*calls), cmp_release);
	return ncalls;
}

/* The call each request of Q that is no call itself was at its server: the same release, made on another
 * thread before the request was served (its cause). */
static void link_served(struct req *q, size_t n, const struct by_release *calls, size_t ncalls)
{
	for (size_t i = 0; i < n; i++) {
		size_t lo = 0, hi = ncalls;

		if (q[i].parent >= 0)
			continue;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;

			if (calls[mid].release < q[i].x->release)
				lo = mid + 1;
			else
				hi = mid;
		}
		for (; lo < ncalls && calls[lo].release == q[i].x->release && q[i].cause < 0; lo++)
			if (q[calls[lo].i].x->tid != q[i].x->tid && q[calls[lo].i].x->wake <= q[i].x->wake)
				q[i].cause = calls[lo].i;
	}
}

/* Each named series' wasted_ns and given_up, over its requests released in the measured window. */
static int requests_wasted(struct jl_engine *eng, const struct prober *pr, size_t npr)
{
	struct req *q;
	struct jl_request *reqs;
	struct by_release *calls;
	long *open;
	size_t n = 0, k = 0, ncalls;

	for (size_t j = 0; j < npr; j++)
		if (pr[j].named && pr[j].si >= 0)
			n += jl_series_count(&eng->series[pr[j].si]);
	if (!n)
		return 0;
	q = calloc(n, sizeof(*q));
	reqs = calloc(n, sizeof(*reqs));
	calls = calloc(n, sizeof(*calls));
	open = calloc(n, sizeof(*open));
	if (!q || !reqs || !calls || !open) {
		free(q);
		free(reqs);
		free(calls);
		free(open);
		return -1;
	}
	for (size_t j = 0; j < npr; j++)
		for (size_t i = 0; pr[j].named && pr[j].si >= 0 && i < jl_series_count(&eng->series[pr[j].si]); i++)
			q[k++] = (struct req){ jl_series_at(&eng->series[pr[j].si], i), pr[j].si, -1, -1 };
	ncalls = nest_calls(q, n, calls, open);
	link_served(q, n, calls, ncalls);
	/* the model's requests: a client's with its deadline, every other linked to what caused it */
	for (size_t i = 0; i < n; i++) {
		const int64_t dl = eng->series[q[i].si].deadline_ns;

		reqs[i].created = q[i].x->release;
		reqs[i].deadline = q[i].parent < 0 && q[i].cause < 0 && dl > 0 ? q[i].x->release + dl : 0;
		reqs[i].start = q[i].x->wake;
		reqs[i].end = q[i].x->end;
		reqs[i].parent = (int32_t)(q[i].parent >= 0 ? q[i].parent : q[i].cause);
	}
	for (size_t i = 0; i < n; i++) {
		struct jl_series *s = &eng->series[q[i].si];

		if (q[i].x->release < eng->t_measure || q[i].x->release >= jl_engine_window_end(eng) || q[i].parent >= 0)
			continue; /* the measured window's requests, as every other figure; a call adds nothing */
		s->wasted_ns += jl_request_wasted(reqs, n, &reqs[i]);
		s->given_up += reqs[i].deadline && reqs[i].end > reqs[i].deadline; /* a client's, not answered in time */
	}
	free(q);
	free(reqs);
	free(calls);
	free(open);
	return 0;
}

/* The records' pass over them all: the series found so far, the threads that wrote, and each record's
 * series (KOF[i]: the series of record i's wake, -1 for any other record). */
struct probe_pass {
	struct prober *pr;
	size_t npr;
	struct writer *wr;
	size_t nwr;
	long *kof;
};

/* The series, in the order they first wrote, and each wake's series. -1: out of memory. */
static int find_series(struct probe_pass *pp, const struct jl_engine *eng, const struct jl_analysis *an)
{
	for (size_t i = 0; i < an->nprobes; i++) {
		const struct jl_analysis_probe *p = &an->probes[i];
		struct writer *w;
		long k;
		int u;

		pp->kof[i] = -1;
		if ((u = unit_of(eng, an, p->pid)) < 0)
			continue; /* a program of no `measure = probe` unit: not measured */
		if (!(w = writer_of(&pp->wr, &pp->nwr, p->pid)))
			return -1;
		if (p->kind == JL_PROBE_SERIES) {
			snprintf(w->pending, sizeof(w->pending), "%s", p->name);
			jl_analysis_clean_name(w->pending);
			continue;
		}
		if (p->kind == JL_PROBE_END)
			w->pending[0] = '\0'; /* a SERIES record names the wake right after it: that wake was lost */
		if (p->kind != JL_PROBE_WAKE && p->kind != JL_PROBE_NAME)
			continue;
		k = key_of(&pp->pr, &pp->npr, p->pid, u, p->kind == JL_PROBE_WAKE && w->pending[0] ? w->pending : NULL);
		if (k < 0)
			return -1;
		if (p->kind == JL_PROBE_NAME) {
			if (p->name[0])
				snprintf(pp->pr[k].name, sizeof(pp->pr[k].name), "%s", p->name);
			continue;
		}
		pp->kof[i] = k;
		pp->pr[k].nwake++;
		w->pending[0] = '\0'; /* a SERIES record names one wake */
	}
	return 0;
}

/* UNIT.NAME for series K: the series' or the probe's name, else the thread's comm, else its tid; a second
 * thread of the same name gets its tid appended. */
static void series_name(const struct jl_engine *eng, const struct jl_analysis *an, const struct prober *k,
			char *name, size_t len)
{
	const char *unit = eng->units[k->unit].spec->name;
	char what[16];

	snprintf(what, sizeof(what), "%s", k->name);
	if (!what[0] && jl_analysis_comm(an, k->pid))
		snprintf(what, sizeof(what), "%s", jl_analysis_comm(an, k->pid));
	jl_analysis_clean_name(what); /* a comm may hold anything: a series name must not */
	if (!what[0])
		snprintf(what, sizeof(what), "%d", (int)k->pid);
	snprintf(name, len, "%.40s.%s", unit, what);
	for (int i = 0; i < eng->nseries; i++)
		if (!strcmp(eng->series[i].name, name)) {
			snprintf(name, len, "%.40s.%.12s.%d", unit, what, (int)k->pid);
			return;
		}
}

/* One engine series per series found (a name record alone makes none). */
static int add_series(struct probe_pass *pp, struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen)
{
	for (size_t k = 0; k < pp->npr; k++) {
		struct prober *p = &pp->pr[k];
		const struct jl_thread_spec *spec = eng->units[p->unit].spec;
		char name[JL_SERIES_NAME_MAX];
		struct jl_series *s;

		if (!p->nwake)
			continue;
		series_name(eng, an, p, name, sizeof(name));
		s = jl_engine_add_found_series(eng, p->unit, name, p->nwake + 1, err, errlen);
		if (!s)
			return -1;
		p->si = (int)(s - eng->series);
		/* requests: each has its own release (the client's send), no grid and no period to estimate */
		p->period = p->named ? 0 : probe_period(spec, an, pp->kof, (long)k);
		s->kind = "probe";
		s->tid = p->pid;
		s->any_thread = p->named;
		s->measured = true;
		s->periodic = p->period > 0;
		s->period_ns = p->period;
		s->deadline_ns = spec->beh.deadline_ns ? spec->beh.deadline_ns : p->period;
	}
	return 0;
}

/* A wake of series KEY opens on its writer W. */
static void open_wake(struct probe_pass *pp, struct jl_engine *eng, struct writer *w, long key,
		      const struct jl_analysis_probe *p)
{
	struct prober *k = &pp->pr[key];
	struct jl_series *ks = &eng->series[k->si];

	/* a loop's wake over its own open wake: the earlier one lost its end, it is not a cycle (only a
	 * named wake nests: a request's call inside it; an end never closes a wake that lost its own) */
	if (!k->named && w->nopen && !pp->pr[w->open[w->nopen - 1].key].named) {
		pp->pr[w->open[w->nopen - 1].key].unpaired++;
		w->nopen--;
	}
	if (w->nopen == OPEN_MAX) { /* wakes that never end: the oldest is not a cycle */
		pp->pr[w->open[0].key].unpaired++;
		memmove(&w->open[0], &w->open[1], (OPEN_MAX - 1) * sizeof(w->open[0]));
		w->nopen--;
	}
	w->open[w->nopen].key = (size_t)key;
	w->open[w->nopen].wake = p->ts;
	w->open[w->nopen].release = p->release ? p->release : p->ts;
	w->nopen++;
	k->named_release |= p->release != 0;
	/* a release more than 10 s from its wake is not CLOCK_MONOTONIC ns (us? the wall clock?) */
	k->far += p->release && (p->release - p->ts > 10 * JL_NSEC_PER_SEC || p->ts - p->release > 10 * JL_NSEC_PER_SEC);
	if (!ks->first_release)
		ks->first_release = p->release ? p->release : p->ts;
}

/* An end record P closes W's latest open wake: one cycle of that wake's series. */
static void close_wake(struct probe_pass *pp, struct jl_engine *eng, struct writer *w, const struct jl_analysis_probe *p)
{
	struct prober *k;
	struct jl_series *ks;
	int64_t release, wake, on_grid;
	uint64_t c;

	if (!w->nopen) {
		for (size_t j = 0; j < pp->npr; j++) /* an end with no wake: the thread's own series counts it */
			if (!pp->pr[j].named && pp->pr[j].pid == p->pid && pp->pr[j].si >= 0)
				pp->pr[j].unpaired++;
		return;
	}
	k = &pp->pr[w->open[--w->nopen].key];
	ks = &eng->series[k->si];
	release = w->open[w->nopen].release;
	wake = w->open[w->nopen].wake;
	/* the cycle index counts releases on the grid from the first, so skipped ones show */
	on_grid = k->period > 0 ? (release - ks->first_release + k->period / 2) / k->period : (int64_t)k->cycle;
	c = on_grid > 0 ? (uint64_t)on_grid : 0;
	if (c < k->cycle || k->named)
		c = k->cycle; /* never backwards; a named series' requests are counted, not gridded */
	jl_series_append(ks, &(struct jl_sample){ .release = release, .wake = wake, .end = p->ts, .origin = release,
						     .tid = p->pid, .cycle = c, .skipped = (uint32_t)(c - k->cycle),
						     .cpu = p->cpu });
	jl_series_count_work(ks, p->ts - wake);
	k->cycle = c + 1;
}

/* One pass: each thread's wakes open, its ends close the latest open one, into that wake's series. */
static void pair_records(struct probe_pass *pp, struct jl_engine *eng, const struct jl_analysis *an)
{
	for (size_t i = 0; i < pp->nwr; i++)
		pp->wr[i].nopen = 0;
	for (size_t i = 0; i < an->nprobes; i++) {
		const struct jl_analysis_probe *p = &an->probes[i];
		struct writer *w;

		if (pp->kof[i] < 0 && p->kind != JL_PROBE_END)
			continue;
		if (unit_of(eng, an, p->pid) < 0 || !(w = writer_of(&pp->wr, &pp->nwr, p->pid)))
			continue;
		if (p->kind == JL_PROBE_WAKE)
			open_wake(pp, eng, w, pp->kof[i], p);
		else if (p->kind == JL_PROBE_END)
			close_wake(pp, eng, w, p);
	}
}

/* Wakes still open at the run's end were cut off by it: not cycles, and nothing to warn about. What the
 * series are (periodic or not), and the warnings of records without their pair or far from their wake. */
static void finish_series(const struct probe_pass *pp, struct jl_engine *eng)
{
	for (size_t k = 0; k < pp->npr; k++) {
		const struct prober *p = &pp->pr[k];
		struct jl_series *s;

		if (p->si < 0)
			continue;
		s = &eng->series[p->si];
		s->next_release = jl_series_count(s) ? jl_series_at(s, jl_series_count(s) - 1)->release + p->period : 0;
		if (!p->named_release && !eng->units[p->unit].spec->beh.period_ns)
			s->periodic = false; /* no release was named: ready = wake, not a grid (it would invent skips) */
		if (p->named)
			s->periodic = false; /* requests: each its own release, no grid */
		if (p->unpaired)
			fprintf(stderr, "jitterlab: warning: probe %s: %llu wake or end records without their pair "
				"(not cycles)\n", s->name, (unsigned long long)p->unpaired);
		if (p->far)
			fprintf(stderr, "jitterlab: warning: probe %s: %llu releases more than 10 s from their wake: "
				"jl_probe_wake takes CLOCK_MONOTONIC ns\n", s->name, (unsigned long long)p->far);
	}
}

int jl_trace_probe_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen)
{
	struct probe_pass pp = { .kof = calloc(an->nprobes ? an->nprobes : 1, sizeof(long)) };
	int rc = -1;

	if (!pp.kof || find_series(&pp, eng, an) < 0)
		goto oom;
	if (add_series(&pp, eng, an, err, errlen) < 0)
		goto out;
	pair_records(&pp, eng, an);
	finish_series(&pp, eng);
	if (requests_wasted(eng, pp.pr, pp.npr) < 0)
		goto oom;
	rc = 0;
	goto out;
oom:
	snprintf(err, errlen, "probe: out of memory");
out:
	free(pp.pr);
	free(pp.wr);
	free(pp.kof);
	return rc;
}
