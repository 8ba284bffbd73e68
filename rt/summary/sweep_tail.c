/* sweep_tail: what each condition's latency tail is made of, the runs pooled (sweep.h).
 *
 * Each run's summary.json has trace.tail per loop (rt/trace/analysis/tail.c): its tail cycles (above its
 * p99's bucket, and its misses), their excess over its p50 by cause, the misses' responses by cause. A
 * condition's tail adds its usable runs' tails up, cause by cause (by the cause's words): the shares are of
 * the pooled excess, so a run with a larger tail weighs more, as its cycles do. Runs without a computed tail
 * (untraced, or why says why not) are counted apart. */
#include <stdlib.h>
#include <string.h>

#include "../base/summary_keys.h"
#include "sweep.h"
#include "verdict.h"

/* Add table T of one run (trace.tail.X.excess or .response) into ACC (cause -> {kind, ns, largest_in}) */
static void add_table(json_object *acc, json_object *t, double *total)
{
	json_object *causes = jl_sj_get(t, JL_K(causes));

	*total += jl_sj_getd(t, JL_K(total_ns), 0);
	for (size_t i = 0; json_object_is_type(causes, json_type_array) && i < json_object_array_length(causes); i++) {
		json_object *c = json_object_array_get_idx(causes, i), *a;
		const char *name = jl_sj_gets(c, JL_K(cause), "?");

		if (!(a = jl_sj_get(acc, name))) {
			a = json_object_new_object();
			json_object_object_add(a, JL_K(kind), json_object_new_string(jl_sj_gets(c, JL_K(kind), "")));
			json_object_object_add(a, JL_K(ns), json_object_new_double(0));
			json_object_object_add(a, JL_K(largest_in), json_object_new_int64(0));
			json_object_object_add(acc, name, a);
		}
		json_object_object_add(a, JL_K(ns), json_object_new_double(jl_sj_getd(a, JL_K(ns), 0) + jl_sj_getd(c, JL_K(ns), 0)));
		json_object_object_add(a, JL_K(largest_in), json_object_new_int64((int64_t)(jl_sj_getd(a, JL_K(largest_in), 0) +
											 jl_sj_getd(c, JL_K(largest_in), 0))));
	}
}

static int cmp_ns(const void *x, const void *y)
{
	double u = jl_sj_getd(*(json_object *const *)x, JL_K(ns), 0), v = jl_sj_getd(*(json_object *const *)y, JL_K(ns), 0);

	return u < v ? 1 : u > v ? -1 : 0;
}

/* ACC as a table like a run's: total_ns and the causes, largest first, each with its share of TOTAL */
static json_object *table_json(json_object *acc, double total)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	json_object_object_add(o, JL_K(total_ns), json_object_new_int64((int64_t)(total + 0.5)));
	json_object_object_foreach(acc, name, a)
	{
		json_object *x = json_object_new_object();
		double ns = jl_sj_getd(a, JL_K(ns), 0);

		json_object_object_add(x, JL_K(cause), json_object_new_string(name));
		json_object_object_add(x, JL_K(kind), json_object_new_string(jl_sj_gets(a, JL_K(kind), "")));
		json_object_object_add(x, JL_K(ns), json_object_new_int64((int64_t)(ns + 0.5)));
		json_object_object_add(x, JL_K(share), jl_sj_num(total > 0 ? ns / total : 0));
		json_object_object_add(x, JL_K(largest_in), json_object_new_int64((int64_t)jl_sj_getd(a, JL_K(largest_in), 0)));
		json_object_array_add(arr, x);
	}
	json_object_array_sort(arr, cmp_ns);
	json_object_object_add(o, JL_K(causes), arr);
	return o;
}

/* Condition C's pooled tail of loop TN, or NULL when no run of it has one */
static json_object *cond_tail(const struct jl_sweep_data *d, int c, const char *tn)
{
	json_object *ex = json_object_new_object(), *resp = json_object_new_object(), *o;
	double tex = 0, tresp = 0, cycles = 0, above = 0, misses = 0, measured = 0;
	int runs = 0, without = 0;

	for (int r = 0; r < d->nruns; r++) {
		const struct jl_sweep_run *run = &d->runs[r];
		json_object *t;

		if (run->cond != c || !jl_sweep_run_usable(run) || !jl_sweep_summary_thread(run->summary, tn))
			continue;
		t = jl_sj_get(jl_sj_get(jl_sj_get(run->summary, JL_K(trace)), JL_K(tail)), tn);
		if (!t || !json_object_get_boolean(jl_sj_get(t, JL_K(computed)))) {
			without++;
			continue;
		}
		runs++;
		cycles += jl_sj_getd(t, JL_K(cycles), 0);
		above += jl_sj_getd(t, JL_K(above), 0);
		misses += jl_sj_getd(t, JL_K(misses), 0);
		measured += jl_sj_getd(t, JL_K(measured_cycles), 0);
		add_table(ex, jl_sj_get(t, JL_K(excess)), &tex);
		add_table(resp, jl_sj_get(t, JL_K(response)), &tresp);
	}
	if (!runs) {
		json_object_put(ex);
		json_object_put(resp);
		return NULL;
	}
	o = json_object_new_object();
	json_object_object_add(o, "runs", json_object_new_int(runs));
	json_object_object_add(o, "runs_without", json_object_new_int(without));
	json_object_object_add(o, JL_K(measured_cycles), json_object_new_int64((int64_t)measured));
	json_object_object_add(o, JL_K(cycles), json_object_new_int64((int64_t)cycles));
	json_object_object_add(o, JL_K(above), json_object_new_int64((int64_t)above));
	json_object_object_add(o, JL_K(misses), json_object_new_int64((int64_t)misses));
	json_object_object_add(o, JL_K(excess), table_json(ex, tex));
	json_object_object_add(o, JL_K(response), table_json(resp, tresp));
	json_object_put(ex);
	json_object_put(resp);
	return o;
}

json_object *jl_sweep_tail_json(const struct jl_sweep_data *d, int c, json_object *threads)
{
	json_object *o = json_object_new_object();

	for (size_t t = 0; threads && t < json_object_array_length(threads); t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, t));
		json_object *x = cond_tail(d, c, tn);

		if (x)
			json_object_object_add(o, tn, x);
	}
	return o;
}

void jl_sweep_print_tails(FILE *out, json_object *sweep, const char *thread, bool markdown)
{
	json_object *conds = jl_sj_get(sweep, "conditions");
	bool head = false;

	for (size_t c = 0; conds && c < json_object_array_length(conds); c++) {
		json_object *co = json_object_array_get_idx(conds, c), *t = jl_sj_get(jl_sj_get(co, "tail"), thread);
		json_object *ex = jl_sj_get(t, JL_K(excess));
		double total = jl_sj_getd(ex, JL_K(total_ns), 0);
		int shown = 0;

		if (!t)
			continue;
		if (!head)
			fprintf(out, markdown ? "\n**%s: what the latency tail is made of (each condition's runs pooled)**\n\n" :
						"\n%s: what the latency tail is made of (each condition's runs pooled)\n", thread);
		head = true;
		fprintf(out, markdown ? "- %s: %lld tail cycles of %lld in %d run(s) (%lld above %s, %lld missed), %.1f ms over p50:" :
					"  %-18s %lld tail cycles of %lld in %d run(s) (%lld above %s, %lld missed), %.1f ms over p50:",
			jl_sj_gets(co, "label", "?"), (long long)jl_sj_getd(t, JL_K(cycles), 0),
			(long long)jl_sj_getd(t, JL_K(measured_cycles), 0), (int)jl_sj_getd(t, "runs", 0),
			(long long)jl_sj_getd(t, JL_K(above), 0), jl_sj_gets(t, JL_K(threshold_from), "p99"),
			(long long)jl_sj_getd(t, JL_K(misses), 0), total / 1e6);
		shown = jl_verdict_tail_causes(out, ex, 3);
		if (!shown)
			fprintf(out, " none over p50");
		if (jl_sj_getd(t, JL_K(misses), 0) > 0) {
			fprintf(out, "; the misses' responses:");
			jl_verdict_tail_causes(out, jl_sj_get(t, JL_K(response)), 2);
		}
		fprintf(out, "\n");
	}
}
