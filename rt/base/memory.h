/* memory: a run's own memory, as the kernel counts it (/proc/self/status: VmRSS, VmHWM), and its budget:
 * what the run is projected to take, part by part, stated when the measured phase begins and set beside the
 * peak it took (summary.json "memory"). The peak is jitterlab's own process with its built-in threads;
 * programs it runs (exec neighbours, probed programs) are counted apart (RUSAGE_CHILDREN). */
#ifndef JL_MEMORY_H
#define JL_MEMORY_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

/* How the trace's analysis holds its state, which decides how it grows */
enum jl_analysis_hold {
	JL_HOLD_NONE,   /* no trace */
	JL_HOLD_RECENT, /* pruned: about a few seconds of events, flat in the duration (live or after the run) */
	JL_HOLD_WHOLE,  /* every event's state, after the run: grows with the events */
};

struct jl_memory_budget {
	bool taken;            /* the projection was made (the measured phase began) */
	int64_t setup;         /* measured: VmRSS when the measured phase began (libraries, the trace's event
				* formats and symbols, rings and arrays: preallocated and prefaulted) */
	int64_t samples;       /* of setup: the series' storage and accumulators */
	enum jl_analysis_hold hold;
	double events_per_s;   /* the trace's event rate over the second before the projection (0: no trace) */
	int64_t events;        /* events the projection counts on: held at once (recent) or in all (whole) */
	int64_t analysis;      /* projected: the analysis' state at its largest, beyond setup */
	int64_t results;       /* projected: the results and files written at the end */
	int64_t total;         /* setup + analysis + results */
	int64_t peak;          /* measured: VmHWM once the analysis and the results are done, before the files
				* are written (-1: unreadable) */
	int64_t children_peak; /* measured: the largest program the run started and reaped (ru_maxrss) */
};

/* The analysis' cost per event it holds, and how long a pruned one holds them (measured: design-notes.md,
 * issue 27): a pruned analysis keeps the last second of trace time and what the live feed has not
 * compacted yet; a whole one every event's state, its pairs and its CPU's segments. */
#define JL_MEMORY_RECENT_BYTES_PER_EVENT 350
#define JL_MEMORY_RECENT_HELD_S 3.0
#define JL_MEMORY_WHOLE_BYTES_PER_EVENT 224
/* what the end takes beyond the analysis: results, decompositions, summary.json and the plots' data */
#define JL_MEMORY_RESULTS_BYTES (8LL << 20)

/* VmRSS or VmHWM of this process in bytes (KEY "VmRSS" or "VmHWM"); -1 when unreadable */
int64_t jl_memory_status(const char *key);
/* The projection (fills analysis, results, total from the rest): HOLD, the events recorded so far SO_FAR,
 * RECENT of them over the last SPAN_NS, REMAINING_NS of run left. */
void jl_memory_project(struct jl_memory_budget *b, enum jl_analysis_hold hold, uint64_t so_far, uint64_t recent,
		       int64_t span_ns, int64_t remaining_ns);
/* The line stated when the measured phase begins (no newline) */
void jl_memory_line(const struct jl_memory_budget *b, char *buf, size_t len);
/* summary.json's "memory" (peak and children_peak read now) */
json_object *jl_memory_json(struct jl_memory_budget *b);

#endif
