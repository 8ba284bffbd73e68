/* test_samples_read: the one samples.csv reader (rt/base/samples_read.c) on files written here: the
 * columns found by the header whatever their order, CRLF line ends, a thread name longer than the row's
 * buffer (cut, terminated), the filter by thread, a row's callback stopping the read, the period column
 * where there is one, and a header without the needed columns. The expected rows are the literals written. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/base/samples_read.h"

struct got {
	struct jl_sample_row r[8];
	int n, stop_after;
};

static int take(void *ctx, const struct jl_sample_row *r)
{
	struct got *g = ctx;

	if (g->n < 8)
		g->r[g->n++] = *r;
	return g->stop_after && g->n == g->stop_after ? 7 : 0;
}

static void write_file(const char *dir, const char *text)
{
	char path[256];
	FILE *f;

	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static void cleanup(const char *dir)
{
	char path[256];

	snprintf(path, sizeof(path), "%s/samples.csv", dir);
	unlink(path);
	rmdir(dir);
}

static void test_rows(void **state)
{
	char dir[] = "/tmp/jl-samples-XXXXXX", err[256];
	static const char long_name[] = "a-thread-name-of-seventy-characters-which-is-longer-than-the-row-buffe";
	char text[1024];
	struct got g = { .n = 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	snprintf(text, sizeof(text),
		 "cycle,release_ns,thread,wake_ns,latency_ns,end_ns,miss,skipped\r\n"
		 "3,1000,loop,1500,500,1700,0,0\r\n"
		 "4,2000,other,2600,600,2800,1,2\r\n"
		 "5,3000,loop,3900,900,4100,1,0\r\n"
		 "6,4000,%s,4100,100,4200,0,0\r\n",
		 long_name);
	write_file(dir, text);
	assert_int_equal(jl_samples_read(dir, NULL, take, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 4);
	assert_string_equal(g.r[0].thread, "loop");
	assert_int_equal(g.r[0].cycle, 3);
	assert_int_equal(g.r[0].release, 1000);
	assert_int_equal(g.r[0].wake, 1500);
	assert_int_equal(g.r[0].end, 1700);
	assert_false(g.r[0].miss);
	assert_string_equal(g.r[1].thread, "other");
	assert_true(g.r[1].miss);
	assert_int_equal(g.r[1].skipped, 2);
	assert_int_equal(strlen(g.r[3].thread), sizeof(g.r[3].thread) - 1);
	assert_memory_equal(g.r[3].thread, long_name, sizeof(g.r[3].thread) - 1);
	assert_int_equal(g.r[3].end, 4200);
	assert_int_equal(g.r[0].period, -1); /* no period_ns column */

	g.n = 0; /* one thread's rows */
	assert_int_equal(jl_samples_read(dir, "loop", take, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 2);
	assert_int_equal(g.r[0].cycle, 3);
	assert_int_equal(g.r[1].cycle, 5);
	assert_int_equal(g.r[1].wake, 3900);

	g.n = 0; /* the callback stops the read, its value returned */
	g.stop_after = 1;
	assert_int_equal(jl_samples_read(dir, NULL, take, &g, err, sizeof(err)), 7);
	assert_int_equal(g.n, 1);
	cleanup(dir);
}

/* the period_ns column, where the file has one: a series' first row 0, the others as written (with samples =
 * worst they span the cycles not kept, never the gap between two kept rows) */
static void test_period_column(void **state)
{
	char dir[] = "/tmp/jl-samples-XXXXXX", err[256];
	struct got g = { .n = 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "thread,cycle,release_ns,wake_ns,period_ns,miss\n"
			"loop,0,1000,1100,0,0\n"
			"loop,1,2000,2090,990,0\n"
			"loop,9,10000,10120,1030,1\n");
	assert_int_equal(jl_samples_read(dir, NULL, take, &g, err, sizeof(err)), 0);
	assert_int_equal(g.n, 3);
	assert_int_equal(g.r[0].period, 0);
	assert_int_equal(g.r[1].period, 990);
	assert_int_equal(g.r[2].period, 1030);
	assert_true(g.r[2].miss);
	cleanup(dir);
}

static void test_missing_columns(void **state)
{
	char dir[] = "/tmp/jl-samples-XXXXXX", err[256] = "";
	struct got g = { .n = 0 };

	(void)state;
	assert_non_null(mkdtemp(dir));
	write_file(dir, "thread,cycle,release_ns\nloop,1,1000\n");
	assert_int_equal(jl_samples_read(dir, NULL, take, &g, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "wake_ns"));
	assert_int_equal(g.n, 0);
	cleanup(dir);
	assert_int_equal(jl_samples_read(dir, NULL, take, &g, err, sizeof(err)), -1); /* no file */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_rows),
		cmocka_unit_test(test_period_column),
		cmocka_unit_test(test_missing_columns),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
