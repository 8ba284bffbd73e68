/* test_welch: across-run statistics: Welch t/df/p/CI against the published figures and a hand-computed
 * case, verdict wording, bimodality and start-up transient flags on synthetic runs, and the same flags
 * through a whole sweep analysis (synthetic summaries and a samples.csv) into sweep.json; and the parser of
 * cyclictest's JSON (the other side of the across-tool comparison): its quirks, percentiles, overflows. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>
#include <math.h>
#include <string.h>

#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

#include "rt/cmd/cyclictest.h"
#include "rt/summary/sweep.h"
#include "rt/base/welch.h"

static void assert_near(double got, double want, double tol)
{
	if (fabs(got - want) > tol)
		fail_msg("got %.6f, want %.6f (+-%g)", got, want, tol);
}

static void test_runstats(void **state)
{
	const double v[] = { 1, 2, 3, 4, 5 };
	struct jl_runstats s;

	(void)state;
	assert_int_equal(jl_runstats_compute(v, 5, &s), 0);
	assert_int_equal(s.n, 5);
	assert_near(s.mean, 3, 1e-12);
	assert_near(s.sd, sqrt(2.5), 1e-12);
	assert_near(s.cv, sqrt(2.5) / 3, 1e-12);
	assert_near(s.min, 1, 0);
	assert_near(s.max, 5, 0);
	assert_int_equal(jl_runstats_compute(v, 1, &s), 0);
	assert_near(s.sd, 0, 0);
	assert_int_equal(jl_runstats_compute(v, 0, &s), -1);
}

/* The published study: 7.62 +- 1.19 Hz against 7.95 +- 2.52 Hz, 5 runs each: t = 0.27, df = 5.7. */
static void test_welch_published(void **state)
{
	struct jl_runstats a = { .n = 5, .mean = 7.62, .sd = 1.19 }, b = { .n = 5, .mean = 7.95, .sd = 2.52 };
	struct jl_welch w;
	char buf[256];

	(void)state;
	assert_int_equal(jl_welch_test(&a, &b, 0.95, &w), 0);
	assert_true(w.valid);
	assert_near(w.diff, 0.33, 1e-9);
	assert_near(w.t, 0.2648, 0.001);
	assert_near(w.df, 5.699, 0.005);
	assert_near(w.p, 0.8005, 0.002);
	assert_near((w.ci_hi - w.ci_lo) / 2, 3.089, 0.01);
	assert_near((w.ci_hi + w.ci_lo) / 2, 0.33, 1e-9);
	assert_false(w.significant);
	jl_welch_verdict(&w, JL_UNIT_HZ, buf, sizeof(buf));
	assert_non_null(strstr(buf, "no measurable difference"));
	assert_non_null(strstr(buf, "+0.33 Hz"));
	assert_non_null(strstr(buf, "t = 0.26"));
	assert_non_null(strstr(buf, "df ≈ 5.7"));
	assert_non_null(strstr(buf, "±3.09 Hz"));
}

/* The textbook case: Wikipedia's "Welch's t-test" article, its three examples (Welch's t, the
 * Welch-Satterthwaite df and the two-sided p, as the article prints them, rounded): A1 against A2. */
static void test_welch_textbook(void **state)
{
	static const double e1a[] = { 27.5, 21.0, 19.0, 23.6, 17.0, 17.9, 16.9, 20.1, 21.9, 22.6, 23.1, 19.6, 19.0, 21.7, 21.4 };
	static const double e1b[] = { 27.1, 22.0, 20.8, 23.4, 23.4, 23.5, 25.8, 22.0, 24.8, 20.2, 21.9, 22.1, 22.9, 20.5, 24.4 };
	static const double e2a[] = { 17.2, 20.9, 22.6, 18.1, 21.7, 21.4, 23.5, 24.2, 14.7, 21.8 };
	static const double e2b[] = { 21.5, 22.8, 21.0, 23.0, 21.6, 23.6, 22.5, 20.7, 23.4, 21.8,
				      20.7, 21.7, 21.5, 22.5, 23.6, 21.5, 22.5, 23.5, 21.5, 21.8 };
	static const double e3a[] = { 19.8, 20.4, 19.6, 17.8, 18.5, 18.9, 18.3, 18.9, 19.5, 22.0 };
	static const double e3b[] = { 28.2, 26.6, 20.1, 23.3, 25.2, 22.1, 17.7, 27.6, 20.6, 13.7,
				      23.2, 17.5, 20.6, 18.0, 23.9, 21.6, 24.3, 20.4, 23.9, 13.3 };
	static const struct {
		const double *a, *b;
		int na, nb;
		double t, df, p;
	} ex[] = { { e1a, e1b, 15, 15, -2.46, 25.0, 0.021 }, { e2a, e2b, 10, 20, -1.57, 9.9, 0.149 },
		   { e3a, e3b, 10, 20, -2.22, 24.5, 0.036 } };

	(void)state;
	for (size_t i = 0; i < sizeof(ex) / sizeof(ex[0]); i++) {
		struct jl_runstats a, b;
		struct jl_welch w;

		jl_runstats_compute(ex[i].a, ex[i].na, &a);
		jl_runstats_compute(ex[i].b, ex[i].nb, &b);
		/* the article's t is A1 - A2; jl_welch_test's difference is B - A */
		jl_welch_test(&b, &a, 0.95, &w);
		assert_near(w.t, ex[i].t, 0.01); /* the article rounds to two places */
		assert_near(w.df, ex[i].df, 0.05);
		assert_near(w.p, ex[i].p, 0.001);
	}
}

/* The rank-sum test against SciPy's mannwhitneyu (method 'auto', use_continuity=True, two-sided), whose
 * values below are the ones SciPy's own test suite records (scipy/stats/tests/test_mannwhitneyu.py, each
 * checked there against R: options(digits=16); wilcox.test(x, y, exact=..., correct=TRUE)); SciPy is not on
 * our machines, so they were not recomputed here:
 *   gh-9184: x = 0.80 0.83 1.89 1.04 1.45 1.38 1.91 1.64 0.73 1.46, y = 1.15 0.88 0.90 0.74 1.21:
 *            U = 35; exact (no tie, y has 5 values) p = 0.2544122544123
 *   gh-11355 (ties: the normal approximation): x = 1 2 3 4, y = 3 6 7 8 inf 3 2 1 4 4 5: U = 10,
 *            p = 0.1297704873477; x = 1 2 inf 4, same y: U = 17.5, p = 0.5988856695752
 *   gh-2118: x = 1 2 3, y = 1.5 2.5: U = 3 = mn/2, p = 1 (clipped, exact or not)
 * and one counted by hand: x = 1 2 3, y = 4 5 6: U = 0, and 2 of the C(6,3) = 20 equally likely
 * arrangements are as extreme (U = 0 or 9): p = 2/20 = 0.1. */
static void test_ranksum(void **state)
{
	static const double x1[] = { 0.80, 0.83, 1.89, 1.04, 1.45, 1.38, 1.91, 1.64, 0.73, 1.46 }, y1[] = { 1.15, 0.88, 0.90, 0.74, 1.21 };
	static const double x2[] = { 1, 2, 3, 4 }, y2[] = { 3, 6, 7, 8, INFINITY, 3, 2, 1, 4, 4, 5 };
	static const double x3[] = { 1, 2, INFINITY, 4 };
	static const double x4[] = { 1, 2, 3 }, y4[] = { 1.5, 2.5 }, y5[] = { 4, 5, 6 };
	double scratch[256];
	struct jl_ranksum r;

	(void)state;
	assert_true(jl_ranksum_scratch(10, 11) <= sizeof(scratch) / sizeof(scratch[0]));
	assert_int_equal(jl_ranksum_test(x1, 10, y1, 5, scratch, &r), 0);
	assert_true(r.exact && !r.ties);
	assert_near(r.u, 35, 0);
	assert_near(r.p, 0.2544122544123, 1e-12);
	assert_int_equal(jl_ranksum_test(x2, 4, y2, 11, scratch, &r), 0);
	assert_true(!r.exact && r.ties);
	assert_near(r.u, 10, 0);
	assert_near(r.p, 0.1297704873477, 1e-12);
	assert_int_equal(jl_ranksum_test(x3, 4, y2, 11, scratch, &r), 0);
	assert_near(r.u, 17.5, 0);
	assert_near(r.p, 0.5988856695752, 1e-12);
	assert_int_equal(jl_ranksum_test(x4, 3, y4, 2, scratch, &r), 0);
	assert_near(r.u, 3, 0);
	assert_near(r.p, 1, 0);
	assert_int_equal(jl_ranksum_test(x4, 3, y5, 3, scratch, &r), 0);
	assert_true(r.exact);
	assert_near(r.u, 0, 0);
	assert_near(r.p, 0.1, 1e-12);
	assert_int_equal(jl_ranksum_test(y5, 3, x4, 3, scratch, &r), 0); /* the other way round: U = 9, the same p */
	assert_near(r.u, 9, 0);
	assert_near(r.p, 0.1, 1e-12);
	assert_int_equal(jl_ranksum_test(x4, 0, y5, 3, scratch, &r), -1);
}

/* Hand-computed: A = 1..5 (mean 3, var 2.5), B = 6,8,..,14 (mean 10, var 10):
 * se = sqrt(0.5 + 2) = 1.5811, t = 7 / 1.5811 = 4.4272, df = 6.25 / (0.25/4 + 4/4) = 5.8824,
 * two-sided p = 0.00465, 95% CI half-width = t(0.975, 5.88) * se = 3.888. */
static void test_welch_hand(void **state)
{
	const double va[] = { 1, 2, 3, 4, 5 }, vb[] = { 6, 8, 10, 12, 14 };
	struct jl_runstats a, b;
	struct jl_welch w;
	char buf[256];

	(void)state;
	jl_runstats_compute(va, 5, &a);
	jl_runstats_compute(vb, 5, &b);
	jl_welch_test(&a, &b, 0.95, &w);
	assert_true(w.valid);
	assert_near(w.se, 1.58114, 1e-4);
	assert_near(w.t, 4.42719, 1e-4);
	assert_near(w.df, 5.88235, 1e-4);
	assert_near(w.p, 0.004653, 5e-5);
	assert_near(w.ci_lo, 7 - 3.8877, 2e-3);
	assert_near(w.ci_hi, 7 + 3.8877, 2e-3);
	assert_true(w.significant);
	/* swapping the sides flips the sign, not the p-value */
	jl_welch_test(&b, &a, 0.95, &w);
	assert_near(w.t, -4.42719, 1e-4);
	assert_near(w.p, 0.004653, 5e-5);
	jl_welch_verdict(&w, JL_UNIT_NS, buf, sizeof(buf));
	assert_non_null(strstr(buf, "real difference"));
	assert_non_null(strstr(buf, "-7 ns"));
	assert_non_null(strstr(buf, "p = 0.005"));
}

static void test_welch_degenerate(void **state)
{
	struct jl_runstats one = { .n = 1, .mean = 5 }, same = { .n = 3, .mean = 5 }, other = { .n = 3, .mean = 7 };
	struct jl_welch w;
	char buf[256];

	(void)state;
	jl_welch_test(&one, &same, 0.95, &w);
	assert_false(w.valid);
	jl_welch_verdict(&w, JL_UNIT_COUNT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "cannot tell"));
	jl_welch_test(&same, &same, 0.95, &w);
	assert_true(w.valid);
	assert_false(w.significant);
	assert_near(w.p, 1, 0);
	jl_welch_test(&same, &other, 0.95, &w);
	assert_true(w.significant);
	assert_near(w.p, 0, 0);
	jl_welch_verdict(&w, JL_UNIT_COUNT, buf, sizeof(buf));
	assert_non_null(strstr(buf, "real difference: +2"));
}

static void test_value_format(void **state)
{
	char b[48];

	(void)state;
	assert_string_equal(jl_value_format(412, JL_UNIT_NS, false, b, sizeof(b)), "412 ns");
	assert_string_equal(jl_value_format(41200, JL_UNIT_NS, false, b, sizeof(b)), "41.2 us");
	assert_string_equal(jl_value_format(412000, JL_UNIT_NS, false, b, sizeof(b)), "412 us");
	assert_string_equal(jl_value_format(3620000, JL_UNIT_NS, true, b, sizeof(b)), "+3.62 ms");
	assert_string_equal(jl_value_format(-1.2e9, JL_UNIT_NS, true, b, sizeof(b)), "-1.200 s");
	assert_string_equal(jl_value_format(99.987, JL_UNIT_HZ, false, b, sizeof(b)), "99.99 Hz");
	assert_string_equal(jl_value_format(3, JL_UNIT_COUNT, false, b, sizeof(b)), "3");
	assert_string_equal(jl_value_format(2.5, JL_UNIT_COUNT, false, b, sizeof(b)), "2.5");
}

/* The published max: about 330 ms or about 11 ms, nothing between (8 of 10 runs at 330). */
static void test_bimodal(void **state)
{
	const double pub[] = { 331e6, 11.2e6, 329e6, 334e6, 330e6, 10.8e6, 332e6, 328e6, 330.5e6, 333e6 };
	const double flat[] = { 100, 104, 98, 101, 97, 103, 99, 102 };
	const double few[] = { 1, 100, 1 };
	const double lone[] = { 10, 11, 10, 12, 500 }; /* one outlier is not a cluster */
	double scratch[16];
	struct jl_bimodal b;

	(void)state;
	jl_bimodal_check(pub, 10, scratch, &b);
	assert_true(b.bimodal);
	assert_int_equal(b.n_low, 2);
	assert_int_equal(b.n_high, 8);
	assert_near(b.low_max, 11.2e6, 1);
	assert_near(b.high_min, 328e6, 1);
	assert_near(b.low_mean, 11e6, 1);
	jl_bimodal_check(flat, 8, scratch, &b);
	assert_false(b.bimodal);
	jl_bimodal_check(few, 3, scratch, &b);
	assert_false(b.bimodal);
	jl_bimodal_check(lone, 5, scratch, &b);
	assert_false(b.bimodal);
}

static void test_transient(void **state)
{
	const int64_t ms = 1000000, s = 1000000000LL;
	int64_t nb[] = { 100 * s + 5 * s };
	struct jl_transient_in in = { .max_ns = 330 * ms, .p99_ns = 2 * ms, .measure_start_ns = 100 * s,
				      .duration_ns = 60 * s, .neighbour_start_ns = nb, .nneighbours = 1 };
	struct jl_transient t;

	(void)state;
	assert_true(jl_transient_window(60 * s) == s);
	assert_true(jl_transient_window(2 * s) == 200 * ms);
	/* max 150 ms after the measured phase starts: start-up transient */
	in.max_release_ns = 100 * s + 150 * ms;
	jl_transient_check(&in, &t);
	assert_int_equal(t.kind, JL_TRANSIENT_STARTUP);
	assert_true(t.offset_ns == 150 * ms);
	/* 300 ms after the neighbour arrives at 5 s */
	in.max_release_ns = 105 * s + 300 * ms;
	jl_transient_check(&in, &t);
	assert_int_equal(t.kind, JL_TRANSIENT_NEIGHBOUR);
	assert_int_equal(t.neighbour, 0);
	assert_true(t.offset_ns == 300 * ms);
	/* in the middle of the run: none */
	in.max_release_ns = 130 * s;
	jl_transient_check(&in, &t);
	assert_int_equal(t.kind, JL_TRANSIENT_NONE);
	/* early, but not an outlier (max < 2 x p99): none */
	in.max_release_ns = 100 * s + 10 * ms;
	in.p99_ns = 200 * ms;
	jl_transient_check(&in, &t);
	assert_int_equal(t.kind, JL_TRANSIENT_NONE);
}

static json_object *fake_summary(double max_ns, double p99_ns, int64_t max_cycle)
{
	char text[1024];

	snprintf(text, sizeof(text),
		 "{\"interrupted\": false, \"threads\": [{\"name\": \"control\", \"measured\": true, \"period_ns\": 10000000,"
		 " \"rate_hz\": 100.0, \"misses\": 0, \"latency_ns\": {\"p50\": 20000, \"p99\": %.0f, \"max\": %.0f,"
		 " \"max_cycle\": %lld}, \"period_ns_stats\": {\"p99\": 10100000, \"max\": 10200000},"
		 " \"work\": {\"mean_ns\": 200000}}]}",
		 p99_ns, max_ns, (long long)max_cycle);
	return json_tokener_parse(text);
}

/* Ten runs of one condition, the max 330 ms in eight and 11 ms in two (the published shape), against a
 * second condition; one run's samples.csv puts its max in the first 100 ms: both flags reach sweep.json. */
static void test_sweep_flags(void **state)
{
	struct jl_sweep_cond conds[2] = { { .label = "a", .duration_ns = 10000000000LL },
					  { .label = "b", .duration_ns = 10000000000LL } };
	struct jl_sweep_run runs[12];
	int pairs[1][2] = { { 0, 1 } };
	struct jl_sweep_data d = { .scenario_name = "syn", .scenario_path = "syn.ini", .runs_per_cond = 10, .nconds = 2,
				   .conds = conds, .nruns = 12, .runs = runs, .npairs = 1, .pairs = pairs };
	char dir[] = "/tmp/jl-test-welch-XXXXXX", path[128];
	json_object *j, *flags, *cmps;
	bool bimodal = false, transient = false;
	FILE *f;

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fprintf(f, "thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped\n");
	for (int c = 100; c < 1100; c++) /* 10 s of 100 Hz after a 1 s warm-up (cycles 0-99) */
		fprintf(f, "control,%d,%lld,%lld,%lld,20000,10000000,220000,0,0\n", c, 5000000000LL + c * 10000000LL,
			5000000000LL + c * 10000000LL + 20000, 5000000000LL + c * 10000000LL + 220000);
	fclose(f);
	memset(runs, 0, sizeof(runs));
	for (int i = 0; i < 12; i++) {
		bool low = i == 3 || i == 7;
		double max = i < 10 ? (low ? 11e6 : 330e6 + i * 1e6) : 1e6 + i * 1e4;

		runs[i].cond = i < 10 ? 0 : 1;
		runs[i].rep = i < 10 ? i + 1 : i - 9;
		runs[i].order = i + 1;
		/* run 1's max is at cycle 105: 50 ms into the measured phase */
		runs[i].summary = fake_summary(max, 2e6, i == 0 ? 105 : 600);
		assert_non_null(runs[i].summary);
		if (i == 0) {
			snprintf(runs[i].dir, sizeof(runs[i].dir), "%s", dir);
			runs[i].transients = jl_sweep_run_transients(&runs[i], &conds[0]);
			assert_int_equal(json_object_array_length(runs[i].transients), 1);
		}
	}
	j = jl_sweep_build_json(&d);
	assert_non_null(j);
	assert_true(json_object_object_get_ex(j, "flags", &flags));
	for (size_t i = 0; i < json_object_array_length(flags); i++) {
		json_object *fl = json_object_array_get_idx(flags, i), *k, *m, *cy;

		json_object_object_get_ex(fl, "kind", &k);
		json_object_object_get_ex(fl, "metric", &m);
		if (!strcmp(json_object_get_string(k), "bimodal") && !strcmp(json_object_get_string(m), "latency.max"))
			bimodal = true;
		if (!strcmp(json_object_get_string(k), "transient")) {
			json_object_object_get_ex(fl, "cycle", &cy);
			assert_int_equal(json_object_get_int(cy), 105);
			transient = true;
		}
	}
	assert_true(bimodal);
	assert_true(transient);
	assert_true(json_object_object_get_ex(j, "comparisons", &cmps));
	assert_int_equal(json_object_array_length(cmps), jl_sweep_nmetrics);
	json_object_put(j);
	for (int i = 0; i < 12; i++) {
		json_object_put(runs[i].summary);
		json_object_put(runs[i].transients);
	}
	unlink(path);
	rmdir(dir);
}

/* cyclictest 2.4's --json output, quirks included ("cmdline:" with a colon); 100 cycles, 3 beyond the
 * histogram (overflows): p50 is the 50th value (bucket 20 us), p99 the 99th (in the overflow: -1). */
static void test_cyclictest_json(void **state)
{
	const char *text = "{\"file_version\": 1, \"cmdline:\": \"cyclictest -m -h 200\", \"rt_test_version:\": \"2.40\","
			   " \"num_threads\": 1, \"thread\": {\"0\": {\"histogram\": {\"18\": 10, \"19\": 30, \"20\": 40,"
			   " \"25\": 15, \"102\": 2}, \"cycles\": 100, \"min\": 18, \"max\": 20500, \"avg\": 24.43, \"cpu\": 1,"
			   " \"node\": 0}}}";
	json_object *doc = json_tokener_parse(text);
	struct jl_cyclictest_result r;
	char err[256];

	(void)state;
	assert_non_null(doc);
	assert_int_equal(jl_cyclictest_parse(doc, &r, err, sizeof(err)), 0);
	assert_int_equal(r.cycles, 100);
	assert_true(r.min_ns == 18000 && r.max_ns == 20500000);
	assert_near(r.avg_ns, 24430, 1e-6);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.overflows, 3);
	assert_true(r.p50_ns == 20000);
	assert_true(r.p99_ns == -1);  /* the 99th value is beyond the histogram */
	json_object_put(doc);
	doc = json_tokener_parse("{\"thread\": {}}");
	assert_int_equal(jl_cyclictest_parse(doc, &r, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "thread"));
	json_object_put(doc);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_runstats),     cmocka_unit_test(test_welch_published),
		cmocka_unit_test(test_welch_hand),   cmocka_unit_test(test_welch_degenerate),
		cmocka_unit_test(test_value_format), cmocka_unit_test(test_bimodal),
		cmocka_unit_test(test_transient),   cmocka_unit_test(test_sweep_flags),
		cmocka_unit_test(test_cyclictest_json), cmocka_unit_test(test_welch_textbook),
		cmocka_unit_test(test_ranksum),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
