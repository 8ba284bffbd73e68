/* fair_server: the fair deadline server's budget (Linux 6.12+: CFS gets RUNTIME per PERIOD on each CPU while
 * RT tasks are runnable), read and set through debugfs (/sys/kernel/debug/sched/fair_server/cpuN/), for
 * `[run] fair_server` and the host block. debugfs is mounted only for the moment it is needed, and only
 * unmounted when this module mounted it. Every change is journalled first (journal.h), as a write that
 * needs debugfs mounted to be undone. The directory is injectable for unit tests. */
#ifndef JL_FAIR_SERVER_H
#define JL_FAIR_SERVER_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>

#include "journal.h"

#define JL_DEBUGFS "/sys/kernel/debug"
#define JL_FAIR_SERVER_DIR JL_DEBUGFS "/sched/fair_server"

/* Mount debugfs at JL_DEBUGFS unless it is mounted; *MOUNTED says whether this call did. 0, or -1 with
 * errno. */
int jl_debugfs_mount(bool *mounted);
/* Unmount debugfs when MOUNTED (what jl_debugfs_mount said). */
void jl_debugfs_unmount(bool mounted);

/* The fair server directory: $JITTERLAB_FAIR_SERVER_DIR (tests) or JL_FAIR_SERVER_DIR. */
const char *jl_fair_server_dir(void);

/* Can this machine's fair server budget be set? 0, or -1 with WHY (no fair server on this kernel, debugfs
 * cannot be mounted, or the files refuse us: EPERM under kernel lockdown or a restricted debugfs). */
int jl_fair_server_probe(char *why, size_t len);

/* Set RUNTIME_NS on every CPU of CPUS, each old value journalled in J first. *NSET gets how many CPUs
 * changed. 0, or -1 with ERR (what was changed is in the journal). */
int jl_fair_server_apply(struct jl_journal *j, const cpu_set_t *cpus, int64_t runtime_ns, int *nset, char *err,
			 size_t errlen);

#endif
