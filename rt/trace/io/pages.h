/* pages: a run's recorded pages read like trace.dat (pages.c): per CPU the raw ring-buffer pages, parsed
 * by kbuffer, merged across CPUs by timestamp; the stream the live analysis reads as they grow. */
#ifndef JL_TRACE_PAGES_H
#define JL_TRACE_PAGES_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"
#include "read.h"

struct jl_pcpu;
struct jl_pages_iter {
	const struct jl_trace_pages *src;
	struct jl_pcpu *p;
	bool failed;
};

int jl_pages_iter_init(struct jl_pages_iter *it, const struct jl_trace_pages *src);
void jl_pages_iter_free(struct jl_pages_iter *it);
/* FN over the records of the pages SRC->cpu_bytes says are there, in time order (the lower CPU first on a
 * tie, as tracecmd_iterate_events), up to the first at or after LIMIT. The caller vouches that a CPU with
 * nothing more yet will have nothing before LIMIT (INT64_MAX: the files are complete). 0, or -1 (a read
 * error, or FN's). */
int jl_pages_iter_run(struct jl_pages_iter *it, int64_t limit, jl_record_fn fn, void *data);
/* FN over every record of SRC in time order. 0, or -1. */
int jl_pages_iterate(const struct jl_trace_pages *src, jl_record_fn fn, void *data);

#endif
