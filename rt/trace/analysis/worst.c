/* worst: matching samples to wakeups, and the worst cycles (by wakeup latency, plus every miss
 * explained in its response window: window.c) over a finished analysis (feed.c builds it).
 * Pure, except for the matching marks and the untraced switch-in refinement it writes into the pairs. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/series.h"
#include "analysis.h"
#include "decompose.h"
#include "prune.h"
#include "worst.h"

/* First pair of T whose waking is at or after TS. */
static size_t pair_from(const struct jl_analysis_thread *t, int64_t ts)
{
	size_t lo = 0, hi = t->npairs;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->pairs[mid].waking < ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Entries that share a thread with an earlier one (two series written by one thread) get a copy of its
 * wakeup pairs and states: the events went to the first entry with the pid (jl_analysis_thread_of). */
static int share_thread_events(struct jl_analysis *an)
{
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_analysis_thread *t = &an->threads[ti];
		const struct jl_analysis_thread *o = &an->threads[t->owner];

		if (t->owner == ti || t->pairs || t->states || (!o->npairs && !o->nstates))
			continue;
		t->pairs = malloc((o->npairs ? o->npairs : 1) * sizeof(*t->pairs));
		t->states = malloc((o->nstates ? o->nstates : 1) * sizeof(*t->states));
		if (!t->pairs || !t->states) {
			errno = ENOMEM;
			return -1;
		}
		memcpy(t->pairs, o->pairs, o->npairs * sizeof(*t->pairs));
		memcpy(t->states, o->states, o->nstates * sizeof(*t->states));
		t->npairs = t->cap = o->npairs;
		t->nstates = t->capstates = o->nstates;
		t->switch_in = o->switch_in;
		t->switch_out = o->switch_out;
		t->wakings = o->wakings;
		t->implicit_in = o->implicit_in;
	}
	return 0;
}

int jl_analysis_match(struct jl_analysis *an, int64_t from)
{
	if (share_thread_events(an))
		return -1;
	for (int ti = 0; ti < an->nthreads; ti++) {
		struct jl_analysis_thread *t = &an->threads[ti];

		t->matched = t->measured_samples = 0;
		if (!t->measured || !t->samples)
			continue;
		free(t->sample_pair);
		t->sample_pair = malloc((t->nsamples ? t->nsamples : 1) * sizeof(*t->sample_pair));
		if (!t->sample_pair) {
			errno = ENOMEM;
			return -1;
		}
		for (size_t i = 0; i < t->npairs; i++)
			t->pairs[i].matched = false;
		for (size_t i = 0; i < t->nsamples; i++) {
			const struct jl_analysis_sample *s = &t->samples[i];
			size_t pi;

			t->sample_pair[i] = -1;
			if (s->release < from)
				continue;
			t->measured_samples++;
			/* the wakeup of this release: the first at or after it (its timer fires no earlier), and
			 * before the thread's own wake time; the trace clock may read a little behind */
			pi = pair_from(t, s->release - JL_ANALYSIS_CLOCK_SLACK_NS);
			if (pi >= t->npairs || t->pairs[pi].waking > s->wake + JL_ANALYSIS_CLOCK_SLACK_NS)
				continue;
			if (t->pairs[pi].implicit && s->wake < t->pairs[pi].switch_in) /* refine the bound */
				t->pairs[pi].switch_in = s->wake > t->pairs[pi].waking ? s->wake : t->pairs[pi].waking;
			t->pairs[pi].matched = true;
			t->sample_pair[i] = (long)pi;
			t->matched++;
		}
	}
	return 0;
}

struct cand {
	int thread;
	long pair;
	size_t sample;
	int64_t latency, release, wake;
	uint64_t cycle;
};

static void keep_worst(struct cand *w, int n, int *nw, const struct cand *c)
{
	int i;

	if (n <= 0)
		return;
	if (*nw == n && w[n - 1].latency >= c->latency)
		return;
	i = *nw < n ? (*nw)++ : n - 1;
	while (i > 0 && w[i - 1].latency < c->latency) {
		w[i] = w[i - 1];
		i--;
	}
	w[i] = *c;
}

/* Make sure the worst cycle of every measured thread is in W (replacing the least bad ones of threads that
 * already have one), so that a loop is never hidden behind a neighbour that always overruns. */
static void keep_each_thread(struct cand *w, int n, int *nw, const struct cand *best, int nthreads)
{
	for (int ti = 0; ti < nthreads; ti++) {
		bool present = false;
		int victim = -1;

		if (best[ti].thread < 0)
			continue;
		for (int i = 0; i < *nw; i++)
			present |= w[i].thread == ti;
		if (present)
			continue;
		if (*nw < n) {
			w[(*nw)++] = best[ti];
		} else {
			for (int i = n - 1; i >= 0 && victim < 0; i--) { /* least bad of a thread seen twice */
				int count = 0;

				for (int j = 0; j < *nw; j++)
					count += w[j].thread == w[i].thread;
				if (count > 1)
					victim = i;
			}
			if (victim < 0)
				continue;
			w[victim] = best[ti];
		}
		/* keep W worst first: the replaced entry may sit anywhere */
		for (int i = 1; i < *nw; i++)
			for (int j = i; j > 0 && w[j].latency > w[j - 1].latency; j--) {
				struct cand tmp = w[j];

				w[j] = w[j - 1];
				w[j - 1] = tmp;
			}
	}
}

/* Wakeup I of thread TI, which has no samples (a trace-only series, a bare trace's task), as a candidate:
 * from the requested expiry of the timer it slept on where the trace shows one (jl_analysis_release), else
 * from its waking. */
static struct cand pair_cand(const struct jl_analysis *an, int ti, size_t i)
{
	const struct jl_pair *p = &an->threads[ti].pairs[i];
	int why;
	int64_t r = jl_analysis_release(an, p, &why);

	return (struct cand){ ti, (long)i, 0, p->switch_in - (r > 0 ? r : p->waking), r, 0, i };
}

/* Candidate C's wakeup window, decomposed into OUT. */
static void decompose_wakeup(const struct jl_analysis *an, const struct cand *c, struct jl_cycle *out)
{
	const struct jl_analysis_thread *t = &an->threads[c->thread];

	memset(out, 0, sizeof(*out));
	if (t->executor)
		jl_analysis_decompose_callback(an, c->thread, c->sample, c->pair >= 0 ? &t->pairs[c->pair] : NULL, out);
	else
		jl_analysis_decompose_cycle(an, c->thread, &t->pairs[c->pair], c->release, c->wake, out);
	out->thread = c->thread;
	out->cycle = c->cycle;
	out->release_by = t->samples ? JL_RELEASE_OWN : c->release > 0 ? JL_RELEASE_TIMER : JL_RELEASE_WAKING;
	if (t->samples) {
		out->end = t->samples[c->sample].end;
		out->miss = t->samples[c->sample].miss;
	}
}

/* What jl_analysis_worst picks as it goes: the N worst wakeups W, the N_MISSES longest missed responses M, and
 * per thread its worst of each (BEST, BEST_MISS); MISSES counts every miss. */
struct picks {
	struct cand *w, *m, *best, *best_miss;
	int n, nw, n_misses, nm;
	size_t misses;
};

/* Thread TI's cycles with a release (or, without samples, a waking) at or after FROM into P. */
static void pick_thread(struct jl_analysis *an, int ti, int64_t from, struct picks *p)
{
	struct jl_analysis_thread *t = &an->threads[ti];
	int one = 0, one_miss = 0;

	p->best[ti].thread = p->best_miss[ti].thread = -1;
	if (!t->measured || t->pool) /* a pool thread's wakeups explain its callbacks' starts */
		return;
	for (size_t i = 0; !t->samples && i < t->npairs; i++) {
		struct cand c = pair_cand(an, ti, i);

		if (t->pairs[i].waking < from)
			continue;
		keep_worst(p->w, p->n, &p->nw, &c);
		keep_worst(&p->best[ti], 1, &one, &c);
	}
	for (size_t i = 0; t->samples && i < t->nsamples; i++) {
		const struct jl_analysis_sample *s = &t->samples[i];
		long pi = t->sample_pair[i];
		struct cand c = { ti, pi, i, s->wake - s->release, s->release, s->wake, s->cycle };
		/* a pruned analysis explains only the cycles whose whole window it kept */
		bool whole = jl_analysis_prune_sample_kept(an, ti, i);

		if (s->release < from)
			continue;
		if (s->miss && s->end > s->wake) {
			struct cand mc = c;

			p->misses++;
			mc.latency = s->end - s->release; /* the worst responses first */
			if (whole) {
				keep_worst(p->m, p->n_misses, &p->nm, &mc);
				keep_worst(&p->best_miss[ti], 1, &one_miss, &mc);
			}
		}
		if (!whole || (pi < 0 && !t->executor))
			continue; /* a callback's start needs no wakeup of its own: its executor may have been busy */
		keep_worst(p->w, p->n, &p->nw, &c);
		keep_worst(&p->best[ti], 1, &one, &c);
	}
}

static void picks_free(struct picks *p)
{
	free(p->w);
	free(p->m);
	free(p->best);
	free(p->best_miss);
}

int jl_analysis_worst(struct jl_analysis *an, int64_t from, struct jl_cycle *out, int n, int n_misses, int *nout,
		 size_t *misses)
{
	size_t nt = an->nthreads > 0 ? (size_t)an->nthreads : 1;
	struct picks p = { .n = n, .n_misses = n_misses };

	*nout = 0;
	if (misses)
		*misses = 0;
	if (n <= 0 || jl_analysis_match(an, from) < 0)
		return n <= 0 ? 0 : -1;
	p.w = calloc((size_t)n, sizeof(*p.w));
	p.m = calloc(n_misses > 0 ? (size_t)n_misses : 1, sizeof(*p.m));
	p.best = calloc(nt, sizeof(*p.best));
	p.best_miss = calloc(nt, sizeof(*p.best_miss));
	if (!p.w || !p.m || !p.best || !p.best_miss) {
		picks_free(&p);
		return -1;
	}
	for (int ti = 0; ti < an->nthreads; ti++)
		pick_thread(an, ti, from, &p);
	keep_each_thread(p.w, n, &p.nw, p.best, an->nthreads);
	/* and each loop's longest missed response: a real-time loop's one miss is not hidden behind a CFS
	 * neighbour's many longer ones */
	keep_each_thread(p.m, n_misses, &p.nm, p.best_miss, an->nthreads);
	for (int i = 0; i < p.nw; i++)
		decompose_wakeup(an, &p.w[i], &out[i]);
	for (int i = 0; i < p.nm; i++) {
		memset(&out[p.nw + i], 0, sizeof(out[p.nw + i]));
		jl_analysis_decompose_response(an, p.m[i].thread, p.m[i].sample, &out[p.nw + i]);
	}
	*nout = p.nw + p.nm;
	if (misses)
		*misses = p.misses;
	picks_free(&p);
	return 0;
}

int jl_analysis_cycle(const struct jl_analysis *an, int ti, uint64_t cycle, struct jl_cycle *out)
{
	const struct jl_analysis_thread *t = &an->threads[ti];

	if (!t->measured || t->pool)
		return JL_CYCLE_NONE;
	if (!t->samples) { /* a bare trace's task: its Nth wakeup */
		struct cand c;

		if (cycle >= t->npairs)
			return JL_CYCLE_NONE;
		c = pair_cand(an, ti, (size_t)cycle);
		decompose_wakeup(an, &c, out);
		return 0;
	}
	for (size_t i = 0; i < t->nsamples; i++) {
		const struct jl_analysis_sample *s = &t->samples[i];
		long pi = t->sample_pair ? t->sample_pair[i] : -1;
		struct cand c = { ti, pi, i, s->wake - s->release, s->release, s->wake, s->cycle };

		if (s->cycle != cycle)
			continue;
		if (!jl_analysis_prune_sample_kept(an, ti, i))
			return JL_CYCLE_NOT_KEPT;
		if (s->miss && s->end > s->wake) { /* a missed deadline: over its response window */
			memset(out, 0, sizeof(*out));
			jl_analysis_decompose_response(an, ti, i, out);
			return 0;
		}
		if (pi < 0 && !t->executor)
			return JL_CYCLE_UNMATCHED;
		decompose_wakeup(an, &c, out);
		return 0;
	}
	return JL_CYCLE_NONE;
}

int64_t *jl_analysis_wakeups(const struct jl_analysis *an, int ti, int64_t from, size_t *n)
{
	const struct jl_analysis_thread *t = &an->threads[ti];
	int64_t *v = malloc((t->npairs ? t->npairs : 1) * sizeof(*v));

	*n = 0;
	if (!v)
		return NULL;
	for (size_t i = 0; i < t->npairs; i++)
		if (t->pairs[i].waking >= from && (!t->samples || t->pairs[i].matched) && !t->pairs[i].caught_running)
			v[(*n)++] = t->pairs[i].switch_in - t->pairs[i].waking; /* a caught one was never switched */
	return v;
}
