/* prune: a long run's analysis in flat memory (prune.c). The feed knows it only through the
 * jl_analysis_prune_ops hooks it sets (analysis.h). */
#ifndef JL_TRACE_PRUNE_H
#define JL_TRACE_PRUNE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

/* Analyse a long run in flat memory. When every measured entry has samples and they are
 * partial (the cycles a ring kept), states, pairs and segments are kept only where a kept cycle needs
 * them: around each kept sample's wakeup (to match it), and around the cycles that can be explained (each
 * entry's JL_ANALYSIS_PRUNE_WORST worst by latency, its JL_ANALYSIS_PRUNE_MISSES longest missed deadlines) from
 * JL_ANALYSIS_PRUNE_BACK_MIN (at least twice the RT budget's shapes) before the release to 2 ms after the end.
 * The rest is counted and forgotten a second of trace time behind the events: the off-CPU totals of
 * [FROM, TO) are stepped before the states go, every wakeup's latency in [FROM, TO) goes to a histogram.
 * Call after jl_analysis_init and the budget, before the first event. 1: pruned; 0: not every measured entry
 * is partial (nothing changes); -1: ENOMEM. */
#define JL_ANALYSIS_PRUNE_WORST 16
#define JL_ANALYSIS_PRUNE_MISSES 16
#define JL_ANALYSIS_PRUNE_BACK_MIN 20000000LL
#define JL_ANALYSIS_PRUNE_LAG_NS 1000000000LL
#define JL_ANALYSIS_RESOLVE_MAX_NS 10000000000LL /* the live matcher resolves a cycle this far back, closed or not */
int jl_analysis_prune(struct jl_analysis *an, int64_t from, int64_t to);
/* A pruned analysis fed while the run goes (io/live.c): the entries' samples come at the end, the
 * windows as the run goes (jl_analysis_prune_add: each before the first event in it is fed). A pair no window
 * keeps waits in its entry's tail (a loop's last cycles are kept, and known
 * only at the end). jl_analysis_prune_settle, once the samples are in: their windows and candidates, the
 * window's end TO, the tail's pairs the windows keep. Same returns as jl_analysis_prune. */
int jl_analysis_prune_live(struct jl_analysis *an, int64_t from);
/* The candidates' whole windows now (replacing the last set): kept while they are candidates, and what
 * only they held goes at the next compaction once they are not. 0 or -1. */
int jl_analysis_prune_candidates(struct jl_analysis *an, const int64_t (*w)[2], size_t n);
/* Entry TI's tail may drop the pairs switched in before T (the release of the oldest of its last kept
 * cycles, less the clock slack): they can be nobody's. Only grows. */
void jl_analysis_prune_tail_from(struct jl_analysis *an, int ti, int64_t t);
/* Append P to T's pairs (growing them). 0 or -1. */
int jl_analysis_append_pair(struct jl_analysis_thread *t, const struct jl_pair *p);
int jl_analysis_prune_add(struct jl_analysis *an, const int64_t (*w)[2], size_t n);
int jl_analysis_prune_settle(struct jl_analysis *an, int64_t to);
/* The window a sample needs: its whole one (a candidate: from BACK before its release to 2 ms after its
 * end), else its wakeup window (where jl_analysis_match looks). */
void jl_analysis_prune_window(const struct jl_analysis_sample *x, bool whole, int64_t back, int64_t w[2]);
/* How far before a release a pruned analysis keeps the trace of a cycle it may explain (the RT budget's
 * shapes look back: twice the larger of the throttled share and the fair server's runtime, plus 10 ms,
 * at least JL_ANALYSIS_PRUNE_BACK_MIN). */
int64_t jl_analysis_prune_lookback_ns(const struct jl_analysis_budget *b);
/* A pruned analysis of a trace that is not whole (the flight recorder): a candidate is explained only if
 * COVERED(CTX, a, b) says the trace is whole over its window. Call after jl_analysis_prune. */
void jl_analysis_prune_cover(struct jl_analysis *an, bool (*covered)(const void *ctx, int64_t a, int64_t b), const void *ctx);
/* A pruned analysis: may sample SI of entry TI be explained (the trace around it is whole)? */
bool jl_analysis_prune_sample_kept(const struct jl_analysis *an, int ti, size_t si);
/* A pruned analysis: does [A, B) overlap a kept window (what is kept of the trace is whole there)? */
bool jl_analysis_prune_window_kept(const struct jl_analysis *an, int64_t a, int64_t b);
/* A pruned analysis, for summarize.c: every wakeup of entry TI in [from, to), as a distribution (its
 * percentiles within the histogram's bound); false when TI is not pruned. */
struct jl_dist;
bool jl_analysis_prune_wakeups(const struct jl_analysis *an, int ti, struct jl_dist *d, size_t *n);
/* A pruned analysis, for jl_analysis_offcpu: the off-CPU totals of entry TI stepped so far into O and the
 * first state not stepped into *FIRST, when [FROM, TO) is the pruned window; else false. */
struct jl_offcpu;
bool jl_analysis_prune_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to, struct jl_offcpu *o,
			 size_t *first);
/* A live analysis (jl_analysis_prune_live) that will be given every measured cycle as it comes
 * (jl_analysis_prune_cycles, in release order per entry, each before the events after its wake are fed)
 * matches each to its wakeup as the whole analysis would, in flat memory: the counts and the matched
 * wakeups' latencies (every one to a file too when SPILL: exact percentiles) are then every cycle's,
 * not only the kept ones'; TAIL_NS >= 0: each cycle explained as it is resolved, for the tail above p99 (0)
 * or above TAIL_NS (tail.c). 1: matching; 0: not this analysis (not live, or series sharing a thread);
 * -1: ENOMEM. */
int jl_analysis_prune_match(struct jl_analysis *an, bool spill, int64_t tail_ns);
int jl_analysis_prune_cycles(struct jl_analysis *an, int ti, const struct jl_analysis_sample *c, size_t n);
/* After the last event: entry TI's cycles measured (released at or after from) and matched, and the
 * latencies of the pairs they matched (D, *N); false when the analysis was not matching. */
struct jl_dist;
bool jl_analysis_prune_matched(struct jl_analysis *an, int ti, size_t *measured, size_t *matched, struct jl_dist *d,
			       size_t *n);
/* What a pruned analysis forgot (for the summary): states, pairs, segments. */
void jl_analysis_prune_counts(const struct jl_analysis *an, size_t *states, size_t *pairs, size_t *segs);
/* (Also the prune_ops' compact, pair and free): forget what no kept window needs, once a
 * second of trace time; a pair a pruned analysis keeps (its latency counted either way); the pruner's
 * state freed. */
int jl_analysis_compact(struct jl_analysis *an, int64_t now);
bool jl_analysis_prune_pair(struct jl_analysis *an, int ti, const struct jl_pair *p);
/* A live analysis' matcher explained every cycle of loop TI as it matched it (tail.c): its tail into OUT.
 * False when there was none (an analysis after the run: the tail is not known). */
struct jl_tail;
bool jl_analysis_prune_tail(struct jl_analysis *an, int ti, struct jl_tail *out);
void jl_analysis_prune_free(struct jl_analysis *an);

#endif
