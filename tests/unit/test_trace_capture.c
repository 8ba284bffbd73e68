/* Round trip of the tracing module without the engine: capture (private instance, mono clock, markers),
 * trace.dat written by hand, read back through libtracecmd, wakeups matched to a sleeping thread's samples,
 * the KernelShark session, and no instance left behind. Needs root and tracefs: skipped otherwise.
 * The sleeping thread is SCHED_OTHER: nothing here can hog a CPU. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>
#include <tracefs.h>

#include "rt/trace/io/capture.h"
#include "rt/trace/io/trace.h"

#define CYCLES 60
#define PERIOD_NS 5000000

static int64_t now_ns(void)
{
	struct timespec t;

	clock_gettime(CLOCK_MONOTONIC, &t);
	return t.tv_sec * 1000000000LL + t.tv_nsec;
}

struct sleeper {
	struct jl_thread *th;
	struct jl_series *ser;
	struct jl_trace *trace;
	int64_t t0;
};

static void *sleeper_main(void *arg)
{
	struct sleeper *s = arg;
	struct jl_thread *th = s->th;

	th->tid = (pid_t)syscall(SYS_gettid);
	for (uint64_t c = 0; c < CYCLES; c++) {
		int64_t rel = s->t0 + (int64_t)c * PERIOD_NS;
		struct timespec ts = { rel / 1000000000LL, rel % 1000000000LL };
		int64_t w;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		w = now_ns();
		jl_series_append(s->ser, &(struct jl_sample){ .release = rel, .wake = w, .end = w, .cycle = c,
								   .cpu = 0, .tid = th->tid });
		if (c % 10 == 0)
			jl_trace_mark(s->trace, s->ser, c, w - rel, false);
	}
	return NULL;
}

/* The round trip's temp directory: the teardown removes it, and the tracing instance, even after a failed
 * assertion (cmocka leaves the test function at the first failure). */
static char test_dir[64];

static int teardown_capture(void **state)
{
	char cmd[128], inst[64];
	struct tracefs_instance *ti;

	(void)state;
	snprintf(inst, sizeof(inst), "jitterlab-%d", (int)getpid());
	if (geteuid() == 0 && tracefs_instance_exists(inst) && (ti = tracefs_instance_alloc(NULL, inst))) {
		tracefs_instance_destroy(ti);
		tracefs_instance_free(ti);
	}
	if (test_dir[0]) {
		snprintf(cmd, sizeof(cmd), "rm -rf '%s'", test_dir);
		if (system(cmd) != 0)
			return -1;
		test_dir[0] = '\0';
	}
	return 0;
}

static void test_capture_round_trip(void **state)
{
	static struct jl_thread_spec spec = { .place.policy = JL_POLICY_OTHER };
	struct jl_run_spec run = { .trace_groups = JL_TRACE_SCHED | JL_TRACE_TIMER, .trace_buffer = 1 << 20 };
	struct jl_trace_result res = { 0 };
	struct jl_engine eng = { 0 };
	struct jl_thread th = { 0 };
	struct jl_unit unit = { .spec = &spec, .nthreads = 1, .nseries = 1 };
	struct jl_series ser = { .name = "sleeper", .kind = "periodic", .measured = true, .periodic = true,
				 .period_ns = PERIOD_NS, .deadline_ns = PERIOD_NS };
	struct sleeper s = { 0 };
	char dir[] = "/tmp/jl-test-trace-XXXXXX", path[256], err[512], inst[64];
	json_object *wk, *o;
	struct stat st;
	pthread_t pt;

	(void)state;
	if (geteuid() != 0 || !tracefs_tracing_dir())
		skip();
	assert_non_null(mkdtemp(dir));
	snprintf(test_dir, sizeof(test_dir), "%s", dir);
	snprintf(th.name, sizeof(th.name), "sleeper");
	th.spec = &spec;
	th.eng = &eng;
	th.measured = true;
	th.nseries = 1;
	assert_int_equal(jl_series_alloc(&ser, CYCLES), 0);
	eng.nthreads = 1;
	eng.threads = &th;
	eng.nunits = 1;
	eng.units = &unit;
	eng.nseries = 1;
	eng.series = &ser;
	unit.eng = &eng;

	assert_int_equal(jl_trace_start(&s.trace, &run, err, sizeof(err)), 0);
	assert_int_equal(jl_trace_record(s.trace, err, sizeof(err)), 0);
	snprintf(inst, sizeof(inst), "jitterlab-%d", (int)getpid());
	assert_true(tracefs_instance_exists(inst));
	{
		cpu_set_t hk;

		CPU_ZERO(&hk);
		CPU_SET(0, &hk);
		assert_int_equal(jl_trace_set_reader_cpus(s.trace, &hk), 0);
		CPU_ZERO(&hk);
		assert_int_equal(jl_trace_set_reader_cpus(s.trace, &hk), -1);
	}
	s.th = &th;
	s.ser = &ser;
	s.t0 = now_ns() + 20000000;
	eng.t0 = eng.t_measure = s.t0;
	eng.t_end = s.t0 + (int64_t)CYCLES * PERIOD_NS;
	assert_int_equal(pthread_create(&pt, NULL, sleeper_main, &s), 0);
	pthread_join(pt, NULL);

	assert_int_equal(jl_trace_finish(s.trace, &eng, dir, NULL, &res, err, sizeof(err)), 0);
	jl_trace_destroy(s.trace);
	assert_false(tracefs_instance_exists(inst));

	assert_non_null(res.block);
	assert_true(json_object_get_int64(json_object_object_get(res.block, "events")) > CYCLES);
	assert_int_equal(json_object_get_int64(json_object_object_get(res.block, "lost_events")), 0);
	assert_int_equal(json_object_get_int64(json_object_object_get(res.block, "markers")), CYCLES / 10);
	assert_true(json_object_object_get_ex(res.block, "wakeup_ns", &wk));
	assert_true(json_object_object_get_ex(wk, "sleeper", &o));
	/* wide margins: on a busy CPU a SCHED_OTHER sleeper may be late past its next release (no sleep, no
	 * wakeup for that cycle) */
	assert_true(json_object_get_int64(json_object_object_get(o, "count")) >= CYCLES / 3);
	assert_true(json_object_get_double(json_object_object_get(res.block, "matched_fraction")) > 0.3);
	assert_true(json_object_array_length(json_object_object_get(res.block, "worst")) >= 1);
	assert_non_null(res.text);
	assert_non_null(strstr(res.text, "sleeper cycle "));
	snprintf(path, sizeof(path), "%s/trace.dat", dir);
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_size % 4096, 0);
	/* a session per explained cycle, named in its entry: kernelshark/sleeper-CYCLE.json */
	for (size_t i = 0; i < json_object_array_length(json_object_object_get(res.block, "worst")); i++) {
		json_object *w = json_object_array_get_idx(json_object_object_get(res.block, "worst"), i);
		const char *name = json_object_get_string(json_object_object_get(w, "kernelshark"));
		char want[64];

		assert_non_null(name);
		snprintf(want, sizeof(want), "kernelshark/sleeper-%lld.json",
			 (long long)json_object_get_int64(json_object_object_get(w, "cycle")));
		assert_string_equal(name, want);
		snprintf(path, sizeof(path), "%s/%s", dir, name);
		assert_int_equal(stat(path, &st), 0);
	}

	jl_trace_result_free(&res);
	snprintf(path, sizeof(path), "rm -rf '%s'", dir);
	assert_int_equal(system(path), 0);
	jl_series_free(&ser);
}

static void test_start_refuses_tracing_off(void **state)
{
	struct jl_run_spec run = { .trace_groups = 0 };
	struct jl_trace *t = (struct jl_trace *)1;
	char err[256];

	(void)state;
	assert_int_equal(jl_trace_start(&t, &run, err, sizeof(err)), -1);
	assert_null(t);
	assert_non_null(strstr(err, "trace:"));
	jl_trace_destroy(NULL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_teardown(test_capture_round_trip, teardown_capture),
		cmocka_unit_test(test_start_refuses_tracing_off),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
