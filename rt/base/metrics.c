/* metrics: the registry of per-thread metrics usable in [expect] and compared by sweeps. */
#include "metrics.h"

#include <string.h>

const struct jl_metric_desc jl_metrics[] = {
	{ "rate_hz", JL_UNIT_HZ, "rate_hz", "achieved rate: cycles run per second of the measured window" },
	{ "misses", JL_UNIT_COUNT, "misses", "cycles whose work ended after release + deadline" },
	{ "skipped", JL_UNIT_COUNT, "skipped", "releases dropped because a cycle overran (overrun = skip)" },
	{ "not_started", JL_UNIT_COUNT, "not_started", "releases of a catchup backlog the end of the run cut off" },
	{ "latency.p50", JL_UNIT_NS, "latency_ns.p50", "wakeup latency (wake - release), median" },
	{ "latency.p90", JL_UNIT_NS, "latency_ns.p90", "wakeup latency, 90th percentile" },
	{ "latency.p99", JL_UNIT_NS, "latency_ns.p99", "wakeup latency, 99th percentile" },
	{ "latency.p999", JL_UNIT_NS, "latency_ns.p999", "wakeup latency, 99.9th percentile" },
	{ "latency.max", JL_UNIT_NS, "latency_ns.max", "wakeup latency, maximum" },
	{ "latency.mean", JL_UNIT_NS, "latency_ns.mean", "wakeup latency, mean" },
	{ "period.p99", JL_UNIT_NS, "period_ns_stats.p99", "time between successive wakeups, 99th percentile" },
	{ "period.max", JL_UNIT_NS, "period_ns_stats.max", "time between successive wakeups, maximum" },
	{ "period.mean", JL_UNIT_NS, "period_ns_stats.mean", "time between successive wakeups, mean" },
	{ "period.stddev", JL_UNIT_NS, "period_ns_stats.stddev", "time between successive wakeups, standard deviation (jitter)" },
	{ "response.p99", JL_UNIT_NS, "response_ns.p99", "release to end of work, 99th percentile" },
	{ "response.max", JL_UNIT_NS, "response_ns.max", "release to end of work, maximum" },
	{ "wakeup.p99", JL_UNIT_NS, NULL, "kernel wakeup latency from the trace (sched_waking to switch-in), p99" },
	{ "wakeup.max", JL_UNIT_NS, NULL, "kernel wakeup latency from the trace, maximum" },
	{ "work.mean", JL_UNIT_NS, "work.mean_ns", "duration of one work call, mean" },
	{ "age.mean", JL_UNIT_NS, "age_ns.mean", "a callback's consumed data: its age at the start (start - origin), mean" },
	{ "age.p99", JL_UNIT_NS, "age_ns.p99", "the consumed data's age at the start, 99th percentile" },
	{ "age.max", JL_UNIT_NS, "age_ns.max", "the consumed data's age at the start, maximum" },
	{ "e2e.mean", JL_UNIT_NS, "e2e_ns.mean", "a callback's data: its age at the end (end - origin), mean" },
	{ "e2e.p99", JL_UNIT_NS, "e2e_ns.p99", "the data's age at the callback's end, 99th percentile" },
	{ "work.max", JL_UNIT_NS, "work.max_ns", "duration of one work call, maximum" },
};

const int jl_nmetrics = (int)(sizeof(jl_metrics) / sizeof(jl_metrics[0]));

int jl_metric_find(const char *name)
{
	for (int i = 0; i < jl_nmetrics; i++)
		if (!strcmp(jl_metrics[i].name, name))
			return i;
	return -1;
}

const struct jl_metric_desc *jl_metric_get(const char *name)
{
	int i = jl_metric_find(name);

	return i < 0 ? NULL : &jl_metrics[i];
}
