/* summarize: turn a finished wakeup analysis into summary.json's "trace" block (docs/outputs.md) and the
 * worst cycles explained as text (terminal and report.md). Shared by the run and `jitterlab analyze`.
 * JSON is built with json-c only; this file never reads traces or touches the machine. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../../affinity/kversion.h"
#include "../../base/series.h"
#include "../../base/stats.h"
#include "advice.h"
#include "analysis.h"
#include "offcpu.h"
#include "parts.h"
#include "prune.h"
#include "summarize.h"
#include "tail.h"
#include "worst.h"
#include "../../base/summary_keys.h"

void jl_trace_budget_from_host(json_object *host, struct jl_analysis_budget *b)
{
	json_object *o, *v, *cpus;

	if (!host)
		return;
	if (json_object_object_get_ex(host, JL_K(rt_bandwidth), &o)) {
		if (json_object_object_get_ex(o, JL_K(runtime_us), &v))
			b->rt_runtime_ns = json_object_get_int64(v) < 0 ? -1 : json_object_get_int64(v) * 1000;
		if (json_object_object_get_ex(o, JL_K(period_us), &v) && json_object_get_int64(v) > 0)
			b->rt_period_ns = json_object_get_int64(v) * 1000;
	}
	if (json_object_object_get_ex(host, JL_K(kernel), &v) && json_object_is_type(v, json_type_string))
		b->fair_server = jl_kernel_has(JL_KERNEL_FAIR_SERVER, json_object_get_string(v));
	if (json_object_object_get_ex(host, JL_K(fair_server), &o) && json_object_object_get_ex(o, JL_K(readable), &v) &&
	    json_object_get_boolean(v) && json_object_object_get_ex(o, JL_K(cpus), &cpus)) {
		json_object_object_foreach(cpus, cpu, one) {
			(void)cpu;
			if (json_object_object_get_ex(one, JL_K(runtime_ns), &v))
				b->fair_runtime_ns = json_object_get_int64(v);
			if (json_object_object_get_ex(one, JL_K(period_ns), &v))
				b->fair_period_ns = json_object_get_int64(v);
			b->fair_known = true;
			break; /* one budget for the analysis: the first CPU's (host.fair_server says if they differ) */
		}
	}
}

void jl_trace_advice_from_host(json_object *host, struct jl_trace_advice_in *a)
{
	json_object *v, *d;

	memset(a, 0, sizeof(*a));
	a->dma_latency_us = -1;
	a->irq_steered = -1;
	if (!host)
		return;
	if (json_object_object_get_ex(host, JL_K(virtualized), &v))
		a->vm = json_object_get_boolean(v);
	if (json_object_object_get_ex(host, JL_K(cpu_dma_latency_us), &v) && json_object_is_type(v, json_type_int))
		a->dma_latency_us = json_object_get_int(v);
	if (json_object_object_get_ex(host, JL_K(idle_states), &d) && json_object_object_get_ex(d, JL_K(states), &v) &&
	    json_object_is_type(v, json_type_array)) {
		size_t o = 0;

		for (size_t i = 0; i < json_object_array_length(v) && o < sizeof(a->idle_states); i++) {
			json_object *st = json_object_array_get_idx(v, i), *n, *l, *x;

			if (json_object_object_get_ex(st, JL_K(disabled), &x) && json_object_get_boolean(x))
				continue;
			if (json_object_object_get_ex(st, JL_K(name), &n) && json_object_object_get_ex(st, JL_K(latency_us), &l))
				o += (size_t)snprintf(a->idle_states + o, sizeof(a->idle_states) - o, "%s%s %lld us",
						      o ? ", " : "", json_object_get_string(n),
						      (long long)json_object_get_int64(l));
		}
	}
	if (json_object_object_get_ex(host, JL_K(preempt_detail), &d)) {
		if (json_object_object_get_ex(d, JL_K(rt), &v))
			a->rt_kernel = json_object_get_boolean(v);
		if (json_object_object_get_ex(d, JL_K(dynamic), &v) && json_object_get_boolean(v) &&
		    json_object_object_get_ex(d, JL_K(mode), &v) && json_object_is_type(v, json_type_string))
			snprintf(a->preempt_mode, sizeof(a->preempt_mode), "%s", json_object_get_string(v));
	}
}

static json_object *part_json(const struct jl_part *p)
{
	bool task = p->pid > 0 && (p->kind == JL_PART_TASK || p->kind == JL_PART_OTHER || p->kind == JL_PART_THROTTLE ||
				   p->kind == JL_PART_UNPREEMPTED || p->kind == JL_PART_BLOCKED);
	json_object *o = json_object_new_object();

	json_object_object_add(o, JL_K(kind), json_object_new_string(jl_part_kind_name(p->kind)));
	json_object_object_add(o, JL_K(name), json_object_new_string(p->name));

	json_object_object_add(o, JL_K(pid), json_object_new_int(task || jl_part_kinds[p->kind].interrupt ? p->pid : -1));
	json_object_object_add(o, JL_K(prio), json_object_new_int(task ? jl_kprio_user(p->kprio) : 0));
	if (task) {
		json_object_object_add(o, JL_K(policy), json_object_new_string(p->policy));
		json_object_object_add(o, JL_K(kernel_prio), json_object_new_int(p->kprio));
	}
	json_object_object_add(o, JL_K(duration_ns), json_object_new_int64(p->duration_ns));
	if (p->detail[0])
		json_object_object_add(o, JL_K(detail), json_object_new_string(p->detail));
	return o;
}

static json_object *cycle_json(const struct jl_analysis *an, const struct jl_cycle *c, const char *text,
			       const char *rule, const char *advice)
{
	json_object *o = json_object_new_object(), *parts = json_object_new_array();
	int culprit = jl_cycle_culprit(c);

	json_object_object_add(o, JL_K(thread), json_object_new_string(an->threads[c->thread].name));
	json_object_object_add(o, JL_K(tid), json_object_new_int(c->tid ? c->tid : an->threads[c->thread].pid));
	json_object_object_add(o, JL_K(cycle), json_object_new_int64((int64_t)c->cycle));
	json_object_object_add(o, JL_K(window), json_object_new_string(c->window == JL_WINDOW_RESPONSE ? "response" : "wakeup"));
	json_object_object_add(o, JL_K(latency_ns), json_object_new_int64(c->latency_ns));
	if (c->window == JL_WINDOW_RESPONSE || c->end)
		json_object_object_add(o, JL_K(response_ns), json_object_new_int64(c->end - c->release));
	json_object_object_add(o, JL_K(miss), json_object_new_boolean(c->miss));
	json_object_object_add(o, JL_K(lost_in_window), json_object_new_boolean(c->lost_in_window));
	json_object_object_add(o, JL_K(migrations), json_object_new_int(c->migrations));
	json_object_object_add(o, JL_K(cpu), json_object_new_int(c->cpu));
	json_object_object_add(o, JL_K(release_ns), json_object_new_int64(c->release));
	json_object_object_add(o, JL_K(release_by), json_object_new_string(jl_release_by_name((uint8_t)c->release_by)));
	json_object_object_add(o, JL_K(waking_ns), json_object_new_int64(c->waking));
	json_object_object_add(o, JL_K(switch_in_ns), json_object_new_int64(c->switch_in));
	json_object_object_add(o, JL_K(wake_ns), json_object_new_int64(c->wake));
	if (c->end)
		json_object_object_add(o, JL_K(end_ns), json_object_new_int64(c->end));
	json_object_object_add(o, JL_K(wakeup_ns), json_object_new_int64(c->switch_in - c->waking));
	json_object_object_add(o, JL_K(switch_traced), json_object_new_boolean(!c->implicit));
	for (int i = 0; i < c->nparts; i++)
		json_object_array_add(parts, part_json(&c->parts[i]));
	json_object_object_add(o, JL_K(parts), parts);
	json_object_object_add(o, JL_K(culprit), culprit >= 0 ? part_json(&c->parts[culprit]) : NULL);
	json_object_object_add(o, JL_K(text), json_object_new_string(text));
	json_object_object_add(o, JL_K(advice), rule ? json_object_new_string(advice) : NULL);
	json_object_object_add(o, JL_K(advice_rule), rule ? json_object_new_string(rule) : NULL);
	return o;
}

/* The block's header: the file, its clock and counts, and where the VM heuristic (a woken task's first
 * record is its switch out of idle) was used. */
static json_object *block_header(const struct jl_analysis *an, const struct jl_trace_summary_in *in)
{
	json_object *b = json_object_new_object(), *vm = json_object_new_object();

	json_object_object_add(b, JL_K(enabled), json_object_new_boolean(1));
	json_object_object_add(b, JL_K(file), json_object_new_string(in->file ? in->file : "trace.dat"));
	json_object_object_add(b, JL_K(clock), json_object_new_string("mono"));
	if (an->clocks.known)
		json_object_object_add(b, JL_K(clock_stepped), json_object_new_boolean(an->clocks.stepped));
	json_object_object_add(b, JL_K(events), json_object_new_int64((int64_t)in->events));
	json_object_object_add(b, JL_K(lost_events), json_object_new_int64((int64_t)in->lost_events));
	json_object_object_add(b, JL_K(lost_gaps), json_object_new_int64((int64_t)in->lost_gaps));
	json_object_object_add(b, JL_K(markers), json_object_new_int64((int64_t)an->markers));
	json_object_object_add(b, JL_K(implicit_switches), json_object_new_int64((int64_t)an->implicit_switches));
	for (int c = 0; c < an->ncpus; c++)
		if (an->vm_heuristic[c]) {
			char k[16];

			snprintf(k, sizeof(k), "%d", c);
			json_object_object_add(vm, k, json_object_new_int64((int64_t)an->vm_heuristic[c]));
		}
	json_object_object_add(b, JL_K(vm_heuristic_cpus), vm);
	return b;
}

/* Thread I's wakeup latencies into D and N, and its measured and matched cycles added to *MEASURED and
 * *MATCHED: the live analysis' (every cycle matched as it came), a pruned one's (every wakeup, as a
 * histogram: *EVERY), or the whole analysis' matched pairs. 0, or -1 (ENOMEM). */
static int thread_wakeups(struct jl_analysis *an, int i, int64_t from, struct jl_dist *d, size_t *n, bool *every,
			  size_t *measured, size_t *matched)
{
	const struct jl_analysis_thread *th = &an->threads[i];
	size_t cm, cn;
	int64_t *v;

	*every = false;
	if (jl_analysis_prune_matched(an, i, &cm, &cn, d, n)) {
		*measured += cm;
		*matched += cn;
		return 0;
	}
	*measured += th->measured_samples;
	*matched += th->matched;
	if (jl_analysis_prune_wakeups(an, i, d, n)) {
		*every = true;
		return 0;
	}
	v = jl_analysis_wakeups(an, i, from, n);
	if (!v || jl_dist_compute(v, *n, NULL, d) < 0) {
		free(v);
		return -1;
	}
	free(v);
	return 0;
}

/* Per measured thread its wakeup latencies (wakeup_ns) and its scheduler records (sched_switch), into B;
 * the cycles measured and matched into *MEASURED and *MATCHED. 0, or -1 (ENOMEM). */
static int thread_figures(struct jl_analysis *an, const struct jl_trace_summary_in *in, json_object *b,
			  size_t *measured, size_t *matched)
{
	json_object *wk = json_object_new_object(), *sw = json_object_new_object();

	json_object_object_add(b, JL_K(wakeup_ns), wk);
	json_object_object_add(b, JL_K(sched_switch), sw);
	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *th = &an->threads[i];
		struct jl_dist d = { 0 };
		json_object *o, *s;
		bool every;
		size_t n;

		if (!th->measured)
			continue;
		if (thread_wakeups(an, i, in->from, &d, &n, &every, measured, matched) < 0)
			return -1;
		o = json_object_new_object();
		/* of what: the wakeups matched to the cycles (the whole analysis), or every wakeup of the thread
		 * in the measured phase (a pruned one: the cycles it did not keep cannot be matched) */
		json_object_object_add(o, JL_K(of), json_object_new_string(!every ? "cycles" : in->pages_dropped ? "kept wakeups"
									: "wakeups"));
		json_object_object_add(o, JL_K(count), json_object_new_int64((int64_t)n));
		json_object_object_add(o, JL_K(p50), json_object_new_int64(d.p50));
		json_object_object_add(o, JL_K(p99), json_object_new_int64(d.p99));
		json_object_object_add(o, JL_K(max), json_object_new_int64(d.max));
		json_object_object_add(wk, th->name, o);
		s = json_object_new_object();
		json_object_object_add(s, JL_K(tid), json_object_new_int(th->pid));
		json_object_object_add(s, JL_K(in), json_object_new_int64((int64_t)th->switch_in));
		json_object_object_add(s, JL_K(out), json_object_new_int64((int64_t)th->switch_out));
		json_object_object_add(s, JL_K(implicit_in), json_object_new_int64((int64_t)th->implicit_in));
		json_object_object_add(s, JL_K(wakings), json_object_new_int64((int64_t)th->wakings));
		json_object_object_add(s, JL_K(pairs), json_object_new_int64(
						      (int64_t)(th->npairs + an->threads[th->owner].pairs_forgotten)));
		json_object_object_add(sw, th->name, s);
	}
	return 0;
}

/* Priority-inheritance boosts (sched_pi_setprio raising a task), per thread that got any. */
static json_object *pi_boosts(const struct jl_analysis *an)
{
	json_object *pb = json_object_new_array();

	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *th = &an->threads[i];
		json_object *o;

		if (!th->boosts || th->owner != i)
			continue;
		o = json_object_new_object();
		json_object_object_add(o, JL_K(name), json_object_new_string(th->name));
		json_object_object_add(o, JL_K(tid), json_object_new_int(th->pid));
		json_object_object_add(o, JL_K(boosts), json_object_new_int64((int64_t)th->boosts));
		json_object_object_add(o, JL_K(to_prio), json_object_new_int(th->boost_prio));
		json_object_array_add(pb, o);
	}
	return pb;
}

/* A long run's analysis in flat memory (prune.c): what it kept and forgot. */
static json_object *pruned_json(const struct jl_analysis *an)
{
	json_object *pr = json_object_new_object();
	size_t st, pa, sg;

	jl_analysis_prune_counts(an, &st, &pa, &sg);
	json_object_object_add(pr, JL_K(kept), json_object_new_string("the kept cycles' windows"));
	json_object_object_add(pr, JL_K(forgotten_states), json_object_new_int64((int64_t)st));
	json_object_object_add(pr, JL_K(forgotten_pairs), json_object_new_int64((int64_t)pa));
	json_object_object_add(pr, JL_K(forgotten_segments), json_object_new_int64((int64_t)sg));
	json_object_object_add(pr, JL_K(forgotten_births), json_object_new_int64((int64_t)an->births_forgotten));
	json_object_object_add(pr, JL_K(births_kept), json_object_new_int64((int64_t)an->nbirths));
	return pr;
}

/* Where events were lost: [from_ns, to_ns) on a CPU, nothing known there (the first 100). */
static json_object *gaps_json(const struct jl_analysis *an)
{
	json_object *gaps = json_object_new_array();

	for (size_t i = 0; i < an->ngaps && i < 100; i++) {
		json_object *g = json_object_new_object();

		json_object_object_add(g, JL_K(cpu), json_object_new_int(an->gaps[i].cpu));
		json_object_object_add(g, JL_K(from_ns), json_object_new_int64(an->gaps[i].from));
		json_object_object_add(g, JL_K(to_ns), json_object_new_int64(an->gaps[i].to));
		json_object_object_add(g, JL_K(lost), json_object_new_int64((int64_t)an->gaps[i].lost));
		json_object_array_add(gaps, g);
	}
	return gaps;
}

/* The explained cycles WORST[0..N) into B's worst[] and their lines (each with its advice) into *TEXT
 * (malloc'd). The number of missed deadlines among them, or -1 (ENOMEM). */
static int worst_entries(const struct jl_analysis *an, const struct jl_trace_summary_in *in, const struct jl_cycle *worst,
			 int n, json_object *b, char **text)
{
	json_object *warr = json_object_new_array();
	size_t cap = 4096, len = 0;
	int listed_misses = 0;
	char *t = malloc(cap);

	json_object_object_add(b, JL_K(worst), warr);
	if (!t)
		return -1;
	t[0] = 0;
	for (int i = 0; i < n; i++) {
		char line[2048], advice[512];
		const char *rule;

		listed_misses += worst[i].window == JL_WINDOW_RESPONSE;
		jl_cycle_format(&worst[i], an->threads[worst[i].thread].name, line, sizeof(line));
		rule = jl_trace_advice(an, &worst[i], &in->advice, advice, sizeof(advice));
		json_object_array_add(warr, cycle_json(an, &worst[i], line, rule, advice));
		if (len + strlen(line) + strlen(advice) + 256 >= cap) {
			size_t want = cap * 2 + strlen(line) + strlen(advice) + 256;
			char *nt = realloc(t, want);

			if (!nt)
				break;
			t = nt;
			cap = want;
		}
		len += (size_t)snprintf(t + len, cap - len, "%s\n", line);
		if (rule)
			len += (size_t)snprintf(t + len, cap - len, "  advice: %s\n", advice);
	}
	*text = t;
	return listed_misses;
}

/* Loop TI's tail into T: from the live analysis' matcher, or from the whole analysis' samples; else why not */
static void tail_of(struct jl_analysis *an, const struct jl_trace_summary_in *in, int ti, struct jl_tail *t)
{
	struct jl_tail_acc *acc;
	const char *why = NULL;

	if (jl_analysis_prune_tail(an, ti, t))
		return;
	if (in->tail_ns < 0)
		why = "[run] tail = off";
	else if (in->pages_dropped)
		why = "the flight recorder kept some of the trace's pages only: the tail needs every cycle's events";
	else if (an->prune)
		why = "the analysis kept only the windows of the cycles it explains (a long run analysed after it): the "
		      "tail needs every cycle's events";
	else if (!(acc = jl_tail_new(in->tail_ns)))
		why = "out of memory";
	else {
		bool done = jl_tail_of_samples(acc, an, ti, in->from);

		if (done)
			jl_tail_result(acc, t);
		jl_tail_free(acc);
		if (done)
			return;
		why = "the loop's cycles are a ring's kept ones: the tail needs every cycle";
	}
	memset(t, 0, sizeof(*t));
	snprintf(t->why, sizeof(t->why), "%s", why);
}

/* Per loop what its tail is made of (tail.c) into B's tail, its line appended to *TEXT. 0, or -1 (ENOMEM). */
static int tails(struct jl_analysis *an, const struct jl_trace_summary_in *in, json_object *b, char **text)
{
	json_object *o = json_object_new_object();
	struct jl_tail *t = malloc(sizeof(*t));
	char line[2048];

	json_object_object_add(b, JL_K(tail), o);
	if (!t)
		return -1;
	for (int i = 0; i < an->nthreads; i++) {
		const struct jl_analysis_thread *th = &an->threads[i];
		size_t len, add;
		char *nt;

		if (!th->measured || !th->sampled || th->pool || th->executor)
			continue;
		tail_of(an, in, i, t);
		json_object_object_add(o, th->name, jl_tail_json(t));
		if (jl_tail_format(t, th->name, line, sizeof(line)) <= 0)
			continue;
		len = *text ? strlen(*text) : 0;
		add = strlen(line);
		nt = realloc(*text, len + add + 1);
		if (!nt) {
			free(t);
			return -1;
		}
		memcpy(nt + len, line, add + 1);
		*text = nt;
	}
	free(t);
	return 0;
}

int jl_trace_summarize(struct jl_analysis *an, const struct jl_trace_summary_in *in, json_object **block,
		       char **text, struct jl_cycle *worst, int *nworst)
{
	size_t measured = 0, matched = 0, misses = 0;
	int listed_misses;
	json_object *b;

	*block = NULL;
	*text = NULL;
	if (jl_analysis_worst(an, in->from, worst, JL_TRACE_WORST, JL_TRACE_MISSES, nworst, &misses) < 0)
		return -1;
	b = block_header(an, in);
	if (thread_figures(an, in, b, &measured, &matched) < 0) {
		json_object_put(b);
		return -1;
	}
	json_object_object_add(b, JL_K(pi_boosts), pi_boosts(an));
	if (!in->pages_dropped) {
		/* where each measured thread's time went in the measured phase (not known when the flight
		 * recorder dropped pages: its gaps hold time nobody saw) */
		json_object *oc = json_object_new_object();

		for (int i = 0; i < an->nthreads; i++)
			if (an->threads[i].measured)
				json_object_object_add(oc, an->threads[i].name,
						       jl_analysis_offcpu(an, i, in->from, in->to > 0 ? in->to : an->last_ts + 1));
		json_object_object_add(b, JL_K(off_cpu), oc);
	}
	if (an->prune)
		json_object_object_add(b, JL_K(pruned), pruned_json(an));
	json_object_object_add(b, JL_K(measured_cycles), json_object_new_int64((int64_t)measured));
	json_object_object_add(b, JL_K(matched_cycles), json_object_new_int64((int64_t)matched));
	json_object_object_add(b, JL_K(matched_fraction),
			       json_object_new_double(measured ? (double)matched / (double)measured : 0.0));
	listed_misses = worst_entries(an, in, worst, *nworst, b, text);
	if (listed_misses < 0) {
		json_object_put(b);
		return -1;
	}
	if (tails(an, in, b, text) < 0) {
		json_object_put(b);
		return -1;
	}
	json_object_object_add(b, JL_K(gaps), gaps_json(an));
	json_object_object_add(b, JL_K(misses), json_object_new_int64((int64_t)misses));
	json_object_object_add(b, JL_K(misses_explained), json_object_new_int(listed_misses));
	json_object_object_add(b, JL_K(misses_cap), json_object_new_int(JL_TRACE_MISSES));
	if ((size_t)listed_misses < misses) {
		size_t len = strlen(*text);
		char *nt = realloc(*text, len + 160);

		if (nt) {
			snprintf(nt + len, 160, "(%zu missed deadlines; the %d with the longest responses are explained)\n",
				 misses, listed_misses);
			*text = nt;
		}
	}
	if (in->kshark)
		json_object_object_add(b, JL_K(kernelshark), json_object_new_string(in->kshark));
	*block = b;
	return 0;
}
