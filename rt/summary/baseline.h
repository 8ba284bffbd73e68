/* baseline: "did this change make the loop worse?" Sets of runs (a run directory, a sweep's, a kept
 * baseline's) read into one document; a baseline built from them; two compared per condition, series and
 * metric by Welch over runs (with the rank test beside it) into verdicts, [gate] results and the host
 * differences that make a comparison doubtful; the comparison's table; and the budget document (budget.md).
 * Reads files (summary.json, sweep.json, baseline.json); writes none (rt/cmd/compare.c does). The format of
 * baseline.json and compare.json: docs/outputs.md. */
#ifndef JL_BASELINE_H
#define JL_BASELINE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "../scenario/scenario.h"

#define JL_BASELINE_FORMAT 1
/* A verdict (regressed, improved, changed) needs this many runs on each side: one run's cycles are
 * autocorrelated and runs differ from one another by 15-32%, so fewer runs give the effect, never a test. */
#define JL_COMPARE_MIN_RUNS 3

/* The runs at PATH (a run directory: summary.json; a sweep's: sweep.json and its runs' summary.json; a
 * baseline's: baseline.json) as one document of the baseline's form: kind, scenario, scenario_ini (the
 * path of a scenario.ini as run, or null), host (the first run's fingerprint) and conditions[] (label,
 * runs[] with dir, started, duration_ns, exit_status, host; series{NAME: {METRIC: [one value per run, or
 * null]}}; budget[]). NULL with ERR naming the file and what is wrong. */
json_object *jl_runset_read(const char *path, char *err, size_t errlen);

/* The runs of every document of SETS[0..N) in one (a baseline's content: conditions with the same label
 * merged, in order), named NAME, created CREATED. NULL with ERR when they are of different scenarios. */
json_object *jl_baseline_build(json_object *const *sets, int n, const char *name, const char *created, char *err,
			       size_t errlen);

/* NEW against BASE: per matched condition (same label; or the only one of each side) every series and
 * metric both have, with the change, its 95% CI, Welch's p, the rank test's p and a verdict; the host
 * fingerprints' differences; the gates GATES[0..NGATES) judged (one result per matched condition);
 * both sides' budgets. *GATES_FAILED: the gates that failed or could not be judged (fewer than
 * JL_COMPARE_MIN_RUNS runs a side). NULL with ERR (exit 2: another scenario, no condition in common, a
 * gate's metric missing on a side). */
json_object *jl_compare_build(json_object *base, json_object *new, const char *base_path, const char *new_path,
			      const struct jl_gate *gates, int ngates, int *gates_failed, char *err, size_t errlen);

/* Before a sweep judged by BASE starts: BASE is of SCENARIO, pairs with the sweep's condition LABELS[0..N),
 * and has every gate's metric. 0, or -1 with ERR. */
int jl_compare_precheck(json_object *base, const char *base_path, const char *scenario, const char *const *labels,
			int nlabels, const struct jl_gate *gates, int ngates, char *err, size_t errlen);

/* The comparison's table (MARKDOWN: compare.md). ALL: every metric, else the headline ones, the changed
 * ones and the gated ones. */
void jl_compare_print(FILE *out, json_object *cmp, bool markdown, bool all);

/* The budget document of a set of runs (jl_runset_read's form) with a [budget]: per condition and stage
 * the target, the measured p99 and max (a mean with its 95% CI over runs where there are several), the
 * margin left, the conditions (host, load, duration) and the run directories. Writes nothing and returns
 * false when no condition has a budget. */
bool jl_budget_markdown(FILE *out, json_object *runset);

#endif
