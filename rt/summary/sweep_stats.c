/* sweep_stats: turn a sweep's per-run summaries into statistics across runs (welch.c), build sweep.json
 * with json-c, print the comparison table from it, and check each run for a start-up transient from its
 * samples.csv. Reads files; never writes any, never starts anything. */
#include "sweep.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/samples_read.h"
#include "summary.h"
#include "../base/welch.h"
#include "../base/summary_keys.h"

static const char *unit_name(enum jl_metric_unit u)
{
	return u == JL_UNIT_NS ? "ns" : u == JL_UNIT_HZ ? "Hz" : u == JL_UNIT_FRACTION ? "fraction" : "count";
}

static enum jl_metric_unit unit_from_name(const char *s)
{
	return !strcmp(s, "ns") ? JL_UNIT_NS : !strcmp(s, "Hz") ? JL_UNIT_HZ : !strcmp(s, "fraction") ? JL_UNIT_FRACTION : JL_UNIT_COUNT;
}

/* The value of metric M for thread T, or false when absent. */
static bool metric_value(json_object *t, const struct jl_sweep_metric *m, double *out)
{
	const struct jl_metric_desc *d = jl_metric_get(m->name);

	return d && d->path && jl_json_get_double(t, d->path, out);
}

static enum jl_metric_unit metric_unit(const char *name)
{
	const struct jl_metric_desc *d = jl_metric_get(name);

	return d ? d->unit : JL_UNIT_COUNT;
}

static bool thread_measured(json_object *t)
{
	json_object *m = jl_sj_get(t, JL_K(measured));

	return m && json_object_get_boolean(m);
}

/* ---- transients: find the release time of the max cycle in samples.csv ---- */

struct span_ctx {
	int64_t max_cycle, first, last, at;
};

/* The first and last release of a thread's measured cycles, and the release of its worst one. */
static int span_row(void *ctx, const struct jl_sample_row *row)
{
	struct span_ctx *s = ctx;

	if (s->first < 0)
		s->first = row->release;
	s->last = row->release;
	if ((int64_t)row->cycle == s->max_cycle)
		s->at = row->release;
	return 0;
}

json_object *jl_sweep_run_transients(const struct jl_sweep_run *r, const struct jl_sweep_cond *c)
{
	json_object *threads = jl_sj_get(r->summary, JL_K(threads)), *out = json_object_new_array();
	size_t nt = threads ? json_object_array_length(threads) : 0;

	for (size_t i = 0; i < nt; i++) {
		json_object *t = json_object_array_get_idx(threads, i), *lat = jl_sj_get(t, JL_K(latency_ns));
		const char *name = jl_sj_gets(t, JL_K(name), "");
		int64_t max_cycle = (int64_t)jl_sj_getd(lat, JL_K(max_cycle), -1), period = (int64_t)jl_sj_getd(t, JL_K(period_ns), 0);
		int64_t first = -1, last = -1, at = -1, nb[JL_SWEEP_MAX_NEIGH];
		struct jl_transient_in in = { 0 };
		struct jl_transient tr;

		if (!thread_measured(t) || !lat || max_cycle < 0)
			continue;
		{
			struct span_ctx sp = { max_cycle, -1, -1, -1 };
			char err[256];

			if (jl_samples_read(r->dir, name, span_row, &sp, err, sizeof(err)))
				continue;
			first = sp.first;
			last = sp.last;
			at = sp.at;
		}
		if (at < 0 || first < 0)
			continue;
		/* samples.csv holds the measured cycles only: its first release is the measured phase's start
		 * (for a thread that starts late, its own start); cross-check with the end of the phase */
		in.measure_start_ns = first;
		if (last + period - c->duration_ns > first)
			in.measure_start_ns = last + period - c->duration_ns;
		in.duration_ns = c->duration_ns;
		in.max_ns = (int64_t)jl_sj_getd(lat, JL_K(max), 0);
		in.p99_ns = (int64_t)jl_sj_getd(lat, JL_K(p99), 0);
		in.max_release_ns = at;
		for (int k = 0; k < c->nneigh; k++)
			nb[k] = in.measure_start_ns + c->neigh_start_ns[k];
		in.neighbour_start_ns = nb;
		in.nneighbours = c->nneigh;
		jl_transient_check(&in, &tr);
		if (tr.kind != JL_TRANSIENT_NONE) {
			json_object *o = json_object_new_object();
			char v[48], text[256];

			jl_value_format((double)in.max_ns, JL_UNIT_NS, false, v, sizeof(v));
			if (tr.kind == JL_TRANSIENT_STARTUP)
				snprintf(text, sizeof(text), "max %s at cycle %lld, %.0f ms after the start: start-up transient",
					 v, (long long)max_cycle, (double)tr.offset_ns / 1e6);
			else
				snprintf(text, sizeof(text), "max %s at cycle %lld, %.0f ms after neighbour '%s' started",
					 v, (long long)max_cycle, (double)tr.offset_ns / 1e6, c->neigh_name[tr.neighbour]);
			json_object_object_add(o, "thread", json_object_new_string(name));
			json_object_object_add(o, "kind", json_object_new_string(tr.kind == JL_TRANSIENT_STARTUP ? "startup" : "neighbour-start"));
			json_object_object_add(o, "cycle", json_object_new_int64(max_cycle));
			json_object_object_add(o, "max_ns", json_object_new_int64(in.max_ns));
			json_object_object_add(o, "offset_ns", json_object_new_int64(tr.offset_ns));
			if (tr.kind == JL_TRANSIENT_NEIGHBOUR)
				json_object_object_add(o, "neighbour", json_object_new_string(c->neigh_name[tr.neighbour]));
			json_object_object_add(o, "text", json_object_new_string(text));
			json_object_array_add(out, o);
		}
	}
	return out;
}

/* ---- sweep.json ---- */

/* Names of the measured threads, in the order the runs list them (union over runs). */
static json_object *measured_threads(const struct jl_sweep_data *d)
{
	json_object *names = json_object_new_array();

	for (int r = 0; r < d->nruns; r++) {
		json_object *threads = jl_sj_get(d->runs[r].summary, JL_K(threads));
		size_t n = threads ? json_object_array_length(threads) : 0;

		for (size_t i = 0; i < n; i++) {
			json_object *t = json_object_array_get_idx(threads, i);
			const char *name = jl_sj_gets(t, JL_K(name), NULL);
			bool seen = false;

			if (!name || !thread_measured(t))
				continue;
			for (size_t k = 0; k < json_object_array_length(names); k++)
				seen |= !strcmp(json_object_get_string(json_object_array_get_idx(names, k)), name);
			if (!seen)
				json_object_array_add(names, json_object_new_string(name));
		}
	}
	return names;
}

static json_object *stats_json(const double *v, int n, double *scratch, const char *tname, const char *metric,
			       const char *label, json_object *flags)
{
	json_object *o = json_object_new_object(), *vals = json_object_new_array();
	struct jl_runstats s;
	struct jl_bimodal b;

	for (int i = 0; i < n; i++)
		json_object_array_add(vals, json_object_new_double(v[i]));
	json_object_object_add(o, "n", json_object_new_int(n));
	if (n > 0) {
		jl_runstats_compute(v, n, &s);
		json_object_object_add(o, "mean", jl_sj_num(s.mean));
		json_object_object_add(o, "stddev", jl_sj_num(s.sd));
		json_object_object_add(o, "cv", jl_sj_num(s.cv));
		json_object_object_add(o, "min", jl_sj_num(s.min));
		json_object_object_add(o, "max", jl_sj_num(s.max));
	}
	json_object_object_add(o, "values", vals);
	jl_bimodal_check(v, n, scratch, &b);
	json_object_object_add(o, "bimodal", json_object_new_boolean(b.bimodal));
	if (b.bimodal) {
		json_object *f = json_object_new_object();
		char lo[48], hi[48], text[512];
		enum jl_metric_unit u = metric_unit(metric);
		jl_value_format(b.low_mean, u, false, lo, sizeof(lo));
		jl_value_format(b.high_mean, u, false, hi, sizeof(hi));
		snprintf(text, sizeof(text), "%s %s in '%s' is bimodal: %d runs near %s, %d runs near %s, nothing between",
			 tname, metric, label, b.n_low, lo, b.n_high, hi);
		json_object_object_add(f, "kind", json_object_new_string("bimodal"));
		json_object_object_add(f, "thread", json_object_new_string(tname));
		json_object_object_add(f, "metric", json_object_new_string(metric));
		json_object_object_add(f, "condition", json_object_new_string(label));
		json_object_object_add(f, "low_runs", json_object_new_int(b.n_low));
		json_object_object_add(f, "high_runs", json_object_new_int(b.n_high));
		json_object_object_add(f, "low_mean", jl_sj_num(b.low_mean));
		json_object_object_add(f, "high_mean", jl_sj_num(b.high_mean));
		json_object_object_add(f, "text", json_object_new_string(text));
		json_object_array_add(flags, f);
	}
	return o;
}

/* Values of metric M of thread TNAME over the usable runs of condition C. Returns the count. */
static int collect(const struct jl_sweep_data *d, int c, const char *tname, const struct jl_sweep_metric *m, double *v)
{
	int n = 0;

	for (int r = 0; r < d->nruns; r++) {
		json_object *t;

		if (d->runs[r].cond != c || !jl_sweep_run_usable(&d->runs[r]))
			continue;
		t = jl_sweep_summary_thread(d->runs[r].summary, tname);
		if (t && metric_value(t, m, &v[n]))
			n++;
	}
	return n;
}

/* Run RUN (of condition C) as sweep.json has it: its place, its directory, its status, per thread of THREADS its
 * metrics, its transients (each also a flag into FLAGS). */
static json_object *run_json(const struct jl_sweep_data *d, const struct jl_sweep_run *run, int c, json_object *threads,
			     json_object *flags)
{
	int nthreads = (int)json_object_array_length(threads);
	json_object *ro, *mo;

	ro = json_object_new_object();
	mo = json_object_new_object();
	json_object_object_add(ro, "run", json_object_new_int(run->rep));
	json_object_object_add(ro, "order", json_object_new_int(run->order));
	json_object_object_add(ro, "dir", json_object_new_string(run->dir));
	json_object_object_add(ro, "exit_status", json_object_new_int(run->exit_status));
	json_object_object_add(ro, "usable", json_object_new_boolean(jl_sweep_run_usable(run)));
	for (int t = 0; t < nthreads; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, (size_t)t));
		json_object *th = jl_sweep_run_usable(run) ? jl_sweep_summary_thread(run->summary, tn) : NULL, *tm;
		double x;

		if (!th)
			continue;
		tm = json_object_new_object();
		for (int m = 0; m < jl_sweep_nmetrics; m++)
			if (metric_value(th, &jl_sweep_metrics[m], &x))
				json_object_object_add(tm, jl_sweep_metrics[m].name, json_object_new_double(x));
		json_object_object_add(mo, tn, tm);
	}
	json_object_object_add(ro, "metrics", mo);
	json_object_object_add(ro, "transients", run->transients ? json_object_get(run->transients) : json_object_new_array());
	for (size_t k = 0; run->transients && k < json_object_array_length(run->transients); k++) {
		json_object *tr = json_object_array_get_idx(run->transients, k), *f = json_object_new_object();
		char text[400];

		snprintf(text, sizeof(text), "%s run %d, %s: %s", d->conds[c].label, run->rep,
			 jl_sj_gets(tr, "thread", "?"), jl_sj_gets(tr, "text", ""));
		json_object_object_add(f, "kind", json_object_new_string("transient"));
		json_object_object_add(f, "thread", json_object_new_string(jl_sj_gets(tr, "thread", "?")));
		json_object_object_add(f, "metric", json_object_new_string("latency.max"));
		json_object_object_add(f, "condition", json_object_new_string(d->conds[c].label));
		json_object_object_add(f, "run", json_object_new_int(run->rep));
		json_object_object_add(f, "cycle", json_object_new_int64((int64_t)jl_sj_getd(tr, "cycle", 0)));
		json_object_object_add(f, "offset_ns", json_object_new_int64((int64_t)jl_sj_getd(tr, "offset_ns", 0)));
		json_object_object_add(f, "text", json_object_new_string(text));
		json_object_array_add(flags, f);
	}
	return ro;
}

/* Thread TN's metric ME between the conditions of pair P: Welch's test on their runs' values (V and VB:
 * scratch of d->nruns + 1), its verdict in words. */
static json_object *pair_json(const struct jl_sweep_data *d, int p, const char *tn, const struct jl_sweep_metric *me,
			      double *v, double *vb)
{
	int ca = d->pairs[p][0], cb = d->pairs[p][1];
	int na = collect(d, ca, tn, me, v), nb = collect(d, cb, tn, me, vb);
	struct jl_runstats sa = { 0 }, sb = { 0 };
	struct jl_welch w;
	json_object *o, *ci;
	char verdict[256];

	if (na > 0)
		jl_runstats_compute(v, na, &sa);
	if (nb > 0)
		jl_runstats_compute(vb, nb, &sb);
	jl_welch_test(&sa, &sb, 0.95, &w);
	jl_welch_verdict(&w, metric_unit(me->name), verdict, sizeof(verdict));
	o = json_object_new_object();
	json_object_object_add(o, "thread", json_object_new_string(tn));
	json_object_object_add(o, "metric", json_object_new_string(me->name));
	json_object_object_add(o, "a", json_object_new_string(d->conds[ca].label));
	json_object_object_add(o, "b", json_object_new_string(d->conds[cb].label));
	json_object_object_add(o, "n_a", json_object_new_int(na));
	json_object_object_add(o, "n_b", json_object_new_int(nb));
	json_object_object_add(o, "diff", jl_sj_num(w.diff));
	json_object_object_add(o, "valid", json_object_new_boolean(w.valid));
	json_object_object_add(o, "t", w.valid ? jl_sj_num(w.t) : NULL);
	json_object_object_add(o, "df", w.valid ? jl_sj_num(w.df) : NULL);
	json_object_object_add(o, "p", w.valid ? jl_sj_num(w.p) : NULL);
	ci = json_object_new_array();
	json_object_array_add(ci, w.valid ? jl_sj_num(w.ci_lo) : NULL);
	json_object_array_add(ci, w.valid ? jl_sj_num(w.ci_hi) : NULL);
	json_object_object_add(o, "ci95", ci);
	json_object_object_add(o, "significant", json_object_new_boolean(w.valid && w.significant));
	json_object_object_add(o, "verdict", json_object_new_string(verdict));
	return o;
}

/* The metrics a sweep compares, with their units. */
static json_object *metrics_json(void)
{
	json_object *metrics = json_object_new_array();

	for (int m = 0; m < jl_sweep_nmetrics; m++) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, "name", json_object_new_string(jl_sweep_metrics[m].name));
		json_object_object_add(o, "unit", json_object_new_string(unit_name(metric_unit(jl_sweep_metrics[m].name))));
		json_object_array_add(metrics, o);
	}
	return metrics;
}

/* The runs in the order they ran: each one's condition and number. */
static json_object *order_json(const struct jl_sweep_data *d)
{
	json_object *order = json_object_new_array();

	for (int r = 0; r < d->nruns; r++) {
		const struct jl_sweep_run *run = &d->runs[r];
		json_object *o = json_object_new_object();

		json_object_object_add(o, "order", json_object_new_int(run->order));
		json_object_object_add(o, "condition", json_object_new_string(d->conds[run->cond].label));
		json_object_object_add(o, "run", json_object_new_int(run->rep));
		json_object_array_add(order, o);
	}
	return order;
}

/* Condition C's object in sweep.json: its runs, each thread's statistics per metric, its pooled tail (V and
 * SCRATCH: d->nruns + 1 values each) */
static json_object *cond_json(const struct jl_sweep_data *d, int c, json_object *threads, json_object *flags, double *v,
			      double *scratch)
{
	json_object *co = json_object_new_object(), *runs = json_object_new_array(), *stats = json_object_new_object();
	int nthreads = (int)json_object_array_length(threads);

	json_object_object_add(co, "label", json_object_new_string(d->conds[c].label));
	json_object_object_add(co, "overrides", json_object_new_string(d->conds[c].overrides));
	for (int r = 0; r < d->nruns; r++) {
		const struct jl_sweep_run *run = &d->runs[r];

		if (run->cond != c)
			continue;
		json_object_array_add(runs, run_json(d, run, c, threads, flags));
	}
	json_object_object_add(co, "runs", runs);
	for (int t = 0; t < nthreads; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, (size_t)t));
		json_object *to = json_object_new_object();

		for (int m = 0; m < jl_sweep_nmetrics; m++) {
			int n = collect(d, c, tn, &jl_sweep_metrics[m], v);

			json_object_object_add(to, jl_sweep_metrics[m].name,
					       stats_json(v, n, scratch, tn, jl_sweep_metrics[m].name, d->conds[c].label, flags));
		}
		json_object_object_add(stats, tn, to);
	}
	json_object_object_add(co, "stats", stats);
	json_object_object_add(co, "tail", jl_sweep_tail_json(d, c, threads));
	return co;
}

json_object *jl_sweep_build_json(const struct jl_sweep_data *d)
{
	json_object *root = json_object_new_object(), *conds = json_object_new_array();
	json_object *cmps = json_object_new_array(), *flags = json_object_new_array();
	json_object *threads = measured_threads(d);
	int nthreads = (int)json_object_array_length(threads);
	double *v = calloc((size_t)d->nruns + 1, sizeof(double)), *vb = calloc((size_t)d->nruns + 1, sizeof(double));
	double *scratch = calloc((size_t)d->nruns + 1, sizeof(double));

	if (!v || !vb || !scratch) {
		free(v), free(vb), free(scratch);
		json_object_put(root), json_object_put(conds), json_object_put(cmps), json_object_put(flags);
		json_object_put(threads);
		errno = ENOMEM;
		return NULL;
	}
	json_object_object_add(root, "tool", json_object_new_string("jitterlab"));
	json_object_object_add(root, "version", json_object_new_string(JL_VERSION));
	json_object_object_add(root, "kind", json_object_new_string("sweep"));
	json_object_object_add(root, "scenario", json_object_new_string(d->scenario_name));
	json_object_object_add(root, "file", json_object_new_string(d->scenario_path));
	json_object_object_add(root, "started", json_object_new_string(d->started ? d->started : ""));
	json_object_object_add(root, "dir", json_object_new_string(d->dir));
	json_object_object_add(root, "runs_per_condition", json_object_new_int(d->runs_per_cond));
	json_object_object_add(root, "runs_done", json_object_new_int(d->nruns));
	json_object_object_add(root, "interrupted", json_object_new_boolean(d->interrupted));
	json_object_object_add(root, "confidence", json_object_new_double_s(0.95, "0.95"));
	json_object_object_add(root, "metrics", metrics_json());
	json_object_object_add(root, "threads", threads);
	json_object_object_add(root, "order", order_json(d));
	json_object_object_add(root, "design", jl_sweep_design_json(d));

	for (int c = 0; c < d->nconds; c++)
		json_object_array_add(conds, cond_json(d, c, threads, flags, v, scratch));
	json_object_object_add(root, "conditions", conds);
	{
		json_object *fx = jl_sweep_effects_json(d, threads, conds);

		if (fx)
			json_object_object_add(root, "effects", fx);
	}

	for (int t = 0; t < nthreads; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, (size_t)t));

		for (int m = 0; m < jl_sweep_nmetrics; m++)
			for (int p = 0; p < d->npairs; p++)
				json_object_array_add(cmps, pair_json(d, p, tn, &jl_sweep_metrics[m], v, vb));
	}
	json_object_object_add(root, "comparisons", cmps);
	json_object_object_add(root, "flags", flags);
	free(v), free(vb), free(scratch);
	return root;
}

/* ---- the table ---- */

static const char *fmt(double x, enum jl_metric_unit u, char *buf, size_t len)
{
	return jl_value_format(x, u, false, buf, len);
}

static void print_metric(FILE *out, json_object *sweep, const char *tn, const char *metric, enum jl_metric_unit u, bool md)
{
	json_object *conds = jl_sj_get(sweep, "conditions"), *cmps = jl_sj_get(sweep, "comparisons");
	size_t nc = conds ? json_object_array_length(conds) : 0, np = cmps ? json_object_array_length(cmps) : 0;
	char a[48], b[48], c[48], e[48];

	if (md)
		fprintf(out, "\n**%s %s**\n\n| condition | n | mean ± sd | CV | min – max | runs |\n|---|---|---|---|---|---|\n", tn, metric);
	else
		fprintf(out, "\n%s %s\n  %-18s %3s  %-24s %7s  %-26s %s\n", tn, metric, "condition", "n", "mean ± sd", "CV",
			"min – max", "runs");
	for (size_t i = 0; i < nc; i++) {
		json_object *co = json_object_array_get_idx(conds, i);
		json_object *st = jl_sj_get(jl_sj_get(jl_sj_get(co, "stats"), tn), metric), *vals = jl_sj_get(st, "values");
		int n = (int)jl_sj_getd(st, "n", 0);
		char msd[64], mm[64], runs[512] = "";
		size_t off = 0;

		if (!st)
			continue;
		for (size_t k = 0; vals && k < json_object_array_length(vals) && off < sizeof(runs) - 48; k++)
			off += (size_t)snprintf(runs + off, sizeof(runs) - off, "%s%s", k ? ", " : "",
						fmt(json_object_get_double(json_object_array_get_idx(vals, k)), u, a, sizeof(a)));
		if (n > 0) {
			snprintf(msd, sizeof(msd), "%s ± %s", fmt(jl_sj_getd(st, "mean", 0), u, b, sizeof(b)), fmt(jl_sj_getd(st, "stddev", 0), u, c, sizeof(c)));
			snprintf(mm, sizeof(mm), "%s – %s", fmt(jl_sj_getd(st, "min", 0), u, c, sizeof(c)), fmt(jl_sj_getd(st, "max", 0), u, e, sizeof(e)));
		} else {
			snprintf(msd, sizeof(msd), "-");
			snprintf(mm, sizeof(mm), "-");
		}
		snprintf(a, sizeof(a), "%.1f%%", jl_sj_getd(st, "cv", 0) * 100);
		if (md)
			fprintf(out, "| %s | %d | %s | %s | %s | %s |%s\n", jl_sj_gets(co, "label", "?"), n, msd, a, mm, runs,
				json_object_get_boolean(jl_sj_get(st, "bimodal")) ? " bimodal" : "");
		else
			fprintf(out, "  %-18s %3d  %-24s %7s  %-26s %s%s\n", jl_sj_gets(co, "label", "?"), n, msd, a, mm, runs,
				json_object_get_boolean(jl_sj_get(st, "bimodal")) ? "  [bimodal]" : "");
	}
	if (md)
		fprintf(out, "\n");
	/* every verdict when there are a few pairs; with many, the real differences only */
	size_t mine = 0, real = 0;

	for (size_t i = 0; i < np; i++) {
		json_object *o = json_object_array_get_idx(cmps, i);

		if (!strcmp(jl_sj_gets(o, "thread", ""), tn) && !strcmp(jl_sj_gets(o, "metric", ""), metric)) {
			mine++;
			real += json_object_get_boolean(jl_sj_get(o, "significant"));
		}
	}
	if (mine > 6)
		fprintf(out, md ? "- %zu pairs compared, %zu real difference(s) (listed; every verdict is in sweep.json)\n" :
				  "  %zu pairs compared, %zu real difference(s) (listed; every verdict is in sweep.json)\n", mine, real);
	for (size_t i = 0; i < np; i++) {
		json_object *o = json_object_array_get_idx(cmps, i);

		if (strcmp(jl_sj_gets(o, "thread", ""), tn) || strcmp(jl_sj_gets(o, "metric", ""), metric))
			continue;
		if (mine > 6 && !json_object_get_boolean(jl_sj_get(o, "significant")))
			continue;
		fprintf(out, md ? "- %s vs %s: %s\n" : "  %s vs %s: %s\n", jl_sj_gets(o, "b", "?"), jl_sj_gets(o, "a", "?"), jl_sj_gets(o, "verdict", ""));
	}
}

/* One row per condition: the headline metrics as mean (CV). */
static void print_overview(FILE *out, json_object *sweep, const char *tn, bool md)
{
	static const char *const head[] = { "rate_hz", "latency.p99", "latency.max", "period.max", "misses" };
	json_object *conds = jl_sj_get(sweep, "conditions");
	size_t nc = conds ? json_object_array_length(conds) : 0;

	if (md)
		fprintf(out, "\n## %s: overview (mean over runs, CV in brackets)\n\n| condition | n | rate | latency p99 | latency max | period max | misses |\n|---|---|---|---|---|---|---|\n", tn);
	else
		fprintf(out, "\n%s: overview (mean over runs, CV in brackets)\n  %-22s %3s %18s %18s %18s %18s %14s\n", tn, "condition",
			"n", "rate", "latency p99", "latency max", "period max", "misses");
	for (size_t c = 0; c < nc; c++) {
		json_object *co = json_object_array_get_idx(conds, c), *st = jl_sj_get(jl_sj_get(co, "stats"), tn);
		char cell[5][64];
		int n = (int)jl_sj_getd(jl_sj_get(st, "rate_hz"), "n", 0);

		for (int k = 0; k < 5; k++) {
			json_object *m = jl_sj_get(st, head[k]);
			char v[48];
			enum jl_metric_unit u = k == 0 ? JL_UNIT_HZ : k == 4 ? JL_UNIT_COUNT : JL_UNIT_NS;

			if (m && jl_sj_get(m, "mean"))
				snprintf(cell[k], sizeof(cell[k]), "%s (%.0f%%)", jl_value_format(jl_sj_getd(m, "mean", 0), u, false, v, sizeof(v)),
					 jl_sj_getd(m, "cv", 0) * 100);
			else
				snprintf(cell[k], sizeof(cell[k]), "-");
		}
		if (md)
			fprintf(out, "| %s | %d | %s | %s | %s | %s | %s |\n", jl_sj_gets(co, "label", "?"), n, cell[0], cell[1], cell[2], cell[3], cell[4]);
		else
			fprintf(out, "  %-22s %3d %18s %18s %18s %18s %14s\n", jl_sj_gets(co, "label", "?"), n, cell[0], cell[1], cell[2], cell[3], cell[4]);
	}
}

void jl_sweep_print(FILE *out, json_object *sweep, bool markdown)
{
	json_object *threads = jl_sj_get(sweep, "threads"), *metrics = jl_sj_get(sweep, "metrics"), *flags = jl_sj_get(sweep, "flags");
	size_t nt = threads ? json_object_array_length(threads) : 0, nm = metrics ? json_object_array_length(metrics) : 0;
	size_t nf = flags ? json_object_array_length(flags) : 0;

	fprintf(out, markdown ? "# sweep %s\n\n%d run(s) per condition, %d done%s; directory `%s`\n" :
				"sweep %s: %d run(s) per condition, %d done%s\n  directory %s\n",
		jl_sj_gets(sweep, "scenario", "?"), (int)jl_sj_getd(sweep, "runs_per_condition", 0), (int)jl_sj_getd(sweep, "runs_done", 0),
		json_object_get_boolean(jl_sj_get(sweep, "interrupted")) ? " (interrupted)" : "", jl_sj_gets(sweep, "dir", ""));
	if (!nt)
		fprintf(out, "no measured thread in any usable run: nothing to compare\n");
	for (size_t t = 0; t < nt; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, t));

		print_overview(out, sweep, tn, markdown);
		jl_sweep_print_effects(out, sweep, tn, markdown);
		jl_sweep_print_tails(out, sweep, tn, markdown);
		for (size_t m = 0; m < nm; m++) {
			json_object *mo = json_object_array_get_idx(metrics, m);

			print_metric(out, sweep, tn, jl_sj_gets(mo, "name", "?"), unit_from_name(jl_sj_gets(mo, "unit", "count")), markdown);
		}
	}
	if (nf) {
		fprintf(out, markdown ? "\n## flags\n\n" : "\nflags (do not trust a single run here):\n");
		for (size_t i = 0; i < nf; i++)
			fprintf(out, markdown ? "- %s\n" : "  %s\n", jl_sj_gets(json_object_array_get_idx(flags, i), "text", ""));
	}
}
