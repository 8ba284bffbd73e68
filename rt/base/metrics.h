/* metrics: the names a scenario's [expect] (and sweeps) can refer to, in one table.
 * Pure lookup; evaluation against results lives in expect.c. */
#ifndef JL_METRICS_H
#define JL_METRICS_H

#include <stdbool.h>

enum jl_metric_unit { JL_UNIT_NS, JL_UNIT_HZ, JL_UNIT_COUNT, JL_UNIT_FRACTION };

/* What a metric is of: a measured series (a loop, a callback: summary.json `threads`), a [sync]
 * (`syncs`), both, a [lock] (`locks`) or a [source] (`sources`) */
enum jl_metric_scope { JL_SCOPE_SERIES, JL_SCOPE_SYNC, JL_SCOPE_BOTH, JL_SCOPE_LOCK, JL_SCOPE_SOURCE };

/* Which way a change is a regression: a latency is worse higher, a rate lower; a count of what happened
 * (requests, acquisitions) or a mean period (the scenario's own) is neither. `compare` words its verdicts and
 * `[gate] ... no worse` judges with it. */
enum jl_metric_better { JL_BETTER_NEITHER, JL_BETTER_LOWER, JL_BETTER_HIGHER };

struct jl_metric_desc {
	const char *name;       /* "latency.p99" */
	enum jl_metric_unit unit;
	const char *path;       /* where it is in a summary.json thread object ("latency_ns.p99"); NULL for
				 * wakeup.*, which live in trace.wakeup_ns.<thread> */
	const char *help;
	enum jl_metric_scope scope; /* JL_SCOPE_SERIES unless said */
	enum jl_metric_better better;
};

extern const struct jl_metric_desc jl_metrics[];
extern const int jl_nmetrics;

/* Index of NAME in jl_metrics, or -1. */
int jl_metric_find(const char *name);
/* The registry entry of NAME, or NULL. */
const struct jl_metric_desc *jl_metric_get(const char *name);

#endif
