/* worst: the cycles an explanation is given for. Samples matched to wakeups, the worst cycles and the
 * missed deadlines picked and decomposed, the wakeup latencies of the pairs (worst.c). */
#ifndef JL_TRACE_WORST_H
#define JL_TRACE_WORST_H

#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* Match every measured thread's samples with release >= FROM to pairs: a sample's pair is the first
 * wakeup at or after its release (less the trace clock's offset to CLOCK_MONOTONIC, JL_ANALYSIS_CLOCK_SLACK_NS)
 * and before its wake. Fills matched counts, pair.matched and thread.sample_pair. 0 or -1 (ENOMEM). */
int jl_analysis_match(struct jl_analysis *an, int64_t from);

#define JL_ANALYSIS_CLOCK_SLACK_NS 5000

/* The worst cycles, decomposed, worst first, into OUT[0..*nout): the N worst matched cycles across all
 * threads by wakeup latency (without samples: by the wakeup latency of pairs with waking >= FROM), each
 * measured thread's worst among them, then the missed deadlines (response window) with the longest
 * responses up to N_MISSES more, each measured thread's longest among them.
 * *MISSES gets how many cycles missed in all (so a caller can say the list was capped). Calls
 * jl_analysis_match. */
int jl_analysis_worst(struct jl_analysis *an, int64_t from, struct jl_cycle *out, int n, int n_misses, int *nout,
		 size_t *misses);

/* Cycle CYCLE of thread TI decomposed into OUT as the run would explain it: over its response window when it
 * missed its deadline, else over its wakeup (a bare trace's thread: its CYCLE-th wakeup). Call after
 * jl_analysis_match (jl_analysis_worst does). 0, or why not: */
enum { JL_CYCLE_NONE = 1,     /* the thread has no such cycle (or is not a measured loop) */
       JL_CYCLE_NOT_KEPT,     /* a pruned analysis kept no whole window of it (a long run's) */
       JL_CYCLE_UNMATCHED };  /* no traced wakeup matched its release */
int jl_analysis_cycle(const struct jl_analysis *an, int ti, uint64_t cycle, struct jl_cycle *out);

/* Wakeup latencies (switch_in - waking) of thread TI's pairs with waking >= FROM, unsorted, malloc'd:
 * for a thread with samples only the pairs matched to a release (jl_analysis_match first), never the
 * wakeups of sleep slices or of sleeps inside its work. */
int64_t *jl_analysis_wakeups(const struct jl_analysis *an, int ti, int64_t from, size_t *n);

#endif
