/* test_effects: the factor-effects model (rt/base/effects.c) against figures computed without it: R's
 * published analysis of warpbreaks (tests/unit/fixtures/effects/warpbreaks.txt, with its source), and closed
 * forms for the saturated model (each cell's mean; HC3's variance of a cell mean is the cell's sum of
 * squares over (n - 1)^2), computed here from the raw values with plain loops. Cases: a balanced 2 x 3 with
 * an interaction, an unbalanced design, a factor with no effect, unequal variances per cell, a confounded
 * design, a missing cell, the round as a block, a Poisson model with offsets and a cell of zeros, Holm. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <libgen.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <gsl/gsl_cdf.h>

#include "rt/base/effects.h"

static void assert_near(double got, double want, double tol)
{
	if (!(fabs(got - want) <= tol))
		fail_msg("got %.6f, want %.6f (+-%g)", got, want, tol);
}

static const struct jl_fx_term *term(const struct jl_fx_result *r, enum jl_fx_kind kind, int f, int g, int a, int b)
{
	for (int i = 0; i < r->nterms; i++) {
		const struct jl_fx_term *t = &r->terms[i];

		if (t->kind == kind && t->f == f && t->g == g && t->a == a && t->b == b)
			return t;
	}
	fail_msg("no term kind %d f %d g %d a %d b %d", kind, f, g, a, b);
	return NULL;
}

static double share_ss(const struct jl_fx_result *r, int f, int g)
{
	for (int i = 0; i < r->nshares; i++)
		if (r->shares[i].f == f && r->shares[i].g == g)
			return r->shares[i].ss;
	fail_msg("no share %d %d", f, g);
	return NAN;
}

/* ---- warpbreaks ---- */

struct wb {
	int n, level[64 * 2];
	double y[64];
};

static void load_warpbreaks(struct wb *w)
{
	char path[PATH_MAX], src[PATH_MAX], line[256];
	FILE *f;

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/fixtures/effects/warpbreaks.txt", dirname(src));
	f = fopen(path, "r");
	if (!f) {
		char exe[PATH_MAX];
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[k > 0 ? k : 0] = '\0';
		snprintf(path, sizeof(path), "%s/../../tests/unit/fixtures/effects/warpbreaks.txt", dirname(exe));
		f = fopen(path, "r");
	}
	assert_non_null(f);
	w->n = 0;
	while (fgets(line, sizeof(line), f)) {
		char wool, tension;
		int v;

		if (line[0] == '#' || sscanf(line, " %c %c %d", &wool, &tension, &v) != 3)
			continue;
		w->level[w->n * 2] = wool == 'B';
		w->level[w->n * 2 + 1] = tension == 'L' ? 0 : tension == 'M' ? 1 : 2;
		w->y[w->n++] = v;
	}
	fclose(f);
	assert_int_equal(w->n, 54);
}

/* the cell means and within sums of squares of a 2-factor design, by plain loops */
static void cells(const int *level, const double *y, int n, int la, int lb, double mean[4][4], double ss[4][4], int cnt[4][4])
{
	memset(mean, 0, sizeof(double) * 16);
	memset(ss, 0, sizeof(double) * 16);
	memset(cnt, 0, sizeof(int) * 16);
	for (int i = 0; i < n; i++) {
		mean[level[2 * i]][level[2 * i + 1]] += y[i];
		cnt[level[2 * i]][level[2 * i + 1]]++;
	}
	for (int a = 0; a < la; a++)
		for (int b = 0; b < lb; b++)
			mean[a][b] /= cnt[a][b];
	for (int i = 0; i < n; i++) {
		double e = y[i] - mean[level[2 * i]][level[2 * i + 1]];

		ss[level[2 * i]][level[2 * i + 1]] += e * e;
	}
}

static void test_warpbreaks_published(void **state)
{
	struct wb w;
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 3 } };
	struct jl_fx_result r;
	double mean[4][4], ss[4][4], var, est, tq;
	int cnt[4][4];

	(void)state;
	load_warpbreaks(&w);
	d.nobs = w.n, d.level = w.level, d.y = w.y;
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_true(r.balanced);
	assert_false(r.block_used);
	assert_int_equal(r.df_resid, 48);
	/* R's ANOVA table (balanced: Type II = Type I) */
	assert_near(share_ss(&r, 0, -1), 450.7, 0.05);
	assert_near(share_ss(&r, 1, -1), 2034.3, 0.05);
	assert_near(share_ss(&r, 0, 1), 1002.8, 0.05);
	assert_near(share_ss(&r, -2, -2), 5745.1, 0.05);
	assert_near(r.mse, 5745.1 / 48, 0.01);
	/* R's coefficients: the interaction terms are the differences of differences against A, L */
	assert_near(term(&r, JL_FX_INTERACTION, 0, 1, 1, 1)->est, 21.111, 0.001);
	assert_near(term(&r, JL_FX_INTERACTION, 0, 1, 1, 2)->est, 10.556, 0.001);
	/* the simple effect of wool at L is R's woolB; of tension M at wool A is tensionM */
	assert_near(term(&r, JL_FX_SIMPLE, 0, 1, 1, 0)->est, -16.333, 0.001);
	assert_near(term(&r, JL_FX_SIMPLE, 1, 0, 1, 0)->est, -20.556, 0.001);
	assert_near(term(&r, JL_FX_SIMPLE, 1, 0, 2, 0)->est, -20.000, 0.001);
	/* wool's main effect averaged over tension: the wool means' difference, 682/27 - 838/27 */
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->est, (682.0 - 838.0) / 27, 1e-9);
	/* HC3 in the saturated model: Var(cell mean) = SS_cell / (n - 1)^2; the main effect is
	 * (1/3) sum_t (B_t - A_t) */
	cells(w.level, w.y, w.n, 2, 3, mean, ss, cnt);
	var = 0;
	est = 0;
	for (int t = 0; t < 3; t++) {
		est += (mean[1][t] - mean[0][t]) / 3;
		var += (ss[1][t] + ss[0][t]) / 64.0 / 9;
	}
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->est, est, 1e-9);
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->se, sqrt(var), 1e-9);
	tq = gsl_cdf_tdist_Pinv(0.975, 48);
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->lo, est - tq * sqrt(var), 1e-9);
	/* the interaction's variance: four cells, each weight 1 */
	var = (ss[1][1] + ss[0][1] + ss[1][0] + ss[0][0]) / 64.0;
	assert_near(term(&r, JL_FX_INTERACTION, 0, 1, 1, 1)->se, sqrt(var), 1e-9);
	jl_fx_free(&r);
}

/* ---- synthetic designs ---- */

/* Standard normal deviates from a fixed-seed LCG and Box-Muller (no generator shared with the code under
 * test): the I-th of one fixed sequence, so every run of the test sees the same sample. */
static double noise(int i)
{
	static double z[512];
	static bool made;

	if (!made) {
		uint64_t s = 0x2545f4914f6cdd1dull;

		for (int k = 0; k < 512; k += 2) {
			double u1, u2;

			s = s * 6364136223846793005ull + 1442695040888963407ull;
			u1 = ((s >> 11) + 1.0) / 9007199254740993.0;
			s = s * 6364136223846793005ull + 1442695040888963407ull;
			u2 = (s >> 11) / 9007199254740992.0;
			z[k] = sqrt(-2 * log(u1)) * cos(2 * M_PI * u2);
			z[k + 1] = sqrt(-2 * log(u1)) * sin(2 * M_PI * u2);
		}
		made = true;
	}
	return z[i % 512];
}

/* 2 x 2, N runs per cell; log-scale cell means M[a][b] (as ratios), relative spread SD[a][b] */
static void make_2x2(int n, const double m[2][2], const double sd[2][2], int *level, double *y, int *block)
{
	int i = 0;

	for (int r = 0; r < n; r++)
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++, i++) {
				level[2 * i] = a;
				level[2 * i + 1] = b;
				if (block)
					block[i] = r;
				y[i] = m[a][b] * exp(sd[a][b] * noise(i));
			}
}

/* A factor with no effect: B's CI covers a ratio of 1; A's (x 4) excludes it and covers 4. */
static void test_no_effect_covers_one(void **state)
{
	const double m[2][2] = { { 100, 100 }, { 400, 400 } }, sd[2][2] = { { 0.1, 0.1 }, { 0.1, 0.1 } };
	int level[2 * 24];
	double y[24];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 24, .level = level, .y = y };
	struct jl_fx_result r;
	const struct jl_fx_term *a, *b;

	(void)state;
	make_2x2(6, m, sd, level, y, NULL);
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	a = term(&r, JL_FX_MAIN, 0, -1, 1, -1);
	b = term(&r, JL_FX_MAIN, 1, -1, 1, -1);
	assert_true(exp(b->lo) < 1 && exp(b->hi) > 1);
	assert_true(exp(a->lo) > 1 && exp(a->lo) < 4 && exp(a->hi) > 4);
	assert_true(a->p_holm < 0.001);
	assert_true(b->p_holm >= 0.05); /* no effect: not significant after Holm either */
	jl_fx_free(&r);
}

/* Unequal variances: the noisy cell (1, 1) widens the simple effect of A at B = 1, not at B = 0; and
 * the interaction (a hog that multiplies only under one policy) is seen. */
static void test_unequal_variance_widens_where_it_is(void **state)
{
	const double m[2][2] = { { 100, 100 }, { 110, 4000 } }, sd[2][2] = { { 0.02, 0.02 }, { 0.02, 0.8 } };
	int level[2 * 20];
	double y[20];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 20, .level = level, .y = y };
	struct jl_fx_result r;
	const struct jl_fx_term *at0, *at1, *ia;

	(void)state;
	make_2x2(5, m, sd, level, y, NULL);
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	at0 = term(&r, JL_FX_SIMPLE, 0, 1, 1, 0);
	at1 = term(&r, JL_FX_SIMPLE, 0, 1, 1, 1);
	assert_true(at1->hi - at1->lo > 10 * (at0->hi - at0->lo));
	ia = term(&r, JL_FX_INTERACTION, 0, 1, 1, 1);
	assert_true(exp(ia->lo) > 1);
	assert_true(exp(at0->lo) < 1.2 && exp(at0->hi) < 1.3); /* x 1.1 where the variance is small */
	jl_fx_free(&r);
}

/* Unbalanced: 2, 3, 4 and 5 runs per cell. The saturated model's estimates are the unweighted cell-mean
 * contrasts, and HC3's variance is each cell's SS / (n - 1)^2 (n differs per cell). */
static void test_unbalanced(void **state)
{
	const int per[2][2] = { { 2, 3 }, { 4, 5 } };
	int level[2 * 14], n = 0, cnt[4][4];
	double y[14], mean[4][4], ss[4][4], var = 0, est = 0;
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .level = level, .y = y };
	struct jl_fx_result r;

	(void)state;
	for (int a = 0; a < 2; a++)
		for (int b = 0; b < 2; b++)
			for (int k = 0; k < per[a][b]; k++, n++) {
				level[2 * n] = a, level[2 * n + 1] = b;
				y[n] = 10 + 5 * a + 2 * b + 3 * a * b + noise(n);
			}
	d.nobs = n;
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_false(r.balanced);
	cells(level, y, n, 2, 2, mean, ss, cnt);
	for (int b = 0; b < 2; b++) {
		est += (mean[1][b] - mean[0][b]) / 2;
		var += (ss[1][b] / ((cnt[1][b] - 1.0) * (cnt[1][b] - 1)) + ss[0][b] / ((cnt[0][b] - 1.0) * (cnt[0][b] - 1))) / 4;
	}
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->est, est, 1e-9);
	assert_near(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->se, sqrt(var), 1e-9);
	jl_fx_free(&r);
}

/* Confounded: B's level always equals A's: refused. A missing cell in a 2 x 2 x 2: the interaction that
 * needs it is not computed, the mains are. A cell with one run: refused as too few. */
static void test_confounded_and_missing(void **state)
{
	int level[3 * 24];
	double y[24];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 12, .level = level, .y = y };
	struct jl_fx_result r;
	int n = 0;

	(void)state;
	for (int i = 0; i < 12; i++) {
		level[2 * i] = level[2 * i + 1] = i % 2;
		y[i] = 1 + i % 2 + 0.1 * noise(i);
	}
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_SINGULAR);
	assert_true(strlen(r.why) > 0);
	assert_int_equal(r.nterms, 0);
	jl_fx_free(&r);

	/* 2 x 2 x 2 without the cell (1, 1, *): A x B cannot be told; A x C and B x C can */
	for (int rep = 0; rep < 4; rep++)
		for (int a = 0; a < 2; a++)
			for (int b = 0; b < 2; b++)
				for (int c = 0; c < 2; c++) {
					if (a == 1 && b == 1)
						continue;
					if (n >= 24)
						break;
					level[3 * n] = a, level[3 * n + 1] = b, level[3 * n + 2] = c;
					y[n] = 5 + a + 2 * b + c + 0.2 * noise(n);
					n++;
				}
	d = (struct jl_fx_design){ .nfactors = 3, .nlevels = { 2, 2, 2 }, .nobs = n, .level = level, .y = y };
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_true(r.confounded[0][1]);
	assert_false(r.confounded[0][2]);
	assert_false(r.confounded[1][2]);
	for (int i = 0; i < r.nterms; i++)
		assert_false(r.terms[i].kind == JL_FX_INTERACTION && r.terms[i].f == 0 && r.terms[i].g == 1);
	assert_near(term(&r, JL_FX_MAIN, 2, -1, 1, -1)->est, 1, 0.5);
	jl_fx_free(&r);

	/* one run in a cell */
	d = (struct jl_fx_design){ .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 7, .level = level, .y = y };
	{ /* (0,0) (0,1) (1,0) twice each, (1,1) once */
		static const int one[14] = { 0, 0, 0, 0, 0, 1, 0, 1, 1, 0, 1, 0, 1, 1 };

		memcpy(level, one, sizeof(one));
		for (int i = 0; i < 7; i++)
			y[i] = 1 + noise(i);
	}
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_FEW);
	jl_fx_free(&r);
}

/* The round as a block: a drift of the whole machine between rounds (x 1, x 2, x 4) that the model takes
 * out: with the block the effect's CI is narrow and covers the truth (x 3); the design's runs fit
 * without it too, with a far wider CI. */
static void test_round_block(void **state)
{
	const double m[2][2] = { { 100, 100 }, { 300, 300 } }, sd[2][2] = { { 0.01, 0.01 }, { 0.01, 0.01 } };
	int level[2 * 16], block[16];
	double y[16];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 16, .level = level, .y = y,
				  .block = block, .nblocks = 4 };
	struct jl_fx_result r, r0;
	const struct jl_fx_term *t, *t0;

	(void)state;
	make_2x2(4, m, sd, level, y, block);
	for (int i = 0; i < 16; i++)
		y[i] *= pow(2, block[i] % 3);
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_true(r.block_used);
	d.block = NULL;
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r0), 0);
	assert_false(r0.block_used);
	t = term(&r, JL_FX_MAIN, 0, -1, 1, -1);
	t0 = term(&r0, JL_FX_MAIN, 0, -1, 1, -1);
	assert_true(exp(t->lo) < 3 && exp(t->hi) > 3 && exp(t->hi) / exp(t->lo) < 1.2);
	assert_true(t0->hi - t0->lo > 5 * (t->hi - t->lo));
	jl_fx_free(&r);
	jl_fx_free(&r0);
}

/* Poisson with offsets: the saturated model's rates are each cell's count over its cycles, so the main
 * effect is the geometric mean over B of the rate ratios. A cell with 0 in every run: no model. */
static void test_poisson(void **state)
{
	int level[2 * 12];
	double y[12], cyc[12], rate[2][2] = { { 0 } }, cy[2][2] = { { 0 } }, want;
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 12, .level = level, .y = y, .exposure = cyc };
	struct jl_fx_result r;
	const double base[2][2] = { { 3, 5 }, { 30, 40 } };

	(void)state;
	for (int i = 0; i < 12; i++) {
		int a = i % 2, b = (i / 2) % 2;

		level[2 * i] = a, level[2 * i + 1] = b;
		cyc[i] = 1000 + 100 * (i % 3);
		y[i] = base[a][b] + (i % 3);
		rate[a][b] += y[i];
		cy[a][b] += cyc[i];
	}
	assert_int_equal(jl_fx_fit(&d, JL_FX_POISSON, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	want = sqrt((rate[1][0] / cy[1][0]) / (rate[0][0] / cy[0][0]) * (rate[1][1] / cy[1][1]) / (rate[0][1] / cy[0][1]));
	assert_near(exp(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->est), want, 1e-6);
	assert_int_equal((int)term(&r, JL_FX_MAIN, 0, -1, 1, -1)->df, r.df_resid);
	assert_int_equal(r.nshares, 0);
	jl_fx_free(&r);

	for (int i = 0; i < 12; i++)
		if (level[2 * i] == 0 && level[2 * i + 1] == 0)
			y[i] = 0;
	assert_int_equal(jl_fx_fit(&d, JL_FX_POISSON, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_ZERO_CELL);
	assert_int_equal(r.nterms, 0);
	jl_fx_free(&r);
}

static void test_holm(void **state)
{
	const double p[] = { 0.01, 0.04, 0.03, 0.005 };
	double adj[4];
	int scratch[4];

	(void)state;
	jl_fx_holm(p, 4, adj, scratch);
	/* sorted 0.005 x 4 = 0.02, 0.01 x 3 = 0.03, 0.03 x 2 = 0.06, 0.04 x 1 = 0.04 -> 0.06 (monotone) */
	assert_near(adj[3], 0.02, 1e-12);
	assert_near(adj[0], 0.03, 1e-12);
	assert_near(adj[2], 0.06, 1e-12);
	assert_near(adj[1], 0.06, 1e-12);
}

/* A log of 0 is refused, not taken as -inf. */
/* A 2 x 2 of N runs, cycling the cells, each run's value V */
static void grid_2x2(int *level, double *y, int n, double v)
{
	for (int i = 0; i < n; i++)
		level[2 * i] = i % 2, level[2 * i + 1] = (i / 2) % 2, y[i] = v < 0 ? i : v;
}

static void test_bad_value(void **state)
{
	int level[2 * 8];
	double y[8];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 8, .level = level, .y = y };
	struct jl_fx_result r;

	(void)state;
	grid_2x2(level, y, 8, -1); /* values 0..7: a log of 0 */
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_BAD_VALUE);
	jl_fx_free(&r);
}

/* An interrupted sweep: three whole rounds and one run of a fourth. That round cannot be a block (its run
 * would be fitted exactly): the model goes without the block, and the design is unbalanced. */
static void test_interrupted_round(void **state)
{
	const double m[2][2] = { { 100, 100 }, { 300, 300 } }, sd[2][2] = { { 0.1, 0.1 }, { 0.1, 0.1 } };
	int level[2 * 16], block[16];
	double y[16];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 13, .level = level, .y = y,
				  .block = block, .nblocks = 4 };
	struct jl_fx_result r;

	(void)state;
	make_2x2(4, m, sd, level, y, block); /* 16 made, the first 13 kept: round 4 has one run */
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_false(r.block_used);
	assert_false(r.balanced);
	assert_true(exp(term(&r, JL_FX_MAIN, 0, -1, 1, -1)->lo) > 2);
	jl_fx_free(&r);
	d.nobs = 12; /* three whole rounds (numbered 0-2, as the sweep numbers the rounds that have runs): a block */
	d.nblocks = 3;
	assert_int_equal(jl_fx_fit(&d, JL_FX_LOG, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_OK);
	assert_true(r.block_used);
	assert_true(r.balanced);
	jl_fx_free(&r);
}

/* Nothing varies (a loop that kept its rate in every run): said so, no effect. */
static void test_constant(void **state)
{
	int level[2 * 8];
	double y[8];
	struct jl_fx_design d = { .nfactors = 2, .nlevels = { 2, 2 }, .nobs = 8, .level = level, .y = y };
	struct jl_fx_result r;

	(void)state;
	grid_2x2(level, y, 8, 200);
	assert_int_equal(jl_fx_fit(&d, JL_FX_LINEAR, 0.95, &r), 0);
	assert_int_equal(r.status, JL_FX_CONSTANT);
	assert_int_equal(r.nterms, 0);
	jl_fx_free(&r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warpbreaks_published),
		cmocka_unit_test(test_no_effect_covers_one),
		cmocka_unit_test(test_unequal_variance_widens_where_it_is),
		cmocka_unit_test(test_unbalanced),
		cmocka_unit_test(test_confounded_and_missing),
		cmocka_unit_test(test_round_block),
		cmocka_unit_test(test_poisson),
		cmocka_unit_test(test_holm),
		cmocka_unit_test(test_bad_value),
		cmocka_unit_test(test_constant),
		cmocka_unit_test(test_interrupted_round),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
