/* trace_int: what the tracing module's files share among themselves (never included outside rt/trace/trace_*.c
 * and rt/cmd/analyze.c): the capture state, the trace.dat writer, the libtracecmd reader, the KernelShark
 * session writer and the result builder. No function here runs on a measured thread's cycle path. */
#ifndef JL_TRACE_INT_H
#define JL_TRACE_INT_H

#include <json-c/json.h>
#include <stdatomic.h>
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "trace.h"
#include "trace_events.h"

#define JL_TRACE_MARK_ID 0x4a4c4d4bu /* "JLMK": id of our trace_marker_raw records */
#define JL_TRACE_WORST 5   /* worst cycles by wakeup latency */
#define JL_TRACE_MISSES 10 /* and missed deadlines (response window), at most this many more */

/* The payload of one marker (trace_marker_raw: the u32 id first, then this). */
struct jl_trace_mark_rec {
	uint32_t id;
	int32_t thread;     /* the series' id (jl_series.id): index of the analysis entry */
	uint64_t cycle;
	int64_t latency_ns;
	uint32_t miss;
} __attribute__((packed));


struct jl_trace_cpu {
	struct tracefs_cpu *tcpu;
	int fd;              /* anonymous temp file holding the raw pages read so far */
	uint64_t bytes;      /* written by the reader (atomically: the live analysis reads it) */
	int64_t drained_ns;  /* the reader found the buffer empty after this moment (mono; atomic) */
};

struct jl_trace {
	struct tracefs_instance *inst;
	char name[64];
	unsigned groups;
	int ncpus;
	int page_size;
	int marker_fd;
	struct jl_trace_cpu *cpu;
	void *page;          /* reader scratch page */
	pthread_t reader;
	bool reader_started;
	atomic_bool reader_stop;
	int reader_errno;
	bool stopped;
	uint64_t lost_events;  /* overrun + dropped events, all CPUs */
	char clock[512];       /* the instance's trace_clock file, e.g. "local global [mono] ..." */
	char missing[512];     /* optional events the kernel could not enable, "system:name,..." */
	char local_cpus[256];  /* CPUs the LOCAL events are recorded on ("" = all) */
	/* the probe server (trace_probe.c) */
	int probe_listen, probe_wake[2];
	pthread_t probe_thread;
	bool probe_started;
	char probe_path[108];
	atomic_uint probe_clients, probe_refused; /* connections served, refused */
	bool probe_have_sudo, probe_served;
	struct jl_probe_rings *rings; /* the probe's rings (trace_probe_ring.c), NULL: markers only */
	int *merged_fd;               /* per CPU: the pages written anew with the rings' records (-1: none) */
	struct jl_trace_advice_in *advice; /* what the advice reads of the run and the host (jl_trace_finish) */
	uid_t probe_sudo_uid;
	struct jl_trace_rec *rec;   /* the flight recorder (trace_keep = worst; trace_keep.c), NULL: every page */
	cpu_set_t reader_cpus;      /* where the reader (and the live analysis) run (none set: anywhere) */
	struct jl_trace_live *live; /* the analysis while the run goes (trace_live.c), or NULL */
};

/* trace_live.c: the analysis fed while the run goes, from the pages the reader has drained. Its state for
 * jl_trace_finish: it stops the thread (jl_trace_live_stop), takes the analysis, gives it the entries'
 * final samples, and feeds the rest. */
struct jl_trace_live;
/* trace_series.c: this machine's IRQ names (/proc/irq) into AN: a threaded handler's task name is cut at
 * 15 characters, the explanation names its IRQ in full. */
void jl_trace_irq_names(struct jl_analysis *an);
/* trace_series.c: the engine's series as the analysis' entries, their samples into *SAMPLES (freed by
 * the caller); PARTIAL: every entry a ring's kept cycles. */
struct jl_analysis_thread *jl_trace_engine_series(const struct jl_engine *eng, struct jl_analysis_sample **samples, int *count,
					     bool partial);
void jl_trace_live_stop(struct jl_trace *t);
struct jl_analysis *jl_trace_live_tan(struct jl_trace *t);
struct jl_trace_stream *jl_trace_live_stream(struct jl_trace *t);
/* The pages it reads (its tep; the sizes it reads up to: set them to the final ones before the last feed). */
struct jl_trace_pages *jl_trace_live_pages(struct jl_trace *t);
void jl_trace_live_free(struct jl_trace *t);
/* summary.json trace.live: what it fed while the run went; after it, FEED_S to feed the rest (the
 * analysis' part) and POST_S in all (with trace.dat written and the KernelShark session's rows counted). */
void jl_trace_live_describe(const struct jl_trace *t, json_object *block, double feed_s, double post_s,
			    uint64_t post_events);

/* trace_keep.c: the flight recorder. The last JL_KEEP_LAST_BYTES of each CPU, and the pages around the
 * windows the watch asks for (jl_trace_keep_cycle); the first JL_KEEP_FIRST_MISSES misses of each loop. */
#define JL_KEEP_LAST_BYTES (8ull << 20)
#define JL_KEEP_FIRST_MISSES 100
#define JL_KEEP_MARKED 5 /* each loop's worst so far get a marker in the file (the cycles the summary explains) */
struct jl_trace_rec;
int jl_trace_rec_init(struct jl_trace *t, char *err, size_t errlen);
void jl_trace_rec_free(struct jl_trace_rec *r);
/* The reader's: one page of CPU into the circle (the oldest leaves it, kept or dropped). 0 or -1. */
int jl_trace_rec_page(struct jl_trace *t, int cpu, const void *page);
/* After the last page: the circle's pages follow the kept ones in each CPU's file. 0 or -1. */
int jl_trace_rec_finish(struct jl_trace *t);
/* Is the trace whole over [A, B) (a complete window, or the circle)? True without a recorder. */
bool jl_trace_rec_covered(const struct jl_trace_rec *r, int64_t a, int64_t b);
/* The gaps it left (each marked as missed events on the page after it). */
size_t jl_trace_rec_gaps(const struct jl_trace_rec *r);
/* summary.json trace.kept */
void jl_trace_rec_describe(const struct jl_trace_rec *r, json_object *block);

/* trace_probe.c: the series of the probed threads of `measure = probe` units, from the probe records and
 * births AN collected (a pass over trace.dat); added to ENG after the run. 0, or -1 with ERR. */
int jl_trace_probe_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);

/* trace_wakeups.c: the series of the threads `measure = wakeups` units select (from AN's births and
 * comms, a first pass), then, after the analysis' pass, their samples (the wakeups of entry i = series i);
 * and where a measured entry's time went in [FROM, TO) (jl_analysis_offcpu, with trace_offcpu.c's totals):
 * running, preempted (behind whom), blocked (who ended it), the wait after a wakeup, migrations. */
int jl_trace_wakeup_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);
int jl_trace_wakeup_fill(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);
json_object *jl_analysis_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to);

/* Where a thread's time went in [FROM, TO), state by state (jl_analysis_offcpu is this over all its states;
 * a pruned analysis, trace_prune.c, steps it as the states come and then forgets them). */
#define JL_OFFCPU_WHO 64
struct jl_offcpu_who {
	char name[JL_EVENT_COMM + 32];
	int64_t ns;
	uint64_t count;
};
struct jl_offcpu {
	int64_t from, to, since;
	int state, cpu;              /* the state it is in (enum jl_tstate_what, -1 unknown), where */
	bool done;                   /* a state at or after TO was seen: nothing later counts */
	int64_t run, preempted, blocked, waiting;
	uint64_t migrations;
	struct jl_offcpu_who pre[JL_OFFCPU_WHO], wk[JL_OFFCPU_WHO]; /* preempted behind whom, woken by whom */
	int npre, nwk;
};
void jl_offcpu_init(struct jl_offcpu *o, int64_t from, int64_t to);
/* One state X of thread T (its segments read for the time it was preempted; NULL: the end of the trace). */
void jl_offcpu_step(struct jl_offcpu *o, const struct jl_analysis *an, const struct jl_analysis_thread *t,
		    const struct jl_tstate *x);
json_object *jl_offcpu_json(struct jl_offcpu *o);

/* trace_tmpfile.c: an anonymous 0600 file in /tmp for raw pages (O_TMPFILE, else a named one unlinked at
 * once); -1 with errno. */
int jl_trace_tmpfile(void);
/* trace_capture.c: stop recording, drain every page and read the lost-event counters. */
int jl_trace_stop(struct jl_trace *t, char *err, size_t errlen);
/* trace_groups.c: the distinct tracefs systems the events of GROUPS come from that exist on this kernel,
 * at most MAX, in registry order, into OUT (static strings). Returns how many. */
int jl_trace_systems(unsigned groups, const char **out, int max);
/* summary.json trace.recorded: the events enabled, the optional ones missing, the CPUs of LOCAL events. */
void jl_trace_describe_recording(const struct jl_trace *t, json_object *block);

/* trace_dat.c: write a trace-cmd v6 file, events as the top buffer. */
struct jl_tracedat_src {
	int ncpus;
	int page_size;
	const int *cpu_fd;           /* raw pages of each CPU, from offset 0 */
	const uint64_t *cpu_bytes;
	unsigned groups;             /* systems whose formats are stored (JL_TRACE_* bits) */
	const char *clock;           /* trace_clock text, the current one in brackets */
	const char *extra_cmdlines;  /* "pid comm\n" lines that override saved_cmdlines (may be NULL) */
	const char *kallsyms;        /* "addr t name\n" lines for the kallsyms section (may be NULL) */
};
int jl_tracedat_write(const char *path, const struct jl_tracedat_src *src, char *err, size_t errlen);

struct tep_handle;
/* trace_probe_ring.c: the probe's rings (include/jitterlab/probe.h). */
#define JL_PROBE_RINGS 128      /* threads that can have one; a thread past them writes to the marker */
#define JL_PROBE_RING_CAP 1024  /* records per ring: 1 s of a 500 Hz loop between two drains */
#define JL_PROBE_DRAIN_NS (5 * 1000000LL)
struct jl_probe_rings;
struct jl_probe_rings_stats {
	int rings;              /* threads that got one */
	uint64_t records;       /* records drained and kept */
	uint64_t lost;          /* records a full ring had no room for (the programs' count) */
	uint64_t bad;           /* records not kept: out of order or range, a ring written over, no room in /tmp */
	uint64_t refused;       /* rings asked for and not given (none left, or not a thread of the asker) */
};
/* NRINGS rings of CAP records (a power of 2) for a trace of NCPUS CPUs, in a sealed memfd; NULL with ERR. */
struct jl_probe_rings *jl_probe_rings_new(int ncpus, uint32_t nrings, uint32_t cap, char *err, size_t errlen);
void jl_probe_rings_free(struct jl_probe_rings *R);
/* The memfd to hand over, and its size. */
int jl_probe_rings_fd(const struct jl_probe_rings *R, uint64_t *size);
/* A ring for thread TID of process PID (checked in /proc), the same one when asked again; -1: none. */
int jl_probe_rings_assign(struct jl_probe_rings *R, int32_t pid, int32_t tid);
/* Move what the rings hold into their files (one thread at a time: the probe server's, then the finish). */
void jl_probe_rings_drain(struct jl_probe_rings *R);
void jl_probe_rings_count(const struct jl_probe_rings *R, struct jl_probe_rings_stats *s);
/* Each CPU's pages (FDS, BYTES) that the rings have records of, written anew with them (as raw_data events
 * in time order): FDS and BYTES then name the new files, which OWNED holds too (-1 elsewhere) for the
 * caller to close. 0, or -1 with ERR. */
int jl_probe_rings_merge(struct jl_probe_rings *R, struct tep_handle *tep, int ncpus, int page_size, int *fds,
			 uint64_t *bytes, int *owned, char *err, size_t errlen);
/* For the unit test: N events (TS, DATA, LEN; MISSED: a page starts with that gap before it) as pages. */
int jl_probe_pages_encoder_test(int fd, int page_size, int ts_size, int commit_size, const int64_t *ts,
				const unsigned char *const *data, const int *len, const long long *missed, int n);

/* trace_syms.c: the running kernel's text symbols (sorted), to name hrtimer callbacks of a live trace. */
struct jl_ksyms {
	void *syms;          /* sorted (address, name) pairs */
	size_t n;
	char *blob;          /* /proc/kallsyms as read; names point into it */
};
int jl_ksyms_load(struct jl_ksyms *k);
const char *jl_ksyms_find(const struct jl_ksyms *k, uint64_t addr);
/* The symbol ADDR lies in (the last at or below it; a call site inside a function), its address in *START. */
const char *jl_ksyms_find_near(const struct jl_ksyms *k, uint64_t addr, uint64_t *start);
void jl_ksyms_free(struct jl_ksyms *k);

#define JL_TRACE_MAX_USED_SYMS 256

/* trace_read.c: read a trace.dat (ours, or trace-cmd's v6/v7) into AN (already initialised with the
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
/* The recorded pages read as the reader appends them (the live analysis, trace_live.c): SRC's fds, with
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

/* trace_kshark.c: the session on one wakeup. DAT must exist (its mtime is stored); writes PATH atomically. */
struct jl_kshark_view {
	const struct jl_trace_pages *pages; /* the pages DAT holds, to count the rows on (NULL: read DAT) */
	int64_t mark_a, mark_b;      /* timestamps of markers A (waking) and B (switch-in) */
	int64_t from, to;            /* view range */
	int cpu;
	int task_pids[4];
	int ntasks;
};
int jl_kshark_write(const char *path, const char *dat, const struct jl_kshark_view *v, char *err, size_t errlen);
/* trace_finish.c: the session on cycle W (markers, range, plots of the loop and its culprit); *HINT gets
 * the command that opens it (malloc'd; HINT may be NULL). */
int jl_trace_kshark_for(const struct jl_analysis *an, const struct jl_cycle *w, const char *dat, const char *session,
			const struct jl_trace_pages *pages, char **hint, char *err, size_t errlen);

/* trace_result.c: turn an analysis into summary.json's "trace" block and the worst-cycle text. */
/* What the advice (trace_advice.c) reads of the run and the host. */
struct jl_trace_advice_in {
	bool vm;                     /* host.virtualized */
	bool rt_kernel;              /* host.preempt_detail.rt */
	char preempt_mode[16];       /* host.preempt_detail.mode on PREEMPT_DYNAMIC ("none", "full", ...), else "" */
	int dma_latency_us;          /* host.cpu_dma_latency_us (-1: not held) */
	int irq_steered;             /* [run] irq_affinity = housekeeping: 1 yes, 0 no, -1 unknown */
	char idle_states[160];       /* host.idle_states, enabled ones: "POLL 0 us, C1 2 us, C6 170 us" ("": unknown) */
};
/* The host's facts from summary.json's host block (HOST may be NULL: nothing known). */
void jl_trace_advice_from_host(json_object *host, struct jl_trace_advice_in *a);
/* One line of advice for C (into OUT), from the part that kept it longest and IN; the rule's name, or NULL when no rule
 * applies or the run already follows its remedy (OUT is then ""). */
const char *jl_trace_advice(const struct jl_analysis *an, const struct jl_cycle *c, const struct jl_trace_advice_in *in,
			    char *out, size_t len);

struct jl_trace_summary_in {
	const char *file;            /* "trace.dat" */
	size_t events;
	uint64_t lost_events;
	size_t lost_gaps;
	int64_t from;                /* measured phase start (0 = whole trace) */
	int64_t to;                  /* measured phase end (0 = the trace's end) */
	const char *kshark;          /* "kernelshark.json" or NULL */
	bool pages_dropped;          /* the flight recorder kept some pages only: no off-CPU totals */
	struct jl_trace_advice_in advice;
};
/* RT bandwidth as summary.json's host block describes it (rt_bandwidth, fair_server, kernel) into B;
 * what HOST does not say keeps jl_analysis_init's defaults. HOST may be NULL. */
void jl_trace_budget_from_host(json_object *host, struct jl_analysis_budget *b);

int jl_trace_summarize(struct jl_analysis *an, const struct jl_trace_summary_in *in, json_object **block,
		       char **text, struct jl_cycle *worst, int *nworst);

#endif
