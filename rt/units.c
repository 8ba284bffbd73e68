/* units: value parsers and formatters for scenario files and --set. No state, no I/O. */
#include "units.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

struct unit {
	const char *name;
	double scale;
};

/* Split TEXT into a non-negative decimal number and a unit suffix. */
static int split_number(const char *text, double *value, const char **unit)
{
	char *end;

	while (isspace((unsigned char)*text))
		text++;
	if (!isdigit((unsigned char)*text) && *text != '.')
		return -1;
	errno = 0;
	*value = strtod(text, &end);
	if (errno || end == text || !isfinite(*value) || *value < 0)
		return -1;
	while (isspace((unsigned char)*end))
		end++;
	*unit = end;
	return 0;
}

static int lookup_unit(const struct unit *units, const char *unit, bool icase, double *scale)
{
	size_t n = strlen(unit);

	while (n && isspace((unsigned char)unit[n - 1]))
		n--;
	for (; units->name; units++) {
		if (strlen(units->name) != n)
			continue;
		if (icase ? !strncasecmp(units->name, unit, n) : !strncmp(units->name, unit, n)) {
			*scale = units->scale;
			return 0;
		}
	}
	return -1;
}

static const struct unit duration_units[] = {
	{ "ns", 1.0 }, { "us", 1e3 }, { "ms", 1e6 }, { "s", 1e9 }, { "m", 60e9 }, { "h", 3600e9 }, { NULL, 0 }
};

int jl_parse_duration(const char *text, int64_t *ns, char *err, size_t errlen)
{
	double v, scale, r;
	const char *unit;

	if (split_number(text, &v, &unit) || lookup_unit(duration_units, unit, false, &scale)) {
		snprintf(err, errlen, "'%s' is not a duration (expected a number with a unit ns, us, ms, s, m or h, e.g. 10ms)", text);
		return -1;
	}
	r = nearbyint(v * scale);
	if (r > 9.2e18) {
		snprintf(err, errlen, "duration '%s' is too large", text);
		return -1;
	}
	*ns = (int64_t)r;
	return 0;
}

static const struct unit rate_units[] = { { "hz", 1.0 }, { "khz", 1e3 }, { "mhz", 1e6 }, { NULL, 0 } };

int jl_parse_rate(const char *text, int64_t *period_ns, char *err, size_t errlen)
{
	double v, scale, p;
	const char *unit;

	if (split_number(text, &v, &unit) || lookup_unit(rate_units, unit, true, &scale) || v <= 0) {
		snprintf(err, errlen, "'%s' is not a rate (expected a positive number with Hz or kHz, e.g. 100Hz)", text);
		return -1;
	}
	p = nearbyint(1e9 / (v * scale));
	if (p < 1 || p > 9.2e18) {
		snprintf(err, errlen, "rate '%s' gives a period outside 1ns..292 years", text);
		return -1;
	}
	*period_ns = (int64_t)p;
	return 0;
}

static const struct unit size_units[] = {
	{ "B", 1.0 }, { "KB", 1024.0 }, { "MB", 1048576.0 }, { "GB", 1073741824.0 }, { "K", 1024.0 },
	{ "M", 1048576.0 }, { "G", 1073741824.0 }, { NULL, 0 }
};

int jl_parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen)
{
	double v, scale, r;
	const char *unit;

	if (split_number(text, &v, &unit) || lookup_unit(size_units, unit, true, &scale)) {
		snprintf(err, errlen, "'%s' is not a size (expected a number with B, KB, MB or GB, e.g. 16MB)", text);
		return -1;
	}
	r = nearbyint(v * scale);
	if (r > 1.8e19) {
		snprintf(err, errlen, "size '%s' is too large", text);
		return -1;
	}
	*bytes = (uint64_t)r;
	return 0;
}

int jl_parse_bool(const char *text, bool *out, char *err, size_t errlen)
{
	static const char *const yes[] = { "yes", "on", "true" }, *const no[] = { "no", "off", "false" };

	for (size_t i = 0; i < 3; i++) {
		if (!strcasecmp(text, yes[i])) {
			*out = true;
			return 0;
		}
		if (!strcasecmp(text, no[i])) {
			*out = false;
			return 0;
		}
	}
	snprintf(err, errlen, "'%s' is not a boolean (expected yes, no, on, off, true or false)", text);
	return -1;
}

int jl_parse_int(const char *text, long long lo, long long hi, long long *out, char *err, size_t errlen)
{
	char *end;
	long long v;

	errno = 0;
	v = strtoll(text, &end, 10);
	while (end && isspace((unsigned char)*end))
		end++;
	if (errno || end == text || *end || !*text) {
		snprintf(err, errlen, "'%s' is not an integer (expected %lld-%lld)", text, lo, hi);
		return -1;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "%lld is out of range (expected %lld-%lld)", v, lo, hi);
		return -1;
	}
	*out = v;
	return 0;
}

char *jl_format_duration(int64_t ns, char *buf, size_t len)
{
	static const struct {
		const char *name;
		int64_t scale;
	} units[] = { { "h", 3600000000000LL }, { "m", 60000000000LL }, { "s", 1000000000LL },
		      { "ms", 1000000LL },       { "us", 1000LL },       { "ns", 1LL } };

	if (ns == 0) {
		snprintf(buf, len, "0s");
		return buf;
	}
	for (size_t i = 0; i < sizeof(units) / sizeof(units[0]); i++) {
		if (ns % units[i].scale == 0) {
			snprintf(buf, len, "%lld%s", (long long)(ns / units[i].scale), units[i].name);
			return buf;
		}
	}
	return buf; /* unreachable: ns always divides by 1 */
}

char *jl_format_duration_human(int64_t ns, char *buf, size_t len)
{
	int64_t a = ns < 0 ? -ns : ns;

	if (a < 10000)
		snprintf(buf, len, "%.1f us", (double)ns / 1e3);
	else if (a < 1000000)
		snprintf(buf, len, "%.0f us", (double)ns / 1e3);
	else if (a < 1000000000)
		snprintf(buf, len, "%.2f ms", (double)ns / 1e6);
	else
		snprintf(buf, len, "%.3f s", (double)ns / 1e9);
	return buf;
}

char *jl_format_size(uint64_t bytes, char *buf, size_t len)
{
	if (bytes && bytes % 1073741824ULL == 0)
		snprintf(buf, len, "%lluGB", (unsigned long long)(bytes >> 30));
	else if (bytes && bytes % 1048576ULL == 0)
		snprintf(buf, len, "%lluMB", (unsigned long long)(bytes >> 20));
	else if (bytes && bytes % 1024ULL == 0)
		snprintf(buf, len, "%lluKB", (unsigned long long)(bytes >> 10));
	else
		snprintf(buf, len, "%lluB", (unsigned long long)bytes);
	return buf;
}
