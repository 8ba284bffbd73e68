/* advice: one line of remedy for a cycle's main cause, from the run's and the host's facts (advice.c). */
#ifndef JL_TRACE_ADVICE_H
#define JL_TRACE_ADVICE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>

#include "analysis.h"

/* What the advice reads of the run and the host. */
struct jl_trace_advice_in {
	bool vm;                     /* host.virtualized */
	bool rt_kernel;              /* host.preempt_detail.rt */
	char preempt_mode[16];       /* host.preempt_detail.mode on PREEMPT_DYNAMIC ("none", "full", ...), else "" */
	int dma_latency_us;          /* host.cpu_dma_latency_us (-1: not held) */
	int irq_steered;             /* [run] irq_affinity = housekeeping: 1 yes, 0 no, -1 unknown */
	char idle_states[160];       /* host.idle_states, enabled ones: "POLL 0 us, C1 2 us, C6 170 us" ("": unknown) */
};
/* The host's facts from summary.json's host block (HOST may be NULL: nothing known). */
void jl_trace_advice_from_host(json_object *host, struct jl_trace_advice_in *a);
/* One line of advice for C (into OUT), from the part that kept it longest and IN; the rule's name, or NULL when no rule
 * applies or the run already follows its remedy (OUT is then ""). */
const char *jl_trace_advice(const struct jl_analysis *an, const struct jl_cycle *c, const struct jl_trace_advice_in *in,
			    char *out, size_t len);

#endif
