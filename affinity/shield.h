/* shield: a runtime CPU shield built from cpusets (`isolate`). cgroup v1 (what this project's machines
 * have): a housekeeping cpuset (online - shield) and an exclusive shield cpuset, every task that may run
 * on both sides moved to housekeeping (nothing else: see shield.c), sched_load_balance = 0 at the root.
 * cgroup v2: a threaded cgroup on the shield CPUs made an isolated partition, which takes the CPUs from
 * every other cgroup by itself. Every change is journalled first (journal.h), with what the partition
 * resets and the kernel does not put back (IRQ threads' masks; before 6.2 every task's narrowed mask);
 * the undo is the journal's replay. Paths are injectable through struct jl_shield_config. */
#ifndef JL_SHIELD_H
#define JL_SHIELD_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

#include "journal.h"

enum jl_shield_method { JL_SHIELD_NONE, JL_SHIELD_CGROUP_V1, JL_SHIELD_CGROUP_V2, JL_SHIELD_BOOT };


struct jl_shield_config {
	char cpuset_root[256];   /* v1 cpuset mount; "" = find it in /proc/self/mounts */
	bool isolated_at_boot;   /* every shield CPU is isolated at boot (isolcpus=): the shield is a no-op */
	cpu_set_t shield;        /* CPUs to shield */
	cpu_set_t online;        /* online CPUs (housekeeping = online - shield) */
};

struct jl_shield {
	enum jl_shield_method method;
	char root[256];
	bool v2_enabled_cpuset;  /* v2: this run enabled +cpuset in the root's cgroup.subtree_control */
	bool v2_moved_self;      /* v2: this process was moved into the root cgroup (from v2_home) */
	char v2_home[512];       /* v2: the cgroup this process was in */
	char partition[160];     /* v2: cpuset.cpus.partition as read back after sealing */
	int64_t settle_ns;       /* v2: how long the partition took to settle */
	char hk_dir[320], shield_dir[320];
	cpu_set_t shield, hk;
	bool exclusive;          /* both cpusets got cpu_exclusive = 1 */
	int tasks_moved;         /* moved to housekeeping */
	int tasks_unmovable;     /* refused (per-CPU kernel threads, ...) */
	int tasks_pinned;        /* left where they were: pinned by their owner to shield CPUs only */
	int tasks_kept;          /* left where they were: already on housekeeping CPUs only */
	int irq_threads;         /* IRQ threads left where they were (they follow their IRQ's steering) */
	int threads_shielded;    /* measured threads placed in the shield */
	int neighbours_shielded; /* v2: neighbours pinned inside the shield, placed in it too */
	int masks_journalled;    /* v2 before Linux 6.2: narrowed task masks journalled (the partition resets them) */
};

/* Which cpuset hierarchy this machine offers: the v1 cpuset mount (ROOT receives it), else a cgroup v2
 * mount whose cgroup.controllers lists cpuset, else NONE. Touches nothing. */
enum jl_shield_method jl_shield_detect(char *root, size_t len);
const char *jl_shield_method_name(enum jl_shield_method m);

/* This process's cgroup on the unified hierarchy ("/" for the root), from /proc/self/cgroup's "0::"
 * line. 0, or -1 when there is none. */
int jl_shield_v2_self_cgroup(char *out, size_t len);

/* Build the shield (see top). On failure, what was done is in the journal (the caller replays it) and
 * ERR says what failed. 0 or -1. */
int jl_shield_apply(struct jl_shield *s, const struct jl_shield_config *cfg, struct jl_journal *j, char *err,
		    size_t errlen);

/* Place a thread (tid) or child (pid): MEASURED ones into the shield. Others: v1: into housekeeping when
 * their affinity allows every online CPU or only housekeeping CPUs, else left where their cpus say; v2:
 * into the shield when their affinity lies inside the shield CPUs (outside it they could not run there
 * once the partition is made), else left in the root cgroup (housekeeping by itself). A thread whose
 * mask a move changed gets it back (kernels before 6.2 reset it). 0 or -1 with errno. */
int jl_shield_place(struct jl_shield *s, pid_t tid, bool measured);

/* After every thread is placed, before t0: v2: turn the shield cgroup into an isolated partition, read it
 * back (the kernel's "isolated invalid (reason)" becomes ERR) and wait until the root's effective CPUs no
 * longer hold the shield CPUs (scheduler domains rebuilt). v1: nothing. 0 or -1. */
int jl_shield_seal(struct jl_shield *s, char *err, size_t errlen);

/* Fill OBJ with cpus, housekeeping, method, exclusive, tasks_moved, tasks_unmovable, tasks_pinned,
 * tasks_kept, irq_threads, threads_shielded. */
void jl_shield_describe(const struct jl_shield *s, json_object *obj);

/* Leftover jitterlab cpusets under ROOT (`jitterlab-<pid>-housekeeping` / `-shield`, whole names only)
 * whose owner (the pid in the name) is not in LIVE_PIDS.
 * Calls FN for each directory path; returns how many, or -1 with errno. */
int jl_shield_list_stale(const char *root, const pid_t *live_pids, int nlive, void (*fn)(const char *dir, void *ctx),
			 void *ctx);

/* Remove one leftover cpuset DIR under ROOT with its child cpusets (their tasks go back to ROOT/tasks).
 * 0, or -1 with errno and WHY naming what stayed (directory, tasks left). */
int jl_shield_remove_dir(const char *root, const char *dir, char *why, size_t whylen);

#endif
