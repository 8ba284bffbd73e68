/* scenario_write: the effective scenario as INI, every default written out, such that it parses
 * back to the same model (checked by the fuzz target). A cpu list that names CPUs (pcores, ecores,
 * smt:N) is written as written, after a comment with the CPUs it gave on this host. */
#include <stdio.h>
#include <string.h>

#include "../affinity/cpulist.h"
#include "scenario_int.h"
#include "units.h"

/* ---- writing the effective scenario ---- */

/* "key = value", or "key=value" where the spaces would take the line past the reader's limit (a value
 * that fitted on its input line always fits this way). */
static void put_kv(FILE *out, const char *key, const char *key2, const char *value)
{
	size_t n = strlen(key) + strlen(key2) + strlen(value);

	fprintf(out, n + 3 <= JL_INI_LINE_MAX ? "%s%s = %s\n" : "%s%s=%s\n", key, key2, value);
}

/* KEY = the cpu list: TEXT as written when it names CPUs (with a comment line saying what it resolved
 * to here), else SET's numbers. */
static void put_cpus(FILE *out, const char *key, const char *text, const cpu_set_t *set, char *a, size_t alen)
{
	char shown[150]; /* the comment line must fit the reader's line too (a longer one would be split) */

	jl_cpulist_format(set, a, alen);
	if (!text[0]) {
		put_kv(out, key, "", a);
		return;
	}
	jl_cpulist_format(set, shown, sizeof(shown));
	fprintf(out, "; %s: CPUs %s%s on this host\n", key, shown, strcmp(shown, a) ? ",..." : "");
	put_kv(out, key, "", text);
}

int jl_scenario_write(const struct jl_scenario *sc, FILE *out)
{
	const struct jl_run_spec *r = &sc->run;
	char a[4096], b[64]; /* a: a sparse list of 1024 CPUs is ~2.5 KB */

	fprintf(out, "; effective scenario: %.120s%s, every default written out\n\n[run]\n", sc->path,
		strlen(sc->path) > 120 ? "..." : "");
	put_kv(out, "name", "", r->name);
	fprintf(out, "duration = %s\n", jl_format_duration(r->duration_ns, a, sizeof(a)));
	fprintf(out, "warmup = %s\n", jl_format_duration(r->warmup_ns, a, sizeof(a)));
	if (!r->trace_groups)
		fprintf(out, "trace = off\n");
	else
		fprintf(out, "trace = %s%s%s%s%s\n", r->trace_groups & JL_TRACE_SCHED ? "sched" : "",
			(r->trace_groups & JL_TRACE_SCHED) && (r->trace_groups & ~JL_TRACE_SCHED) ? "," : "",
			r->trace_groups & JL_TRACE_IRQ ? "irq" : "",
			(r->trace_groups & JL_TRACE_IRQ) && (r->trace_groups & JL_TRACE_TIMER) ? "," : "",
			r->trace_groups & JL_TRACE_TIMER ? "timer" : "");
	fprintf(out, "trace_buffer = %s\n", jl_format_size(r->trace_buffer, a, sizeof(a)));
	fprintf(out, "trace_threshold = %s\n", r->trace_threshold_ns ? jl_format_duration(r->trace_threshold_ns, a, sizeof(a)) : "none");
	if (r->isolate_set)
		put_cpus(out, "isolate", r->isolate_text, &r->isolate, a, sizeof(a));
	else
		put_kv(out, "isolate", "", "none");
	fprintf(out, "irq_affinity = %s\n", r->irq_affinity == JL_IRQ_KEEP ? "keep" : "housekeeping");
	fprintf(out, "cpu_dma_latency = %s\n", r->cpu_dma_latency_ns < 0 ? "off" : jl_format_duration(r->cpu_dma_latency_ns, a, sizeof(a)));
	if (r->rt_runtime_us == -2)
		fprintf(out, "rt_runtime = keep\n");
	else if (r->rt_runtime_us == -1)
		fprintf(out, "rt_runtime = unlimited\n");
	else
		fprintf(out, "rt_runtime = %s\n", jl_format_duration(r->rt_runtime_us * 1000, a, sizeof(a)));
	fprintf(out, "fair_server = %s\n", r->fair_server_ns < 0 ? "keep" : jl_format_duration(r->fair_server_ns, a, sizeof(a)));
	fprintf(out, "seed = %lld\n", r->seed);
	fprintf(out, "grace = %s\n", jl_format_duration(r->grace_ns, a, sizeof(a)));

	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		fprintf(out, "\n[thread %s]\npolicy = %s\n", t->name, jl_policy_name(t->place.policy));
		if (jl_policy_is_rt(t->place.policy))
			fprintf(out, "priority = %d\n", t->place.priority);
		if (t->place.policy == JL_POLICY_OTHER || t->place.policy == JL_POLICY_BATCH)
			fprintf(out, "nice = %d\n", t->place.nice);
		if (t->place.cpus_set)
			put_cpus(out, "cpus", t->place.cpus_text, &t->place.cpus, a, sizeof(a));
		else
			fprintf(out, "; cpus = (all allowed)\n");
		fprintf(out, "count = %u\n", t->place.count);
		if (t->beh.period_ns)
			fprintf(out, "period = %s\n", jl_format_duration(t->beh.period_ns, a, sizeof(a)));
		if (!t->beh.exec[0])
			fprintf(out, "work = %s\n", jl_work_format(&t->beh.work, a, sizeof(a)));
		if (t->beh.period_ns) {
			fprintf(out, "deadline = %s\n", jl_format_duration(jl_thread_deadline_ns(t), a, sizeof(a)));
			fprintf(out, "overrun = %s\n", t->beh.overrun == JL_OVERRUN_SKIP ? "skip" : "catchup");
		}
		if (t->place.policy == JL_POLICY_DEADLINE)
			fprintf(out, "runtime = %s\n", jl_format_duration(t->place.runtime_ns, a, sizeof(a)));
		fprintf(out, "mem_node = %s\n", t->place.mem_node < 0 ? "none" : (snprintf(b, sizeof(b), "%d", t->place.mem_node), b));
		fprintf(out, "start = %s\n", jl_format_duration(t->beh.start_ns, a, sizeof(a)));
		if (!t->beh.exec[0])
			fprintf(out, "measure = %s\n", jl_thread_measured(t) ? "yes" : "no");
		else {
			put_kv(out, "exec", "", t->beh.exec);
			fprintf(out, "user = %s\n", t->place.user == JL_USER_INVOKING ? "invoking" : "root");
		}
	}
	if (sc->nexpect) {
		fprintf(out, "\n[expect]\n");
		for (int i = 0; i < sc->nexpect; i++)
			put_kv(out, sc->expect[i].label, "", sc->expect[i].text);
	}
	if (sc->sweep.present) {
		fprintf(out, "\n[sweep]\nruns = %d\n", sc->sweep.runs);
		for (int i = 0; i < sc->sweep.nconditions; i++)
			put_kv(out, "condition.", sc->sweep.conditions[i].label, sc->sweep.conditions[i].overrides);
		for (int i = 0; i < sc->sweep.nvary; i++)
			put_kv(out, "vary.", sc->sweep.vary[i].key, sc->sweep.vary[i].values);
		if (sc->sweep.compare[0])
			put_kv(out, "compare", "", sc->sweep.compare);
	}
	return ferror(out) ? -1 : 0;
}
