/* effects: how much each factor of a crossed design changes a per-run metric, and whether factors interact.
 * Pure (GSL's linear algebra and distributions), unit-tested; sweep_effects.c feeds it a sweep's runs.
 *
 * The model: one value per run; the factors (sum-to-zero coded), every two-factor interaction, and the
 * round as a block (each round runs every condition once). Fitted by least squares, on the log of the
 * value (JL_FX_LOG: effects are ratios), on the value (JL_FX_LINEAR: differences), or as a Poisson
 * log-linear model with the log of the run's cycles as offset (JL_FX_POISSON: rate ratios; by iteratively
 * reweighted least squares). Cells may have different variances (a FIFO cell varies by a few %, a CFS cell
 * beside a hog by tens): the standard errors are HC3 (MacKinnon & White 1985; for a Poisson model the
 * sandwich, HC0, which also takes overdispersion), never the pooled equal-variance ones. A term's test is
 * Student t on the residual degrees of freedom (for a Poisson model too: with a few runs per cell Wald's z
 * would trust the sandwich too much). The round is a block only where every round has 2 runs or more (and a
 * Poisson count in it) and no run is fitted exactly; else the model goes without it and says so.
 *
 * Each main effect is a level against the factor's first (reference) level, averaged over the other
 * factors' levels; each interaction a ratio of ratios (a difference of differences), and with it the
 * first factor's effect at each level of the second (the simple effects, which say where it acts). Holm's
 * correction runs over the main effects and interactions of one fit. The shares of the variance between
 * runs are omega squared from Type II sums of squares (each term after every term that does not contain
 * it), which need not add up to 1 when the design is unbalanced. Never does I/O, never exits. */
#ifndef JL_EFFECTS_H
#define JL_EFFECTS_H

#include <stdbool.h>
#include <stddef.h>

#define JL_FX_MAX_FACTORS 9

enum jl_fx_scale { JL_FX_LOG, JL_FX_LINEAR, JL_FX_POISSON };

enum jl_fx_status {
	JL_FX_OK,
	JL_FX_FEW,        /* a cell with fewer than 2 runs, or no degree of freedom left */
	JL_FX_ONE_LEVEL,  /* no factor with two levels: nothing to compare */
	JL_FX_BAD_VALUE,  /* a value the scale cannot take (a log of <= 0, a negative count) */
	JL_FX_ZERO_CELL,  /* POISSON: a cell with 0 in every run (no ratio is finite) */
	JL_FX_SINGULAR,   /* not even the main effects are estimable */
	JL_FX_NO_FIT,     /* POISSON: the iterations did not converge */
	JL_FX_CONSTANT,   /* every run gave the same value: nothing varies to explain */
};

struct jl_fx_design {
	int nfactors;
	int nlevels[JL_FX_MAX_FACTORS]; /* level 0 is the reference */
	int nobs;
	const int *level;       /* nobs x nfactors, row-major: each run's level of each factor */
	const int *block;       /* each run's round, 0 .. nblocks-1; NULL: no block */
	int nblocks;
	const double *y;        /* each run's value */
	const double *exposure; /* POISSON: each run's cycles (> 0) */
};

enum jl_fx_kind { JL_FX_MAIN, JL_FX_INTERACTION, JL_FX_SIMPLE };

struct jl_fx_term {
	enum jl_fx_kind kind;
	int f, g;           /* the factor; the second factor (an interaction, or the one a simple effect is at) */
	int a, b;           /* the level of f against its level 0; of g (an interaction: against g's level 0;
			     * a simple effect: the level of g it is taken at) */
	double est, se;     /* on the model's scale (a log ratio, or a difference) */
	double lo, hi;      /* its confidence interval, same scale */
	double df;          /* t's degrees of freedom */
	double p, p_holm;   /* two-sided; Holm-adjusted within the fit (simple effects: p_holm = p) */
};

struct jl_fx_share {
	int f, g;           /* g = -1: a main effect; f = -1: the round (block); f = g = -2: the residual */
	double ss, df, omega2; /* the residual's omega2 is its share SS / SS_total */
};

struct jl_fx_result {
	enum jl_fx_status status;
	char why[256];                  /* the status in words (empty when OK) */
	enum jl_fx_scale scale;
	int nobs, nparams, df_resid;
	bool balanced;                  /* every cell the same number of runs */
	bool block_used;                /* the round entered the model (else: why_block) */
	bool confounded[JL_FX_MAX_FACTORS][JL_FX_MAX_FACTORS]; /* [f][g], f < g: an interaction the design
								* cannot tell from the rest: not computed */
	double mse;                     /* the residual mean square (least squares) */
	int nterms;
	struct jl_fx_term *terms;
	int nshares;
	struct jl_fx_share *shares;     /* least squares only */
};

/* Fit D on SCALE; the CIs at CONFIDENCE (e.g. 0.95). Returns 0 with R filled (R->status says whether
 * there are effects: anything but JL_FX_OK leaves none, with R->why), or -1 (ENOMEM, EINVAL). Free R with
 * jl_fx_free in either case. */
int jl_fx_fit(const struct jl_fx_design *d, enum jl_fx_scale scale, double confidence, struct jl_fx_result *r);
void jl_fx_free(struct jl_fx_result *r);

/* Holm's step-down adjustment of P[0..N) into ADJ[0..N) (monotone, clipped at 1). SCRATCH holds N ints. */
void jl_fx_holm(const double *p, int n, double *adj, int *scratch);

#endif
