/* test_rtla: rt/cmd/rtla.c's readers of rtla's text: timerlat hist, osnoise top, the timerlat
 * auto-analysis, and the version line. The fixtures (tests/unit/fixtures/rtla/README says where each came
 * from) are rtla 6.1's output recorded in the RT lane's guest, and auto-analysis texts written from
 * rtla 6.3+'s printf formats. The expected figures were computed outside the code under test, with the
 * Python lines quoted at each test. */
#include <libgen.h>
#include <limits.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/cmd/rtla.h"

static char *fixture(const char *name)
{
	char path[PATH_MAX], src[PATH_MAX];
	char *text;

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/fixtures/rtla/%s", dirname(src), name);
	text = jl_rtla_read_file(path);
	if (!text) {
		char exe[PATH_MAX];
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[k > 0 ? k : 0] = '\0'; /* BUILD/tests/test_x -> BUILD/../tests/unit/fixtures */
		snprintf(path, sizeof(path), "%s/../../tests/unit/fixtures/rtla/%s", dirname(exe), name);
		text = jl_rtla_read_file(path);
	}
	assert_non_null(text);
	return text;
}

static void test_version(void **state)
{
	int ma = 0, mi = 0;

	(void)state;
	assert_true(jl_rtla_parse_version("rtla version 6.1\n", &ma, &mi));
	assert_int_equal(ma, 6);
	assert_int_equal(mi, 1);
	assert_true(jl_rtla_parse_version("rtla version 6.8.0-45-generic", &ma, &mi));
	assert_int_equal(mi, 8);
	assert_false(jl_rtla_parse_version("usage: rtla COMMAND", &ma, &mi));
}

/* Expected, per column, from the fixture with Python (nearest rank over the printed rows):
 *   rows=[l.split() for l in open(F) if l[:1].isdigit()]; h={int(r[0]):int(r[c]) for r in rows if int(r[c])}
 *   n=sum(h.values()); rank=ceil(q/100*n); first key whose running count reaches rank
 * Thr-001: n 2872, min 31, max 7258, mean 141.76 us, p50 80, p99 3167, p99.9 3799.
 * IRQ-000: n 2917, p50 56, p99 2802. Thr-000 + Thr-001: n 5789, mean 131.91 us. */
static void test_timerlat_hist(void **state)
{
	char *text = fixture("timerlat-hist-6.1.txt"), err[256];
	struct jl_rtla_hist h;
	struct jl_cyclictest_result r;
	cpu_set_t one;

	(void)state;
	assert_int_equal(jl_rtla_hist_parse(text, 20000, &h, err, sizeof(err)), 0);
	assert_int_equal(h.ncols, 4);
	assert_string_equal(h.cols[3].kind, "Thr");
	assert_int_equal(h.cols[3].cpu, 1);
	assert_false(h.ns);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	assert_int_equal(jl_rtla_hist_result(&h, "Thr", &one, &r, err, sizeof(err)), 0);
	assert_int_equal(r.cycles, 2872);
	assert_int_equal(r.min_ns, 31000);
	assert_int_equal(r.max_ns, 7258000);
	assert_int_equal(r.p50_ns, 80000);
	assert_int_equal(r.p99_ns, 3167000);
	assert_int_equal(r.p999_ns, 3799000);
	assert_true(r.avg_ns > 141750 && r.avg_ns < 141770);
	assert_int_equal(r.cpu, 1);
	assert_int_equal(r.overflows, 0);
	CPU_ZERO(&one);
	CPU_SET(0, &one);
	assert_int_equal(jl_rtla_hist_result(&h, "IRQ", &one, &r, err, sizeof(err)), 0);
	assert_int_equal(r.cycles, 2917);
	assert_int_equal(r.p50_ns, 56000);
	assert_int_equal(r.p99_ns, 2802000);
	/* both CPUs' thread columns together */
	assert_int_equal(jl_rtla_hist_result(&h, "Thr", NULL, &r, err, sizeof(err)), 0);
	assert_int_equal(r.cycles, 5789);
	assert_int_equal(r.cpu, -1);
	assert_true(r.avg_ns > 131900 && r.avg_ns < 131930);
	assert_int_equal(r.min_ns, 21000);
	/* no such column */
	assert_int_equal(jl_rtla_hist_result(&h, "Usr", NULL, &r, err, sizeof(err)), -1);
	jl_rtla_hist_free(&h);
	/* fewer entries than the values: the rows beyond are overflows, and a percentile there is -1 */
	assert_int_equal(jl_rtla_hist_parse(text, 100, &h, err, sizeof(err)), 0);
	CPU_ZERO(&one);
	CPU_SET(1, &one);
	assert_int_equal(jl_rtla_hist_result(&h, "Thr", &one, &r, err, sizeof(err)), 0);
	assert_true(r.overflows > 0);
	assert_int_equal(r.p99_ns, -1);
	assert_int_equal(r.max_ns, 7258000);
	jl_rtla_hist_free(&h);
	free(text);
}

static void test_timerlat_hist_bad(void **state)
{
	struct jl_rtla_hist h;
	char err[256];

	(void)state;
	/* rtla killed before it printed its summary */
	assert_int_equal(jl_rtla_hist_parse("# RTLA timerlat histogram\nIndex   IRQ-001   Thr-001\n12  1  0\n", 100, &h, err,
					    sizeof(err)), -1);
	assert_non_null(strstr(err, "summary"));
	assert_int_equal(jl_rtla_hist_parse("rtla: could not init\n", 100, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "Index"));
	assert_int_equal(jl_rtla_hist_parse("Index IRQ-001 Thr-001\n12 1\n", 100, &h, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "line 2"));
	/* a column with no sample prints "-" (newer rtla) */
	assert_int_equal(jl_rtla_hist_parse("Index IRQ-001 Thr-001 Usr-001\n3 1 1 0\nover: 0 0 0\ncount: 1 1 0\n"
					    "min: 3 3 -\navg: 3 3 -\nmax: 3 3 -\nALL: IRQ Thr Usr\ncount: 1 1 0\n",
					    100, &h, err, sizeof(err)), 0);
	assert_int_equal(h.ncols, 3);
	assert_string_equal(h.cols[2].kind, "Usr");
	assert_int_equal(h.cols[2].max, -1);
	jl_rtla_hist_free(&h);
}

static void test_osnoise_top(void **state)
{
	char *q = fixture("osnoise-top-q-6.1.txt"), *screens = fixture("osnoise-top-6.1.txt"), err[128];
	struct jl_rtla_noise r[4];
	int n;

	(void)state;
	assert_int_equal(jl_rtla_noise_parse(q, r, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 2);
	assert_int_equal(r[1].cpu, 1);
	assert_int_equal(r[1].runtime_us, 3000000);
	assert_int_equal(r[1].noise_us, 93586);
	assert_true(r[1].avail_pct > 96.88 && r[1].avail_pct < 96.89);
	assert_int_equal(r[1].max_noise_us, 33241);
	assert_int_equal(r[1].max_single_us, 5321);
	assert_int_equal(r[1].hw, 1196);
	assert_int_equal(r[1].nmi, 0);
	assert_int_equal(r[1].irq, 760);
	assert_int_equal(r[1].softirq, 0);
	assert_int_equal(r[1].thread, 125);
	/* the repeated screens: the last one of the CPU counts */
	assert_int_equal(jl_rtla_noise_parse(screens, r, 4, &n, err, sizeof(err)), 0);
	assert_int_equal(n, 1);
	assert_int_equal(r[0].periods, 2);
	assert_int_equal(r[0].noise_us, 50323);
	assert_int_equal(r[0].irq, 510);
	assert_int_equal(jl_rtla_noise_parse("osnoise: tracer not available\n", r, 4, &n, err, sizeof(err)), -1);
	free(q);
	free(screens);
}

static double num(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL, *y = NULL;

	assert_true(json_object_object_get_ex(o, a, &x));
	if (!b)
		return json_object_get_double(x);
	assert_true(json_object_object_get_ex(x, b, &y));
	return json_object_get_double(y);
}

static const char *str(json_object *o, const char *a)
{
	json_object *x = NULL;

	assert_true(json_object_object_get_ex(o, a, &x));
	return json_object_get_string(x);
}

static void test_auto_analysis(void **state)
{
	char *text = fixture("timerlat-aa-thread.txt");
	json_object *a = jl_rtla_auto_analysis_parse(text), *c, *l;

	(void)state;
	assert_non_null(a);
	assert_int_equal(json_object_array_length(a), 2);
	c = json_object_array_get_idx(a, 0);
	assert_int_equal((int)num(c, "cpu", NULL), 3);
	assert_string_equal(str(c, "stopped_by"), "thread");
	assert_true(num(c, "total", "us") == 61.28);
	assert_true(num(c, "previous_irq_interference", "us") == 2.10);
	assert_true(num(c, "irq_handler_delay", "us") == 6.25);
	assert_true(num(c, "irq_handler_delay", "share_pct") == 10.20);
	assert_true(num(c, "irq_latency", "us") == 8.40);
	assert_true(num(c, "timerlat_irq_duration", "us") == 9.59);
	assert_true(num(c, "blocking_thread", "us") == 13.79);
	assert_string_equal(str(json_object_object_get(c, "blocking_task"), "name"), "stress-ng-cpu");
	assert_int_equal(json_object_get_int(json_object_object_get(json_object_object_get(c, "blocking_task"), "id")), 49256);
	assert_int_equal(json_object_array_length(json_object_object_get(c, "stack")), 6);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(json_object_object_get(c, "stack"), 0)),
			    "timerlat_irq");
	assert_true(num(c, "irq_interference", "us") == 12.02);
	l = json_object_object_get(c, "irqs");
	assert_int_equal(json_object_array_length(l), 2);
	assert_string_equal(str(json_object_array_get_idx(l, 1), "name"), "nvme0q3");
	assert_true(num(json_object_array_get_idx(l, 1), "us", NULL) == 8.52);
	l = json_object_object_get(c, "softirqs");
	assert_int_equal(json_object_array_length(l), 1);
	assert_string_equal(str(json_object_array_get_idx(l, 0), "name"), "TIMER");
	l = json_object_object_get(c, "threads");
	assert_string_equal(str(json_object_array_get_idx(l, 0), "name"), "ktimers/3");
	assert_true(num(c, "thread_interference", "us") == 12.19);
	/* the parts the analysis names add up to its total (6.25 + 9.59 + 13.79 + 12.02 + 7.44 + 12.19) */
	assert_true(num(c, "irq_handler_delay", "us") + num(c, "timerlat_irq_duration", "us") + num(c, "blocking_thread", "us") +
			    num(c, "irq_interference", "us") + num(c, "softirq_interference", "us") +
			    num(c, "thread_interference", "us") > 61.27);
	c = json_object_array_get_idx(a, 1);
	assert_null(json_object_object_get(c, "cpu"));
	assert_true(num(c, "max_irq_latency_from_idle", "us") == 17.48);
	assert_int_equal((int)num(c, "max_irq_latency_from_idle", "cpu"), 4);
	json_object_put(a);
	free(text);

	text = fixture("timerlat-aa-irq.txt");
	a = jl_rtla_auto_analysis_parse(text);
	assert_non_null(a);
	c = json_object_array_get_idx(a, 0);
	assert_string_equal(str(c, "stopped_by"), "irq");
	assert_true(json_object_get_boolean(json_object_object_get(c, "exit_from_idle")));
	assert_string_equal(str(json_object_object_get(c, "blocking_task"), "name"), "swapper/1");
	assert_null(json_object_object_get(c, "blocking_thread"));
	assert_true(num(c, "total", "us") == 50.60);
	json_object_put(a);
	free(text);
	/* rtla 6.1's -a prints no analysis */
	text = fixture("timerlat-hist-6.1.txt");
	assert_null(jl_rtla_auto_analysis_parse(text));
	free(text);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_version),
		cmocka_unit_test(test_timerlat_hist),
		cmocka_unit_test(test_timerlat_hist_bad),
		cmocka_unit_test(test_osnoise_top),
		cmocka_unit_test(test_auto_analysis),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
