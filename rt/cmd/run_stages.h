/* run_stages: one run's stages, in rtla's run_tool() shape: prepare the machine, start tracing, start the
 * threads, wait (signals and the watchdog), stop, analyse, restore, write, evaluate. Every exit path
 * after the machine was touched goes through the restore. */
#ifndef JL_RUN_STAGES_H
#define JL_RUN_STAGES_H

#include <stdbool.h>

#include "../scenario/scenario.h"

struct jl_run_opts {
	const char *out_root;
	bool no_trace;
	bool unsafe;
	bool quiet;
	bool json;
};

/* Run SC (already parsed, overridden and checked). Returns the process exit status. */
int jl_run_execute(struct jl_scenario *sc, const struct jl_run_opts *o);

#endif
