/* run_outputs: the registry of a run directory's files, one row each: its name, when a run writes it,
 * what it holds, how to read it, and who writes it. The run's end writes the rows that have a writer here,
 * in order (jl_run_outputs_write); `jitterlab list` ("run files"), jitterlab(8)'s FILES and the tests
 * (test_outputs.py, through `list`) read the same rows. A new file is one row and its writer. */
#ifndef JL_RUN_OUTPUTS_H
#define JL_RUN_OUTPUTS_H

#include <json-c/json.h>
#include <stdbool.h>

#include "../engine/engine.h"
#include "../engine/results.h"
#include "../trace/io/trace.h"

/* What the writers are given at the run's end. */
struct jl_run_out {
	const char *dir;
	const struct jl_engine *eng;
	const struct jl_series_result *res; /* one per series */
	int nseries;
	json_object *summary;
	const struct jl_trace_result *trace; /* NULL or not enabled: an untraced run */
	enum jl_samples_mode samples;
	bool plots; /* the run makes plots (not --quiet): report.md shows them */
};

struct jl_run_output {
	const char *name;   /* in the run directory; THREAD stands for a thread's name */
	const char *format; /* csv, json, ini, text, markdown, svg, trace.dat, log */
	const char *when;   /* which runs have it */
	const char *help;   /* what it holds */
	const char *writer; /* who writes it (for the rows written elsewhere: where) */
	/* written at the run's end by jl_run_outputs_write: 0 (written, or not this run's), -1 with errno;
	 * NULL: written elsewhere, at the time WRITER says */
	int (*write)(const struct jl_run_out *o);
};
extern const struct jl_run_output jl_run_outputs[];
extern const int jl_nrun_outputs;

/* Every row that has a writer, in order: 0, or -1 (errno) at the first that fails. */
int jl_run_outputs_write(const struct jl_run_out *o);

#endif
