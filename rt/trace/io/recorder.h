/* recorder: the flight recorder of `trace_keep = worst` (recorder.c). The last JL_KEEP_LAST_BYTES of
 * each CPU, and the pages around the windows the collector asks for (jl_trace_recorder_cycle); the first
 * JL_KEEP_FIRST_MISSES misses of each loop. */
#ifndef JL_TRACE_RECORDER_H
#define JL_TRACE_RECORDER_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "capture.h"

#define JL_KEEP_LAST_BYTES (8ull << 20)
#define JL_KEEP_FIRST_MISSES 100
#define JL_KEEP_MARKED 5 /* each loop's worst so far get a marker in the file (the cycles the summary explains) */
struct jl_recorder;
int jl_recorder_init(struct jl_trace *t, char *err, size_t errlen);
void jl_recorder_free(struct jl_recorder *r);
/* The reader's: one page of CPU into the circle (the oldest leaves it, kept or dropped). 0 or -1. */
int jl_recorder_page(struct jl_trace *t, int cpu, const void *page);
/* After the last page: the circle's pages follow the kept ones in each CPU's file. 0 or -1. */
int jl_recorder_finish(struct jl_trace *t);
/* Is the trace whole over [A, B) (a complete window, or the circle)? True without a recorder. */
bool jl_recorder_covered(const struct jl_recorder *r, int64_t a, int64_t b);
/* The gaps it left (each marked as missed events on the page after it). */
size_t jl_recorder_gaps(const struct jl_recorder *r);
/* summary.json trace.kept */
void jl_recorder_describe(const struct jl_recorder *r, json_object *block);

#endif
