/* kversion: the kernel behaviours jitterlab handles differently by version, in one table (the same table
 * as docs/design-notes.md, "Kernel versions"). A behaviour is asked for by name, never by comparing
 * version numbers at the call site. Reads uname(2) only; touches nothing. */
#ifndef JL_KVERSION_H
#define JL_KVERSION_H

#include <stdbool.h>

enum jl_kfeature {
	JL_KERNEL_USER_MASK_KEPT,    /* 6.2: a cpuset change keeps the mask a task's owner set (8f9ea86fdf99) */
	JL_KERNEL_IPI_EVENTS,        /* 6.5: ipi:ipi_send_cpu / ipi_send_cpumask tracepoints */
	JL_KERNEL_TIMERLAT_FD,       /* 6.6: osnoise/per_cpu/cpuN/timerlat_fd (rtla timerlat -u) */
	JL_KERNEL_CPUS_ISOLATED,     /* 6.7: cgroup v2 cpuset.cpus.isolated and cpuset.cpus.exclusive */
	JL_KERNEL_FAIR_SERVER,       /* 6.12: the fair deadline server (sched/fair_server in debugfs) */
	JL_KERNEL_NFEATURES
};

struct jl_kfeature_info {
	const char *name;       /* short name (doctor --json, tests) */
	int major, minor;       /* first mainline version with it */
	const char *what;       /* one line: what changes, and what jitterlab does on either side */
};

/* The row of FEATURE. */
const struct jl_kfeature_info *jl_kfeature(enum jl_kfeature f);

/* Does RELEASE ("6.1.0-57-rt-amd64"; NULL: this kernel's uname -r) have FEATURE? A release that does not
 * parse counts as new (the behaviour of current kernels). */
bool jl_kernel_has(enum jl_kfeature f, const char *release);

/* RELEASE (NULL: this kernel) at least MAJOR.MINOR? */
bool jl_kernel_at_least(int major, int minor, const char *release);

#endif
