/* test_cpulist: affinity/cpulist.c — parsing good and bad cpu lists, formatting sparse sets (and
 * truncation in small buffers), the online set and reading list files. Touches no machine state. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "affinity/cpulist.h"

/* Parse TEXT and return the set formatted back (static buffer). Fails the test on a parse error. */
static const char *roundtrip(const char *text)
{
	static char out[8192];
	char err[256] = "";
	cpu_set_t set;

	if (jl_cpulist_parse(text, &set, err, sizeof(err))) {
		print_error("jl_cpulist_parse(\"%s\") failed: %s\n", text, err);
		fail();
	}
	return jl_cpulist_format(&set, out, sizeof(out));
}

static void bad(const char *text, const char *needle)
{
	char err[256] = "";
	cpu_set_t set;

	errno = 0;
	if (!jl_cpulist_parse(text, &set, err, sizeof(err))) {
		print_error("jl_cpulist_parse(\"%s\") accepted it\n", text);
		fail();
	}
	assert_int_equal(errno, EINVAL);
	assert_true(err[0]);
	if (needle && !strstr(err, needle)) {
		print_error("error for \"%s\" is \"%s\", expected \"%s\" in it\n", text, err, needle);
		fail();
	}
}

static void test_parse_good(void **state)
{
	cpu_set_t set;
	char err[128];

	(void)state;
	assert_int_equal(jl_cpulist_parse("1", &set, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&set), 1);
	assert_true(CPU_ISSET(1, &set));
	assert_int_equal(jl_cpulist_parse("0-3", &set, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&set), 4);
	assert_int_equal(jl_cpulist_first(&set), 0);
	assert_int_equal(jl_cpulist_count(&set), 4);

	assert_string_equal(roundtrip("1"), "1");
	assert_string_equal(roundtrip("0-3"), "0-3");
	assert_string_equal(roundtrip("0,2,4-7"), "0,2,4-7");
	assert_string_equal(roundtrip("3-3"), "3");
	assert_string_equal(roundtrip(" 0, 2 ,4-7 "), "0,2,4-7");
	assert_string_equal(roundtrip("7,6,5,4"), "4-7");      /* order does not matter */
	assert_string_equal(roundtrip("0-2,1-3"), "0-3");      /* overlaps merge */
	assert_string_equal(roundtrip("1,1,1"), "1");
	assert_string_equal(roundtrip("0-1023"), "0-1023");   /* CPU_SETSIZE - 1 */
	assert_string_equal(roundtrip("1023"), "1023");
	assert_string_equal(roundtrip("00,01"), "0-1");
}

static void test_parse_bad(void **state)
{
	(void)state;
	bad("", "empty");
	bad("   ", "empty");
	bad("3-1", "descending");
	bad("0-3,", NULL);        /* trailing comma */
	bad(",1", NULL);
	bad("1,,2", NULL);
	bad("1-", NULL);
	bad("-1", NULL);
	bad("1--3", NULL);
	bad("a", NULL);
	bad("1a", NULL);
	bad("1 2", NULL);
	bad("0x1", NULL);
	bad("1.5", NULL);
	bad("1024", "out of range");
	bad("0-1024", "out of range");
	bad("99999999999999999999999", "out of range");
	bad("4294967297", "out of range"); /* would wrap to 1 in an int */
	bad("+1", NULL);
}

static void test_format_sparse(void **state)
{
	cpu_set_t set;
	char buf[8192];

	(void)state;
	CPU_ZERO(&set);
	assert_string_equal(jl_cpulist_format(&set, buf, sizeof(buf)), "");
	assert_int_equal(jl_cpulist_first(&set), -1);
	CPU_SET(0, &set);
	CPU_SET(2, &set);
	CPU_SET(3, &set);
	CPU_SET(4, &set);
	CPU_SET(9, &set);
	CPU_SET(1023, &set);
	assert_string_equal(jl_cpulist_format(&set, buf, sizeof(buf)), "0,2-4,9,1023");

	/* every other CPU: the longest list there is; it parses back to the same set */
	CPU_ZERO(&set);
	for (int c = 0; c < CPU_SETSIZE; c += 2)
		CPU_SET(c, &set);
	jl_cpulist_format(&set, buf, sizeof(buf));
	assert_true(strlen(buf) > 2000);
	{
		cpu_set_t back;
		char err[128];

		assert_int_equal(jl_cpulist_parse(buf, &back, err, sizeof(err)), 0);
		assert_true(CPU_EQUAL(&set, &back));
	}
}

/* A buffer too small holds only whole entries: never a different, valid-looking list. */
static void test_format_truncates_at_entries(void **state)
{
	cpu_set_t set;
	char buf[16];

	(void)state;
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	CPU_SET(1, &set);
	CPU_SET(12, &set);
	CPU_SET(100, &set);
	CPU_SET(101, &set);
	CPU_SET(102, &set);
	assert_string_equal(jl_cpulist_format(&set, buf, sizeof(buf)), "0-1,12,100-102");
	assert_string_equal(jl_cpulist_format(&set, buf, 8), "0-1,12");
	assert_string_equal(jl_cpulist_format(&set, buf, 5), "0-1");  /* not "0-1,1" */
	assert_string_equal(jl_cpulist_format(&set, buf, 3), "");     /* not "0-" */
	assert_string_equal(jl_cpulist_format(&set, buf, 1), "");
	buf[0] = 'x';
	jl_cpulist_format(&set, buf, 0); /* writes nothing */
	assert_int_equal(buf[0], 'x');
}

static void test_online(void **state)
{
	cpu_set_t set, aff;
	long n = sysconf(_SC_NPROCESSORS_ONLN);

	(void)state;
	assert_int_equal(jl_cpulist_online(&set), 0);
	assert_int_equal(jl_cpulist_count(&set), n);
	assert_int_equal(jl_cpulist_first(&set), 0);
	/* our affinity is within the online set */
	assert_int_equal(sched_getaffinity(0, sizeof(aff), &aff), 0);
	CPU_AND(&aff, &aff, &set);
	assert_true(CPU_COUNT(&aff) > 0);
}

static void test_read_file(void **state)
{
	char path[] = "/tmp/jl-test-cpulist-XXXXXX";
	int fd = mkstemp(path);
	cpu_set_t set;
	FILE *f;

	(void)state;
	assert_true(fd >= 0);
	close(fd);
	/* empty file: empty set */
	assert_int_equal(jl_cpulist_read_file(path, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 0);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs("\n", f);
	fclose(f);
	assert_int_equal(jl_cpulist_read_file(path, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 0);
	f = fopen(path, "w");
	fputs("0-1,3\n", f);
	fclose(f);
	assert_int_equal(jl_cpulist_read_file(path, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 3);
	assert_true(CPU_ISSET(3, &set));
	f = fopen(path, "w");
	fputs("garbage\n", f);
	fclose(f);
	assert_int_equal(jl_cpulist_read_file(path, &set), -1);
	unlink(path);
	assert_int_equal(jl_cpulist_read_file(path, &set), -1);
	/* the kernel's own file parses */
	assert_int_equal(jl_cpulist_read_file("/sys/devices/system/cpu/possible", &set), 0);
	assert_true(CPU_COUNT(&set) >= 1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_bad),
		cmocka_unit_test(test_format_sparse),
		cmocka_unit_test(test_format_truncates_at_entries),
		cmocka_unit_test(test_online),
		cmocka_unit_test(test_read_file),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
