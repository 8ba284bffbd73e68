/* read: a trace.dat (ours, or trace-cmd's v6/v7) or a run's recorded pages into an analysis, merged
 * across CPUs by time: read.c (trace.dat, libtracecmd, the two-thread pipe), pages.c (raw pages and the
 * stream the live analysis reads), decode.c (a record as an event), rows.c (KernelShark's row numbers),
 * discover.c (the real-time tasks of a bare trace). */
#ifndef JL_TRACE_READ_H
#define JL_TRACE_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../analysis/analysis.h"
#include "syms.h"

/* Read a trace.dat (ours, or trace-cmd's v6/v7) into AN (already initialised with the
 * threads to analyse), merging CPUs by time: a plain v6 file's pages directly, anything else through
 * libtracecmd; in two threads where two CPUs are allowed (one reads, the caller's analyses). */
struct jl_trace_readinfo {
	int ncpus;
	size_t records;
	uint64_t lost_events;        /* sum of per-page missed events (where the kernel counted them) */
	size_t lost_gaps;
	/* function addresses the file could not name, named from LIVE (the running kernel's symbols) */
	struct {
		uint64_t addr;
		char name[64];
	} used[JL_TRACE_MAX_USED_SYMS];
	int nused;
};
/* LIVE: the running kernel's symbols when the trace is of this boot (NULL otherwise). */
int jl_trace_read(const char *path, struct jl_analysis *an, const struct jl_ksyms *live, struct jl_trace_readinfo *info,
		  char *err, size_t errlen);
/* jl_trace_read in two steps, for a caller with work of its own before the analysis can begin (analyze
 * reads the run's summary and samples): _start begins reading PATH (in a second thread where a second CPU
 * is allowed, converting ahead; LIVE must stay valid until _finish or _cancel), _finish feeds AN every
 * event as jl_trace_read does, then frees the reading (NULL from _start: out of memory, said by
 * _finish); _cancel frees it without an analysis. The reader thread (jl_housekeeping_thread_start: SCHED_OTHER,
 * the caller's CPUs) inherits the caller's signal mask: a caller that takes signals blocks them first. */
struct jl_trace_reading;
struct jl_trace_reading *jl_trace_read_start(const char *path, const struct jl_ksyms *live);
int jl_trace_read_finish(struct jl_trace_reading *p, struct jl_analysis *an, struct jl_trace_readinfo *info, char *err,
			 size_t errlen);
void jl_trace_read_cancel(struct jl_trace_reading *p);

/* A run's recorded pages, as trace.dat holds them, read without trace.dat: per CPU, the raw ring-buffer
 * pages in CPU_FD from offset 0 (CPU_BYTES of them), parsed by libtraceevent's kbuffer with TEP (this
 * kernel's formats: jl_trace_pages_tep), merged across CPUs by timestamp as tracecmd_iterate_events
 * merges them (the lower CPU first on a tie). One page per CPU in memory, whatever the trace's length
 * (libtracecmd maps each CPU's whole data, so reading trace.dat costs its size in RSS). */
struct jl_trace_pages {
	struct tep_handle *tep;
	int ncpus, page_size;
	const int *cpu_fd;
	const uint64_t *cpu_off;   /* where each CPU's pages start in its fd (NULL: at 0) */
	const uint64_t *cpu_bytes;
};
/* A tep with this kernel's formats of the systems GROUPS records (and ftrace's, for the markers); NULL
 * with ERR. tep_free() it. */
struct tep_handle *jl_trace_pages_tep(unsigned groups, char *err, size_t errlen);
/* jl_trace_read and jl_trace_rows over recorded pages. */
int jl_trace_read_pages(const struct jl_trace_pages *src, struct jl_analysis *an, const struct jl_ksyms *live,
			struct jl_trace_readinfo *info, char *err, size_t errlen);
int jl_trace_rows_pages(const struct jl_trace_pages *src, const int64_t *ts, long *rows, int n, char *err,
			size_t errlen);
/* The recorded pages read as the reader appends them (the live analysis, live.c): SRC's fds, with
 * cpu_bytes pointing at sizes the caller updates. jl_trace_stream_feed feeds AN every record before LIMIT
 * (a CPU with nothing more yet must have nothing more before it; INT64_MAX once the files are complete);
 * it does not end AN (jl_analysis_end). */
struct jl_trace_stream;
struct jl_trace_stream *jl_trace_stream_open(const struct jl_trace_pages *src, struct jl_analysis *an,
					     const struct jl_ksyms *live);
int jl_trace_stream_feed(struct jl_trace_stream *s, int64_t limit);
const struct jl_trace_readinfo *jl_trace_stream_info(const struct jl_trace_stream *s);
void jl_trace_stream_close(struct jl_trace_stream *s);
/* A bare trace: up to MAX real-time tasks (pids and comms) with the most wakeups (>= 2), most first. */
int jl_trace_discover(const char *path, int32_t *pids, char (*names)[JL_EVENT_COMM], int max, int *n, char *err,
		      size_t errlen);
/* Rows in KernelShark's merged order: number of entries with ts < TS[i], for each i. */
int jl_trace_rows(const char *path, const int64_t *ts, long *rows, int n, char *err, size_t errlen);

/* For the other readers (rows.c, discover.c): trace.dat opened (NULL with ERR), and FN over its records in
 * time order (its pages directly when they are plain, else through libtracecmd). 0, or -1. */
struct tracecmd_input;
struct tep_record;
struct tracecmd_input *jl_dat_open(const char *path, char *err, size_t errlen);
int jl_dat_iterate(struct tracecmd_input *h, const char *path,
		   int (*fn)(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data), void *data);

#endif
