/* sweep: the data of a sweep (conditions x runs, in rounds) and its analysis: the compared-metrics
 * table, sweep.json (json-c), the terminal/markdown comparison table, the per-run transient check.
 * cmd_sweep (sweep.c) runs the children; sweep_stats.c turns their summaries into statistics. Nothing
 * here starts threads or touches machine settings. */
#ifndef JL_SWEEP_H
#define JL_SWEEP_H

#include <json-c/json.h>
#include <limits.h>
#include <math.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/metrics.h"

/* Reading sweep.json and the runs' summaries (json-c): a member or NULL, a string, a number (JSON has no
 * inf or nan: jl_sj_num gives NULL, which json-c writes as null). */
static inline json_object *jl_sj_num(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static inline json_object *jl_sj_get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static inline const char *jl_sj_gets(json_object *o, const char *key, const char *dflt)
{
	json_object *v = jl_sj_get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : dflt;
}

static inline double jl_sj_getd(json_object *o, const char *key, double dflt)
{
	json_object *v = jl_sj_get(o, key);

	return v && (json_object_is_type(v, json_type_double) || json_object_is_type(v, json_type_int)) ?
		       json_object_get_double(v) : dflt;
}



/* The metrics a sweep compares, and where each lives in a summary.json thread object. */
/* A metric the sweep compares; its unit and place in summary.json come from jl_metrics (metrics.h). */
struct jl_sweep_metric {
	const char *name; /* as in jl_metrics: "latency.p99" */
};

extern const struct jl_sweep_metric jl_sweep_metrics[];
extern const int jl_sweep_nmetrics;

#define JL_SWEEP_MAX_NEIGH 32
#define JL_SWEEP_MAX_FACTORS 9 /* the named conditions, and each vary line (JL_MAX_VARY) */
#define JL_SWEEP_MAX_LEVELS 64

/* A factor of the sweep's design: the named conditions (one factor, "condition", levels their labels), or
 * a vary line (its key, levels its values). Level 0 is the reference (the first written). */
struct jl_sweep_factor {
	char name[128];
	int nlevels;
	char level[JL_SWEEP_MAX_LEVELS][128];
};

struct jl_sweep_cond {
	char label[128];
	char overrides[2048];        /* "SECTION.KEY=VALUE; ..." */
	int line;                    /* where it was defined (0 = none) */
	int64_t duration_ns, warmup_ns, period_max_ns;
	int nneigh;                  /* threads that start late: their start offsets */
	int64_t neigh_start_ns[JL_SWEEP_MAX_NEIGH];
	char neigh_name[JL_SWEEP_MAX_NEIGH][64];
	int level[JL_SWEEP_MAX_FACTORS]; /* its level of each factor */
};

struct jl_sweep_run {
	int cond, rep, order;        /* rep and order count from 1 */
	char dir[PATH_MAX];          /* the run directory ("" when none was made) */
	int exit_status;
	json_object *summary;        /* NULL when missing */
	json_object *transients;     /* array, or NULL */
};

struct jl_sweep_data {
	const char *scenario_name, *scenario_path, *started;
	char dir[PATH_MAX];
	int runs_per_cond;
	int nconds;
	struct jl_sweep_cond *conds;
	int nruns;                   /* runs done so far, in execution order */
	struct jl_sweep_run *runs;
	int npairs;
	int (*pairs)[2];             /* condition indexes A, B: the comparison is B - A */
	int nfactors;
	struct jl_sweep_factor factors[JL_SWEEP_MAX_FACTORS];
	bool shuffled;               /* each round's order drawn from SEED (else the conditions' order) */
	unsigned long seed;
	int *plan;                   /* the condition of each run, in execution order (nconds x runs_per_cond) */
	bool final;                  /* the last sweep.json (the factor effects are computed then, not at each
				      * checkpoint) */
	bool interrupted;
};

/* sweep_runs.c: thread NAME's object in a run's summary, or NULL */
json_object *jl_sweep_summary_thread(json_object *summary, const char *name);

/* Is this run's data usable (summary read, not interrupted)? */
bool jl_sweep_run_usable(const struct jl_sweep_run *r);

/* The value of METRIC (a jl_metrics name, or "cycles") of thread TNAME in run R; false when the run is not
 * usable or has none. */
bool jl_sweep_run_value(const struct jl_sweep_run *r, const char *tname, const char *metric, double *out);

/* Transient check of one run (reads RUN_DIR/samples.csv): a JSON array of flagged threads. */
json_object *jl_sweep_run_transients(const struct jl_sweep_run *r, const struct jl_sweep_cond *c);

/* Build the sweep.json document. */
json_object *jl_sweep_build_json(const struct jl_sweep_data *d);

/* sweep_effects.c: the design (factors, rounds, balance) and the factor effects of every measured thread's
 * metrics, for sweep.json ("design", "effects"); and their section of the table, printed before the
 * pairwise verdicts. */
json_object *jl_sweep_design_json(const struct jl_sweep_data *d);
json_object *jl_sweep_effects_json(const struct jl_sweep_data *d, json_object *threads, json_object *conditions);
void jl_sweep_print_effects(FILE *out, json_object *sweep, const char *thread, bool markdown);

/* sweep_tail.c: per condition, each loop's latency tail with its runs pooled (conditions[].tail), and its
 * section of the table: one line per condition with the tail's largest causes. */
json_object *jl_sweep_tail_json(const struct jl_sweep_data *d, int c, json_object *threads);
void jl_sweep_print_tails(FILE *out, json_object *sweep, const char *thread, bool markdown);
/* Print the comparison table (per thread and metric: every condition's runs, then the verdicts, then
 * the flags) from a sweep.json document. MARKDOWN: for report.md. */
void jl_sweep_print(FILE *out, json_object *sweep, bool markdown);

#endif
