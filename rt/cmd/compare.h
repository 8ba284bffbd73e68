/* compare: the baseline and compare commands' shared parts, for sweep --baseline and the run's budget.md. */
#ifndef JL_COMPARE_H
#define JL_COMPARE_H

#include <stdbool.h>

/* Compare NEW_PATH against BASE (a directory, or a baseline's name under ./baselines) with NEW's scenario's
 * gates and EXTRA[0..NEXTRA) (--gate lines); print the table (unless QUIET_TABLE), or compare.json with JSON;
 * with OUT_DIR write compare.json and compare.md there. The exit status: 0, 2 (bad input: nothing written),
 * 3 (a gate failed or could not be judged), 1 (a write failed). */
int jl_compare_run(const char *base, const char *new_path, const char *out_dir, const char *const *extra, int nextra,
		   bool json, bool all, bool quiet_table);

/* Write DIR/budget.md (a run's or a sweep's directory) when its runs have a [budget]. 0, or -1. */
int jl_budget_write(const char *dir);

#endif
