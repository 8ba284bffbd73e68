/* spill: a series of int64 values too many to keep in memory, kept in an anonymous temp file
 * (jl_tmpfile), and their exact order statistics found in bounded memory: a radix selection, one pass
 * over the file per byte of the values (8 passes, 256 counters per value sought), whatever their number.
 * What the nearest-rank percentiles of a long run's cycles need without holding the cycles. Not for a
 * measured thread's cycle path: jl_spill_add writes to the file when its buffer fills. */
#ifndef JL_SPILL_H
#define JL_SPILL_H

#include <stddef.h>
#include <stdint.h>

#include "stats.h"

#define JL_SPILL_BUF 4096 /* values buffered before a write */

struct jl_spill {
	int fd;                     /* -1: not open (or failed: ERR) */
	int err;                    /* the first errno a write or read met (0: none) */
	uint64_t n;                 /* values added */
	size_t nbuf;
	int64_t buf[JL_SPILL_BUF];
};

/* Open S (its file made). 0, or -1 with errno. */
int jl_spill_open(struct jl_spill *s);
/* Add V. 0, or -1 (S->err says why; later adds do nothing). */
int jl_spill_add(struct jl_spill *s, int64_t v);
/* The values of ranks RANKS[0..N) (1-based, in 1..S->n, any order) into OUT[0..N), exactly: the value each
 * would have at that place in the sorted series. 0, or -1 with errno (S->err set). */
int jl_spill_select(struct jl_spill *s, const uint64_t *ranks, int n, int64_t *out);
/* D's percentiles (p50, p90, p99, p999: the nearest-rank rule of stats.h) from S, which holds D->n values;
 * D's other fields are left as they are. 0, or -1 with errno. */
int jl_spill_percentiles(struct jl_spill *s, struct jl_dist *d);
/* Close S (its file gone); safe on a closed one. */
void jl_spill_close(struct jl_spill *s);

#endif
