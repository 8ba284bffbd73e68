/* test_results: rt/engine/results.c — how a loop's releases are accounted for, on hand-made sample sequences
 * of the shapes the engine produces (skip with releases dropped after the last cycle, a catchup backlog
 * cut off at the end, a loop that never ran, an early stop, warm-up cycles). Each expected figure is
 * counted here by hand from the sequence, never with the implementation's formula. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/engine/engine.h"
#include "rt/engine/results.h"
#include "rt/base/output.h"

#define MS 1000000LL
#define T0 (1000 * MS) /* the run's t0 */

struct fake {
	struct jl_scenario sc;
	struct jl_engine eng;
	struct jl_thread th;
	struct jl_unit unit;
	struct jl_series ser;
	struct jl_sample samples[64];
	struct jl_series_result res;
};

/* A 10 ms loop, warm-up W ms, measured D ms; the samples come from RELEASES (ms after t0), each run
 * on CPU CPUS[i], ending END_AFTER ms after its release. */
static void make(struct fake *f, int64_t warmup_ms, int64_t duration_ms, enum jl_overrun overrun,
		 const int64_t *releases, const int *cpus, int n, int64_t end_after_ms, int64_t next_ms)
{
	memset(f, 0, sizeof(*f));
	f->sc.nthreads = 1;
	f->sc.threads[0].beh.period_ns = 10 * MS;
	f->sc.threads[0].beh.overrun = overrun;
	f->sc.threads[0].place.count = 1;
	f->eng.sc = &f->sc;
	f->eng.nthreads = 1;
	f->eng.threads = &f->th;
	f->eng.nunits = 1;
	f->eng.units = &f->unit;
	f->eng.nseries = 1;
	f->eng.series = &f->ser;
	f->unit.spec = &f->sc.threads[0];
	f->unit.eng = &f->eng;
	f->unit.nthreads = f->unit.nseries = 1;
	f->eng.t0 = T0;
	f->eng.t_measure = T0 + warmup_ms * MS;
	f->eng.t_end = f->eng.t_measure + duration_ms * MS;
	f->th.spec = &f->sc.threads[0];
	f->th.eng = &f->eng;
	f->th.measured = true;
	f->th.first_release = T0;
	f->th.nseries = 1;
	snprintf(f->th.name, sizeof(f->th.name), "loop");
	snprintf(f->ser.name, sizeof(f->ser.name), "loop");
	f->ser.kind = "periodic";
	f->ser.measured = f->ser.periodic = true;
	f->ser.period_ns = 10 * MS;
	f->ser.deadline_ns = 10 * MS;
	f->ser.first_release = T0;
	f->ser.samples = f->samples;
	f->ser.cap = 64;
	f->ser.next_release = T0 + next_ms * MS;
	for (int i = 0; i < n; i++) {
		struct jl_sample *s = &f->samples[i];

		s->release = T0 + releases[i] * MS;
		s->wake = s->release + MS / 10;
		s->end = s->release + end_after_ms * MS;
		s->cycle = (uint64_t)(releases[i] / 10);
		s->cpu = cpus ? cpus[i] : 1;
		s->skipped = i ? (uint32_t)((releases[i] - releases[i - 1]) / 10 - 1) : 0;
	}
	atomic_store(&f->ser.n, (size_t)n);
	assert_int_equal(jl_results_compute(&f->eng, &f->res, NULL, 0, false), 0);
}

/* skip: a 15 ms cycle every other release of a 100 ms window: releases 10, 30, 50, 70 are skipped between
 * cycles (each carried by the next sample), and 90, dropped after the last cycle (at 80), by none. */
static void test_skip_between_cycles(void **state)
{
	static const int64_t rel[] = { 0, 20, 40, 60, 80 };
	struct fake f;

	(void)state;
	make(&f, 0, 100, JL_OVERRUN_SKIP, rel, NULL, 5, 15, 100);
	assert_int_equal(f.res.releases, 10);   /* 0, 10, ..., 90 */
	assert_int_equal(f.res.cycles, 5);
	assert_int_equal(f.res.skipped, 5);     /* 10, 30, 50, 70 between cycles, 90 after the last */
	assert_int_equal(f.res.not_started, 0);
	assert_true(f.res.rate_hz > 49.999 && f.res.rate_hz < 50.001); /* 5 cycles in 0.1 s */
	jl_results_free(&f.res, 1);
}

/* skip: a starved loop runs one cycle at release 0 that ends 95 ms later; everything after it is dropped
 * (nine releases, stored in no sample: there is no next cycle to carry them). */
static void test_skip_after_the_last_cycle(void **state)
{
	static const int64_t rel[] = { 0 };
	struct fake f;

	(void)state;
	make(&f, 0, 100, JL_OVERRUN_SKIP, rel, NULL, 1, 95, 100);
	assert_int_equal(f.res.releases, 10);
	assert_int_equal(f.res.cycles, 1);
	assert_int_equal(f.res.skipped, 9);
	assert_int_equal(f.res.not_started, 0);
	jl_results_free(&f.res, 1);
}

/* catchup: 15 ms cycles back to back from release 0; by the end (100 ms) releases 0..60 ran (7 cycles,
 * the one released at 60 started at 90 and finished after the end) and 70, 80, 90 never started. */
static void test_catchup_backlog_cut_off(void **state)
{
	static const int64_t rel[] = { 0, 10, 20, 30, 40, 50, 60 };
	struct fake f;

	(void)state;
	make(&f, 0, 100, JL_OVERRUN_CATCHUP, rel, NULL, 7, 15, 70);
	assert_int_equal(f.res.releases, 10);
	assert_int_equal(f.res.cycles, 7);
	assert_int_equal(f.res.skipped, 0);
	assert_int_equal(f.res.not_started, 3);
	assert_true(f.res.rate_hz > 69.999 && f.res.rate_hz < 70.001);
	jl_results_free(&f.res, 1);
}

/* A loop that never ran (its setup failed): every release of the window is not started. */
static void test_never_ran(void **state)
{
	struct fake f;

	(void)state;
	make(&f, 0, 100, JL_OVERRUN_SKIP, NULL, NULL, 0, 0, 0);
	assert_int_equal(f.res.releases, 10);
	assert_int_equal(f.res.cycles, 0);
	assert_int_equal(f.res.skipped + f.res.not_started, 10);
	assert_true(f.res.rate_hz == 0.0);
	jl_results_free(&f.res, 1);
}

/* Warm-up 30 ms: the cycles at 0 and 20 are warm-up, and so is the release skipped at 10; the one skipped
 * at 30 (carried by the first measured cycle, at 40) is in the window. CPUs used: only those of the
 * measured cycles (the warm-up ran on CPU 0). */
static void test_warmup_excluded(void **state)
{
	static const int64_t rel[] = { 0, 20, 40, 50, 60, 70, 80, 90, 100, 110, 120 };
	static const int cpus[] = { 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1 };
	struct fake f;

	(void)state;
	make(&f, 30, 100, JL_OVERRUN_SKIP, rel, cpus, 11, 5, 130);
	assert_int_equal(f.res.releases, 10);   /* 30 ... 120 */
	assert_int_equal(f.res.cycles, 9);      /* 40 ... 120 */
	assert_int_equal(f.res.skipped, 1);     /* 30 (10 lies in the warm-up) */
	assert_int_equal(f.res.not_started, 0);
	assert_string_equal(f.res.cpus_used, "1");
	jl_results_free(&f.res, 1);
}

/* SIGINT at 55 ms: the window ends there; the cycle released at 60 only noticed the stop. */
static void test_early_stop(void **state)
{
	static const int64_t rel[] = { 0, 10, 20, 30, 40, 50, 60 };
	struct fake f;

	(void)state;
	memset(&f, 0, sizeof(f));
	make(&f, 0, 100, JL_OVERRUN_SKIP, rel, NULL, 7, 1, 70);
	f.eng.t_stopped = T0 + 55 * MS;
	jl_results_free(&f.res, 1);
	assert_int_equal(jl_results_compute(&f.eng, &f.res, NULL, 0, false), 0);
	assert_int_equal(f.res.releases, 6);    /* 0 ... 50 */
	assert_int_equal(f.res.cycles, 6);
	assert_int_equal(f.res.skipped, 0);
	assert_int_equal(f.res.not_started, 0);
	assert_int_equal(f.res.window_end_ns - f.res.window_start_ns, 55 * MS);
	jl_results_free(&f.res, 1);
}

/* A ring's series (results.h): its collector's accumulator saw the samples as they came (the warm-up's too),
 * an early stop moved the window's end while it did, and after the run the series holds only what was
 * kept. Its figures are the accumulator's: counted here by hand from the sequence (warm-up 10 ms,
 * releases 0..100 every 10 ms with 30 and 70 skipped, stopped at 85 ms). */
static void test_partial_series_from_its_accumulator(void **state)
{
	static const int64_t rel[] = { 0, 10, 20, 40, 50, 60, 80, 90, 100 };
	struct fake f;
	struct jl_series_accumulator acc, *accs[1] = { &acc };
	struct jl_sample *kept;
	struct jl_kept *k;
	size_t nk;

	(void)state;
	make(&f, 10, 100, JL_OVERRUN_SKIP, rel, NULL, 9, 1, 110);
	jl_results_free(&f.res, 1);
	assert_int_equal(jl_series_accumulator_init(&acc, &f.eng, &f.ser, true, true, false), 0);
	for (int i = 0; i < 7; i++) { /* up to release 80 */
		struct jl_cycle_figures fig;
		bool counted = jl_series_accumulator_add(&acc, &f.samples[i], &fig);

		assert_int_equal(counted, i > 0); /* release 0 is the warm-up's */
		if (i == 3) { /* release 40, after 20: the period spans the skipped 30 */
			assert_int_equal(fig.period, 20 * MS);
			assert_int_equal(fig.latency, MS / 10);
			assert_int_equal(fig.response, 1 * MS);
		}
	}
	f.eng.t_stopped = T0 + 85 * MS; /* the stop: what is released from here on does not count */
	acc.we = f.eng.t_stopped;
	jl_series_accumulator_add(&acc, &f.samples[7], NULL);
	{
		struct jl_cycle_figures fig = { .latency = -1 };

		/* released at 100 ms, after the stop: not a measured cycle, its figures left alone */
		assert_false(jl_series_accumulator_add(&acc, &f.samples[8], &fig));
		assert_int_equal(fig.latency, -1);
	}
	/* what the run keeps: here every measured cycle (fewer than the tail's 1024) */
	k = malloc(jl_series_accumulator_kept_max() * sizeof(*k));
	nk = jl_series_accumulator_kept(&acc, k);
	assert_int_equal(nk, 6); /* 10, 20, 40, 50, 60, 80 */
	assert_int_equal(k[0].s.cycle, 1);
	assert_int_equal(k[0].period, 0);
	assert_int_equal(k[2].period, 20 * MS); /* 40 after 20: the skipped 30 in between */
	kept = malloc(nk * sizeof(*kept));
	for (size_t i = 0; i < nk; i++)
		kept[i] = k[i].s;
	free(k);
	f.ser.samples = NULL; /* the fixture's array is not the series' to free */
	jl_series_adopt(&f.ser, kept, nk);
	assert_int_equal(f.ser.appended, 9);
	assert_int_equal(jl_results_compute(&f.eng, &f.res, accs, 1, false), 0);
	assert_int_equal(f.res.releases, 8);     /* 10 ... 80 */
	assert_int_equal(f.res.cycles, 6);
	assert_int_equal(f.res.skipped, 2);      /* 30 and 70 */
	assert_int_equal(f.res.not_started, 0);
	assert_false(f.res.exact);
	assert_int_equal(f.res.latency.min, MS / 10);
	assert_int_equal(f.res.latency.max, MS / 10);
	assert_int_equal(f.res.nkept, 6);
	assert_int_equal(f.res.kept[5].s.cycle, 8);
	assert_int_equal(f.res.nworst, 6);
	assert_int_equal(f.res.worst[0].cycle, 1); /* all equal: the earliest first */
	assert_int_equal(f.res.window_end_ns - f.res.window_start_ns, 75 * MS);
	jl_results_free(&f.res, 1);
	jl_series_accumulator_free(&acc);
	free(f.ser.samples);
}

/* A CSV field as RFC 4180 writes it (parts.csv's part names hold commas): plain text as is, a field with a
 * comma, a quote or a line break in quotes with its quotes doubled, NULL empty. */
static void test_csv_field_quoting(void **state)
{
	static const char *const in[] = { "idle exit", "waited, behind \"scan\"", "two\nlines", "", NULL };
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	for (size_t i = 0; i < sizeof(in) / sizeof(in[0]); i++) {
		jl_output_csv_field(f, in[i]);
		fputc('|', f);
	}
	fclose(f);
	assert_string_equal(buf, "idle exit|\"waited, behind \"\"scan\"\"\"|\"two\nlines\"|||");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_skip_between_cycles),
		cmocka_unit_test(test_skip_after_the_last_cycle),
		cmocka_unit_test(test_catchup_backlog_cut_off),
		cmocka_unit_test(test_never_ran),
		cmocka_unit_test(test_warmup_excluded),
		cmocka_unit_test(test_early_stop),
		cmocka_unit_test(test_partial_series_from_its_accumulator),
		cmocka_unit_test(test_csv_field_quoting),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
