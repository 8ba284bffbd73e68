/* expect: [expect] evaluation. Values come from summary.json, so `report` can re-check them. */
#include "expect.h"

#include <stdio.h>
#include <string.h>

#include "../base/metrics.h"
#include "summary.h"
#include "../base/summary_keys.h"

bool jl_metric_value(json_object *summary, const char *thread, const char *metric, double *v)
{
	json_object *t, *w;

	if (!strncmp(metric, "wakeup.", 7)) {
		/* the thread's own object first: a copy's name (loop.0) holds a dot, a dotted path cannot */
		return json_object_object_get_ex(summary, JL_K(trace), &w) && json_object_object_get_ex(w, JL_K(wakeup_ns), &w) &&
		       json_object_object_get_ex(w, thread, &t) && jl_json_get_double(t, metric + 7, v);
	}
	t = jl_summary_thread(summary, thread);
	if (!t && ((t = jl_summary_sync(summary, thread)) || (t = jl_summary_lock(summary, thread)) ||
		   (t = jl_summary_source(summary, thread)))) {
		const struct jl_metric_desc *d = jl_metric_get(metric); /* a [sync]'s, [lock]'s or [source]'s figures */

		return d && d->scope != JL_SCOPE_SERIES && jl_json_get_double(t, d->path, v);
	}
	if (!t)
		return false;
	/* a loop that never ran a measured cycle has no latency, period or response to compare */
	if ((!strncmp(metric, "latency.", 8) || !strncmp(metric, "period.", 7) || !strncmp(metric, "response.", 9)) &&
	    jl_json_get_double(t, JL_K(cycles), v) && *v == 0)
		return false;
	{
		const struct jl_metric_desc *d = jl_metric_get(metric);

		return d && d->path && jl_json_get_double(t, d->path, v);
	}
}

static bool holds(enum jl_cmp op, double v, double ref)
{
	switch (op) {
	case JL_CMP_LT:
		return v < ref;
	case JL_CMP_LE:
		return v <= ref;
	case JL_CMP_GT:
		return v > ref;
	case JL_CMP_GE:
		return v >= ref;
	case JL_CMP_EQ:
		return v == ref;
	}
	return false;
}

static json_object *one(const struct jl_expect *e, const char *thread, json_object *summary, int *failed)
{
	json_object *o = json_object_new_object();
	double v = 0;
	bool found = jl_metric_value(summary, thread, e->metric, &v), ok = found && holds(e->op, v, e->value);

	json_object_object_add(o, JL_K(label), json_object_new_string(e->label));
	json_object_object_add(o, JL_K(check), json_object_new_string(e->text));
	json_object_object_add(o, JL_K(thread), json_object_new_string(thread));
	json_object_object_add(o, JL_K(metric), json_object_new_string(e->metric));
	if (found)
		json_object_object_add(o, JL_K(value), json_object_new_double(v));
	else
		json_object_object_add(o, JL_K(value), NULL);
	json_object_object_add(o, JL_K(limit), json_object_new_double(e->value));
	json_object_object_add(o, JL_K(ok), json_object_new_boolean(ok));
	if (!found)
		json_object_object_add(o, JL_K(error), json_object_new_string(!strncmp(e->metric, "wakeup.", 7)
			? "no value: wakeup metrics need the trace (trace = sched)" : "no value for this thread (no measured cycle?)"));
	if (!ok)
		(*failed)++;
	return o;
}

json_object *jl_expect_evaluate(const struct jl_scenario *sc, json_object *summary, int *failed)
{
	json_object *arr = json_object_new_array();

	*failed = 0;
	for (int i = 0; i < sc->nexpect; i++) {
		const struct jl_expect *e = &sc->expect[i];
		const struct jl_thread_spec *spec = NULL;

		for (int k = 0; k < sc->nthreads; k++)
			if (!strcmp(sc->threads[k].name, e->thread))
				spec = &sc->threads[k];
		if (spec && spec->place.count > 1) {
			/* a base name of copies: every copy must hold */
			for (unsigned c = 0; c < spec->place.count; c++) {
				char name[JL_NAME_MAX + 16];

				snprintf(name, sizeof(name), "%s.%u", e->thread, c);
				json_object_array_add(arr, one(e, name, summary, failed));
			}
		} else {
			json_object_array_add(arr, one(e, e->thread, summary, failed));
		}
	}
	return arr;
}

json_object *jl_budget_evaluate(const struct jl_scenario *sc, json_object *summary, int *failed)
{
	json_object *arr = json_object_new_array();

	*failed = 0;
	for (int i = 0; i < sc->nbudgets; i++) {
		const struct jl_budget *b = &sc->budgets[i];
		json_object *o = json_object_new_object(), *t = jl_summary_thread(summary, b->callback);
		double cycles = 0, v = 0;
		/* no run, no value: a callback that never ran exceeds every budget */
		bool found = t && jl_json_get_double(t, JL_K(cycles), &cycles) && cycles > 0 &&
			     jl_json_get_double(t, b->e2e ? JL_K2(e2e_ns, p99) : JL_K2(response_ns, p99), &v);
		bool ok = found && v <= (double)b->limit_ns;
		double mx = 0;
		bool has_max = found && jl_json_get_double(t, b->e2e ? JL_K2(e2e_ns, max) : JL_K2(response_ns, max), &mx);
		char stage[JL_NAME_MAX + 8];

		snprintf(stage, sizeof(stage), "%s.%s", b->e2e ? "e2e" : "stage", b->callback);
		json_object_object_add(o, JL_K(stage), json_object_new_string(stage));
		json_object_object_add(o, JL_K(callback), json_object_new_string(b->callback));
		json_object_object_add(o, JL_K(kind), json_object_new_string(b->e2e ? "e2e" : "stage"));
		json_object_object_add(o, JL_K(budget_ns), json_object_new_int64(b->limit_ns));
		json_object_object_add(o, JL_K(p99_ns), found ? json_object_new_int64((int64_t)v) : NULL);
		json_object_object_add(o, JL_K(max_ns), has_max ? json_object_new_int64((int64_t)mx) : NULL);
		json_object_object_add(o, JL_K(margin_ns), found ? json_object_new_int64(b->limit_ns - (int64_t)v) : NULL);
		json_object_object_add(o, JL_K(ok), json_object_new_boolean(ok));
		if (!ok)
			(*failed)++;
		json_object_array_add(arr, o);
	}
	return arr;
}
