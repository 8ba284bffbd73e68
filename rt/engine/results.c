/* results: turn a series' samples into the contract's figures. Runs after the measured phase. */
#include "results.h"
#include "../base/spill.h"

#include <errno.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../affinity/cpulist.h"
#include "../base/lock.h"
#include "../base/output.h"
#include "request.h"

/* Releases of a loop on its grid BASE + k * P (k >= 0) that lie in [LO, HI). */
static uint64_t grid_count(int64_t base, int64_t p, int64_t lo, int64_t hi)
{
	int64_t a, b;

	if (lo < base)
		lo = base;
	if (hi <= lo)
		return 0;
	a = (lo - base + p - 1) / p; /* first k with base + k p >= lo */
	b = (hi - base + p - 1) / p; /* first k with base + k p >= hi */
	return (uint64_t)(b - a);
}

/* ---- the accumulator (results.h) ---- */

static int64_t max64(int64_t a, int64_t b)
{
	return a > b ? a : b;
}

static int64_t min64(int64_t a, int64_t b)
{
	return a < b ? a : b;
}

int jl_series_accumulator_init(struct jl_series_accumulator *a, const struct jl_engine *eng, const struct jl_series *s, bool hist,
		       bool keep, bool spill)
{
	struct jl_stream *st[] = { &a->latency, &a->period, &a->response, &a->age, &a->e2e };

	memset(a, 0, sizeof(*a));
	a->ser = s;
	a->ws = s->start_ns ? s->first_release : eng->t_measure;
	a->we = jl_engine_window_end(eng);
	a->base = s->first_release > eng->t0 ? s->first_release : eng->t0;
	a->prev_rel = a->base - s->period_ns;
	CPU_ZERO(&a->used);
	for (size_t i = 0; i < sizeof(st) / sizeof(st[0]); i++)
		if (jl_stream_init(st[i], i == JL_ACC_LATENCY ? JL_WORST_K : 1, hist && (i < JL_ACC_AGE || s->has_origin)))
			goto fail;
	a->us = calloc(1, sizeof(*a->us));
	if (!a->us)
		goto fail;
	a->keep = keep;
	if (keep && (!(a->missed = malloc(JL_KEEP_MISSES * sizeof(*a->missed))) ||
		     !(a->tail = malloc(JL_KEEP_TAIL * sizeof(*a->tail)))))
		goto fail;
	for (int m = 0; spill && m < 5; m++) {
		if (m >= JL_ACC_AGE && !s->has_origin)
			break;
		a->spill[m] = malloc(sizeof(*a->spill[m]));
		if (!a->spill[m] || jl_spill_open(a->spill[m])) {
			free(a->spill[m]);
			a->spill[m] = NULL;
			goto fail;
		}
	}
	return 0;
fail:
	jl_series_accumulator_free(a);
	errno = ENOMEM;
	return -1;
}

void jl_series_accumulator_free(struct jl_series_accumulator *a)
{
	jl_stream_free(&a->latency);
	jl_stream_free(&a->period);
	jl_stream_free(&a->response);
	jl_stream_free(&a->age);
	jl_stream_free(&a->e2e);
	free(a->missed);
	free(a->tail);
	free(a->us);
	a->missed = a->tail = NULL;
	a->us = NULL;
	for (int m = 0; m < 5; m++) {
		if (a->spill[m])
			jl_spill_close(a->spill[m]);
		free(a->spill[m]);
		a->spill[m] = NULL;
	}
}

static void put(struct jl_series_accumulator *a, int m, struct jl_stream *st, int64_t v, uint64_t cycle, size_t k)
{
	jl_stream_add(st, v, cycle);
	if (a->vals[m])
		a->vals[m][k] = v;
	if (a->spill[m])
		jl_spill_add(a->spill[m], v);
}

void jl_us_hist_add(struct jl_us_hist *h, int64_t us, uint64_t cycle)
{
	if (!h->cycles || us < h->min)
		h->min = us;
	if (!h->cycles || us > h->max)
		h->max = us;
	h->cycles++;
	h->sum += us;
	if (us < JL_CYCLICTEST_HIST_US) {
		h->count[us < 0 ? 0 : us]++; /* a negative one (never seen) in the first bucket */
	} else { /* cyclictest counts a value beyond its histogram as an overflow, and keeps its cycle */
		if (h->overflows < JL_CYCLICTEST_OVERFLOW_CYCLES)
			h->over_cycle[h->overflows] = cycle;
		h->overflows++;
	}
}

/* Every release of the window [WS, WE) is one of: a cycle that ran (a sample), a skipped release (one
 * between two cycles that ran, or between the last one and the loop's next_release: overrun = skip), or
 * one not started (at or after next_release: a catchup backlog the end cut off, or a loop that never
 * ran). Counted here from the releases themselves, sample by sample (warm-up ones included), so that
 * cycles + skipped + not_started == releases (see account_end). */
bool jl_series_accumulator_add(struct jl_series_accumulator *a, const struct jl_sample *x, struct jl_cycle_figures *fig)
{
	const struct jl_series *ser = a->ser;
	const int64_t p = ser->period_ns;
	int64_t lat, resp, per = 0;
	uint64_t k;
	bool miss;
	int slot;

	if (ser->periodic) {
		a->skipped += grid_count(a->base, p, max64(a->prev_rel + p, a->ws), min64(x->release, a->we));
		a->prev_rel = x->release;
	}
	a->seen++;
	if (x->release < a->ws || x->release >= a->we)
		return false;
	k = a->cycles++;
	lat = jl_latency_ns(x->release, x->wake);
	resp = jl_response_ns(x->release, x->end);
	miss = ser->deadline_ns > 0 && jl_missed(x->release, x->end, ser->deadline_ns);
	a->misses += miss;
	a->work_sum += x->end - x->wake;
	a->work_max = max64(a->work_max, x->end - x->wake);
	if (x->cpu >= 0 && x->cpu < CPU_SETSIZE)
		CPU_SET(x->cpu, &a->used);
	if (k > 0) {
		per = x->wake - a->prev_wake;
		put(a, JL_ACC_PERIOD, &a->period, per, x->cycle, k - 1);
	}
	a->prev_wake = x->wake;
	slot = jl_stream_add(&a->latency, lat, x->cycle);
	jl_us_hist_add(a->us, jl_cyclictest_latency_us(x->release, x->wake), x->cycle);
	if (a->vals[JL_ACC_LATENCY])
		a->vals[JL_ACC_LATENCY][k] = lat;
	if (a->spill[JL_ACC_LATENCY])
		jl_spill_add(a->spill[JL_ACC_LATENCY], lat);
	put(a, JL_ACC_RESPONSE, &a->response, resp, x->cycle, k);
	if (ser->has_origin && x->origin > 0 && !x->reread) { /* a poll's re-read is no new age */
		put(a, JL_ACC_AGE, &a->age, x->wake - x->origin, x->cycle, a->aged);
		put(a, JL_ACC_E2E, &a->e2e, x->end - x->origin, x->cycle, a->aged);
		a->aged++;
	}
	if (a->keep) {
		struct jl_kept kx = { *x, per };

		if (slot >= 0)
			a->top[slot] = kx;
		if (miss && a->nmissed < JL_KEEP_MISSES)
			a->missed[a->nmissed++] = kx;
		a->tail[a->ntail++ % JL_KEEP_TAIL] = kx;
	}
	if (fig)
		*fig = (struct jl_cycle_figures){ .latency = lat, .response = resp, .period = per, .miss = miss };
	return true;
}

size_t jl_series_accumulator_kept_max(void)
{
	return JL_WORST_K + JL_KEEP_MISSES + JL_KEEP_TAIL;
}

size_t jl_series_accumulator_bytes(void)
{
	return 5 * jl_hist_buckets() * sizeof(uint64_t) + sizeof(struct jl_us_hist) + 5 * sizeof(struct jl_spill) +
	       jl_series_accumulator_kept_max() * (sizeof(struct jl_kept) + sizeof(struct jl_sample));
}

size_t jl_results_series_bytes(const struct jl_engine *eng)
{
	size_t n = 0;

	for (int i = 0; i < eng->nseries; i++)
		n += eng->series[i].cap * sizeof(struct jl_sample) + (eng->series[i].ring ? jl_series_accumulator_bytes() : 0);
	return n;
}

static int cmp_kept(const void *a, const void *b)
{
	const struct jl_kept *x = a, *y = b;

	if (x->s.release != y->s.release)
		return x->s.release < y->s.release ? -1 : 1;
	return (x->s.cycle > y->s.cycle) - (x->s.cycle < y->s.cycle);
}

size_t jl_series_accumulator_kept(const struct jl_series_accumulator *a, struct jl_kept *out)
{
	size_t n = 0, m = 0, tail = a->ntail < JL_KEEP_TAIL ? a->ntail : JL_KEEP_TAIL;

	if (!a->keep)
		return 0;
	for (int i = 0; i < a->latency.top.n; i++)
		out[n++] = a->top[a->latency.top.e[i].slot];
	for (size_t i = 0; i < a->nmissed; i++)
		out[n++] = a->missed[i];
	for (size_t i = 0; i < tail; i++)
		out[n++] = a->tail[i];
	qsort(out, n, sizeof(*out), cmp_kept);
	for (size_t i = 0; i < n; i++) /* one row per cycle: a cycle may be worst, a miss and in the tail */
		if (!m || out[m - 1].s.cycle != out[i].s.cycle || out[m - 1].s.release != out[i].s.release)
			out[m++] = out[i];
	return m;
}

/* The releases the accumulator could not count sample by sample: those after its last sample, up to
 * the loop's next_release (skipped) and from there to the window's end (not started). */
static void account_end(const struct jl_series_accumulator *a, struct jl_series_result *r)
{
	const struct jl_series *ser = a->ser;
	const int64_t p = ser->period_ns;
	int64_t next = ser->next_release > a->base ? ser->next_release : a->base;

	if (a->seen && next < a->prev_rel + p)
		next = a->prev_rel + p;
	r->releases = grid_count(a->base, p, a->ws, a->we);
	r->skipped = a->skipped + grid_count(a->base, p, max64(a->prev_rel + p, a->ws), min64(next, a->we));
	r->not_started = grid_count(a->base, p, max64(next, a->ws), a->we);
}

/* The exact percentiles of a ring's every value, from its spill files, in place of the histograms'
 * (the moments, minimum and maximum are the streams' own, exact already). False, the histograms' kept,
 * when the accumulator had no files or one of them failed. */
static bool spilled_percentiles(struct jl_series_accumulator *a, struct jl_series_result *r)
{
	struct jl_dist *d[5] = { &r->latency, &r->period, &r->response, &r->age, &r->e2e }, exact[5];
	int m;

	for (m = 0; m < 5; m++) {
		if (!a->spill[m])
			break;
		exact[m] = *d[m];
		if (a->spill[m]->err || jl_spill_percentiles(a->spill[m], &exact[m]))
			return false;
	}
	if (m < JL_ACC_AGE || (m == JL_ACC_AGE && a->ser->has_origin))
		return false;
	for (int k = 0; k < m; k++)
		*d[k] = exact[k];
	return true;
}

/* RES from an accumulator A that has seen every sample of its series. VALS: A kept every value (exact
 * percentiles, computed with SCRATCH). */
static int result_from_acc(struct jl_series_accumulator *a, struct jl_series_result *r, bool vals, int64_t *scratch)
{
	const struct jl_series *ser = a->ser;

	r->cycles = a->cycles;
	r->misses = a->misses;
	if (r->periodic)
		account_end(a, r);
	jl_cpulist_format(&a->used, r->cpus_used, sizeof(r->cpus_used));
	/* a loop's work figures and CPUs cover the measured cycles only, like every other figure of it */
	r->work_calls = r->cycles;
	r->work_mean_ns = r->cycles ? (double)a->work_sum / (double)r->cycles : 0.0;
	r->work_max_ns = a->work_max;
	r->rate_hz = r->window_s > 0 ? (double)r->cycles / r->window_s : 0.0;
	if (!r->periodic)
		r->releases = r->cycles;
	r->aged = a->aged;
	r->exact = vals;
	if (vals) {
		if (jl_dist_compute(a->vals[JL_ACC_LATENCY], r->cycles, scratch, &r->latency) ||
		    jl_dist_compute(a->vals[JL_ACC_PERIOD], r->cycles ? r->cycles - 1 : 0, scratch, &r->period) ||
		    jl_dist_compute(a->vals[JL_ACC_RESPONSE], r->cycles, scratch, &r->response) ||
		    (ser->has_origin && (jl_dist_compute(a->vals[JL_ACC_AGE], r->aged, scratch, &r->age) ||
					 jl_dist_compute(a->vals[JL_ACC_E2E], r->aged, scratch, &r->e2e))))
			return -1;
	} else {
		jl_stream_dist(&a->latency, &r->latency);
		jl_stream_dist(&a->period, &r->period);
		jl_stream_dist(&a->response, &r->response);
		if (ser->has_origin) {
			jl_stream_dist(&a->age, &r->age);
			jl_stream_dist(&a->e2e, &r->e2e);
		}
		r->exact = spilled_percentiles(a, r);
	}
	r->latency_max_cycle = a->latency.max_cycle;
	r->us = malloc(sizeof(*r->us));
	if (!r->us)
		return -1;
	memcpy(r->us, a->us, sizeof(*r->us));
	r->nworst = jl_topk_sorted(&a->latency.top, r->worst);
	if (a->keep) {
		struct jl_kept *k = malloc(jl_series_accumulator_kept_max() * sizeof(*k));

		if (!k)
			return -1;
		r->nkept = jl_series_accumulator_kept(a, k);
		r->kept = k;
	}
	return 0;
}

/* What a result says of its series before any sample: names, CPUs, the thread's counters */
static void result_head(const struct jl_engine *eng, const struct jl_series *ser, struct jl_series_result *r)
{
	const struct jl_thread *th = jl_series_thread(eng, ser);
	const struct jl_thread_spec *spec = eng->units[ser->unit].spec;

	memset(r, 0, sizeof(*r));
	r->s = ser;
	r->th = th;
	r->spec = spec;
	snprintf(r->name, sizeof(r->name), "%s", ser->name);
	if (spec->place.cpus_set)
		jl_cpulist_format(&spec->place.cpus, r->cpus, sizeof(r->cpus));
	else
		snprintf(r->cpus, sizeof(r->cpus), "all");
	if (th)
		jl_cpulist_format(&th->cpus_used, r->cpus_used, sizeof(r->cpus_used));
	r->measured = ser->measured;
	r->periodic = ser->periodic;
	r->period_ns = ser->period_ns;
	r->nominal_hz = ser->period_ns ? 1e9 / (double)ser->period_ns : 0.0;
	r->work_calls = ser->work_calls;
	r->work_mean_ns = ser->work_calls ? (double)ser->work_sum_ns / (double)ser->work_calls : 0.0;
	r->work_max_ns = ser->work_max_ns;
	r->exact = true;
	if (th) {
		r->cpu_time_ns = th->cpu_time_ns;
		r->ctx_voluntary = th->ctx_voluntary;
		r->ctx_involuntary = th->ctx_involuntary;
	}
}

/* A result from an accumulator that saw every sample up to its window's end (histogram figures) */
static int result_of_acc(const struct jl_engine *eng, struct jl_series_accumulator *a, struct jl_series_result *r)
{
	result_head(eng, a->ser, r);
	r->window_start_ns = a->ws;
	r->window_end_ns = a->we > a->ws ? a->we : a->ws;
	r->window_s = (double)(r->window_end_ns - r->window_start_ns) / 1e9;
	if (!r->periodic && !r->measured)
		return 0;
	return result_from_acc(a, r, false, NULL);
}

int jl_results_snapshot(const struct jl_engine *eng, const struct jl_series_accumulator *a, int64_t upto,
			struct jl_series_result *r)
{
	struct jl_series_accumulator now = *a; /* the same figures, the window cut at UPTO: nothing owed yet */

	if (upto < now.we)
		now.we = upto;
	now.keep = false;
	memset(now.spill, 0, sizeof(now.spill)); /* a checkpoint's percentiles are the histograms' (it says so) */
	return result_of_acc(eng, &now, r);
}

static int series_result(const struct jl_engine *eng, const struct jl_series *ser, struct jl_series_result *r,
			 struct jl_series_accumulator *collected, bool keep_only, int64_t *buf, size_t cap)
{
	size_t n = jl_series_count(ser);
	struct jl_series_accumulator a;
	int rc;

	if ((ser->partial || ser->ring) && collected) { /* a ring's: its collector saw every sample */
		collected->ser = ser; /* the series array may have moved since (the trace adds series) */
		return result_of_acc(eng, collected, r);
	}
	if (ser->ring) { /* a ring no collector read: nothing to say of its cycles */
		result_head(eng, ser, r);
		return 0;
	}
	result_head(eng, ser, r);
	if (!r->periodic && !(ser->measured && n)) {
		int64_t ws = ser->start_ns ? ser->first_release : eng->t_measure;
		int64_t we = jl_engine_window_end(eng);

		r->window_start_ns = ws;
		r->window_end_ns = we > ws ? we : ws;
		r->window_s = (double)(r->window_end_ns - ws) / 1e9;
		return 0;
	}
	if (jl_series_accumulator_init(&a, eng, ser, false, keep_only, false))
		return -1;
	for (int m = 0; m < 5; m++) /* every value, for exact percentiles */
		a.vals[m] = buf + (size_t)m * cap;
	r->window_start_ns = a.ws;
	r->window_end_ns = a.we > a.ws ? a.we : a.ws;
	r->window_s = (double)(r->window_end_ns - a.ws) / 1e9;
	for (size_t i = 0; i < n; i++)
		if (jl_series_accumulator_add(&a, jl_series_at(ser, i), NULL) && !r->cycles++)
			r->first = i;
	rc = result_from_acc(&a, r, true, buf + 5 * cap);
	jl_series_accumulator_free(&a);
	return rc;
}

int jl_results_compute(const struct jl_engine *eng, struct jl_series_result *res, struct jl_series_accumulator *const *accs,
		       int naccs, bool keep_only)
{
	size_t cap = 1;
	int64_t *buf;
	int rc = 0;

	for (int i = 0; i < eng->nseries; i++)
		if (!eng->series[i].partial && !eng->series[i].ring && jl_series_count(&eng->series[i]) > cap)
			cap = jl_series_count(&eng->series[i]);
	buf = malloc(6 * cap * sizeof(*buf));
	if (!buf) {
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < eng->nseries && !rc; i++)
		rc = series_result(eng, &eng->series[i], &res[i], accs && i < naccs ? accs[i] : NULL, keep_only, buf, cap);
	free(buf);
	return rc;
}

void jl_results_free(struct jl_series_result *res, int n)
{
	for (int i = 0; res && i < n; i++) {
		free((void *)res[i].kept);
		free(res[i].us);
		res[i].kept = NULL;
		res[i].us = NULL;
	}
}

/* samples.csv (docs/outputs.md): one row per measured cycle of every measured series, through the one
 * root-safe writer. */
void jl_results_sample_row(FILE *fp, const char *name, const struct jl_series *ser, const struct jl_sample *s,
			   int64_t period)
{
	fprintf(fp, "%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%u,%s\n",
		name, s->cycle, s->release, s->wake, s->end, jl_latency_ns(s->release, s->wake), period,
		jl_response_ns(s->release, s->end), ser->deadline_ns > 0 && jl_missed(s->release, s->end, ser->deadline_ns), s->skipped,
		jl_release_by_name(s->release_by));
}

int jl_results_write_samples(const char *dir, const struct jl_series_result *res, int n)
{
	struct jl_outfile of;

	if (jl_output_open(&of, dir, "samples.csv"))
		return -1;
	fputs(JL_SAMPLES_HEADER, of.fp);
	for (int t = 0; t < n; t++) {
		const struct jl_series_result *r = &res[t];
		const struct jl_series *ser = r->s;

		if (!r->measured)
			continue;
		if (r->kept) { /* samples = worst, or a ring's: the cycles kept */
			for (size_t i = 0; i < r->nkept; i++)
				jl_results_sample_row(of.fp, r->name, ser, &r->kept[i].s, r->kept[i].period);
			continue;
		}
		for (size_t i = r->first; i < r->first + r->cycles; i++) {
			const struct jl_sample *s = jl_series_at(ser, i);

			jl_results_sample_row(of.fp, r->name, ser, s, i > r->first ? s->wake - jl_series_at(ser, i - 1)->wake : 0);
		}
	}
	return jl_output_commit(&of);
}

/* H's overflows with ROWS rows: its own (beyond JL_CYCLICTEST_HIST_US) and its buckets from ROWS on. */
static uint64_t overflows_at(const struct jl_us_hist *h, int64_t rows)
{
	uint64_t o = h->overflows;

	for (int64_t b = rows; b < JL_CYCLICTEST_HIST_US; b++)
		o += h->count[b];
	return o;
}

int jl_results_write_histfile(const char *dir, const struct jl_series_result *res, int n, int64_t bound_us)
{
	static const char *const tail[] = { "# Total:", "# Min Latencies:", "# Avg Latencies:", "# Max Latencies:",
					    "# Histogram Overflows:" };
	struct jl_outfile of;
	int64_t rows = 100;
	int cols = 0, k;

	for (int t = 0; t < n; t++)
		if (res[t].measured && res[t].periodic && res[t].us && res[t].us->cycles) {
			cols++;
			if (res[t].us->max + 1 > rows)
				rows = res[t].us->max + 1;
		}
	if (!cols)
		return 0;
	if (rows > JL_CYCLICTEST_HIST_US)
		rows = JL_CYCLICTEST_HIST_US;
	if (bound_us > 0) /* [run] histogram (cyclictest -h US): the rows asked for, beyond them overflows */
		rows = bound_us < JL_CYCLICTEST_HIST_US ? bound_us : JL_CYCLICTEST_HIST_US;
	if (jl_output_open(&of, dir, "histogram.txt"))
		return -1;
	fputs("# Histogram\n", of.fp);
	for (int64_t b = 0; b < rows; b++) {
		fprintf(of.fp, "%06" PRId64 " ", b);
		k = 0;
		for (int t = 0; t < n; t++)
			if (res[t].measured && res[t].periodic && res[t].us && res[t].us->cycles)
				fprintf(of.fp, "%s%06" PRIu64, k++ ? "\t" : "", res[t].us->count[b]);
		fputc('\n', of.fp);
	}
	/* the lines after the rows, as cyclictest prints them: one value per loop */
	for (size_t line = 0; line < sizeof(tail) / sizeof(tail[0]); line++) {
		fputs(tail[line], of.fp);
		for (int t = 0; t < n; t++) {
			const struct jl_us_hist *h = res[t].us;
			uint64_t total = 0;

			if (!(res[t].measured && res[t].periodic && h && h->cycles))
				continue;
			for (int64_t b = 0; b < rows; b++)
				total += h->count[b];
			switch (line) {
			case 0: fprintf(of.fp, " %09" PRIu64, total); break;
			case 1: fprintf(of.fp, " %05" PRId64, h->min); break;
			case 2: fprintf(of.fp, " %05" PRId64, h->sum / (int64_t)h->cycles); break;
			case 3: fprintf(of.fp, " %05" PRId64, h->max); break;
			default: fprintf(of.fp, " %05" PRIu64, overflows_at(h, rows));
			}
		}
		fputc('\n', of.fp);
	}
	fputs("# Histogram Overflow at cycle number:\n", of.fp);
	k = 0;
	for (int t = 0; t < n; t++) {
		const struct jl_us_hist *h = res[t].us;
		uint64_t shown, all;

		if (!(res[t].measured && res[t].periodic && h && h->cycles))
			continue;
		fprintf(of.fp, "# Thread %d:", k++);
		/* the cycle numbers kept are those beyond JL_CYCLICTEST_HIST_US; a lower bound's others are counted */
		all = overflows_at(h, rows);
		shown = h->overflows < JL_CYCLICTEST_OVERFLOW_CYCLES ? h->overflows : JL_CYCLICTEST_OVERFLOW_CYCLES;
		for (uint64_t i = 0; i < shown; i++)
			fprintf(of.fp, " %05" PRIu64, h->over_cycle[i]);
		if (shown < all)
			fprintf(of.fp, " # %05" PRIu64 " others", all - shown);
		fputc('\n', of.fp);
	}
	fputc('\n', of.fp);
	return jl_output_commit(&of);
}

int jl_results_write_callbacks(const char *dir, const struct jl_engine *eng, const struct jl_series_result *res, int n)
{
	struct jl_outfile of;
	bool any = false;

	for (int t = 0; t < n; t++)
		any |= res[t].measured && eng->units[res[t].s->unit].spec->beh.kind == JL_BEH_EXECUTOR;
	if (!any)
		return 0;
	if (jl_output_open(&of, dir, "callbacks.csv"))
		return -1;
	fputs("callback,executor,thread,tid,cycle,run,ready_ns,start_ns,end_ns,origin_ns,source,source_run,sync,reread\n", of.fp);
	for (int t = 0; t < n; t++) {
		const struct jl_series_result *r = &res[t];
		const struct jl_unit *u = &eng->units[r->s->unit];

		if (!r->measured || u->spec->beh.kind != JL_BEH_EXECUTOR)
			continue;
		for (size_t i = r->first; i < r->first + r->cycles; i++) {
			const struct jl_sample *s = jl_series_at(r->s, i);
			/* the run that published what it consumed: the chain's link (empty for a timer) */
			const char *src = s->src && s->src <= eng->nseries ? eng->series[s->src - 1].name : "";
			const char *via = s->via_sync && s->via_sync <= eng->sc->nsyncs ? eng->sc->syncs[s->via_sync - 1].name : "";
			char src_run[16] = "";
			int k = -1;

			for (int j = 0; j < u->nthreads && k < 0; j++) /* which pool thread ran it */
				if (eng->threads[u->first_thread + j].tid == s->tid)
					k = j;
			if (src[0])
				snprintf(src_run, sizeof(src_run), "%u", s->src_run);
			fprintf(of.fp, "%s,%s,%d,%d,%" PRIu64 ",%u,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%s,%s,%s,%d\n",
				r->name, u->spec->name, k, (int)s->tid, s->cycle, s->run, s->release, s->wake, s->end,
				s->origin, src, src_run, via, s->reread);
		}
	}
	return jl_output_commit(&of);
}

int jl_results_write_locks(const char *dir, const struct jl_engine *eng)
{
	struct jl_outfile of;

	if (!eng->nlocks)
		return 0;
	if (jl_output_open(&of, dir, "locks.csv"))
		return -1;
	fputs("lock,thread,tid,ask_ns,got_ns,rel_ns\n", of.fp);
	for (int i = 0; i < eng->nlocks; i++) {
		const struct jl_lock *l = &eng->locks[i];

		for (size_t k = 0; k < jl_lock_count(l); k++) {
			const struct jl_lock_sample *x = &l->samples[k];
			const char *who = "";

			for (int t = 0; t < eng->nthreads; t++)
				if (eng->threads[t].tid == x->tid)
					who = eng->threads[t].name;
			fprintf(of.fp, "%s,%s,%d,%" PRId64 ",%" PRId64 ",%" PRId64 "\n", l->name, who, (int)x->tid, x->ask, x->got,
				x->rel);
		}
	}
	return jl_output_commit(&of);
}

int jl_results_write_requests(const char *dir, const struct jl_engine *eng)
{
	size_t n, lost;
	const struct jl_request *reqs = jl_executor_requests(eng, &n, &lost);
	struct jl_outfile of;

	if (!eng->sc->nsources && !n)
		return 0;
	if (jl_output_open(&of, dir, "requests.csv"))
		return -1;
	fputs("request,queue,source,parent,server,status,created_ns,deadline_ns,start_ns,end_ns,gave_up_ns,wasted_ns\n", of.fp);
	for (size_t i = 0; i < n; i++) {
		const struct jl_request *r = &reqs[i];
		const char *src = r->source >= 0 && r->source < eng->sc->nsources ? eng->sc->sources[r->source].t.name : "";
		const char *srv = r->server >= 0 && r->server < eng->nseries ? eng->series[r->server].name : "";
		char parent[16] = "";

		if (r->parent >= 0)
			snprintf(parent, sizeof(parent), "%d", r->parent);
		fprintf(of.fp, "%zu,%s,%s,%s,%s,%s,%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 "\n", i,
			r->topic >= 0 && r->topic < eng->sc->ntopics ? eng->sc->topics[r->topic].name : "", src, parent, srv,
			jl_req_status_name(jl_request_status(r)), r->created,
			r->deadline, r->start, r->end, jl_request_gave_up(r),
			jl_request_wasted(reqs, n, r));
	}
	return jl_output_commit(&of);
}
