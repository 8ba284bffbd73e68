/* test_series: the engine's outputs iterate measured series, not OS threads. A second behaviour made
 * here, a test driver with two series on one thread (`x.every`: every release of a 2 ms loop, `x.half`:
 * every second one, on its own 4 ms grid), runs in the real engine; then results, summary.json,
 * samples.csv (read back here with a reader of the test's own), [expect] and a sweep must each show
 * both series, under their names, with the thread that wrote them. What is checked is counted here
 * from the rows and releases themselves, never with the code under test's formulas.
 * Needs no root: SCHED_OTHER, no pinning, no tracing. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <pthread.h>
#include <stdatomic.h>

#include "rt/engine/engine.h"
#include "rt/summary/expect.h"
#include "rt/base/output.h"
#include "rt/engine/results.h"
#include "rt/scenario/scenario_int.h"
#include "rt/base/stop.h"
#include "rt/summary/summary.h"
#include "rt/summary/sweep.h"
#include "rt/trace/analysis/trace_series.h"

#define MS 1000000LL
#define PERIOD (2 * MS)

static const char *const scenario_text =
	"[run]\nduration = 300ms\nwarmup = 20ms\ntrace = off\n"
	"[thread x]\nperiod = 2ms\nwork = none\n";

static int init_calls, fini_calls, stop_calls;

/* init: two series for the unit's one thread */
static int pair_init(struct jl_unit *u, char *err, size_t errlen)
{
	size_t cap = jl_engine_loop_capacity(u->eng->sc, PERIOD);
	struct jl_series *s;

	init_calls++;
	u->ctx = &init_calls; /* a driver context: fini must see it */
	s = jl_unit_add_series(u, "x.every", 0, cap, err, errlen);
	if (!s)
		return -1;
	s->measured = s->periodic = true;
	s->period_ns = PERIOD;
	s->deadline_ns = 1000 * MS;
	s = jl_unit_add_series(u, "x.half", 0, cap / 2 + 16, err, errlen);
	if (!s)
		return -1;
	s->measured = s->periodic = true;
	s->period_ns = 2 * PERIOD;
	s->deadline_ns = 1000 * MS;
	return 0;
}

static void sleep_until(int64_t t)
{
	struct timespec ts = { t / 1000000000LL, t % 1000000000LL };

	clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
}

/* run: a 2 ms loop; every release goes to x.every, every second one to x.half too */
static void pair_run(struct jl_thread *th)
{
	struct jl_series *every = jl_thread_series(th, 0), *half = jl_thread_series(th, 1);
	int64_t rel = every->first_release;
	uint64_t k = 0;

	while (rel < th->eng->t_end && !jl_stopping_now()) {
		struct jl_sample smp = { .release = rel, .origin = rel, .cycle = k, .tid = th->tid };

		sleep_until(rel);
		smp.wake = jl_now_ns();
		smp.end = jl_now_ns();
		smp.cpu = sched_getcpu();
		jl_series_append(every, &smp);
		jl_series_count_work(every, smp.end - smp.wake);
		if (k % 2 == 0) {
			smp.cycle = k / 2;
			jl_series_append(half, &smp);
			jl_series_count_work(half, smp.end - smp.wake);
		}
		k++;
		rel += PERIOD;
	}
	every->next_release = rel;
	half->next_release = every->first_release + (int64_t)((k + 1) / 2) * 2 * PERIOD;
}

static void pair_stop(struct jl_unit *u)
{
	(void)u;
	stop_calls++;
}

static void pair_fini(struct jl_unit *u)
{
	assert_ptr_equal(u->ctx, &init_calls);
	fini_calls++;
}

static const struct jl_driver pair_driver = {
	.name = "pair", .end = JL_END_AT_RELEASE, .init = pair_init, .run = pair_run, .stop = pair_stop,
	.fini = pair_fini,
};

/* samples.csv, read here: rows per series name, and the releases of one of them */
struct csv_counts {
	int every, half, other;
	int64_t half_rel[512];
	int nhalf;
	int64_t every_rel[1024];
	int nevery;
};

static void read_csv(const char *dir, struct csv_counts *c)
{
	char path[512], line[512];
	FILE *fp;

	memset(c, 0, sizeof(*c));
	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	fp = fopen(path, "r");
	assert_non_null(fp);
	assert_non_null(fgets(line, sizeof(line), fp));
	assert_int_equal(strncmp(line, "thread,cycle,release_ns,", 24), 0);
	while (fgets(line, sizeof(line), fp)) {
		char *name = strtok(line, ","), *cycle = strtok(NULL, ","), *rel = strtok(NULL, ",");

		assert_non_null(rel);
		(void)cycle;
		if (!strcmp(name, "x.every")) {
			c->every++;
			if (c->nevery < 1024)
				c->every_rel[c->nevery++] = strtoll(rel, NULL, 10);
		} else if (!strcmp(name, "x.half")) {
			c->half++;
			if (c->nhalf < 512)
				c->half_rel[c->nhalf++] = strtoll(rel, NULL, 10);
		} else {
			c->other++;
		}
	}
	fclose(fp);
}

static json_object *thread_entry(json_object *summary, const char *name)
{
	json_object *threads = json_object_object_get(summary, "threads");

	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i);

		if (!strcmp(json_object_get_string(json_object_object_get(t, "name")), name))
			return t;
	}
	return NULL;
}

static void test_two_series_on_one_thread(void **state)
{
	const struct jl_driver *drivers[JL_BEH_N] = { [JL_BEH_PERIODIC] = &pair_driver };
	struct jl_scenario *sc = calloc(1, sizeof(*sc));
	struct jl_engine eng;
	struct jl_series_result res[2];
	struct jl_summary_info info = { .scenario_path = "pair.ini", .run_dir = "", .watchdog_cpus = "" };
	char err[512], dir[] = "/tmp/jl-test-series-XXXXXX", cmd[128];
	struct csv_counts c;
	json_object *summary, *ev, *every, *half, *host = json_object_new_object();
	int failed = -1;

	(void)state;
	assert_non_null(sc);
	assert_int_equal(jl_scenario_parse_string("pair.ini", scenario_text, sc, err, sizeof(err)), 0);
	assert_int_equal(sc->threads[0].beh.kind, JL_BEH_PERIODIC);
	jl_stop_reset();
	assert_int_equal(jl_engine_init_drivers(&eng, sc, NULL, drivers, err, sizeof(err)), 0);
	assert_int_equal(init_calls, 1);
	assert_int_equal(eng.nthreads, 1);
	assert_int_equal(eng.nseries, 2);
	assert_int_equal(eng.threads[0].nseries, 2);
	assert_true(eng.threads[0].measured);
	assert_string_equal(eng.series[0].kind, "pair");
	assert_int_equal(jl_engine_start(&eng, err, sizeof(err)), 0);
	sleep_until(eng.t_end);
	assert_int_equal(jl_engine_stop(&eng, eng.t_end + 2000 * MS), 0);
	assert_int_equal(stop_calls, 1);
	jl_stop_reset();

	/* results: one per series */
	assert_int_equal(jl_results_compute(&eng, res, NULL, 0, false), 0);
	assert_string_equal(res[0].name, "x.every");
	assert_string_equal(res[1].name, "x.half");
	assert_ptr_equal(res[0].th, &eng.threads[0]);
	assert_ptr_equal(res[1].th, &eng.threads[0]);
	/* every release of the window ran, on each series' own grid (150 and 75: see samples.csv below) */
	assert_int_equal(res[0].releases, 150);
	assert_int_equal(res[1].releases, 75);
	assert_int_equal(res[0].skipped + res[0].not_started, 0);
	assert_int_equal(res[1].skipped + res[1].not_started, 0);

	/* samples.csv: the rows of both series under their names, nothing else */
	assert_non_null(mkdtemp(dir));
	assert_int_equal(jl_results_write_samples(dir, res, eng.nseries), 0);
	read_csv(dir, &c);
	assert_int_equal(c.other, 0);
	/* the driver runs every release (it never skips): the 300 ms measured window after a 20 ms warm-up
	 * holds 300 / 2 = 150 releases of x.every, and 300 / 4 = 75 of x.half */
	assert_int_equal(c.every, 150);
	assert_int_equal(c.half, 75);
	assert_int_equal(c.every_rel[0], eng.t_measure);
	assert_int_equal(c.half_rel[0], eng.t_measure);
	for (int i = 1; i < c.nevery; i++)
		assert_int_equal(c.every_rel[i] - c.every_rel[i - 1], PERIOD);
	for (int i = 1; i < c.nhalf; i++)
		assert_int_equal(c.half_rel[i] - c.half_rel[i - 1], 2 * PERIOD);
	for (int i = 0; i < c.nhalf; i++) { /* each x.half cycle is one of x.every's releases */
		bool found = false;

		for (int k = 0; k < c.nevery && !found; k++)
			found = c.every_rel[k] == c.half_rel[i];
		assert_true(found);
	}

	/* summary.json: one entry per series, naming the thread that wrote it */
	summary = jl_summary_build(&eng, res, &info, host);
	assert_int_equal(json_object_array_length(json_object_object_get(summary, "threads")), 2);
	every = thread_entry(summary, "x.every");
	half = thread_entry(summary, "x.half");
	assert_non_null(every);
	assert_non_null(half);
	assert_string_equal(json_object_get_string(json_object_object_get(half, "thread")), "x");
	assert_string_equal(json_object_get_string(json_object_object_get(every, "thread")), "x");
	assert_int_equal(json_object_get_int64(json_object_object_get(half, "cycles")), c.half);
	assert_int_equal(json_object_get_int64(json_object_object_get(every, "cycles")), c.every);
	assert_int_equal(json_object_get_int(json_object_object_get(half, "tid")), eng.threads[0].tid);

	/* [expect]: a series is what THREAD names; the thread's own name has no figures */
	sc->nexpect = 0;
	assert_int_equal(jl_scenario_expect_parse("a", "x.half.rate_hz > 1", &sc->expect[sc->nexpect++], err, sizeof(err)), 0);
	assert_int_equal(jl_scenario_expect_parse("b", "x.every.rate_hz > 100000", &sc->expect[sc->nexpect++], err,
						  sizeof(err)), 0);
	assert_int_equal(jl_scenario_expect_parse("c", "x.rate_hz > 1", &sc->expect[sc->nexpect++], err, sizeof(err)), 0);
	ev = jl_expect_evaluate(sc, summary, &failed);
	assert_int_equal(json_object_array_length(ev), 3);
	assert_true(json_object_get_boolean(json_object_object_get(json_object_array_get_idx(ev, 0), "ok")));
	assert_false(json_object_get_boolean(json_object_object_get(json_object_array_get_idx(ev, 1), "ok")));
	assert_false(json_object_get_boolean(json_object_object_get(json_object_array_get_idx(ev, 2), "ok")));
	assert_non_null(json_object_object_get(json_object_array_get_idx(ev, 2), "error"));
	assert_int_equal(failed, 2);
	json_object_put(ev);

	/* a sweep of two conditions over such runs compares both series */
	{
		struct jl_sweep_cond conds[2] = { { .label = "a" }, { .label = "b" } };
		struct jl_sweep_run runs[2] = { { .cond = 0, .rep = 1, .order = 1, .summary = summary },
						{ .cond = 1, .rep = 1, .order = 2, .summary = summary } };
		int pairs[1][2] = { { 0, 1 } };
		struct jl_sweep_data d = { .scenario_name = "pair", .scenario_path = "pair.ini", .started = "now",
					   .runs_per_cond = 1, .nconds = 2, .conds = conds, .nruns = 2, .runs = runs,
					   .npairs = 1, .pairs = pairs };
		json_object *sw = jl_sweep_build_json(&d), *names;

		assert_non_null(sw);
		names = json_object_object_get(sw, "threads");
		assert_int_equal(json_object_array_length(names), 2);
		assert_string_equal(json_object_get_string(json_object_array_get_idx(names, 0)), "x.every");
		assert_string_equal(json_object_get_string(json_object_array_get_idx(names, 1)), "x.half");
		json_object_put(sw);
	}

	json_object_put(summary);
	jl_results_free(res, 2);
	jl_engine_free(&eng);
	assert_int_equal(fini_calls, 1);
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
	free(sc);
}

/* The built-in drivers: every behaviour kind has one, and each [thread] copy is one series named like it */
static void test_thread_is_one_series(void **state)
{
	struct jl_scenario *sc = calloc(1, sizeof(*sc));
	struct jl_engine eng;
	char err[512];

	(void)state;
	assert_non_null(sc);
	for (int k = 0; k < JL_BEH_N; k++) {
		assert_non_null(jl_drivers[k]);
		assert_non_null(jl_drivers[k]->name);
		assert_non_null(jl_drivers[k]->init);
	}
	assert_int_equal(jl_scenario_parse_string("t.ini",
						  "[run]\ntrace = off\n[thread a]\nperiod = 1ms\n"
						  "[thread h]\ncount = 3\nwork = spin 1ms\n[thread n]\nexec = /bin/true\n",
						  sc, err, sizeof(err)), 0);
	assert_int_equal(jl_engine_init(&eng, sc, NULL, err, sizeof(err)), 0);
	assert_int_equal(eng.nunits, 3);
	assert_int_equal(eng.nthreads, 5);
	assert_int_equal(eng.nseries, 5);
	for (int i = 0; i < eng.nthreads; i++) {
		const struct jl_series *s = jl_thread_series(&eng.threads[i], 0);

		assert_int_equal(eng.threads[i].nseries, 1);
		assert_string_equal(s->name, eng.threads[i].name);
		assert_ptr_equal(jl_series_thread(&eng, s), &eng.threads[i]);
	}
	assert_string_equal(eng.series[0].kind, "periodic");
	assert_true(eng.series[0].measured);
	assert_true(eng.series[0].cap > 0);
	assert_string_equal(eng.series[1].name, "h.0");
	assert_string_equal(eng.series[3].name, "h.2");
	assert_string_equal(eng.series[1].kind, "continuous");
	assert_false(eng.series[1].measured);
	assert_string_equal(eng.series[4].kind, "exec");
	assert_true(eng.threads[4].is_exec);
	assert_int_equal(eng.units[0].drv->end, JL_END_AT_RELEASE); /* a loop's last cycle runs whole */
	assert_int_equal(eng.units[1].drv->end, JL_END_NOW);        /* a neighbour stops at the end */
	jl_engine_free(&eng);
	free(sc);
}

/* A driver whose unit has a series of no one thread (an executor's callback, run by any pool thread) */
static int fini_ok, fini_bad;

static int pool_init(struct jl_unit *u, char *err, size_t errlen)
{
	struct jl_series *s = jl_unit_add_series(u, "cb", -1, 64, err, errlen);

	if (!s)
		return -1;
	s->measured = true;
	s->deadline_ns = MS;
	assert_null(jl_unit_add_series(u, "bad", -2, 0, err, errlen)); /* no such thread */
	return 0;
}

static void pool_run(struct jl_thread *th)
{
	(void)th;
}

static void pool_fini(struct jl_unit *u)
{
	(void)u;
	fini_ok++;
}

static int bad_init(struct jl_unit *u, char *err, size_t errlen)
{
	(void)u;
	snprintf(err, errlen, "bad init");
	return -1;
}

static void bad_fini(struct jl_unit *u)
{
	(void)u;
	fini_bad++;
}

static void test_series_of_no_thread_and_failing_init(void **state)
{
	static const struct jl_driver pool = { .name = "pool", .end = JL_END_NOW, .init = pool_init, .run = pool_run,
					       .fini = pool_fini };
	static const struct jl_driver bad = { .name = "bad", .end = JL_END_NOW, .init = bad_init, .run = pool_run,
					      .fini = bad_fini };
	const struct jl_driver *drivers[JL_BEH_N] = { [JL_BEH_PERIODIC] = &pool, [JL_BEH_CONTINUOUS] = &bad };
	struct jl_scenario *sc = calloc(1, sizeof(*sc));
	struct jl_summary_info info = { .scenario_path = "p.ini", .run_dir = "", .watchdog_cpus = "" };
	struct jl_series_result res[1];
	struct jl_engine eng;
	json_object *summary, *t;
	char err[512];

	(void)state;
	assert_non_null(sc);
	/* the second unit's init fails: the engine is freed, fini runs for the first unit only */
	assert_int_equal(jl_scenario_parse_string("p.ini", "[run]\ntrace = off\n[thread p]\nperiod = 1ms\ncount = 2\n"
						  "[thread q]\nwork = none\n", sc, err, sizeof(err)), 0);
	assert_int_equal(jl_engine_init_drivers(&eng, sc, NULL, drivers, err, sizeof(err)), -1);
	assert_string_equal(err, "bad init");
	assert_int_equal(fini_ok, 1);
	assert_int_equal(fini_bad, 0);

	/* one series written by either of two threads: it has no thread, both threads are measured */
	assert_int_equal(jl_scenario_parse_string("p.ini", "[run]\ntrace = off\n[thread p]\nperiod = 1ms\ncount = 2\n",
						  sc, err, sizeof(err)), 0);
	assert_int_equal(jl_engine_init_drivers(&eng, sc, NULL, drivers, err, sizeof(err)), 0);
	assert_int_equal(eng.nseries, 1);
	assert_int_equal(eng.series[0].thread, -1);
	assert_null(jl_series_thread(&eng, &eng.series[0]));
	assert_int_equal(eng.threads[0].nseries, 0);
	assert_null(jl_thread_series(&eng.threads[0], 0));
	assert_true(eng.threads[0].measured && eng.threads[1].measured);
	assert_int_equal(jl_results_compute(&eng, res, NULL, 0, false), 0);
	assert_null(res[0].th);
	assert_int_equal(res[0].cycles, 0);
	summary = jl_summary_build(&eng, res, &info, json_object_new_object());
	t = json_object_array_get_idx(json_object_object_get(summary, "threads"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(t, "name")), "cb");
	assert_true(json_object_object_get_ex(t, "thread", NULL));
	assert_null(json_object_object_get(t, "thread"));
	json_object_put(summary);
	jl_results_free(res, 1);
	jl_engine_free(&eng);
	assert_int_equal(fini_ok, 2);
	free(sc);
}

/* A ring (series.h): it takes what fits between its reader and the writer, drops and counts the rest,
 * never overwrites what the reader has not read; a kept set adopted after the run becomes the array */
static void test_ring_overflow_accounting(void **state)
{
	struct jl_series s;
	struct jl_sample x = { 0 };
	struct jl_sample *kept;

	(void)state;
	memset(&s, 0, sizeof(s));
	assert_int_equal(jl_series_alloc_ring(&s, 50), 0); /* rounded up to 64 */
	assert_true(s.ring);
	assert_int_equal(s.cap, 64);
	for (int i = 0; i < 100; i++) {
		x.cycle = (uint64_t)i;
		jl_series_append(&s, &x);
	}
	assert_int_equal(jl_series_count(&s), 64); /* the first 64: the rest found the ring full */
	assert_int_equal(s.dropped, 36);
	assert_int_equal(jl_series_at(&s, 63)->cycle, 63);
	jl_series_consumed(&s, 40); /* the reader is done with 0..39: 40 slots free again */
	for (int i = 100; i < 150; i++) {
		x.cycle = (uint64_t)i;
		jl_series_append(&s, &x);
	}
	assert_int_equal(jl_series_count(&s), 104);
	assert_int_equal(s.dropped, 36 + 10);
	/* 64..103 went into the freed slots; 40..63 still there, unread, untouched */
	assert_int_equal(jl_series_at(&s, 40)->cycle, 40);
	assert_int_equal(jl_series_at(&s, 63)->cycle, 63);
	assert_int_equal(jl_series_at(&s, 64)->cycle, 100);
	assert_int_equal(jl_series_at(&s, 103)->cycle, 139);
	kept = calloc(2, sizeof(*kept));
	kept[0].cycle = 7;
	kept[1].cycle = 9;
	jl_series_adopt(&s, kept, 2);
	assert_true(s.partial && !s.ring);
	assert_int_equal(s.appended, 104);
	assert_int_equal(jl_series_count(&s), 2);
	assert_int_equal(jl_series_at(&s, 1)->cycle, 9);
	jl_series_free(&s);
}

/* The live analysis starts while the loops append (jl_trace_live_start runs after jl_engine_start). It
 * used to convert their samples too, and a count read twice, once to size the samples and once to copy
 * them, wrote past their end when a cycle came in between (seen once in the RT lane: "malloc(): invalid
 * size (unsorted)"). It now takes the entries alone (checked first, deterministically); the conversion
 * reads each count once, for a thread the watchdog gave up on that still appends at the run's end. Here
 * a thread appends to a ring as fast as it can, a collector's share read at once, while the series are
 * converted again and again for half a second: with the count read twice the heap broke within 50 ms
 * on our 2-CPU VM (a crash, or ASan's heap-buffer-overflow under `make asan`); a race, so a run without
 * the bug is likely, not certain, to be caught. The values copied from a ring being overwritten are torn:
 * only where they went is checked. */
static struct jl_series racing[2];
static atomic_bool racing_stop;

static void *append_fast(void *arg)
{
	(void)arg;
	for (uint64_t c = 0; !atomic_load(&racing_stop); c++) {
		struct jl_sample x = { .release = (int64_t)c, .wake = (int64_t)c, .end = (int64_t)c, .cycle = c };

		jl_series_append(&racing[0], &x);
		jl_series_consumed(&racing[0], jl_series_count(&racing[0])); /* a collector keeping up */
	}
	return NULL;
}

static void test_series_converted_while_appended(void **state)
{
	static struct jl_thread_spec spec;
	struct jl_unit unit = { .spec = &spec };
	struct jl_engine eng;
	struct timespec t0, now;
	pthread_t w;
	long rounds = 0;

	(void)state;
	memset(&eng, 0, sizeof(eng));
	memset(racing, 0, sizeof(racing));
	spec.beh.kind = JL_BEH_PERIODIC;
	for (int i = 0; i < 2; i++) {
		snprintf(racing[i].name, sizeof(racing[i].name), "s%d", i);
		racing[i].thread = -1;
		racing[i].measured = true;
	}
	assert_int_equal(jl_series_alloc_ring(&racing[0], 4096), 0);
	assert_int_equal(jl_series_alloc(&racing[1], 16), 0);
	eng.nunits = 1;
	eng.units = &unit;
	eng.nseries = 2;
	eng.series = racing;
	atomic_store(&racing_stop, false);
	assert_int_equal(pthread_create(&w, NULL, append_fast, NULL), 0);
	{ /* the live start's way: the entries alone, nothing of the samples read while they are written */
		int n = 0;
		struct jl_analysis_thread *th = jl_trace_engine_series(&eng, NULL, &n, true);

		assert_non_null(th);
		assert_int_equal(n, 2);
		assert_string_equal(th[0].name, "s0");
		assert_true(th[0].samples == NULL && th[0].nsamples == 0 && th[0].partial);
		free(th);
	}
	clock_gettime(CLOCK_MONOTONIC, &t0);
	do {
		struct jl_analysis_sample *smp = NULL;
		int n = 0;
		struct jl_analysis_thread *th = jl_trace_engine_series(&eng, &smp, &n, true);

		assert_non_null(th);
		assert_int_equal(n, 2);
		assert_int_equal(th[1].nsamples, 0);
		assert_ptr_equal(th[0].samples, smp);
		assert_true(th[0].nsamples <= jl_series_count(&racing[0]));
		free(th);
		free(smp);
		rounds++;
		clock_gettime(CLOCK_MONOTONIC, &now);
		/* at least 500 ms and 11 rounds (a busy VM may give this thread little of its CPU), 20 s at most */
	} while (((now.tv_sec - t0.tv_sec) * 1000000000LL + (now.tv_nsec - t0.tv_nsec) < 500 * MS || rounds <= 10) &&
		 (now.tv_sec - t0.tv_sec) < 20);
	atomic_store(&racing_stop, true);
	pthread_join(w, NULL);
	assert_true(rounds > 10);
	jl_series_free(&racing[0]);
	jl_series_free(&racing[1]);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_thread_is_one_series),
		cmocka_unit_test(test_ring_overflow_accounting),
		cmocka_unit_test(test_series_converted_while_appended),
		cmocka_unit_test(test_two_series_on_one_thread),
		cmocka_unit_test(test_series_of_no_thread_and_failing_init),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
