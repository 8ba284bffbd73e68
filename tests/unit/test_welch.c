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
		cmocka_unit_test(test_cyclictest_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
