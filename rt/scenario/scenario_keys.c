/* scenario_keys: the [run] key table (scenario_registry.h), the names of policies, and what the key
 * tables share (cpu lists). The placement and behaviour tables of [thread NAME] are in
 * scenario_thread_keys.c, [expect] and [sweep] with the section kinds in scenario_sections.c. Pure: a
 * value in, a field set or a reason out (a cpu list's names, pcores/ecores/smt:N, are resolved by
 * reading sysfs: affinity/topology.c). Must never: write a key's name, default or range anywhere but
 * in its descriptor. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../../affinity/cpulist.h"
#include "../../affinity/topology.h"
#include "../base/metrics.h"
#include "../base/series.h" /* JL_CYCLICTEST_HIST_US */
#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/units.h"

const char *const jl_policy_names[JL_POLICY_N] = {
	[JL_POLICY_OTHER] = "other", [JL_POLICY_BATCH] = "batch", [JL_POLICY_IDLE] = "idle",
	[JL_POLICY_FIFO] = "fifo",   [JL_POLICY_RR] = "rr",       [JL_POLICY_DEADLINE] = "deadline",
};

int jl_scenario_topic_index(const struct jl_scenario *sc, const char *name)
{
	for (int k = 0; name && k < sc->ntopics; k++)
		if (!strcmp(sc->topics[k].name, name))
			return k;
	return -1;
}

const struct jl_callback_spec *jl_scenario_callback(const struct jl_scenario *sc, const char *name)
{
	for (int i = 0; name && i < sc->ncallbacks; i++)
		if (!strcmp(sc->callbacks[i].name, name))
			return &sc->callbacks[i];
	return NULL;
}

const struct jl_lock_spec *jl_scenario_lock(const struct jl_scenario *sc, const char *name)
{
	for (int i = 0; name && i < sc->nlocks; i++)
		if (!strcmp(sc->locks[i].name, name))
			return &sc->locks[i];
	return NULL;
}

bool jl_scenario_name_ok(const char *s)
{
	return *s >= 'a' && *s <= 'z' && !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-")];
}

const char *jl_policy_name(enum jl_policy p)
{
	return jl_policy_names[p];
}

bool jl_policy_is_rt(enum jl_policy p)
{
	return p == JL_POLICY_FIFO || p == JL_POLICY_RR;
}

int64_t jl_behaviour_deadline_ns(const struct jl_behaviour *b)
{
	return b->deadline_ns ? b->deadline_ns : b->period_ns;
}

int64_t jl_thread_deadline_ns(const struct jl_thread_spec *t)
{
	return jl_behaviour_deadline_ns(&t->beh);
}

void jl_policy_format(enum jl_policy p, int priority, int nice, bool upper, char *buf, size_t len)
{
	char pol[16];

	snprintf(pol, sizeof(pol), "%s", (unsigned)p < JL_POLICY_N ? jl_policy_names[p] : "?");
	for (size_t i = 0; upper && pol[i]; i++)
		pol[i] = (char)toupper((unsigned char)pol[i]);
	if (jl_policy_is_rt(p))
		snprintf(buf, len, "%s %d", pol, priority);
	else if (p == JL_POLICY_OTHER || p == JL_POLICY_BATCH)
		snprintf(buf, len, "%s nice %d", pol, nice);
	else
		snprintf(buf, len, "%s", pol);
}

enum jl_policy jl_policy_from_name(const char *name)
{
	for (int i = 0; i < JL_POLICY_N; i++)
		if (name && !strcmp(name, jl_policy_names[i]))
			return (enum jl_policy)i;
	return JL_POLICY_N;
}

bool jl_behaviour_measured(const struct jl_behaviour *b)
{
	if (b->period_ns == 0 || b->exec[0])
		return false;
	return b->measure != 0;
}

bool jl_thread_measured(const struct jl_thread_spec *t)
{
	return jl_behaviour_measured(&t->beh);
}

bool jl_thread_keeps_housekeeping_off(const struct jl_thread_spec *t)
{
	return jl_thread_measured(t) || JL_MEASURE_FROM_TRACE(t->beh.measure);
}

bool jl_scenario_auto_housekeeping(const struct jl_scenario *sc, cpu_set_t *out)
{
	cpu_set_t tmp;

	if (jl_cpulist_online(out))
		goto none;
	for (int i = 0; i < sc->nthreads + sc->nexecutors; i++) {
		const struct jl_thread_spec *t = i < sc->nthreads ? &sc->threads[i] : &sc->executors[i - sc->nthreads].t;

		if (i < sc->nthreads && !jl_thread_keeps_housekeeping_off(t))
			continue;
		if (!t->place.cpus_set)
			goto none;
		CPU_XOR(&tmp, out, &t->place.cpus); /* out minus the thread's CPUs */
		CPU_AND(out, out, &tmp);
	}
	if (sc->run.isolate_set) {
		CPU_XOR(&tmp, out, &sc->run.isolate);
		CPU_AND(out, out, &tmp);
	}
	if (CPU_COUNT(out))
		return true;
none:
	CPU_ZERO(out);
	return false;
}

/* A cpu list key (cpus, isolate): the CPUs into SET, and into TEXT (JL_CPUS_TEXT_MAX) the list as
 * written when it uses a name, so that the effective scenario keeps `pcores` rather than this host's
 * numbers. */
int jl_scenario_cpus_parse(const char *value, cpu_set_t *set, char *text, char *why, size_t wl)
{
	bool named;

	if (jl_topo_cpulist_parse(NULL, value, set, &named, why, wl))
		return -1;
	if (named && strlen(value) >= JL_CPUS_TEXT_MAX) {
		snprintf(why, wl, "cpu list '%.40s...' is too long (at most %d characters with names)", value,
			 JL_CPUS_TEXT_MAX - 1);
		return -1;
	}
	snprintf(text, JL_CPUS_TEXT_MAX, "%s", named ? value : "");
	return 0;
}

/* A cpu list as scenario.ini writes it: as written when it names CPUs, else the numbers. */
const char *jl_scenario_cpus_format(const cpu_set_t *set, const char *text, char *buf, size_t len)
{
	return text[0] ? text : jl_cpulist_format(set, buf, len);
}

/* The comment written before a cpu list that names CPUs: what it gave on this host (it must fit the
 * reader's line too, so a long list is cut and ends with ",..."). NULL for a list of numbers. */
const char *jl_scenario_cpus_note(const char *key, const cpu_set_t *set, const char *text, char *buf, size_t len)
{
	char full[4096], shown[150]; /* full: a sparse list of 1024 CPUs is ~2.5 KB */

	if (!text[0])
		return NULL;
	jl_cpulist_format(set, full, sizeof(full));
	jl_cpulist_format(set, shown, sizeof(shown));
	snprintf(buf, len, "%s: CPUs %s%s on this host", key, shown, strcmp(shown, full) ? ",..." : "");
	return buf;
}

/* ---- the [run] table ---- */

KEY_PARSE(run_name)
{
	struct jl_run_spec *r = v->run;

	(void)d, (void)key;
	/* like thread names: it names the output directory and is shown in reports and plots */
	if (!jl_scenario_name_ok(value) || strlen(value) >= sizeof(r->name)) {
		snprintf(why, wl, "name '%s' is not usable in a path (expected [a-z][a-z0-9_-]*, at most %zu characters)",
			 value, sizeof(r->name) - 1);
		return -1;
	}
	snprintf(r->name, sizeof(r->name), "%s", value);
	return 0;
}

KEY_FORMAT(fmt_name)
{
	(void)buf, (void)len;
	return v->run->name;
}

KEY_PARSE(run_duration)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->run->duration_ns, why, wl))
		return -1;
	if (v->run->duration_ns <= 0) {
		snprintf(why, wl, "duration must be greater than 0");
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_duration)
{
	return jl_format_duration(v->run->duration_ns, buf, len);
}

KEY_PARSE(run_warmup)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->run->warmup_ns, why, wl);
}

KEY_FORMAT(fmt_warmup)
{
	return jl_format_duration(v->run->warmup_ns, buf, len);
}

static const struct {
	const char *name;
	unsigned bit;
} trace_bits[] = { { "sched", JL_TRACE_SCHED },
		    { "irq", JL_TRACE_IRQ },
		    { "timer", JL_TRACE_TIMER },
		    { "osnoise", JL_TRACE_OSNOISE } };

KEY_PARSE(run_trace)
{
	struct jl_run_spec *r = v->run;
	char buf[256], *save = NULL, *tok;

	(void)key;
	r->trace_groups = 0;
	if (!strcmp(value, "off") || !strcmp(value, "no") || !strcmp(value, "none"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		size_t i;

		for (i = 0; i < sizeof(trace_bits) / sizeof(trace_bits[0]); i++)
			if (!strcmp(tok, trace_bits[i].name))
				break;
		if (i == sizeof(trace_bits) / sizeof(trace_bits[0])) {
			snprintf(why, wl, "unknown trace group '%s' (expected %s)", tok, d->range);
			return -1;
		}
		r->trace_groups |= trace_bits[i].bit;
	}
	if (!r->trace_groups) {
		snprintf(why, wl, "empty trace list (expected %s)", d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_trace)
{
	size_t used = 0;

	if (!v->run->trace_groups)
		return "off";
	buf[0] = '\0';
	for (size_t i = 0; i < sizeof(trace_bits) / sizeof(trace_bits[0]) && used < len; i++)
		if (v->run->trace_groups & trace_bits[i].bit)
			used += (size_t)snprintf(buf + used, len - used, "%s%s", used ? "," : "", trace_bits[i].name);
	return buf;
}

KEY_PARSE(run_trace_buffer)
{
	(void)key;
	if (jl_parse_size(value, &v->run->trace_buffer, why, wl))
		return -1;
	if (v->run->trace_buffer < 64 * 1024 || v->run->trace_buffer > (4ULL << 30)) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_trace_buffer)
{
	return jl_format_size(v->run->trace_buffer, buf, len);
}

KEY_PARSE(run_trace_threshold)
{
	(void)d, (void)key;
	if (!strcmp(value, "none") || !strcmp(value, "off")) {
		v->run->trace_threshold_ns = 0;
		return 0;
	}
	return jl_parse_duration(value, &v->run->trace_threshold_ns, why, wl);
}

KEY_FORMAT(fmt_trace_threshold)
{
	return v->run->trace_threshold_ns ? jl_format_duration(v->run->trace_threshold_ns, buf, len) : "none";
}

/* A [run] CPU list that may also be the word WORD (or empty): unset, or the CPUs and their text. */
static int run_cpus_or(const char *value, const char *word, bool *set, cpu_set_t *cpus, char *text, char *why,
		       size_t wl)
{
	if (!strcmp(value, word) || !*value) {
		*set = false;
		CPU_ZERO(cpus);
		text[0] = '\0';
		return 0;
	}
	if (jl_scenario_cpus_parse(value, cpus, text, why, wl))
		return -1;
	*set = true;
	return 0;
}

KEY_PARSE(run_isolate)
{
	(void)d, (void)key;
	return run_cpus_or(value, "none", &v->run->isolate_set, &v->run->isolate, v->run->isolate_text, why, wl);
}

KEY_FORMAT(fmt_isolate)
{
	return v->run->isolate_set ? jl_scenario_cpus_format(&v->run->isolate, v->run->isolate_text, buf, len) : "none";
}

KEY_PARSE(run_housekeeping)
{
	(void)d, (void)key;
	return run_cpus_or(value, "auto", &v->run->housekeeping_set, &v->run->housekeeping, v->run->housekeeping_text,
			   why, wl);
}

KEY_FORMAT(fmt_housekeeping)
{
	return v->run->housekeeping_set
		       ? jl_scenario_cpus_format(&v->run->housekeeping, v->run->housekeeping_text, buf, len)
		       : "auto";
}

KEY_FORMAT(note_isolate)
{
	return v->run->isolate_set ? jl_scenario_cpus_note("isolate", &v->run->isolate, v->run->isolate_text, buf, len)
				   : NULL;
}

KEY_PARSE(run_irq_affinity)
{
	(void)key;
	if (!strcmp(value, "keep"))
		v->run->irq_affinity = JL_IRQ_KEEP;
	else if (!strcmp(value, "housekeeping"))
		v->run->irq_affinity = JL_IRQ_HOUSEKEEPING;
	else {
		snprintf(why, wl, "'%s' is not an irq_affinity (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_irq_affinity)
{
	(void)buf, (void)len;
	return v->run->irq_affinity == JL_IRQ_KEEP ? "keep" : "housekeeping";
}

KEY_PARSE(run_cpu_dma_latency)
{
	(void)d, (void)key;
	if (!strcmp(value, "off")) {
		v->run->cpu_dma_latency_ns = -1;
		return 0;
	}
	if (jl_parse_duration(value, &v->run->cpu_dma_latency_ns, why, wl))
		return -1;
	if (v->run->cpu_dma_latency_ns % 1000 || v->run->cpu_dma_latency_ns > 2000000000LL) {
		snprintf(why, wl, "'%s' is not whole microseconds up to 2000s (expected e.g. 0us, 10us, or off)", value);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_cpu_dma_latency)
{
	return v->run->cpu_dma_latency_ns < 0 ? "off" : jl_format_duration(v->run->cpu_dma_latency_ns, buf, len);
}

KEY_PARSE(run_rt_runtime)
{
	int64_t ns;

	(void)d, (void)key;
	if (!strcmp(value, "keep")) {
		v->run->rt_runtime_us = -2;
		return 0;
	}
	if (!strcmp(value, "unlimited")) {
		v->run->rt_runtime_us = -1;
		return 0;
	}
	if (jl_parse_duration(value, &ns, why, wl)) {
		snprintf(why, wl, "'%s' is not an rt_runtime (expected keep, unlimited or a duration up to 1s, e.g. 950ms)", value);
		return -1;
	}
	if (ns % 1000 || ns <= 0 || ns > JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is not whole microseconds in 1us-1s (expected e.g. 950ms; the RT period is 1s)", value);
		return -1;
	}
	v->run->rt_runtime_us = ns / 1000;
	return 0;
}

KEY_FORMAT(fmt_rt_runtime)
{
	if (v->run->rt_runtime_us == -2)
		return "keep";
	if (v->run->rt_runtime_us == -1)
		return "unlimited";
	return jl_format_duration(v->run->rt_runtime_us * 1000, buf, len);
}

KEY_PARSE(run_fair_server)
{
	int64_t ns;

	(void)d, (void)key;
	if (!strcmp(value, "keep")) {
		v->run->fair_server_ns = -1;
		return 0;
	}
	if (jl_parse_duration(value, &ns, why, wl) || ns < 0 || ns > JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is not a fair_server (expected keep, or a runtime per 1 s period up to 1s, "
			 "e.g. 50ms)", value);
		return -1;
	}
	v->run->fair_server_ns = ns;
	return 0;
}

KEY_FORMAT(fmt_fair_server)
{
	return v->run->fair_server_ns < 0 ? "keep" : jl_format_duration(v->run->fair_server_ns, buf, len);
}

KEY_PARSE(run_seed)
{
	(void)d, (void)key;
	return jl_parse_int(value, 0, 0x7fffffffffffffffLL, &v->run->seed, why, wl);
}

KEY_FORMAT(fmt_seed)
{
	snprintf(buf, len, "%lld", v->run->seed);
	return buf;
}

KEY_PARSE(run_grace)
{
	(void)key;
	if (jl_parse_duration(value, &v->run->grace_ns, why, wl))
		return -1;
	if (v->run->grace_ns < 100000000LL || v->run->grace_ns > 600 * JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_grace)
{
	return jl_format_duration(v->run->grace_ns, buf, len);
}

KEY_PARSE(run_cleanup)
{
	(void)key;
	if (!strcmp(value, "report"))
		v->run->cleanup = JL_CLEANUP_REPORT;
	else if (!strcmp(value, "remove"))
		v->run->cleanup = JL_CLEANUP_REMOVE;
	else {
		snprintf(why, wl, "'%s' is not a cleanup (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_cleanup)
{
	(void)buf, (void)len;
	return v->run->cleanup == JL_CLEANUP_REMOVE ? "remove" : "report";
}

/* VALUE as one of the N NAMES of a [run] mode key (its index), or -1 with WHY ("'x' is not a WHAT mode"). */
static int mode_of(const char *const *names, size_t n, const char *value, const char *what, const char *range,
		   char *why, size_t wl)
{
	for (size_t i = 0; i < n; i++)
		if (!strcmp(value, names[i]))
			return (int)i;
	snprintf(why, wl, "'%s' is not a %s mode (expected %s)", value, what, range);
	return -1;
}

static const char *const samples_names[] = { "auto", "all", "worst", "none" };

KEY_PARSE(run_samples)
{
	int m = mode_of(samples_names, sizeof(samples_names) / sizeof(samples_names[0]), value, "samples", d->range,
			why, wl);

	(void)key;
	if (m < 0)
		return -1;
	v->run->samples = (enum jl_samples_mode)m;
	return 0;
}

KEY_FORMAT(fmt_samples)
{
	(void)buf, (void)len;
	return samples_names[v->run->samples];
}

static const char *const trace_keep_names[] = { "auto", "all", "worst" };

KEY_PARSE(run_trace_keep)
{
	int m = mode_of(trace_keep_names, sizeof(trace_keep_names) / sizeof(trace_keep_names[0]), value, "trace_keep",
			d->range, why, wl);

	(void)key;
	if (m < 0)
		return -1;
	v->run->trace_keep = (enum jl_trace_keep)m;
	return 0;
}

KEY_FORMAT(fmt_trace_keep)
{
	(void)buf, (void)len;
	return trace_keep_names[v->run->trace_keep];
}

KEY_PARSE(run_tail)
{
	(void)key;
	if (!strcmp(value, "off") || !strcmp(value, "on") || !strcmp(value, "p99")) {
		v->run->tail_ns = !strcmp(value, "off") ? -1 : 0;
		return 0;
	}
	if (jl_parse_duration(value, &v->run->tail_ns, why, wl))
		return -1;
	if (v->run->tail_ns < 1000) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_tail)
{
	return v->run->tail_ns < 0 ? "off" : v->run->tail_ns ? jl_format_duration(v->run->tail_ns, buf, len) : "p99";
}

static const char *const percentiles_names[] = { "auto", "exact", "histogram" };

KEY_PARSE(run_percentiles)
{
	int m = mode_of(percentiles_names, sizeof(percentiles_names) / sizeof(percentiles_names[0]), value, "percentiles",
			d->range, why, wl);

	(void)key;
	if (m < 0)
		return -1;
	v->run->percentiles = (enum jl_percentiles)m;
	return 0;
}

KEY_FORMAT(fmt_percentiles)
{
	(void)buf, (void)len;
	return percentiles_names[v->run->percentiles];
}

KEY_PARSE(run_samples_memory)
{
	(void)key;
	if (jl_parse_size(value, &v->run->samples_memory, why, wl))
		return -1;
	if (v->run->samples_memory < 64 * 1024 || v->run->samples_memory > (1ULL << 40)) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_samples_memory)
{
	return jl_format_size(v->run->samples_memory, buf, len);
}

KEY_PARSE(run_interval)
{
	(void)key;
	if (!strcmp(value, "auto")) {
		v->run->interval_ns = 0;
		return 0;
	}
	if (jl_parse_duration(value, &v->run->interval_ns, why, wl))
		return -1;
	if (v->run->interval_ns < 100000000LL) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_interval)
{
	return v->run->interval_ns ? jl_format_duration(v->run->interval_ns, buf, len) : "auto";
}

KEY_PARSE(run_histogram)
{
	int64_t ns;

	(void)key;
	if (!strcmp(value, "auto")) {
		v->run->histogram_us = 0;
		return 0;
	}
	if (jl_parse_duration(value, &ns, why, wl))
		return -1;
	if (ns < 1000 || ns > (int64_t)JL_CYCLICTEST_HIST_US * 1000 || ns % 1000) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	v->run->histogram_us = ns / 1000;
	return 0;
}

KEY_FORMAT(fmt_histogram)
{
	return v->run->histogram_us ? jl_format_duration(v->run->histogram_us * 1000, buf, len) : "auto";
}

KEY_PARSE(run_checkpoint)
{
	(void)key;
	if (!strcmp(value, "off") || !strcmp(value, "none")) {
		v->run->checkpoint_ns = 0;
		return 0;
	}
	if (jl_parse_duration(value, &v->run->checkpoint_ns, why, wl))
		return -1;
	if (v->run->checkpoint_ns < JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_checkpoint)
{
	return v->run->checkpoint_ns ? jl_format_duration(v->run->checkpoint_ns, buf, len) : "off";
}

static const char *const stop_metric_names[] = { [JL_STOP_AT_LATENCY] = "latency", [JL_STOP_AT_RESPONSE] = "response" };

/* SERIES.METRIC > DURATION (the series is checked against the scenario's loops and callbacks later) */
KEY_PARSE(run_stop_at)
{
	struct jl_stop_at *st = &v->run->stop_at;
	char buf[256], *dot, *gt, *metric, *val;
	size_t m;

	(void)key;
	memset(st, 0, sizeof(*st));
	if (!strcmp(value, "none") || !strcmp(value, "off"))
		return 0;
	snprintf(buf, sizeof(buf), "%s", value);
	gt = strchr(buf, '>');
	if (!gt) {
		snprintf(why, wl, "'%s' has no '>' (expected %s)", value, d->range);
		return -1;
	}
	*gt = '\0';
	for (val = gt + 1; *val == ' ' || *val == '\t'; val++)
		;
	for (char *e = gt - 1; e >= buf && (*e == ' ' || *e == '\t'); e--)
		*e = '\0';
	dot = strrchr(buf, '.');
	if (!dot || dot == buf) {
		snprintf(why, wl, "'%s' names no SERIES.METRIC (expected %s)", value, d->range);
		return -1;
	}
	*dot = '\0';
	metric = dot + 1;
	for (m = 0; m < sizeof(stop_metric_names) / sizeof(stop_metric_names[0]); m++)
		if (!strcmp(metric, stop_metric_names[m]))
			break;
	if (m == sizeof(stop_metric_names) / sizeof(stop_metric_names[0])) {
		snprintf(why, wl, "'%s' is not a metric a cycle has (expected latency or response)", metric);
		return -1;
	}
	if (strlen(buf) >= sizeof(st->series)) {
		snprintf(why, wl, "series name '%.64s...' is too long", buf);
		return -1;
	}
	if (jl_parse_duration(val, &st->threshold_ns, why, wl))
		return -1;
	snprintf(st->series, sizeof(st->series), "%s", buf);
	st->metric = (enum jl_stop_metric)m;
	st->set = true;
	return 0;
}

KEY_FORMAT(fmt_stop_at)
{
	const struct jl_stop_at *st = &v->run->stop_at;
	char d[64];

	if (!st->set)
		return "none";
	snprintf(buf, len, "%s.%s > %s", st->series, stop_metric_names[st->metric],
		 jl_format_duration(st->threshold_ns, d, sizeof(d)));
	return buf;
}

static const struct jl_key_desc run_keys[] = {
	{ .name = "name", .slot = JL_RUN_KEY_NAME, .syntax = "NAME", .def_doc = "the file stem",
	  .range = "[a-z][a-z0-9_-]*, at most 63 characters", .help = "run name, used in the output path",
	  .parse = run_name, .format = fmt_name },
	{ .name = "duration", .slot = JL_RUN_KEY_DURATION, .syntax = "DURATION", .def = "10s", .range = "greater than 0",
	  .help = "measured time after warm-up", .parse = run_duration, .format = fmt_duration },
	{ .name = "warmup", .slot = JL_RUN_KEY_WARMUP, .syntax = "DURATION", .def = "1s", .range = "0 or more",
	  .help = "time before measuring; cycles then are recorded but excluded from statistics",
	  .parse = run_warmup, .format = fmt_warmup },
	{ .name = "trace", .slot = JL_RUN_KEY_TRACE, .syntax = "off|sched,irq,timer,osnoise", .def = "sched",
	  .range = "off, or a comma list of sched, irq, timer, osnoise",
	  .help = "the kernel events recorded with ftrace, as event groups (jitterlab list: trace groups)",
	  .parse = run_trace, .format = fmt_trace },
	{ .name = "trace_buffer", .slot = JL_RUN_KEY_TRACE_BUFFER, .syntax = "SIZE", .def = "16MB",
	  .range = "64KB-4GB per CPU", .help = "ftrace ring buffer per CPU", .parse = run_trace_buffer,
	  .format = fmt_trace_buffer },
	{ .name = "trace_threshold", .slot = JL_RUN_KEY_TRACE_THRESHOLD, .syntax = "none|off|DURATION", .def = "none",
	  .range = "none, off or a duration",
	  .help = "mark cycles whose latency exceeds this in the trace (none: mark only deadline misses)",
	  .parse = run_trace_threshold, .format = fmt_trace_threshold },
	{ .name = "isolate", .slot = JL_RUN_KEY_ISOLATE, .syntax = "none|CPULIST", .def = "none",
	  .range = "none, or a list of online CPUs that leaves a housekeeping CPU",
	  .help = "CPUs to shield for the run (cpuset); the rest becomes housekeeping", .parse = run_isolate,
	  .format = fmt_isolate, .note = note_isolate },
	{ .name = "irq_affinity", .slot = JL_RUN_KEY_IRQ_AFFINITY, .syntax = "keep|housekeeping", .def = "keep",
	  .range = "keep or housekeeping",
	  .help = "housekeeping: move every movable IRQ off the isolated CPUs for the run (needs isolate)",
	  .parse = run_irq_affinity, .format = fmt_irq_affinity },
	{ .name = "housekeeping", .slot = JL_RUN_KEY_HOUSEKEEPING, .syntax = "auto|CPULIST", .def = "auto",
	  .range = "auto, or online CPUs that no measured thread, probed program or executor is pinned to, none "
		   "isolated",
	  .help = "CPUs for jitterlab's own threads (watchdog, trace reader, probe server); auto: the online "
		  "CPUs no measured thread is pinned to", .parse = run_housekeeping, .format = fmt_housekeeping },
	{ .name = "cpu_dma_latency", .slot = JL_RUN_KEY_CPU_DMA_LATENCY, .syntax = "off|DURATION", .def = "0us",
	  .range = "off, or whole microseconds up to 2000s",
	  .help = "value held in /dev/cpu_dma_latency during the run", .parse = run_cpu_dma_latency,
	  .format = fmt_cpu_dma_latency },
	{ .name = "rt_runtime", .slot = JL_RUN_KEY_RT_RUNTIME, .syntax = "keep|unlimited|DURATION", .def = "keep",
	  .range = "keep, unlimited, or whole microseconds in 1us-1s",
	  .help = "sched_rt_runtime_us for the run (RT throttling); unlimited is refused unless --unsafe",
	  .parse = run_rt_runtime, .format = fmt_rt_runtime },
	{ .name = "seed", .slot = JL_RUN_KEY_SEED, .syntax = "N", .def = "1", .range = "0-9223372036854775807",
	  .help = "seed for anything random in loads", .parse = run_seed, .format = fmt_seed },
	{ .name = "grace", .slot = JL_RUN_KEY_GRACE, .syntax = "DURATION", .def = "2s", .range = "100ms-10m",
	  .help = "how long the watchdog waits for threads to stop after the end", .parse = run_grace,
	  .format = fmt_grace },
	{ .name = "fair_server", .slot = JL_RUN_KEY_FAIR_SERVER, .syntax = "keep|DURATION", .def = "keep",
	  .range = "keep, or a runtime per 1 s period up to 1s",
	  .help = "the fair server's runtime per period on every CPU (the CFS reserve above RT tasks)",
	  .parse = run_fair_server, .format = fmt_fair_server },
	{ .name = "cleanup", .slot = JL_RUN_KEY_CLEANUP, .syntax = "report|remove", .def = "report",
	  .range = "report or remove",
	  .help = "what the neighbours left (processes of the run's tree still alive, /dev/shm entries they "
		  "created): report them in summary.json, or also end and remove them",
	  .parse = run_cleanup, .format = fmt_cleanup },
	{ .name = "samples", .slot = JL_RUN_KEY_SAMPLES, .syntax = "auto|all|worst|none", .def = "auto",
	  .range = "auto, all, worst or none",
	  .help = "what samples.csv holds: every measured cycle (all), the worst ones (the 10 worst, the first 1000 "
		  "misses and the last 1024 cycles of each series), or none; auto: all unless the run is long "
		  "(samples_memory), worst then", .parse = run_samples, .format = fmt_samples },
	{ .name = "samples_memory", .slot = JL_RUN_KEY_SAMPLES_MEMORY, .syntax = "SIZE", .def = "32MB",
	  .range = "64KB-1TB",
	  .help = "what makes a run long: the memory its loops' cycles would take if kept (every loop keeps a "
		  "ring, the memory stays flat whatever the duration); beyond it samples = auto keeps the worst rows "
		  "and trace_keep = auto the worst cycles' pages",
	  .parse = run_samples_memory, .format = fmt_samples_memory },
	{ .name = "interval", .slot = JL_RUN_KEY_INTERVAL, .syntax = "auto|DURATION", .def = "auto",
	  .range = "auto, or 100ms or more",
	  .help = "the maximum latency per interval (summary.json intervals; the OSADL plot is 5m); auto: a 60th "
		  "of the duration, between 1s and 5m", .parse = run_interval, .format = fmt_interval },
	{ .name = "stop_at", .slot = JL_RUN_KEY_STOP_AT, .syntax = "none|SERIES.METRIC > DURATION", .def = "none",
	  .range = "none, or a loop or callback, latency or response, and a duration",
	  .help = "end the run at the first cycle over the threshold, the trace kept around it (cyclictest -b, rtla "
		  "--on-threshold); exit status 3", .parse = run_stop_at, .format = fmt_stop_at },
	{ .name = "checkpoint", .slot = JL_RUN_KEY_CHECKPOINT, .syntax = "off|DURATION", .def = "5m",
	  .range = "off, or 1s or more",
	  .help = "write summary.json (marked as a checkpoint) this often while the run goes, so a run that dies "
		  "leaves its figures so far", .parse = run_checkpoint, .format = fmt_checkpoint },
	{ .name = "trace_keep", .slot = JL_RUN_KEY_TRACE_KEEP, .syntax = "auto|all|worst", .def = "auto",
	  .range = "auto, all or worst",
	  .help = "which pages of the trace trace.dat keeps: all, or worst (a flight recorder: the windows of each "
		  "loop's 16 worst cycles and first 100 misses, and the last 8 MB per CPU; the disk stays bounded "
		  "whatever the duration); auto: worst when the run is long (samples_memory), all otherwise",
	  .parse = run_trace_keep, .format = fmt_trace_keep },
	{ .name = "tail", .slot = JL_RUN_KEY_TAIL, .syntax = "p99|DURATION|off", .def = "p99",
	  .range = "p99 (or on), off, or a latency of 1us or more",
	  .help = "a traced run counts what each loop's latency tail is made of, by cause, from every cycle "
		  "(summary.json trace.tail, tail.svg): the cycles above p99, or above this latency, and the misses "
		  "(either rounded up to the top of its histogram bucket, at most 12.5%); off spares the analysis that "
		  "work (make bench measures it)", .parse = run_tail, .format = fmt_tail },
	{ .name = "percentiles", .slot = JL_RUN_KEY_PERCENTILES, .syntax = "auto|exact|histogram", .def = "auto",
	  .range = "auto, exact or histogram",
	  .help = "how the loops' percentiles are found (every loop keeps a ring): exact (every value also "
		  "goes to a file in /tmp, 24 bytes a cycle; the memory stays flat), or from the rings' histograms "
		  "(within 0.1%); auto: exact when the file fits (at most 1 GB and a quarter of /tmp's free space, "
		  "samples_memory on a tmpfs /tmp)", .parse = run_percentiles, .format = fmt_percentiles },
	{ .name = "histogram", .slot = JL_RUN_KEY_HISTOGRAM, .syntax = "auto|DURATION", .def = "auto",
	  .range = "auto, or whole microseconds from 1us to 20ms",
	  .help = "histogram.txt's rows, 1 us each, as cyclictest -h US tracks them (latencies beyond are counted as "
		  "overflows); auto: up to the largest latency, at least 100 us", .parse = run_histogram,
	  .format = fmt_histogram },
};

const struct jl_key_table jl_keys_run = { "run", run_keys, (int)(sizeof(run_keys) / sizeof(run_keys[0])) };
