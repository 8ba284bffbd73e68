/* chains: the chain ending at one callback, from its samples' links (chains.h). */
#include "chains.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PATHS 8

/* A path: the series ids (and the sync of the hop into each) from the end back to the head */
struct path {
	int n;
	int sid[JL_CHAIN_MAX_STAGES], via[JL_CHAIN_MAX_STAGES];
	uint64_t count;
};

/* Per series: its run number -> sample index (runs are append order; a reentrant series is sorted by
 * release afterwards, so the index is looked up, never assumed) */
struct runs {
	int32_t *at;
	size_t n;
};

static int runs_build(const struct jl_series *s, struct runs *r)
{
	size_t cnt = jl_series_count(s), size = cnt + (size_t)s->dropped;

	r->n = size;
	r->at = NULL;
	if (!size)
		return 0;
	r->at = malloc(size * sizeof(*r->at));
	if (!r->at)
		return -1;
	for (size_t i = 0; i < size; i++)
		r->at[i] = -1;
	for (size_t i = 0; i < cnt; i++) {
		uint32_t run = jl_series_at(s, i)->run;

		if (run < size)
			r->at[run] = (int32_t)i;
	}
	return 0;
}

/* Walk output I of END back to its head: the samples in P (end first), their series in PATH. Returns the
 * number of stages, or 0 when a link is lost. */
static int walk(const struct jl_series *series, int n, const struct runs *runs, int end, size_t i,
		const struct jl_sample **p, struct path *path)
{
	int sid = end, k = 0;
	const struct jl_sample *s = jl_series_at(&series[end], i);

	for (;;) {
		if (k == JL_CHAIN_MAX_STAGES)
			return 0;
		p[k] = s;
		path->sid[k] = sid;
		path->via[k] = s->via_sync;
		k++;
		if (!s->src)
			return k;
		sid = s->src - 1;
		if (sid >= n || s->src_run >= runs[sid].n || runs[sid].at[s->src_run] < 0)
			return 0;
		s = jl_series_at(&series[sid], (size_t)runs[sid].at[s->src_run]);
	}
}

static bool same_path(const struct path *a, const struct path *b)
{
	return a->n == b->n && !memcmp(a->sid, b->sid, sizeof(int) * (size_t)a->n) &&
	       !memcmp(a->via, b->via, sizeof(int) * (size_t)a->n);
}

static int cmp_origin(const void *a, const void *b)
{
	const int64_t *x = a, *y = b; /* pairs (origin, end), by origin then end */

	return x[0] != y[0] ? (x[0] < y[0] ? -1 : 1) : (x[1] < y[1] ? -1 : x[1] > y[1]);
}

/* The bound: the head's response, each poll's period + response, each trigger's response (the largest in
 * the window); 0 when a sync is on the path or a polled stage skipped periods */
static int64_t bound(const struct jl_series *series, const struct jl_chain *c, int64_t from, int64_t to)
{
	int64_t sum = 0;

	for (int k = 0; k < c->nstages; k++) {
		const struct jl_series *s = &series[c->stages[k].series];
		int64_t worst = 0;

		if (c->stages[k].via_sync)
			return 0;
		for (size_t i = 0; i < jl_series_count(s); i++) {
			const struct jl_sample *x = jl_series_at(s, i);

			if (x->release < from || x->release >= to)
				continue;
			if (k > 0 && s->msgs.poll && x->skipped)
				return 0;
			if (jl_response_ns(x->release, x->end) > worst)
				worst = jl_response_ns(x->release, x->end);
		}
		sum += worst + (k > 0 && s->msgs.poll ? s->period_ns : 0);
	}
	return sum;
}

/* Per input of the head: data age (last output using it) and reaction (first output reflecting it), from
 * the outputs' (origin, end) pairs sorted by origin */
static int per_input(const struct jl_series *head, int64_t from, int64_t to, int64_t *pairs, size_t np,
		     struct jl_chain *c)
{
	int64_t *age = malloc((jl_series_count(head) + 1) * sizeof(*age));
	int64_t *react = malloc((jl_series_count(head) + 1) * sizeof(*react));
	int64_t *minend = malloc((np + 1) * sizeof(*minend));
	size_t na = 0, nr = 0;
	int rc = -1;

	if (!age || !react || !minend)
		goto out;
	qsort(pairs, np, 2 * sizeof(*pairs), cmp_origin);
	/* minend[j]: the earliest end among the outputs from j on (their data as new as pairs[j]'s or newer) */
	minend[np] = INT64_MAX;
	for (size_t j = np; j-- > 0;)
		minend[j] = pairs[2 * j + 1] < minend[j + 1] ? pairs[2 * j + 1] : minend[j + 1];
	for (size_t i = 0, j = 0; i < jl_series_count(head); i++) {
		const int64_t o = jl_series_at(head, i)->origin;

		if (jl_series_at(head, i)->release < from || jl_series_at(head, i)->release >= to)
			continue;
		if (!np || o > pairs[2 * (np - 1)]) {
			c->pending_inputs++;
			continue;
		}
		c->inputs++;
		while (j < np && pairs[2 * j] < o) /* the head's runs come in origin order */
			j++;
		react[nr++] = minend[j] - o;
		if (pairs[2 * j] != o) {
			c->unused_inputs++;
			continue;
		}
		{
			size_t last = j;

			while (last + 1 < np && pairs[2 * (last + 1)] == o)
				last++;
			age[na++] = pairs[2 * last + 1] - o; /* the pairs of one origin are sorted by end */
		}
	}
	if (jl_dist_compute(age, na, NULL, &c->data_age) || jl_dist_compute(react, nr, NULL, &c->reaction))
		goto out;
	rc = 0;
out:
	free(age);
	free(react);
	free(minend);
	return rc;
}

static int breakdown(const struct jl_series *series, int n, const struct runs *runs, const struct path *best,
		     int64_t from, int64_t to, struct jl_chain *c)
{
	const struct jl_series *end = &series[c->end];
	size_t cnt = jl_series_count(end), no = 0;
	int64_t *parts = malloc((cnt + 1) * 2 * JL_CHAIN_MAX_STAGES * sizeof(*parts));
	int64_t *pairs = malloc((cnt + 1) * 2 * sizeof(*pairs));
	int rc = -1;

	if (!parts || !pairs)
		goto out;
	c->nstages = best->n;
	for (int k = 0; k < best->n; k++) { /* head first */
		c->stages[k].series = best->sid[best->n - 1 - k];
		c->stages[k].via_sync = best->via[best->n - 1 - k];
	}
	c->worst_e2e = -1;
	for (size_t i = 0; i < cnt; i++) {
		const struct jl_sample *x = jl_series_at(end, i), *p[JL_CHAIN_MAX_STAGES];
		struct path path = { 0 };

		if (x->release < from || x->release >= to || x->origin <= 0)
			continue;
		path.n = walk(series, n, runs, c->end, i, p, &path);
		if (!path.n || !same_path(&path, best))
			continue;
		for (int k = 0; k < path.n; k++) {
			const struct jl_sample *s = p[path.n - 1 - k], *prev = k ? p[path.n - k] : NULL;

			parts[(2 * k) * cnt + no] = prev ? s->wake - prev->end : s->wake - s->origin;
			parts[(2 * k + 1) * cnt + no] = s->end - s->wake;
		}
		pairs[2 * no] = x->origin;
		pairs[2 * no + 1] = x->end;
		if (x->end - x->origin > c->worst_e2e) {
			c->worst_e2e = x->end - x->origin;
			c->worst_end = x->end;
			for (int k = 0; k < path.n; k++) {
				c->stages[k].worst_wait = parts[(2 * k) * cnt + no];
				c->stages[k].worst_run = parts[(2 * k + 1) * cnt + no];
			}
		}
		no++;
	}
	c->outputs = no;
	if (c->worst_e2e < 0)
		c->worst_e2e = 0;
	for (int k = 0; k < c->nstages; k++)
		if (jl_dist_compute(parts + (2 * k) * cnt, no, NULL, &c->stages[k].wait) ||
		    jl_dist_compute(parts + (2 * k + 1) * cnt, no, NULL, &c->stages[k].run))
			goto out;
	if (per_input(&series[c->stages[0].series], from, to, pairs, no, c))
		goto out;
	c->bound_ns = bound(series, c, from, to);
	rc = 0;
out:
	free(parts);
	free(pairs);
	return rc;
}

int jl_chain_compute(const struct jl_series *series, int n, int end, int64_t from, int64_t to, struct jl_chain *c)
{
	struct runs *runs = calloc((size_t)n + 1, sizeof(*runs));
	struct path paths[MAX_PATHS];
	int npaths = 0, best = -1, rc = -1;
	const struct jl_series *e = &series[end];

	memset(c, 0, sizeof(*c));
	c->end = end;
	if (!runs)
		goto out;
	for (int k = 0; k < n; k++)
		if (series[k].has_origin && runs_build(&series[k], &runs[k]))
			goto out;
	/* the paths the outputs took, and how many took each */
	for (size_t i = 0; i < jl_series_count(e); i++) {
		const struct jl_sample *x = jl_series_at(e, i), *p[JL_CHAIN_MAX_STAGES];
		struct path path = { 0 };
		int k;

		if (x->release < from || x->release >= to || x->origin <= 0)
			continue;
		path.n = walk(series, n, runs, end, i, p, &path);
		if (!path.n) {
			c->broken++;
			continue;
		}
		for (k = 0; k < npaths && !same_path(&paths[k], &path); k++)
			;
		if (k == npaths) {
			if (npaths == MAX_PATHS) { /* more paths than kept: counted as another path */
				c->other_paths++;
				continue;
			}
			paths[npaths++] = path;
		}
		paths[k].count++;
	}
	for (int k = 0; k < npaths; k++)
		if (best < 0 || paths[k].count > paths[best].count)
			best = k;
	for (int k = 0; k < npaths; k++)
		if (k != best)
			c->other_paths += paths[k].count;
	if (best >= 0 && breakdown(series, n, runs, &paths[best], from, to, c))
		goto out;
	rc = 0;
out:
	for (int k = 0; runs && k < n; k++)
		free(runs[k].at);
	free(runs);
	if (rc)
		errno = ENOMEM;
	return rc;
}
