/* scenario_keys: the parsers of single keys, one per section ([run], [thread NAME], [expect],
 * [sweep]), and the names of policies and keys. Pure: a value in, a field set or a reason out (a cpu
 * list's names, pcores/ecores/smt:N, are resolved by reading sysfs: affinity/topology.c). */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../affinity/cpulist.h"
#include "../affinity/topology.h"
#include "metrics.h"
#include "scenario_int.h"
#include "units.h"

const char *const jl_policy_names[JL_POLICY_N] = {
	[JL_POLICY_OTHER] = "other", [JL_POLICY_BATCH] = "batch", [JL_POLICY_IDLE] = "idle",
	[JL_POLICY_FIFO] = "fifo",   [JL_POLICY_RR] = "rr",       [JL_POLICY_DEADLINE] = "deadline",
};

const char *const jl_tkey_names[JL_TKEY_N] = {
	"policy", "priority", "nice", "cpus", "count", "period", "rate", "work",
	"deadline", "overrun", "runtime", "mem_node", "start", "measure", "exec", "user",
};

const char *const jl_rkey_names[JL_RKEY_N] = {
	"name", "duration", "warmup", "trace", "trace_buffer", "trace_threshold", "isolate",
	"irq_affinity", "cpu_dma_latency", "rt_runtime", "seed", "grace", "fair_server",
};

const char *jl_policy_name(enum jl_policy p)
{
	return jl_policy_names[p];
}

bool jl_policy_is_rt(enum jl_policy p)
{
	return p == JL_POLICY_FIFO || p == JL_POLICY_RR;
}

int64_t jl_thread_deadline_ns(const struct jl_thread_spec *t)
{
	return t->beh.deadline_ns ? t->beh.deadline_ns : t->beh.period_ns;
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

bool jl_thread_measured(const struct jl_thread_spec *t)
{
	if (t->beh.period_ns == 0 || t->beh.exec[0])
		return false;
	return t->beh.measure != 0;
}

/* A cpu list key (cpus, isolate): the CPUs into SET, and into TEXT (JL_CPUS_TEXT_MAX) the list as
 * written when it uses a name, so that the effective scenario keeps `pcores` rather than this host's
 * numbers. */
static int cpus_key(const char *value, cpu_set_t *set, char *text, char *why, size_t wl)
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

/* ---- [run] keys ---- */

int jl_scenario_run_key(struct jl_run_spec *r, int line, const char *key, const char *value, char *why, size_t wl)
{
	int k;

	for (k = 0; k < JL_RKEY_N; k++)
		if (!strcmp(key, jl_rkey_names[k]))
			break;
	if (k == JL_RKEY_N) {
		char names[512];
		size_t used = 0;

		names[0] = '\0';
		for (int i = 0; i < JL_RKEY_N && used < sizeof(names); i++) /* the registry's, never a copy */
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", jl_rkey_names[i]);
		snprintf(why, wl, "unknown key '%s' (expected one of %s)", key, names);
		return -1;
	}
	r->key_line[k] = line > 0 ? line : -1; /* -1: set by --set */
	switch ((enum jl_rkey)k) {
	case JL_RKEY_NAME:
		/* like thread names: it names the output directory and is shown in reports and plots */
		if (!islower((unsigned char)value[0]) || strlen(value) >= sizeof(r->name) ||
		    value[strspn(value, "abcdefghijklmnopqrstuvwxyz0123456789_-")]) {
			snprintf(why, wl, "name '%s' is not usable in a path (expected [a-z][a-z0-9_-]*, at most %zu characters)",
				 value, sizeof(r->name) - 1);
			return -1;
		}
		snprintf(r->name, sizeof(r->name), "%s", value);
		return 0;
	case JL_RKEY_DURATION:
		if (jl_parse_duration(value, &r->duration_ns, why, wl))
			return -1;
		if (r->duration_ns <= 0) {
			snprintf(why, wl, "duration must be greater than 0");
			return -1;
		}
		return 0;
	case JL_RKEY_WARMUP:
		return jl_parse_duration(value, &r->warmup_ns, why, wl);
	case JL_RKEY_TRACE: {
		char buf[256], *save = NULL, *tok;

		r->trace_groups = 0;
		if (!strcmp(value, "off") || !strcmp(value, "no") || !strcmp(value, "none"))
			return 0;
		snprintf(buf, sizeof(buf), "%s", value);
		for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
			if (!strcmp(tok, "sched"))
				r->trace_groups |= JL_TRACE_SCHED;
			else if (!strcmp(tok, "irq"))
				r->trace_groups |= JL_TRACE_IRQ;
			else if (!strcmp(tok, "timer"))
				r->trace_groups |= JL_TRACE_TIMER;
			else {
				snprintf(why, wl, "unknown trace group '%s' (expected off, or a comma list of sched, irq, timer)", tok);
				return -1;
			}
		}
		if (!r->trace_groups) {
			snprintf(why, wl, "empty trace list (expected off, or a comma list of sched, irq, timer)");
			return -1;
		}
		return 0;
	}
	case JL_RKEY_TRACE_BUFFER:
		if (jl_parse_size(value, &r->trace_buffer, why, wl))
			return -1;
		if (r->trace_buffer < 64 * 1024 || r->trace_buffer > (4ULL << 30)) {
			snprintf(why, wl, "'%s' is out of range (expected 64KB-4GB per CPU)", value);
			return -1;
		}
		return 0;
	case JL_RKEY_TRACE_THRESHOLD:
		if (!strcmp(value, "none") || !strcmp(value, "off")) {
			r->trace_threshold_ns = 0;
			return 0;
		}
		return jl_parse_duration(value, &r->trace_threshold_ns, why, wl);
	case JL_RKEY_ISOLATE:
		if (!strcmp(value, "none") || !*value) {
			r->isolate_set = false;
			CPU_ZERO(&r->isolate);
			r->isolate_text[0] = '\0';
			return 0;
		}
		if (cpus_key(value, &r->isolate, r->isolate_text, why, wl))
			return -1;
		r->isolate_set = true;
		return 0;
	case JL_RKEY_IRQ_AFFINITY:
		if (!strcmp(value, "keep"))
			r->irq_affinity = JL_IRQ_KEEP;
		else if (!strcmp(value, "housekeeping"))
			r->irq_affinity = JL_IRQ_HOUSEKEEPING;
		else {
			snprintf(why, wl, "'%s' is not an irq_affinity (expected keep or housekeeping)", value);
			return -1;
		}
		return 0;
	case JL_RKEY_CPU_DMA_LATENCY:
		if (!strcmp(value, "off")) {
			r->cpu_dma_latency_ns = -1;
			return 0;
		}
		if (jl_parse_duration(value, &r->cpu_dma_latency_ns, why, wl))
			return -1;
		if (r->cpu_dma_latency_ns % 1000 || r->cpu_dma_latency_ns > 2000000000LL) {
			snprintf(why, wl, "'%s' is not whole microseconds up to 2000s (expected e.g. 0us, 10us, or off)", value);
			return -1;
		}
		return 0;
	case JL_RKEY_RT_RUNTIME: {
		int64_t ns;

		if (!strcmp(value, "keep")) {
			r->rt_runtime_us = -2;
			return 0;
		}
		if (!strcmp(value, "unlimited")) {
			r->rt_runtime_us = -1;
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
		r->rt_runtime_us = ns / 1000;
		return 0;
	}
	case JL_RKEY_FAIR_SERVER: {
		int64_t ns;

		if (!strcmp(value, "keep")) {
			r->fair_server_ns = -1;
			return 0;
		}
		if (jl_parse_duration(value, &ns, why, wl) || ns < 0 || ns > JL_NSEC_PER_SEC) {
			snprintf(why, wl, "'%s' is not a fair_server (expected keep, or a runtime per 1 s period up to 1s, "
				 "e.g. 50ms)", value);
			return -1;
		}
		r->fair_server_ns = ns;
		return 0;
	}
	case JL_RKEY_SEED:
		return jl_parse_int(value, 0, 0x7fffffffffffffffLL, &r->seed, why, wl);
	case JL_RKEY_GRACE:
		if (jl_parse_duration(value, &r->grace_ns, why, wl))
			return -1;
		if (r->grace_ns < 100000000LL || r->grace_ns > 600 * JL_NSEC_PER_SEC) {
			snprintf(why, wl, "'%s' is out of range (expected 100ms-10m)", value);
			return -1;
		}
		return 0;
	case JL_RKEY_N:
		break;
	}
	return -1;
}

/* ---- [thread NAME] keys ---- */

int jl_scenario_thread_key(struct jl_thread_spec *t, int line, const char *key, const char *value, char *why, size_t wl)
{
	long long v;
	int k;

	for (k = 0; k < JL_TKEY_N; k++)
		if (!strcmp(key, jl_tkey_names[k]))
			break;
	if (k == JL_TKEY_N) {
		snprintf(why, wl, "unknown key '%s' (expected one of policy, priority, nice, cpus, count, period, rate, "
				  "work, deadline, overrun, runtime, mem_node, start, measure, exec, user)", key);
		return -1;
	}
	t->key_line[k] = line > 0 ? line : -1; /* -1: set by --set */
	switch ((enum jl_tkey)k) {
	case JL_TKEY_POLICY:
		for (size_t i = 0; i < sizeof(jl_policy_names) / sizeof(jl_policy_names[0]); i++) {
			if (!strcmp(value, jl_policy_names[i])) {
				t->place.policy = (enum jl_policy)i;
				return 0; /* a --set policy drops the keys it does not take: see jl_scenario_set() */
			}
		}
		snprintf(why, wl, "'%s' is not a policy (expected fifo, rr, other, batch, idle or deadline)", value);
		return -1;
	case JL_TKEY_PRIORITY:
		/* range depends on the policy: checked in validate() */
		if (jl_parse_int(value, -1000, 1000, &v, why, wl)) {
			snprintf(why, wl, "'%s' is not a priority (expected an integer, 1-98 for fifo and rr)", value);
			return -1;
		}
		t->place.priority = (int)v;
		return 0;
	case JL_TKEY_NICE:
		if (jl_parse_int(value, -20, 19, &v, why, wl))
			return -1;
		t->place.nice = (int)v;
		return 0;
	case JL_TKEY_CPUS:
		if (cpus_key(value, &t->place.cpus, t->place.cpus_text, why, wl))
			return -1;
		t->place.cpus_set = true;
		return 0;
	case JL_TKEY_COUNT:
		if (jl_parse_int(value, 1, 64, &v, why, wl))
			return -1;
		t->place.count = (unsigned)v;
		return 0;
	case JL_TKEY_PERIOD:
		if (jl_parse_duration(value, &t->beh.period_ns, why, wl))
			return -1;
		t->beh.period_from_rate = false;
		if (line <= 0) /* --set period replaces a rate from the file */
			t->key_line[JL_TKEY_RATE] = 0;
		goto check_period;
	case JL_TKEY_RATE:
		if (jl_parse_rate(value, &t->beh.period_ns, why, wl))
			return -1;
		t->beh.period_from_rate = true;
		if (line <= 0) /* --set rate replaces a period from the file */
			t->key_line[JL_TKEY_PERIOD] = 0;
check_period:
		if (t->beh.period_ns < 10000 || t->beh.period_ns > 3600 * JL_NSEC_PER_SEC) {
			snprintf(why, wl, "'%s' is out of range (expected a period of 10us-1h, a rate of 1/h-100kHz)", value);
			return -1;
		}
		return 0;
	case JL_TKEY_WORK:
		return jl_work_parse(value, &t->beh.work, why, wl);
	case JL_TKEY_DEADLINE:
		if (jl_parse_duration(value, &t->beh.deadline_ns, why, wl))
			return -1;
		if (t->beh.deadline_ns <= 0) {
			snprintf(why, wl, "deadline must be greater than 0");
			return -1;
		}
		return 0;
	case JL_TKEY_OVERRUN:
		if (!strcmp(value, "skip"))
			t->beh.overrun = JL_OVERRUN_SKIP;
		else if (!strcmp(value, "catchup"))
			t->beh.overrun = JL_OVERRUN_CATCHUP;
		else {
			snprintf(why, wl, "'%s' is not an overrun mode (expected skip or catchup)", value);
			return -1;
		}
		return 0;
	case JL_TKEY_RUNTIME:
		if (jl_parse_duration(value, &t->place.runtime_ns, why, wl))
			return -1;
		if (t->place.runtime_ns < 1024) {
			snprintf(why, wl, "runtime must be at least 1024ns (SCHED_DEADLINE's minimum)");
			return -1;
		}
		return 0;
	case JL_TKEY_MEM_NODE:
		if (!strcmp(value, "none")) {
			t->place.mem_node = -1;
			return 0;
		}
		if (jl_parse_int(value, 0, 1023, &v, why, wl))
			return -1;
		t->place.mem_node = (int)v;
		return 0;
	case JL_TKEY_START:
		return jl_parse_duration(value, &t->beh.start_ns, why, wl);
	case JL_TKEY_MEASURE: {
		bool b;

		if (jl_parse_bool(value, &b, why, wl))
			return -1;
		t->beh.measure = b;
		return 0;
	}
	case JL_TKEY_EXEC:
		if (!*value || strlen(value) >= sizeof(t->beh.exec)) {
			snprintf(why, wl, "exec needs a command line (at most %zu characters)", sizeof(t->beh.exec) - 1);
			return -1;
		}
		snprintf(t->beh.exec, sizeof(t->beh.exec), "%s", value);
		return 0;
	case JL_TKEY_USER:
		/* who an exec neighbour runs as; `invoking` needs sudo and exec: checked in validate() */
		if (!strcmp(value, "root"))
			t->place.user = JL_USER_ROOT;
		else if (!strcmp(value, "invoking"))
			t->place.user = JL_USER_INVOKING;
		else {
			snprintf(why, wl, "'%s' is not a user (expected root or invoking: the sudo user, SUDO_UID)", value);
			return -1;
		}
		return 0;
	case JL_TKEY_N:
		break;
	}
	return -1;
}

/* ---- [expect] ---- */

int jl_scenario_expect_parse(const char *label, const char *value, struct jl_expect *e, char *why, size_t wl)
{
	static const struct {
		const char *text;
		enum jl_cmp op;
	} ops[] = { { "<=", JL_CMP_LE }, { ">=", JL_CMP_GE }, { "==", JL_CMP_EQ }, { "<", JL_CMP_LT }, { ">", JL_CMP_GT } };
	char lhs[160], rhs[96];
	const char *p = strpbrk(value, "<>=");
	size_t oplen = 0, n;
	int m = -1;

	memset(e, 0, sizeof(*e));
	snprintf(e->label, sizeof(e->label), "%s", label);
	snprintf(e->text, sizeof(e->text), "%s", value);
	if (!p)
		goto syntax;
	for (size_t i = 0; i < sizeof(ops) / sizeof(ops[0]); i++) {
		if (!strncmp(p, ops[i].text, strlen(ops[i].text))) {
			e->op = ops[i].op;
			oplen = strlen(ops[i].text);
			break;
		}
	}
	if (!oplen)
		goto syntax;
	n = (size_t)(p - value);
	while (n && isspace((unsigned char)value[n - 1]))
		n--;
	if (n == 0 || n >= sizeof(lhs))
		goto syntax;
	memcpy(lhs, value, n);
	lhs[n] = '\0';
	p += oplen;
	while (isspace((unsigned char)*p))
		p++;
	snprintf(rhs, sizeof(rhs), "%s", p);
	if (!rhs[0])
		goto syntax;
	/* THREAD.METRIC where METRIC may itself contain a dot */
	for (int i = 0; i < jl_nmetrics; i++) {
		size_t ml = strlen(jl_metrics[i].name);

		if (n > ml + 1 && lhs[n - ml - 1] == '.' && !strcmp(lhs + n - ml, jl_metrics[i].name)) {
			m = i;
			break;
		}
	}
	if (m < 0) {
		char names[768];
		size_t used = 0;

		names[0] = '\0';
		for (int i = 0; i < jl_nmetrics && used < sizeof(names); i++) /* the registry's, never a copy */
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", i ? ", " : "", jl_metrics[i].name);
		snprintf(why, wl, "'%s' does not name THREAD.METRIC (metrics: %s)", lhs, names);
		return -1;
	}
	snprintf(e->metric, sizeof(e->metric), "%s", jl_metrics[m].name);
	n -= strlen(jl_metrics[m].name) + 1;
	if (n >= sizeof(e->thread)) {
		snprintf(why, wl, "thread name in '%s' is too long", lhs);
		return -1;
	}
	memcpy(e->thread, lhs, n);
	e->thread[n] = '\0';
	switch (jl_metrics[m].unit) {
	case JL_UNIT_NS: {
		int64_t ns;

		if (jl_parse_duration(rhs, &ns, why, wl))
			return -1;
		e->value = (double)ns;
		return 0;
	}
	case JL_UNIT_HZ: {
		char *end;

		e->value = strtod(rhs, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (end == rhs || (*end && strcasecmp(end, "Hz")) || !isfinite(e->value)) {
			snprintf(why, wl, "'%s' is not a rate in Hz (e.g. 99 or 99.5Hz)", rhs);
			return -1;
		}
		return 0;
	}
	case JL_UNIT_COUNT: {
		long long v;

		if (jl_parse_int(rhs, 0, 0x7fffffffffffffffLL, &v, why, wl))
			return -1;
		e->value = (double)v;
		return 0;
	}
	}
syntax:
	snprintf(why, wl, "'%s' is not an expectation (expected THREAD.METRIC OP VALUE, OP one of < <= > >= ==, e.g. control.latency.p99 < 2ms)", value);
	return -1;
}

/* ---- [sweep] ---- */

int jl_scenario_sweep_key(struct jl_sweep_spec *sw, int line, const char *key, const char *value, char *why, size_t wl)
{

	if (!strcmp(key, "runs")) {
		long long v;

		if (jl_parse_int(value, 1, 1000, &v, why, wl))
			return -1;
		sw->runs = (int)v;
		return 0;
	}
	if (!strcmp(key, "compare")) {
		if (strlen(value) >= sizeof(sw->compare)) {
			snprintf(why, wl, "compare list is too long");
			return -1;
		}
		snprintf(sw->compare, sizeof(sw->compare), "%s", value);
		return 0;
	}
	if (!strncmp(key, "condition.", 10)) {
		struct jl_condition *c;

		const char *lab = key + 10;

		if (!(islower((unsigned char)*lab) || isdigit((unsigned char)*lab)) || strlen(lab) >= JL_NAME_MAX ||
		    lab[strspn(lab, "abcdefghijklmnopqrstuvwxyz0123456789_-")]) {
			snprintf(why, wl, "condition label '%s' is not valid (expected [a-z0-9][a-z0-9_-]*)", key + 10);
			return -1;
		}
		if (sw->nconditions >= JL_MAX_CONDITIONS) {
			snprintf(why, wl, "too many conditions (at most %d)", JL_MAX_CONDITIONS);
			return -1;
		}
		c = &sw->conditions[sw->nconditions++];
		snprintf(c->label, sizeof(c->label), "%s", key + 10);
		snprintf(c->overrides, sizeof(c->overrides), "%s", value);
		c->line = line;
		return 0;
	}
	if (!strncmp(key, "vary.", 5)) {
		if (sw->nvary >= JL_MAX_VARY) {
			snprintf(why, wl, "too many vary keys (at most %d)", JL_MAX_VARY);
			return -1;
		}
		if (!strchr(key + 5, '.') || strlen(key + 5) >= sizeof(sw->vary[0].key) ||
		    strlen(value) >= sizeof(sw->vary[0].values)) {
			snprintf(why, wl, "'%s' must be vary.SECTION.KEY (e.g. vary.control.policy)", key);
			return -1;
		}
		snprintf(sw->vary[sw->nvary].key, sizeof(sw->vary[0].key), "%s", key + 5);
		snprintf(sw->vary[sw->nvary].values, sizeof(sw->vary[0].values), "%s", value);
		sw->vary[sw->nvary].line = line;
		sw->nvary++;
		return 0;
	}
	snprintf(why, wl, "unknown key '%s' (expected runs, compare, condition.LABEL or vary.SECTION.KEY)", key);
	return -1;
}

