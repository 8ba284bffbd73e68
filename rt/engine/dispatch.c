/* dispatch: the executor's ready queue and dispatch rule (dispatch.h). */
#include "dispatch.h"
#include "../base/memlock.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* A timer's jitter for the release at NEXT: splitmix64 of its seed and the release, in [0, jitter] */
static int64_t jitter_of(const struct jl_dcb *c)
{
	uint64_t z;

	if (c->jitter <= 0 || c->period <= 0)
		return 0;
	/* by the release's index on its grid, not its time: the same sequence in every run of a seed */
	z = c->seed + (uint64_t)((c->next - c->base) / c->period + 1) * 0x9e3779b97f4a7c15ULL;
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	z ^= z >> 31;
	return (int64_t)(z % (uint64_t)(c->jitter + 1));
}

int jl_dispatch_init(struct jl_dispatch *d, enum jl_dispatch_rule rule, struct jl_dcb *cbs, int ncbs, int ngroups,
		     int64_t t0)
{
	memset(d, 0, sizeof(*d));
	d->rule = rule;
	d->cbs = cbs;
	d->ncbs = ncbs;
	d->ngroups = ngroups;
	d->group_busy = calloc(ngroups > 0 ? (size_t)ngroups : 1, sizeof(*d->group_busy));
	d->snapshot = calloc(ncbs > 0 ? (size_t)ncbs : 1, sizeof(*d->snapshot));
	if (!d->group_busy || !d->snapshot) {
		jl_dispatch_free(d);
		errno = ENOMEM;
		return -1;
	}
	/* the executor's threads read and write both on every dispatch */
	jl_memlock_range(d->group_busy, (ngroups > 0 ? (size_t)ngroups : 1) * sizeof(*d->group_busy));
	jl_memlock_range(d->snapshot, (ncbs > 0 ? (size_t)ncbs : 1) * sizeof(*d->snapshot));
	jl_dispatch_start(d, t0);
	return 0;
}

void jl_dispatch_start(struct jl_dispatch *d, int64_t t0)
{
	for (int i = 0; i < d->ncbs; i++) {
		struct jl_dcb *c = &d->cbs[i];

		c->next = c->kind == JL_CB_TIMER ? t0 + c->phase : 0;
		c->base = c->next;
		c->off = jitter_of(c);
		c->ready_at = c->next + c->off;
		c->seq = 0;
		c->pending = c->running = 0;
		c->runs = c->skipped = 0;
	}
	for (int g = 0; g < d->ngroups; g++)
		d->group_busy[g] = false;
	d->nsnap = d->snap_pos = 0;
	d->seq = 0;
}

void jl_dispatch_free(struct jl_dispatch *d)
{
	free(d->group_busy);
	free(d->snapshot);
	d->group_busy = NULL;
	d->snapshot = NULL;
}

void jl_dispatch_post(struct jl_dispatch *d, int cb, int64_t now)
{
	struct jl_dcb *c = &d->cbs[cb];

	if (c->kind != JL_CB_SUBSCRIPTION)
		return;
	if (!c->pending++) {
		c->ready_at = now;
		c->seq = ++d->seq;
	}
}

void jl_dispatch_restamp(struct jl_dispatch *d, int cb, int64_t at)
{
	struct jl_dcb *c = &d->cbs[cb];

	if (c->kind == JL_CB_SUBSCRIPTION && c->pending)
		c->ready_at = at;
}

static bool is_ready(const struct jl_dcb *c, int64_t now)
{
	return c->kind == JL_CB_TIMER ? c->next + c->off <= now : c->pending > 0;
}


/* Can a thread take C now? Its mutually exclusive group must be free (a reentrant callback may run on
 * several threads at once, even with itself). */
static bool takeable(const struct jl_dispatch *d, const struct jl_dcb *c)
{
	return c->group == JL_GROUP_REENTRANT || !d->group_busy[c->group];
}

/* Take C at NOW: its group busy, a timer on to its next release (skipping missed periods, keeping the
 * phase, as rcl_timer_call does), a message consumed. Returns when it became ready. */
static int64_t take(struct jl_dispatch *d, int i, int64_t now)
{
	struct jl_dcb *c = &d->cbs[i];
	int64_t ready = c->kind == JL_CB_TIMER ? c->next + c->off : c->ready_at;

	if (c->group != JL_GROUP_REENTRANT)
		d->group_busy[c->group] = true;
	c->running++;
	c->runs++;
	if (c->kind == JL_CB_TIMER) {
		/* rcl_timer_call: the next call is one period on; if that is already past, the first boundary at
		 * or after now (a boundary equal to now is due at once), the ones in between skipped */
		c->next += c->period;
		if (c->period > 0 && c->next < now) {
			int64_t k = (now - c->next + c->period - 1) / c->period;

			c->skipped += (uint64_t)k;
			c->next += k * c->period;
		}
		c->off = jitter_of(c);
		c->ready_at = c->next + c->off;
	} else if (--c->pending) {
		c->ready_at = now; /* the next message waits behind what became ready before it */
		c->seq = ++d->seq;
	}
	return ready;
}

/* RCLCPP: a new wait at NOW: the ready callbacks, timers first, then subscriptions, each in declaration
 * order. */
static void snapshot(struct jl_dispatch *d, int64_t now)
{
	d->nsnap = d->snap_pos = 0;
	for (int kind = JL_CB_TIMER; kind <= JL_CB_SUBSCRIPTION; kind++)
		for (int i = 0; i < d->ncbs; i++)
			if ((int)d->cbs[i].kind == kind && is_ready(&d->cbs[i], now) && takeable(d, &d->cbs[i]))
				d->snapshot[d->nsnap++] = i;
}

int jl_dispatch_take(struct jl_dispatch *d, int64_t now, int64_t *ready)
{
	int best = -1;

	if (d->rule == JL_DISPATCH_RCLCPP) {
		for (int pass = 0; pass < 2; pass++) {
			/* the rest of the current wait's snapshot first; a callback whose group became busy, or that
			 * another thread already ran, is skipped; then one new wait */
			while (d->snap_pos < d->nsnap) {
				int i = d->snapshot[d->snap_pos++];

				if (is_ready(&d->cbs[i], now) && takeable(d, &d->cbs[i])) {
					int64_t r = take(d, i, now);

					if (ready)
						*ready = r;
					return i;
				}
			}
			if (pass == 0)
				snapshot(d, now);
		}
		return -1;
	}
	for (int i = 0; i < d->ncbs; i++) {
		const struct jl_dcb *c = &d->cbs[i];

		if (!is_ready(c, now) || !takeable(d, c))
			continue;
		if (best < 0 || c->ready_at < d->cbs[best].ready_at ||
		    (c->ready_at == d->cbs[best].ready_at && c->seq < d->cbs[best].seq))
			best = i;
	}
	if (best >= 0) {
		int64_t r = take(d, best, now);

		if (ready)
			*ready = r;
	}
	return best;
}

void jl_dispatch_done(struct jl_dispatch *d, int cb)
{
	struct jl_dcb *c = &d->cbs[cb];

	if (c->running)
		c->running--;
	if (c->group != JL_GROUP_REENTRANT)
		d->group_busy[c->group] = false;
}

int64_t jl_dispatch_next_release(const struct jl_dispatch *d)
{
	int64_t t = INT64_MAX;

	for (int i = 0; i < d->ncbs; i++) {
		const struct jl_dcb *c = &d->cbs[i];

		if (c->kind == JL_CB_TIMER && takeable(d, c) && c->next + c->off < t)
			t = c->next + c->off;
	}
	return t;
}
