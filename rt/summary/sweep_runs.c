/* sweep_runs: a sweep's runs as data (sweep.h): the metrics it compares, whether a run is usable, a thread's
 * value of a metric in a run. sweep_stats.c (the statistics, sweep.json, the table) and sweep_effects.c (the
 * factor effects) both read the runs through here. Reads the summaries already loaded; no I/O. */
#include "sweep.h"

#include <string.h>

#include "summary.h"
#include "../base/summary_keys.h"

const struct jl_sweep_metric jl_sweep_metrics[] = {
	{ "rate_hz" },
	{ "latency.p50" },
	{ "latency.p99" },
	{ "latency.max" },
	{ "period.p99" },
	{ "period.max" },
	{ "misses" },
	{ "work.mean" },
};

const int jl_sweep_nmetrics = (int)(sizeof(jl_sweep_metrics) / sizeof(jl_sweep_metrics[0]));

bool jl_sweep_run_usable(const struct jl_sweep_run *r)
{
	json_object *intr;

	if (!r->summary)
		return false;
	intr = jl_sj_get(r->summary, JL_K(interrupted));
	return !(intr && json_object_get_boolean(intr));
}

json_object *jl_sweep_summary_thread(json_object *summary, const char *name)
{
	json_object *threads = jl_sj_get(summary, JL_K(threads));
	size_t n = threads ? json_object_array_length(threads) : 0;

	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(threads, i);

		if (!strcmp(jl_sj_gets(t, JL_K(name), ""), name))
			return t;
	}
	return NULL;
}

bool jl_sweep_run_value(const struct jl_sweep_run *r, const char *tname, const char *metric, double *out)
{
	json_object *t;
	const struct jl_metric_desc *d;

	if (!jl_sweep_run_usable(r) || !(t = jl_sweep_summary_thread(r->summary, tname)))
		return false;
	if (!strcmp(metric, JL_K(cycles)))
		return jl_json_get_double(t, JL_K(cycles), out);
	d = jl_metric_get(metric);
	return d && d->path && jl_json_get_double(t, d->path, out);
}

