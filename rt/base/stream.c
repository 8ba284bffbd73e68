/* stream: constant-memory figures of a metric (stream.h). */
#include "stream.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define SUB ((int64_t)1 << JL_HIST_SUB_BITS)
/* buckets: SUB exact ones for [0, SUB), then SUB per power of two from 2^SUB_BITS to 2^MAX_BITS */
#define NBUCKETS ((size_t)SUB * (size_t)(JL_HIST_MAX_BITS - JL_HIST_SUB_BITS + 1))

size_t jl_hist_buckets(void)
{
	return NBUCKETS;
}

size_t jl_hist_bucket(int64_t v)
{
	int e;

	if (v < SUB)
		return v < 0 ? 0 : (size_t)v;
	if (v >= ((int64_t)1 << JL_HIST_MAX_BITS))
		return NBUCKETS - 1;
	e = 63 - __builtin_clzll((unsigned long long)v); /* 2^e <= v < 2^(e+1), e >= SUB_BITS */
	return (size_t)SUB * (size_t)(e - JL_HIST_SUB_BITS + 1) +
	       (size_t)((v - ((int64_t)1 << e)) >> (e - JL_HIST_SUB_BITS));
}

int64_t jl_hist_bucket_low(size_t b)
{
	size_t octave = b / (size_t)SUB, sub = b % (size_t)SUB;
	int e;

	if (!octave)
		return (int64_t)b;
	e = (int)octave + JL_HIST_SUB_BITS - 1;
	return ((int64_t)1 << e) + ((int64_t)sub << (e - JL_HIST_SUB_BITS));
}

int64_t jl_hist_bucket_high(size_t b)
{
	size_t octave = b / (size_t)SUB;
	int e;

	if (!octave)
		return (int64_t)b;
	e = (int)octave + JL_HIST_SUB_BITS - 1;
	return jl_hist_bucket_low(b) + ((int64_t)1 << (e - JL_HIST_SUB_BITS)) - 1;
}

int jl_hist_alloc(struct jl_hist *h)
{
	memset(h, 0, sizeof(*h));
	h->counts = malloc(NBUCKETS * sizeof(*h->counts));
	if (!h->counts) {
		errno = ENOMEM;
		return -1;
	}
	/* zeroed by hand, not calloc's untouched pages (the barrier keeps the compiler from making it a
	 * calloc): a long run's memory is what it is from the start, not growing as values reach new buckets */
	__asm__ volatile("" : : "r"(h->counts) : "memory");
	memset(h->counts, 0, NBUCKETS * sizeof(*h->counts));
	return 0;
}

void jl_hist_free(struct jl_hist *h)
{
	free(h->counts);
	memset(h, 0, sizeof(*h));
}

void jl_hist_reset(struct jl_hist *h)
{
	memset(h->counts, 0, NBUCKETS * sizeof(*h->counts));
	h->n = h->under = h->over = 0;
}

int64_t jl_hist_percentile(const struct jl_hist *h, double q)
{
	int64_t b;

	if (!h->n)
		return 0;
	b = jl_buckets_percentile(h->counts, NBUCKETS, 0, q); /* the clamped values are in the end buckets */
	return jl_hist_bucket_high(b < 0 ? NBUCKETS - 1 : (size_t)b);
}

void jl_topk_init(struct jl_topk *t, int k)
{
	memset(t, 0, sizeof(*t));
	t->k = k < 1 ? 1 : k > JL_TOPK_MAX ? JL_TOPK_MAX : k;
}

/* heap order: the smallest value at the root; among equal values the latest cycle, so that it is the
 * one a later equal value never displaces and an earlier one is kept */
static bool heap_less(const struct jl_topk_entry *a, const struct jl_topk_entry *b)
{
	return a->value < b->value || (a->value == b->value && a->cycle > b->cycle);
}

static void swap(struct jl_topk_entry *a, struct jl_topk_entry *b)
{
	struct jl_topk_entry t = *a;

	*a = *b;
	*b = t;
}

int jl_topk_add(struct jl_topk *t, int64_t v, uint64_t cycle)
{
	struct jl_topk_entry x = { v, cycle, 0 };
	int i;

	if (t->n < t->k) {
		i = t->n++;
		x.slot = i;
		t->e[i] = x;
		while (i > 0 && heap_less(&t->e[i], &t->e[(i - 1) / 2])) {
			swap(&t->e[i], &t->e[(i - 1) / 2]);
			i = (i - 1) / 2;
		}
		return x.slot;
	}
	if (!heap_less(&t->e[0], &x))
		return -1; /* not larger than the smallest kept (an equal value comes later: the earlier stays) */
	x.slot = t->e[0].slot; /* the new entry takes the place of the one it displaces */
	t->e[0] = x;
	for (i = 0;;) {
		int l = 2 * i + 1, r = l + 1, m = i;

		if (l < t->n && heap_less(&t->e[l], &t->e[m]))
			m = l;
		if (r < t->n && heap_less(&t->e[r], &t->e[m]))
			m = r;
		if (m == i)
			break;
		swap(&t->e[i], &t->e[m]);
		i = m;
	}
	return x.slot;
}

static int cmp_desc(const void *a, const void *b)
{
	const struct jl_topk_entry *x = a, *y = b;

	if (x->value != y->value)
		return x->value > y->value ? -1 : 1;
	return (x->cycle > y->cycle) - (x->cycle < y->cycle);
}

int jl_topk_sorted(const struct jl_topk *t, struct jl_topk_entry *out)
{
	memcpy(out, t->e, (size_t)t->n * sizeof(*out));
	qsort(out, (size_t)t->n, sizeof(*out), cmp_desc);
	return t->n;
}

int jl_stream_init(struct jl_stream *s, int k, bool hist)
{
	memset(s, 0, sizeof(*s));
	jl_topk_init(&s->top, k);
	return hist ? jl_hist_alloc(&s->hist) : 0;
}

void jl_stream_free(struct jl_stream *s)
{
	jl_hist_free(&s->hist);
}

int jl_stream_add(struct jl_stream *s, int64_t v, uint64_t cycle)
{
	if (!s->m.n || v < s->min)
		s->min = v;
	if (!s->m.n || v > s->max) {
		s->max = v;
		s->max_cycle = cycle;
	}
	jl_moments_add(&s->m, (double)v);
	jl_hist_add(&s->hist, v);
	return jl_topk_add(&s->top, v, cycle);
}

static int64_t clamp(int64_t v, int64_t lo, int64_t hi)
{
	return v < lo ? lo : v > hi ? hi : v;
}

void jl_stream_dist(const struct jl_stream *s, struct jl_dist *d)
{
	memset(d, 0, sizeof(*d));
	if (!s->m.n)
		return;
	d->n = (size_t)s->m.n;
	d->min = s->min;
	d->max = s->max;
	d->mean = s->m.mean;
	d->stddev = jl_moments_stddev(&s->m);
	if (!s->hist.counts)
		return;
	d->p50 = clamp(jl_hist_percentile(&s->hist, 50.0), s->min, s->max);
	d->p90 = clamp(jl_hist_percentile(&s->hist, 90.0), s->min, s->max);
	d->p99 = clamp(jl_hist_percentile(&s->hist, 99.0), s->min, s->max);
	d->p999 = clamp(jl_hist_percentile(&s->hist, 99.9), s->min, s->max);
}
