/* host: what machine a run ran on (summary.json "host"): kernel, preempt model with its evidence
 * (preempt_detail), CPUs, isolation (boot_isolation), virtualisation, clocksource, the RT bandwidth knobs
 * (RT runtime/period, RT group scheduling, the fair server), and over the measured phase the steal time and
 * SMI count per CPU. Read-only, except that reading the fair server and the preempt mode may mount debugfs
 * (and securityfs, for the lockdown mode) for a moment, and unmount them: only what it mounted itself. */
#ifndef JL_HOST_H
#define JL_HOST_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The preemption model and the evidence for it. host.preempt (the contract's string) is MODEL: "none",
 * "voluntary", "full", "lazy" (a static kernel), "dynamic(MODE)" (PREEMPT_DYNAMIC: MODE none, voluntary,
 * full, lazy or unknown), "rt" or "rt+MODE" (PREEMPT_RT; since 6.12 it runs in full or lazy mode, both
 * said), "voluntary|none" when nothing but uname says a little. The live mode (debugfs sched/preempt)
 * wins over the command line's preempt=, which wins over the config's boot default. */
struct jl_preempt_input {
	const char *uname_version; /* uname(2) version ("#1 SMP PREEMPT_DYNAMIC ..."), or NULL */
	const char *config;        /* kernel config text (.config format), or NULL */
	const char *cmdline;       /* /proc/cmdline, or NULL */
	const char *debugfs;       /* the line of debugfs sched/preempt ("none (voluntary) full lazy"), or NULL */
	int realtime;              /* /sys/kernel/realtime: 1, 0, or -1 when absent */
};
struct jl_preempt {
	char model[40];        /* host.preempt */
	bool rt, dynamic;      /* PREEMPT_RT; PREEMPT_DYNAMIC */
	char mode[16];         /* none|voluntary|full|lazy, "" when unknown (and for a pre-6.12 RT kernel) */
	char from[64];         /* what said the mode: "debugfs sched/preempt", "cmdline preempt=", ... */
	char choice[16];       /* the config's preemption model (boot default), "" unknown */
	int lazy_arch;         /* CONFIG_ARCH_HAS_PREEMPT_LAZY: 1, 0, -1 unknown */
	int config_rt;         /* CONFIG_PREEMPT_RT: 1, 0, -1 unknown (no config) */
	int config_dynamic;    /* CONFIG_PREEMPT_DYNAMIC: 1, 0, -1 unknown */
	bool cmdline_given;    /* preempt= on the command line */
	char cmdline[32];      /* its value */
	char note[160];        /* e.g. a preempt= value the kernel ignores */
	/* filled by jl_host_preempt_read, not by the resolver: */
	int realtime;                /* /sys/kernel/realtime */
	char uname_flags[48];        /* PREEMPT words of uname -v */
	char config_from[96];        /* the config file read, "" when none could be */
	char debugfs[64];            /* the sched/preempt line, "" when unread */
	char debugfs_why[240];       /* why unread */
	char lockdown[24];           /* kernel lockdown mode when debugfs refused, "" unknown */
	char lockdown_from[64];      /* where that was read */
};
/* Pure: resolve IN into OUT (model, rt, dynamic, mode, from, choice, lazy_arch, cmdline, note). */
void jl_host_preempt_resolve(const struct jl_preempt_input *in, struct jl_preempt *out);
/* Pure: the mode in parentheses of a debugfs sched/preempt LINE ("none (voluntary) full lazy" ->
 * "voluntary"). 0, or -1 when none is marked. */
int jl_host_preempt_debugfs_mode(const char *line, char *mode, size_t len);
/* Pure: the bracketed mode of a /sys/kernel/security/lockdown LINE ("none [integrity] confidentiality" ->
 * "integrity"). 0, or -1. */
int jl_host_lockdown_parse(const char *line, char *mode, size_t len);
/* Pure: the lockdown the kernel was booted into from its CONFIG (LOCK_DOWN_KERNEL_FORCE_*) and CMDLINE
 * (lockdown=), the higher of the two: "none", "integrity", "confidentiality", or NULL when neither says.
 * The running mode may only be higher (it can be raised, never lowered). */
const char *jl_host_lockdown_boot(const char *config, const char *cmdline);
/* Pure: why a debugfs file gave ERR (EPERM) given LOCKDOWN ("" unknown) read from FROM. */
void jl_host_debugfs_why(int err, const char *lockdown, const char *from, char *buf, size_t len);
/* Read the evidence (/sys/kernel/realtime, uname -v, the kernel config, /proc/cmdline, debugfs
 * sched/preempt, and on EPERM the lockdown mode) and resolve it into P. MAY_MOUNT: mount debugfs (and
 * securityfs, for the lockdown file) when they are not mounted, and unmount what was mounted; without it,
 * only what is mounted is read. Returns P->model. */
const char *jl_host_preempt_read(struct jl_preempt *p, bool may_mount);
/* summary.json host.preempt_detail for P. */
json_object *jl_host_preempt_json(const struct jl_preempt *p);
/* True on a virtual machine; WHAT names it (hypervisor type, DMI product) or says how it was seen. */
bool jl_host_virtualized(char *what, size_t len);

/* The hypervisor's CPUID signature (leaf 0x40000000: "KVMKVMKVM", "TCGTCGTCGTCG", "Microsoft Hv", ...)
 * into SIG; false (SIG "") when the CPU reports no hypervisor or is not x86. */
bool jl_host_hypervisor(char *sig, size_t len);

/* qemu's TCG: an emulated CPU, whose timings are the emulator's, never the kernel's. */
bool jl_host_emulated(void);
/* The CPU's model name (/proc/cpuinfo's first "model name"; "" when it has none) in BUF. */
const char *jl_host_cpu_model(char *buf, size_t len);
/* A new JSON object with the contract's host keys, and preempt_detail, boot_isolation, rt_bandwidth and
 * fair_server (mounting debugfs for the preempt mode and the fair server's files if it is not mounted,
 * unmounting it after). */
json_object *jl_host_describe(void);
/* CPU 0's idle states as cpuidle shows them: {"driver", "states": [{"name", "latency_us", "disabled"}]};
 * *DEEPEST (may be NULL) the longest exit latency of an enabled state, its name in DEEP_NAME. */
json_object *jl_host_idle_states(long *deepest, char *deep_name, size_t len);

#define JL_HOST_MAX_CPUS 1024

/* Per-CPU counters read before and after the measured phase. */
struct jl_host_sample {
	int ncpus;                          /* highest CPU seen + 1 */
	bool steal_ok;                      /* /proc/stat was read */
	uint64_t steal[JL_HOST_MAX_CPUS];   /* steal time, USER_HZ ticks */
	bool smi_ok;                        /* MSR_SMI_COUNT was read on every online CPU */
	char smi_why[160];                  /* why not, when !smi_ok */
	uint64_t smi[JL_HOST_MAX_CPUS];
	cpu_set_t smi_cpus;                 /* the CPUs whose count was read */
};
/* Read steal time (/proc/stat) and, on Intel, MSR_SMI_COUNT (0x34, /dev/cpu/N/msr) of each online CPU.
 * Reading an MSR runs on that CPU (an IPI): call it outside the measured phase's cycles, as here, twice. */
void jl_host_sample_take(struct jl_host_sample *s);
/* Add host.steal_ns {"cpu": ns} and host.smi {"cpu": count} (or null and host.smi_note) for the phase
 * BEFORE..AFTER. */
void jl_host_add_phase(json_object *host, const struct jl_host_sample *before, const struct jl_host_sample *after);

/* Parsers (unit-tested). /proc/stat TEXT: steal ticks of each "cpuN" line into STEAL[N] (N < MAX), *NCPUS =
 * highest N + 1. Returns 0, or -1 when no cpuN line has a steal column. */
int jl_host_parse_steal(const char *text, uint64_t *steal, int max, int *ncpus);
/* A kernel config TEXT (.config format): 1 when SYM (e.g. "CONFIG_RT_GROUP_SCHED") is y or m, 0 when "is
 * not set" or =n, -1 when absent. */
int jl_host_kconfig(const char *text, const char *sym);
/* The fair server block: {"readable": true, "cpus": {"0": {"runtime_ns": N, "period_ns": N}, ...}} or
 * {"readable": false, "note": "..."}. MAY_MOUNT: mount debugfs when it is not mounted (and unmount it).
 * *TEXT (may be NULL) gets one line for people ("50 ms / 1 s on CPUs 0-1", "defaults 50 ms / 1 s,
 * unreadable here"). */
json_object *jl_host_fair_server(bool may_mount, char *text, size_t len);

#endif
