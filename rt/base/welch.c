/* welch: statistics across runs: summaries, Welch's t test (GSL Student t), verdicts, bimodality and
 * start-up transient flags. Pure functions: no I/O, no allocation, no globals. */
#include "welch.h"

#include <errno.h>
#include <gsl/gsl_cdf.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int jl_runstats_compute(const double *v, int n, struct jl_runstats *s)
{
	double mean = 0, m2 = 0;

	memset(s, 0, sizeof(*s));
	if (n < 1) {
		errno = EINVAL;
		return -1;
	}
	s->min = s->max = v[0];
	for (int i = 0; i < n; i++) {
		double d = v[i] - mean;

		mean += d / (i + 1);
		m2 += d * (v[i] - mean);
		if (v[i] < s->min)
			s->min = v[i];
		if (v[i] > s->max)
			s->max = v[i];
	}
	s->n = n;
	s->mean = mean;
	s->sd = n > 1 ? sqrt(m2 / (n - 1)) : 0;
	s->cv = mean != 0 ? s->sd / fabs(mean) : 0;
	return 0;
}

int jl_welch_test(const struct jl_runstats *a, const struct jl_runstats *b, double confidence, struct jl_welch *w)
{
	double va, vb, se2, tq;

	memset(w, 0, sizeof(*w));
	w->diff = b->mean - a->mean;
	if (a->n < 2 || b->n < 2)
		return 0;
	w->valid = true;
	va = a->sd * a->sd / a->n;
	vb = b->sd * b->sd / b->n;
	se2 = va + vb;
	w->se = sqrt(se2);
	if (se2 == 0) {
		/* no spread on either side: every run of A equals every run of B, or none does */
		w->df = a->n + b->n - 2;
		w->t = w->diff == 0 ? 0 : copysign(INFINITY, w->diff);
		w->p = w->diff == 0 ? 1 : 0;
		w->ci_lo = w->ci_hi = w->diff;
		w->significant = w->diff != 0;
		return 0;
	}
	w->t = w->diff / w->se;
	w->df = se2 * se2 / (va * va / (a->n - 1) + vb * vb / (b->n - 1));
	w->p = 2 * gsl_cdf_tdist_Q(fabs(w->t), w->df);
	if (w->p > 1)
		w->p = 1;
	tq = gsl_cdf_tdist_Pinv(1 - (1 - confidence) / 2, w->df);
	w->ci_lo = w->diff - tq * w->se;
	w->ci_hi = w->diff + tq * w->se;
	w->significant = w->p < 1 - confidence;
	return 0;
}

size_t jl_ranksum_scratch(int na, int nb)
{
	return (size_t)(na + nb) * 2 + (size_t)na * (size_t)nb + 1;
}

static int cmp_double(const void *x, const void *y)
{
	double a = *(const double *)x, b = *(const double *)y;

	return a < b ? -1 : a > b;
}

/* P(U >= K) under the null for sample sizes M and N. The number of arrangements with U = k is the number
 * of partitions of k into at most M parts each at most N: the coefficient of q^k in the Gaussian binomial
 * [M+N choose M]_q = prod_{i=1..M} (1 - q^(N+i)) / (1 - q^i), built in DP[0..MN] by one multiplication and
 * one exact division per i (exact in doubles up to 2^53 arrangements: far beyond any number of runs). */
static double ranksum_sf(int m, int n, double k, double *dp)
{
	int mn = m * n;
	double total = 0, tail = 0;

	for (int i = 0; i <= mn; i++)
		dp[i] = 0;
	dp[0] = 1;
	for (int i = 1; i <= m; i++) {
		/* multiply by (1 - q^(n+i)), then divide by (1 - q^i) (exact: the result is a polynomial) */
		for (int x = mn; x >= n + i; x--)
			dp[x] -= dp[x - (n + i)];
		for (int x = i; x <= mn; x++)
			dp[x] += dp[x - i];
	}
	for (int x = 0; x <= mn; x++) {
		total += dp[x];
		if (x >= k)
			tail += dp[x];
	}
	return total > 0 ? tail / total : 1;
}

int jl_ranksum_test(const double *a, int na, const double *b, int nb, double *scratch, struct jl_ranksum *r)
{
	double *all = scratch, *sorted = scratch + na + nb, r1 = 0, u1, u2, u, tie_term = 0;
	int n = na + nb;

	memset(r, 0, sizeof(*r));
	if (na < 1 || nb < 1) {
		errno = EINVAL;
		return -1;
	}
	memcpy(all, a, (size_t)na * sizeof(*a));
	memcpy(all + na, b, (size_t)nb * sizeof(*b));
	memcpy(sorted, all, (size_t)n * sizeof(*all));
	qsort(sorted, (size_t)n, sizeof(*sorted), cmp_double);
	for (int i = 0; i < n;) {
		int j = i;

		while (j + 1 < n && sorted[j + 1] == sorted[i])
			j++;
		if (j > i) {
			double t = j - i + 1;

			r->ties = true;
			tie_term += t * t * t - t;
		}
		i = j + 1;
	}
	for (int i = 0; i < na; i++) { /* A's ranks: 1 + below + (equal - 1) / 2 */
		int below = 0, equal = 0;

		for (int k = 0; k < n; k++)
			below += sorted[k] < a[i], equal += sorted[k] == a[i];
		r1 += below + (equal + 1) / 2.0;
	}
	u1 = r1 - na * (na + 1) / 2.0;
	u2 = (double)na * nb - u1;
	r->u = u1;
	u = u1 > u2 ? u1 : u2;
	if (!r->ties && (na <= 8 || nb <= 8)) {
		r->exact = true;
		r->p = 2 * ranksum_sf(na, nb, u, scratch + 2 * n);
	} else {
		double mu = na * (double)nb / 2, s = sqrt(na * (double)nb / 12.0 * ((n + 1) - tie_term / ((double)n * (n - 1))));

		r->p = s > 0 ? 2 * gsl_cdf_ugaussian_Q((u - mu - 0.5) / s) : 1;
	}
	if (r->p > 1)
		r->p = 1;
	return 0;
}

char *jl_value_format(double v, enum jl_metric_unit unit, bool is_signed, char *buf, size_t len)
{
	const char *sign = is_signed && v >= 0 ? "+" : "";
	double a = fabs(v);

	if (!isfinite(v)) {
		snprintf(buf, len, "%s", v > 0 ? "inf" : v < 0 ? "-inf" : "nan");
		return buf;
	}
	switch (unit) {
	case JL_UNIT_NS:
		if (a < 1e3)
			snprintf(buf, len, "%s%.0f ns", sign, v);
		else if (a < 1e5)
			snprintf(buf, len, "%s%.1f us", sign, v / 1e3);
		else if (a < 1e6)
			snprintf(buf, len, "%s%.0f us", sign, v / 1e3);
		else if (a < 1e9)
			snprintf(buf, len, "%s%.2f ms", sign, v / 1e6);
		else
			snprintf(buf, len, "%s%.3f s", sign, v / 1e9);
		break;
	case JL_UNIT_HZ:
		snprintf(buf, len, "%s%.2f Hz", sign, v);
		break;
	default:
		if (v == floor(v))
			snprintf(buf, len, "%s%.0f", sign, v);
		else
			snprintf(buf, len, "%s%.1f", sign, v);
		break;
	}
	return buf;
}

char *jl_welch_verdict(const struct jl_welch *w, enum jl_metric_unit unit, char *buf, size_t len)
{
	char d[48], h[48], p[32];

	jl_value_format(w->diff, unit, true, d, sizeof(d));
	if (!w->valid) {
		snprintf(buf, len, "cannot tell: %s, fewer than 2 runs on a side (use more runs)", d);
		return buf;
	}
	if (w->se == 0) {
		if (w->diff == 0)
			snprintf(buf, len, "no difference: every run gave the same value");
		else
			snprintf(buf, len, "real difference: %s, every run of each side gave the same value", d);
		return buf;
	}
	jl_value_format((w->ci_hi - w->ci_lo) / 2, unit, false, h, sizeof(h));
	if (w->p < 0.001)
		snprintf(p, sizeof(p), "p < 0.001");
	else
		snprintf(p, sizeof(p), "p = %.3f", w->p);
	snprintf(buf, len, "%s: %s, t = %.2f, df ≈ %.1f, %s, 95%% CI ±%s",
		 w->significant ? "real difference" : "no measurable difference", d, w->t, w->df, p, h);
	return buf;
}

int jl_bimodal_check(const double *v, int n, double *scratch, struct jl_bimodal *b)
{
	double top;
	int best = -1;
	double best_gap = 0;

	memset(b, 0, sizeof(*b));
	if (n < 4)
		return 0;
	memcpy(scratch, v, (size_t)n * sizeof(double));
	qsort(scratch, (size_t)n, sizeof(double), cmp_double);
	top = fmax(fabs(scratch[0]), fabs(scratch[n - 1]));
	/* split between k-1 and k: low = [0, k), high = [k, n) */
	for (int k = 2; k <= n - 2; k++) {
		double gap = scratch[k] - scratch[k - 1];
		double spread = fmax(scratch[k - 1] - scratch[0], scratch[n - 1] - scratch[k]);

		if (gap > 3 * spread && gap >= 0.25 * top && gap > best_gap) {
			best_gap = gap;
			best = k;
		}
	}
	if (best < 0)
		return 0;
	b->bimodal = true;
	b->n_low = best;
	b->n_high = n - best;
	b->low_max = scratch[best - 1];
	b->high_min = scratch[best];
	for (int i = 0; i < n; i++) {
		if (i < best)
			b->low_mean += scratch[i] / best;
		else
			b->high_mean += scratch[i] / (n - best);
	}
	return 0;
}

int64_t jl_transient_window(int64_t duration_ns)
{
	int64_t w = duration_ns / 10;

	return w < 1000000000LL ? w : 1000000000LL;
}

int jl_transient_check(const struct jl_transient_in *in, struct jl_transient *out)
{
	int64_t win = jl_transient_window(in->duration_ns);
	int64_t off;

	memset(out, 0, sizeof(*out));
	out->neighbour = -1;
	if (in->max_ns <= 0 || in->max_ns < 2 * in->p99_ns)
		return 0; /* not an outlier: the top of a flat distribution may fall anywhere */
	off = in->max_release_ns - in->measure_start_ns;
	if (off >= 0 && off <= win) {
		out->kind = JL_TRANSIENT_STARTUP;
		out->offset_ns = off;
		return 0;
	}
	for (int i = 0; i < in->nneighbours; i++) {
		off = in->max_release_ns - in->neighbour_start_ns[i];
		if (off >= 0 && off <= win) {
			out->kind = JL_TRANSIENT_NEIGHBOUR;
			out->offset_ns = off;
			out->neighbour = i;
			return 0;
		}
	}
	return 0;
}
