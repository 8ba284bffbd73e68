/* sweep_effects: how much each factor of a crossed sweep changes each measured thread's metrics (the model
 * is rt/base/effects.c), for sweep.json ("design", "effects") and the table's effects section, which comes
 * before the pairwise verdicts. The factors: the named conditions (one factor, "condition"), and each vary
 * line; the round is the block. Per metric, by its kind:
 * - a rate (Hz): the model on the value, effects as differences;
 * - a count with cycles (misses): Poisson with log(cycles) as offset, rate ratios; a condition with 0 in
 *   every run is said so, with no ratio;
 * - a maximum: descriptive only (no mean-based effect of an extreme);
 * - every other (latencies, periods, work): the model on the log, effects as ratios;
 * and none where a condition's runs of that metric are bimodal (flagged beside), saying so. */
#include "sweep.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "../base/effects.h"
#include "../scenario/scenario.h"
#include "../base/metrics.h"
#include "../base/summary_keys.h"
#include "../base/units.h"
#include "../base/welch.h"

_Static_assert(JL_SWEEP_MAX_FACTORS == JL_FX_MAX_FACTORS, "a sweep's factors are the model's");
_Static_assert(JL_SWEEP_MAX_FACTORS >= JL_MAX_VARY + 1, "the named conditions and every vary line");
_Static_assert(JL_SWEEP_MAX_LEVELS >= JL_MAX_CONDITIONS, "every named condition is a level");

json_object *jl_sweep_design_json(const struct jl_sweep_data *d)
{
	json_object *o = json_object_new_object(), *fs = json_object_new_array();
	int cells = 1;

	for (int f = 0; f < d->nfactors; f++) {
		json_object *fo = json_object_new_object(), *lv = json_object_new_array();

		json_object_object_add(fo, "name", json_object_new_string(d->factors[f].name));
		for (int l = 0; l < d->factors[f].nlevels; l++)
			json_object_array_add(lv, json_object_new_string(d->factors[f].level[l]));
		json_object_object_add(fo, "levels", lv);
		json_object_object_add(fo, "reference", json_object_new_string(d->factors[f].level[0]));
		json_object_array_add(fs, fo);
		cells *= d->factors[f].nlevels;
	}
	json_object_object_add(o, "factors", fs);
	json_object_object_add(o, "cells", json_object_new_int(cells));
	json_object_object_add(o, "block", json_object_new_string("round"));
	json_object_object_add(o, "rounds", json_object_new_int(d->runs_per_cond));
	json_object_object_add(o, "order", json_object_new_string(d->shuffled ? "shuffled" : "fixed"));
	if (d->shuffled)
		json_object_object_add(o, "seed", json_object_new_int64((int64_t)d->seed));
	return o;
}

enum kind { K_LOG, K_LINEAR, K_POISSON, K_MAX };

/* The model a metric takes, from the metrics registry's unit: a rate (Hz) its differences, a count of
 * cycles (misses) a Poisson model, a maximum none (by its name: one run's extreme), any time its ratios. */
static enum kind kind_of(const char *metric)
{
	const struct jl_metric_desc *d = jl_metric_get(metric);
	size_t n = strlen(metric);

	if (n > 4 && !strcmp(metric + n - 4, ".max"))
		return K_MAX;
	if (d && d->unit == JL_UNIT_HZ)
		return K_LINEAR;
	if (d && d->unit == JL_UNIT_COUNT)
		return K_POISSON;
	return K_LOG;
}

static const char *const model_name[] = { "log-linear", "linear", "poisson", "none" };
static const char *const scale_name[] = { "ratio", "difference", "rate ratio", "none" };

/* The conditions (labels) where METRIC of TN was flagged bimodal, comma-separated into BUF; false if none. */
static bool bimodal_conditions(json_object *conds, const char *tn, const char *metric, char *buf, size_t len)
{
	size_t nc = conds ? json_object_array_length(conds) : 0, off = 0;

	buf[0] = '\0';
	for (size_t c = 0; c < nc; c++) {
		json_object *co = json_object_array_get_idx(conds, c);
		json_object *st = jl_sj_get(jl_sj_get(jl_sj_get(co, "stats"), tn), metric), *b = jl_sj_get(st, "bimodal");

		if (b && json_object_get_boolean(b) && off < len)
			off += (size_t)snprintf(buf + off, len - off, "%s%s", off ? ", " : "", jl_sj_gets(co, "label", "?"));
	}
	return buf[0] != '\0';
}

/* The runs of TN's METRIC as the model's observations (the rounds that have one numbered from 0 into
 * NBLOCKS: an interrupted sweep's missing rounds are no blocks). Returns their count. */
static int observations(const struct jl_sweep_data *d, const char *tn, const char *metric, bool counts, int *level,
			int *block, double *y, double *exposure, int *nblocks)
{
	int n = 0, *num = calloc((size_t)d->runs_per_cond + 1, sizeof(int));

	*nblocks = 0;
	if (!num)
		return 0;

	for (int r = 0; r < d->nruns; r++) {
		const struct jl_sweep_run *run = &d->runs[r];

		if (!jl_sweep_run_value(run, tn, metric, &y[n]))
			continue;
		if (counts && !jl_sweep_run_value(run, tn, JL_K(cycles), &exposure[n]))
			continue;
		for (int f = 0; f < d->nfactors; f++)
			level[n * d->nfactors + f] = d->conds[run->cond].level[f];
		if (run->rep < 1 || run->rep > d->runs_per_cond)
			continue;
		if (!num[run->rep])
			num[run->rep] = ++*nblocks;
		block[n] = num[run->rep] - 1;
		n++;
	}
	free(num);
	return n;
}

/* The conditions with 0 in every run of METRIC (Poisson's refusal, named). */
static json_object *zero_conditions(const struct jl_sweep_data *d, const char *tn, const char *metric)
{
	json_object *a = json_object_new_array();

	for (int c = 0; c < d->nconds; c++) {
		bool seen = false, nonzero = false;

		for (int r = 0; r < d->nruns; r++) {
			double v;

			if (d->runs[r].cond == c && jl_sweep_run_value(&d->runs[r], tn, metric, &v)) {
				seen = true;
				nonzero |= v > 0;
			}
		}
		if (seen && !nonzero)
			json_object_array_add(a, json_object_new_string(d->conds[c].label));
	}
	return a;
}

static double shown(double x, enum kind k)
{
	return k == K_LINEAR ? x : exp(x);
}

static json_object *term_json(const struct jl_sweep_data *d, const struct jl_fx_term *t, enum kind k)
{
	static const char *const kinds[] = { "main", "interaction", "simple" };
	const struct jl_sweep_factor *f = &d->factors[t->f];
	json_object *o = json_object_new_object(), *ci = json_object_new_array();

	json_object_object_add(o, "kind", json_object_new_string(kinds[t->kind]));
	json_object_object_add(o, "factor", json_object_new_string(f->name));
	json_object_object_add(o, "level", json_object_new_string(f->level[t->a]));
	json_object_object_add(o, "reference", json_object_new_string(f->level[0]));
	if (t->kind == JL_FX_INTERACTION) {
		const struct jl_sweep_factor *g = &d->factors[t->g];

		json_object_object_add(o, "factor2", json_object_new_string(g->name));
		json_object_object_add(o, "level2", json_object_new_string(g->level[t->b]));
		json_object_object_add(o, "reference2", json_object_new_string(g->level[0]));
	} else if (t->kind == JL_FX_SIMPLE) {
		json_object *at = json_object_new_object();

		json_object_object_add(at, "factor", json_object_new_string(d->factors[t->g].name));
		json_object_object_add(at, "level", json_object_new_string(d->factors[t->g].level[t->b]));
		json_object_object_add(o, "at", at);
	}
	json_object_object_add(o, "estimate", jl_sj_num(shown(t->est, k)));
	json_object_array_add(ci, jl_sj_num(shown(t->lo, k)));
	json_object_array_add(ci, jl_sj_num(shown(t->hi, k)));
	json_object_object_add(o, "ci", ci);
	json_object_object_add(o, "p", jl_sj_num(t->p));
	if (t->kind != JL_FX_SIMPLE)
		json_object_object_add(o, "p_holm", jl_sj_num(t->p_holm));
	if (t->df > 0)
		json_object_object_add(o, "df", jl_sj_num(t->df));
	return o;
}

static const char *term_name(const struct jl_sweep_data *d, int f, int g, char *buf, size_t len)
{
	if (f == -2)
		return "residual";
	if (f == -1)
		return "round";
	if (g < 0)
		return d->factors[f].name;
	snprintf(buf, len, "%s x %s", d->factors[f].name, d->factors[g].name);
	return buf;
}

static json_object *fit_json(const struct jl_sweep_data *d, const struct jl_fx_result *r, enum kind k)
{
	json_object *terms = json_object_new_array(), *shares = json_object_new_array(), *conf = json_object_new_array();
	json_object *o = json_object_new_object();
	char name[300];

	json_object_object_add(o, "df_resid", json_object_new_int(r->df_resid));
	json_object_object_add(o, "balanced", json_object_new_boolean(r->balanced));
	json_object_object_add(o, "block_used", json_object_new_boolean(r->block_used));
	for (int f = 0; f < d->nfactors; f++)
		for (int g = f + 1; g < d->nfactors; g++)
			if (r->confounded[f][g])
				json_object_array_add(conf, json_object_new_string(term_name(d, f, g, name, sizeof(name))));
	json_object_object_add(o, "confounded", conf);
	for (int i = 0; i < r->nterms; i++)
		json_object_array_add(terms, term_json(d, &r->terms[i], k));
	json_object_object_add(o, "terms", terms);
	for (int i = 0; i < r->nshares; i++) {
		json_object *s = json_object_new_object();

		json_object_object_add(s, "term", json_object_new_string(term_name(d, r->shares[i].f, r->shares[i].g, name, sizeof(name))));
		json_object_object_add(s, "ss", jl_sj_num(r->shares[i].ss));
		json_object_object_add(s, "df", jl_sj_num(r->shares[i].df));
		json_object_object_add(s, "omega2", jl_sj_num(r->shares[i].omega2));
		json_object_array_add(shares, s);
	}
	json_object_object_add(o, "shares", shares);
	if (r->nshares)
		json_object_object_add(o, "shares_type", json_object_new_string(r->balanced ? "II (balanced: equal to I)" :
										  "II (unbalanced: the shares need not add up to 1)"));
	return o;
}

/* The effects of TN's METRIC: an object with its model, and its terms or why there are none. */
static json_object *metric_effects(const struct jl_sweep_data *d, const char *tn, const char *metric, json_object *conds,
				   int *level, int *block, double *y, double *exposure)
{
	static const enum jl_fx_scale scales[] = { JL_FX_LOG, JL_FX_LINEAR, JL_FX_POISSON };
	json_object *o = json_object_new_object();
	enum kind k = kind_of(metric);
	struct jl_fx_design des = { .nfactors = d->nfactors, .level = level, .block = block, .y = y, .exposure = exposure };
	struct jl_fx_result r;
	char bim[1024];

	json_object_object_add(o, "thread", json_object_new_string(tn));
	json_object_object_add(o, "metric", json_object_new_string(metric));
	json_object_object_add(o, "model", json_object_new_string(model_name[k]));
	json_object_object_add(o, "scale", json_object_new_string(scale_name[k]));
	if (k == K_MAX) {
		json_object_object_add(o, "status", json_object_new_string("descriptive"));
		json_object_object_add(o, "why", json_object_new_string("a maximum is one extreme run's: descriptive only, "
									 "each condition's runs are in its table"));
		return o;
	}
	if (bimodal_conditions(conds, tn, metric, bim, sizeof(bim))) {
		char why[1200];

		snprintf(why, sizeof(why), "bimodal in %s: the runs split in two clusters there, and a mean says nothing "
			 "typical; each condition's runs are in its table", bim);
		json_object_object_add(o, "status", json_object_new_string("bimodal"));
		json_object_object_add(o, "why", json_object_new_string(why));
		return o;
	}
	for (int f = 0; f < d->nfactors; f++)
		des.nlevels[f] = d->factors[f].nlevels;
	des.nobs = observations(d, tn, metric, k == K_POISSON, level, block, y, exposure, &des.nblocks);
	json_object_object_add(o, "runs", json_object_new_int(des.nobs));
	if (!des.nobs || jl_fx_fit(&des, scales[k], 0.95, &r) < 0) {
		if (des.nobs)
			jl_fx_free(&r);
		json_object_object_add(o, "status", json_object_new_string("no_data"));
		json_object_object_add(o, "why", json_object_new_string(des.nobs ? "the model could not be fitted (out of memory)" :
									     "no usable run has this metric"));
		return o;
	}
	if (r.status == JL_FX_ZERO_CELL)
		json_object_object_add(o, "zero_in_all_runs", zero_conditions(d, tn, metric));
	json_object_object_add(o, "status", json_object_new_string(r.status == JL_FX_OK ? "ok" : "not_computed"));
	if (r.status != JL_FX_OK) {
		json_object_object_add(o, "why", json_object_new_string(r.why));
	} else {
		json_object *fit = fit_json(d, &r, k);

		json_object_object_foreach(fit, key, val) {
			json_object_object_add(o, key, json_object_get(val));
		}
		json_object_put(fit);
	}
	jl_fx_free(&r);
	return o;
}

json_object *jl_sweep_effects_json(const struct jl_sweep_data *d, json_object *threads, json_object *conds)
{
	json_object *a = json_object_new_array();
	size_t nt = threads ? json_object_array_length(threads) : 0;
	int n = d->nruns + 1;
	int *level = calloc((size_t)n * (size_t)(d->nfactors + 1), sizeof(int)), *block = calloc((size_t)n, sizeof(int));
	double *y = calloc((size_t)n, sizeof(double)), *exposure = calloc((size_t)n, sizeof(double));

	if (!d->final)
		return NULL; /* the model runs once, at the end (a checkpoint of sweep.json has none) */
	if (!level || !block || !y || !exposure || d->nfactors < 1 || d->nconds < 2) {
		free(level), free(block), free(y), free(exposure);
		return a;
	}
	for (size_t t = 0; t < nt; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, t));

		for (int m = 0; m < jl_sweep_nmetrics; m++)
			json_object_array_add(a, metric_effects(d, tn, jl_sweep_metrics[m].name, conds, level, block, y, exposure));
	}
	free(level), free(block), free(y), free(exposure);
	return a;
}

/* ---- the table ---- */

static const char *fmt_p(double p, char *buf, size_t len)
{
	if (p < 0.001)
		snprintf(buf, len, "p < 0.001");
	else
		snprintf(buf, len, "p = %.3f", p);
	return buf;
}

/* "x 38 (95% CI 25-57)", "/ 38 (...)", or "+1.2 Hz (95% CI ...)" */
static const char *fmt_effect(json_object *t, const char *scale, enum jl_metric_unit u, char *buf, size_t len)
{
	json_object *ci = jl_sj_get(t, "ci");
	json_object *clo = ci ? json_object_array_get_idx(ci, 0) : NULL, *chi = ci ? json_object_array_get_idx(ci, 1) : NULL;
	double e = jl_sj_getd(t, "estimate", NAN), lo = clo ? json_object_get_double(clo) : NAN;
	double hi = chi ? json_object_get_double(chi) : NAN;

	if (!isfinite(e) || !isfinite(lo) || !isfinite(hi)) {
		snprintf(buf, len, "no finite estimate");
		return buf;
	}
	if (!strcmp(scale, "difference")) {
		char a[48], b[48], c[48];

		snprintf(buf, len, "%s%s (95%% CI %s to %s)", e >= 0 ? "+" : "", jl_value_format(e, u, false, a, sizeof(a)),
			 jl_value_format(lo, u, false, b, sizeof(b)), jl_value_format(hi, u, false, c, sizeof(c)));
	} else if (e >= 1) {
		snprintf(buf, len, "x %.3g (95%% CI %.3g-%.3g)", e, lo, hi);
	} else {
		snprintf(buf, len, "/ %.3g (95%% CI %.3g-%.3g)", 1 / e, 1 / hi, 1 / lo);
	}
	return buf;
}

static void print_terms(FILE *out, json_object *e, enum jl_metric_unit u, bool md)
{
	json_object *terms = jl_sj_get(e, "terms");
	size_t n = terms ? json_object_array_length(terms) : 0;
	const char *scale = jl_sj_gets(e, "scale", "ratio"), *ind = md ? "  - " : "      ";
	char eff[200], p[48];

	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(terms, i);
		const char *kind = jl_sj_gets(t, "kind", "");

		if (!strcmp(kind, "main")) {
			fprintf(out, "%s%s (%s -> %s): %s, %s\n", ind, jl_sj_gets(t, "factor", "?"), jl_sj_gets(t, "reference", "?"),
				jl_sj_gets(t, "level", "?"), fmt_effect(t, scale, u, eff, sizeof(eff)), fmt_p(jl_sj_getd(t, "p_holm", 1), p, sizeof(p)));
		} else if (!strcmp(kind, "interaction")) {
			bool sig = jl_sj_getd(t, "p_holm", 1) < 0.05;

			fprintf(out, "%s%s x %s (%s -> %s, %s -> %s): %s%s, %s\n", ind, jl_sj_gets(t, "factor", "?"), jl_sj_gets(t, "factor2", "?"),
				jl_sj_gets(t, "reference", "?"), jl_sj_gets(t, "level", "?"), jl_sj_gets(t, "reference2", "?"), jl_sj_gets(t, "level2", "?"),
				strcmp(scale, "difference") ? "ratio of ratios " : "", fmt_effect(t, scale, u, eff, sizeof(eff)),
				fmt_p(jl_sj_getd(t, "p_holm", 1), p, sizeof(p)));
			if (!sig)
				continue;
			/* where it acts: the first factor's effect at each level of the second */
			for (size_t j = 0; j < n; j++) {
				json_object *s = json_object_array_get_idx(terms, j), *at = jl_sj_get(s, "at");

				if (strcmp(jl_sj_gets(s, "kind", ""), "simple") || strcmp(jl_sj_gets(s, "factor", ""), jl_sj_gets(t, "factor", "")) ||
				    strcmp(jl_sj_gets(s, "level", ""), jl_sj_gets(t, "level", "")) || strcmp(jl_sj_gets(at, "factor", ""), jl_sj_gets(t, "factor2", "")))
					continue;
				fprintf(out, "%s    %s (%s -> %s) at %s = %s: %s\n", ind, jl_sj_gets(s, "factor", "?"), jl_sj_gets(s, "reference", "?"),
					jl_sj_gets(s, "level", "?"), jl_sj_gets(at, "factor", "?"), jl_sj_gets(at, "level", "?"),
					fmt_effect(s, scale, u, eff, sizeof(eff)));
			}
		}
	}
}

static void print_shares(FILE *out, json_object *e, bool md)
{
	json_object *shares = jl_sj_get(e, "shares");
	size_t n = shares ? json_object_array_length(shares) : 0;

	if (!n)
		return;
	fprintf(out, "%sshares of the variance between runs (omega^2, Type II):", md ? "  - " : "      ");
	for (size_t i = 0; i < n; i++) {
		json_object *s = json_object_array_get_idx(shares, i);

		fprintf(out, "%s %s %.0f%%", i ? "," : "", jl_sj_gets(s, "term", "?"), jl_sj_getd(s, "omega2", 0) * 100);
	}
	fprintf(out, "\n");
}

void jl_sweep_print_effects(FILE *out, json_object *sweep, const char *tn, bool md)
{
	json_object *effects = jl_sj_get(sweep, "effects");
	size_t n = effects ? json_object_array_length(effects) : 0;
	bool head = false;

	for (size_t i = 0; i < n; i++) {
		json_object *e = json_object_array_get_idx(effects, i);
		const char *metric = jl_sj_gets(e, "metric", "?"), *status = jl_sj_gets(e, "status", "");
		const struct jl_metric_desc *m = jl_metric_get(metric);
		enum jl_metric_unit u = m ? m->unit : JL_UNIT_COUNT;

		if (strcmp(jl_sj_gets(e, "thread", ""), tn))
			continue;
		if (!head) {
			fprintf(out, md ? "\n## %s: factor effects\n\nA model per metric over every run: the factors, their two-factor "
					  "interactions and the round as a block; HC3 errors; Holm's correction within each metric. "
					  "A level against the first one written, averaged over the other factors.\n\n" :
					  "\n%s: factor effects (every run: factors, two-factor interactions, round as block; HC3 "
					  "errors, Holm within each metric; a level against the first written, averaged over the "
					  "other factors)\n", tn);
			head = true;
		}
		fprintf(out, md ? "- **%s** (%s): " : "  %s (%s): ", metric, jl_sj_gets(e, "model", "?"));
		if (!strcmp(status, "ok")) {
			json_object *conf = jl_sj_get(e, "confounded");

			fprintf(out, "%d runs%s%s\n", (int)jl_sj_getd(e, "runs", 0), json_object_get_boolean(jl_sj_get(e, "balanced")) ? "" : ", unbalanced",
				json_object_get_boolean(jl_sj_get(e, "block_used")) ? "" : ", no block (the rounds do not fit)");
			for (size_t c = 0; conf && c < json_object_array_length(conf); c++)
				fprintf(out, "%s%s: confounded by the design, not computed\n", md ? "  - " : "      ",
					json_object_get_string(json_object_array_get_idx(conf, c)));
			print_terms(out, e, u, md);
			print_shares(out, e, md);
		} else {
			json_object *z = jl_sj_get(e, "zero_in_all_runs");

			if (z && json_object_array_length(z)) {
				fprintf(out, "0 in all runs of");
				for (size_t c = 0; c < json_object_array_length(z); c++)
					fprintf(out, "%s %s", c ? "," : "", json_object_get_string(json_object_array_get_idx(z, c)));
				fprintf(out, ": no ratio against them; ");
			}
			fprintf(out, "%s\n", jl_sj_gets(e, "why", status));
		}
	}
}
