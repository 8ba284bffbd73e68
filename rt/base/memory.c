/* memory: see memory.h */
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "memory.h"
#include "summary_keys.h"

int64_t jl_memory_status(const char *key)
{
	FILE *f = fopen("/proc/self/status", "re");
	size_t klen = strlen(key);
	char line[256];
	long long kb = -1;

	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, key, klen) && line[klen] == ':' && sscanf(line + klen + 1, "%lld", &kb) == 1)
			break;
	fclose(f);
	return kb < 0 ? -1 : (int64_t)kb * 1024;
}

void jl_memory_project(struct jl_memory_budget *b, enum jl_analysis_hold hold, uint64_t so_far, uint64_t recent,
		       int64_t span_ns, int64_t remaining_ns)
{
	b->hold = hold;
	b->events_per_s = span_ns > 0 ? (double)recent * 1e9 / (double)span_ns : 0;
	if (remaining_ns < 0)
		remaining_ns = 0;
	switch (hold) {
	case JL_HOLD_RECENT:
		b->events = (int64_t)(b->events_per_s * JL_MEMORY_RECENT_HELD_S);
		b->analysis = b->events * JL_MEMORY_RECENT_BYTES_PER_EVENT;
		break;
	case JL_HOLD_WHOLE:
		b->events = (int64_t)so_far + (int64_t)(b->events_per_s * (double)remaining_ns / 1e9);
		b->analysis = b->events * JL_MEMORY_WHOLE_BYTES_PER_EVENT;
		break;
	default:
		b->events = b->analysis = 0;
	}
	b->results = JL_MEMORY_RESULTS_BYTES;
	b->total = b->setup + b->analysis + b->results;
	b->taken = true;
}

void jl_memory_line(const struct jl_memory_budget *b, char *buf, size_t len)
{
	int n = snprintf(buf, len, "memory: at most %.1f MB projected: %.1f MB set up (the series %.1f MB of it), ",
			 (double)b->total / 1e6, (double)b->setup / 1e6, (double)b->samples / 1e6);

	if (n < 0 || (size_t)n >= len)
		return;
	if (b->hold == JL_HOLD_RECENT)
		snprintf(buf + n, len - (size_t)n,
			 "the analysis %.1f MB (the last %.0f s of the trace at %.0f events/s: flat in "
			 "the duration), the results %.1f MB", (double)b->analysis / 1e6, JL_MEMORY_RECENT_HELD_S,
			 b->events_per_s, (double)b->results / 1e6);
	else if (b->hold == JL_HOLD_WHOLE)
		snprintf(buf + n, len - (size_t)n,
			 "the analysis %.1f MB (every event's state after the run: %.0f events at %.0f/s, "
			 "growing with the duration), the results %.1f MB", (double)b->analysis / 1e6, (double)b->events,
			 b->events_per_s, (double)b->results / 1e6);
	else
		snprintf(buf + n, len - (size_t)n, "no trace to analyse, the results %.1f MB", (double)b->results / 1e6);
}

static const char *hold_name(enum jl_analysis_hold h)
{
	return h == JL_HOLD_RECENT ? "recent" : h == JL_HOLD_WHOLE ? "whole" : "none";
}


json_object *jl_memory_json(struct jl_memory_budget *b)
{
	json_object *o = json_object_new_object(), *p = json_object_new_object();
	struct rusage ru;

	b->peak = jl_memory_status("VmHWM");
	b->children_peak = getrusage(RUSAGE_CHILDREN, &ru) ? -1 : (int64_t)ru.ru_maxrss * 1024;
	if (b->taken) {
		jl_json_add_i64(p, JL_K(setup_bytes), b->setup);
		jl_json_add_i64(p, JL_K(samples_bytes), b->samples);
		json_object_object_add(p, JL_K(analysis), json_object_new_string(hold_name(b->hold)));
		json_object_object_add(p, JL_K(events_per_s), json_object_new_double(b->events_per_s));
		jl_json_add_i64(p, JL_K(events), b->events);
		jl_json_add_i64(p, JL_K(analysis_bytes), b->analysis);
		jl_json_add_i64(p, JL_K(results_bytes), b->results);
		jl_json_add_i64(p, JL_K(total_bytes), b->total);
		json_object_object_add(o, JL_K(projected), p);
	} else {
		json_object_put(p);
		json_object_object_add(o, JL_K(projected), NULL); /* the measured phase never began */
	}
	json_object_object_add(o, JL_K(peak_bytes), b->peak >= 0 ? json_object_new_int64(b->peak) : NULL);
	json_object_object_add(o, JL_K(children_peak_bytes),
			       b->children_peak >= 0 ? json_object_new_int64(b->children_peak) : NULL);
	return o;
}
