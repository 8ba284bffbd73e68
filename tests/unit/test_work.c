/* test_work: rt/base/work.c — the registry: every kind parses, formats back, prepares, runs once and
 * returns; bad work strings; long calls return promptly when the stop flag is raised (rt/base/stop.h). */
#include <errno.h>
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/base/stop.h"
#include "rt/base/work.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static int reset_stop(void **state)
{
	(void)state;
	atomic_store(&jl_stop_flag, JL_STOP_NONE);
	return 0;
}

/* A small example of each kind, in registry order; the loop below checks the table has no kind
 * without an example (adding a kind means adding a line here). */
static const char *const examples[JL_WORK_NKINDS] = {
	[JL_WORK_NONE] = "none",
	[JL_WORK_SPIN] = "spin 200us",
	[JL_WORK_SIN] = "sin 10000",
	[JL_WORK_SLEEP] = "sleep 1ms",
	[JL_WORK_MEMORY] = "memory 64KB",
	[JL_WORK_SYSCALL] = "syscall 100",
};

static void test_registry_table(void **state)
{
	(void)state;
	for (int k = 0; k < JL_WORK_NKINDS; k++) {
		const struct jl_work_desc *d = &jl_work_registry[k];

		assert_non_null(d->name);
		assert_non_null(d->run);
		assert_non_null(d->help);
		assert_true(strlen(d->help) > 5);
		assert_non_null(examples[k]);
		assert_int_equal(strncmp(examples[k], d->name, strlen(d->name)), 0);
		for (int j = 0; j < k; j++)
			assert_string_not_equal(d->name, jl_work_registry[j].name);
	}
}

static void test_each_kind(void **state)
{
	(void)state;
	for (int k = 0; k < JL_WORK_NKINDS; k++) {
		struct jl_work_spec spec, back;
		struct jl_work_state st;
		char err[256] = "", text[128], text2[128];
		int64_t t0, dt;

		assert_int_equal(jl_work_parse(examples[k], &spec, err, sizeof(err)), 0);
		assert_int_equal(spec.kind, k);
		/* formats back to the same text and the same spec */
		jl_work_format(&spec, text, sizeof(text));
		assert_string_equal(text, examples[k]);
		assert_int_equal(jl_work_parse(text, &back, err, sizeof(err)), 0);
		assert_int_equal(back.kind, spec.kind);
		assert_int_equal(back.arg, spec.arg);
		jl_work_format(&back, text2, sizeof(text2));
		assert_string_equal(text, text2);
		/* prepares, runs once and returns */
		assert_int_equal(jl_work_prepare(&st, &spec, -1), 0);
		t0 = now_ns();
		jl_work_run(&st);
		dt = now_ns() - t0;
		assert_true(dt < 5000000000LL);
		if (k == JL_WORK_SPIN)
			assert_true(dt >= 200000); /* busy for at least its duration */
		if (k == JL_WORK_SLEEP)
			assert_true(dt >= 1000000);
		if (k == JL_WORK_MEMORY) {
			assert_non_null(st.buf);
			assert_int_equal(st.buflen, 65536);
		}
		jl_work_release(&st);
		assert_null(st.buf);
		jl_work_release(&st); /* twice is harmless */
	}
}

static void test_parse_args(void **state)
{
	struct jl_work_spec s;
	char err[256], buf[64];

	(void)state;
	assert_int_equal(jl_work_parse("  spin   1.5ms ", &s, err, sizeof(err)), 0);
	assert_int_equal(s.kind, JL_WORK_SPIN);
	assert_int_equal(s.arg, 1500000);
	assert_string_equal(jl_work_format(&s, buf, sizeof(buf)), "spin 1500us");
	assert_int_equal(jl_work_parse("sin 50000000", &s, err, sizeof(err)), 0);
	assert_int_equal(s.arg, 50000000);
	assert_int_equal(jl_work_parse("sin 0", &s, err, sizeof(err)), 0);
	assert_int_equal(jl_work_parse("memory 16MB", &s, err, sizeof(err)), 0);
	assert_int_equal(s.arg, 16 << 20);
	assert_string_equal(jl_work_format(&s, buf, sizeof(buf)), "memory 16MB");
	assert_int_equal(jl_work_parse("memory 1536KB", &s, err, sizeof(err)), 0);
	assert_string_equal(jl_work_format(&s, buf, sizeof(buf)), "memory 1536KB");
	assert_int_equal(jl_work_parse("sleep 0s", &s, err, sizeof(err)), 0);
	assert_string_equal(jl_work_format(&s, buf, sizeof(buf)), "sleep 0s");
}

static void bad(const char *text, const char *needle)
{
	struct jl_work_spec s;
	char err[256] = "";

	if (!jl_work_parse(text, &s, err, sizeof(err))) {
		print_error("jl_work_parse(\"%s\") accepted it\n", text);
		fail();
	}
	assert_true(err[0]);
	if (needle && !strstr(err, needle)) {
		print_error("error for \"%s\" is \"%s\", expected \"%s\" in it\n", text, err, needle);
		fail();
	}
}

static void test_parse_bad(void **state)
{
	(void)state;
	bad("", "not a work kind");
	bad("   ", NULL);
	bad("spinn 1ms", "unknown work kind");
	bad("SPIN 1ms", "unknown work kind");
	bad("spin", "needs a duration");
	bad("spin 10", "unit");
	bad("spin -1ms", NULL);
	bad("spin 1ms extra", NULL);
	bad("sin", "needs a count");
	bad("sin 1.5", NULL);
	bad("sin -1", NULL);
	bad("sin 1e6", NULL);
	bad("sin 1000000000001", NULL); /* over the 1e12 cap */
	bad("sleep", "needs a duration");
	bad("memory", "needs a size");
	bad("memory 1", NULL);
	bad("memory 32B", "64B-64GB");
	bad("memory 65GB", "64B-64GB");
	bad("syscall", "needs a count");
	bad("syscall x", NULL);
	bad("none 5", "takes no argument");
	bad("aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa 1", NULL);
}

struct raiser {
	int64_t delay_ns;
};

static void *raise_stop(void *arg)
{
	const struct raiser *r = arg;
	struct timespec ts = { .tv_sec = r->delay_ns / 1000000000LL, .tv_nsec = r->delay_ns % 1000000000LL };

	nanosleep(&ts, NULL);
	jl_stop_request(JL_STOP_SIGNAL);
	return NULL;
}

/* Runs SPEC_TEXT (a call of many seconds) while another thread raises the stop flag after 50 ms:
 * the call must return well before it would have finished (< 2 s, wide margin for a busy VM). */
static void returns_on_stop(const char *spec_text)
{
	struct jl_work_spec spec;
	struct jl_work_state st;
	struct raiser r = { 50000000LL };
	pthread_t th;
	char err[256];
	int64_t t0, dt;

	atomic_store(&jl_stop_flag, JL_STOP_NONE);
	assert_int_equal(jl_work_parse(spec_text, &spec, err, sizeof(err)), 0);
	assert_int_equal(jl_work_prepare(&st, &spec, -1), 0);
	assert_int_equal(pthread_create(&th, NULL, raise_stop, &r), 0);
	t0 = now_ns();
	jl_work_run(&st);
	dt = now_ns() - t0;
	pthread_join(th, NULL);
	jl_work_release(&st);
	atomic_store(&jl_stop_flag, JL_STOP_NONE);
	if (dt > 2000000000LL) {
		print_error("'%s' took %.3f s after a stop raised at 50 ms\n", spec_text, (double)dt / 1e9);
		fail();
	}
	assert_true(dt >= 40000000LL); /* and it did not return before the stop */
}

static void test_stop_sin(void **state)
{
	(void)state;
	returns_on_stop("sin 100000000000"); /* ~30 min of sin() without the stop */
}

static void test_stop_spin(void **state)
{
	(void)state;
	returns_on_stop("spin 1h");
}

/* a spin of 292 years: now + duration must saturate, not wrap into the past and return at once */
static void test_stop_spin_huge(void **state)
{
	(void)state;
	returns_on_stop("spin 9223372036854775807ns");
}

static void test_stop_sleep_huge(void **state)
{
	(void)state;
	returns_on_stop("sleep 9223372036854775807ns");
}

/* a memory buffer beyond half of the RAM is refused before it is prefaulted (the OOM killer) */
static void test_memory_too_large(void **state)
{
	struct jl_work_spec spec;
	struct jl_work_state st;
	char err[256];
	long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

	(void)state;
	if (pages <= 0 || psize <= 0 || (unsigned long long)pages * (unsigned long long)psize >= (128ULL << 30)) {
		skip(); /* 128 GB of RAM or more: 64GB would be allowed, and prefaulting it is no unit test */
	}
	assert_int_equal(jl_work_parse("memory 64GB", &spec, err, sizeof(err)), 0);
	errno = 0;
	assert_int_equal(jl_work_prepare(&st, &spec, -1), -1);
	assert_int_equal(errno, ENOMEM);
	assert_null(st.buf);
	jl_work_release(&st);
}

static void test_stop_sleep(void **state)
{
	(void)state;
	returns_on_stop("sleep 1h");
}

static void test_stop_syscall(void **state)
{
	(void)state;
	returns_on_stop("syscall 1000000000000");
}

/* With the flag already raised, a long call returns at once; once reset, work runs normally again. */
static void test_stop_reset(void **state)
{
	struct jl_work_spec spec;
	struct jl_work_state st;
	char err[256];
	int64_t t0;

	(void)state;
	assert_int_equal(jl_work_parse("spin 10s", &spec, err, sizeof(err)), 0);
	assert_int_equal(jl_work_prepare(&st, &spec, -1), 0);
	jl_stop_request(JL_STOP_WATCHDOG);
	jl_stop_request(JL_STOP_SIGNAL); /* the first reason stays */
	assert_int_equal(atomic_load(&jl_stop_flag), JL_STOP_WATCHDOG);
	assert_true(jl_stopping());
	t0 = now_ns();
	jl_work_run(&st);
	assert_true(now_ns() - t0 < 1000000000LL);
	atomic_store(&jl_stop_flag, JL_STOP_NONE);
	assert_false(jl_stopping());
	assert_int_equal(jl_work_parse("spin 20ms", &spec, err, sizeof(err)), 0);
	assert_int_equal(jl_work_prepare(&st, &spec, -1), 0);
	t0 = now_ns();
	jl_work_run(&st);
	assert_true(now_ns() - t0 >= 20000000LL);
	jl_work_release(&st);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_registry_table, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_each_kind, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_parse_args, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_parse_bad, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_sin, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_spin, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_sleep, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_syscall, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_reset, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_spin_huge, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_stop_sleep_huge, reset_stop, reset_stop),
		cmocka_unit_test_setup_teardown(test_memory_too_large, reset_stop, reset_stop),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
