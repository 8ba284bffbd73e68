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
	uint64_t scale;
};

/* A non-negative decimal number as written: INT.FRAC, kept exact (no binary floating point), so
 * "1.1s" is exactly 1100000000 ns and 9223372036854775807ns survives a round trip. Only plain decimal
 * notation is accepted: no sign, no exponent, no hex, no "inf"/"nan". */
struct decimal {
	uint64_t ip;       /* integer part */
	uint64_t frac;     /* first FDIGITS digits after the point */
	int fdigits;       /* at most 18 are kept (finer than 1e-18 of a unit is dropped) */
	double value;      /* approximate value, for rates */
};

/* Split TEXT into a number and a unit suffix. Returns 0, -1 (not a number), -2 (negative), -3 (too large). */
static int split_number(const char *text, struct decimal *d, const char **unit)
{
	const char *p = text;
	bool digits = false;

	memset(d, 0, sizeof(*d));
	while (isspace((unsigned char)*p))
		p++;
	if (*p == '-')
		return -2;
	for (; isdigit((unsigned char)*p); p++) {
		unsigned dg = (unsigned)(*p - '0');

		if (d->ip > (UINT64_MAX - dg) / 10)
			return -3;
		d->ip = d->ip * 10 + dg;
		digits = true;
	}
	d->value = (double)d->ip;
	if (*p == '.') {
		double scale = 0.1;

		for (p++; isdigit((unsigned char)*p); p++) {
			if (d->fdigits < 18) {
				d->frac = d->frac * 10 + (uint64_t)(*p - '0');
				d->fdigits++;
			}
			d->value += scale * (*p - '0');
			scale /= 10;
			digits = true;
		}
	}
	if (!digits)
		return -1;
	while (isspace((unsigned char)*p))
		p++;
	*unit = p;
	return 0;
}

/* D * SCALE rounded to the nearest integer, exactly; -1 if it exceeds MAX. */
static int scale_decimal(const struct decimal *d, uint64_t scale, uint64_t max, uint64_t *out)
{
	unsigned __int128 v = (unsigned __int128)d->ip * scale, pow10 = 1;

	for (int i = 0; i < d->fdigits; i++)
		pow10 *= 10;
	v += ((unsigned __int128)d->frac * scale * 2 + pow10) / (pow10 * 2);
	if (v > max)
		return -1;
	*out = (uint64_t)v;
	return 0;
}

static int lookup_unit(const struct unit *units, const char *unit, bool icase, uint64_t *scale)
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
	{ "ns", 1 }, { "us", 1000 }, { "ms", 1000000 }, { "s", 1000000000ULL }, { "m", 60000000000ULL },
	{ "h", 3600000000000ULL }, { NULL, 0 }
};

int jl_parse_duration(const char *text, int64_t *ns, char *err, size_t errlen)
{
	struct decimal d;
	const char *unit = "";
	uint64_t scale, v;
	int rc = split_number(text, &d, &unit);

	if (rc == -2) {
		snprintf(err, errlen, "'%s' is negative (expected a duration of 0 or more, e.g. 10ms)", text);
		return -1;
	}
	if (rc == 0 && !*unit) {
		snprintf(err, errlen, "'%s' has no unit (expected a number with a unit ns, us, ms, s, m or h, e.g. 10ms)", text);
		return -1;
	}
	if (rc == -1 || (rc == 0 && lookup_unit(duration_units, unit, false, &scale))) {
		snprintf(err, errlen, "'%s' is not a duration (expected a number with a unit ns, us, ms, s, m or h, e.g. 10ms)", text);
		return -1;
	}
	if (rc == -3 || scale_decimal(&d, scale, INT64_MAX, &v)) {
		snprintf(err, errlen, "duration '%s' is too large (at most 292 years)", text);
		return -1;
	}
	*ns = (int64_t)v;
	return 0;
}

static const struct unit rate_units[] = { { "hz", 1 }, { "khz", 1000 }, { "mhz", 1000000 }, { NULL, 0 } };

int jl_parse_rate(const char *text, int64_t *period_ns, char *err, size_t errlen)
{
	struct decimal d;
	const char *unit = "";
	uint64_t scale;
	double p;
	int rc = split_number(text, &d, &unit);

	if (rc || !*unit || lookup_unit(rate_units, unit, true, &scale) || d.value <= 0) {
		snprintf(err, errlen, "'%s' is not a rate (expected a positive number with Hz or kHz, e.g. 100Hz, 1kHz, 0.5Hz)", text);
		return -1;
	}
	p = nearbyint(1e9 / (d.value * (double)scale));
	if (!(p >= 1 && p <= 9.2e18)) {
		snprintf(err, errlen, "rate '%s' gives a period outside 1ns..292 years", text);
		return -1;
	}
	*period_ns = (int64_t)p;
	return 0;
}

static const struct unit size_units[] = {
	{ "B", 1 }, { "KB", 1ULL << 10 }, { "MB", 1ULL << 20 }, { "GB", 1ULL << 30 }, { "K", 1ULL << 10 },
	{ "M", 1ULL << 20 }, { "G", 1ULL << 30 }, { NULL, 0 }
};

int jl_parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen)
{
	struct decimal d;
	const char *unit = "";
	uint64_t scale;
	int rc = split_number(text, &d, &unit);

	if (rc == -2) {
		snprintf(err, errlen, "'%s' is negative (expected a size, e.g. 16MB)", text);
		return -1;
	}
	if (rc == -1 || (rc == 0 && (!*unit || lookup_unit(size_units, unit, true, &scale)))) {
		snprintf(err, errlen, "'%s' is not a size (expected a number with B, KB, MB or GB, e.g. 16MB)", text);
		return -1;
	}
	if (rc == -3 || scale_decimal(&d, scale, UINT64_MAX, bytes)) {
		snprintf(err, errlen, "size '%s' is too large", text);
		return -1;
	}
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
	if (end == text) /* no digits (a blank string must not read as 0) */
		errno = EINVAL;
	while (isspace((unsigned char)*end))
		end++;
	if (errno || *end) {
		snprintf(err, errlen, "'%s' is not an integer (expected %lld to %lld)", text, lo, hi);
		return -1;
	}
	if (v < lo || v > hi) {
		snprintf(err, errlen, "%lld is out of range (expected %lld to %lld)", v, lo, hi);
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
	double a = fabs((double)ns); /* not -ns: INT64_MIN has no negation */

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
