/* live: the analysis fed while the run goes, from the pages the reader has drained (live.c). Its state
 * for jl_trace_finish: it stops the thread (jl_trace_live_stop), takes the analysis, gives it the entries'
 * final samples, and feeds the rest. */
#ifndef JL_TRACE_LIVE_H
#define JL_TRACE_LIVE_H

#include <json-c/json.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "capture.h"
#include "read.h"

struct jl_trace_live;
void jl_trace_live_stop(struct jl_trace *t);
struct jl_analysis *jl_trace_live_analysis(struct jl_trace *t);
struct jl_trace_stream *jl_trace_live_stream(struct jl_trace *t);
/* The pages it reads (its tep; the sizes it reads up to: set them to the final ones before the last feed). */
struct jl_trace_pages *jl_trace_live_pages(struct jl_trace *t);
void jl_trace_live_free(struct jl_trace *t);
/* summary.json trace.live: what it fed while the run went; after it, FEED_S to feed the rest (the
 * analysis' part) and POST_S in all (with trace.dat written and the KernelShark session's rows counted). */
void jl_trace_live_describe(const struct jl_trace *t, json_object *block, double feed_s, double post_s,
			    uint64_t post_events);

#endif
