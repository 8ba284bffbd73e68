/* scenario_same: compare two parsed scenarios field by field, as the round trip
 * parse -> jl_scenario_write -> parse must preserve them. Shared by tests/unit/test_scenario.c and the
 * fuzz target. Ignored: where things were written (file, line, key_line, path) and the spelling
 * (period_from_rate); compared by effect: deadline (0 means = period) and measure (-1 means default). */
#ifndef JL_TEST_SCENARIO_SAME_H
#define JL_TEST_SCENARIO_SAME_H

#include <stdio.h>
#include <string.h>

#include "rt/scenario/scenario.h"

#define JL_SAME_FIELD(what, a, b)                                                               \
	do {                                                                                    \
		if ((a) != (b)) {                                                               \
			snprintf(why, len, "%s differs", what);                                 \
			return 0;                                                               \
		}                                                                               \
	} while (0)
#define JL_SAME_STR(what, a, b)                                                                 \
	do {                                                                                    \
		if (strcmp((a), (b))) {                                                         \
			snprintf(why, len, "%s differs: '%.80s' vs '%.80s'", what, (a), (b));         \
			return 0;                                                               \
		}                                                                               \
	} while (0)

static inline int jl_test_scenario_same(const struct jl_scenario *x, const struct jl_scenario *y, char *why,
					size_t len)
{
	const struct jl_run_spec *a = &x->run, *b = &y->run;

	JL_SAME_STR("run.name", a->name, b->name);
	JL_SAME_FIELD("run.duration", a->duration_ns, b->duration_ns);
	JL_SAME_FIELD("run.warmup", a->warmup_ns, b->warmup_ns);
	JL_SAME_FIELD("run.trace", a->trace_groups, b->trace_groups);
	JL_SAME_FIELD("run.trace_buffer", a->trace_buffer, b->trace_buffer);
	JL_SAME_FIELD("run.trace_threshold", a->trace_threshold_ns, b->trace_threshold_ns);
	JL_SAME_FIELD("run.isolate_set", a->isolate_set, b->isolate_set);
	if (a->isolate_set) {
		JL_SAME_FIELD("run.isolate", CPU_EQUAL(&a->isolate, &b->isolate), 1);
		JL_SAME_STR("run.isolate as written", a->isolate_text, b->isolate_text);
	}
	JL_SAME_FIELD("run.irq_affinity", a->irq_affinity, b->irq_affinity);
	JL_SAME_FIELD("run.cpu_dma_latency", a->cpu_dma_latency_ns, b->cpu_dma_latency_ns);
	JL_SAME_FIELD("run.rt_runtime", a->rt_runtime_us, b->rt_runtime_us);
	JL_SAME_FIELD("run.fair_server", a->fair_server_ns, b->fair_server_ns);
	JL_SAME_FIELD("run.seed", a->seed, b->seed);
	JL_SAME_FIELD("run.grace", a->grace_ns, b->grace_ns);
	JL_SAME_FIELD("run.cleanup", a->cleanup, b->cleanup);
	JL_SAME_FIELD("run.samples", a->samples, b->samples);
	JL_SAME_FIELD("run.samples_memory", a->samples_memory, b->samples_memory);
	JL_SAME_FIELD("run.trace_keep", a->trace_keep, b->trace_keep);
	JL_SAME_FIELD("run.percentiles", a->percentiles, b->percentiles);
	JL_SAME_FIELD("run.tail", a->tail_ns, b->tail_ns);

	JL_SAME_FIELD("nthreads", x->nthreads, y->nthreads);
	for (int i = 0; i < x->nthreads; i++) {
		const struct jl_thread_spec *s = &x->threads[i], *t = &y->threads[i];

		JL_SAME_STR("thread name", s->name, t->name);
		JL_SAME_FIELD("policy", s->place.policy, t->place.policy);
		/* a priority is only used (and written) for fifo/rr, a nice for other/batch: an override of
		 * the policy keeps the other value for an override back */
		if (jl_policy_is_rt(s->place.policy))
			JL_SAME_FIELD("priority", s->place.priority, t->place.priority);
		if (s->place.policy == JL_POLICY_OTHER || s->place.policy == JL_POLICY_BATCH)
			JL_SAME_FIELD("nice", s->place.nice, t->place.nice);
		JL_SAME_FIELD("cpus_set", s->place.cpus_set, t->place.cpus_set);
		if (s->place.cpus_set) {
			JL_SAME_FIELD("cpus", CPU_EQUAL(&s->place.cpus, &t->place.cpus), 1);
			JL_SAME_STR("cpus as written", s->place.cpus_text, t->place.cpus_text);
		}
		JL_SAME_FIELD("count", s->place.count, t->place.count);
		JL_SAME_FIELD("period", s->beh.period_ns, t->beh.period_ns);
		JL_SAME_FIELD("work.kind", s->beh.work.kind, t->beh.work.kind);
		JL_SAME_FIELD("work.arg", s->beh.work.arg, t->beh.work.arg);
		JL_SAME_FIELD("deadline", s->beh.deadline_ns ? s->beh.deadline_ns : s->beh.period_ns,
			      t->beh.deadline_ns ? t->beh.deadline_ns : t->beh.period_ns);
		JL_SAME_FIELD("overrun", s->beh.overrun, t->beh.overrun);
		JL_SAME_FIELD("runtime", s->place.runtime_ns, t->place.runtime_ns);
		JL_SAME_FIELD("mem_node", s->place.mem_node, t->place.mem_node);
		JL_SAME_FIELD("start", s->beh.start_ns, t->beh.start_ns);
		JL_SAME_FIELD("measured", jl_thread_measured(s), jl_thread_measured(t));
		JL_SAME_STR("exec", s->beh.exec, t->beh.exec);
		JL_SAME_STR("threads", s->beh.threads, t->beh.threads);
		JL_SAME_FIELD("measure", s->beh.measure == JL_MEASURE_PROBE ? 2 : s->beh.measure == JL_MEASURE_WAKEUPS ? 3 : 0,
			      t->beh.measure == JL_MEASURE_PROBE ? 2 : t->beh.measure == JL_MEASURE_WAKEUPS ? 3 : 0);
		JL_SAME_FIELD("user", s->place.user, t->place.user);
	}
	JL_SAME_FIELD("nexecutors", x->nexecutors, y->nexecutors);
	for (int i = 0; i < x->nexecutors; i++) {
		const struct jl_executor_spec *s = &x->executors[i], *t = &y->executors[i];

		JL_SAME_STR("executor name", s->t.name, t->t.name);
		JL_SAME_FIELD("executor policy", s->t.place.policy, t->t.place.policy);
		if (jl_policy_is_rt(s->t.place.policy))
			JL_SAME_FIELD("executor priority", s->t.place.priority, t->t.place.priority);
		JL_SAME_FIELD("executor cpus_set", s->t.place.cpus_set, t->t.place.cpus_set);
		JL_SAME_FIELD("executor threads", s->t.place.count, t->t.place.count);
		JL_SAME_FIELD("dispatch", s->dispatch, t->dispatch);
	}
	JL_SAME_FIELD("ncallbacks", x->ncallbacks, y->ncallbacks);
	for (int i = 0; i < x->ncallbacks; i++) {
		const struct jl_callback_spec *s = &x->callbacks[i], *t = &y->callbacks[i];

		JL_SAME_STR("callback name", s->name, t->name);
		JL_SAME_STR("callback executor", s->executor, t->executor);
		JL_SAME_STR("callback node", s->node, t->node);
		JL_SAME_STR("callback group", s->group, t->group);
		JL_SAME_FIELD("callback period", s->period_ns, t->period_ns);
		JL_SAME_FIELD("callback phase", s->phase_ns, t->phase_ns);
		JL_SAME_FIELD("callback work.kind", s->work.kind, t->work.kind);
		JL_SAME_FIELD("callback work.arg", s->work.arg, t->work.arg);
		JL_SAME_FIELD("callback deadline", s->deadline_ns ? s->deadline_ns : s->period_ns,
			      t->deadline_ns ? t->deadline_ns : t->period_ns);
		JL_SAME_STR("callback trigger", s->trigger, t->trigger);
		JL_SAME_FIELD("callback jitter", s->jitter_ns, t->jitter_ns);
		JL_SAME_STR("callback poll", s->poll, t->poll);
		JL_SAME_STR("callback publish", s->publish, t->publish);
	}
	/* topics and queues share one array, in the order their sections came; a written scenario has each kind's
	 * sections together (the order within a kind kept): what must be the same is each kind's list, by name */
	JL_SAME_FIELD("ntopics", x->ntopics, y->ntopics);
	for (int kind = 0; kind < 2; kind++)
		for (int i = 0, j = 0;; i++, j++) {
			for (; i < x->ntopics && x->topics[i].queue != kind; i++)
				;
			for (; j < y->ntopics && y->topics[j].queue != kind; j++)
				;
			if (i >= x->ntopics || j >= y->ntopics) {
				JL_SAME_FIELD(kind ? "queues" : "topics", i >= x->ntopics, j >= y->ntopics);
				break;
			}
			JL_SAME_STR("topic name", x->topics[i].name, y->topics[j].name);
			JL_SAME_FIELD("topic depth", x->topics[i].depth, y->topics[j].depth);
			JL_SAME_FIELD("topic keep", x->topics[i].keep, y->topics[j].keep);
			JL_SAME_FIELD("queue limit", x->topics[i].limit, y->topics[j].limit);
		}
	JL_SAME_FIELD("nsyncs", x->nsyncs, y->nsyncs);
	for (int i = 0; i < x->nsyncs; i++) {
		const struct jl_sync_spec *s = &x->syncs[i], *t = &y->syncs[i];

		JL_SAME_STR("sync name", s->name, t->name);
		JL_SAME_FIELD("sync algorithm", s->algorithm, t->algorithm);
		JL_SAME_STR("sync input 0", s->inputs[0], t->inputs[0]);
		JL_SAME_STR("sync input 1", s->inputs[1], t->inputs[1]);
		if (s->algorithm)
			JL_SAME_FIELD("sync slop", s->slop_ns, t->slop_ns);
		else
			JL_SAME_FIELD("sync max_interval", s->max_interval_ns, t->max_interval_ns);
		JL_SAME_FIELD("sync queue", s->queue, t->queue);
		JL_SAME_STR("sync publish", s->publish, t->publish);
	}
	JL_SAME_FIELD("nbudgets", x->nbudgets, y->nbudgets);
	for (int i = 0; i < x->nbudgets; i++) {
		JL_SAME_FIELD("budget kind", x->budgets[i].e2e, y->budgets[i].e2e);
		JL_SAME_STR("budget callback", x->budgets[i].callback, y->budgets[i].callback);
		JL_SAME_FIELD("budget", x->budgets[i].limit_ns, y->budgets[i].limit_ns);
	}
	JL_SAME_FIELD("ngates", x->ngates, y->ngates);
	for (int i = 0; i < x->ngates; i++) {
		const struct jl_gate *e = &x->gates[i], *f = &y->gates[i];

		JL_SAME_STR("gate label", e->label, f->label);
		JL_SAME_STR("gate text", e->text, f->text);
		JL_SAME_STR("gate thread", e->thread, f->thread);
		JL_SAME_STR("gate metric", e->metric, f->metric);
		JL_SAME_FIELD("gate kind", e->kind, f->kind);
		JL_SAME_FIELD("gate relative", e->relative, f->relative);
		JL_SAME_FIELD("gate amount", memcmp(&e->amount, &f->amount, sizeof(e->amount)), 0);
	}
	JL_SAME_FIELD("nexpect", x->nexpect, y->nexpect);
	for (int i = 0; i < x->nexpect; i++) {
		const struct jl_expect *e = &x->expect[i], *f = &y->expect[i];

		JL_SAME_STR("expect label", e->label, f->label);
		JL_SAME_STR("expect text", e->text, f->text);
		JL_SAME_STR("expect thread", e->thread, f->thread);
		JL_SAME_STR("expect metric", e->metric, f->metric);
		JL_SAME_FIELD("expect op", e->op, f->op);
		JL_SAME_FIELD("expect value", memcmp(&e->value, &f->value, sizeof(e->value)), 0);
	}
	JL_SAME_FIELD("sweep.present", x->sweep.present, y->sweep.present);
	if (x->sweep.present) {
		JL_SAME_FIELD("sweep.runs", x->sweep.runs, y->sweep.runs);
		JL_SAME_FIELD("sweep.nconditions", x->sweep.nconditions, y->sweep.nconditions);
		for (int i = 0; i < x->sweep.nconditions; i++) {
			JL_SAME_STR("condition label", x->sweep.conditions[i].label, y->sweep.conditions[i].label);
			JL_SAME_STR("condition", x->sweep.conditions[i].overrides, y->sweep.conditions[i].overrides);
		}
		JL_SAME_STR("sweep.compare", x->sweep.compare, y->sweep.compare);
		JL_SAME_FIELD("sweep.nvary", x->sweep.nvary, y->sweep.nvary);
		for (int i = 0; i < x->sweep.nvary; i++) {
			JL_SAME_STR("vary key", x->sweep.vary[i].key, y->sweep.vary[i].key);
			JL_SAME_STR("vary values", x->sweep.vary[i].values, y->sweep.vary[i].values);
		}
	}
	return 1;
}

#undef JL_SAME_FIELD
#undef JL_SAME_STR

#endif
