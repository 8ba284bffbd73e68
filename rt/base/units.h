/* units: parse and format the scenario value types (durations, rates, sizes, booleans).
 * Pure functions; every parser returns 0 or -1 with a one-line reason of what was expected. */
#ifndef JL_UNITS_H
#define JL_UNITS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_NSEC_PER_SEC 1000000000LL

/* "10ms", "1.5s", "250us", "2m", "1h", "500ns". A unit is required. Negative values are refused. */
int jl_parse_duration(const char *text, int64_t *ns, char *err, size_t errlen);
/* "60Hz", "1kHz", "0.5Hz": returns the period in ns (rounded to the nearest ns). */
int jl_parse_rate(const char *text, int64_t *period_ns, char *err, size_t errlen);
/* "64KB", "16MB", "1GB", "512B" (powers of 1024). */
int jl_parse_size(const char *text, uint64_t *bytes, char *err, size_t errlen);
/* yes/no/on/off/true/false (case-insensitive). */
int jl_parse_bool(const char *text, bool *out, char *err, size_t errlen);
/* A plain integer in [lo, hi]. */
int jl_parse_int(const char *text, long long lo, long long hi, long long *out, char *err, size_t errlen);

/* Shortest exact text for a duration ("10ms", "1500us", "0s"), one that jl_parse_duration reads back. */
char *jl_format_duration(int64_t ns, char *buf, size_t len);
/* Human text for reports: "331 us", "1.20 ms", "2.000 s". */
char *jl_format_duration_human(int64_t ns, char *buf, size_t len);
/* Exact size text ("16MB", "1536KB", "100B"). */
char *jl_format_size(uint64_t bytes, char *buf, size_t len);

#endif
