/* cmd_list: print the registries (work kinds, policies, trace groups, metrics, cpu-list names) one line
 * each. */
#include <stdio.h>
#include <string.h>

#include "../affinity/topology.h"
#include "commands.h"
#include "metrics.h"
#include "scenario.h"
#include "trace.h"
#include "work.h"

int cmd_list(int argc, char **argv)
{
	static const char *const arg_text[] = { [JL_ARG_NONE] = "", [JL_ARG_DURATION] = " DURATION",
						[JL_ARG_COUNT] = " N", [JL_ARG_SIZE] = " SIZE" };
	static const struct {
		enum jl_policy p;
		const char *help;
	} policies[] = {
		{ JL_POLICY_FIFO, "SCHED_FIFO, priority 1-98: runs until it blocks or a higher priority wakes" },
		{ JL_POLICY_RR, "SCHED_RR, priority 1-98: like fifo, with a time slice among equal priorities" },
		{ JL_POLICY_OTHER, "SCHED_OTHER (CFS/EEVDF), nice -20..19: shares the CPU fairly" },
		{ JL_POLICY_BATCH, "SCHED_BATCH, nice -20..19: CFS, treated as CPU-bound (fewer preemptions)" },
		{ JL_POLICY_IDLE, "SCHED_IDLE: runs only when nothing else wants the CPU" },
		{ JL_POLICY_DEADLINE, "SCHED_DEADLINE: runtime/deadline/period reservation (EDF), above fifo" },
	};

	(void)argc, (void)argv;
	printf("work kinds (thread key `work`):\n");
	for (int i = 0; i < JL_WORK_NKINDS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s", jl_work_registry[i].name, arg_text[jl_work_registry[i].arg]);
		printf("  %-18s %s\n", name, jl_work_registry[i].help);
	}
	printf("\npolicies (thread key `policy`):\n");
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		printf("  %-18s %s\n", jl_policy_name(policies[i].p), policies[i].help);
	printf("\ntrace groups ([run] trace):\n");
	for (int i = 0; i < jl_trace_ngroups; i++) {
		const char *sys = "";

		printf("  %-18s %s\n  %-18s events:", jl_trace_groups[i].name, jl_trace_groups[i].help, "");
		for (const struct jl_trace_event *e = jl_trace_groups[i].events; e->name; e++) {
			printf(" %s%s%s%s", strcmp(sys, e->system) ? e->system : "", strcmp(sys, e->system) ? ":" : "",
			       e->name, e->flags & JL_TRACE_EV_REQUIRED ? "*" : "");
			sys = e->system;
		}
		printf("\n");
	}
	printf("  (* required; the others are skipped where the kernel lacks them)\n");
	printf("\nmetrics ([expect] THREAD.METRIC OP VALUE):\n");
	for (int i = 0; i < jl_nmetrics; i++)
		printf("  %-18s %s\n", jl_metrics[i].name, jl_metrics[i].help);
	printf("\ncpu-list names (keys `cpus`, [run] `isolate`; combine with numbers: pcores,20-23):\n");
	for (int i = 0; i < jl_ncpu_names; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s", jl_cpu_names[i].name, jl_cpu_names[i].arg);
		printf("  %-18s %s\n", name, jl_cpu_names[i].help);
	}
	return 0;
}

const struct jl_cli *const jl_cli_all[] = { &jl_cli_run, &jl_cli_sweep, &jl_cli_cyclictest, &jl_cli_analyze,
					    &jl_cli_report, &jl_cli_doctor, &jl_cli_restore };
const int jl_cli_nall = (int)(sizeof(jl_cli_all) / sizeof(jl_cli_all[0]));
