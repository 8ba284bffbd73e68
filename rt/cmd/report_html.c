/* report_html: report.html, one self-contained page per run (report_html.h). */
#include "report_html.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <unistd.h>

#include "../base/output.h"
#include "../base/documents.h"
#include "../base/samples_read.h"
#include "../base/stats.h"
#include "../summary/summary_read.h"
#include "../base/summary_keys.h"
#include "../trace/analysis/parts.h"
#include "commands.h"

/* the renderer, report_html.js, in the binary as it is in the tree (the Makefile makes this object depend
 * on it); NUL-terminated */
__asm__(".section .rodata\n"
	".global jl_report_html_js\n"
	".type jl_report_html_js, @object\n"
	"jl_report_html_js:\n"
	".incbin \"rt/cmd/report_html.js\"\n"
	".byte 0\n"
	".previous\n");
extern const char jl_report_html_js[];

#define HTML_SERIES 64
#define HTML_COLUMNS 800  /* latency over time: each column's min and max */
#define HTML_BINS 400     /* at most, per histogram */
#define HTML_MISSES 2000  /* misses marked, per series (all counted) */
#define HTML_SPIKES 2000  /* the largest cycles at or above the series' p99, per series (all counted) */

static const char CSS[] =
	"@page{size:A4;margin:12mm}"
	"body{font:14px/1.4 system-ui,sans-serif;color:#111;background:#fff;margin:0 auto;max-width:1000px;padding:0 16px}"
	"h1{font-size:22px}h2{font-size:18px;border-bottom:1px solid #ccc;margin-top:28px}h3{font-size:15px}"
	"table{border-collapse:collapse;margin:8px 0;font-size:13px}td,th{border:1px solid #ccc;padding:2px 6px;"
	"text-align:left;vertical-align:top}th{background:#f0f0f0}"
	"figure{margin:8px 0;break-inside:avoid}figcaption{font-size:12px;color:#333}"
	"svg.plot{width:100%;height:auto;break-inside:avoid}.frame{fill:none;stroke:#555}.grid{stroke:#ddd}"
	".tick{stroke:#555}.tl{font-size:11px;fill:#222}.al{font-size:12px;fill:#111}.pl{font-size:11px;fill:#fff}"
	".miss{fill:#c00}.expl{fill:#000}.part{stroke:#fff;stroke-width:.5}"
	".none{color:#555;font-style:italic}.good{color:#060;font-weight:600}.bad{color:#b00;font-weight:600}"
	".warn{color:#8a5a00}.advice{color:#333}.cycle{break-inside:avoid;margin-bottom:12px}"
	"details{margin-left:14px}summary{cursor:pointer}.leaf{margin-left:14px;font-size:13px}.k{color:#555}"
	"code{background:#f4f4f4;padding:1px 4px}";

struct hist {
	int64_t width;
	uint64_t *n;   /* HTML_BINS + 1: the last one holds what is beyond */
};

struct series {
	char name[64];
	uint64_t cycles, misses, nmiss;
	int64_t first, last, lat_max, per_max, prev_wake;
	struct hist lat, per;
	int64_t cmin[HTML_COLUMNS], cmax[HTML_COLUMNS];
	int64_t (*miss)[3];       /* time (ns from t0), latency, cycle: the first HTML_MISSES */
	int64_t p99;              /* summary.json's latency p99 of the series: a spike is at or above it */
	int64_t (*spike)[3];      /* as miss[]: the HTML_SPIKES largest spikes, a min-heap on latency */
	uint64_t nspike, spikes;  /* held, and all */
	json_object *explained;   /* [[t s, latency, cycle]] of its cycles in trace.worst[] */
};

struct reduce {
	struct series *s;
	int n;
	int pass;
	int64_t t0, t1;           /* the columns' span (ns) */
	json_object *worst;       /* trace.worst[] */
};

static struct series *series_of(struct reduce *r, const char *name)
{
	for (int i = 0; i < r->n; i++)
		if (!strcmp(r->s[i].name, name))
			return &r->s[i];
	if (r->n == HTML_SERIES || r->pass)
		return NULL;
	snprintf(r->s[r->n].name, sizeof(r->s[r->n].name), "%s", name);
	r->s[r->n].first = INT64_MAX;
	return &r->s[r->n++];
}

static void hist_add(struct hist *h, int64_t v)
{
	int64_t b = v < 0 ? 0 : v / h->width;

	h->n[b > HTML_BINS ? HTML_BINS : b]++;
}

/* Spike (time, LAT, cycle) into S's heap of the HTML_SPIKES largest */
static void spike_add(struct series *s, int64_t t, int64_t lat, int64_t cycle)
{
	size_t i;

	s->spikes++;
	if (s->nspike == HTML_SPIKES && lat <= s->spike[0][1])
		return;
	if (s->nspike < HTML_SPIKES) { /* sift up from the end */
		for (i = s->nspike++; i && s->spike[(i - 1) / 2][1] > lat; i = (i - 1) / 2)
			memcpy(s->spike[i], s->spike[(i - 1) / 2], sizeof(s->spike[i]));
	} else { /* the least gives way: sift down from the root */
		for (i = 0;;) {
			size_t c = 2 * i + 1;

			if (c >= s->nspike)
				break;
			if (c + 1 < s->nspike && s->spike[c + 1][1] < s->spike[c][1])
				c++;
			if (s->spike[c][1] >= lat)
				break;
			memcpy(s->spike[i], s->spike[c], sizeof(s->spike[i]));
			i = c;
		}
	}
	s->spike[i][0] = t;
	s->spike[i][1] = lat;
	s->spike[i][2] = cycle;
}

/* Whether row X is one of trace.worst[]'s cycles (an entry without a string thread or a number cycle, as a
 * hand-edited summary may have, is none) */
static bool explained_row(const struct reduce *r, const struct jl_sample_row *x)
{
	for (size_t k = 0; r->worst && k < json_object_array_length(r->worst); k++) {
		json_object *w = json_object_array_get_idx(r->worst, k), *t, *c;

		if (json_object_object_get_ex(w, JL_K(thread), &t) && json_object_is_type(t, json_type_string) &&
		    json_object_object_get_ex(w, JL_K(cycle), &c) && json_object_is_type(c, json_type_int) &&
		    (uint64_t)json_object_get_int64(c) == x->cycle && !strcmp(json_object_get_string(t), x->thread))
			return true;
	}
	return false;
}

/* Pass 0: each series' span and maxima; pass 1: its histograms, columns, misses and spikes. A row's period is
 * samples.csv's own (from the previous cycle, kept or not: with samples = worst the rows have gaps), else
 * from the previous row. */
static int row(void *ctx, const struct jl_sample_row *x)
{
	struct reduce *r = ctx;
	struct series *s = series_of(r, x->thread);
	int64_t lat = x->wake - x->release, per;

	if (!s)
		return 0;
	per = x->period > 0 ? x->period : x->period == 0 ? -1 : s->prev_wake ? x->wake - s->prev_wake : -1;
	s->prev_wake = x->wake;
	if (!r->pass) {
		s->cycles++;
		s->first = x->release < s->first ? x->release : s->first;
		s->last = x->release > s->last ? x->release : s->last;
		s->lat_max = lat > s->lat_max ? lat : s->lat_max;
		s->per_max = per > s->per_max ? per : s->per_max;
		s->misses += x->miss;
		return 0;
	}
	{
		int64_t c = r->t1 > r->t0 ? (x->release - r->t0) * HTML_COLUMNS / (r->t1 - r->t0 + 1) : 0;

		c = c < 0 ? 0 : c >= HTML_COLUMNS ? HTML_COLUMNS - 1 : c;
		if (s->cmax[c] < 0 || lat > s->cmax[c])
			s->cmax[c] = lat;
		if (s->cmin[c] < 0 || lat < s->cmin[c])
			s->cmin[c] = lat;
	}
	hist_add(&s->lat, lat);
	if (per >= 0)
		hist_add(&s->per, per);
	if (x->miss && s->nmiss < HTML_MISSES) {
		s->miss[s->nmiss][0] = x->release - r->t0;
		s->miss[s->nmiss][1] = lat;
		s->miss[s->nmiss++][2] = (int64_t)x->cycle;
	}
	if (s->p99 > 0 && lat >= s->p99)
		spike_add(s, x->release - r->t0, lat, (int64_t)x->cycle);
	if (explained_row(r, x)) {
		json_object *p = json_object_new_array();

		json_object_array_add(p, json_object_new_double((double)(x->release - r->t0) / 1e9));
		json_object_array_add(p, json_object_new_int64(lat));
		json_object_array_add(p, json_object_new_int64((int64_t)x->cycle));
		json_object_array_add(s->explained, p);
	}
	return 0;
}

static json_object *hist_json(const struct hist *h)
{
	json_object *o = json_object_new_object(), *bins = json_object_new_array();

	json_object_object_add(o, "width", json_object_new_int64(h->width));
	for (int b = 0; h->n && b <= HTML_BINS; b++) {
		json_object *x;

		if (!h->n[b])
			continue;
		x = json_object_new_array();
		json_object_array_add(x, json_object_new_int64((int64_t)b * h->width));
		json_object_array_add(x, json_object_new_int64((int64_t)h->n[b]));
		json_object_array_add(bins, x);
	}
	json_object_object_add(o, "bins", bins);
	return o;
}

/* [[t s, latency, cycle]] of the N marks V (time in ns) into ARR */
static void marks(json_object *arr, int64_t (*v)[3], uint64_t n)
{
	for (uint64_t k = 0; k < n; k++) {
		json_object *p = json_object_new_array();

		json_object_array_add(p, json_object_new_double((double)v[k][0] / 1e9));
		json_object_array_add(p, json_object_new_int64(v[k][1]));
		json_object_array_add(p, json_object_new_int64(v[k][2]));
		json_object_array_add(arr, p);
	}
}

static json_object *series_json(const struct reduce *r, struct series *s)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();
	json_object *x = json_object_new_array(), *mn = json_object_new_array(), *mx = json_object_new_array();
	json_object *m = json_object_new_array(), *sp = json_object_new_array();

	json_object_object_add(o, "t0_ns", json_object_new_int64(r->t0)); /* what the times count from */
	json_object_object_add(o, "span_s", json_object_new_double((double)(r->t1 - r->t0) / 1e9));
	json_object_object_add(o, "hist", hist_json(&s->lat));
	json_object_object_add(o, "period", hist_json(&s->per));
	for (int c = 0; c < HTML_COLUMNS; c++) {
		if (s->cmax[c] < 0)
			continue;
		json_object_array_add(x, json_object_new_double((double)(r->t1 - r->t0) * (c + 0.5) / HTML_COLUMNS / 1e9));
		json_object_array_add(mn, json_object_new_int64(s->cmin[c]));
		json_object_array_add(mx, json_object_new_int64(s->cmax[c]));
	}
	json_object_object_add(t, "x", x);
	json_object_object_add(t, "min", mn);
	json_object_object_add(t, "max", mx);
	json_object_object_add(t, "cycles", json_object_new_int64((int64_t)s->cycles));
	json_object_object_add(o, "time", t);
	marks(m, s->miss, s->nmiss);
	json_object_object_add(o, "misses", m);
	json_object_object_add(o, "misses_total", json_object_new_int64((int64_t)s->misses));
	marks(sp, s->spike, s->nspike);
	json_object_object_add(o, "spikes", sp);
	json_object_object_add(o, "spikes_total", json_object_new_int64((int64_t)s->spikes));
	json_object_object_add(o, "spike_from_ns", json_object_new_int64(s->p99));
	json_object_object_add(o, "explained", json_object_get(s->explained));
	return o;
}

static void series_free(struct reduce *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->s[i].lat.n);
		free(r->s[i].per.n);
		free(r->s[i].miss);
		free(r->s[i].spike);
		json_object_put(r->s[i].explained);
	}
	free(r->s);
}

/* The latency p99 summary.json gives series NAME (threads[]), 0 when it gives none */
static int64_t summary_p99(json_object *summary, const char *name)
{
	json_object *th, *t, *v;

	if (!json_object_object_get_ex(summary, JL_K(threads), &th) || !json_object_is_type(th, json_type_array))
		return 0;
	for (size_t i = 0; i < json_object_array_length(th); i++) {
		t = json_object_array_get_idx(th, i);
		if (json_object_object_get_ex(t, JL_K(name), &v) && json_object_is_type(v, json_type_string) &&
		    !strcmp(json_object_get_string(v), name) && json_object_object_get_ex(t, JL_K(latency_ns), &v) &&
		    json_object_object_get_ex(v, JL_K(p99), &v) && json_object_is_type(v, json_type_int))
			return json_object_get_int64(v);
	}
	return 0;
}

/* Pass 1's arrays for every series found by pass 0. 0, or -1 (ENOMEM). */
static int series_alloc(struct reduce *r, json_object *summary)
{
	r->t0 = INT64_MAX;
	r->t1 = 0;
	for (int i = 0; i < r->n; i++) {
		struct series *s = &r->s[i];

		s->lat.width = jl_bin_width(s->lat_max, 1, HTML_BINS - 1);
		s->per.width = jl_bin_width(s->per_max, 1, HTML_BINS - 1);
		s->lat.n = calloc(HTML_BINS + 1, sizeof(*s->lat.n));
		s->per.n = calloc(HTML_BINS + 1, sizeof(*s->per.n));
		s->miss = calloc(HTML_MISSES, sizeof(*s->miss));
		s->spike = calloc(HTML_SPIKES, sizeof(*s->spike));
		s->explained = json_object_new_array();
		s->p99 = summary_p99(summary, s->name);
		if (!s->lat.n || !s->per.n || !s->miss || !s->spike || !s->explained)
			return -1;
		for (int c = 0; c < HTML_COLUMNS; c++)
			s->cmin[c] = s->cmax[c] = -1;
		s->prev_wake = 0;
		r->t0 = s->first < r->t0 ? s->first : r->t0;
		r->t1 = s->last > r->t1 ? s->last : r->t1;
	}
	{ /* the columns start where the measured phase does, when the summary says */
		json_object *tm;

		if (json_object_object_get_ex(summary, JL_K(t_measure_ns), &tm) && json_object_is_type(tm, json_type_int) &&
		    json_object_get_int64(tm) > 0 &&
		    json_object_get_int64(tm) < r->t0)
			r->t0 = json_object_get_int64(tm);
	}
	return 0;
}

/* DIR's samples.csv reduced per series (min/max columns, histograms, misses, the explained cycles) into
 * a JSON object; an empty one when there is no samples.csv. NULL: out of memory. */
static json_object *reduce_samples(const char *dir, json_object *summary)
{
	struct reduce r = { .s = calloc(HTML_SERIES, sizeof(struct series)) };
	json_object *o = json_object_new_object(), *trace;
	char err[256];

	if (!r.s)
		return NULL;
	if (json_object_object_get_ex(summary, JL_K(trace), &trace) &&
	    (!json_object_object_get_ex(trace, JL_K(worst), &r.worst) || !json_object_is_type(r.worst, json_type_array)))
		r.worst = NULL;
	if (jl_samples_read(dir, NULL, row, &r, err, sizeof(err)) < 0 || !r.n) {
		series_free(&r);
		return o;
	}
	if (series_alloc(&r, summary) < 0) {
		series_free(&r);
		json_object_put(o);
		return NULL;
	}
	r.pass = 1;
	if (jl_samples_read(dir, NULL, row, &r, err, sizeof(err)) == 0)
		for (int i = 0; i < r.n; i++)
			json_object_object_add(o, r.s[i].name, series_json(&r, &r.s[i]));
	series_free(&r);
	return o;
}

/* The registries the page reads: every summary key's meaning, every part kind's, every exit status's */
static void registries(json_object *d)
{
	json_object *k = json_object_new_object(), *p = json_object_new_object(), *x = json_object_new_object();

	for (int i = 0; i < JL_NKEYS; i++) {
		json_object *e = json_object_new_object();

		json_object_object_add(e, "help", json_object_new_string(jl_summary_keys[i].meaning));
		json_object_object_add(e, "places", json_object_new_string(jl_summary_keys[i].places));
		json_object_object_add(k, jl_summary_keys[i].key, e);
	}
	for (int i = 0; i < jl_npart_kinds; i++)
		json_object_object_add(p, jl_part_kinds[i].name, json_object_new_string(jl_part_kinds[i].help));
	for (int i = 0; i < jl_exit_nstatuses; i++) {
		char code[16];

		snprintf(code, sizeof(code), "%d", jl_exit_statuses[i].code);
		json_object_object_add(x, code, json_object_new_string(jl_exit_statuses[i].text));
	}
	json_object_object_add(d, "keys", k);
	json_object_object_add(d, "parts", p);
	json_object_object_add(d, "exit_statuses", x);
}

/* S as text of an HTML element: & < > " ' escaped */
static void html_text(FILE *f, const char *s)
{
	for (; s && *s; s++)
		switch (*s) {
		case '&': fputs("&amp;", f); break;
		case '<': fputs("&lt;", f); break;
		case '>': fputs("&gt;", f); break;
		case '"': fputs("&quot;", f); break;
		case '\'': fputs("&#39;", f); break;
		default: fputc(*s, f);
		}
}

/* JSON text J inside <script type="application/json">: < > & as \u escapes (they occur only inside JSON
 * strings, where the escapes mean the same), so no "</script>" or "<!--" can end or bend the element */
static void json_inline(FILE *f, const char *j)
{
	for (; *j; j++)
		switch (*j) {
		case '<': fputs("\\u003c", f); break;
		case '>': fputs("\\u003e", f); break;
		case '&': fputs("\\u0026", f); break;
		default: fputc(*j, f);
		}
}

/* The page: D (the data) inline, the renderer under a nonce the Content-Security-Policy names alone */
static void page(FILE *f, json_object *d, const char *title)
{
	unsigned char rnd[16];
	char nonce[33];

	if (getrandom(rnd, sizeof(rnd), 0) != (ssize_t)sizeof(rnd))
		memset(rnd, 0x5a, sizeof(rnd)); /* no entropy: a fixed nonce still allows nothing but this page's own */
	for (int i = 0; i < 16; i++)
		snprintf(nonce + 2 * i, 3, "%02x", rnd[i]);
	fprintf(f, "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
		   "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; script-src 'nonce-%s'; "
		   "style-src 'nonce-%s'; img-src data:\">\n<meta name=\"viewport\" content=\"width=device-width\">\n<title>",
		nonce, nonce);
	html_text(f, title);
	fprintf(f, "</title>\n<style nonce=\"%s\">%s</style>\n</head><body>\n<noscript><p>This page draws its tables and "
		   "plots with its own inline script: allow it, or read summary.json and report.md beside it.</p></noscript>\n"
		   "<main id=\"page\"></main>\n<script type=\"application/json\" id=\"jl-data\">", nonce, CSS);
	json_inline(f, json_object_to_json_string_ext(d, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE));
	fprintf(f, "</script>\n<script nonce=\"%s\">\n%s</script>\n</body></html>\n", nonce, jl_report_html_js);
}

/* DIR/report.html: the page of data D (its reference taken), titled TITLE. 0, or -1 with ERR. */
static int write_page(const char *dir, json_object *d, const char *title, char *err, size_t errlen)
{
	struct jl_outfile of;
	int rc = 0;

	registries(d);
	json_object_object_add(d, "dir", json_object_new_string(dir));
	if (jl_output_open(&of, dir, "report.html") < 0) {
		snprintf(err, errlen, "report.html: %s/report.html: %s", dir, strerror(errno));
		json_object_put(d);
		return -1;
	}
	page(of.fp, d, title);
	if (ferror(of.fp)) {
		jl_output_abort(&of);
		errno = EIO;
		rc = -1;
	} else if (jl_output_commit(&of) < 0) {
		rc = -1;
	}
	if (rc < 0)
		snprintf(err, errlen, "report.html: %s/report.html: %s", dir, strerror(errno));
	json_object_put(d);
	return rc;
}

int jl_report_html_run(const char *dir, json_object *summary, char *err, size_t errlen)
{
	json_object *d = json_object_new_object(), *series, *sc;
	char title[256];

	if (!(series = reduce_samples(dir, summary))) {
		json_object_put(d);
		snprintf(err, errlen, "report.html: out of memory");
		return -1;
	}
	json_object_object_add(d, "kind", json_object_new_string("run"));
	json_object_object_add(d, "summary", json_object_get(summary));
	json_object_object_add(d, "series", series);
	snprintf(title, sizeof(title), "jitterlab: %s",
		 json_object_object_get_ex(summary, JL_K(scenario), &sc) ? json_object_get_string(sc) : "run");
	return write_page(dir, d, title, err, errlen);
}

int jl_report_html_runs(const char *out, char *const *dirs, json_object *const *sums, int n, char *err, size_t errlen)
{
	json_object *d = json_object_new_object(), *runs = json_object_new_array();

	json_object_object_add(d, "kind", json_object_new_string("runs"));
	json_object_object_add(d, "runs", runs);
	for (int i = 0; i < n; i++) {
		json_object *r = json_object_new_object(), *series = reduce_samples(dirs[i], sums[i]);

		json_object_array_add(runs, r);
		if (!series) {
			json_object_put(d);
			snprintf(err, errlen, "report.html: out of memory");
			return -1;
		}
		json_object_object_add(r, "dir", json_object_new_string(dirs[i]));
		json_object_object_add(r, "summary", json_object_get(sums[i]));
		json_object_object_add(r, "series", series);
	}
	return write_page(out, d, "jitterlab: runs side by side", err, errlen);
}

/* DIR's document of KIND when it holds one of a shape its page can read, else NULL */
static json_object *doc_of(enum jl_document_kind kind, const char *dir)
{
	char err[PATH_MAX + 256];

	return jl_document_read(kind, dir, err, sizeof(err));
}

int jl_report_html_sweep(const char *dir, json_object *sweep, char *err, size_t errlen)
{
	json_object *d = json_object_new_object(), *sc, *cmp = doc_of(JL_DOC_COMPARE, dir);
	char title[256];

	json_object_object_add(d, "kind", json_object_new_string("sweep"));
	json_object_object_add(d, "sweep", json_object_get(sweep));
	if (cmp) /* sweep --baseline: the comparison is a section of the sweep's page */
		json_object_object_add(d, "compare", cmp);
	snprintf(title, sizeof(title), "jitterlab sweep: %s",
		 json_object_object_get_ex(sweep, JL_K(scenario), &sc) ? json_object_get_string(sc) : "?");
	return write_page(dir, d, title, err, errlen);
}

int jl_report_html_compare(const char *dir, json_object *cmp, char *err, size_t errlen)
{
	json_object *d, *sc, *sweep = doc_of(JL_DOC_SWEEP, dir);
	char title[256];
	int rc;

	if (sweep) { /* a sweep's directory (sweep --baseline): its page, with the comparison */
		rc = jl_report_html_sweep(dir, sweep, err, errlen);
		json_object_put(sweep);
		return rc;
	}
	d = json_object_new_object();
	json_object_object_add(d, "kind", json_object_new_string("compare"));
	json_object_object_add(d, "compare", json_object_get(cmp));
	snprintf(title, sizeof(title), "jitterlab compare: %s",
		 json_object_object_get_ex(cmp, JL_K(scenario), &sc) ? json_object_get_string(sc) : "?");
	return write_page(dir, d, title, err, errlen);
}
