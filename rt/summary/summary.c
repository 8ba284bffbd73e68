/* summary: summary.json with json-c (never hand-built text). */
#include "../base/clock.h"
#include "summary.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>

#include "../../affinity/cpulist.h"
#include "../../affinity/topology.h"
#include "../base/host.h"
#include "../base/units.h"
#include "../base/lock.h"
#include "../engine/chains.h"
#include "../engine/request.h"
#include "../scenario/scenario.h"
#include "../base/summary_keys.h"


static json_object *dist_json(const struct jl_dist *d, bool full)
{
	json_object *o = json_object_new_object();

	jl_json_add_i64(o, JL_K(min), d->min);
	jl_json_add_i64(o, JL_K(mean), (int64_t)(d->mean + 0.5));
	if (full)
		jl_json_add_i64(o, JL_K(stddev), (int64_t)(d->stddev + 0.5));
	jl_json_add_i64(o, JL_K(p50), d->p50);
	if (full)
		jl_json_add_i64(o, JL_K(p90), d->p90);
	jl_json_add_i64(o, JL_K(p99), d->p99);
	if (full)
		jl_json_add_i64(o, JL_K(p999), d->p999);
	jl_json_add_i64(o, JL_K(max), d->max);
	return o;
}

/* `percentiles`: "exact" (every cycle kept: nearest rank), or the histogram's bound (stream.h) */
static void percentiles_json(json_object *t, bool exact)
{
	json_object *p;

	if (exact) {
		json_object_object_add(t, JL_K(percentiles), json_object_new_string("exact"));
		return;
	}
	p = json_object_new_object();
	json_object_object_add(p, JL_K(method), json_object_new_string("log-linear histogram, nearest rank, bucket's highest value"));
	json_object_object_add(p, JL_K(relative_error), json_object_new_double(JL_HIST_REL_ERROR));
	json_object_object_add(t, JL_K(percentiles), p);
}

/* Hybrid machines only: `core_types`, the core types of the CPUs the thread ran on (["performance"],
 * ["efficiency"], both when it ran on both; [] when it ran nowhere). Nothing on a machine of one type. */
static void core_types_json(json_object *t, const char *cpus_used)
{
	const char *types[8];
	char err[128];
	cpu_set_t used;
	json_object *a;
	int n;

	if (!cpus_used[0])
		CPU_ZERO(&used);
	else if (jl_cpulist_parse(cpus_used, &used, err, sizeof(err)))
		return;
	n = jl_topo_core_types(NULL, &used, types, 8);
	if (n < 0)
		return;
	a = json_object_new_array();
	for (int i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(types[i]));
	json_object_object_add(t, JL_K(core_types), a);
}

/* A measured series' latency (with its max's cycle and its percentiles), worst cycles, period and response,
 * into T. */
static void latency_json(json_object *t, const struct jl_series_result *r)
{
	json_object *worst = json_object_new_array(), *o;

	o = dist_json(&r->latency, true);
	jl_json_add_i64(o, JL_K(max_cycle), (int64_t)r->latency_max_cycle);
	json_object_object_add(t, JL_K(latency_ns), o);
	percentiles_json(t, r->exact);
	for (int k = 0; k < r->nworst; k++) {
		json_object *w = json_object_new_object();

		jl_json_add_i64(w, JL_K(cycle), (int64_t)r->worst[k].cycle);
		jl_json_add_i64(w, JL_K(latency_ns), r->worst[k].value);
		json_object_array_add(worst, w);
	}
	json_object_object_add(t, JL_K(worst), worst);
	o = dist_json(&r->period, false);
	json_object_object_add(o, JL_K(stddev), json_object_new_int64((int64_t)(r->period.stddev + 0.5)));
	json_object_object_add(t, JL_K(period_ns_stats), o);
	json_object_object_add(t, JL_K(response_ns), dist_json(&r->response, false));
}

/* A subscriber's messages: counts, its mode, the fraction consumed. */
static json_object *messages_json(const struct jl_series_result *r)
{
	json_object *m = json_object_new_object();

	jl_json_add_i64(m, JL_K(published), (int64_t)r->s->msgs.published);
	jl_json_add_i64(m, JL_K(consumed), (int64_t)r->s->msgs.consumed);
	jl_json_add_i64(m, JL_K(dropped), (int64_t)r->s->msgs.dropped);
	jl_json_add_i64(m, JL_K(rereads), (int64_t)r->s->msgs.rereads);
	jl_json_add_i64(m, JL_K(never_consumed), (int64_t)r->s->msgs.never);
	jl_json_add_i64(m, JL_K(limit_errors), (int64_t)r->s->msgs.limit_errors);
	json_object_object_add(m, JL_K(mode), json_object_new_string(r->s->msgs.poll ? "poll" : "trigger"));
	json_object_object_add(m, JL_K(consumed_fraction), json_object_new_double(r->s->msgs.published
		? (double)r->s->msgs.consumed / (double)r->s->msgs.published : 0.0));
	return m;
}

/* A trace-only series (measure = wakeups): how its cycles' releases were found, counted in the window. */
static json_object *release_json(const struct jl_series *s)
{
	json_object *o = json_object_new_object();

	jl_json_add_i64(o, JL_K(from_timer), (int64_t)s->release.timer);
	jl_json_add_i64(o, JL_K(from_waking), (int64_t)s->release.waking);
	jl_json_add_i64(o, JL_K(relative), (int64_t)s->release.relative);
	jl_json_add_i64(o, JL_K(timer_unarmed), (int64_t)s->release.unarmed);
	jl_json_add_i64(o, JL_K(timer_clock), (int64_t)s->release.clock);
	jl_json_add_i64(o, JL_K(caught_running), (int64_t)s->release.caught);
	json_object_object_add(o, JL_K(timer_recorded), json_object_new_boolean(s->release.timer_recorded));
	return o;
}

/* One entry of `threads`: a series (a [thread]'s one series has the thread's name), with the figures of
 * the OS thread that wrote it (tid, CPU time, context switches) and its section's placement. */
/* A series' policy, priority and nice: its section's, or as found for a thread jitterlab did not place. */
static void policy_json(json_object *t, const struct jl_series_result *r)
{
	const struct jl_placement *pl = &r->spec->place;
	const bool seen = r->s->trace_only && r->s->seen_policy >= 0;
	const int policy = seen ? r->s->seen_policy : (int)pl->policy;

	json_object_object_add(t, JL_K(policy), json_object_new_string(jl_policy_name(policy)));
	json_object_object_add(t, JL_K(priority), json_object_new_int(seen ? r->s->seen_priority
								 : jl_policy_is_rt(pl->policy) ? pl->priority : 0));
	json_object_object_add(t, JL_K(nice), json_object_new_int(seen ? r->s->seen_nice : pl->nice));
}

static json_object *series_json(const struct jl_series_result *r)
{
	const struct jl_thread *th = r->th;
	const struct jl_thread_spec *spec = r->spec;
	json_object *t = json_object_new_object(), *o;

	json_object_object_add(t, JL_K(name), json_object_new_string(r->name));
	json_object_object_add(t, JL_K(thread), th ? json_object_new_string(th->name) : NULL); /* null: no one thread */
	policy_json(t, r);
	json_object_object_add(t, JL_K(cpus), json_object_new_string(r->cpus));
	jl_json_add_i64(t, JL_K(period_ns), r->period_ns);
	json_object_object_add(t, JL_K(measured), json_object_new_boolean(r->measured));
	json_object_object_add(t, JL_K(kind), json_object_new_string(r->s->kind));
	json_object_object_add(t, JL_K(tid), json_object_new_int(th ? th->tid : r->s->tid));
	if (th && th->attached) {
		json_object_object_add(t, JL_K(attach), json_object_new_string(spec->beh.attach));
	} else if (th && th->is_exec) {
		json_object_object_add(t, JL_K(exec), json_object_new_string(spec->beh.exec));
		/* like a shell: the exit code, or 128 + the signal that ended it; -1 if never reaped */
		int st = th->exit_status;

		json_object_object_add(t, JL_K(exit_status), json_object_new_int(st < 0 ? -1 : WIFEXITED(st) ? WEXITSTATUS(st)
							: WIFSIGNALED(st) ? 128 + WTERMSIG(st) : -1));
	} else {
		char w[128];

		json_object_object_add(t, JL_K(work_kind), json_object_new_string(jl_work_format(&spec->beh.work, w, sizeof(w))));
	}
	if (th && th->errmsg[0])
		json_object_object_add(t, JL_K(error), json_object_new_string(th->errmsg));
	jl_json_add_i64(t, JL_K(cycles), (int64_t)r->cycles);
	if (r->periodic) {
		jl_json_add_i64(t, JL_K(releases), (int64_t)r->releases);
		jl_json_add_i64(t, JL_K(not_started), (int64_t)r->not_started);
	}
	jl_json_add_i64(t, JL_K(window_start_ns), r->window_start_ns);
	jl_json_add_i64(t, JL_K(window_end_ns), r->window_end_ns);
	if (r->s->dropped)
		jl_json_add_i64(t, JL_K(dropped_samples), (int64_t)r->s->dropped);
	json_object_object_add(t, JL_K(rate_hz), json_object_new_double(r->rate_hz));
	json_object_object_add(t, JL_K(nominal_hz), json_object_new_double(r->nominal_hz));
	jl_json_add_i64(t, JL_K(misses), (int64_t)r->misses);
	jl_json_add_i64(t, JL_K(skipped), (int64_t)r->skipped);
	if (r->periodic || r->cycles)
		latency_json(t, r);
	if (r->s->has_origin) {
		o = dist_json(&r->age, true);
		jl_json_add_i64(o, JL_K(count), (int64_t)r->aged);
		json_object_object_add(t, JL_K(age_ns), o);
		json_object_object_add(t, JL_K(e2e_ns), dist_json(&r->e2e, true));
	}
	if (r->s->msgs.subscriber)
		json_object_object_add(t, JL_K(messages), messages_json(r));
	if (r->s->trace_only)
		json_object_object_add(t, JL_K(release), release_json(r->s));
	if (r->s->any_thread) { /* a probed server's request series: the work its requests did for nobody */
		jl_json_add_i64(t, JL_K(wasted_ns), r->s->wasted_ns);
		if (r->s->deadline_ns > 0) /* a client's: its requests have a deadline */
			jl_json_add_i64(t, JL_K(given_up), (int64_t)r->s->given_up);
	}
	o = json_object_new_object();
	jl_json_add_i64(o, JL_K(calls), (int64_t)r->work_calls);
	jl_json_add_i64(o, JL_K(mean_ns), (int64_t)(r->work_mean_ns + 0.5));
	jl_json_add_i64(o, JL_K(max_ns), r->work_max_ns);
	json_object_object_add(t, JL_K(work), o);
	jl_json_add_i64(t, JL_K(cpu_time_ns), r->cpu_time_ns);
	o = json_object_new_object();
	jl_json_add_i64(o, JL_K(voluntary), r->ctx_voluntary);
	jl_json_add_i64(o, JL_K(involuntary), r->ctx_involuntary);
	json_object_object_add(t, JL_K(ctx_switches), o);
	json_object_object_add(t, JL_K(cpus_used), json_object_new_string(r->cpus_used));
	core_types_json(t, r->cpus_used);
	if (spec->beh.start_ns)
		jl_json_add_i64(t, JL_K(start_ns), spec->beh.start_ns);
	if (spec->place.mem_node >= 0) {
		json_object_object_add(t, JL_K(mem_node), json_object_new_int(spec->place.mem_node));
		json_object_object_add(t, JL_K(mem_node_used), json_object_new_int(th ? th->mem_node_used : -1));
	}
	return t;
}

static json_object *short_dist_json(const struct jl_dist *d)
{
	json_object *o = json_object_new_object();

	jl_json_add_i64(o, JL_K(mean), (int64_t)(d->mean + 0.5));
	jl_json_add_i64(o, JL_K(p99), d->p99);
	jl_json_add_i64(o, JL_K(max), d->max);
	return o;
}

/* A poll's analytic expectation (its topic's one publisher an unjittered timer, of period Tp; the poll's
 * Tq): it adds about min(Tp, Tq) / 2 to the data's age (measured: its age at the read minus the
 * publisher's at its end) and consumes min(1, Tp / Tq) of the messages. That model averages over a
 * random phase. When one period is a multiple of the other the phase never moves: every poll finds the
 * latest message the same time old, (phase - the publisher's end) mod min(Tp, Tq), where phase is the
 * poll's first release less the publisher's (aligned starts: a whole period, e.g. 15 ms for a 60 ms poll
 * of a 15 ms publisher, where the random-phase model says 7.5). Both are given. */
/* The index of ENG's series called NAME (0 when none: the caller found it before). */
static int k_of(const struct jl_engine *eng, const char *name)
{
	for (int k = 0; k < eng->nseries; k++)
		if (!strcmp(eng->series[k].name, name))
			return k;
	return 0;
}

static void poll_model_json(const struct jl_engine *eng, const struct jl_series_result *res, int i, json_object *t)
{
	const struct jl_scenario *sc = eng->sc;
	const struct jl_callback_spec *c = jl_scenario_callback(sc, eng->series[i].name), *pub = NULL;
	const struct jl_series_result *pr = NULL;
	json_object *o, *x;
	int npub = 0;
	int64_t tp, tq;

	if (!c || !c->poll[0])
		return;
	for (int k = 0; k < sc->ncallbacks; k++)
		if (!strcmp(sc->callbacks[k].publish, c->poll)) {
			pub = &sc->callbacks[k];
			npub++;
		}
	if (npub != 1 || !pub->period_ns || pub->jitter_ns || pub->trigger[0] || pub->poll[0])
		return;
	for (int k = 0; k < eng->nseries; k++)
		if (!strcmp(eng->series[k].name, pub->name))
			pr = &res[k];
	if (!pr || !res[i].aged)
		return;
	tp = pub->period_ns;
	tq = c->period_ns;
	o = json_object_new_object();
	json_object_object_add(o, JL_K(publisher), json_object_new_string(pub->name));
	jl_json_add_i64(o, JL_K(publisher_period_ns), tp);
	jl_json_add_i64(o, JL_K(poll_period_ns), tq);
	x = json_object_new_object();
	jl_json_add_i64(x, JL_K(expected), (tp < tq ? tp : tq) / 2);
	jl_json_add_i64(x, JL_K(measured), (int64_t)(res[i].age.mean - pr->e2e.mean + 0.5));
	{
		int64_t m = tp < tq ? tp : tq, big = tp < tq ? tq : tp;
		bool harmonic = m > 0 && big % m == 0;

		json_object_object_add(o, JL_K(harmonic), json_object_new_boolean(harmonic));
		if (harmonic) { /* the phase is locked: the age the actual phase gives, beside the model's */
			int64_t phase = eng->series[i].first_release - eng->series[k_of(eng, pub->name)].first_release;
			int64_t end = (int64_t)(pr->e2e.mean + 0.5), locked = ((phase - end) % m + m) % m;

			jl_json_add_i64(o, JL_K(phase_ns), ((phase % m) + m) % m);
			jl_json_add_i64(x, JL_K(expected_phase_locked), locked ? locked : m);
		}
	}
	json_object_object_add(o, JL_K(added_age_ns), x);
	x = json_object_new_object();
	json_object_object_add(x, JL_K(expected), json_object_new_double(tp >= tq ? 1.0 : (double)tp / (double)tq));
	json_object_object_add(x, JL_K(measured), json_object_new_double(eng->series[i].msgs.published
		? (double)eng->series[i].msgs.consumed / (double)eng->series[i].msgs.published : 0.0));
	json_object_object_add(o, JL_K(consumed_fraction), x);
	json_object_object_add(t, JL_K(poll_model), o);
}

/* The chain ending at subscriber series I (chains.h): its path, data age and reaction time per input,
 * the per-stage breakdown and the worst output's parts */
static void chain_json(const struct jl_engine *eng, const struct jl_series_result *res, int i, json_object *t)
{
	struct jl_chain c;
	json_object *o, *a, *h, *w, *ws, *stages;

	if (jl_chain_compute(eng->series, eng->nseries, i, res[i].window_start_ns, res[i].window_end_ns, &c) ||
	    !c.nstages)
		return;
	o = json_object_new_object();
	a = json_object_new_array();
	h = json_object_new_array();
	ws = json_object_new_array();
	stages = json_object_new_array();
	for (int k = 0; k < c.nstages; k++) {
		const struct jl_series *s = &eng->series[c.stages[k].series];
		const struct jl_callback_spec *cb = jl_scenario_callback(eng->sc, s->name);
		json_object *st = json_object_new_object(), *x = json_object_new_object();

		json_object_array_add(a, json_object_new_string(s->name));
		if (k > 0) { /* the hop into this stage: the sync it came out of, or the topic it consumed */
			char hop[JL_NAME_MAX + 8];

			if (c.stages[k].via_sync && c.stages[k].via_sync <= eng->sc->nsyncs)
				snprintf(hop, sizeof(hop), "sync %s", eng->sc->syncs[c.stages[k].via_sync - 1].name);
			else
				snprintf(hop, sizeof(hop), "%s", cb ? (cb->trigger[0] ? cb->trigger : cb->poll) : "");
			json_object_array_add(h, json_object_new_string(hop));
		}
		json_object_object_add(st, JL_K(callback), json_object_new_string(s->name));
		json_object_object_add(st, JL_K(wait_ns), short_dist_json(&c.stages[k].wait));
		json_object_object_add(st, JL_K(run_ns), short_dist_json(&c.stages[k].run));
		json_object_object_add(x, JL_K(callback), json_object_new_string(s->name));
		jl_json_add_i64(x, JL_K(wait_ns), c.stages[k].worst_wait);
		jl_json_add_i64(x, JL_K(run_ns), c.stages[k].worst_run);
		json_object_array_add(ws, x);
		json_object_array_add(stages, st);
	}
	json_object_object_add(o, JL_K(path), a);
	json_object_object_add(o, JL_K(hops), h);
	jl_json_add_i64(o, JL_K(outputs), (int64_t)c.outputs);
	jl_json_add_i64(o, JL_K(other_paths), (int64_t)c.other_paths);
	jl_json_add_i64(o, JL_K(broken_links), (int64_t)c.broken);
	jl_json_add_i64(o, JL_K(inputs), (int64_t)c.inputs);
	jl_json_add_i64(o, JL_K(unused_inputs), (int64_t)c.unused_inputs);
	jl_json_add_i64(o, JL_K(pending_inputs), (int64_t)c.pending_inputs);
	w = dist_json(&c.data_age, false);
	jl_json_add_i64(w, JL_K(count), (int64_t)c.data_age.n);
	json_object_object_add(o, JL_K(data_age_ns), w);
	w = dist_json(&c.reaction, false);
	jl_json_add_i64(w, JL_K(count), (int64_t)c.reaction.n);
	json_object_object_add(o, JL_K(reaction_ns), w);
	jl_json_add_i64(o, JL_K(bound_ns), c.bound_ns);
	json_object_object_add(o, JL_K(stages), stages);
	w = json_object_new_object();
	jl_json_add_i64(w, JL_K(e2e_ns), c.worst_e2e);
	jl_json_add_i64(w, JL_K(end_ns), c.worst_end);
	json_object_object_add(w, JL_K(stages), ws);
	json_object_object_add(o, JL_K(worst), w);
	json_object_object_add(t, JL_K(chain), o);
}

/* The OS thread of TID among the engine's, or NULL */
static const struct jl_thread *thread_of_tid(const struct jl_engine *eng, int32_t tid)
{
	for (int t = 0; t < eng->nthreads; t++)
		if (eng->threads[t].tid == tid)
			return &eng->threads[t];
	return NULL;
}

/* One [lock]: its acquisitions in the measured phase, the wait (asked -> taken) and the hold (taken ->
 * given back), overall and per thread that took it (the waiter a priority protocol is judged by) */
static json_object *lock_json(const struct jl_engine *eng, const struct jl_lock *l)
{
	const size_t n = jl_lock_count(l);
	int64_t *wait = malloc((n + 1) * sizeof(*wait)), *hold = malloc((n + 1) * sizeof(*hold));
	json_object *o = json_object_new_object(), *by = json_object_new_object(), *x;
	size_t k = 0;

	json_object_object_add(o, JL_K(name), json_object_new_string(l->name));
	json_object_object_add(o, JL_K(kind), json_object_new_string(jl_lock_kind_name(l->kind)));
	if (l->kind == JL_LOCK_CEILING)
		json_object_object_add(o, JL_K(ceiling), json_object_new_int(l->ceiling));
	if (l->kind == JL_LOCK_BIGLOCK) {
		jl_json_add_i64(o, JL_K(switch_interval_ns), l->big.interval_ns);
		jl_json_add_i64(o, JL_K(handoffs), (int64_t)l->big.handoffs);
		jl_json_add_i64(o, JL_K(forced_drops), (int64_t)atomic_load(&((struct jl_lock *)l)->big.forced));
	}
	if (!wait || !hold) {
		free(wait);
		free(hold);
		json_object_put(by);
		return o;
	}
	for (int t = 0; t < eng->nthreads; t++) { /* per thread that took it */
		const struct jl_thread *th = &eng->threads[t];
		size_t m = 0;

		for (size_t i = 0; i < n; i++) {
			const struct jl_lock_sample *s = &l->samples[i];

			if (s->tid == th->tid && s->got >= eng->t_measure && s->ask < eng->t_end)
				wait[m++] = s->got - s->ask;
		}
		if (m) {
			struct jl_dist d;

			x = json_object_new_object();
			json_object_object_add(x, JL_K(tid), json_object_new_int(th->tid));
			jl_json_add_i64(x, JL_K(acquisitions), (int64_t)m);
			if (!jl_dist_compute(wait, m, NULL, &d))
				json_object_object_add(x, JL_K(wait_ns), short_dist_json(&d));
			json_object_object_add(by, th->name, x);
		}
	}
	for (size_t i = 0; i < n; i++) {
		const struct jl_lock_sample *s = &l->samples[i];

		if (s->got < eng->t_measure || s->ask >= eng->t_end || !thread_of_tid(eng, s->tid))
			continue;
		wait[k] = s->got - s->ask;
		hold[k++] = s->rel - s->got;
	}
	jl_json_add_i64(o, JL_K(acquisitions), (int64_t)k);
	jl_json_add_i64(o, JL_K(not_kept), (int64_t)jl_lock_dropped(l));
	jl_json_add_i64(o, JL_K(errors), (int64_t)atomic_load(&l->errors));
	{
		struct jl_dist dw, dh;

		if (!jl_dist_compute(wait, k, NULL, &dw) && !jl_dist_compute(hold, k, NULL, &dh)) {
			json_object_object_add(o, JL_K(wait_ns), dist_json(&dw, false));
			json_object_object_add(o, JL_K(hold_ns), dist_json(&dh, false));
		}
	}
	json_object_object_add(o, JL_K(threads), by);
	free(wait);
	free(hold);
	return o;
}

/* The requests of every [source], as its client saw them: how many, by status, the latency
 * (to the reply, or to the deadline when the client gave up first), and the work its servers did after
 * the client had given up (wasted), over the request and every call it caused */
static json_object *sources_json(const struct jl_engine *eng)
{
	size_t n, lost;
	const struct jl_request *reqs = jl_executor_requests(eng, &n, &lost);
	json_object *arr = json_object_new_array();
	int64_t *lat = malloc((n + 1) * sizeof(*lat));

	for (int si = 0; lat && si < eng->sc->nsources; si++) {
		const struct jl_source_spec *sp = &eng->sc->sources[si];
		json_object *o = json_object_new_object(), *st = json_object_new_object();
		uint64_t count[4] = { 0 };
		int64_t wasted = 0, wmax = 0;
		size_t m = 0, total = 0;
		struct jl_dist d;

		for (size_t i = 0; i < n; i++) {
			const struct jl_request *r = &reqs[i], *root = jl_request_root(reqs, n, r);
			const enum jl_req_status status = jl_request_status(r);
			int64_t w = jl_request_wasted(reqs, n, r);

			if (root->source != si)
				continue;
			wasted += w;
			if (r != root)
				continue;
			total++;
			count[status & 3]++;
			if (status == JL_REQ_REFUSED)
				continue; /* refused at once: no latency to speak of */
			if (r->end && (!r->deadline || r->end <= r->deadline))
				lat[m++] = r->end - r->created;
			else if (r->deadline && r->deadline <= eng->t_end)
				lat[m++] = r->deadline - r->created; /* the client gave up at its deadline, in the run */
			if (w > wmax)
				wmax = w;
		}
		json_object_object_add(o, JL_K(name), json_object_new_string(sp->t.name));
		json_object_object_add(o, JL_K(queue), json_object_new_string(sp->target));
		jl_json_add_i64(o, JL_K(requests), (int64_t)total);
		for (int k = 0; k < 4; k++)
			jl_json_add_i64(st, jl_req_status_name((enum jl_req_status)k), (int64_t)count[k]);
		json_object_object_add(o, JL_K(status), st);
		if (!jl_dist_compute(lat, m, NULL, &d)) {
			json_object *l = dist_json(&d, false);

			jl_json_add_i64(l, JL_K(count), (int64_t)m);
			json_object_object_add(o, JL_K(client_latency_ns), l);
		}
		jl_json_add_i64(o, JL_K(wasted_ns), wasted);
		jl_json_add_i64(o, JL_K(wasted_max_ns), wmax);
		json_object_array_add(arr, o);
	}
	free(lat);
	return arr;
}

void jl_summary_lock_boosts(json_object *summary)
{
	json_object *locks, *boosts = NULL, *tr;

	if (!json_object_object_get_ex(summary, JL_K(locks), &locks) || !json_object_object_get_ex(summary, JL_K(trace), &tr) ||
	    !json_object_object_get_ex(tr, JL_K(pi_boosts), &boosts))
		return;
	for (size_t i = 0; i < json_object_array_length(locks); i++) {
		json_object *l = json_object_array_get_idx(locks, i), *by, *kind;
		int64_t sum = 0;

		/* only a pi lock boosts; its takers' boosts from other PI locks (an executor's own) count too:
		 * the trace names the raised task, not the lock */
		if (!json_object_object_get_ex(l, JL_K(kind), &kind) || strcmp(json_object_get_string(kind), "pi") ||
		    !json_object_object_get_ex(l, JL_K(threads), &by))
			continue;
		json_object_object_foreach(by, name, v) {
			json_object *tid;

			(void)name;
			if (!json_object_object_get_ex(v, JL_K(tid), &tid))
				continue;
			for (size_t k = 0; k < json_object_array_length(boosts); k++) {
				json_object *b = json_object_array_get_idx(boosts, k), *bt, *bn;

				if (json_object_object_get_ex(b, JL_K(tid), &bt) && json_object_get_int(bt) == json_object_get_int(tid) &&
				    json_object_object_get_ex(b, JL_K(boosts), &bn))
					sum += json_object_get_int64(bn);
			}
		}
		jl_json_add_i64(l, JL_K(boosts), sum);
	}
}

static json_object *i64_array(const int64_t *v, int n, size_t stride)
{
	json_object *a = json_object_new_array();

	for (int k = 0; k < n; k++)
		json_object_array_add(a, json_object_new_int64(v[(size_t)k * stride]));
	return a;
}

/* `intervals`: per measured series its worst latency per interval (the OSADL farm's "max per 5 min"),
 * with each thermal zone's highest temperature and each CPU's frequency over the same intervals. Only the
 * intervals the run reached. */
static json_object *intervals_json(const struct jl_engine *eng, const struct jl_collector *w)
{
	json_object *o = json_object_new_object(), *ser = json_object_new_object();
	int64_t end = jl_engine_window_end(eng);
	int n = (int)((end - w->t_first + w->o.interval_ns - 1) / w->o.interval_ns);
	int64_t *buf;

	if (n > w->nintervals)
		n = w->nintervals;
	if (n < 0)
		n = 0;
	jl_json_add_i64(o, JL_K(interval_ns), w->o.interval_ns);
	jl_json_add_i64(o, JL_K(start_ns), w->t_first);
	jl_json_add_i64(o, JL_K(count), n);
	buf = malloc(((size_t)n + 1) * 4 * sizeof(*buf));
	if (!buf)
		return o;
	for (int i = 0; i < w->nseries; i++) {
		const struct jl_collector_interval *iv = &w->intervals[(size_t)i * (size_t)w->nintervals];
		json_object *x;

		if (!w->acc[i])
			continue;
		x = json_object_new_object();
		for (int k = 0; k < n; k++) {
			buf[k] = iv[k].cycles ? iv[k].max_latency : -1;
			buf[n + k] = (int64_t)iv[k].max_cycle;
			buf[2 * n + k] = (int64_t)iv[k].cycles;
			buf[3 * n + k] = (int64_t)iv[k].misses;
		}
		json_object_object_add(x, JL_K(max_latency_ns), i64_array(buf, n, 1));
		json_object_object_add(x, JL_K(max_cycle), i64_array(buf + n, n, 1));
		json_object_object_add(x, JL_K(cycles), i64_array(buf + 2 * n, n, 1));
		json_object_object_add(x, JL_K(misses), i64_array(buf + 3 * n, n, 1));
		json_object_object_add(ser, eng->series[i].name, x);
	}
	json_object_object_add(o, JL_K(series), ser);
	if (w->m.nzones) {
		json_object *z = json_object_new_object();

		for (int k = 0; k < w->m.nzones; k++)
			json_object_object_add(z, w->m.zone[k], i64_array(w->m.temp + k, n, (size_t)w->m.nzones));
		json_object_object_add(o, JL_K(thermal_mC), z);
	}
	if (w->m.ncpus) {
		json_object *c = json_object_new_object();

		for (int k = 0; k < w->m.ncpus; k++) {
			json_object *x = json_object_new_object();
			char name[32];

			for (int j = 0; j < n; j++) {
				size_t i = (size_t)j * (size_t)w->m.ncpus + (size_t)k;

				buf[j] = w->m.freq[3 * i];
				buf[n + j] = w->m.nfreq[i] ? w->m.freq[3 * i + 1] / w->m.nfreq[i] : -1;
				buf[2 * n + j] = w->m.freq[3 * i + 2];
			}
			json_object_object_add(x, JL_K(min), i64_array(buf, n, 1));
			json_object_object_add(x, JL_K(mean), i64_array(buf + n, n, 1));
			json_object_object_add(x, JL_K(max), i64_array(buf + 2 * n, n, 1));
			snprintf(name, sizeof(name), "cpu%d", w->m.cpu[k]);
			json_object_object_add(c, name, x);
		}
		json_object_object_add(o, JL_K(cpufreq_khz), c);
	}
	free(buf);
	return o;
}

static json_object *stop_at_json(const struct jl_scenario *sc, const struct jl_collector *w)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, JL_K(series), json_object_new_string(sc->run.stop_at.series));
	json_object_object_add(o, JL_K(metric), json_object_new_string(
		sc->run.stop_at.metric == JL_STOP_AT_RESPONSE ? "response" : "latency"));
	jl_json_add_i64(o, JL_K(threshold_ns), sc->run.stop_at.threshold_ns);
	json_object_object_add(o, JL_K(fired), json_object_new_boolean(jl_collector_stop_fired(w)));
	if (jl_collector_stop_fired(w)) {
		jl_json_add_i64(o, JL_K(cycle), (int64_t)w->stopped.cycle);
		jl_json_add_i64(o, JL_K(value_ns), w->stopped.value);
		jl_json_add_i64(o, JL_K(at_ns), w->stopped.at);
	}
	return o;
}

/* What both the summary and a checkpoint say about the run's collector */
static void collector_json(json_object *s, const struct jl_engine *eng, const struct jl_summary_info *info)
{
	const struct jl_collector *w = info->collector;
	json_object *smp = json_object_new_object();

	json_object_object_add(smp, JL_K(mode), json_object_new_string(info->samples_mode ? info->samples_mode : "all"));
	json_object_object_add(smp, JL_K(storage), json_object_new_string(eng->rings ? "ring" : "array"));
	jl_json_add_i64(smp, JL_K(memory_limit_bytes), (int64_t)eng->sc->run.samples_memory);
	json_object_object_add(s, JL_K(samples), smp);
	if (!w)
		return;
	json_object_object_add(s, JL_K(intervals), intervals_json(eng, w));
	if (eng->sc->run.stop_at.set)
		json_object_object_add(s, JL_K(stop_at), stop_at_json(eng->sc, w));
	json_object_object_add(s, JL_K(watch_cpus), json_object_new_string(w->cpus));
	jl_json_add_i64(s, JL_K(checkpoints), w->checkpoints);
}

/* The head of a summary, the checkpoint's and the final one's alike: what wrote it, what ran, for how long
 * (MEASURED: the measured phase so far, or in all). */
static void head_json(json_object *s, const struct jl_engine *eng, const struct jl_summary_info *info, int64_t measured)
{
	const struct jl_scenario *sc = eng->sc;

	json_object_object_add(s, JL_K(tool), json_object_new_string("jitterlab"));
	json_object_object_add(s, JL_K(version), json_object_new_string(JL_VERSION));
	json_object_object_add(s, JL_K(kind), json_object_new_string(jl_scenario_is_watch(sc) ? "watch" : "run"));
	json_object_object_add(s, JL_K(scenario), json_object_new_string(sc->run.name));
	json_object_object_add(s, JL_K(scenario_file), json_object_new_string(info->scenario_path));
	json_object_object_add(s, JL_K(started), json_object_new_string(info->started));
	jl_json_add_i64(s, JL_K(duration_ns), measured > 0 ? measured : 0);
	jl_json_add_i64(s, JL_K(warmup_ns), sc->run.warmup_ns);
	jl_json_add_i64(s, JL_K(planned_duration_ns), sc->run.duration_ns);
}

/* The run's times on CLOCK_MONOTONIC (the trace's and samples.csv's), and t0 on the wall clock */
static void times_json(json_object *s, const struct jl_engine *eng)
{
	jl_json_add_i64(s, JL_K(t0_ns), eng->t0);
	jl_json_add_i64(s, JL_K(t0_realtime_ns), eng->t0_realtime);
	jl_json_add_i64(s, JL_K(t_measure_ns), eng->t_measure);
	jl_json_add_i64(s, JL_K(t_end_ns), eng->t_end);
}

json_object *jl_summary_checkpoint(const struct jl_engine *eng, const struct jl_collector *w,
				   const struct jl_summary_info *info)
{
	json_object *s = json_object_new_object(), *threads = json_object_new_array(), *cp = json_object_new_object();
	int64_t now = jl_now_ns();

	head_json(s, eng, info, now - eng->t_measure);
	times_json(s, eng);
	json_object_object_add(s, JL_K(host), jl_host_describe());
	json_object_object_add(cp, JL_K(complete), json_object_new_boolean(false));
	jl_json_add_i64(cp, JL_K(at_ns), now);
	jl_json_add_i64(cp, JL_K(number), w->checkpoints + 1);
	json_object_object_add(cp, JL_K(note), json_object_new_string(
		"the run was still going: figures so far, percentiles from histograms; the final summary replaces this"));
	json_object_object_add(s, JL_K(checkpoint), cp);
	for (int i = 0; i < w->nseries; i++) {
		struct jl_series_result r;

		if (!w->acc[i] || jl_results_snapshot(eng, w->acc[i], now, &r))
			continue;
		json_object_array_add(threads, series_json(&r));
		jl_results_free(&r, 1);
	}
	json_object_object_add(s, JL_K(threads), threads);
	collector_json(s, eng, info);
	return s;
}

/* Per executor, per pool thread: the callbacks it ran (threads really contending for the wait). */
static json_object *executors_json(const struct jl_engine *eng)
{
	json_object *ex = json_object_new_array();

	for (int u = 0; u < eng->nunits; u++) {
		const struct jl_unit *un = &eng->units[u];
		json_object *o, *ths;

		if (un->spec->beh.kind != JL_BEH_EXECUTOR)
			continue;
		o = json_object_new_object();
		ths = json_object_new_array();
		json_object_object_add(o, JL_K(name), json_object_new_string(un->spec->name));
		json_object_object_add(o, JL_K(dispatch), json_object_new_string(
			((const struct jl_executor_spec *)un->spec)->dispatch == JL_DISPATCH_FIFO ? "fifo" : "rclcpp"));
		for (int t = un->first_thread; t < un->first_thread + un->nthreads; t++) {
			json_object *th = json_object_new_object();

			json_object_object_add(th, JL_K(name), json_object_new_string(eng->threads[t].name));
			json_object_object_add(th, JL_K(tid), json_object_new_int(eng->threads[t].tid));
			jl_json_add_i64(th, JL_K(callbacks_run), (int64_t)eng->threads[t].callbacks_run);
			json_object_array_add(ths, th);
		}
		json_object_object_add(o, JL_K(threads), ths);
		json_object_array_add(ex, o);
	}
	return ex;
}

/* Per sync: sets out, each input's messages and the fraction used, the stamp difference of the sets. */
static json_object *syncs_json(const struct jl_engine *eng)
{
	struct jl_sync_report rep[JL_MAX_SYNCS];
	int n = jl_executor_syncs(eng, rep, JL_MAX_SYNCS);
	json_object *sy = json_object_new_array();
	int64_t span = eng->t_end - eng->t0;

	for (int i = 0; i < n; i++) {
		const struct jl_sync *m = &rep[i].model;
		json_object *o = json_object_new_object(), *in = json_object_new_array();

		json_object_object_add(o, JL_K(name), json_object_new_string(rep[i].spec->name));
		json_object_object_add(o, JL_K(algorithm), json_object_new_string(m->algo == JL_SYNC_SLOP ? "slop" : "approximate"));
		jl_json_add_i64(o, JL_K(sets), (int64_t)m->out);
		json_object_object_add(o, JL_K(rate_hz), json_object_new_double(span > 0 ? (double)m->out * 1e9 / (double)span : 0));
		for (int k = 0; k < 2; k++) {
			json_object *x = json_object_new_object();

			json_object_object_add(x, JL_K(topic), json_object_new_string(rep[i].spec->inputs[k]));
			jl_json_add_i64(x, JL_K(messages), (int64_t)m->in[k]);
			jl_json_add_i64(x, JL_K(used), (int64_t)m->used[k]);
			json_object_object_add(x, JL_K(used_fraction),
					       json_object_new_double(m->in[k] ? (double)m->used[k] / (double)m->in[k] : 0));
			json_object_array_add(in, x);
		}
		json_object_object_add(o, JL_K(inputs), in);
		jl_json_add_i64(o, JL_K(pair_diff_mean_ns), m->out ? m->diff_sum / (int64_t)m->out : 0);
		jl_json_add_i64(o, JL_K(pair_diff_max_ns), m->diff_max);
		json_object_array_add(sy, o);
	}
	return sy;
}

json_object *jl_summary_build(const struct jl_engine *eng, const struct jl_series_result *res,
			      const struct jl_summary_info *info, json_object *host)
{
	const struct jl_scenario *sc = eng->sc;
	json_object *s = json_object_new_object(), *threads = json_object_new_array();
	int64_t measured = jl_engine_window_end(eng) - eng->t_measure;

	head_json(s, eng, info, measured);
	json_object_object_add(s, JL_K(exit_status), json_object_new_int(0));
	json_object_object_add(s, JL_K(interrupted), json_object_new_boolean(info->interrupted));
	json_object_object_add(s, JL_K(watchdog_fired), json_object_new_boolean(info->watchdog_fired));
	json_object_object_add(s, JL_K(watchdog_cpus), json_object_new_string(info->watchdog_cpus ? info->watchdog_cpus : ""));
	if (info->stuck && info->stuck[0])
		json_object_object_add(s, JL_K(stuck_threads), json_object_new_string(info->stuck));
	times_json(s, eng);
	json_object_object_add(s, JL_K(host), host);
	for (int i = 0; i < eng->nseries; i++) {
		json_object *t = series_json(&res[i]);

		if (eng->series[i].msgs.subscriber) { /* a callback that consumes a topic: its chain, its model */
			const struct jl_callback_spec *c = jl_scenario_callback(sc, eng->series[i].name);
			json_object *m;

			if (c && json_object_object_get_ex(t, JL_K(messages), &m))
				json_object_object_add(m, JL_K(topic), json_object_new_string(c->trigger[0] ? c->trigger : c->poll));
			poll_model_json(eng, res, i, t);
			if (!eng->series[i].msgs.queue) /* a queue's requests start no data chain */
				chain_json(eng, res, i, t);
		}
		json_object_array_add(threads, t);
	}
	json_object_object_add(s, JL_K(threads), threads);
	collector_json(s, eng, info);
	json_object_object_add(s, JL_K(executors), executors_json(eng));
	json_object_object_add(s, JL_K(syncs), syncs_json(eng));
	{
		size_t n, lost;

		if (eng->sc->nsources)
			json_object_object_add(s, JL_K(sources), sources_json(eng));
		jl_executor_requests(eng, &n, &lost);
		if (n || lost) /* beyond the preallocated slots (sized from the sources and the calling timers) */
			jl_json_add_i64(s, JL_K(requests_lost), (int64_t)lost);
	}
	if (eng->nlocks) {
		json_object *lk = json_object_new_array();

		for (int i = 0; i < eng->nlocks; i++)
			json_object_array_add(lk, lock_json(eng, &eng->locks[i]));
		json_object_object_add(s, JL_K(locks), lk);
	}
	return s;
}

static json_object *named(json_object *summary, const char *block, const char *name)
{
	json_object *threads;

	if (!json_object_object_get_ex(summary, block, &threads) || !json_object_is_type(threads, json_type_array))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *n;

		if (json_object_object_get_ex(t, JL_K(name), &n) && !strcmp(json_object_get_string(n), name))
			return t;
	}
	return NULL;
}

json_object *jl_summary_thread(json_object *summary, const char *name)
{
	return named(summary, JL_K(threads), name);
}

json_object *jl_summary_sync(json_object *summary, const char *name)
{
	return named(summary, JL_K(syncs), name);
}

json_object *jl_summary_lock(json_object *summary, const char *name)
{
	return named(summary, JL_K(locks), name);
}

json_object *jl_summary_source(json_object *summary, const char *name)
{
	return named(summary, JL_K(sources), name);
}

bool jl_json_get_double(json_object *obj, const char *path, double *out)
{
	char buf[256], *save = NULL, *tok;

	snprintf(buf, sizeof(buf), "%s", path);
	for (tok = strtok_r(buf, ".", &save); tok; tok = strtok_r(NULL, ".", &save)) {
		char *end;
		unsigned long idx = strtoul(tok, &end, 10);

		if (obj && json_object_is_type(obj, json_type_array) && !*end && end != tok) { /* inputs.0 */
			obj = idx < json_object_array_length(obj) ? json_object_array_get_idx(obj, idx) : NULL;
			if (!obj)
				return false;
			continue;
		}
		if (!obj || !json_object_object_get_ex(obj, tok, &obj))
			return false;
	}
	if (!obj || (!json_object_is_type(obj, json_type_int) && !json_object_is_type(obj, json_type_double)))
		return false;
	*out = json_object_get_double(obj);
	return true;
}
