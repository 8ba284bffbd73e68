/* runnames: the names of what a run creates (cpusets, cgroups, tracing instances) and the pid in them,
 * so that a cleanup touches only what a run of jitterlab made. */
#ifndef JL_RUNNAMES_H
#define JL_RUNNAMES_H

#include <sys/types.h>

#define JL_CPUSET_PREFIX "jitterlab-"

/* Ours are only `jitterlab-<digits>` tracing instances and `jitterlab-<digits>-housekeeping` /
 * `jitterlab-<digits>-shield` cpusets (whole names): these return the pid, anything else 0 (a user's
 * `jitterlab-foo` is never touched). */
pid_t jl_stale_instance_pid(const char *name);
pid_t jl_stale_cpuset_pid(const char *name);

#endif
