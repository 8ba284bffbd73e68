/* cpulist: cpu-list parse/format and the online set. Pure helpers; never touches machine state. */
#include "cpulist.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_cpu(const char **p, long *out, char *err, size_t errlen, const char *text)
{
	char *end;

	if (!isdigit((unsigned char)**p)) {
		snprintf(err, errlen, "'%s' is not a cpu list (expected e.g. 1, 0-3, 0,2,4-7)", text);
		return -1;
	}
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= CPU_SETSIZE) {
		snprintf(err, errlen, "cpu number in '%s' is out of range (0-%d)", text, CPU_SETSIZE - 1);
		return -1;
	}
	*p = end;
	return 0;
}

int jl_cpulist_parse(const char *text, cpu_set_t *set, char *err, size_t errlen)
{
	const char *p = text;

	CPU_ZERO(set);
	while (isspace((unsigned char)*p))
		p++;
	if (!*p) {
		snprintf(err, errlen, "empty cpu list (expected e.g. 1, 0-3, 0,2,4-7)");
		errno = EINVAL;
		return -1;
	}
	for (;;) {
		long lo, hi;

		if (parse_cpu(&p, &lo, err, errlen, text))
			goto error;
		hi = lo;
		if (*p == '-') {
			p++;
			if (parse_cpu(&p, &hi, err, errlen, text))
				goto error;
			if (hi < lo) {
				snprintf(err, errlen, "descending range %ld-%ld in cpu list '%s'", lo, hi, text);
				goto error;
			}
		}
		for (long c = lo; c <= hi; c++)
			CPU_SET((int)c, set);
		while (isspace((unsigned char)*p))
			p++;
		if (!*p)
			return 0;
		if (*p != ',') {
			snprintf(err, errlen, "unexpected '%c' in cpu list '%s'", *p, text);
			goto error;
		}
		p++;
		while (isspace((unsigned char)*p))
			p++;
	}
error:
	errno = EINVAL;
	return -1;
}

char *jl_cpulist_format(const cpu_set_t *set, char *buf, size_t len)
{
	size_t used = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (int c = 0; c < CPU_SETSIZE; c++) {
		int hi = c;
		int n;

		if (!CPU_ISSET(c, set))
			continue;
		while (hi + 1 < CPU_SETSIZE && CPU_ISSET(hi + 1, set))
			hi++;
		if (hi == c)
			n = snprintf(buf + used, len - used, "%s%d", used ? "," : "", c);
		else
			n = snprintf(buf + used, len - used, "%s%d-%d", used ? "," : "", c, hi);
		if (n < 0 || (size_t)n >= len - used) {
			/* too small: cut at the last whole entry, never leave "0-1,4-" or "0,1" for "0,12" */
			buf[used] = '\0';
			break;
		}
		used += (size_t)n;
		c = hi;
	}
	return buf;
}

int jl_cpulist_read_file(const char *path, cpu_set_t *set)
{
	char line[4096], err[128];
	FILE *f = fopen(path, "re");

	CPU_ZERO(set);
	if (!f)
		return -1;
	if (!fgets(line, sizeof(line), f)) {
		fclose(f);
		return 0; /* empty file: empty set */
	}
	fclose(f);
	line[strcspn(line, "\n")] = '\0';
	if (!line[0])
		return 0;
	return jl_cpulist_parse(line, set, err, sizeof(err));
}

int jl_cpulist_online(cpu_set_t *set)
{
	if (jl_cpulist_read_file("/sys/devices/system/cpu/online", set) == 0 && CPU_COUNT(set) > 0)
		return 0;
	return sched_getaffinity(0, sizeof(*set), set);
}

int jl_cpulist_count(const cpu_set_t *set)
{
	return CPU_COUNT(set);
}

int jl_cpulist_first(const cpu_set_t *set)
{
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, set))
			return c;
	return -1;
}
