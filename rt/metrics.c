/* metrics: the registry of per-thread metrics usable in [expect] and compared by sweeps. */
#include "metrics.h"

#include <string.h>

const struct jl_metric_desc jl_metrics[] = {
	{ "rate_hz", JL_UNIT_HZ, "achieved release rate over the measured phase" },
	{ "misses", JL_UNIT_COUNT, "cycles whose work ended after release + deadline" },
	{ "skipped", JL_UNIT_COUNT, "releases dropped because a cycle overran (overrun = skip)" },
	{ "latency.p50", JL_UNIT_NS, "wakeup latency (wake - release), median" },
	{ "latency.p90", JL_UNIT_NS, "wakeup latency, 90th percentile" },
	{ "latency.p99", JL_UNIT_NS, "wakeup latency, 99th percentile" },
	{ "latency.p999", JL_UNIT_NS, "wakeup latency, 99.9th percentile" },
	{ "latency.max", JL_UNIT_NS, "wakeup latency, maximum" },
	{ "latency.mean", JL_UNIT_NS, "wakeup latency, mean" },
	{ "period.p99", JL_UNIT_NS, "time between successive wakeups, 99th percentile" },
	{ "period.max", JL_UNIT_NS, "time between successive wakeups, maximum" },
	{ "period.mean", JL_UNIT_NS, "time between successive wakeups, mean" },
	{ "period.stddev", JL_UNIT_NS, "time between successive wakeups, standard deviation (jitter)" },
	{ "response.p99", JL_UNIT_NS, "release to end of work, 99th percentile" },
	{ "response.max", JL_UNIT_NS, "release to end of work, maximum" },
	{ "wakeup.p99", JL_UNIT_NS, "kernel wakeup latency from the trace (sched_waking to switch-in), p99" },
	{ "wakeup.max", JL_UNIT_NS, "kernel wakeup latency from the trace, maximum" },
	{ "work.mean", JL_UNIT_NS, "duration of one work call, mean" },
	{ "work.max", JL_UNIT_NS, "duration of one work call, maximum" },
};

const int jl_nmetrics = (int)(sizeof(jl_metrics) / sizeof(jl_metrics[0]));

int jl_metric_find(const char *name)
{
	for (int i = 0; i < jl_nmetrics; i++)
		if (!strcmp(jl_metrics[i].name, name))
			return i;
	return -1;
}
