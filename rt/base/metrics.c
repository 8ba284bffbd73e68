/* metrics: the registry of per-thread metrics usable in [expect] and compared by sweeps. */
#include "metrics.h"
#include "summary_keys.h"

#include <string.h>

const struct jl_metric_desc jl_metrics[] = {
	{ "rate_hz", JL_UNIT_HZ, JL_K(rate_hz), "achieved rate: cycles run (a [sync]: sets emitted) per second of the measured window", JL_SCOPE_BOTH, JL_BETTER_HIGHER },
	{ "misses", JL_UNIT_COUNT, JL_K(misses), "cycles whose work ended after release + deadline", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "skipped", JL_UNIT_COUNT, JL_K(skipped), "releases dropped because a cycle overran (overrun = skip)", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "not_started", JL_UNIT_COUNT, JL_K(not_started), "releases of a catchup backlog the end of the run cut off", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.p50", JL_UNIT_NS, JL_K2(latency_ns, p50), "wakeup latency (wake - release), median", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.p90", JL_UNIT_NS, JL_K2(latency_ns, p90), "wakeup latency, 90th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.p99", JL_UNIT_NS, JL_K2(latency_ns, p99), "wakeup latency, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.p999", JL_UNIT_NS, JL_K2(latency_ns, p999), "wakeup latency, 99.9th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.max", JL_UNIT_NS, JL_K2(latency_ns, max), "wakeup latency, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "latency.mean", JL_UNIT_NS, JL_K2(latency_ns, mean), "wakeup latency, mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "period.p99", JL_UNIT_NS, JL_K2(period_ns_stats, p99), "time between successive wakeups, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "period.max", JL_UNIT_NS, JL_K2(period_ns_stats, max), "time between successive wakeups, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "period.mean", JL_UNIT_NS, JL_K2(period_ns_stats, mean), "time between successive wakeups, mean", JL_SCOPE_SERIES, JL_BETTER_NEITHER },
	{ "period.stddev", JL_UNIT_NS, JL_K2(period_ns_stats, stddev), "time between successive wakeups, standard deviation (jitter)", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "response.p99", JL_UNIT_NS, JL_K2(response_ns, p99), "release to end of work, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "response.max", JL_UNIT_NS, JL_K2(response_ns, max), "release to end of work, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "wakeup.p99", JL_UNIT_NS, NULL, "kernel wakeup latency from the trace (sched_waking to switch-in), p99", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "wakeup.max", JL_UNIT_NS, NULL, "kernel wakeup latency from the trace, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "work.mean", JL_UNIT_NS, JL_K2(work, mean_ns), "duration of one work call, mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "age.mean", JL_UNIT_NS, JL_K2(age_ns, mean), "a callback's consumed data: its age at the start (start - origin), mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "age.p99", JL_UNIT_NS, JL_K2(age_ns, p99), "the consumed data's age at the start, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "age.max", JL_UNIT_NS, JL_K2(age_ns, max), "the consumed data's age at the start, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "e2e.mean", JL_UNIT_NS, JL_K2(e2e_ns, mean), "a callback's data: its age at the end (end - origin), mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "e2e.p99", JL_UNIT_NS, JL_K2(e2e_ns, p99), "the data's age at the callback's end, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "work.max", JL_UNIT_NS, JL_K2(work, max_ns), "duration of one work call, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "messages.consumed_fraction", JL_UNIT_FRACTION, JL_K2(messages, consumed_fraction), "a subscriber: messages consumed (a poll: read at least once) per message published to it", JL_SCOPE_SERIES, JL_BETTER_HIGHER },
	{ "messages.never_consumed", JL_UNIT_COUNT, JL_K2(messages, never_consumed), "a subscriber: messages gone (overwritten, dropped) before it consumed them", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "messages.dropped", JL_UNIT_COUNT, JL_K2(messages, dropped), "a subscriber: messages its full keep-last history dropped", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "messages.rereads", JL_UNIT_COUNT, JL_K2(messages, rereads), "a poll: reads of a message it had read before", JL_SCOPE_SERIES, JL_BETTER_NEITHER },
	{ "data_age.mean", JL_UNIT_NS, JL_K3(chain, data_age_ns, mean), "a chain end: per head sample, its origin to the end of the last output that used it, mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "data_age.p99", JL_UNIT_NS, JL_K3(chain, data_age_ns, p99), "a chain end's data age, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "data_age.max", JL_UNIT_NS, JL_K3(chain, data_age_ns, max), "a chain end's data age, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "reaction.mean", JL_UNIT_NS, JL_K3(chain, reaction_ns, mean), "a chain end: per head sample, its origin to the end of the first output reflecting it, mean", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "reaction.p99", JL_UNIT_NS, JL_K3(chain, reaction_ns, p99), "a chain end's reaction time, 99th percentile", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "reaction.max", JL_UNIT_NS, JL_K3(chain, reaction_ns, max), "a chain end's reaction time, maximum", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "chain.unused_inputs", JL_UNIT_COUNT, JL_K2(chain, unused_inputs), "a chain end: head samples in the window no output used", JL_SCOPE_SERIES, JL_BETTER_LOWER },
	{ "pair_diff.mean", JL_UNIT_NS, JL_K(pair_diff_mean_ns), "a [sync]: stamp difference of its sets, mean", JL_SCOPE_SYNC, JL_BETTER_LOWER },
	{ "pair_diff.max", JL_UNIT_NS, JL_K(pair_diff_max_ns), "a [sync]: stamp difference of its sets, maximum", JL_SCOPE_SYNC, JL_BETTER_LOWER },
	{ "sets", JL_UNIT_COUNT, JL_K(sets), "a [sync]: sets it emitted", JL_SCOPE_SYNC, JL_BETTER_HIGHER },
	{ "inputs.0.used_fraction", JL_UNIT_FRACTION, "inputs.0.used_fraction", "a [sync]: fraction of its first input's messages that went into a set", JL_SCOPE_SYNC, JL_BETTER_HIGHER },
	{ "inputs.1.used_fraction", JL_UNIT_FRACTION, "inputs.1.used_fraction", "a [sync]: fraction of its second input's messages that went into a set", JL_SCOPE_SYNC, JL_BETTER_HIGHER },
	{ "acquisitions", JL_UNIT_COUNT, JL_K(acquisitions), "a [lock]: times it was taken in the measured phase", JL_SCOPE_LOCK, JL_BETTER_NEITHER },
	{ "wait.mean", JL_UNIT_NS, JL_K2(wait_ns, mean), "a [lock]: from asking for it to holding it, mean", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "wait.p99", JL_UNIT_NS, JL_K2(wait_ns, p99), "a [lock]: the wait for it, 99th percentile", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "wait.max", JL_UNIT_NS, JL_K2(wait_ns, max), "a [lock]: the wait for it, maximum", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "hold.p99", JL_UNIT_NS, JL_K2(hold_ns, p99), "a [lock]: how long a holder kept it, 99th percentile", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "hold.max", JL_UNIT_NS, JL_K2(hold_ns, max), "a [lock]: how long a holder kept it, maximum", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "boosts", JL_UNIT_COUNT, JL_K(boosts), "a [lock]: priority-inheritance boosts of its holders in the trace (sched_pi_setprio)", JL_SCOPE_LOCK, JL_BETTER_LOWER },
	{ "requests", JL_UNIT_COUNT, JL_K(requests), "a [source]: requests it sent", JL_SCOPE_SOURCE, JL_BETTER_NEITHER },
	{ "ok", JL_UNIT_COUNT, JL_K2(status, ok), "a [source]: requests replied to before their deadline", JL_SCOPE_SOURCE, JL_BETTER_HIGHER },
	{ "deadline_exceeded", JL_UNIT_COUNT, JL_K2(status, deadline_exceeded), "a [source]: requests whose client gave up first (DEADLINE_EXCEEDED)", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
	{ "dropped", JL_UNIT_COUNT, JL_K2(status, dropped), "a [source]: requests dropped: refused at once (a queue's limit: RESOURCE_EXHAUSTED)", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
	{ "client_latency.mean", JL_UNIT_NS, JL_K2(client_latency_ns, mean), "a [source]: creation to reply (or to the deadline, when the client gave up), mean", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
	{ "client_latency.p99", JL_UNIT_NS, JL_K2(client_latency_ns, p99), "a [source]: the client's latency, 99th percentile", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
	{ "client_latency.max", JL_UNIT_NS, JL_K2(client_latency_ns, max), "a [source]: the client's latency, maximum", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
	{ "wasted", JL_UNIT_NS, JL_K(wasted_ns), "a [source]: work its requests' servers did after the client had given up", JL_SCOPE_SOURCE, JL_BETTER_LOWER },
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
