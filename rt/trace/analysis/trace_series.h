/* trace_series: what the analysis is given of the run and what it gives back to the engine. The engine's
 * series as the analysis' entries (run_series.c), and the series only the trace can give: the probed
 * threads of `measure = probe` units (probe_series.c), the threads `measure = wakeups` units select and
 * their wakeups (wakeups.c). */
#ifndef JL_TRACE_SERIES_H
#define JL_TRACE_SERIES_H

#include <stdbool.h>
#include <stddef.h>

#include "../../engine/engine.h"
#include "analysis.h"

/* This machine's IRQ names (/proc/irq) into AN: a threaded handler's task name is cut at
 * 15 characters, the explanation names its IRQ in full. */
void jl_trace_irq_names(struct jl_analysis *an);
/* The engine's series as the analysis' entries, their samples into *SAMPLES (freed by
 * the caller); PARTIAL: every entry a ring's kept cycles. SAMPLES NULL: the entries alone, no sample read
 * (the live analysis' start, while the loops still append). */
struct jl_analysis_thread *jl_trace_engine_series(const struct jl_engine *eng, struct jl_analysis_sample **samples, int *count,
					     bool partial);

/* The series of the probed threads of `measure = probe` units, from the probe records and
 * births AN collected (a pass over trace.dat); added to ENG after the run. 0, or -1 with ERR. */
int jl_trace_probe_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);

/* The series of the threads `measure = wakeups` units select (from AN's births and comms, a first pass),
 * then, after the analysis' pass, their samples (the wakeups of entry i = series i). */
int jl_trace_wakeup_series(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);
int jl_trace_wakeup_fill(struct jl_engine *eng, const struct jl_analysis *an, char *err, size_t errlen);

#endif
