/* scenario: parse scenario files with libinih into struct jl_scenario, apply --set overrides, check
 * cross-key rules. Never touches the machine. Every error is "FILE:LINE: context: reason". */
#include "scenario.h"

#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <numa.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../affinity/cpulist.h"
#include "metrics.h"
#include "units.h"

/* The longest line libinih hands us: INI_MAX_LINE (200) less the terminating NUL. */
#define JL_INI_LINE_MAX 199

enum section_kind { SEC_NONE, SEC_RUN, SEC_THREAD, SEC_EXPECT, SEC_SWEEP };

struct parser {
	struct jl_scenario *sc;
	const char *file;        /* name used in messages */
	int line;                /* current line (counted by our reader) */
	enum section_kind sec;
	struct jl_thread_spec *thread;
	bool seen_run, seen_expect, seen_sweep;
	char seen_keys[160][64];  /* keys of the current section, for duplicate detection */
	int nseen;
	bool prev_key;           /* the last key = value line (libinih continues it on indented lines) */
	char prev_key_name[64];
	/* input */
	const char *text;        /* string input */
	size_t pos;
	FILE *fp;
	/* first error wins */
	bool failed;
	char *err;
	size_t errlen;
};

static const char *const policy_names[] = {
	[JL_POLICY_OTHER] = "other", [JL_POLICY_BATCH] = "batch", [JL_POLICY_IDLE] = "idle",
	[JL_POLICY_FIFO] = "fifo",   [JL_POLICY_RR] = "rr",       [JL_POLICY_DEADLINE] = "deadline",
};

static const char *const tkey_names[JL_TKEY_N] = {
	"policy", "priority", "nice", "cpus", "count", "period", "rate", "work",
	"deadline", "overrun", "runtime", "mem_node", "start", "measure", "exec",
};

static const char *const rkey_names[JL_RKEY_N] = {
	"name", "duration", "warmup", "trace", "trace_buffer", "trace_threshold", "isolate",
	"irq_affinity", "cpu_dma_latency", "rt_runtime", "seed", "grace",
};

const char *jl_policy_name(enum jl_policy p)
{
	return policy_names[p];
}

bool jl_policy_is_rt(enum jl_policy p)
{
	return p == JL_POLICY_FIFO || p == JL_POLICY_RR;
}

bool jl_thread_measured(const struct jl_thread_spec *t)
{
	if (t->period_ns == 0 || t->exec[0])
		return false;
	return t->measure != 0;
}

static void fail(struct parser *ps, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, int line, const char *fmt, ...)
{
	char msg[JL_ERR_MAX];
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(ps->err, ps->errlen, "%s:%d: %s", ps->file, line, msg);
	else
		snprintf(ps->err, ps->errlen, "%s: %s", ps->file, msg);
}

static bool valid_name(const char *s)
{
	if (!islower((unsigned char)*s))
		return false;
	for (s++; *s; s++)
		if (!islower((unsigned char)*s) && !isdigit((unsigned char)*s) && *s != '_' && *s != '-')
			return false;
	return true;
}

static void defaults_run(struct jl_run_spec *r)
{
	memset(r, 0, sizeof(*r));
	r->duration_ns = 10 * JL_NSEC_PER_SEC;
	r->warmup_ns = JL_NSEC_PER_SEC;
	r->trace_groups = JL_TRACE_SCHED;
	r->trace_buffer = 16ULL << 20;
	r->irq_affinity = JL_IRQ_KEEP;
	r->cpu_dma_latency_ns = 0;
	r->rt_runtime_us = -2;
	r->seed = 1;
	r->grace_ns = 2 * JL_NSEC_PER_SEC;
}

static void defaults_thread(struct jl_thread_spec *t)
{
	memset(t, 0, sizeof(*t));
	t->policy = JL_POLICY_OTHER;
	t->count = 1;
	t->work.kind = JL_WORK_NONE;
	t->overrun = JL_OVERRUN_SKIP;
	t->mem_node = -1;
	t->measure = -1;
}

static void scenario_init(struct jl_scenario *sc, const char *path)
{
	const char *base, *dot;
	size_t n;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->path, sizeof(sc->path), "%s", path);
	defaults_run(&sc->run);
	sc->sweep.runs = 5;
	/* default name: the file stem */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= sizeof(sc->run.name))
		n = sizeof(sc->run.name) - 1;
	memcpy(sc->run.name, base, n);
	sc->run.name[n] = '\0';
	/* the stem must itself be a valid `name` (scenario.ini in the run directory is parsed back) */
	for (char *c = sc->run.name; *c; c++)
		if (*c == '/' || isspace((unsigned char)*c) || iscntrl((unsigned char)*c) || *c == ';' || *c == '#')
			*c = '_';
	if (sc->run.name[0] == '.')
		sc->run.name[0] = '_';
	if (!sc->run.name[0])
		snprintf(sc->run.name, sizeof(sc->run.name), "scenario");
}

/* ---- sections ---- */

static struct jl_thread_spec *find_thread(struct jl_scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (!strcmp(sc->threads[i].name, name))
			return &sc->threads[i];
	return NULL;
}

static void begin_section(struct parser *ps, const char *header)
{
	char kind[64] = "", name[128] = "", extra[2];
	int n;

	ps->nseen = 0;
	ps->thread = NULL;
	n = sscanf(header, "%63s %127s %1s", kind, name, extra);
	if (n <= 0) {
		fail(ps, ps->line, "empty section name (expected [run], [thread NAME], [expect] or [sweep])");
		return;
	}
	if (!strcmp(kind, "run") || !strcmp(kind, "expect") || !strcmp(kind, "sweep")) {
		bool *seen = kind[0] == 'r' ? &ps->seen_run : kind[0] == 'e' ? &ps->seen_expect : &ps->seen_sweep;

		if (n != 1) {
			fail(ps, ps->line, "section [%s] takes no name (got '%s')", kind, header);
			return;
		}
		if (*seen) {
			fail(ps, ps->line, "section [%s] appears twice", kind);
			return;
		}
		*seen = true;
		ps->sec = kind[0] == 'r' ? SEC_RUN : kind[0] == 'e' ? SEC_EXPECT : SEC_SWEEP;
		if (ps->sec == SEC_SWEEP)
			ps->sc->sweep.present = true;
		return;
	}
	if (!strcmp(kind, "thread")) {
		struct jl_thread_spec *t;

		if (n != 2) {
			fail(ps, ps->line, "section [%s]: expected [thread NAME]", header);
			return;
		}
		if (!valid_name(name) || strlen(name) >= JL_NAME_MAX - 8) {
			fail(ps, ps->line, "thread name '%s' is not valid (expected [a-z][a-z0-9_-]*, at most %d characters)",
			     name, JL_NAME_MAX - 9);
			return;
		}
		if (find_thread(ps->sc, name)) {
			fail(ps, ps->line, "thread '%s' is defined twice", name);
			return;
		}
		if (ps->sc->nthreads >= JL_MAX_THREADS) {
			fail(ps, ps->line, "too many threads (at most %d)", JL_MAX_THREADS);
			return;
		}
		t = &ps->sc->threads[ps->sc->nthreads++];
		defaults_thread(t);
		snprintf(t->name, sizeof(t->name), "%.*s", JL_NAME_MAX - 1, name);
		snprintf(t->file, sizeof(t->file), "%s", ps->file);
		t->line = ps->line;
		ps->thread = t;
		ps->sec = SEC_THREAD;
		return;
	}
	if (!strcmp(kind, "queue") || !strcmp(kind, "lock") || !strcmp(kind, "source") || !strcmp(kind, "budget")) {
		fail(ps, ps->line, "section [%s] is an application-structure model this version does not implement yet",
		     kind);
		return;
	}
	fail(ps, ps->line, "unknown section [%s] (expected [run], [thread NAME], [expect] or [sweep])", header);
}

/* ---- [run] keys ---- */

static int parse_run_key(struct parser *ps, const char *key, const char *value, char *why, size_t wl)
{
	struct jl_run_spec *r = &ps->sc->run;
	int k;

	for (k = 0; k < JL_RKEY_N; k++)
		if (!strcmp(key, rkey_names[k]))
			break;
	if (k == JL_RKEY_N) {
		snprintf(why, wl, "unknown key '%s' (expected one of name, duration, warmup, trace, trace_buffer, "
				  "trace_threshold, isolate, irq_affinity, cpu_dma_latency, rt_runtime, seed, grace)", key);
		return -1;
	}
	r->key_line[k] = ps->line > 0 ? ps->line : -1; /* -1: set by --set */
	switch ((enum jl_rkey)k) {
	case JL_RKEY_NAME:
		if (!*value || strlen(value) >= sizeof(r->name) || strpbrk(value, "/ \t\r\n\v\f;#") || value[0] == '.') {
			snprintf(why, wl, "name '%s' is not usable in a path (expected letters, digits, '-', '_', '.')", value);
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
			return 0;
		}
		if (jl_cpulist_parse(value, &r->isolate, why, wl))
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

static int parse_thread_key(struct parser *ps, struct jl_thread_spec *t, const char *key, const char *value,
			    char *why, size_t wl)
{
	long long v;
	int k;

	for (k = 0; k < JL_TKEY_N; k++)
		if (!strcmp(key, tkey_names[k]))
			break;
	if (k == JL_TKEY_N) {
		snprintf(why, wl, "unknown key '%s' (expected one of policy, priority, nice, cpus, count, period, rate, "
				  "work, deadline, overrun, runtime, mem_node, start, measure, exec)", key);
		return -1;
	}
	t->key_line[k] = ps->line > 0 ? ps->line : -1; /* -1: set by --set */
	switch ((enum jl_tkey)k) {
	case JL_TKEY_POLICY:
		for (size_t i = 0; i < sizeof(policy_names) / sizeof(policy_names[0]); i++) {
			if (!strcmp(value, policy_names[i])) {
				t->policy = (enum jl_policy)i;
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
		t->priority = (int)v;
		return 0;
	case JL_TKEY_NICE:
		if (jl_parse_int(value, -20, 19, &v, why, wl))
			return -1;
		t->nice = (int)v;
		return 0;
	case JL_TKEY_CPUS:
		if (jl_cpulist_parse(value, &t->cpus, why, wl))
			return -1;
		t->cpus_set = true;
		return 0;
	case JL_TKEY_COUNT:
		if (jl_parse_int(value, 1, 64, &v, why, wl))
			return -1;
		t->count = (unsigned)v;
		return 0;
	case JL_TKEY_PERIOD:
		if (jl_parse_duration(value, &t->period_ns, why, wl))
			return -1;
		t->period_from_rate = false;
		if (ps->line <= 0) /* --set period replaces a rate from the file */
			t->key_line[JL_TKEY_RATE] = 0;
		goto check_period;
	case JL_TKEY_RATE:
		if (jl_parse_rate(value, &t->period_ns, why, wl))
			return -1;
		t->period_from_rate = true;
		if (ps->line <= 0) /* --set rate replaces a period from the file */
			t->key_line[JL_TKEY_PERIOD] = 0;
check_period:
		if (t->period_ns < 10000 || t->period_ns > 3600 * JL_NSEC_PER_SEC) {
			snprintf(why, wl, "'%s' is out of range (expected a period of 10us-1h, a rate of 1/h-100kHz)", value);
			return -1;
		}
		return 0;
	case JL_TKEY_WORK:
		return jl_work_parse(value, &t->work, why, wl);
	case JL_TKEY_DEADLINE:
		if (jl_parse_duration(value, &t->deadline_ns, why, wl))
			return -1;
		if (t->deadline_ns <= 0) {
			snprintf(why, wl, "deadline must be greater than 0");
			return -1;
		}
		return 0;
	case JL_TKEY_OVERRUN:
		if (!strcmp(value, "skip"))
			t->overrun = JL_OVERRUN_SKIP;
		else if (!strcmp(value, "catchup"))
			t->overrun = JL_OVERRUN_CATCHUP;
		else {
			snprintf(why, wl, "'%s' is not an overrun mode (expected skip or catchup)", value);
			return -1;
		}
		return 0;
	case JL_TKEY_RUNTIME:
		if (jl_parse_duration(value, &t->runtime_ns, why, wl))
			return -1;
		if (t->runtime_ns < 1024) {
			snprintf(why, wl, "runtime must be at least 1024ns (SCHED_DEADLINE's minimum)");
			return -1;
		}
		return 0;
	case JL_TKEY_MEM_NODE:
		if (!strcmp(value, "none")) {
			t->mem_node = -1;
			return 0;
		}
		if (jl_parse_int(value, 0, 1023, &v, why, wl))
			return -1;
		t->mem_node = (int)v;
		return 0;
	case JL_TKEY_START:
		return jl_parse_duration(value, &t->start_ns, why, wl);
	case JL_TKEY_MEASURE: {
		bool b;

		if (jl_parse_bool(value, &b, why, wl))
			return -1;
		t->measure = b;
		return 0;
	}
	case JL_TKEY_EXEC:
		if (!*value || strlen(value) >= sizeof(t->exec)) {
			snprintf(why, wl, "exec needs a command line (at most %zu characters)", sizeof(t->exec) - 1);
			return -1;
		}
		snprintf(t->exec, sizeof(t->exec), "%s", value);
		return 0;
	case JL_TKEY_N:
		break;
	}
	return -1;
}

/* ---- [expect] ---- */

static int parse_expect(const char *label, const char *value, struct jl_expect *e, char *why, size_t wl)
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
		snprintf(why, wl, "'%s' does not name THREAD.METRIC (metrics: rate_hz, misses, skipped, latency.p50|p90|p99|p999|max|mean, "
				  "period.p99|max|mean|stddev, response.p99|max, wakeup.p99|max, work.mean|max)", lhs);
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

static int parse_sweep_key(struct parser *ps, const char *key, const char *value, char *why, size_t wl)
{
	struct jl_sweep_spec *sw = &ps->sc->sweep;

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
		c->line = ps->line;
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
		sw->vary[sw->nvary].line = ps->line;
		sw->nvary++;
		return 0;
	}
	snprintf(why, wl, "unknown key '%s' (expected runs, compare, condition.LABEL or vary.SECTION.KEY)", key);
	return -1;
}

/* ---- the libinih handler and reader ---- */

static int handle_key(struct parser *ps, const char *key, const char *value)
{
	char why[JL_ERR_MAX] = "";
	int rc = -1;

	if (ps->failed)
		return 0;
	for (int i = 0; i < ps->nseen; i++) {
		if (!strcmp(ps->seen_keys[i], key)) {
			static const char *const secname[] = { [SEC_NONE] = "", [SEC_RUN] = "[run]",
							       [SEC_EXPECT] = "[expect]", [SEC_SWEEP] = "[sweep]" };

			if (ps->sec == SEC_THREAD)
				fail(ps, ps->line, "thread '%s': key '%s' is set twice (expected each key once per section)",
				     ps->thread->name, key);
			else
				fail(ps, ps->line, "%s: key '%s' is set twice (expected each key once per section)",
				     secname[ps->sec], key);
			return 0;
		}
	}
	if (strlen(key) >= sizeof(ps->seen_keys[0])) {
		fail(ps, ps->line, "key '%.60s...' is too long (at most %zu characters)", key, sizeof(ps->seen_keys[0]) - 1);
		return 0;
	}
	if (ps->nseen < (int)(sizeof(ps->seen_keys) / sizeof(ps->seen_keys[0])))
		snprintf(ps->seen_keys[ps->nseen++], sizeof(ps->seen_keys[0]), "%s", key);

	if (value[0] == ';') {
		/* libinih keeps "key =;x" as the value ";x", but "key = ;x" is a comment: such a value could
		 * not be written back */
		fail(ps, ps->line, "key '%s': value '%s' starts with ';' (a comment needs a space before the ';')", key,
		     value);
		return 0;
	}
	switch (ps->sec) {
	case SEC_NONE:
		fail(ps, ps->line, "key '%s' outside any section (expected a [run], [thread NAME], [expect] or [sweep] header first)", key);
		return 0;
	case SEC_RUN:
		if (parse_run_key(ps, key, value, why, sizeof(why)))
			fail(ps, ps->line, "[run] %s%s%s", strncmp(why, "unknown key", 11) ? key : "",
			     strncmp(why, "unknown key", 11) ? ": " : "", why);
		return 0;
	case SEC_THREAD:
		if (parse_thread_key(ps, ps->thread, key, value, why, sizeof(why)))
			fail(ps, ps->line, "thread '%s': %s%s%s", ps->thread->name, strncmp(why, "unknown key", 11) ? key : "",
			     strncmp(why, "unknown key", 11) ? ": " : "", why);
		return 0;
	case SEC_EXPECT:
		if (ps->sc->nexpect >= JL_MAX_EXPECT) {
			fail(ps, ps->line, "[expect]: too many expectations (at most %d)", JL_MAX_EXPECT);
			return 0;
		}
		if (strlen(key) >= JL_NAME_MAX || !*key || key[strspn(key, "abcdefghijklmnopqrstuvwxyz"
									   "ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")]) {
			fail(ps, ps->line, "[expect]: label '%s' is not valid (expected LABEL = THREAD.METRIC OP VALUE, LABEL "
					   "of letters, digits, '_', '-', '.', at most %d characters)", key, JL_NAME_MAX - 1);
			return 0;
		}
		rc = parse_expect(key, value, &ps->sc->expect[ps->sc->nexpect], why, sizeof(why));
		if (rc) {
			fail(ps, ps->line, "[expect] %s: %s", key, why);
			return 0;
		}
		ps->sc->expect[ps->sc->nexpect++].line = ps->line;
		return 0;
	case SEC_SWEEP:
		if (parse_sweep_key(ps, key, value, why, sizeof(why)))
			fail(ps, ps->line, "[sweep] %s%s%s", strncmp(why, "unknown key", 11) ? key : "",
			     strncmp(why, "unknown key", 11) ? ": " : "", why);
		return 0;
	}
	return 0;
}

static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
	(void)section; /* sections are tracked by the reader, which knows their line numbers */
	handle_key(user, name, value);
	return 1;
}

/* Lines are classified here exactly as libinih (r55, INI_ALLOW_MULTILINE, INI_ALLOW_INLINE_COMMENTS,
 * INI_ALLOW_BOM) will classify them, because only here is the line number known. Section headers are
 * handled here (libinih passes the section name to the handler, which ignores it); lines libinih
 * would reject or misread (no '=', no ']', an indented line taken as a continuation) fail here, so
 * the first error is the one reported. */

/* libinih's find_chars_or_comment(): the first of CHARS, or a ';' after whitespace, or the end. */
static const char *ini_find(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static void reader_saw_line(struct parser *ps, const char *line)
{
	const char *p = line, *end;
	char header[256];
	size_t n;

	if (ps->line == 1 && !strncmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == ';' || *p == '#')
		return; /* blank or comment: libinih keeps the previous key for continuations */
	if (ps->prev_key && p > line) {
		fail(ps, ps->line, "indented line after '%s = ...' would continue its value (continuation lines are "
				   "not supported: remove the leading whitespace)", ps->prev_key_name);
		return;
	}
	if (*p == '[') {
		end = ini_find(p + 1, "]");
		if (*end != ']') {
			fail(ps, ps->line, "section header without ']' (expected [run], [thread NAME], [expect] or [sweep])");
			return;
		}
		ps->prev_key = false;
		n = (size_t)(end - p - 1);
		if (n >= sizeof(header)) {
			fail(ps, ps->line, "section header is too long");
			return;
		}
		memcpy(header, p + 1, n);
		header[n] = '\0';
		begin_section(ps, header);
		return;
	}
	end = ini_find(p, "=:");
	if (*end != '=' && *end != ':') {
		fail(ps, ps->line, "syntax error (expected '[section]', 'key = value' or a comment)");
		return;
	}
	n = (size_t)(end - p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n >= sizeof(ps->prev_key_name))
		n = sizeof(ps->prev_key_name) - 1;
	memcpy(ps->prev_key_name, p, n);
	ps->prev_key_name[n] = '\0';
	ps->prev_key = true;
}

static int next_char(struct parser *ps)
{
	if (ps->fp)
		return fgetc(ps->fp);
	if (!ps->text[ps->pos])
		return EOF;
	return (unsigned char)ps->text[ps->pos++];
}

/* libinih's line reader. Stops the parse (returns NULL) at the first error. */
static char *reader(char *str, int num, void *stream)
{
	struct parser *ps = stream;
	size_t i = 0, max = num > 1 ? (size_t)num - 1 : 0;
	bool got = false, nul = false, too_long = false;
	int c;

	if (ps->failed)
		return NULL;
	while ((c = next_char(ps)) != EOF) {
		got = true;
		if (c == '\0')
			nul = true;
		else if (i < max)
			str[i++] = (char)c;
		else if (c != '\n')
			too_long = true;
		if (c == '\n')
			break;
	}
	if (!got)
		return NULL;
	str[i] = '\0';
	ps->line++;
	if (too_long) {
		fail(ps, ps->line, "line is longer than %d characters (the INI reader's limit)", num - 1);
		return NULL;
	}
	if (nul) {
		fail(ps, ps->line, "NUL byte in line (not a text file?)");
		return NULL;
	}
	reader_saw_line(ps, str);
	if (ps->failed)
		return NULL;
	return str;
}

static int parse_common(struct parser *ps)
{
	int rc = ini_parse_stream(reader, ps, ini_handler_cb, ps);

	if (ps->failed)
		return -1;
	if (rc > 0) {
		fail(ps, rc, "syntax error (expected '[section]', 'key = value' or a comment)");
		return -1;
	}
	if (rc < 0) {
		fail(ps, 0, "cannot read the file");
		return -1;
	}
	return jl_scenario_validate(ps->sc, ps->err, ps->errlen);
}

int jl_scenario_parse_file(const char *path, struct jl_scenario *sc, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = path, .err = err, .errlen = errlen };
	int rc;

	scenario_init(sc, path);
	ps.fp = fopen(path, "re");
	if (!ps.fp) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	rc = parse_common(&ps);
	fclose(ps.fp);
	return rc;
}

int jl_scenario_parse_string(const char *name, const char *text, struct jl_scenario *sc, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = name, .text = text, .err = err, .errlen = errlen };

	scenario_init(sc, name);
	return parse_common(&ps);
}

int jl_scenario_set(struct jl_scenario *sc, const char *assignment, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = "--set", .err = err, .errlen = errlen };
	char sect[JL_NAME_MAX], key[128], value[1024];
	const char *eq = strchr(assignment, '='), *dot = strchr(assignment, '.');
	size_t n;

	if (strlen(assignment) > JL_INI_LINE_MAX) {
		snprintf(err, errlen, "--set %.40s...: too long (at most %d characters, as a line of a scenario file)",
			 assignment, JL_INI_LINE_MAX);
		return -1;
	}
	if (!eq || !dot || dot > eq) {
		snprintf(err, errlen, "--set %s: expected SECTION.KEY=VALUE (e.g. control.priority=90 or run.duration=5s)", assignment);
		return -1;
	}
	n = (size_t)(dot - assignment);
	if (n == 0 || n >= sizeof(sect))
		goto bad;
	memcpy(sect, assignment, n);
	sect[n] = '\0';
	n = (size_t)(eq - dot - 1);
	while (n && isspace((unsigned char)dot[n]))
		n--;
	if (n == 0 || n >= sizeof(key))
		goto bad;
	memcpy(key, dot + 1, n);
	key[n] = '\0';
	eq++;
	while (isspace((unsigned char)*eq))
		eq++;
	snprintf(value, sizeof(value), "%s", eq);
	n = strlen(value);
	while (n && isspace((unsigned char)value[n - 1]))
		value[--n] = '\0';

	if (!strcmp(sect, "run")) {
		ps.sec = SEC_RUN;
	} else if (!strcmp(sect, "expect")) {
		ps.sec = SEC_EXPECT;
		/* replace an expectation of the same label */
		for (int i = 0; i < sc->nexpect; i++) {
			if (!strcmp(sc->expect[i].label, key)) {
				memmove(&sc->expect[i], &sc->expect[i + 1], (size_t)(sc->nexpect - i - 1) * sizeof(sc->expect[0]));
				sc->nexpect--;
				break;
			}
		}
	} else if (!strcmp(sect, "sweep")) {
		ps.sec = SEC_SWEEP;
	} else {
		ps.thread = find_thread(sc, sect);
		if (!ps.thread) {
			snprintf(err, errlen, "--set %s: no section [run], [expect], [sweep] or [thread %s] to set it in",
				 assignment, sect);
			return -1;
		}
		ps.sec = SEC_THREAD;
	}
	ps.file = "--set";
	handle_key(&ps, key, value);
	if (!ps.failed && ps.sec == SEC_THREAD && !strcmp(key, "policy")) {
		/* An override of the policy replaces the way the thread runs: keys that the new policy does
		 * not take are dropped (the contract's `condition.other = control.policy=other` on a fifo
		 * thread with a priority must work). */
		struct jl_thread_spec *t = ps.thread;

		if (!jl_policy_is_rt(t->policy))
			t->key_line[JL_TKEY_PRIORITY] = 0; /* kept as a value: overriding back to fifo reuses it */
		if (t->policy != JL_POLICY_OTHER && t->policy != JL_POLICY_BATCH) {
			t->nice = 0;
			t->key_line[JL_TKEY_NICE] = 0;
		}
		if (t->policy != JL_POLICY_DEADLINE) {
			t->runtime_ns = 0;
			t->key_line[JL_TKEY_RUNTIME] = 0;
		}
	}
	if (ps.failed) {
		/* handle_key formats "--set: ..."; make it name the whole assignment */
		char tmp[JL_ERR_MAX];

		snprintf(tmp, sizeof(tmp), "--set %s: %s", assignment, err + strlen("--set: "));
		snprintf(err, errlen, "%s", tmp);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "--set %s: expected SECTION.KEY=VALUE", assignment);
	return -1;
}

/* ---- cross-key validation ---- */

#define VFAIL(line, ...)                                                                                    \
	do {                                                                                                \
		char _m[JL_ERR_MAX];                                                                        \
		snprintf(_m, sizeof(_m), __VA_ARGS__);                                                      \
		if ((line) > 0)                                                                             \
			snprintf(err, errlen, "%s:%d: %s", sc->path, (line), _m);                          \
		else                                                                                        \
			snprintf(err, errlen, "%s: %s", sc->path, _m);                                     \
		return -1;                                                                                  \
	} while (0)

static int line_of(const struct jl_thread_spec *t, enum jl_tkey k)
{
	return t->key_line[k] ? t->key_line[k] : t->line;
}

static bool thread_name_exists(const struct jl_scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		size_t n = strlen(t->name);

		if (!strcmp(t->name, name))
			return true;
		if (t->count > 1 && !strncmp(t->name, name, n) && name[n] == '.') {
			char *end;
			long idx = strtol(name + n + 1, &end, 10);

			if (!*end && end != name + n + 1 && idx >= 0 && idx < (long)t->count)
				return true;
		}
	}
	return false;
}

static long long read_sysctl_ll(const char *path, long long fallback)
{
	FILE *f = fopen(path, "re");
	long long v;

	if (!f)
		return fallback;
	if (fscanf(f, "%lld", &v) != 1 || v <= 0)
		v = fallback;
	fclose(f);
	return v;
}

static int validate_thread(const struct jl_scenario *sc, const struct jl_thread_spec *t, const cpu_set_t *online,
			   char *err, size_t errlen)
{
	const char *pol = policy_names[t->policy];

	if (t->key_line[JL_TKEY_PERIOD] && t->key_line[JL_TKEY_RATE])
		VFAIL(line_of(t, JL_TKEY_RATE), "thread '%s': period and rate both given (expected one of them)", t->name);
	if (jl_policy_is_rt(t->policy)) {
		if (!t->key_line[JL_TKEY_PRIORITY] && !t->priority)
			VFAIL(line_of(t, JL_TKEY_POLICY), "thread '%s': policy %s needs a priority (1-98)", t->name, pol);
		if (t->priority < 1 || t->priority > 98)
			VFAIL(line_of(t, JL_TKEY_PRIORITY),
			      "thread '%s': priority %d is out of range for policy %s (1-98; 99 is the watchdog's)", t->name,
			      t->priority, pol);
	} else if (t->key_line[JL_TKEY_PRIORITY]) {
		VFAIL(line_of(t, JL_TKEY_PRIORITY), "thread '%s': priority is only for fifo and rr (policy is %s%s)",
		      t->name, pol, t->policy == JL_POLICY_OTHER || t->policy == JL_POLICY_BATCH ? "; use nice" : "");
	}
	if (t->key_line[JL_TKEY_NICE] && t->policy != JL_POLICY_OTHER && t->policy != JL_POLICY_BATCH)
		VFAIL(line_of(t, JL_TKEY_NICE), "thread '%s': nice is only for other and batch (policy is %s)", t->name, pol);
	if (t->policy == JL_POLICY_DEADLINE) {
		if (!t->runtime_ns || !t->period_ns)
			VFAIL(line_of(t, JL_TKEY_POLICY), "thread '%s': policy deadline needs runtime and period", t->name);
		if (t->runtime_ns > (t->deadline_ns ? t->deadline_ns : t->period_ns))
			VFAIL(line_of(t, JL_TKEY_RUNTIME), "thread '%s': runtime must not exceed the deadline", t->name);
		{
			/* the kernel's bounds on a SCHED_DEADLINE period (sysctls; these defaults elsewhere) */
			long long lo = read_sysctl_ll("/proc/sys/kernel/sched_deadline_period_min_us", 100);
			long long hi = read_sysctl_ll("/proc/sys/kernel/sched_deadline_period_max_us", 4194304);

			if (t->period_ns < lo * 1000 || t->period_ns > hi * 1000)
				VFAIL(line_of(t, t->key_line[JL_TKEY_RATE] ? JL_TKEY_RATE : JL_TKEY_PERIOD),
				      "thread '%s': policy deadline needs a period of %lldus-%lldus "
				      "(kernel.sched_deadline_period_min_us/max_us)", t->name, lo, hi);
		}
		if (t->deadline_ns > t->period_ns)
			VFAIL(line_of(t, JL_TKEY_DEADLINE),
			      "thread '%s': policy deadline needs deadline <= period (runtime <= deadline <= period)", t->name);
		if (t->cpus_set && !CPU_EQUAL(&t->cpus, online))
			VFAIL(line_of(t, JL_TKEY_CPUS),
			      "thread '%s': SCHED_DEADLINE threads cannot be pinned to a subset of CPUs (the kernel refuses "
			      "affinity narrower than the root domain); drop cpus",
			      t->name);
	} else if (t->key_line[JL_TKEY_RUNTIME]) {
		VFAIL(line_of(t, JL_TKEY_RUNTIME), "thread '%s': runtime is only for policy deadline", t->name);
	}
	if (t->deadline_ns && !t->period_ns)
		VFAIL(line_of(t, JL_TKEY_DEADLINE), "thread '%s': deadline needs a period or rate", t->name);
	if (t->deadline_ns && t->deadline_ns > t->period_ns * 1000)
		VFAIL(line_of(t, JL_TKEY_DEADLINE), "thread '%s': deadline is more than 1000 periods", t->name);
	if (t->key_line[JL_TKEY_OVERRUN] && !t->period_ns)
		VFAIL(line_of(t, JL_TKEY_OVERRUN), "thread '%s': overrun needs a period or rate", t->name);
	if (t->measure == 1 && !t->period_ns)
		VFAIL(line_of(t, JL_TKEY_MEASURE),
		      "thread '%s': measure = yes needs a period or rate (a back-to-back thread has no releases)", t->name);
	if (t->cpus_set) {
		cpu_set_t extra;
		char buf[256];

		CPU_XOR(&extra, &t->cpus, online);
		CPU_AND(&extra, &extra, &t->cpus);
		if (CPU_COUNT(&extra))
			VFAIL(line_of(t, JL_TKEY_CPUS), "thread '%s': cpus names CPU %s, which is not online (online: %s)",
			      t->name, jl_cpulist_format(&extra, buf, sizeof(buf)),
			      jl_cpulist_format(online, buf + 128, 128));
	}
	if (t->exec[0]) {
		if (t->key_line[JL_TKEY_WORK])
			VFAIL(line_of(t, JL_TKEY_WORK), "thread '%s': exec and work are exclusive (exec runs a command instead of built-in work)", t->name);
		if (t->period_ns)
			VFAIL(line_of(t, JL_TKEY_EXEC), "thread '%s': an exec neighbour cannot be periodic (drop period/rate)", t->name);
		if (t->measure == 1)
			VFAIL(line_of(t, JL_TKEY_MEASURE), "thread '%s': an exec neighbour cannot be measured", t->name);
		if (t->policy == JL_POLICY_DEADLINE)
			VFAIL(line_of(t, JL_TKEY_POLICY), "thread '%s': exec with policy deadline is not supported", t->name);
	}
	if (t->mem_node >= 0) {
		int max = numa_available() >= 0 ? numa_max_node() : 0;

		if (t->mem_node > max)
			VFAIL(line_of(t, JL_TKEY_MEM_NODE), "thread '%s': mem_node %d does not exist (nodes 0-%d)", t->name,
			      t->mem_node, max);
	}
	if (t->start_ns >= sc->run.duration_ns)
		VFAIL(line_of(t, JL_TKEY_START), "thread '%s': start is not before the end of the run (duration %.3fs)",
		      t->name, (double)sc->run.duration_ns / 1e9);
	return 0;
}

int jl_scenario_validate(struct jl_scenario *sc, char *err, size_t errlen)
{
	cpu_set_t online;
	int total = 0;

	if (jl_cpulist_online(&online)) {
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(errno));
		return -1;
	}
	if (sc->nthreads == 0)
		VFAIL(0, "no [thread NAME] section (a scenario needs at least one thread)");
	for (int i = 0; i < sc->nthreads; i++) {
		if (validate_thread(sc, &sc->threads[i], &online, err, errlen))
			return -1;
		total += (int)sc->threads[i].count;
	}
	if (total > JL_MAX_THREADS)
		VFAIL(0, "%d threads after count expansion (at most %d)", total, JL_MAX_THREADS);
	if (sc->run.isolate_set) {
		cpu_set_t extra, hk;
		char buf[256];
		int line = sc->run.key_line[JL_RKEY_ISOLATE];

		CPU_XOR(&extra, &sc->run.isolate, &online);
		CPU_AND(&extra, &extra, &sc->run.isolate);
		if (CPU_COUNT(&extra))
			VFAIL(line, "[run] isolate: CPU %s is not online", jl_cpulist_format(&extra, buf, sizeof(buf)));
		CPU_XOR(&hk, &sc->run.isolate, &online);
		if (CPU_COUNT(&hk) == 0)
			VFAIL(line, "[run] isolate: shielding every online CPU (%s) leaves no housekeeping CPU",
			      jl_cpulist_format(&online, buf, sizeof(buf)));
	}
	if (sc->run.irq_affinity == JL_IRQ_HOUSEKEEPING && !sc->run.isolate_set)
		VFAIL(sc->run.key_line[JL_RKEY_IRQ_AFFINITY], "[run] irq_affinity = housekeeping needs isolate (which CPUs to keep IRQs off)");
	for (int i = 0; i < sc->nexpect; i++) {
		if (!thread_name_exists(sc, sc->expect[i].thread))
			VFAIL(sc->expect[i].line, "[expect] %s: no thread '%s'", sc->expect[i].label, sc->expect[i].thread);
	}
	return 0;
}

/* ---- writing the effective scenario ---- */

/* "key = value", or "key=value" where the spaces would take the line past the reader's limit (a value
 * that fitted on its input line always fits this way). */
static void put_kv(FILE *out, const char *key, const char *key2, const char *value)
{
	size_t n = strlen(key) + strlen(key2) + strlen(value);

	fprintf(out, n + 3 <= JL_INI_LINE_MAX ? "%s%s = %s\n" : "%s%s=%s\n", key, key2, value);
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
	put_kv(out, "isolate", "", r->isolate_set ? jl_cpulist_format(&r->isolate, a, sizeof(a)) : "none");
	fprintf(out, "irq_affinity = %s\n", r->irq_affinity == JL_IRQ_KEEP ? "keep" : "housekeeping");
	fprintf(out, "cpu_dma_latency = %s\n", r->cpu_dma_latency_ns < 0 ? "off" : jl_format_duration(r->cpu_dma_latency_ns, a, sizeof(a)));
	if (r->rt_runtime_us == -2)
		fprintf(out, "rt_runtime = keep\n");
	else if (r->rt_runtime_us == -1)
		fprintf(out, "rt_runtime = unlimited\n");
	else
		fprintf(out, "rt_runtime = %s\n", jl_format_duration(r->rt_runtime_us * 1000, a, sizeof(a)));
	fprintf(out, "seed = %lld\n", r->seed);
	fprintf(out, "grace = %s\n", jl_format_duration(r->grace_ns, a, sizeof(a)));

	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		fprintf(out, "\n[thread %s]\npolicy = %s\n", t->name, policy_names[t->policy]);
		if (jl_policy_is_rt(t->policy))
			fprintf(out, "priority = %d\n", t->priority);
		if (t->policy == JL_POLICY_OTHER || t->policy == JL_POLICY_BATCH)
			fprintf(out, "nice = %d\n", t->nice);
		if (t->cpus_set)
			put_kv(out, "cpus", "", jl_cpulist_format(&t->cpus, a, sizeof(a)));
		else
			fprintf(out, "; cpus = (all allowed)\n");
		fprintf(out, "count = %u\n", t->count);
		if (t->period_ns)
			fprintf(out, "period = %s\n", jl_format_duration(t->period_ns, a, sizeof(a)));
		if (!t->exec[0])
			fprintf(out, "work = %s\n", jl_work_format(&t->work, a, sizeof(a)));
		if (t->period_ns) {
			fprintf(out, "deadline = %s\n", jl_format_duration(t->deadline_ns ? t->deadline_ns : t->period_ns, a, sizeof(a)));
			fprintf(out, "overrun = %s\n", t->overrun == JL_OVERRUN_SKIP ? "skip" : "catchup");
		}
		if (t->policy == JL_POLICY_DEADLINE)
			fprintf(out, "runtime = %s\n", jl_format_duration(t->runtime_ns, a, sizeof(a)));
		fprintf(out, "mem_node = %s\n", t->mem_node < 0 ? "none" : (snprintf(b, sizeof(b), "%d", t->mem_node), b));
		fprintf(out, "start = %s\n", jl_format_duration(t->start_ns, a, sizeof(a)));
		if (!t->exec[0])
			fprintf(out, "measure = %s\n", jl_thread_measured(t) ? "yes" : "no");
		else
			put_kv(out, "exec", "", t->exec);
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
