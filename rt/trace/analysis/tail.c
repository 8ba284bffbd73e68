/* tail: a loop's latency tail by cause, from every cycle (tail.h). */
#include "tail.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../base/stats.h"
#include "../../base/summary_keys.h"
#include "decompose.h"
#include "parts.h"

/* the two slots every accumulator has: what no part explains, and the causes beyond the table */
enum { UNEXPLAINED, OTHERS, RESERVED };
#define KIND_UNEXPLAINED (-1)
#define KIND_OTHERS (-2)

struct bucket {
	uint64_t n;
	double lat;                       /* the sum of its cycles' latencies */
	double ns[JL_TAIL_CAUSES];        /* per cause, its parts' time */
	uint64_t largest[JL_TAIL_CAUSES]; /* per cause, the cycles it was the largest part of */
};

struct jl_tail_acc {
	int ncauses;
	char name[JL_TAIL_CAUSES][96];
	int kind[JL_TAIL_CAUSES];
	double total[JL_TAIL_CAUSES];     /* per cause, its time in every cycle so far (which to give up) */
	uint64_t busy;                    /* the slots the cycle being added uses (never given up meanwhile) */
	struct bucket *all, *miss;        /* JL_TAIL_BUCKETS each, at the first cycle: every cycle, the missed */
	struct bucket resp;               /* the misses' responses (n: the misses, lat: their responses) */
	uint64_t n;
	int64_t threshold_ns;             /* 0: p99 */
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

struct jl_tail_acc *jl_tail_new(int64_t threshold_ns)
{
	struct jl_tail_acc *a = calloc(1, sizeof(struct jl_tail_acc));

	if (!a)
		return NULL;
	a->threshold_ns = threshold_ns > 0 ? threshold_ns : 0;
	snprintf(a->name[UNEXPLAINED], sizeof(a->name[0]), "unexplained");
	a->kind[UNEXPLAINED] = KIND_UNEXPLAINED;
	snprintf(a->name[OTHERS], sizeof(a->name[0]), "others (beyond %d causes)", JL_TAIL_CAUSES - RESERVED);
	a->kind[OTHERS] = KIND_OTHERS;
	a->ncauses = RESERVED;
	return a;
}

void jl_tail_free(struct jl_tail_acc *a)
{
	if (a) {
		free(a->all);
		free(a->miss);
	}
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
	case JL_PART_OTHER: /* the name says it all: "return", "previous cycle overran", "woken late, ..." */
	case JL_PART_TIMER:
	case JL_PART_IDLE_EXIT:
	case JL_PART_RUNNING:
		snprintf(buf, len, "%s", p->name[0] ? p->name : jl_part_kind_name(p->kind));
		break;
	default: /* the kind, and what it names ("throttle: RT throttling"), unless the name says it already
		  * ("blocked, woken by ...") */
		if (!strncmp(p->name, jl_part_kind_name(p->kind), strlen(jl_part_kind_name(p->kind))))
			snprintf(buf, len, "%s", p->name);
		else
			snprintf(buf, len, "%s%s%s", jl_part_kind_name(p->kind), p->name[0] ? ": " : "", p->name);
	}
}

/* Slot S's sums into "others" in bucket B */
static void merge_into_others(struct bucket *b, int s)
{
	b->ns[OTHERS] += b->ns[s];
	b->largest[OTHERS] += b->largest[s];
	b->ns[s] = 0;
	b->largest[s] = 0;
}

/* The slot of cause NAME (KIND). A full table gives up the cause with the least time so far to "others" (its
 * sums merged there, its total kept as the newcomer's start): a cause that comes late and recurs (the
 * tail's) outgrows the others and keeps a slot of its own. */
static int slot(struct jl_tail_acc *a, const char *name, int kind)
{
	int s = RESERVED;

	for (int i = RESERVED; i < a->ncauses; i++)
		if (a->kind[i] == kind && !strcmp(a->name[i], name)) {
			a->busy |= 1ull << i;
			return i;
		}
	if (a->ncauses < JL_TAIL_CAUSES) {
		s = a->ncauses++;
	} else {
		s = -1;
		for (int i = RESERVED; i < a->ncauses; i++)
			if (!(a->busy >> i & 1) && (s < 0 || a->total[i] < a->total[s]))
				s = i;
		if (s < 0)
			return OTHERS;
		for (int b = 0; b < JL_TAIL_BUCKETS; b++) {
			merge_into_others(&a->all[b], s);
			merge_into_others(&a->miss[b], s);
		}
		merge_into_others(&a->resp, s);
		a->total[OTHERS] += a->total[s];
		/* the newcomer keeps the given-up cause's total as its own start (Space-Saving's rule): else two
		 * causes that take turns would give each other up for ever and a recurring one never keep a slot */
	}
	snprintf(a->name[s], sizeof(a->name[0]), "%s", name);
	a->kind[s] = kind;
	a->busy |= 1ull << s;
	return s;
}

/* The parts of A's scratch cycle, a window of LEN ns, into bucket B by cause; the rest of LEN is
 * "unexplained". */
static void add_parts(struct jl_tail_acc *a, struct bucket *b, int64_t len, bool count)
{
	int64_t sum = 0, best = -1;
	int arg = -1;
	char name[96];

	for (int k = 0; k < a->c.nparts; k++) {
		const struct jl_part *p = &a->c.parts[k];
		int s;

		if (p->duration_ns <= 0)
			continue;
		cause_name(p, name, sizeof(name));
		s = slot(a, name, (int)p->kind);
		b->ns[s] += (double)p->duration_ns;
		if (count)
			a->total[s] += (double)p->duration_ns;
		sum += p->duration_ns;
		if (p->duration_ns > best)
			best = p->duration_ns, arg = s;
	}
	if (len > sum) {
		b->ns[UNEXPLAINED] += (double)(len - sum);
		if (count)
			a->total[UNEXPLAINED] += (double)(len - sum);
		if (len - sum > best)
			arg = UNEXPLAINED;
	}
	if (arg >= 0)
		b->largest[arg]++;
}

void jl_tail_add(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
		 const struct jl_pair *p, int64_t prev_end)
{
	int64_t lat = s->wake - s->release;
	int k = jl_tail_bucket(lat);

	if (!a || a->failed)
		return;
	if (!a->all && (!(a->all = calloc(JL_TAIL_BUCKETS, sizeof(*a->all))) ||
			!(a->miss = calloc(JL_TAIL_BUCKETS, sizeof(*a->miss))))) {
		a->failed = true;
		return;
	}
	a->n++;
	memset(&a->c, 0, sizeof(a->c));
	if (an)
		jl_analysis_decompose_loop_wait(an, ti, s, p, prev_end, &a->c);
	a->all[k].n++;
	a->all[k].lat += (double)lat;
	a->busy = 0;
	add_parts(a, &a->all[k], lat, true);
	if (!s->miss)
		return;
	a->miss[k].n++;
	a->miss[k].lat += (double)lat;
	add_parts(a, &a->miss[k], lat, false);
	if (an) /* the whole response: the wait again, then its work */
		jl_analysis_decompose_loop_response(an, ti, s, p, prev_end, &a->c);
	a->resp.n++;
	a->resp.lat += (double)(s->end - s->release);
	add_parts(a, &a->resp, s->end - s->release, true);
}

bool jl_tail_of_samples(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, int64_t from)
{
	const struct jl_analysis_thread *t = &an->threads[ti];

	if (!a || !t->samples || t->partial || !t->sampled || t->executor)
		return false;
	for (size_t i = 0; i < t->nsamples; i++) {
		long pi = t->sample_pair ? t->sample_pair[i] : -1;

		if (t->samples[i].release < from)
			continue;
		jl_tail_add(a, an, ti, &t->samples[i], pi >= 0 ? &t->pairs[pi] : NULL, i > 0 ? t->samples[i - 1].end : 0);
	}
	return true;
}

/* The bucket holding nearest rank R (1-based) */
static int bucket_of_rank(const struct bucket *b, uint64_t r)
{
	uint64_t cum = 0;

	for (int i = 0; i < JL_TAIL_BUCKETS; i++) {
		cum += b[i].n;
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

static const char *kind_word(int kind)
{
	return kind == KIND_UNEXPLAINED ? "unexplained" : kind == KIND_OTHERS ? "others" : jl_part_kind_name(kind);
}

/* The table's causes named from A's slots, before anything is added */
static void table_init(const struct jl_tail_acc *a, struct jl_tail_table *t)
{
	t->ncauses = a->ncauses;
	for (int s = 0; s < a->ncauses; s++) {
		snprintf(t->c[s].name, sizeof(t->c[s].name), "%s", a->name[s]);
		t->c[s].kind = kind_word(a->kind[s]);
	}
}

/* Bucket B's excess over P50 (its cycles' latency less P50 each) to the causes that took more there than TYP
 * (per cycle), in proportion to how much more; its cycles' largest parts counted. */
static void bucket_excess(const struct jl_tail_acc *a, const struct bucket *b, double p50, const double *typ,
			  struct jl_tail_table *out)
{
	double excess = b->lat - (double)b->n * p50, over[JL_TAIL_CAUSES], sum = 0;

	for (int s = 0; s < a->ncauses; s++) {
		over[s] = b->ns[s] > (double)b->n * typ[s] ? b->ns[s] - (double)b->n * typ[s] : 0;
		sum += over[s];
		out->c[s].largest += b->largest[s];
	}
	if (excess <= 0)
		return;
	out->total_ns += excess;
	if (sum <= 0) { /* nothing took more than typical: nobody's */
		out->c[UNEXPLAINED].ns += excess;
		return;
	}
	for (int s = 0; s < a->ncauses; s++)
		out->c[s].ns += excess * over[s] / sum;
}

/* The misses' responses by cause */
static void response_table(const struct jl_tail_acc *a, struct jl_tail_table *out)
{
	table_init(a, out);
	out->total_ns = a->resp.lat;
	for (int s = 0; s < a->ncauses; s++) {
		out->c[s].ns = a->resp.ns[s];
		out->c[s].largest = a->resp.largest[s];
	}
	qsort(out->c, (size_t)out->ncauses, sizeof(out->c[0]), cmp_cause);
}

void jl_tail_result(const struct jl_tail_acc *a, struct jl_tail *out)
{
	double typ[JL_TAIL_CAUSES] = { 0 }, ntyp = 0;
	int b40, b50, b60, b99;

	memset(out, 0, sizeof(*out));
	if (!a || a->failed || !a->all || !a->n) {
		snprintf(out->why, sizeof(out->why), "%s", a && a->failed ? "out of memory" : "no measured cycle");
		return;
	}
	out->measured = a->n;
	b40 = bucket_of_rank(a->all, jl_percentile_rank(a->n, 40));
	b50 = bucket_of_rank(a->all, jl_percentile_rank(a->n, 50));
	b60 = bucket_of_rank(a->all, jl_percentile_rank(a->n, 60));
	b99 = a->threshold_ns ? jl_tail_bucket(a->threshold_ns) : bucket_of_rank(a->all, jl_percentile_rank(a->n, 99));
	out->fixed = a->threshold_ns > 0;
	out->p50 = (int64_t)(a->all[b50].lat / (double)a->all[b50].n);
	out->threshold = jl_tail_bucket_high(b99);
	for (int i = b40; i <= b60; i++) {
		ntyp += (double)a->all[i].n;
		for (int s = 0; s < a->ncauses; s++)
			typ[s] += a->all[i].ns[s];
	}
	out->typical = (uint64_t)ntyp;
	for (int s = 0; s < a->ncauses; s++)
		typ[s] = ntyp > 0 ? typ[s] / ntyp : 0;
	table_init(a, &out->excess);
	for (int i = 0; i < JL_TAIL_BUCKETS; i++) { /* above the threshold every cycle, at or below it the misses */
		const struct bucket *b = i > b99 ? &a->all[i] : &a->miss[i];

		if (i > b99)
			out->above += b->n;
		if (b->n)
			bucket_excess(a, b, (double)out->p50, typ, &out->excess);
		out->cycles += b->n;
	}
	qsort(out->excess.c, (size_t)out->excess.ncauses, sizeof(out->excess.c[0]), cmp_cause);
	out->misses = a->resp.n;
	response_table(a, &out->response);
	out->computed = true;
}

/* A table's causes, largest first, those with no time and no cycle left out */
static json_object *table_json(const struct jl_tail_table *t)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, JL_K(total_ns), json_object_new_int64((int64_t)(t->total_ns + 0.5)));
	for (int i = 0; i < t->ncauses; i++) {
		const struct jl_tail_cause *c = &t->c[i];
		json_object *x;

		if (c->ns <= 0 && !c->largest)
			continue;
		x = json_object_new_object();
		json_object_object_add(x, JL_K(cause), json_object_new_string(c->name));
		json_object_object_add(x, JL_K(kind), json_object_new_string(c->kind));
		json_object_object_add(x, JL_K(ns), json_object_new_int64((int64_t)(c->ns + 0.5)));
		json_object_object_add(x, JL_K(share), json_object_new_double(t->total_ns > 0 ? c->ns / t->total_ns : 0));
		json_object_object_add(x, JL_K(largest_in), json_object_new_int64((int64_t)c->largest));
		json_object_array_add(arr, x);
	}
	json_object_object_add(o, JL_K(causes), arr);
	return o;
}

json_object *jl_tail_json(const struct jl_tail *t)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, JL_K(computed), json_object_new_boolean(t->computed));
	if (!t->computed) {
		json_object_object_add(o, JL_K(why), json_object_new_string(t->why));
		return o;
	}
	json_object_object_add(o, JL_K(threshold_ns), json_object_new_int64(t->threshold));
	json_object_object_add(o, JL_K(threshold_from), json_object_new_string(t->fixed ? "tail" : "p99"));
	json_object_object_add(o, JL_K(p50_ns), json_object_new_int64(t->p50));
	json_object_object_add(o, JL_K(measured_cycles), json_object_new_int64((int64_t)t->measured));
	json_object_object_add(o, JL_K(cycles), json_object_new_int64((int64_t)t->cycles));
	json_object_object_add(o, JL_K(above), json_object_new_int64((int64_t)t->above));
	json_object_object_add(o, JL_K(misses), json_object_new_int64((int64_t)t->misses));
	json_object_object_add(o, JL_K(typical_cycles), json_object_new_int64((int64_t)t->typical));
	json_object_object_add(o, JL_K(excess), table_json(&t->excess));
	json_object_object_add(o, JL_K(response), table_json(&t->response));
	return o;
}

/* Up to four causes of table T, "name 97% (largest in 12)", after BUF's OFF */
static int causes_format(const struct jl_tail_table *t, char *buf, size_t len, int off)
{
	for (int i = 0, shown = 0; i < t->ncauses && shown < 4 && off > 0 && (size_t)off < len; i++) {
		const struct jl_tail_cause *c = &t->c[i];

		if (c->ns <= 0 || c->ns < 0.005 * t->total_ns)
			continue;
		off += snprintf(buf + off, len - (size_t)off, "%s%s %.0f%% (largest in %llu)", shown ? ", " : "", c->name,
				100 * c->ns / t->total_ns, (unsigned long long)c->largest);
		shown++;
	}
	return off;
}

int jl_tail_format(const struct jl_tail *t, const char *name, char *buf, size_t len)
{
	int off;

	buf[0] = '\0';
	if (!t->computed || !t->cycles)
		return 0;
	off = snprintf(buf, len, "%s tail: %llu cycles (%llu over %.1f us, %s bucket; %llu missed), %.1f us over p50 "
		       "(%.1f us) in all: ", name, (unsigned long long)t->cycles, (unsigned long long)t->above,
		       (double)t->threshold / 1e3, t->fixed ? "[run] tail's" : "p99's", (unsigned long long)t->misses,
		       t->excess.total_ns / 1e3, (double)t->p50 / 1e3);
	off = causes_format(&t->excess, buf, len, off);
	if (t->misses && off > 0 && (size_t)off < len) {
		off += snprintf(buf + off, len - (size_t)off, "; the misses' responses (%.1f us): ", t->response.total_ns / 1e3);
		off = causes_format(&t->response, buf, len, off);
	}
	if (off > 0 && (size_t)off < len - 1)
		off += snprintf(buf + off, len - (size_t)off, "\n");
	else if (len > 1) { /* cut short: still one line */
		buf[len - 2] = '\n';
		buf[len - 1] = '\0';
		off = (int)len - 1;
	}
	return off;
}
