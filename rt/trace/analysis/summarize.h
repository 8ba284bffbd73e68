/* summarize: an analysis as summary.json's "trace" block and the worst cycles' text (summarize.c). */
#ifndef JL_TRACE_SUMMARIZE_H
#define JL_TRACE_SUMMARIZE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "advice.h"
#include "analysis.h"

#define JL_TRACE_WORST 5   /* worst cycles by wakeup latency */
#define JL_TRACE_MISSES 10 /* and missed deadlines (response window), at most this many more */

struct jl_trace_summary_in {
	const char *file;            /* "trace.dat" */
	size_t events;
	uint64_t lost_events;
	size_t lost_gaps;
	int64_t from;                /* measured phase start (0 = whole trace) */
	int64_t to;                  /* measured phase end (0 = the trace's end) */
	const char *kshark;          /* "kernelshark.json" or NULL */
	bool pages_dropped;          /* the flight recorder kept some pages only: no off-CPU totals */
	int64_t tail_ns;             /* [run] tail: -1 off, 0 above p99, else above it */
	struct jl_trace_advice_in advice;
};
/* RT bandwidth as summary.json's host block describes it (rt_bandwidth, fair_server, kernel) into B;
 * what HOST does not say keeps jl_analysis_init's defaults. HOST may be NULL. */
void jl_trace_budget_from_host(json_object *host, struct jl_analysis_budget *b);

int jl_trace_summarize(struct jl_analysis *an, const struct jl_trace_summary_in *in, json_object **block,
		       char **text, struct jl_cycle *worst, int *nworst);

#endif
