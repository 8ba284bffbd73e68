/* report_html: report.html, one self-contained page per run (report_html.h). */
#include "report_html.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>

#include "../base/output.h"
#include "../base/samples_read.h"
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

/* A bin width of 1, 2 or 5 x 10^k ns giving at most HTML_BINS bins up to MAX */
static int64_t bin_width(int64_t max)
{
	static const int64_t steps[] = { 1, 2, 5 };

	for (int64_t dec = 1;; dec *= 10)
		for (int i = 0; i < 3; i++)
			if (max / (steps[i] * dec) < HTML_BINS)
				return steps[i] * dec;
}

static void hist_add(struct hist *h, int64_t v)
{
	int64_t b = v < 0 ? 0 : v / h->width;

	h->n[b > HTML_BINS ? HTML_BINS : b]++;
}

/* Pass 0: each series' span and maxima; pass 1: its histograms, columns and misses. */
static int row(void *ctx, const struct jl_sample_row *x)
{
	struct reduce *r = ctx;
	struct series *s = series_of(r, x->thread);
	int64_t lat = x->wake - x->release, per;

	if (!s)
		return 0;
	per = s->prev_wake ? x->wake - s->prev_wake : -1;
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
	for (size_t k = 0; r->worst && k < json_object_array_length(r->worst); k++) {
		json_object *w = json_object_array_get_idx(r->worst, k), *t, *c;

		if (json_object_object_get_ex(w, JL_K(thread), &t) && json_object_object_get_ex(w, JL_K(cycle), &c) &&
		    (uint64_t)json_object_get_int64(c) == x->cycle && !strcmp(json_object_get_string(t), x->thread)) {
			json_object *p = json_object_new_array();

			json_object_array_add(p, json_object_new_double((double)(x->release - r->t0) / 1e9));
			json_object_array_add(p, json_object_new_int64(lat));
			json_object_array_add(p, json_object_new_int64((int64_t)x->cycle));
			json_object_array_add(s->explained, p);
		}
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

static json_object *series_json(const struct reduce *r, struct series *s)
{
	json_object *o = json_object_new_object(), *t = json_object_new_object();
	json_object *x = json_object_new_array(), *mn = json_object_new_array(), *mx = json_object_new_array();
	json_object *m = json_object_new_array();

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
	for (uint64_t k = 0; k < s->nmiss; k++) {
		json_object *p = json_object_new_array();

		json_object_array_add(p, json_object_new_double((double)s->miss[k][0] / 1e9));
		json_object_array_add(p, json_object_new_int64(s->miss[k][1]));
		json_object_array_add(p, json_object_new_int64(s->miss[k][2]));
		json_object_array_add(m, p);
	}
	json_object_object_add(o, "misses", m);
	json_object_object_add(o, "misses_total", json_object_new_int64((int64_t)s->misses));
	json_object_object_add(o, "explained", json_object_get(s->explained));
	return o;
}

static void series_free(struct reduce *r)
{
	for (int i = 0; i < r->n; i++) {
		free(r->s[i].lat.n);
		free(r->s[i].per.n);
		free(r->s[i].miss);
		json_object_put(r->s[i].explained);
	}
	free(r->s);
}

/* Pass 1's arrays for every series found by pass 0. 0, or -1 (ENOMEM). */
static int series_alloc(struct reduce *r, json_object *summary)
{
	r->t0 = INT64_MAX;
	r->t1 = 0;
	for (int i = 0; i < r->n; i++) {
		struct series *s = &r->s[i];

		s->lat.width = bin_width(s->lat_max);
		s->per.width = bin_width(s->per_max > 0 ? s->per_max : 1);
		s->lat.n = calloc(HTML_BINS + 1, sizeof(*s->lat.n));
		s->per.n = calloc(HTML_BINS + 1, sizeof(*s->per.n));
		s->miss = calloc(HTML_MISSES, sizeof(*s->miss));
		s->explained = json_object_new_array();
		if (!s->lat.n || !s->per.n || !s->miss || !s->explained)
			return -1;
		for (int c = 0; c < HTML_COLUMNS; c++)
			s->cmin[c] = s->cmax[c] = -1;
		s->prev_wake = 0;
		r->t0 = s->first < r->t0 ? s->first : r->t0;
		r->t1 = s->last > r->t1 ? s->last : r->t1;
	}
	{ /* the columns start where the measured phase does, when the summary says */
		json_object *tm;

		if (json_object_object_get_ex(summary, JL_K(t_measure_ns), &tm) && json_object_get_int64(tm) > 0 &&
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
	if (json_object_object_get_ex(summary, JL_K(trace), &trace))
		json_object_object_get_ex(trace, JL_K(worst), &r.worst);
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

int jl_report_html_sweep(const char *dir, json_object *sweep, char *err, size_t errlen)
{
	json_object *d = json_object_new_object(), *sc;
	char title[256];

	json_object_object_add(d, "kind", json_object_new_string("sweep"));
	json_object_object_add(d, "sweep", json_object_get(sweep));
	snprintf(title, sizeof(title), "jitterlab sweep: %s",
		 json_object_object_get_ex(sweep, "scenario", &sc) ? json_object_get_string(sc) : "?");
	return write_page(dir, d, title, err, errlen);
}
