/* host: what machine a run ran on (summary.json "host"): kernel, preempt model, CPUs, isolation,
 * virtualisation, clocksource, the RT bandwidth knobs (RT runtime/period, RT group scheduling, the fair
 * server), and over the measured phase the steal time and SMI count per CPU. Read-only, except that
 * reading the fair server may mount debugfs for a moment (and unmounts it: only if it mounted it). */
#ifndef JL_HOST_H
#define JL_HOST_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The preempt model as "rt", "full", "voluntary", "none" or "dynamic(full)" etc. */
const char *jl_host_preempt(char *buf, size_t len);
/* True on a virtual machine; WHAT names it (hypervisor type, DMI product) or says how it was seen. */
bool jl_host_virtualized(char *what, size_t len);
/* A new JSON object with the contract's host keys, and rt_bandwidth and fair_server (mounting debugfs for
 * the fair server's files if it is not mounted, unmounting it after). */
json_object *jl_host_describe(void);

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
