/* test_units: rt/base/units.c — durations, rates, sizes, booleans, integers, bad inputs and the format
 * functions' round trips. Pure functions: no machine state is touched. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/units.h"

static int64_t dur(const char *text)
{
	char err[256] = "";
	int64_t ns = -12345;

	if (jl_parse_duration(text, &ns, err, sizeof(err))) {
		print_error("jl_parse_duration(\"%s\") failed: %s\n", text, err);
		fail();
	}
	return ns;
}

static void dur_bad(const char *text, const char *needle)
{
	char err[256] = "";
	int64_t ns = -12345;

	if (!jl_parse_duration(text, &ns, err, sizeof(err))) {
		print_error("jl_parse_duration(\"%s\") accepted it as %lld\n", text, (long long)ns);
		fail();
	}
	assert_int_equal(ns, -12345); /* untouched on error */
	assert_true(err[0]);
	if (needle && !strstr(err, needle)) {
		print_error("error for \"%s\" is \"%s\", expected it to mention \"%s\"\n", text, err, needle);
		fail();
	}
}

static void test_duration_units(void **state)
{
	(void)state;
	assert_int_equal(dur("500ns"), 500);
	assert_int_equal(dur("250us"), 250000);
	assert_int_equal(dur("10ms"), 10000000);
	assert_int_equal(dur("2s"), 2000000000LL);
	assert_int_equal(dur("2m"), 120000000000LL);
	assert_int_equal(dur("1h"), 3600000000000LL);
	assert_int_equal(dur("0s"), 0);
	assert_int_equal(dur("0ns"), 0);
	assert_int_equal(dur(" 10ms "), 10000000);
	assert_int_equal(dur("10 ms"), 10000000);
}

static void test_duration_decimals(void **state)
{
	(void)state;
	assert_int_equal(dur("1.5s"), 1500000000LL);
	assert_int_equal(dur("0.1s"), 100000000LL);
	assert_int_equal(dur("1.1s"), 1100000000LL);
	assert_int_equal(dur("2.5ms"), 2500000);
	assert_int_equal(dur("0.25us"), 250);
	assert_int_equal(dur(".5s"), 500000000LL);
	assert_int_equal(dur("1.s"), 1000000000LL);
	assert_int_equal(dur("1.5h"), 5400000000000LL);
	assert_int_equal(dur("0.001ms"), 1000);
	/* sub-ns fractions round to the nearest ns */
	assert_int_equal(dur("1.4ns"), 1);
	assert_int_equal(dur("1.6ns"), 2);
	assert_int_equal(dur("0.0000001s"), 100);
	/* exact, no binary floating point in the way */
	assert_int_equal(dur("9007199254740993ns"), 9007199254740993LL);
	assert_int_equal(dur("9223372036854775807ns"), INT64_MAX);
}

static void test_duration_bad(void **state)
{
	(void)state;
	dur_bad("10", "unit");
	dur_bad("1.5", "unit");
	dur_bad("-1s", "negative");
	dur_bad("-0s", NULL);
	dur_bad("", NULL);
	dur_bad("ms", NULL);
	dur_bad(".ms", NULL);
	dur_bad("abc", NULL);
	dur_bad("10xs", NULL);
	dur_bad("10MS", NULL);   /* units are case-sensitive: m is minutes */
	dur_bad("10 ms x", NULL);
	dur_bad("1e3ms", NULL);  /* decimal notation only */
	dur_bad("0x10ms", NULL);
	dur_bad("inf s", NULL);
	dur_bad("nans", NULL);
	dur_bad("1,5s", NULL);
	dur_bad("9223372036854775808ns", "too large");
	dur_bad("99999999999999999999999s", "too large");
	dur_bad("3000000h", "too large");
	dur_bad("18446744073709551616ns", "too large");
}

static int64_t rate(const char *text)
{
	char err[256] = "";
	int64_t p = -1;

	if (jl_parse_rate(text, &p, err, sizeof(err))) {
		print_error("jl_parse_rate(\"%s\") failed: %s\n", text, err);
		fail();
	}
	return p;
}

static void rate_bad(const char *text)
{
	char err[256] = "";
	int64_t p = -12345;

	if (!jl_parse_rate(text, &p, err, sizeof(err))) {
		print_error("jl_parse_rate(\"%s\") accepted it: %lld\n", text, (long long)p);
		fail();
	}
	assert_int_equal(p, -12345);
	assert_true(err[0]);
}

static void test_rate(void **state)
{
	(void)state;
	assert_int_equal(rate("100Hz"), 10000000);
	assert_int_equal(rate("60Hz"), 16666667);     /* 16666666.67 rounds up */
	assert_int_equal(rate("3Hz"), 333333333);     /* 333333333.33 rounds down */
	assert_int_equal(rate("7Hz"), 142857143);
	assert_int_equal(rate("1kHz"), 1000000);
	assert_int_equal(rate("1khz"), 1000000);
	assert_int_equal(rate("2.5kHz"), 400000);
	assert_int_equal(rate("0.5Hz"), 2000000000LL);
	assert_int_equal(rate("1Hz"), 1000000000LL);
	assert_int_equal(rate("1MHz"), 1000);
	assert_int_equal(rate("1000000000Hz"), 1);
	rate_bad("100");
	rate_bad("0Hz");
	rate_bad("0.0Hz");
	rate_bad("-5Hz");
	rate_bad("Hz");
	rate_bad("100Hzz");
	rate_bad("100 s");
	rate_bad("5000000000Hz");  /* period < 1 ns */
	rate_bad("1e3Hz");
	rate_bad("0.0000000000000000001Hz"); /* period beyond int64 */
}

static uint64_t size(const char *text)
{
	char err[256] = "";
	uint64_t b = 0;

	if (jl_parse_size(text, &b, err, sizeof(err))) {
		print_error("jl_parse_size(\"%s\") failed: %s\n", text, err);
		fail();
	}
	return b;
}

static void size_bad(const char *text)
{
	char err[256] = "";
	uint64_t b = 12345;

	if (!jl_parse_size(text, &b, err, sizeof(err))) {
		print_error("jl_parse_size(\"%s\") accepted it: %llu\n", text, (unsigned long long)b);
		fail();
	}
	assert_int_equal(b, 12345);
	assert_true(err[0]);
}

static void test_size(void **state)
{
	(void)state;
	assert_int_equal(size("512B"), 512);
	assert_int_equal(size("64KB"), 65536);
	assert_int_equal(size("16MB"), 16ULL << 20);
	assert_int_equal(size("1GB"), 1ULL << 30);
	assert_int_equal(size("1.5KB"), 1536);
	assert_int_equal(size("0.5MB"), 512ULL << 10);
	assert_int_equal(size("64kb"), 65536);
	assert_int_equal(size("4K"), 4096);
	assert_int_equal(size("0B"), 0);
	assert_int_equal(size("17179869183GB"), 17179869183ULL << 30);
	size_bad("64");
	size_bad("-1KB");
	size_bad("1TB");
	size_bad("KB");
	size_bad("12 parsecs");
	size_bad("17179869184.5GB"); /* 2^64 + : overflows */
	size_bad("18446744073709551616B");
}

static void test_bool(void **state)
{
	static const char *const yes[] = { "yes", "on", "true", "YES", "True", "On" };
	static const char *const no[] = { "no", "off", "false", "NO", "False", "OFF" };
	static const char *const bad[] = { "", "1", "0", "y", "n", "yess", "enable", "truee" };
	char err[256];
	bool b;

	(void)state;
	for (size_t i = 0; i < sizeof(yes) / sizeof(yes[0]); i++) {
		b = false;
		assert_int_equal(jl_parse_bool(yes[i], &b, err, sizeof(err)), 0);
		assert_true(b);
	}
	for (size_t i = 0; i < sizeof(no) / sizeof(no[0]); i++) {
		b = true;
		assert_int_equal(jl_parse_bool(no[i], &b, err, sizeof(err)), 0);
		assert_false(b);
	}
	for (size_t i = 0; i < sizeof(bad) / sizeof(bad[0]); i++) {
		err[0] = '\0';
		assert_int_equal(jl_parse_bool(bad[i], &b, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "yes"));
	}
}

static void test_int(void **state)
{
	char err[256];
	long long v;

	(void)state;
	assert_int_equal(jl_parse_int("42", 0, 100, &v, err, sizeof(err)), 0);
	assert_int_equal(v, 42);
	assert_int_equal(jl_parse_int("-20", -20, 19, &v, err, sizeof(err)), 0);
	assert_int_equal(v, -20);
	assert_int_equal(jl_parse_int("19", -20, 19, &v, err, sizeof(err)), 0);
	assert_int_equal(jl_parse_int("9223372036854775807", 0, 0x7fffffffffffffffLL, &v, err, sizeof(err)), 0);
	assert_int_equal(v, INT64_MAX);

	v = 7;
	assert_int_equal(jl_parse_int("20", -20, 19, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "-20 to 19"));
	assert_int_equal(v, 7);
	assert_int_equal(jl_parse_int("-21", -20, 19, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int(" ", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("5x", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("0x5", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("1.5", 0, 10, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("abc", 0, 10, &v, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "not an integer"));
	assert_int_equal(jl_parse_int("99999999999999999999", 0, 0x7fffffffffffffffLL, &v, err, sizeof(err)), -1);
	assert_int_equal(jl_parse_int("-99999999999999999999", -100, 100, &v, err, sizeof(err)), -1);
	assert_int_equal(v, 7);
}

static void test_format_duration(void **state)
{
	static const struct {
		int64_t ns;
		const char *text;
	} cases[] = {
		{ 0, "0s" },
		{ 1, "1ns" },
		{ 999, "999ns" },
		{ 1000, "1us" },
		{ 1500, "1500ns" },
		{ 250000, "250us" },
		{ 10000000, "10ms" },
		{ 1500000000LL, "1500ms" },
		{ 2000000000LL, "2s" },
		{ 60000000000LL, "1m" },
		{ 90000000000LL, "90s" },
		{ 3600000000000LL, "1h" },
		{ 7200000000000LL, "2h" },
		{ 16666667, "16666667ns" },
	};
	char buf[64];

	(void)state;
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		assert_string_equal(jl_format_duration(cases[i].ns, buf, sizeof(buf)), cases[i].text);
}

/* Whatever jl_format_duration writes, jl_parse_duration reads back to the same value. */
static void test_duration_round_trip(void **state)
{
	static const int64_t vals[] = { 0, 1, 7, 999, 1000, 1001, 123456789, 1000000000LL, 59999999999LL, 60000000000LL,
					3600000000000LL, 3600000000001LL, 9007199254740993LL, INT64_MAX,
					INT64_MAX - 1 };
	char buf[64], err[256];
	int64_t back;
	uint64_t x = 88172645463325252ULL;

	(void)state;
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		jl_format_duration(vals[i], buf, sizeof(buf));
		assert_int_equal(jl_parse_duration(buf, &back, err, sizeof(err)), 0);
		assert_int_equal(back, vals[i]);
	}
	for (int i = 0; i < 20000; i++) { /* xorshift: a spread of magnitudes */
		int64_t v;

		x ^= x << 13;
		x ^= x >> 7;
		x ^= x << 17;
		v = (int64_t)(x >> (1 + (unsigned)i % 63));
		jl_format_duration(v, buf, sizeof(buf));
		assert_int_equal(jl_parse_duration(buf, &back, err, sizeof(err)), 0);
		assert_int_equal(back, v);
	}
}

static void test_format_size(void **state)
{
	char buf[64], err[256];
	uint64_t back;
	static const uint64_t vals[] = { 0, 1, 64, 1023, 1024, 1536, 65536, 16ULL << 20, (16ULL << 20) + 1024, 1ULL << 30,
					 3ULL << 30, UINT64_MAX, UINT64_MAX - 1023 };

	(void)state;
	assert_string_equal(jl_format_size(16ULL << 20, buf, sizeof(buf)), "16MB");
	assert_string_equal(jl_format_size(1536 * 1024, buf, sizeof(buf)), "1536KB");
	assert_string_equal(jl_format_size(100, buf, sizeof(buf)), "100B");
	assert_string_equal(jl_format_size(0, buf, sizeof(buf)), "0B");
	assert_string_equal(jl_format_size(2ULL << 30, buf, sizeof(buf)), "2GB");
	for (size_t i = 0; i < sizeof(vals) / sizeof(vals[0]); i++) {
		jl_format_size(vals[i], buf, sizeof(buf));
		assert_int_equal(jl_parse_size(buf, &back, err, sizeof(err)), 0);
		assert_int_equal(back, vals[i]);
	}
}

static void test_format_human(void **state)
{
	char buf[64];

	(void)state;
	assert_string_equal(jl_format_duration_human(331000, buf, sizeof(buf)), "331 us");
	assert_string_equal(jl_format_duration_human(1200000, buf, sizeof(buf)), "1.20 ms");
	assert_string_equal(jl_format_duration_human(2000000000LL, buf, sizeof(buf)), "2.000 s");
	assert_string_equal(jl_format_duration_human(5500, buf, sizeof(buf)), "5.5 us");
	assert_string_equal(jl_format_duration_human(-331000, buf, sizeof(buf)), "-331 us");
	jl_format_duration_human(INT64_MIN, buf, sizeof(buf)); /* no UB on the one value without a negation */
	assert_string_equal(buf, "-9223372036.855 s");
	/* a tiny buffer truncates, never overflows */
	assert_string_equal(jl_format_duration_human(2000000000LL, buf, 4), "2.0");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_duration_units),
		cmocka_unit_test(test_duration_decimals),
		cmocka_unit_test(test_duration_bad),
		cmocka_unit_test(test_rate),
		cmocka_unit_test(test_size),
		cmocka_unit_test(test_bool),
		cmocka_unit_test(test_int),
		cmocka_unit_test(test_format_duration),
		cmocka_unit_test(test_duration_round_trip),
		cmocka_unit_test(test_format_size),
		cmocka_unit_test(test_format_human),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
