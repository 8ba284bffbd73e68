/* prune: the analysis of a long run's trace in flat memory (analysis.h, jl_analysis_prune).
 *
 * A run whose loops keep only some cycles (rings: the worst, the first misses, the last ones) can only
 * ever explain or match those. Their windows are known before the first event, so the analysis keeps
 * states, pairs and timeline segments only where a window needs them, and counts the rest as it goes:
 * - a kept sample's wakeup window [release - slack, wake + slack]: where its pair is (jl_analysis_match);
 * - a candidate's whole window (each entry's JL_ANALYSIS_PRUNE_WORST worst by latency and JL_ANALYSIS_PRUNE_MISSES
 *   longest missed deadlines): from well before the release (the RT budget's shapes look back: at least
 *   twice the throttled share or the fair server's runtime, plus 10 ms) to 2 ms after the end.
 * Pairs outside every window are dropped when they are made (their latency goes to a histogram first).
 * States and segments are dropped a second of trace time behind the events (JL_ANALYSIS_PRUNE_LAG_NS), once
 * every CPU's timeline is closed up to them: the off-CPU totals of [from, to) step each state first,
 * with the segments it was preempted behind still there. So what a pruned analysis reports equals what
 * the whole analysis reports, except the wakeup figures: every wakeup, not only those matched to a kept
 * cycle (the others are not known), with the histogram's percentile bound. Pure: no I/O. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/spill.h"
#include "../../base/stats.h"
#include "../../base/stream.h"
#include "analysis.h"
#include "analysis_int.h"
#include "offcpu.h"
#include "prune.h"
#include "tail.h"
#include "worst.h"

/* The pairs of an entry no window keeps yet (a live analysis): [head, n) in the order they were made,
 * those switched in before FROM dropped (older than the entry's last kept cycles). */
struct jl_analysis_tail {
	struct jl_pair *p;
	size_t head, n, cap;
	int64_t from;
};

/* A live analysis' match of every cycle to its wakeup, as the cycles (jl_analysis_prune_cycles) and the
 * entry's pairs come: jl_analysis_match's rule (the first wakeup at or after the release, less the clock
 * slack, if not after the thread's wake plus the slack), and jl_analysis_wakeups' figures (each matched
 * pair once, with waking >= from, an implicit switch-in bounded by the wake), over a FIFO of the entry's
 * recent pairs that every resolved cycle trims: flat in the run's duration. */
struct jl_analysis_matcher {
	struct jl_analysis_sample *cyc; /* cycles not resolved yet: [ch, cn) */
	size_t ch, cn, ccap;
	struct match_wakeup {
		int64_t waking, switch_in;
		bool implicit;
		struct jl_pair pair;    /* the whole pair: each cycle is explained as it is resolved (the tail) */
	} *pr;                      /* the pairs a cycle not resolved yet may match: [ph, pn) */
	size_t ph, pn, pcap;
	uint64_t pair_base;         /* pr[0]'s number among the entry's pairs */
	uint64_t last;              /* the number + 1 of the pair matched last (0: none) */
	int64_t seen;               /* the latest release given: no cycle comes before it */
	uint64_t measured, matched;
	bool failed;                /* a pair found no room: the counts would be wrong (the kept cycles' then) */
	struct jl_stream lat;       /* the matched pairs' latencies */
	struct jl_spill spill;      /* and every one of them (fd < 0: the histogram's percentiles) */
	struct jl_tail_acc *tail;   /* every cycle explained, by cause and latency bucket (tail.c) */
	int64_t prev_end;           /* the end of the cycle resolved last (0: none) */
};

struct jl_analysis_prune {
	int64_t from, to;
	int64_t (*win)[2];          /* merged, sorted [a, b) */
	size_t nwin;
	size_t pair_at;             /* win_after_hint's hint for the pairs */
	int64_t next;               /* trace time of the next compaction */
	struct jl_offcpu *oc;       /* per entry (owners): stepped states' totals */
	size_t *oc_done;            /* per entry: states stepped (the first ones of its array) */
	struct jl_stream *wk;       /* per entry: every wakeup in [from, to) */
	uint8_t **whole;            /* per entry, per sample: a candidate (its whole window kept) */
	int64_t back;               /* a candidate's window: from this before its release */
	size_t states, pairs, segs; /* forgotten */
	size_t capwin;
	/* a live analysis (jl_analysis_prune_live): windows come as the run goes; until it settles, the pairs no
	 * window keeps wait in a ring per entry (a loop's last cycles are kept, known only at the end) */
	bool live;
	struct jl_analysis_tail *tail;   /* per entry */
	int64_t compacted;          /* what compaction may have dropped lies before this */
	size_t *seg_checked;        /* per CPU: its first segments, kept at the last compaction */
	int nseg_checked;
	/* a live analysis' candidates now (each loop's worst and longest misses so far): their whole windows,
	 * sorted by start, with the largest end so far beside each; a candidate another displaced leaves */
	int64_t (*cand)[3];
	size_t ncand, capcand;
	bool recheck;               /* the candidates changed: what they kept is looked at again */
	struct jl_analysis_matcher *match; /* per entry, a live analysis given the cycles; NULL: none */
};

static int cmp_win(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

struct rank {
	int64_t v;
	size_t i;
};

static int cmp_rank(const void *a, const void *b)
{
	const struct rank *x = a, *y = b;

	if (x->v != y->v)
		return x->v < y->v ? 1 : -1;
	return (x->i > y->i) - (x->i < y->i);
}

/* Mark the K samples of T with the largest V (latency, or response of a miss) as candidates. */
static void mark_top(const struct jl_analysis_thread *t, int64_t from, bool misses, int k, uint8_t *whole,
		     struct rank *r)
{
	size_t n = 0;

	for (size_t i = 0; i < t->nsamples; i++) {
		const struct jl_analysis_sample *s = &t->samples[i];

		if (s->release < from || (misses && !(s->miss && s->end > s->wake)))
			continue;
		r[n].v = misses ? s->end - s->release : s->wake - s->release;
		r[n++].i = i;
	}
	qsort(r, n, sizeof(*r), cmp_rank);
	for (size_t i = 0; i < n && i < (size_t)k; i++)
		whole[r[i].i] = 1;
}

int64_t jl_analysis_prune_lookback_ns(const struct jl_analysis_budget *bw)
{
	int64_t throttled = bw->rt_runtime_ns >= 0 ? bw->rt_period_ns - bw->rt_runtime_ns : 0;
	int64_t fair = bw->fair_server ? bw->fair_runtime_ns : 0, shape = throttled > fair ? throttled : fair;
	int64_t back = 2 * shape + 10000000LL;

	return back < JL_ANALYSIS_PRUNE_BACK_MIN ? JL_ANALYSIS_PRUNE_BACK_MIN : back;
}

void jl_analysis_prune_cover(struct jl_analysis *an, bool (*covered)(const void *ctx, int64_t a, int64_t b), const void *ctx)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p)
		return;
	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *t = &an->threads[i];

		if (!p->whole[i])
			continue;
		for (size_t k = 0; k < t->nsamples; k++) {
			const struct jl_analysis_sample *s = &t->samples[k];
			int64_t last = s->end > s->wake ? s->end : s->wake;

			if (p->whole[i][k] && !covered(ctx, s->release - p->back, last + 2000000LL))
				p->whole[i][k] = 0;
		}
	}
}

/* Add N windows W (any order) to P's merged, sorted ones. 0 or -1. */
static int win_add(struct jl_analysis_prune *p, const int64_t (*w)[2], size_t n)
{
	size_t m = 0;

	if (!n)
		return 0;
	if (p->nwin + n > p->capwin) {
		size_t cap = (p->nwin + n) * 2;
		int64_t (*g)[2] = realloc(p->win, cap * sizeof(*g));

		if (!g)
			return -1;
		p->win = g;
		p->capwin = cap;
	}
	memcpy(p->win + p->nwin, w, n * sizeof(*w));
	n += p->nwin;
	qsort(p->win, n, sizeof(*p->win), cmp_win);
	for (size_t k = 0; k < n; k++) { /* merge */
		if (m && p->win[k][0] <= p->win[m - 1][1]) {
			if (p->win[k][1] > p->win[m - 1][1])
				p->win[m - 1][1] = p->win[k][1];
		} else {
			p->win[m][0] = p->win[k][0];
			p->win[m][1] = p->win[k][1];
			m++;
		}
	}
	p->nwin = m;
	return 0;
}

/* The first of P's windows that ends after A (nwin: none). */
static size_t win_after(const struct jl_analysis_prune *p, int64_t a)
{
	size_t lo = 0, hi = p->nwin;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (p->win[mid][1] <= a)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Whether what [A, B) needs is still there: everything after the last compaction's horizon is, and before
 * it only what a window held all along (the windows of a live analysis came before their events). */
static bool intact(const struct jl_analysis_prune *p, int64_t a, int64_t b)
{
	size_t lo;

	if (a >= p->compacted)
		return true;
	if (b > p->compacted)
		b = p->compacted;
	for (size_t k = 0; k < p->ncand; k++) /* a candidate all along: its window never went */
		if (p->cand[k][0] <= a && p->cand[k][1] >= b)
			return true;
	lo = win_after(p, a);
	return lo < p->nwin && p->win[lo][0] <= a && p->win[lo][1] >= b;
}

/* The windows of every measured entry's samples (a candidate's whole one, another's wakeup window), and
 * which samples are candidates. 0 or -1. */
static int sample_windows(struct jl_analysis *an, struct jl_analysis_prune *p, bool settle)
{
	size_t total = 0, maxs = 0, nwin = 0;
	int64_t (*w)[2];
	struct rank *r;
	int rc = -1;

	for (int i = 0; i < an->nthreads; i++) {
		total += an->threads[i].measured ? an->threads[i].nsamples : 0;
		maxs = an->threads[i].nsamples > maxs ? an->threads[i].nsamples : maxs;
	}
	w = malloc((total ? total : 1) * sizeof(*w));
	r = malloc((maxs ? maxs : 1) * sizeof(*r));
	if (!w || !r)
		goto out;
	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *t = &an->threads[i];

		if (!t->measured)
			continue;
		free(p->whole[i]);
		p->whole[i] = calloc(t->nsamples ? t->nsamples : 1, 1);
		if (!p->whole[i])
			goto out;
		mark_top(t, p->from, false, JL_ANALYSIS_PRUNE_WORST, p->whole[i], r);
		mark_top(t, p->from, true, JL_ANALYSIS_PRUNE_MISSES, p->whole[i], r);
		for (size_t k = 0; k < t->nsamples; k++) {
			const struct jl_analysis_sample *x = &t->samples[k];

			if (x->release < p->from)
				continue;
			if (settle && p->whole[i][k]) { /* a candidate only now: explained if its window is whole */
				jl_analysis_prune_window(x, true, p->back, w[nwin]);
				if (!intact(p, w[nwin][0], w[nwin][1]))
					p->whole[i][k] = 0;
			}
			jl_analysis_prune_window(x, p->whole[i][k], p->back, w[nwin++]);
		}
	}
	rc = win_add(p, (const int64_t (*)[2])w, nwin);
out:
	free(w);
	free(r);
	return rc;
}

void jl_analysis_prune_window(const struct jl_analysis_sample *x, bool whole, int64_t back, int64_t w[2])
{
	int64_t last = x->end > x->wake ? x->end : x->wake;

	if (whole) {
		w[0] = x->release - back;
		w[1] = last + 2000000LL;
	} else {
		w[0] = x->release - JL_ANALYSIS_CLOCK_SLACK_NS;
		w[1] = x->wake + JL_ANALYSIS_CLOCK_SLACK_NS + 1;
	}
}

/* Whether every measured entry keeps only some cycles (SAMPLES: and has them already). */
static bool prunable(const struct jl_analysis *an, bool samples)
{
	bool any = false;

	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *t = &an->threads[i];

		if (!t->measured)
			continue;
		if ((samples && !t->samples) || !t->partial || t->pool || t->executor)
			return false; /* an entry that needs every wakeup or every cycle: the whole analysis */
		any = true;
	}
	return any;
}

static const struct jl_analysis_prune_ops prune_ops = {
	.pair = jl_analysis_prune_pair, .compact = jl_analysis_compact, .free = jl_analysis_prune_free,
	.offcpu = jl_analysis_prune_offcpu,
};

static int prune_new(struct jl_analysis *an, int64_t from, int64_t to)
{
	struct jl_analysis_prune *p = calloc(1, sizeof(*p));

	if (!p)
		return -1;
	an->prune = p;
	an->prune_ops = &prune_ops;
	p->from = from;
	p->back = jl_analysis_prune_lookback_ns(&an->budget);
	p->to = to > 0 ? to : INT64_MAX; /* 0: to the trace's end (jl_analysis_offcpu then names it) */
	p->next = INT64_MIN;
	p->compacted = INT64_MIN;
	p->seg_checked = calloc((size_t)an->ncpus, sizeof(*p->seg_checked));
	p->nseg_checked = an->ncpus;
	p->oc = calloc((size_t)an->nthreads, sizeof(*p->oc));
	p->oc_done = calloc((size_t)an->nthreads, sizeof(*p->oc_done));
	p->wk = calloc((size_t)an->nthreads, sizeof(*p->wk));
	p->whole = calloc((size_t)an->nthreads, sizeof(*p->whole));
	if (!p->oc || !p->oc_done || !p->wk || !p->whole || !p->seg_checked)
		return -1;
	for (int i = 0; i < an->nthreads; i++) {
		jl_offcpu_init(&p->oc[i], from, p->to);
		if (an->threads[i].measured && jl_stream_init(&p->wk[i], 1, true) < 0)
			return -1;
	}
	return 0;
}

int jl_analysis_prune(struct jl_analysis *an, int64_t from, int64_t to)
{
	if (!prunable(an, true))
		return 0;
	if (prune_new(an, from, to) < 0 || sample_windows(an, an->prune, false) < 0) {
		jl_analysis_prune_free(an);
		errno = ENOMEM;
		return -1;
	}
	return 1;
}

int jl_analysis_prune_live(struct jl_analysis *an, int64_t from)
{
	struct jl_analysis_prune *p;

	if (!prunable(an, false))
		return 0;
	if (prune_new(an, from, 0) < 0)
		goto fail;
	p = an->prune;
	p->live = true;
	p->tail = calloc((size_t)an->nthreads, sizeof(*p->tail));
	if (!p->tail)
		goto fail;
	for (int i = 0; i < an->nthreads; i++)
		p->tail[i].from = INT64_MIN;
	return 1;
fail:
	jl_analysis_prune_free(an);
	errno = ENOMEM;
	return -1;
}

int jl_analysis_prune_add(struct jl_analysis *an, const int64_t (*w)[2], size_t n)
{
	return an->prune ? win_add(an->prune, w, n) : 0;
}

static int cmp_cand(const void *a, const void *b)
{
	const int64_t *x = a, *y = b;

	return (x[0] > y[0]) - (x[0] < y[0]);
}

int jl_analysis_prune_candidates(struct jl_analysis *an, const int64_t (*w)[2], size_t n)
{
	struct jl_analysis_prune *p = an->prune;
	int64_t end = INT64_MIN;

	if (!p)
		return 0;
	if (n > p->capcand) {
		int64_t (*g)[3] = realloc(p->cand, n * sizeof(*g));

		if (!g)
			return -1;
		p->cand = g;
		p->capcand = n;
	}
	for (size_t k = 0; k < n; k++) {
		p->cand[k][0] = w[k][0];
		p->cand[k][1] = w[k][1];
	}
	qsort(p->cand, n, sizeof(*p->cand), cmp_cand);
	for (size_t k = 0; k < n; k++) {
		end = p->cand[k][1] > end ? p->cand[k][1] : end;
		p->cand[k][2] = end;
	}
	p->ncand = n;
	p->recheck = true;
	return 0;
}

void jl_analysis_prune_tail_from(struct jl_analysis *an, int ti, int64_t t)
{
	struct jl_analysis_prune *p = an->prune;

	if (p && p->tail && ti >= 0 && ti < an->nthreads && t > p->tail[ti].from)
		p->tail[ti].from = t;
}


static int cmp_pair_in(const void *a, const void *b)
{
	const struct jl_pair *x = a, *y = b;

	if (x->switch_in != y->switch_in)
		return x->switch_in < y->switch_in ? -1 : 1;
	return (x->waking > y->waking) - (x->waking < y->waking);
}

int jl_analysis_prune_settle(struct jl_analysis *an, int64_t to)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p || !p->live)
		return 0;
	p->to = to > 0 ? to : INT64_MAX;
	for (int i = 0; i < an->nthreads; i++)
		p->oc[i].to = p->to;
	if (sample_windows(an, p, true) < 0)
		return -1;
	/* the pairs that waited in the rings: those the final windows keep join the entry's (in the order the
	 * analysis made them: by switch-in), the others are forgotten */
	for (int i = 0; i < an->nthreads; i++) {
		struct jl_analysis_thread *t = &an->threads[i];
		struct jl_analysis_tail *q = &p->tail[i];
		size_t add = 0;

		for (size_t k = q->head; k < q->n; k++) {
			const struct jl_pair *x = &q->p[k];

			if (!jl_analysis_prune_window_kept(an, x->waking, x->switch_in + 1)) {
				p->pairs++;
				t->pairs_forgotten++;
				continue;
			}
			if (jl_analysis_append_pair(t, x) < 0)
				return -1;
			add++;
		}
		if (add)
			qsort(t->pairs, t->npairs, sizeof(*t->pairs), cmp_pair_in);
		free(q->p);
		memset(q, 0, sizeof(*q));
	}
	p->live = false;
	return 0;
}

void jl_analysis_prune_free(struct jl_analysis *an)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p)
		return;
	for (int i = 0; i < an->nthreads; i++) {
		if (p->wk)
			jl_stream_free(&p->wk[i]);
		if (p->whole)
			free(p->whole[i]);
	}
	for (int i = 0; p->tail && i < an->nthreads; i++)
		free(p->tail[i].p);
	for (int i = 0; p->match && i < an->nthreads; i++) {
		free(p->match[i].cyc);
		free(p->match[i].pr);
		jl_stream_free(&p->match[i].lat);
		jl_spill_close(&p->match[i].spill);
		jl_tail_free(p->match[i].tail);
	}
	free(p->match);
	free(p->tail);
	free(p->seg_checked);
	free(p->cand);
	free(p->oc);
	free(p->oc_done);
	free(p->wk);
	free(p->whole);
	free(p->win);
	free(p);
	an->prune = NULL;
	an->prune_ops = NULL;
}

/* Whether a candidate's window holds some of [A, B): among those starting before B, the largest end. */
static bool cand_keeps(const struct jl_analysis_prune *p, int64_t a, int64_t b)
{
	size_t lo = 0, hi = p->ncand;

	while (lo < hi) { /* the first candidate starting at or after B */
		size_t mid = (lo + hi) / 2;

		if (p->cand[mid][0] < b)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo > 0 && p->cand[lo - 1][2] > a;
}

/* win_after(P, A) from the hint *AT (its last answer): the spans asked about mostly come in time order,
 * so the answer is a step or two on; the hint is taken only while the window before it ends at or before
 * A (the windows' ends are in order), else, or after 8 steps, a binary search. */
static size_t win_after_hint(const struct jl_analysis_prune *p, size_t *at, int64_t a)
{
	size_t i = *at;

	if (i > p->nwin || (i > 0 && p->win[i - 1][1] > a)) {
		i = win_after(p, a);
	} else {
		for (int k = 0; i < p->nwin && p->win[i][1] <= a; i++)
			if (++k == 8) {
				i = win_after(p, a);
				break;
			}
	}
	return *at = i;
}

/* Whether a window, or a candidate's, holds some of [A, B); LO is win_after(P, A). */
static inline bool keeps_from(const struct jl_analysis_prune *p, size_t lo, int64_t a, int64_t b)
{
	return (lo < p->nwin && p->win[lo][0] < b) || (p->ncand && cand_keeps(p, a, b));
}

/* jl_analysis_prune_window_kept for spans asked mostly in time order: *AT is the search's hint (start it at 0). */
static bool keeps_next(const struct jl_analysis_prune *p, size_t *at, int64_t a, int64_t b)
{
	return keeps_from(p, win_after_hint(p, at, a), a, b);
}

bool jl_analysis_prune_window_kept(const struct jl_analysis *an, int64_t a, int64_t b)
{
	const struct jl_analysis_prune *p = an->prune;

	return !p || keeps_from(p, win_after(p, a), a, b);
}

bool jl_analysis_prune_sample_kept(const struct jl_analysis *an, int ti, size_t si)
{
	const struct jl_analysis_prune *p = an->prune;

	return !p || !p->whole[ti] || p->whole[ti][si];
}

/* ---- every cycle matched as it comes (a live analysis given the cycles) ---- */

static int grow(void *arr, size_t *cap, size_t size)
{
	size_t c = *cap ? *cap * 2 : 256;
	void *g = realloc(*(void **)arr, c * size);

	if (!g)
		return -1;
	*(void **)arr = g;
	*cap = c;
	return 0;
}

int jl_analysis_prune_match(struct jl_analysis *an, bool spill, int64_t tail_ns)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p || !p->live)
		return 0;
	for (int i = 0; i < an->nthreads; i++)
		if (an->threads[i].measured && an->threads[i].owner != i)
			return 0; /* two series of one thread: their cycles are matched at the end, kept ones only */
	p->match = calloc(an->nthreads > 0 ? (size_t)an->nthreads : 1, sizeof(*p->match));
	if (!p->match)
		return -1;
	for (int i = 0; i < an->nthreads; i++) /* no file yet: a failure below frees them all */
		p->match[i].spill.fd = -1;
	for (int i = 0; i < an->nthreads; i++) {
		struct jl_analysis_matcher *m = &p->match[i];

		m->seen = INT64_MIN;
		if (an->threads[i].measured && (jl_stream_init(&m->lat, 1, true) < 0 || (spill && jl_spill_open(&m->spill))))
			return -1;
		if (tail_ns >= 0 && an->threads[i].measured && an->threads[i].sampled && !an->threads[i].executor &&
		    !(m->tail = jl_tail_new(tail_ns)))
			return -1;
	}
	return 1;
}

int jl_analysis_prune_cycles(struct jl_analysis *an, int ti, const struct jl_analysis_sample *c, size_t n)
{
	struct jl_analysis_prune *p = an->prune;
	struct jl_analysis_matcher *m = p && p->match ? &p->match[ti] : NULL;

	for (size_t k = 0; m && k < n; k++) {
		if (m->cn == m->ccap) {
			if (m->ch > m->cn / 2) {
				memmove(m->cyc, m->cyc + m->ch, (m->cn - m->ch) * sizeof(*m->cyc));
				m->cn -= m->ch;
				m->ch = 0;
			} else if (grow(&m->cyc, &m->ccap, sizeof(*m->cyc)) < 0) {
				return -1;
			}
		}
		m->cyc[m->cn++] = c[k];
		if (c[k].release > m->seen)
			m->seen = c[k].release;
	}
	return 0;
}

static void match_pair(struct jl_analysis *an, int ti, const struct jl_pair *pr)
{
	struct jl_analysis_matcher *m = &an->prune->match[ti];

	if (m->pn == m->pcap) {
		if (m->ph > m->pn / 2) {
			memmove(m->pr, m->pr + m->ph, (m->pn - m->ph) * sizeof(*m->pr));
			m->pn -= m->ph;
			m->pair_base += m->ph;
			m->ph = 0;
		} else if (grow(&m->pr, &m->pcap, sizeof(*m->pr)) < 0) {
			m->failed = true;
			return;
		}
	}
	m->pr[m->pn++] = (struct match_wakeup){ .waking = pr->waking, .switch_in = pr->switch_in, .implicit = pr->implicit,
						.pair = *pr };
}

/* Resolve entry TI's cycles whose wakeup is surely known: woken (plus the slack) before UPTO, and no
 * waking of the entry still waits for its switch-in at or before it (its pair is made later). */
static void match_resolve(struct jl_analysis *an, int ti, int64_t upto)
{
	struct jl_analysis_prune *p = an->prune;
	struct jl_analysis_matcher *m = &p->match[ti];

	while (m->ch < m->cn) {
		const struct jl_analysis_sample *s = &m->cyc[m->ch];
		const int64_t rel = s->release, wake = s->wake;
		/* a miss is explained to its end (its response), a cycle to its wake */
		const int64_t last = m->tail && s->miss && s->end > wake ? s->end : wake;
		struct match_wakeup *x = NULL;

		if (last + JL_ANALYSIS_CLOCK_SLACK_NS >= upto ||
		    (upto != INT64_MAX && an->pending[ti] && an->pending[ti] <= wake + JL_ANALYSIS_CLOCK_SLACK_NS))
			break;
		m->ch++;
		if (rel < p->from) {
			m->prev_end = s->end;
			continue;
		}
		m->measured++;
		while (m->ph < m->pn && m->pr[m->ph].waking < rel - JL_ANALYSIS_CLOCK_SLACK_NS)
			m->ph++;
		if (m->ph < m->pn && m->pr[m->ph].waking <= wake + JL_ANALYSIS_CLOCK_SLACK_NS) {
			uint64_t num = m->pair_base + m->ph + 1;

			x = &m->pr[m->ph];
			if (x->implicit && wake < x->switch_in) /* jl_analysis_match's bound on an unseen switch-in */
				x->switch_in = x->pair.switch_in = wake > x->waking ? wake : x->waking;
			m->matched++;
			if (num != m->last && x->waking >= p->from) { /* a pair two cycles matched counts once */
				jl_stream_add(&m->lat, x->switch_in - x->waking, 0);
				if (m->spill.fd >= 0)
					jl_spill_add(&m->spill, x->switch_in - x->waking);
			}
			m->last = num;
		}
		/* explained now: every CPU's timeline is closed up to UPTO, and nothing from its release on is
		 * compacted while it waits (jl_analysis_compact) */
		jl_tail_add(m->tail, an, ti, s, x ? &x->pair : NULL, m->prev_end);
		m->prev_end = s->end;
	}
	/* no cycle to come can match a pair woken before the latest release given, less the slack */
	if (m->ch == m->cn)
		while (m->ph < m->pn && m->pr[m->ph].waking < m->seen - JL_ANALYSIS_CLOCK_SLACK_NS)
			m->ph++;
}

/* The earliest time a cycle not resolved yet may ask about (its release, less the look back of its
 * timer's parts): compaction keeps what comes after it. INT64_MAX: none waits. */
static int64_t match_floor(const struct jl_analysis *an)
{
	const struct jl_analysis_prune *p = an->prune;
	int64_t floor = INT64_MAX, back = p->back > JL_ANALYSIS_PRUNE_BACK_MIN ? p->back : JL_ANALYSIS_PRUNE_BACK_MIN;

	for (int ti = 0; p->match && ti < an->nthreads; ti++) {
		const struct jl_analysis_matcher *m = &p->match[ti];

		if (m->tail && m->ch < m->cn && m->cyc[m->ch].release - back < floor)
			floor = m->cyc[m->ch].release - back;
	}
	return floor;
}

bool jl_analysis_prune_matched(struct jl_analysis *an, int ti, size_t *measured, size_t *matched, struct jl_dist *d,
			       size_t *n)
{
	struct jl_analysis_prune *p = an->prune;
	struct jl_analysis_matcher *m;

	if (!p || !p->match || !an->threads[ti].measured || p->match[ti].failed)
		return false;
	m = &p->match[ti];
	match_resolve(an, ti, INT64_MAX);
	*measured = m->measured;
	*matched = m->matched;
	memset(d, 0, sizeof(*d));
	*n = (size_t)m->lat.m.n;
	if (*n) {
		jl_stream_dist(&m->lat, d);
		if (m->spill.fd >= 0 && !m->spill.err) /* else the histogram's (a write failed: /tmp full) */
			jl_spill_percentiles(&m->spill, d);
	}
	return true;
}

bool jl_analysis_prune_pair(struct jl_analysis *an, int ti, const struct jl_pair *pr)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p)
		return true;
	if (pr->waking >= p->from && pr->waking < p->to && an->threads[ti].measured && !pr->caught_running)
		jl_stream_add(&p->wk[ti], pr->switch_in - pr->waking, 0);
	if (p->match && an->threads[ti].measured)
		match_pair(an, ti, pr);
	if (keeps_next(p, &p->pair_at, pr->waking, pr->switch_in + 1))
		return true;
	if (p->live && p->tail) { /* maybe one of the loop's last cycles: known at the end */
		struct jl_analysis_tail *q = &p->tail[ti];

		while (q->head < q->n && q->p[q->head].switch_in < q->from) { /* older than its last cycles */
			q->head++;
			p->pairs++;
			an->threads[ti].pairs_forgotten++;
		}
		if (q->n == q->cap) {
			if (q->head > q->n / 2) { /* most of it left: move the rest down */
				memmove(q->p, q->p + q->head, (q->n - q->head) * sizeof(*q->p));
				q->n -= q->head;
				q->head = 0;
			} else {
				size_t cap = q->cap ? q->cap * 2 : 1024;
				struct jl_pair *g = realloc(q->p, cap * sizeof(*g));

				if (!g) { /* no room: forgotten */
					p->pairs++;
					an->threads[ti].pairs_forgotten++;
					return false;
				}
				q->p = g;
				q->cap = cap;
			}
		}
		q->p[q->n++] = *pr;
		return false;
	}
	p->pairs++;
	an->threads[ti].pairs_forgotten++;
	return false;
}

bool jl_analysis_prune_tail(struct jl_analysis *an, int ti, struct jl_tail *out)
{
	struct jl_analysis_prune *p = an->prune;

	if (!p || !p->match || !p->match[ti].tail)
		return false;
	if (p->match[ti].failed) {
		memset(out, 0, sizeof(*out));
		snprintf(out->why, sizeof(out->why), "out of memory: the live analysis found no room for a wakeup");
		return true;
	}
	match_resolve(an, ti, INT64_MAX);
	jl_tail_result(p->match[ti].tail, out);
	return true;
}

bool jl_analysis_prune_wakeups(const struct jl_analysis *an, int ti, struct jl_dist *d, size_t *n)
{
	const struct jl_analysis_prune *p = an->prune;
	int o;

	if (!p)
		return false;
	o = an->threads[ti].owner;
	memset(d, 0, sizeof(*d));
	*n = (size_t)p->wk[o].m.n;
	if (*n)
		jl_stream_dist(&p->wk[o], d);
	return true;
}

bool jl_analysis_prune_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to, struct jl_offcpu *o,
			 size_t *first)
{
	const struct jl_analysis_prune *p = an->prune;

	if (!p || p->from != from || (p->to != to && p->to != INT64_MAX))
		return false;
	*o = p->oc[ti];
	o->to = to; /* an open end: no state reached it, every span so far ended before it */
	*first = p->oc_done[ti];
	return true;
}

void jl_analysis_prune_counts(const struct jl_analysis *an, size_t *states, size_t *pairs, size_t *segs)
{
	const struct jl_analysis_prune *p = an->prune;

	*states = p ? p->states : 0;
	*pairs = p ? p->pairs : 0;
	*segs = p ? p->segs : 0;
}

/* Step entry TI's off-CPU totals over its states before CLOSED, then keep only the states not stepped
 * and those whose span [ts, next ts) overlaps a window. The ones stepped and kept at the last compaction
 * (the first oc_done) are not looked at again: windows only grow, they stay kept. */
static void compact_states(struct jl_analysis *an, int ti, int64_t closed)
{
	struct jl_analysis_prune *p = an->prune;
	struct jl_analysis_thread *t = &an->threads[ti];
	size_t k = p->oc_done[ti], done, j;

	while (k < t->nstates && t->states[k].ts < closed && !p->oc[ti].done)
		jl_offcpu_step(&p->oc[ti], an, t, &t->states[k++]);
	if (p->oc[ti].done) /* past the window's end: nothing more to step, only windows to keep */
		while (k < t->nstates && t->states[k].ts < closed)
			k++;
	/* stepped and kept at the last compaction: still kept, unless a candidate that kept them left */
	done = j = p->recheck ? 0 : p->oc_done[ti];
	for (size_t i = j, at = 0; i < t->nstates; i++) {
		int64_t end = i + 1 < t->nstates ? t->states[i + 1].ts : INT64_MAX;

		/* the state in effect at CLOSED stays too: a cycle resolved later asks where the thread was then (a
		 * loop that ran past its releases without a switch) */
		if (i >= k || end > closed ||
		    keeps_next(p, &at, t->states[i].ts, end > t->states[i].ts ? end : t->states[i].ts + 1)) {
			if (i < k)
				done++;
			t->states[j++] = t->states[i];
		} else {
			p->states++;
		}
	}
	t->nstates = j;
	p->oc_done[ti] = done;
}

/* A birth nobody will ask about again: its task lived wholly before CLOSED (*CTX), and neither its life nor
 * the 20 ms after it meets a kept window (a cycle's own wakeup is in its window; a pair that only ends in
 * one may have begun a little before: its waker's name is asked then) */
static bool birth_gone(const struct jl_analysis *an, const struct jl_analysis_birth *b, const void *ctx)
{
	const int64_t closed = *(const int64_t *)ctx, until = b->exited + JL_ANALYSIS_PRUNE_BACK_MIN;

	return b->exited && until < closed && !jl_analysis_prune_window_kept(an, b->born, until);
}

int jl_analysis_compact(struct jl_analysis *an, int64_t now)
{
	struct jl_analysis_prune *p = an->prune;
	int64_t closed;

	if (!p || now < p->next)
		return 0;
	p->next = now + JL_ANALYSIS_PRUNE_LAG_NS;
	/* the cycles woken before every CPU's timeline closed are resolved (each explained whole, for the
	 * tail), then what the rest may still ask about is kept */
	closed = jl_analysis_timeline_closed(an, now - JL_ANALYSIS_PRUNE_LAG_NS);
	/* a CPU busy with one task records nothing and keeps its timeline open (a hog alone on a shielded CPU):
	 * cycles further back than JL_ANALYSIS_RESOLVE_MAX_NS are explained with what is there, so the matcher
	 * stays flat (such a CPU is rarely where a cycle waited: a wait there closes its piece) */
	for (int ti = 0; p->match && ti < an->nthreads; ti++)
		if (an->threads[ti].measured)
			match_resolve(an, ti, closed > now - JL_ANALYSIS_RESOLVE_MAX_NS ? closed : now - JL_ANALYSIS_RESOLVE_MAX_NS);
	if (match_floor(an) < closed)
		closed = match_floor(an);
	if (an->ncpus > p->nseg_checked) { /* CPUs the trace showed since */
		size_t *g = realloc(p->seg_checked, (size_t)an->ncpus * sizeof(*g));

		if (!g)
			return 0; /* no compaction this time */
		memset(g + p->nseg_checked, 0, (size_t)(an->ncpus - p->nseg_checked) * sizeof(*g));
		p->seg_checked = g;
		p->nseg_checked = an->ncpus;
	}
	if (closed > p->compacted)
		p->compacted = closed;
	for (int ti = 0; ti < an->nthreads; ti++)
		if (an->threads[ti].measured && an->threads[ti].owner == ti)
			compact_states(an, ti, closed);
	if (p->recheck) /* the pairs a candidate that left kept (its own cycle's pair: the ring's, if kept) */
		for (int ti = 0; ti < an->nthreads; ti++) {
			struct jl_analysis_thread *t = &an->threads[ti];
			size_t j = 0;

			for (size_t i = 0; i < t->npairs; i++) {
				const struct jl_pair *x = &t->pairs[i];

				if (x->switch_in >= closed || jl_analysis_prune_window_kept(an, x->waking, x->switch_in + 1)) {
					t->pairs[j++] = *x;
				} else {
					p->pairs++;
					t->pairs_forgotten++;
				}
			}
			t->npairs = j;
		}
	for (int c = 0; c < an->ncpus; c++) {
		size_t j = p->recheck ? 0 : p->seg_checked[c] < an->nsegs[c] ? p->seg_checked[c] : an->nsegs[c], kept;

		for (size_t i = j, at = 0; i < an->nsegs[c]; i++) {
			const struct jl_segment *g = &an->segs[c][i];

			if (g->end > closed || keeps_next(p, &at, g->start, g->end))
				an->segs[c][j++] = *g;
			else
				p->segs++;
		}
		an->nsegs[c] = j;
		for (kept = p->recheck ? 0 : p->seg_checked[c]; kept < j && an->segs[c][kept].end <= closed; kept++)
			; /* the segments kept and closed: a prefix (a CPU's segments are in time order) */
		p->seg_checked[c] = kept;
	}
	p->recheck = false;
	jl_task_births_forget(an, birth_gone, &closed);
	return 0;
}
