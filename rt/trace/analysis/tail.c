/* tail: a loop's latency tail by cause, from every cycle (tail.h). */
#include "tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/stats.h"
#include "../../base/summary_keys.h"
#include "decompose.h"
#include "parts.h"

#define NO_WAKEUP (-2)
#define UNEXPLAINED (-1)

struct bucket {
	uint64_t n;
	double lat;                       /* the sum of its cycles' latencies */
	double ns[JL_TAIL_CAUSES];        /* per cause, its parts' time */
	uint32_t largest[JL_TAIL_CAUSES]; /* per cause, the cycles it was the largest part of */
};

struct jl_tail_acc {
	int ncauses;
	char name[JL_TAIL_CAUSES][96];
	int kind[JL_TAIL_CAUSES];
	struct bucket *b;                 /* JL_TAIL_BUCKETS, at the first cycle */
	uint64_t n;
	bool failed;
	struct jl_cycle c;                /* scratch: the cycle being explained */
};

int jl_tail_bucket(int64_t v)
{
	int k;

	if (v < 1024)
		return 0;
	k = 63 - __builtin_clzll((unsigned long long)v);
	if (k >= 36)
		return JL_TAIL_BUCKETS - 1;
	return 1 + (k - 10) * JL_TAIL_SUB + (int)((v >> (k - 3)) & (JL_TAIL_SUB - 1));
}

int64_t jl_tail_bucket_low(int b)
{
	int k = 10 + (b - 1) / JL_TAIL_SUB, sub = (b - 1) % JL_TAIL_SUB;

	return b <= 0 ? INT64_MIN : (int64_t)(JL_TAIL_SUB + sub) << (k - 3);
}

int64_t jl_tail_bucket_high(int b)
{
	return b <= 0 ? 1023 : b >= JL_TAIL_BUCKETS - 1 ? INT64_MAX : jl_tail_bucket_low(b + 1) - 1;
}

struct jl_tail_acc *jl_tail_new(void)
{
	return calloc(1, sizeof(struct jl_tail_acc));
}

void jl_tail_free(struct jl_tail_acc *a)
{
	if (a)
		free(a->b);
	free(a);
}

/* The cause a part stands for, in words. */
static void cause_name(const struct jl_part *p, char *buf, size_t len)
{
	switch (p->kind) {
	case JL_PART_TASK:
		snprintf(buf, len, "waited behind %s%s%s%s", p->name, p->policy[0] ? " (" : "", p->policy, p->policy[0] ? ")" : "");
		break;
	case JL_PART_IRQ:
	case JL_PART_SOFTIRQ:
	case JL_PART_IPI:
		snprintf(buf, len, "%s%s", jl_part_kinds[p->kind].word ? jl_part_kinds[p->kind].word : "", p->name);
		break;
	case JL_PART_OTHER: /* the name says it all: "return", "switch from idle", "woken late, CPU idle, ..." */
	case JL_PART_TIMER:
	case JL_PART_IDLE_EXIT:
	case JL_PART_RUNNING:
		snprintf(buf, len, "%s", p->name[0] ? p->name : jl_part_kind_name(p->kind));
		break;
	default: /* the kind, and what it names ("throttle: RT throttling", "blocked: futex") */
		snprintf(buf, len, "%s%s%s", jl_part_kind_name(p->kind), p->name[0] ? ": " : "", p->name);
	}
}

/* The slot of cause NAME (KIND); the last slot takes every cause beyond the table ("others"). */
static int slot(struct jl_tail_acc *a, const char *name, int kind)
{
	for (int i = 0; i < a->ncauses; i++)
		if (a->kind[i] == kind && !strcmp(a->name[i], name))
			return i;
	if (a->ncauses == JL_TAIL_CAUSES)
		return JL_TAIL_CAUSES - 1;
	if (a->ncauses == JL_TAIL_CAUSES - 1) {
		snprintf(a->name[a->ncauses], sizeof(a->name[0]), "others");
		a->kind[a->ncauses] = JL_PART_OTHER;
	} else {
		snprintf(a->name[a->ncauses], sizeof(a->name[0]), "%s", name);
		a->kind[a->ncauses] = kind;
	}
	return a->ncauses++;
}

void jl_tail_add(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, const struct jl_pair *pr, int64_t rel,
		 int64_t wake)
{
	int64_t lat = wake - rel, sum = 0, best = -1;
	struct bucket *b;
	int arg = -1;
	char name[96];

	if (!a || a->failed)
		return;
	if (!a->b && !(a->b = calloc(JL_TAIL_BUCKETS, sizeof(*a->b)))) {
		a->failed = true;
		return;
	}
	b = &a->b[jl_tail_bucket(lat)];
	b->n++;
	b->lat += (double)lat;
	a->n++;
	if (!pr) { /* no wakeup: the loop did not sleep before this cycle (it ran late) */
		int s = slot(a, "no wakeup (running late: it did not sleep)", NO_WAKEUP);

		b->ns[s] += (double)lat;
		b->largest[s]++;
		return;
	}
	memset(&a->c, 0, sizeof(a->c));
	jl_analysis_decompose_cycle(an, ti, pr, rel, wake, &a->c);
	for (int k = 0; k < a->c.nparts; k++) {
		const struct jl_part *p = &a->c.parts[k];
		int s;

		cause_name(p, name, sizeof(name));
		s = slot(a, name, p->kind);
		b->ns[s] += (double)p->duration_ns;
		sum += p->duration_ns;
		if (p->duration_ns > best)
			best = p->duration_ns, arg = s;
	}
	if (lat > sum) {
		int s = slot(a, "unexplained", UNEXPLAINED);

		b->ns[s] += (double)(lat - sum);
		if (lat - sum > best)
			arg = s;
	}
	if (arg >= 0)
		b->largest[arg]++;
}

/* The bucket holding nearest rank R (1-based) */
static int bucket_of_rank(const struct jl_tail_acc *a, uint64_t r)
{
	uint64_t cum = 0;

	for (int i = 0; i < JL_TAIL_BUCKETS; i++) {
		cum += a->b[i].n;
		if (cum >= r)
			return i;
	}
	return JL_TAIL_BUCKETS - 1;
}

static int cmp_cause(const void *x, const void *y)
{
	double u = ((const struct jl_tail_cause *)x)->ns, v = ((const struct jl_tail_cause *)y)->ns;

	return u < v ? 1 : u > v ? -1 : 0;
}

/* W of bucket B (its share above the p99 rank: 1, or a part of the bucket holding it) into OUT: its
 * excess over P50 to the causes that took more there than TYP (per cycle). */
static void bucket_excess(const struct jl_tail_acc *a, const struct bucket *b, double w, double p50, const double *typ,
			  int u, struct jl_tail *out)
{
	double excess = w * (b->lat - (double)b->n * p50), over[JL_TAIL_CAUSES], sum = 0;

	for (int s = 0; s < a->ncauses; s++) {
		over[s] = b->ns[s] > (double)b->n * typ[s] ? b->ns[s] - (double)b->n * typ[s] : 0;
		sum += over[s];
		out->c[s].largest += (uint64_t)(w * b->largest[s] + 0.5);
	}
	if (excess <= 0)
		return;
	out->excess_ns += excess;
	if (sum <= 0) { /* nothing took more than typical: nobody's */
		if (u >= 0)
			out->c[u].ns += excess;
		return;
	}
	for (int s = 0; s < a->ncauses; s++)
		out->c[s].ns += excess * over[s] / sum;
}

void jl_tail_result(const struct jl_tail_acc *a, struct jl_tail *out)
{
	double typ[JL_TAIL_CAUSES] = { 0 }, ntyp = 0;
	int b40, b50, b60, b99, u = -1;
	uint64_t r99, cum = 0;

	memset(out, 0, sizeof(*out));
	if (!a || a->failed || !a->b || !a->n) {
		snprintf(out->why, sizeof(out->why), a && a->failed ? "out of memory" : "no cycle was matched while the "
			 "analysis streamed");
		return;
	}
	out->measured = a->n;
	b40 = bucket_of_rank(a, jl_percentile_rank(a->n, 40));
	b50 = bucket_of_rank(a, jl_percentile_rank(a->n, 50));
	b60 = bucket_of_rank(a, jl_percentile_rank(a->n, 60));
	b99 = bucket_of_rank(a, jl_percentile_rank(a->n, 99));
	out->p50 = (int64_t)(a->b[b50].lat / (double)a->b[b50].n);
	out->threshold = jl_tail_bucket_high(b99);
	for (int i = b40; i <= b60; i++) {
		ntyp += (double)a->b[i].n;
		for (int s = 0; s < a->ncauses; s++)
			typ[s] += a->b[i].ns[s];
	}
	out->typical = (uint64_t)ntyp;
	for (int s = 0; s < a->ncauses; s++) {
		typ[s] = ntyp > 0 ? typ[s] / ntyp : 0;
		snprintf(out->c[s].name, sizeof(out->c[s].name), "%s", a->name[s]);
		out->c[s].kind = a->kind[s];
	}
	out->ncauses = a->ncauses;
	for (int s = 0; s < a->ncauses; s++) /* "unexplained" takes an excess no cause took more than typical */
		if (a->kind[s] == UNEXPLAINED)
			u = s;
	if (u < 0 && out->ncauses < JL_TAIL_CAUSES) {
		u = out->ncauses++;
		snprintf(out->c[u].name, sizeof(out->c[u].name), "unexplained");
		out->c[u].kind = UNEXPLAINED;
	}
	r99 = jl_percentile_rank(a->n, 99);
	for (int i = 0; i <= b99; i++)
		cum += a->b[i].n;
	out->cycles = a->n - r99; /* the cycles ranked above p99: part of its bucket, and every bucket above */
	for (int i = b99; i < JL_TAIL_BUCKETS; i++)
		if (a->b[i].n)
			bucket_excess(a, &a->b[i], i == b99 ? (double)(cum - r99) / (double)a->b[i].n : 1, (double)out->p50,
				      typ, u, out);
	for (int i = 0; i < out->ncauses; i++)
		if (out->c[i].kind == NO_WAKEUP)
			out->no_wakeup = out->c[i].largest;
	qsort(out->c, (size_t)out->ncauses, sizeof(out->c[0]), cmp_cause);
	out->computed = true;
}

static const char *kind_word(int kind)
{
	return kind == UNEXPLAINED ? "unexplained" : kind == NO_WAKEUP ? "no-wakeup" : jl_part_kind_name(kind);
}

json_object *jl_tail_json(const struct jl_tail *t)
{
	json_object *o = json_object_new_object(), *ex, *a;

	json_object_object_add(o, JL_K(computed), json_object_new_boolean(t->computed));
	if (!t->computed) {
		json_object_object_add(o, JL_K(why), json_object_new_string(t->why));
		return o;
	}
	json_object_object_add(o, JL_K(threshold_ns), json_object_new_int64(t->threshold));
	json_object_object_add(o, JL_K(p50_ns), json_object_new_int64(t->p50));
	json_object_object_add(o, JL_K(measured_cycles), json_object_new_int64((int64_t)t->measured));
	json_object_object_add(o, JL_K(cycles), json_object_new_int64((int64_t)t->cycles));
	json_object_object_add(o, JL_K(typical_cycles), json_object_new_int64((int64_t)t->typical));
	ex = json_object_new_object();
	a = json_object_new_array();
	json_object_object_add(ex, JL_K(total_ns), json_object_new_int64((int64_t)(t->excess_ns + 0.5)));
	for (int i = 0; i < t->ncauses; i++) {
		const struct jl_tail_cause *c = &t->c[i];
		json_object *x;

		if (c->ns <= 0 && !c->largest)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, JL_K(cause), json_object_new_string(c->name));
		json_object_object_add(x, JL_K(kind), json_object_new_string(kind_word(c->kind)));
		json_object_object_add(x, JL_K(ns), json_object_new_int64((int64_t)(c->ns + 0.5)));
		json_object_object_add(x, JL_K(share), json_object_new_double(t->excess_ns > 0 ? c->ns / t->excess_ns : 0));
		json_object_object_add(x, JL_K(largest_in), json_object_new_int64((int64_t)c->largest));
		json_object_array_add(a, x);
	}
	json_object_object_add(ex, JL_K(causes), a);
	json_object_object_add(o, JL_K(excess), ex);
	return o;
}

int jl_tail_format(const struct jl_tail *t, const char *name, char *buf, size_t len)
{
	int off, shown = 0;

	if (!t->computed || !t->cycles || t->excess_ns <= 0)
		return snprintf(buf, len, "%s", "");
	off = snprintf(buf, len, "%s tail: %llu cycles over %.1f us (p99's bucket), %.1f us over p50 in all: ", name,
		       (unsigned long long)t->cycles, (double)t->threshold / 1e3, t->excess_ns / 1e3);
	for (int i = 0; i < t->ncauses && shown < 4 && off > 0 && (size_t)off < len; i++) {
		const struct jl_tail_cause *c = &t->c[i];

		if (c->ns <= 0)
			continue;
		off += snprintf(buf + off, len - (size_t)off, "%s%s %.0f%% (largest in %llu)", shown ? ", " : "", c->name,
				100 * c->ns / t->excess_ns, (unsigned long long)c->largest);
		shown++;
	}
	if (off > 0 && (size_t)off < len)
		off += snprintf(buf + off, len - (size_t)off, "\n");
	return off;
}
