/* journal_int: what journal.c and journal_replay.c share (not for other modules). */
#ifndef JL_JOURNAL_INT_H
#define JL_JOURNAL_INT_H

#include <sys/types.h>

/* Numeric FIELD (1-based, as in proc(5), >= 3) of /proc/PID/stat. 0, or -1 with errno (ESRCH: no such
 * process). */
int jl_stat_field(pid_t pid, int field, unsigned long long *out);

#endif
