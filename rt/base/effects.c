/* effects: factor effects of a crossed design (effects.h). The columns: an intercept, each factor's
 * levels 1 .. L-1 sum-to-zero coded (the last level -1 in each), each pair's products, the round's levels
 * sum-to-zero coded. With that coding a factor's marginal mean over the other factors' levels is the
 * intercept plus its own coefficients, so a level against the reference is a contrast of its columns alone;
 * an interaction cell is the product code of the pair's columns. */
#include "effects.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <gsl/gsl_blas.h>
#include <gsl/gsl_cdf.h>
#include <gsl/gsl_errno.h>
#include <gsl/gsl_linalg.h>
#include <gsl/gsl_matrix.h>
#include <gsl/gsl_vector.h>

#define NF JL_FX_MAX_FACTORS
#define POISSON_ITER 100

struct layout {
	int ncols;
	int main0[NF];        /* first column of each factor's main effect (-1: one level) */
	int inter0[NF][NF];   /* f < g: first column of their interaction (-1: not in the model) */
	int block0;           /* first column of the round (-1: not in the model) */
	bool drop_main[NF];   /* Type II: the model without this factor's main effect */
};

/* Sum-to-zero code of LEVEL in column K of a factor with L levels. */
static double code(int l, int level, int k)
{
	return level == l - 1 ? -1.0 : level == k ? 1.0 : 0.0;
}

/* The columns of a model: the mains (unless dropped), the interactions INTER[f][g], the block if BLOCK. */
static void layout_make(const struct jl_fx_design *d, bool inter[NF][NF], bool block, const bool *drop_main,
			struct layout *m)
{
	memset(m, 0, sizeof(*m));
	m->ncols = 1;
	for (int f = 0; f < d->nfactors; f++) {
		m->main0[f] = -1;
		if (d->nlevels[f] > 1 && !(drop_main && drop_main[f])) {
			m->main0[f] = m->ncols;
			m->ncols += d->nlevels[f] - 1;
		}
	}
	for (int f = 0; f < d->nfactors; f++)
		for (int g = 0; g < d->nfactors; g++) {
			m->inter0[f][g] = -1;
			if (f < g && inter[f][g] && d->nlevels[f] > 1 && d->nlevels[g] > 1) {
				m->inter0[f][g] = m->ncols;
				m->ncols += (d->nlevels[f] - 1) * (d->nlevels[g] - 1);
			}
		}
	m->block0 = -1;
	if (block && d->block && d->nblocks > 1) {
		m->block0 = m->ncols;
		m->ncols += d->nblocks - 1;
	}
}

static void fill_row(const struct jl_fx_design *d, const struct layout *m, int i, double *row)
{
	const int *lv = d->level + (size_t)i * (size_t)d->nfactors;

	memset(row, 0, (size_t)m->ncols * sizeof(*row));
	row[0] = 1;
	for (int f = 0; f < d->nfactors; f++)
		for (int k = 0; m->main0[f] >= 0 && k < d->nlevels[f] - 1; k++)
			row[m->main0[f] + k] = code(d->nlevels[f], lv[f], k);
	for (int f = 0; f < d->nfactors; f++)
		for (int g = f + 1; g < d->nfactors; g++) {
			int lg = d->nlevels[g] - 1;

			for (int p = 0; m->inter0[f][g] >= 0 && p < d->nlevels[f] - 1; p++)
				for (int q = 0; q < lg; q++)
					row[m->inter0[f][g] + p * lg + q] = code(d->nlevels[f], lv[f], p) * code(d->nlevels[g], lv[g], q);
		}
	for (int k = 0; m->block0 >= 0 && k < d->nblocks - 1; k++)
		row[m->block0 + k] = code(d->nblocks, d->block[i], k);
}

static gsl_matrix *design_matrix(const struct jl_fx_design *d, const struct layout *m)
{
	gsl_matrix *x = gsl_matrix_alloc((size_t)d->nobs, (size_t)m->ncols);

	for (int i = 0; x && i < d->nobs; i++)
		fill_row(d, m, i, gsl_matrix_ptr(x, (size_t)i, 0));
	return x;
}

/* A = X' diag(W) X (W NULL: unit weights); its inverse in AINV. -1 when it is singular (a column the
 * others make: relative pivot under 1e-10). */
static int normal_inverse(const gsl_matrix *x, const double *w, gsl_matrix *ainv)
{
	size_t n = x->size1, p = x->size2;
	double maxd = 0;

	gsl_matrix_set_zero(ainv);
	for (size_t i = 0; i < n; i++) {
		const double *r = gsl_matrix_const_ptr(x, i, 0), wi = w ? w[i] : 1;

		for (size_t a = 0; a < p; a++)
			for (size_t b = 0; b <= a; b++)
				*gsl_matrix_ptr(ainv, a, b) += wi * r[a] * r[b];
	}
	for (size_t a = 0; a < p; a++) {
		for (size_t b = 0; b < a; b++)
			gsl_matrix_set(ainv, b, a, gsl_matrix_get(ainv, a, b));
		if (gsl_matrix_get(ainv, a, a) > maxd)
			maxd = gsl_matrix_get(ainv, a, a);
	}
	if (gsl_linalg_cholesky_decomp1(ainv) != GSL_SUCCESS)
		return -1;
	for (size_t a = 0; a < p; a++) {
		double l = gsl_matrix_get(ainv, a, a);

		if (l * l < 1e-10 * maxd)
			return -1;
	}
	return gsl_linalg_cholesky_invert(ainv) == GSL_SUCCESS ? 0 : -1;
}

/* Is the model of M estimable from D's runs? */
static bool estimable(const struct jl_fx_design *d, const struct layout *m)
{
	gsl_matrix *x, *ainv;
	bool ok;

	if (m->ncols > d->nobs)
		return false;
	x = design_matrix(d, m);
	ainv = gsl_matrix_alloc((size_t)m->ncols, (size_t)m->ncols);
	ok = x && ainv && normal_inverse(x, NULL, ainv) == 0;
	gsl_matrix_free(x);
	gsl_matrix_free(ainv);
	return ok;
}

/* Weighted least squares of Z on X (W NULL: ordinary): BETA, (X'WX)^-1 in AINV, the weighted residual
 * sum of squares. -1 when singular. */
static int wls(const gsl_matrix *x, const double *z, const double *w, gsl_vector *beta, gsl_matrix *ainv, double *rss)
{
	size_t n = x->size1, p = x->size2;
	gsl_vector *xtz;

	if (normal_inverse(x, w, ainv) < 0)
		return -1;
	xtz = gsl_vector_calloc(p);
	if (!xtz)
		return -1;
	for (size_t i = 0; i < n; i++)
		for (size_t a = 0; a < p; a++)
			*gsl_vector_ptr(xtz, a) += (w ? w[i] : 1) * gsl_matrix_get(x, i, a) * z[i];
	gsl_blas_dgemv(CblasNoTrans, 1, ainv, xtz, 0, beta);
	gsl_vector_free(xtz);
	*rss = 0;
	for (size_t i = 0; i < n; i++) {
		gsl_vector_const_view r = gsl_matrix_const_row(x, i);
		double fit, e;

		gsl_blas_ddot(&r.vector, beta, &fit);
		e = z[i] - fit;
		*rss += (w ? w[i] : 1) * e * e;
	}
	return 0;
}

static double rss_of(const struct jl_fx_design *d, const double *z, const struct layout *m)
{
	gsl_matrix *x = design_matrix(d, m), *ainv = gsl_matrix_alloc((size_t)m->ncols, (size_t)m->ncols);
	gsl_vector *beta = gsl_vector_alloc((size_t)m->ncols);
	double rss = NAN;

	if (x && ainv && beta && wls(x, z, NULL, beta, ainv, &rss) < 0)
		rss = NAN;
	gsl_matrix_free(x);
	gsl_matrix_free(ainv);
	gsl_vector_free(beta);
	return rss;
}

/* ---- the contrasts ---- */

static void add_main(const struct jl_fx_design *d, const struct layout *m, int f, int a, double coef, double *v)
{
	for (int k = 0; m->main0[f] >= 0 && k < d->nlevels[f] - 1; k++)
		v[m->main0[f] + k] += coef * (code(d->nlevels[f], a, k) - code(d->nlevels[f], 0, k));
}

/* COEF times the interaction cell (I, J) of F < G */
static void add_cell(const struct jl_fx_design *d, const struct layout *m, int f, int g, int i, int j, double coef, double *v)
{
	int lg = d->nlevels[g] - 1;

	for (int p = 0; p < d->nlevels[f] - 1; p++)
		for (int q = 0; q < lg; q++)
			v[m->inter0[f][g] + p * lg + q] += coef * code(d->nlevels[f], i, p) * code(d->nlevels[g], j, q);
}

struct fit {
	const struct jl_fx_design *d;
	struct layout m;
	gsl_vector *beta;
	gsl_matrix *cov;      /* the coefficients' covariance (HC3, or the Poisson sandwich) */
	double df;            /* 0: Wald z */
	double tq;            /* the quantile of the CI */
	double *v;            /* scratch: one contrast */
};

static int add_term(struct jl_fx_result *r, const struct fit *ft, enum jl_fx_kind kind, int f, int g, int a, int b)
{
	struct jl_fx_term *t;
	double est = 0, var = 0;
	int p = ft->m.ncols;

	for (int i = 0; i < p; i++) {
		est += ft->v[i] * gsl_vector_get(ft->beta, (size_t)i);
		for (int j = 0; j < p; j++)
			var += ft->v[i] * gsl_matrix_get(ft->cov, (size_t)i, (size_t)j) * ft->v[j];
	}
	t = realloc(r->terms, (size_t)(r->nterms + 1) * sizeof(*t));
	if (!t)
		return -1;
	r->terms = t;
	t = &r->terms[r->nterms++];
	*t = (struct jl_fx_term){ .kind = kind, .f = f, .g = g, .a = a, .b = b, .est = est, .df = ft->df };
	t->se = var > 0 ? sqrt(var) : 0;
	t->lo = est - ft->tq * t->se;
	t->hi = est + ft->tq * t->se;
	if (t->se > 0) {
		double z = fabs(est) / t->se;

		t->p = 2 * (ft->df > 0 ? gsl_cdf_tdist_Q(z, ft->df) : gsl_cdf_ugaussian_Q(z));
	} else {
		t->p = est == 0 ? 1 : 0;
	}
	if (t->p > 1)
		t->p = 1;
	t->p_holm = t->p;
	return 0;
}

static int terms_of(struct jl_fx_result *r, const struct fit *ft)
{
	const struct jl_fx_design *d = ft->d;
	size_t bytes = (size_t)ft->m.ncols * sizeof(double);

	for (int f = 0; f < d->nfactors; f++)
		for (int a = 1; ft->m.main0[f] >= 0 && a < d->nlevels[f]; a++) {
			memset(ft->v, 0, bytes);
			add_main(d, &ft->m, f, a, 1, ft->v);
			if (add_term(r, ft, JL_FX_MAIN, f, -1, a, -1) < 0)
				return -1;
		}
	for (int f = 0; f < d->nfactors; f++)
		for (int g = f + 1; g < d->nfactors; g++)
			for (int a = 1; ft->m.inter0[f][g] >= 0 && a < d->nlevels[f]; a++)
				for (int b = 1; b < d->nlevels[g]; b++) {
					memset(ft->v, 0, bytes);
					add_cell(d, &ft->m, f, g, a, b, 1, ft->v);
					add_cell(d, &ft->m, f, g, 0, b, -1, ft->v);
					add_cell(d, &ft->m, f, g, a, 0, -1, ft->v);
					add_cell(d, &ft->m, f, g, 0, 0, 1, ft->v);
					if (add_term(r, ft, JL_FX_INTERACTION, f, g, a, b) < 0)
						return -1;
				}
	return 0;
}

/* Each factor's effect at each level of a factor it interacts with (F at G's levels, and G at F's). */
static int simple_terms(struct jl_fx_result *r, const struct fit *ft)
{
	const struct jl_fx_design *d = ft->d;
	size_t bytes = (size_t)ft->m.ncols * sizeof(double);

	for (int f = 0; f < d->nfactors; f++)
		for (int g = 0; g < d->nfactors; g++) {
			int lo = f < g ? f : g, hi = f < g ? g : f;

			if (f == g || ft->m.inter0[lo][hi] < 0)
				continue;
			for (int a = 1; a < d->nlevels[f]; a++)
				for (int j = 0; j < d->nlevels[g]; j++) {
					memset(ft->v, 0, bytes);
					add_main(d, &ft->m, f, a, 1, ft->v);
					if (f < g) {
						add_cell(d, &ft->m, f, g, a, j, 1, ft->v);
						add_cell(d, &ft->m, f, g, 0, j, -1, ft->v);
					} else {
						add_cell(d, &ft->m, g, f, j, a, 1, ft->v);
						add_cell(d, &ft->m, g, f, j, 0, -1, ft->v);
					}
					if (add_term(r, ft, JL_FX_SIMPLE, f, g, a, j) < 0)
						return -1;
				}
		}
	return 0;
}

void jl_fx_holm(const double *p, int n, double *adj, int *idx)
{
	double run = 0;

	for (int i = 0; i < n; i++)
		idx[i] = i;
	for (int i = 1; i < n; i++) /* insertion sort by p: a few dozen terms at most */
		for (int j = i; j > 0 && p[idx[j]] < p[idx[j - 1]]; j--) {
			int t = idx[j];

			idx[j] = idx[j - 1];
			idx[j - 1] = t;
		}
	for (int k = 0; k < n; k++) {
		double a = (double)(n - k) * p[idx[k]];

		if (a > run)
			run = a;
		adj[idx[k]] = run > 1 ? 1 : run;
	}
}

static int holm_terms(struct jl_fx_result *r)
{
	int n = 0, *idx = malloc((size_t)(r->nterms + 1) * sizeof(int));
	double *p = calloc((size_t)r->nterms + 1, sizeof(double)), *adj = calloc((size_t)r->nterms + 1, sizeof(double));

	if (!idx || !p || !adj) {
		free(idx), free(p), free(adj);
		return -1;
	}
	for (int i = 0; i < r->nterms; i++)
		if (r->terms[i].kind != JL_FX_SIMPLE)
			p[n++] = r->terms[i].p;
	jl_fx_holm(p, n, adj, idx);
	n = 0;
	for (int i = 0; i < r->nterms; i++)
		if (r->terms[i].kind != JL_FX_SIMPLE)
			r->terms[i].p_holm = adj[n++];
	free(idx), free(p), free(adj);
	return 0;
}

/* ---- the design ---- */

static int cell_of(const struct jl_fx_design *d, int i)
{
	int c = 0;

	for (int f = 0; f < d->nfactors; f++)
		c = c * d->nlevels[f] + d->level[(size_t)i * (size_t)d->nfactors + (size_t)f];
	return c;
}

/* Every cell with runs has at least 2; BALANCED: the same number in each (the empty ones aside). */
static int check_cells(const struct jl_fx_design *d, struct jl_fx_result *r)
{
	int ncells = 1, *n, first = -1;

	for (int f = 0; f < d->nfactors; f++)
		ncells *= d->nlevels[f];
	n = calloc((size_t)ncells, sizeof(*n));
	if (!n)
		return -1;
	for (int i = 0; i < d->nobs; i++)
		n[cell_of(d, i)]++;
	r->balanced = true;
	for (int c = 0; c < ncells; c++) {
		if (n[c] == 1 && r->status == JL_FX_OK) {
			r->status = JL_FX_FEW;
			snprintf(r->why, sizeof(r->why), "a condition has 1 usable run (2 or more each are needed)");
		}
		if (n[c] && first < 0)
			first = n[c];
		if (n[c] && n[c] != first)
			r->balanced = false;
	}
	free(n);
	return 0;
}

/* Can the round be a block? Every round has 2 runs or more (one run alone in a round is fitted exactly),
 * and for a Poisson model a count above 0 (else its coefficient runs off to -inf). */
static bool block_fits(const struct jl_fx_design *d, enum jl_fx_scale scale)
{
	bool ok = d->block && d->nblocks > 1;

	for (int b = 0; ok && b < d->nblocks; b++) {
		int n = 0;
		double sum = 0;

		for (int i = 0; i < d->nobs; i++)
			if (d->block[i] == b)
				n++, sum += d->y[i];
		ok = n >= 2 && (scale != JL_FX_POISSON || sum > 0);
	}
	return ok;
}

/* The model: the mains, then each interaction the design can tell apart (forward: one that makes the
 * columns singular is confounded and left out), then the round if it still fits. */
static int choose_model(const struct jl_fx_design *d, struct jl_fx_result *r, struct layout *m)
{
	bool block = block_fits(d, r->scale);
	bool inter[NF][NF] = { { false } };

	layout_make(d, inter, false, NULL, m);
	if (!estimable(d, m)) {
		r->status = JL_FX_SINGULAR;
		snprintf(r->why, sizeof(r->why), "the runs cannot tell the factors apart (a factor's levels each go "
			 "with one level of another)");
		return 0;
	}
	for (int f = 0; f < d->nfactors; f++)
		for (int g = f + 1; g < d->nfactors; g++) {
			if (d->nlevels[f] < 2 || d->nlevels[g] < 2)
				continue;
			inter[f][g] = true;
			layout_make(d, inter, false, NULL, m);
			if (!estimable(d, m)) {
				inter[f][g] = false;
				r->confounded[f][g] = true;
			}
		}
	layout_make(d, inter, block, NULL, m);
	r->block_used = m->block0 >= 0 && estimable(d, m) && d->nobs - m->ncols >= 1;
	if (!r->block_used)
		layout_make(d, inter, false, NULL, m);
	return 0;
}

/* HC3: (X'X)^-1 X' diag(e_i^2 / (1 - h_ii)^2) X (X'X)^-1 into COV. -1: a run with leverage 1 (fitted
 * exactly). E and COV NULL: the leverages checked alone. */
static int hc3(const gsl_matrix *x, const gsl_matrix *ainv, const double *e, gsl_matrix *cov)
{
	size_t n = x->size1, p = x->size2;
	gsl_matrix *meat = gsl_matrix_calloc(p, p), *tmp = gsl_matrix_alloc(p, p);
	gsl_vector *ax = gsl_vector_alloc(p);
	int rc = 0;

	if (!meat || !tmp || !ax)
		rc = -1;
	for (size_t i = 0; !rc && i < n; i++) {
		gsl_vector_const_view xi = gsl_matrix_const_row(x, i);
		double h, w;

		gsl_blas_dgemv(CblasNoTrans, 1, ainv, &xi.vector, 0, ax);
		gsl_blas_ddot(&xi.vector, ax, &h);
		if (h > 1 - 1e-9) {
			rc = -1;
			break;
		}
		if (!e)
			continue;
		w = e[i] * e[i] / ((1 - h) * (1 - h));
		gsl_blas_dger(w, &xi.vector, &xi.vector, meat);
	}
	if (!rc && cov) {
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1, ainv, meat, 0, tmp);
		gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1, tmp, ainv, 0, cov);
	}
	gsl_matrix_free(meat);
	gsl_matrix_free(tmp);
	gsl_vector_free(ax);
	return rc;
}

/* Is every run's leverage under 1 in the model M (else HC3 divides by 0)? */
static bool fit_leverage_ok(const struct jl_fx_design *d, const struct layout *m)
{
	gsl_matrix *x = design_matrix(d, m), *ainv = gsl_matrix_alloc((size_t)m->ncols, (size_t)m->ncols);
	bool ok = x && ainv && normal_inverse(x, NULL, ainv) == 0 && hc3(x, ainv, NULL, NULL) == 0;

	gsl_matrix_free(x);
	gsl_matrix_free(ainv);
	return ok;
}

/* Type II shares: each main after every term without its factor; each interaction and the round after
 * everything else. omega^2 = (SS - df MSE) / (SS_total + MSE), at least 0. */
static int shares(const struct jl_fx_design *d, const double *z, const struct layout *full, double rss_full,
		  struct jl_fx_result *r)
{
	double mean = 0, sst = 0;
	int cap = d->nfactors + d->nfactors * d->nfactors + 2;

	r->shares = calloc((size_t)cap, sizeof(*r->shares));
	if (!r->shares)
		return -1;
	for (int i = 0; i < d->nobs; i++)
		mean += z[i] / d->nobs;
	for (int i = 0; i < d->nobs; i++)
		sst += (z[i] - mean) * (z[i] - mean);
	for (int f = -1; f < d->nfactors; f++)
		for (int g = f; g < d->nfactors; g++) {
			bool inter[NF][NF], drop[NF] = { false }, block = full->block0 >= 0;
			struct layout with, without;
			double ss, df;

			if (f == -1 && g != -1) /* f = g = -1: the round */
				continue;
			if (f == -1 && !block)
				continue;
			if (f >= 0 && ((f == g && full->main0[f] < 0) || (f != g && full->inter0[f][g] < 0)))
				continue;
			for (int a = 0; a < NF; a++)
				for (int b = 0; b < NF; b++)
					inter[a][b] = a < d->nfactors && b < d->nfactors && full->inter0[a][b] >= 0;
			if (f == -1) {
				block = false;
				df = d->nblocks - 1;
			} else if (f == g) { /* drop every term containing F, then add F's main back */
				for (int h = 0; h < d->nfactors; h++)
					inter[f][h] = inter[h][f] = false;
				drop[f] = true;
				df = d->nlevels[f] - 1;
			} else {
				inter[f][g] = false;
				df = (d->nlevels[f] - 1) * (d->nlevels[g] - 1);
			}
			layout_make(d, inter, block, drop, &without);
			if (f == g) {
				layout_make(d, inter, block, NULL, &with);
				ss = rss_of(d, z, &without) - rss_of(d, z, &with);
			} else {
				ss = rss_of(d, z, &without) - rss_full;
			}
			if (!isfinite(ss))
				continue;
			r->shares[r->nshares++] = (struct jl_fx_share){ .f = f, .g = f == g ? -1 : g, .ss = ss < 0 ? 0 : ss, .df = df };
		}
	for (int i = 0; i < r->nshares; i++) {
		double w = (r->shares[i].ss - r->shares[i].df * r->mse) / (sst + r->mse);

		r->shares[i].omega2 = w > 0 ? w : 0;
		if (r->shares[i].f == -1)
			r->shares[i].g = -1;
	}
	r->shares[r->nshares++] = (struct jl_fx_share){ .f = -2, .g = -2, .ss = rss_full, .df = r->df_resid,
							.omega2 = sst > 0 ? rss_full / sst : 0 };
	return 0;
}

/* ---- the fits ---- */

static int fit_ls(const struct jl_fx_design *d, const double *z, double confidence, struct jl_fx_result *r)
{
	struct fit ft = { .d = d };
	gsl_matrix *x = NULL, *ainv = NULL;
	double rss, *e = NULL;
	int rc = -1;

	choose_model(d, r, &ft.m);
	if (r->status != JL_FX_OK)
		return 0;
	if (r->block_used && d->block) { /* a run the block fits exactly: the model without it */
		struct jl_fx_design nb = *d;

		nb.block = NULL;
		if (!fit_leverage_ok(d, &ft.m)) {
			choose_model(&nb, r, &ft.m);
			r->block_used = false;
		}
	}
	r->nparams = ft.m.ncols;
	r->df_resid = d->nobs - ft.m.ncols;
	if (r->df_resid < 1) {
		r->status = JL_FX_FEW;
		snprintf(r->why, sizeof(r->why), "%d runs for %d parameters: no degree of freedom left", d->nobs, ft.m.ncols);
		return 0;
	}
	x = design_matrix(d, &ft.m);
	ainv = gsl_matrix_alloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	ft.cov = gsl_matrix_alloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	ft.beta = gsl_vector_alloc((size_t)ft.m.ncols);
	ft.v = calloc((size_t)ft.m.ncols, sizeof(double));
	e = calloc((size_t)d->nobs, sizeof(double));
	if (!x || !ainv || !ft.cov || !ft.beta || !ft.v || !e || wls(x, z, NULL, ft.beta, ainv, &rss) < 0)
		goto out;
	for (int i = 0; i < d->nobs; i++) {
		gsl_vector_const_view xi = gsl_matrix_const_row(x, (size_t)i);
		double fit;

		gsl_blas_ddot(&xi.vector, ft.beta, &fit);
		e[i] = z[i] - fit;
	}
	r->mse = rss / r->df_resid;
	if (!(r->mse > 0)) {
		r->status = JL_FX_FEW;
		snprintf(r->why, sizeof(r->why), "the model fits every run exactly (no spread within the conditions): "
			 "nothing to test an effect against");
		rc = 0;
		goto out;
	}
	if (hc3(x, ainv, e, ft.cov) < 0) {
		r->status = JL_FX_FEW;
		snprintf(r->why, sizeof(r->why), "a run is fitted exactly (a condition has 1 usable run)");
		rc = 0;
		goto out;
	}
	ft.df = r->df_resid;
	ft.tq = gsl_cdf_tdist_Pinv(1 - (1 - confidence) / 2, ft.df);
	rc = terms_of(r, &ft) || simple_terms(r, &ft) || holm_terms(r) || shares(d, z, &ft.m, rss, r) ? -1 : 0;
out:
	gsl_matrix_free(x), gsl_matrix_free(ainv), gsl_matrix_free(ft.cov), gsl_vector_free(ft.beta);
	free(ft.v), free(e);
	return rc;
}

/* Poisson IRLS from beta = 0 with the intercept at the overall rate; the sandwich covariance. */
static int fit_poisson(const struct jl_fx_design *d, double confidence, struct jl_fx_result *r)
{
	struct fit ft = { .d = d };
	gsl_matrix *x = NULL, *ainv = NULL, *meat = NULL, *tmp = NULL;
	double *w = NULL, *z = NULL, *eta = NULL, ysum = 0, esum = 0, dev_prev = INFINITY, rss;
	int n = d->nobs, rc = -1, it;

	choose_model(d, r, &ft.m);
	if (r->status != JL_FX_OK)
		return 0;
	r->nparams = ft.m.ncols;
	r->df_resid = n - ft.m.ncols;
	x = design_matrix(d, &ft.m);
	ainv = gsl_matrix_alloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	meat = gsl_matrix_calloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	tmp = gsl_matrix_alloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	ft.cov = gsl_matrix_alloc((size_t)ft.m.ncols, (size_t)ft.m.ncols);
	ft.beta = gsl_vector_calloc((size_t)ft.m.ncols);
	ft.v = calloc((size_t)ft.m.ncols, sizeof(double));
	w = calloc((size_t)n, sizeof(double));
	z = calloc((size_t)n, sizeof(double));
	eta = calloc((size_t)n, sizeof(double));
	if (!x || !ainv || !meat || !tmp || !ft.cov || !ft.beta || !ft.v || !w || !z || !eta)
		goto out;
	for (int i = 0; i < n; i++)
		ysum += d->y[i], esum += d->exposure[i];
	gsl_vector_set(ft.beta, 0, log(ysum / esum));
	for (it = 0; it < POISSON_ITER; it++) {
		double dev = 0;

		for (int i = 0; i < n; i++) {
			gsl_vector_const_view xi = gsl_matrix_const_row(x, (size_t)i);
			double lin, mu;

			gsl_blas_ddot(&xi.vector, ft.beta, &lin);
			eta[i] = lin;
			mu = d->exposure[i] * exp(lin);
			w[i] = mu;
			z[i] = lin + (d->y[i] - mu) / mu;
			dev += d->y[i] > 0 ? 2 * (d->y[i] * log(d->y[i] / mu) - (d->y[i] - mu)) : 2 * mu;
		}
		if (fabs(dev - dev_prev) < 1e-10 * (fabs(dev) + 1e-10))
			break;
		dev_prev = dev;
		if (wls(x, z, w, ft.beta, ainv, &rss) < 0)
			break;
	}
	if (it < POISSON_ITER && wls(x, z, w, ft.beta, ainv, &rss) < 0)
		it = POISSON_ITER; /* a step that went singular: a rate running off to 0 */
	if (it == POISSON_ITER) {
		r->status = JL_FX_NO_FIT;
		snprintf(r->why, sizeof(r->why), "the Poisson fit did not converge in %d iterations", POISSON_ITER);
		rc = 0;
		goto out;
	}
	for (int i = 0; i < n; i++) { /* the sandwich: bread (X'WX)^-1, meat X' diag((y - mu)^2) X */
		gsl_vector_const_view xi = gsl_matrix_const_row(x, (size_t)i);
		double e = d->y[i] - d->exposure[i] * exp(eta[i]);

		gsl_blas_dger(e * e, &xi.vector, &xi.vector, meat);
	}
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1, ainv, meat, 0, tmp);
	gsl_blas_dgemm(CblasNoTrans, CblasNoTrans, 1, tmp, ainv, 0, ft.cov);
	ft.df = r->df_resid > 0 ? r->df_resid : 0; /* t, not z: a few runs per cell make the sandwich small */
	ft.tq = ft.df > 0 ? gsl_cdf_tdist_Pinv(1 - (1 - confidence) / 2, ft.df) : gsl_cdf_ugaussian_Pinv(1 - (1 - confidence) / 2);
	rc = terms_of(r, &ft) || simple_terms(r, &ft) || holm_terms(r) ? -1 : 0;
out:
	gsl_matrix_free(x), gsl_matrix_free(ainv), gsl_matrix_free(meat), gsl_matrix_free(tmp);
	gsl_matrix_free(ft.cov), gsl_vector_free(ft.beta);
	free(ft.v), free(w), free(z), free(eta);
	return rc;
}

/* A Poisson cell with 0 in every run, or a value the scale cannot take: the status, else OK. */
static void check_values(const struct jl_fx_design *d, enum jl_fx_scale scale, struct jl_fx_result *r)
{
	int ncells = 1;

	for (int i = 0; i < d->nobs; i++) {
		bool bad = scale == JL_FX_LOG ? !(d->y[i] > 0) : !isfinite(d->y[i]);

		if (scale == JL_FX_POISSON)
			bad = !(d->y[i] >= 0) || !d->exposure || !(d->exposure[i] > 0);
		if (bad) {
			r->status = JL_FX_BAD_VALUE;
			snprintf(r->why, sizeof(r->why), scale == JL_FX_LOG ? "a run's value is 0 or less (no ratio)" :
				 "a run's value is not a count with its cycles");
			return;
		}
	}
	for (int i = 1; i < d->nobs && d->y[i] == d->y[0]; i++)
		if (i == d->nobs - 1) {
			r->status = JL_FX_CONSTANT;
			snprintf(r->why, sizeof(r->why), "every run gave the same value");
			return;
		}
	if (scale != JL_FX_POISSON)
		return;
	for (int f = 0; f < d->nfactors; f++)
		ncells *= d->nlevels[f];
	for (int c = 0; c < ncells; c++) {
		bool seen = false, nonzero = false;

		for (int i = 0; i < d->nobs; i++)
			if (cell_of(d, i) == c) {
				seen = true;
				nonzero |= d->y[i] > 0;
			}
		if (seen && !nonzero) {
			r->status = JL_FX_ZERO_CELL;
			snprintf(r->why, sizeof(r->why), "a condition has 0 in every run: no ratio against it is finite");
			return;
		}
	}
}

int jl_fx_fit(const struct jl_fx_design *d, enum jl_fx_scale scale, double confidence, struct jl_fx_result *r)
{
	gsl_error_handler_t *old;
	double *z;
	bool any = false;
	int rc;

	memset(r, 0, sizeof(*r));
	r->scale = scale;
	r->nobs = d ? d->nobs : 0;
	if (!d || d->nfactors < 1 || d->nfactors > NF || d->nobs < 1 || !d->level || !d->y) {
		errno = EINVAL;
		return -1;
	}
	for (int i = 0; i < d->nobs * d->nfactors; i++)
		if (d->level[i] < 0 || d->level[i] >= d->nlevels[i % d->nfactors] || (d->block && i < d->nobs &&
		    (d->block[i] < 0 || d->block[i] >= d->nblocks))) {
			errno = EINVAL;
			return -1;
		}
	for (int f = 0; f < d->nfactors; f++)
		any |= d->nlevels[f] > 1;
	if (!any) {
		r->status = JL_FX_ONE_LEVEL;
		snprintf(r->why, sizeof(r->why), "no factor has two levels");
		return 0;
	}
	check_values(d, scale, r);
	if (r->status == JL_FX_OK && check_cells(d, r) < 0)
		return -1;
	if (r->status != JL_FX_OK)
		return 0;
	old = gsl_set_error_handler_off(); /* a singular matrix is an answer here, not an abort */
	if (scale == JL_FX_POISSON) {
		rc = fit_poisson(d, confidence, r);
	} else {
		z = malloc((size_t)d->nobs * sizeof(*z));
		if (!z) {
			gsl_set_error_handler(old);
			return -1;
		}
		for (int i = 0; i < d->nobs; i++)
			z[i] = scale == JL_FX_LOG ? log(d->y[i]) : d->y[i];
		rc = fit_ls(d, z, confidence, r);
		free(z);
	}
	gsl_set_error_handler(old);
	if (rc < 0)
		errno = ENOMEM;
	return rc;
}

void jl_fx_free(struct jl_fx_result *r)
{
	free(r->terms);
	free(r->shares);
	r->terms = NULL;
	r->shares = NULL;
	r->nterms = r->nshares = 0;
}
