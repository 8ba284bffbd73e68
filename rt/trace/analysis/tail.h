/* tail: what a loop's latency tail is made of, from every cycle, in flat memory (tail.c).
 *
 * Each measured cycle of a loop is explained part by part as a worst cycle is (window.c's
 * jl_analysis_decompose_loop_wait; a missed deadline its whole response too), and its parts' times are
 * added, by cause, to the bucket of its latency: by the live analysis' matcher as it pairs the cycle
 * (prune.c, while the CPU timelines around it are held), or after the run from the whole analysis'
 * samples (jl_tail_of_samples). The buckets: 8 per power of two above 1 us (each at most 1/8 of its lower
 * bound wide), one below; missed cycles have buckets of their own as well. At the end (jl_tail_result):
 * - the threshold is the top of the bucket holding the p99 rank (nearest rank): at or above the exact p99,
 *   at most 12.5% over it; or of the bucket holding a threshold given ([run] tail). The tail is every cycle
 *   above the threshold and every missed deadline;
 * - a typical cycle's time per cause is the mean over the buckets holding the p40 to p60 ranks, and p50
 *   the mean latency of the bucket holding its rank (within 1/8 of the exact one);
 * - each tail bucket's excess over p50 (its tail cycles' latency less p50 each, when more) goes to the
 *   causes that took more than typical there, in proportion to how much more; when none did, to
 *   "unexplained", as is the latency no part explains;
 * - the misses' responses (release to end) are added up by cause, apart: what a missed cycle's time went
 *   to, its own work included.
 * Each cause: its share of the excess (or of the misses' responses), and the cycles in which it was the
 * largest part. Memory: a few hundred KB per loop, whatever the duration. */
#ifndef JL_TRACE_TAIL_H
#define JL_TRACE_TAIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

#define JL_TAIL_CAUSES 32                             /* two of them: "unexplained" and "others" */
_Static_assert(JL_TAIL_CAUSES <= 64, "tail.c marks the causes a cycle uses in a 64-bit mask");
#define JL_TAIL_SUB 8                                 /* buckets per power of two */
#define JL_TAIL_BUCKETS (1 + (36 - 10) * JL_TAIL_SUB) /* [0, 1024 ns), then up to 2^36 ns (69 s) and over */

struct jl_tail_acc;

/* An accumulator (NULL: out of memory) of a tail above p99 (THRESHOLD_NS 0) or above THRESHOLD_NS, and its end */
struct jl_tail_acc *jl_tail_new(int64_t threshold_ns);
void jl_tail_free(struct jl_tail_acc *a);
/* Measured cycle S of loop entry TI, woken by P (NULL: no wakeup matched it), PREV_END the loop's previous
 * cycle's end (0: unknown). AN NULL: no trace, each cycle one part (a test's way to check the arithmetic). */
void jl_tail_add(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
		 const struct jl_pair *p, int64_t prev_end);
/* Every cycle of entry TI of a whole analysis released at or after FROM (its samples and their pairs,
 * jl_analysis_match) into A: the tail of a run analysed after it. False when the entry has no samples, only a
 * ring's kept ones, or is not a loop. */
bool jl_tail_of_samples(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, int64_t from);

/* The bucket of V, and the lowest and highest value it holds */
int jl_tail_bucket(int64_t v);
int64_t jl_tail_bucket_low(int b);
int64_t jl_tail_bucket_high(int b);

struct jl_tail_cause {
	char name[96];      /* "waited behind hog.0 (CFS nice 0)", "irq 36 virtio1", "timer interrupt late" */
	const char *kind;   /* the part kind's name (parts.c), or "unexplained", "others" */
	double ns;          /* its part of the excess over p50 (the misses' table: of their responses) */
	uint64_t largest;   /* cycles in which it was the largest part */
};

struct jl_tail_table {
	double total_ns;              /* the tail's excess over p50; the misses' response, release to end */
	int ncauses;
	struct jl_tail_cause c[JL_TAIL_CAUSES]; /* largest first */
};

struct jl_tail {
	bool computed;
	char why[160];
	int64_t p50, threshold;       /* p50: its bucket's mean; threshold: the p99 bucket's top (or [run] tail's) */
	bool fixed;                   /* the threshold is [run] tail's, not p99 */
	uint64_t measured, cycles, above, misses, typical;
	struct jl_tail_table excess, response;
};

/* What A holds, as the tail (out->computed false with why when it holds no cycle). */
void jl_tail_result(const struct jl_tail_acc *a, struct jl_tail *out);
/* summary.json trace.tail.SERIES */
json_object *jl_tail_json(const struct jl_tail *t);
/* One line for report.md ("" when there is no tail); snprintf's return. */
int jl_tail_format(const struct jl_tail *t, const char *name, char *buf, size_t len);

#endif
