/* kshark: the KernelShark session on one wakeup (kshark.c). */
#ifndef JL_TRACE_KSHARK_H
#define JL_TRACE_KSHARK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "read.h"

#include <json-c/json.h>

/* The session on one wakeup. DAT must exist (its mtime is stored); writes PATH atomically. */
struct jl_kshark_view {
	const struct jl_trace_pages *pages; /* the pages DAT holds, to count the rows on (NULL: read DAT) */
	int64_t mark_a, mark_b;      /* timestamps of markers A (waking) and B (switch-in) */
	int64_t from, to;            /* view range */
	int cpu;
	int task_pids[4];
	int ntasks;
	bool rows_known;             /* rows[] already counted (jl_trace_kshark_many: one pass for every session) */
	long rows[2];                /* the markers' rows in KernelShark's merged order */
};
int jl_kshark_write(const char *path, const char *dat, const struct jl_kshark_view *v, char *err, size_t errlen);
/* finish.c: the session on cycle W (markers, range, plots of the loop and its culprit); *HINT gets
 * the command that opens it (malloc'd; HINT may be NULL). */
int jl_trace_kshark_for(const struct jl_analysis *an, const struct jl_cycle *w, const char *dat, const char *session,
			const struct jl_trace_pages *pages, char **hint, char *err, size_t errlen);
/* The sessions on cycles W[0..N), SESSIONS[i] each, the markers' rows counted in one pass over the trace
 * (PAGES, or DAT when NULL). 0, or -1 with ERR. */
int jl_trace_kshark_many(const struct jl_analysis *an, const struct jl_cycle *w, int n, const char *dat,
			 char (*sessions)[4096], const struct jl_trace_pages *pages, char *err, size_t errlen);
/* One session per explained cycle WORST[0..NWORST) of the trace DAT in RUN_DIR (DAT's directory):
 * RUN_DIR/kernelshark/THREAD-CYCLE.json, named in its entry of BLOCK's worst[] (kernelshark; the trace block,
 * in WORST's order). A cycle explained both as a wakeup and as a missed deadline has one, over its response
 * window (the analysis lists the misses last: theirs are written last). Failing, BLOCK says why
 * (kernelshark_error). */
void jl_trace_kshark_cycles(const struct jl_analysis *an, const struct jl_cycle *worst, int nworst, const char *dat,
			    const struct jl_trace_pages *pages, json_object *block);
/* "kernelshark -s ABS(SESSION)", malloc'd; NULL when SESSION cannot be resolved. */
char *jl_trace_kshark_hint(const char *session);
/* A cycle's session in a run directory: "kernelshark/THREAD-CYCLE.json" (THREAD with anything but letters,
 * digits, '.', '_' and '-' as '_'), relative to it. */
void jl_kshark_session_name(const char *thread, uint64_t cycle, char *buf, size_t len);
#define JL_KSHARK_DIR "kernelshark"

#endif
