/* procfs: small readers and writers of kernel files: a sysfs/procfs knob's first line, a field of
 * /proc/PID/stat, what a task is (a kernel thread, an IRQ thread). No state; errno on failure. */
#ifndef JL_PROCFS_H
#define JL_PROCFS_H

#include <stdbool.h>
#include <stddef.h>
#include <sys/types.h>

/* Knobs (sysfs/procfs files): read the first line (newline stripped), write a value in one
 * write(2). 0 or -1 with errno. */
int jl_knob_read(const char *path, char *buf, size_t len);
int jl_knob_write(const char *path, const char *value);

/* Field FIELD (1-based, as proc(5) numbers them) of /proc/PID/stat as a number. 0, or -1 with errno
 * (ESRCH when there is no such process). */
int jl_stat_field(pid_t pid, int field, unsigned long long *out);

/* Start time (field 22 of /proc/PID/stat, clock ticks since boot) of PID. 0, or -1 with errno
 * (ESRCH when there is no such process). */
int jl_proc_start_time(pid_t pid, unsigned long long *start);

/* True when PID is running and started at START. */
bool jl_proc_is(pid_t pid, unsigned long long start);

/* The task flags (PF_*, field 9 of /proc/TID/stat). 0 or -1 with errno. */
int jl_proc_flags(pid_t tid, unsigned long long *flags);

/* A kernel thread (PF_KTHREAD)? */
bool jl_proc_is_kthread(pid_t tid);

/* The IRQ number of an IRQ thread (a kernel thread named irq/N-name; its comm into COMM when not NULL,
 * 16 bytes), or -1 when TID is none. */
int jl_irq_thread_irq(pid_t tid, char *comm);

#endif
