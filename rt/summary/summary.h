/* summary: the summary.json document (contract: docs/outputs.md), built with json-c from
 * a run's results. The terminal table, report.md, [expect] and `jitterlab report` all read this
 * document, so what the user sees and what the file says can never disagree. */
#ifndef JL_SUMMARY_H
#define JL_SUMMARY_H

#include <json-c/json.h>
#include <stdbool.h>

#include "../engine/engine.h"
#include "../engine/results.h"
#include "../engine/collector.h"

struct jl_summary_info {
	const char *scenario_path;
	const char *run_dir;
	char started[64];       /* ISO-8601 UTC */
	bool interrupted;
	bool watchdog_fired;
	const char *stuck;      /* threads the watchdog gave up on */
	const char *watchdog_cpus; /* where the watchdog was pinned ("" = unpinned) */
	const struct jl_collector *collector; /* the run's collector (intervals, stop_at, machine), or NULL */
	const char *samples_mode;  /* what samples.csv holds: "all", "worst" or "none" */
};

/* Build the document; "trace", "expect" and "exit_status" are added by the caller. */
json_object *jl_summary_build(const struct jl_engine *eng, const struct jl_series_result *res,
			      const struct jl_summary_info *info, json_object *host);

/* A checkpoint of a run still going (written as summary.json every [run] checkpoint): the figures the
 * collector has so far (histogram percentiles), `checkpoint` set; `jitterlab report` reads it. */
json_object *jl_summary_checkpoint(const struct jl_engine *eng, const struct jl_collector *w,
				   const struct jl_summary_info *info);

/* The thread object named NAME in SUMMARY's threads[] (borrowed), or NULL. */
json_object *jl_summary_thread(json_object *summary, const char *name);
/* After the trace block is in SUMMARY: each lock's `boosts`, the priority-inheritance boosts
 * (sched_pi_setprio raising a task) of the threads that took it (trace.pi_boosts, by tid). */
void jl_summary_lock_boosts(json_object *summary);
/* The `syncs` entry named NAME, or NULL. */
json_object *jl_summary_sync(json_object *summary, const char *name);
/* The `locks` entry named NAME, or NULL. */
json_object *jl_summary_lock(json_object *summary, const char *name);
/* The `sources` entry named NAME, or NULL. */
json_object *jl_summary_source(json_object *summary, const char *name);

/* Read an integer/double at a dotted PATH below OBJ ("latency_ns.p99"); false if missing. */
bool jl_json_get_double(json_object *obj, const char *path, double *out);

#endif
