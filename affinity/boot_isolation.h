/* boot_isolation: the CPUs the kernel isolated at boot, from the command line (isolcpus=[nohz,][domain,]
 * [managed_irq,]LIST, nohz_full=LIST, rcu_nocbs[=LIST], irqaffinity=LIST) checked against what the kernel
 * took (/sys/devices/system/cpu/isolated and /sys/devices/system/cpu/nohz_full). One parser for the doctor's
 * isolcpus/nohz_full/rcu_nocbs/irqaffinity/boot_isolation checks, summary.json host.boot_isolation and the
 * shield (a CPU isolated at boot is adopted: `isolate` on it is a no-op). The parser is pure (strings in);
 * jl_boot_isolation_read is the thin reader. Read-only. */
#ifndef JL_BOOT_ISOLATION_H
#define JL_BOOT_ISOLATION_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

/* The boot parameters, in the order they are reported. */
enum jl_boot_param { JL_BOOT_ISOLCPUS, JL_BOOT_NOHZ_FULL, JL_BOOT_RCU_NOCBS, JL_BOOT_IRQAFFINITY, JL_BOOT_NPARAMS };
extern const char *const jl_boot_param_names[JL_BOOT_NPARAMS]; /* "isolcpus", "nohz_full", ... */

/* What one CPU has (jl_boot_isolation_cpu), one bit per flag, named in jl_boot_flag_names (bit order):
 *   isolcpus     isolcpus= with the domain flag (or no flag): out of the scheduler's domains, no task is
 *                placed or balanced there unless pinned. This is what `isolate` does at run time.
 *   isolcpus_nohz isolcpus=nohz,...: kernel noise (unbound kthreads, workqueues, timers) kept off
 *   managed_irq  isolcpus=managed_irq,...: managed (multi-queue) IRQs kept off where the queue allows
 *   nohz_full    tickless while one task runs (taken by the kernel: sysfs nohz_full)
 *   rcu_nocbs    RCU callbacks offloaded (rcu_nocbs=, or implied by nohz_full=)
 *   irqaffinity  left out of irqaffinity= (the default IRQ affinity): new IRQs do not land there */
enum {
	JL_BOOT_F_DOMAIN = 1u << 0,
	JL_BOOT_F_ISOL_NOHZ = 1u << 1,
	JL_BOOT_F_MANAGED_IRQ = 1u << 2,
	JL_BOOT_F_NOHZ_FULL = 1u << 3,
	JL_BOOT_F_RCU_NOCBS = 1u << 4,
	JL_BOOT_F_NO_IRQS = 1u << 5,
};
#define JL_BOOT_NFLAGS 6
extern const char *const jl_boot_flag_names[JL_BOOT_NFLAGS];

#define JL_BOOT_MAX_PROBLEMS 6

struct jl_boot_isolation {
	bool given[JL_BOOT_NPARAMS];       /* on the kernel's command line */
	char arg[JL_BOOT_NPARAMS][256];    /* its value as written ("" when absent or bare) */
	cpu_set_t cpus[JL_BOOT_NPARAMS];   /* the CPUs it names (irqaffinity: the CPUs IRQs default to) */
	bool domain, nohz, managed_irq;    /* isolcpus= flags (domain also when none is given) */
	bool sysfs_isolated_ok;            /* /sys/devices/system/cpu/isolated was read */
	cpu_set_t sysfs_isolated;
	bool sysfs_nohz_full_ok;           /* /sys/devices/system/cpu/nohz_full exists (CONFIG_NO_HZ_FULL) */
	cpu_set_t sysfs_nohz_full;
	cpu_set_t isolated;                /* isolated at boot: isolcpus domain CPUs the kernel took */
	cpu_set_t nohz_full;               /* tickless CPUs the kernel took */
	int ncpus;                         /* possible CPUs (for "all", "N" and irqaffinity's complement) */
	int nproblems;                     /* what the kernel ignored or refused, as sentences */
	char problems[JL_BOOT_MAX_PROBLEMS][200];
};

/* Parse CMDLINE (/proc/cmdline text) with the sysfs files' text ISOLATED and NOHZ_FULL (NULL: the file is
 * absent; nohz_full's "(null)" means none) for a machine of NCPUS possible CPUs. Cpu lists take the
 * kernel's forms (0-3,8, all, N for the last CPU, 0-7:1/4 groups). Always fills B; returns 0. */
int jl_boot_isolation_parse(const char *cmdline, const char *isolated, const char *nohz_full, int ncpus,
			    struct jl_boot_isolation *b);
/* The same from /proc/cmdline, /sys/devices/system/cpu/{isolated,nohz_full,possible}. 0, or -1 with errno
 * when /proc/cmdline cannot be read (B then says nothing is isolated). */
int jl_boot_isolation_read(struct jl_boot_isolation *b);

/* The JL_BOOT_F_* flags CPU has. */
unsigned jl_boot_isolation_cpu(const struct jl_boot_isolation *b, int cpu);
/* FLAGS as words ("isolcpus managed_irq nohz_full rcu_nocbs irqaffinity"; "none"). Returns BUF. */
char *jl_boot_isolation_flags_text(unsigned flags, char *buf, size_t len);
/* Per CPU of CPUS, grouped where the flags are equal: "2-3: isolcpus nohz_full rcu_nocbs; 0-1: none".
 * Returns BUF. */
char *jl_boot_isolation_cpus_text(const struct jl_boot_isolation *b, const cpu_set_t *cpus, char *buf, size_t len);

/* For the shield: is every CPU of CPUS isolated at boot (JL_BOOT_F_DOMAIN, confirmed by sysfs where it can
 * be read)? Then `isolate = CPUS` is a no-op, reported as JL_BOOT_ISOLATED_NOTE. False for an empty CPUS.
 * MISSING (may be NULL) gets the CPUs of CPUS that are not. */
bool jl_boot_isolation_covers(const struct jl_boot_isolation *b, const cpu_set_t *cpus, cpu_set_t *missing);
#define JL_BOOT_ISOLATED_NOTE "isolated at boot"

/* summary.json host.boot_isolation: {"isolcpus": "2-3"|null, "isolcpus_flags": ["domain","managed_irq"],
 * "managed_irq": bool, "nohz_full": LIST|null, "rcu_nocbs": LIST|null, "irqaffinity": LIST|null (each as
 * the command line gives it), "isolated": the CPUs isolated at boot, "cpus": {"N": [flag, ...]} for each
 * CPU of ONLINE with a flag, "problems": [...] only when there are}. */
json_object *jl_boot_isolation_json(const struct jl_boot_isolation *b, const cpu_set_t *online);

#endif
