/* test_host: rt/host.c's parsers (steal time from /proc/stat text, kernel config symbols) and the shape of
 * the host blocks (fair server, RT bandwidth, steal/SMI over a phase). The parsers are pure; the block tests
 * read this machine and change nothing (jl_host_describe may mount debugfs for a moment, as root, and
 * unmounts what it mounted). */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/host.h"

/* /proc/stat of a 2-CPU VM (Linux 6.18), with steal on CPU 1 only */
static const char proc_stat[] =
	"cpu  31606 0 4141 183623 418 0 186 36 0 0\n"
	"cpu0 13475 0 2127 94030 280 0 109 0 0 0\n"
	"cpu1 18130 0 2013 89593 137 0 76 36 0 0\n"
	"intr 4390391 0 9 0 0 0 0 0 0 0\n"
	"ctxt 10119313\n"
	"btime 1764576000\n";

static void test_steal_parse(void **state)
{
	uint64_t steal[8] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal(proc_stat, steal, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(steal[0], 0);
	assert_int_equal(steal[1], 36);
}

static void test_steal_parse_gaps_and_bounds(void **state)
{
	/* an offline CPU 1 has no line; CPU 9 is past MAX and is ignored; an old kernel without the steal
	 * column (7 values) is not a steal line */
	static const char text[] = "cpu  1 2 3 4 5 6 7 8\n"
				   "cpu0 1 2 3 4 5 6 7 5\n"
				   "cpu2 1 2 3 4 5 6 7 11 0 0\n"
				   "cpu3 1 2 3 4 5 6 7\n"
				   "cpu9 1 2 3 4 5 6 7 99\n";
	uint64_t steal[4] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal(text, steal, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(steal[0], 5);
	assert_int_equal(steal[1], 0);
	assert_int_equal(steal[2], 11);
	assert_int_equal(steal[3], 0);
}

static void test_steal_parse_nothing(void **state)
{
	uint64_t steal[4] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal("", steal, 4, &n), -1);
	assert_int_equal(jl_host_parse_steal("cpu  1 2 3 4 5 6 7 8\nintr 1\n", steal, 4, &n), -1);
	assert_int_equal(n, 0);
}

static void test_kconfig(void **state)
{
	static const char cfg[] = "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
				  "CONFIG_RT_GROUP_SCHED=y\n"
				  "# CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED is not set\n"
				  "CONFIG_HZ=250\n"
				  "CONFIG_MSR=m\n"
				  "CONFIG_FAIR_GROUP_SCHED_X=y\n";

	(void)state;
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_RT_GROUP_SCHED"), 1);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED"), 0);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_MSR"), 1);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_HZ"), 0); /* a value, not y/m */
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_FAIR_GROUP_SCHED"), -1); /* a prefix is not the symbol */
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_PREEMPT_RT"), -1);
	assert_int_equal(jl_host_kconfig("", "CONFIG_HZ"), -1);
}

static void test_fair_server_block(void **state)
{
	char text[200] = "";
	json_object *fs = jl_host_fair_server(false, text, sizeof(text)), *v;

	(void)state;
	assert_non_null(fs);
	assert_true(json_object_object_get_ex(fs, "readable", &v));
	if (json_object_get_boolean(v)) {
		assert_true(json_object_object_get_ex(fs, "cpus", &v));
		assert_true(json_object_object_length(v) > 0);
	} else {
		assert_true(json_object_object_get_ex(fs, "note", &v));
		assert_string_equal(json_object_get_string(v), text);
	}
	assert_true(text[0] != '\0');
	json_object_put(fs);
}

static void test_phase_block(void **state)
{
	struct jl_host_sample *s = calloc(2, sizeof(*s));
	json_object *host = json_object_new_object(), *st, *v;

	(void)state;
	assert_non_null(s);
	jl_host_sample_take(&s[0]);
	jl_host_sample_take(&s[1]);
	assert_true(s[0].steal_ok);
	jl_host_add_phase(host, &s[0], &s[1]);
	assert_true(json_object_object_get_ex(host, "steal_ns", &st));
	assert_true(json_object_is_type(st, json_type_object));
	assert_int_equal(json_object_object_length(st), s[0].ncpus);
	assert_true(json_object_object_get_ex(st, "0", &v));
	assert_true(json_object_get_int64(v) >= 0);
	assert_true(json_object_object_get_ex(host, "smi", &v));
	if (!v) /* null: then it says why */
		assert_true(json_object_object_get_ex(host, "smi_note", &v) && json_object_get_string_len(v) > 0);
	/* a sample that could not be read: steal is null */
	s[1].steal_ok = false;
	json_object_put(host);
	host = json_object_new_object();
	jl_host_add_phase(host, &s[0], &s[1]);
	assert_true(json_object_object_get_ex(host, "steal_ns", &v));
	assert_null(v);
	json_object_put(host);
	free(s);
}

static void test_describe_has_rt_knobs(void **state)
{
	json_object *h = jl_host_describe(), *rb, *v;

	(void)state;
	assert_true(json_object_object_get_ex(h, "rt_bandwidth", &rb));
	assert_true(json_object_object_get_ex(rb, "runtime_us", &v));
	assert_true(json_object_object_get_ex(rb, "period_us", &v));
	assert_true(json_object_get_int64(v) > 0);
	assert_true(json_object_object_get_ex(rb, "group_sched", &v));
	assert_true(json_object_object_get_ex(h, "fair_server", &v));
	json_object_put(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steal_parse),
		cmocka_unit_test(test_steal_parse_gaps_and_bounds),
		cmocka_unit_test(test_steal_parse_nothing),
		cmocka_unit_test(test_kconfig),
		cmocka_unit_test(test_fair_server_block),
		cmocka_unit_test(test_phase_block),
		cmocka_unit_test(test_describe_has_rt_knobs),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
