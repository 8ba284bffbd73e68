/* welch: statistics across runs (one value per run of a metric), pure and unit-tested.
 * Summary of a set of runs (n, mean, sample sd, CV, min, max), Welch's unequal-variance t test with the
 * Welch-Satterthwaite degrees of freedom, a two-sided p-value and 95% CI from GSL's Student t, a plain-words
 * verdict, and the two flags that stop a reader from trusting one run: a bimodal metric (the runs split
 * into two clusters) and a start-up transient (a run's max right after its start or a neighbour's start).
 * Never does I/O, never allocates (except jl_bimodal_check's caller-provided scratch), never exits. */
#ifndef JL_WELCH_H
#define JL_WELCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "metrics.h"

struct jl_runstats {
	int n;
	double mean, sd; /* sd: sample standard deviation (n - 1); 0 for n < 2 */
	double cv;       /* sd / |mean|; 0 when the mean is 0 */
	double min, max;
};

struct jl_welch {
	bool valid;      /* false when a side has fewer than 2 runs: nothing can be said */
	double diff;     /* mean(B) - mean(A) */
	double se;       /* standard error of the difference */
	double t, df, p; /* Welch t, Welch-Satterthwaite df, two-sided p-value */
	double ci_lo, ci_hi; /* CI of the difference at the requested confidence */
	bool significant;    /* p < alpha (alpha = 1 - confidence) */
};

/* Summary of V[0..N). Returns 0, or -1 (EINVAL) when N < 1. */
int jl_runstats_compute(const double *v, int n, struct jl_runstats *s);

/* Welch's t test of B against A at CONFIDENCE (e.g. 0.95). Returns 0 (W->valid may still be false). */
int jl_welch_test(const struct jl_runstats *a, const struct jl_runstats *b, double confidence, struct jl_welch *w);

/* The Wilcoxon-Mann-Whitney rank-sum test of A[0..NA) against B[0..NB), two-sided, as SciPy's
 * mannwhitneyu(a, b, method='auto', use_continuity=True) computes it: U is A's statistic (U1 = R1 -
 * NA(NA+1)/2, ties given their mean rank); the p-value is exact (the null distribution counted) when there is
 * no tie and a side has at most 8 values, else the normal approximation with the tie correction and the
 * continuity correction; it is clipped to 1. SCRATCH holds NA + NB doubles plus (NA*NB + 1) doubles for the
 * exact count. Returns 0, or -1 (EINVAL: a side empty). */
struct jl_ranksum {
	double u;        /* A's U */
	double p;        /* two-sided */
	bool exact;      /* the exact distribution (else the normal approximation) */
	bool ties;
};
int jl_ranksum_test(const double *a, int na, const double *b, int nb, double *scratch, struct jl_ranksum *r);
/* How many doubles jl_ranksum_test's SCRATCH needs. */
size_t jl_ranksum_scratch(int na, int nb);

/* Human value with its unit, for verdicts and tables: ns -> "412 us" / "3.62 ms" / "1.20 s"; Hz -> "0.33 Hz";
 * counts -> "12". SIGNED prefixes a '+' to non-negative values. */
char *jl_value_format(double v, enum jl_metric_unit unit, bool is_signed, char *buf, size_t len);

/* One plain-words line for W, comparing LABEL_B with LABEL_A, e.g.
 * "no measurable difference: +0.33 Hz, t = 0.27, df ≈ 5.7, p = 0.80, 95% CI ±3.0 Hz". */
char *jl_welch_verdict(const struct jl_welch *w, enum jl_metric_unit unit, char *buf, size_t len);

struct jl_bimodal {
	bool bimodal;
	int n_low, n_high;          /* runs in each cluster */
	double low_max, high_min;   /* the gap lies between these */
	double low_mean, high_mean;
};

/* Do the N values split into two clusters: a gap between sorted neighbours that is more than 3x the
 * spread inside either cluster and at least 25% of the largest |value|, with >= 2 runs on each side?
 * SCRATCH holds N doubles. Needs N >= 4. Returns 0. */
int jl_bimodal_check(const double *v, int n, double *scratch, struct jl_bimodal *b);

struct jl_transient_in {
	int64_t max_ns;             /* the run's maximum latency */
	int64_t p99_ns;             /* its p99, to tell an outlier from the top of a flat distribution */
	int64_t max_release_ns;     /* release time of the cycle that had the max */
	int64_t measure_start_ns;   /* start of the measured phase */
	int64_t duration_ns;        /* measured duration */
	const int64_t *neighbour_start_ns; /* absolute start times of neighbours that start late */
	int nneighbours;
};

enum jl_transient_kind { JL_TRANSIENT_NONE, JL_TRANSIENT_STARTUP, JL_TRANSIENT_NEIGHBOUR };

struct jl_transient {
	enum jl_transient_kind kind;
	int64_t offset_ns;          /* max's time after the run's or the neighbour's start */
	int neighbour;              /* index into neighbour_start_ns for JL_TRANSIENT_NEIGHBOUR */
};

/* The window after a start that counts as "right after": min(1 s, duration / 10). */
int64_t jl_transient_window(int64_t duration_ns);

/* Is the run's max a start-up transient: within the window after the measured phase starts, or after
 * a neighbour starts, and an outlier (max >= 2 x p99)? Returns 0. */
int jl_transient_check(const struct jl_transient_in *in, struct jl_transient *out);

#endif
