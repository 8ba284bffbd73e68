/* tail: what a loop's latency tail is made of, from every cycle, in flat memory (tail.c).
 *
 * The live analysis' matcher (prune.c) pairs every measured cycle with its wakeup while the CPU timelines
 * around it are still held, and hands it here (jl_tail_add): the cycle is explained part by part
 * (jl_analysis_decompose_cycle, as a worst cycle is) and its parts' times are added, by cause, to the
 * bucket of its latency. The buckets: 8 per power of two above 1 us (each at most 1/8 of its lower bound
 * wide), one below. At the end (jl_tail_result), with every cycle counted:
 * - the tail is the cycles ranked above p99 (nearest rank): every bucket above the one holding the p99
 *   rank, and of that bucket the share of its cycles ranked above (its sums in proportion); threshold_ns
 *   is that bucket's top (at most 12.5% above the exact p99);
 * - a typical cycle's time per cause is the mean over the buckets holding the p40 to p60 ranks, and p50
 *   the mean latency of the bucket holding its rank;
 * - each tail bucket's excess over p50 (its cycles' latency less p50 each) goes to the causes that took
 *   more than typical there, in proportion to how much more (none did: "unexplained"); the latency that no
 *   part explains is the cause "unexplained", a cycle with no wakeup (it did not sleep: running late) is
 *   "no wakeup".
 * Each cause: its share of the tail's excess, and the tail cycles in which it was the largest part. Memory:
 * JL_TAIL_BUCKETS x JL_TAIL_CAUSES figures per loop, whatever the duration. */
#ifndef JL_TRACE_TAIL_H
#define JL_TRACE_TAIL_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

#define JL_TAIL_CAUSES 32
#define JL_TAIL_SUB 8                          /* buckets per power of two */
#define JL_TAIL_BUCKETS (1 + (36 - 10) * JL_TAIL_SUB) /* [0, 1024 ns), then up to 2^36 ns (69 s) and over */

struct jl_tail_acc;

/* An accumulator (NULL: out of memory), and its end */
struct jl_tail_acc *jl_tail_new(void);
void jl_tail_free(struct jl_tail_acc *a);
/* Measured cycle [REL, WAKE) of entry TI, woken by PR (NULL: no wakeup matched it) */
void jl_tail_add(struct jl_tail_acc *a, const struct jl_analysis *an, int ti, const struct jl_pair *pr, int64_t rel,
		 int64_t wake);

/* The bucket of V, and the lowest and highest value it holds */
int jl_tail_bucket(int64_t v);
int64_t jl_tail_bucket_low(int b);
int64_t jl_tail_bucket_high(int b);

struct jl_tail_cause {
	char name[96];      /* "waited behind hog.0 (CFS nice 0)", "irq 36 virtio1", "timer: ...", "unexplained" */
	int kind;           /* enum jl_part_kind; -1 unexplained, -2 no wakeup */
	double ns;          /* its part of the tail's excess over p50 */
	uint64_t largest;   /* tail cycles in which it was the largest part */
};

struct jl_tail {
	bool computed;
	char why[160];
	int64_t p50, threshold;       /* p50: its bucket's mean; threshold: the p99 bucket's top */
	uint64_t measured, cycles, typical, no_wakeup;
	double excess_ns;
	int ncauses;
	struct jl_tail_cause c[JL_TAIL_CAUSES];
};

/* What A holds, as the tail (out->computed false with why when it holds no cycle). */
void jl_tail_result(const struct jl_tail_acc *a, struct jl_tail *out);
/* summary.json trace.tail.SERIES */
json_object *jl_tail_json(const struct jl_tail *t);
/* One line for the terminal and report.md ("" when there is no tail); snprintf's return. */
int jl_tail_format(const struct jl_tail *t, const char *name, char *buf, size_t len);

#endif
