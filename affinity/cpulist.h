/* cpulist: parse and format Linux cpu lists ("0-3,8,10-11") and read the online set.
 * Shared by the scenario parser, the shield and the doctor. Pure functions, no side effects. */
#ifndef JL_CPULIST_H
#define JL_CPULIST_H

#include <sched.h>
#include <stddef.h>

/* Parse TEXT into SET. Returns 0, or -1 with errno = EINVAL and a reason in ERR (ERRLEN bytes). */
int jl_cpulist_parse(const char *text, cpu_set_t *set, char *err, size_t errlen);

/* Format SET as a compact list ("0-3,8") into BUF. Returns BUF; "" for the empty set. */
char *jl_cpulist_format(const cpu_set_t *set, char *buf, size_t len);

/* The online CPUs (from /sys/devices/system/cpu/online, falling back to sched_getaffinity).
 * Returns 0 or -1 with errno. */
int jl_cpulist_online(cpu_set_t *set);

/* Read a cpu-list file such as /sys/devices/system/cpu/isolated into SET (empty file = empty set). */
int jl_cpulist_read_file(const char *path, cpu_set_t *set);

/* Number of CPUs in SET and the lowest one (-1 if empty). */
int jl_cpulist_count(const cpu_set_t *set);
int jl_cpulist_first(const cpu_set_t *set);

#endif
