/* expect: evaluate a scenario's [expect] lines against the summary document. Pure. */
#ifndef JL_EXPECT_H
#define JL_EXPECT_H

#include <json-c/json.h>

#include "../scenario/scenario.h"

/* The value of METRIC (jl_metrics' name) of series THREAD (a thread, callback, sync, lock or source) in
 * SUMMARY: true with *V, false when it has none (a loop without a measured cycle has no latency). The one
 * lookup of [expect], [gate] and baselines. */
bool jl_metric_value(json_object *summary, const char *thread, const char *metric, double *v);
/* Evaluate every expectation of SC against SUMMARY; return a JSON array (the summary's "expect")
 * of {label, check, thread, value, ok[, error]} and set *FAILED to the number that did not hold. */
json_object *jl_expect_evaluate(const struct jl_scenario *sc, json_object *summary, int *failed);
/* [budget]: per stage its budget, the measured p99 (e2e: origin -> end; stage: ready -> end), the margin and
 * the verdict; FAILED: how many were exceeded (or have no value). */
json_object *jl_budget_evaluate(const struct jl_scenario *sc, json_object *summary, int *failed);

#endif
