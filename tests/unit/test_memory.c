/* Unit test of the memory budget (rt/base/memory.c): the projection's arithmetic for each way the analysis
 * holds the trace, the line it states, summary.json's "memory" object, and the process' own figures read
 * from /proc/self/status (checked against getrusage's ru_maxrss, which the kernel keeps apart). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>

#include <cmocka.h>

#include "rt/base/memory.h"

#define MB (1000LL * 1000LL)

static void test_recent_is_flat(void **state)
{
	struct jl_memory_budget b = { .setup = 30 * MB, .samples = 2 * MB };
	char line[512];

	(void)state;
	/* 5000 events over the last half second: 10000 a second, held for a few seconds whatever is left */
	jl_memory_project(&b, JL_HOLD_RECENT, 123456, 5000, 500000000LL, 3600LL * 1000000000LL);
	assert_true(b.taken);
	assert_true(b.events_per_s > 9999.0 && b.events_per_s < 10001.0);
	/* a few seconds of events (1 to 10), each costing what an event's state can (64 B to 4 KB) */
	assert_true(b.events >= 10000 && b.events <= 100000);
	assert_true(b.analysis >= b.events * 64 && b.analysis <= b.events * 4096);
	assert_true(b.results > 0);
	assert_int_equal(b.total, 30 * MB + b.analysis + b.results);
	{ /* the same an hour shorter: the same budget; twice the rate: twice the analysis */
		struct jl_memory_budget c = { .setup = 30 * MB }, d = { .setup = 30 * MB };

		jl_memory_project(&c, JL_HOLD_RECENT, 123456, 5000, 500000000LL, 1000000000LL);
		assert_int_equal(c.total, b.total);
		jl_memory_project(&d, JL_HOLD_RECENT, 123456, 10000, 500000000LL, 1000000000LL);
		assert_int_equal(d.analysis, 2 * b.analysis);
	}
	jl_memory_line(&b, line, sizeof(line));
	assert_non_null(strstr(line, "flat in the duration"));
	assert_non_null(strstr(line, "30.0 MB set up"));
	assert_non_null(strstr(line, "10000 events/s"));
}

static void test_whole_grows_with_what_is_left(void **state)
{
	struct jl_memory_budget b = { .setup = 10 * MB };
	char line[512];

	(void)state;
	/* 2000 events so far, 1000 of them in the last second; 60 s left: 2000 + 60000 events in all */
	jl_memory_project(&b, JL_HOLD_WHOLE, 2000, 1000, 1000000000LL, 60LL * 1000000000LL);
	assert_int_equal(b.events, 62000);
	assert_true(b.analysis >= b.events * 64 && b.analysis <= b.events * 4096);
	assert_int_equal(b.total, 10 * MB + b.analysis + b.results);
	{ /* 120 s left: 122000 events, the analysis in proportion */
		struct jl_memory_budget c = { .setup = 10 * MB };

		jl_memory_project(&c, JL_HOLD_WHOLE, 2000, 1000, 1000000000LL, 120LL * 1000000000LL);
		assert_int_equal(c.events, 122000);
		assert_int_equal(c.analysis * 62000, b.analysis * 122000);
	}
	jl_memory_line(&b, line, sizeof(line));
	assert_non_null(strstr(line, "growing with the duration"));
	assert_non_null(strstr(line, "62000 events"));
}

static void test_no_trace(void **state)
{
	struct jl_memory_budget b = { .setup = 5 * MB };
	char line[512];

	(void)state;
	jl_memory_project(&b, JL_HOLD_NONE, 0, 0, 0, 1000000000LL);
	assert_int_equal(b.analysis, 0);
	assert_int_equal(b.events_per_s > 0, 0);
	assert_int_equal(b.total, 5 * MB + b.results);
	jl_memory_line(&b, line, sizeof(line));
	assert_non_null(strstr(line, "no trace"));
}

static void test_status_and_json(void **state)
{
	struct jl_memory_budget b = { .setup = 1 };
	struct rusage ru;
	int64_t rss = jl_memory_status("VmRSS"), hwm;
	json_object *o, *p;
	char *touch;

	(void)state;
	/* 16 MB touched: the high-water mark holds it after it is freed */
	touch = malloc(16 << 20);
	assert_non_null(touch);
	memset(touch, 1, 16 << 20);
	hwm = jl_memory_status("VmHWM");
	free(touch);
	assert_true(rss > 0 && hwm >= rss + (15 << 20));
	assert_int_equal(getrusage(RUSAGE_SELF, &ru), 0);
	assert_true(hwm <= ru.ru_maxrss * 1024LL + (1 << 20) && ru.ru_maxrss * 1024LL <= hwm + (1 << 20));
	assert_int_equal(jl_memory_status("NoSuchKey"), -1);
	assert_int_equal(jl_memory_status("VmRS"), -1); /* a key is a whole name */

	o = jl_memory_json(&b); /* never projected: null, the peak read all the same */
	assert_true(json_object_object_get_ex(o, "projected", &p) && p == NULL);
	/* the kernel's RSS counters are per-CPU and read approximately (a batch each): a MB of slack */
	assert_true(json_object_get_int64(json_object_object_get(o, "peak_bytes")) >= hwm - (1 << 20));
	json_object_put(o);
	jl_memory_project(&b, JL_HOLD_RECENT, 10, 10, 1000000000LL, 0);
	o = jl_memory_json(&b);
	p = json_object_object_get(o, "projected");
	assert_string_equal(json_object_get_string(json_object_object_get(p, "analysis")), "recent");
	assert_int_equal(json_object_get_int64(json_object_object_get(p, "total_bytes")), b.total);
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_recent_is_flat),
		cmocka_unit_test(test_whole_grows_with_what_is_left),
		cmocka_unit_test(test_no_trace),
		cmocka_unit_test(test_status_and_json),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
