/* kshark: the KernelShark session on one wakeup (kshark.c). */
#ifndef JL_TRACE_KSHARK_H
#define JL_TRACE_KSHARK_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "read.h"

/* The session on one wakeup. DAT must exist (its mtime is stored); writes PATH atomically. */
struct jl_kshark_view {
	const struct jl_trace_pages *pages; /* the pages DAT holds, to count the rows on (NULL: read DAT) */
	int64_t mark_a, mark_b;      /* timestamps of markers A (waking) and B (switch-in) */
	int64_t from, to;            /* view range */
	int cpu;
	int task_pids[4];
	int ntasks;
};
int jl_kshark_write(const char *path, const char *dat, const struct jl_kshark_view *v, char *err, size_t errlen);
/* finish.c: the session on cycle W (markers, range, plots of the loop and its culprit); *HINT gets
 * the command that opens it (malloc'd; HINT may be NULL). */
int jl_trace_kshark_for(const struct jl_analysis *an, const struct jl_cycle *w, const char *dat, const char *session,
			const struct jl_trace_pages *pages, char **hint, char *err, size_t errlen);

#endif
