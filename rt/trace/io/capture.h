/* capture: the run's private tracing instance, its reader thread and its markers (capture.c); what the
 * io files share of it. No function here runs on a measured thread's cycle path. */
#ifndef JL_TRACE_CAPTURE_H
#define JL_TRACE_CAPTURE_H

#include <json-c/json.h>
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../analysis/analysis.h"
#include "syms.h"
#include "trace.h"

#define JL_TRACE_MARK_ID 0x4a4c4d4bu /* "JLMK": id of our trace_marker_raw records */

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
	int64_t t_on;          /* when recording began (CLOCK_MONOTONIC ns; 0: not yet) */
	uint64_t lost_events;  /* overrun + dropped events, all CPUs */
	char clock[512];       /* the instance's trace_clock file, e.g. "local global [mono] ..." */
	char missing[512];     /* optional events the kernel could not enable, "system:name,..." */
	char local_cpus[256];  /* CPUs the LOCAL events are recorded on ("" = all) */
	/* the probe server (probe_server.c) */
	int probe_listen, probe_wake[2];
	pthread_t probe_thread;
	bool probe_started;
	char probe_path[108];
	atomic_uint probe_clients, probe_refused; /* connections served, refused */
	bool probe_have_sudo, probe_served;
	struct jl_probe_rings *rings; /* the probe's rings (probe_ring.c), NULL: markers only */
	int *merged_fd;               /* per CPU: the pages written anew with the rings' records (-1: none) */
	struct jl_trace_advice_in *advice; /* what the advice reads of the run and the host (jl_trace_finish) */
	uid_t probe_sudo_uid;
	struct jl_recorder *rec;   /* the flight recorder (trace_keep = worst; recorder.c), NULL: every page */
	cpu_set_t reader_cpus;      /* where the reader (and the live analysis) run (none set: anywhere) */
	struct jl_trace_live *live; /* the analysis while the run goes (live.c), or NULL */
	struct tep_handle *tep;     /* the event formats: one parser for the run (jl_trace_tep), or NULL */
	struct jl_ksyms ksyms;      /* the kernel's symbols, for timer and irq groups (jl_trace_ksyms) */
	int ksyms_state;            /* 0: not tried, 1: loaded, -1: unreadable or not needed */
	struct jl_analysis_clocks clocks; /* the other clocks against the trace's, at the start (jl_trace_record);
					   * stepped: they moved by its stop (timers on them are not placed) */
};

/* The run's event parser (the formats of its groups' systems), made once, at the start (so that it is in
 * the memory the budget measures as set up): the live analysis, the probes' merge and the finish share it.
 * NULL with ERR when the formats cannot be read. */
struct tep_handle *jl_trace_tep(struct jl_trace *t, char *err, size_t errlen);
/* The kernel's symbols, to name hrtimer and IPI callbacks (timer and irq groups), loaded once at the start
 * like the parser and shared the same way; NULL when the groups need none or /proc/kallsyms is unreadable. */
const struct jl_ksyms *jl_trace_ksyms(struct jl_trace *t);

/* Stop recording, drain every page and read the lost-event counters. */
int jl_trace_stop(struct jl_trace *t, char *err, size_t errlen);
/* groups.c: the distinct tracefs systems the events of GROUPS come from that exist on this kernel,
 * at most MAX, in registry order, into OUT (static strings). Returns how many. */
int jl_trace_systems(unsigned groups, const char **out, int max);
/* summary.json trace.recorded: the events enabled, the optional ones missing, the CPUs of LOCAL events. */
void jl_trace_describe_recording(const struct jl_trace *t, json_object *block);

#endif
