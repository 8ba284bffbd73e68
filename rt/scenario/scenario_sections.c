/* scenario_sections: the [expect] and [sweep] key tables (pattern keys: LABEL, condition.LABEL,
 * vary.SECTION.KEY), the table of section kinds ([run], [thread NAME] = placement + behaviour,
 * [expect], [sweep], and the names reserved for the sections to come), and the lookups every user of
 * the registry shares (scenario_registry.h). Pure. */
#include <ctype.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "../base/metrics.h"
#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/units.h"

/* ---- [expect] ---- */

/* LHS[0..N) "SERIES.METRIC" (METRIC may itself hold a dot) into THREAD and METRIC (the registry's name). */
static int metric_ref(const char *lhs, size_t n, char *thread, size_t tlen, char *metric, size_t mlen, char *why, size_t wl)
{
	int m = -1;

	for (int i = 0; i < jl_nmetrics; i++) {
		size_t ml = strlen(jl_metrics[i].name);

		if (n > ml + 1 && lhs[n - ml - 1] == '.' && !strncmp(lhs + n - ml, jl_metrics[i].name, ml)) {
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
		snprintf(why, wl, "'%.*s' does not name THREAD.METRIC (metrics: %s)", (int)n, lhs, names);
		return -1;
	}
	snprintf(metric, mlen, "%s", jl_metrics[m].name);
	n -= strlen(jl_metrics[m].name) + 1;
	if (n >= tlen) {
		snprintf(why, wl, "thread name in '%s' is too long", lhs);
		return -1;
	}
	memcpy(thread, lhs, n);
	thread[n] = '\0';
	return 0;
}

/* TEXT as a value of UNIT (a duration, a fraction 0..1, a rate in Hz, a count) into *V; SIGNED allows a
 * negative one (a gate's allowance). 0, or -1 with WHY. */
static int unit_value(enum jl_metric_unit unit, const char *text, bool is_signed, double *v, char *why, size_t wl)
{
	bool neg = false;
	char *end;

	if (is_signed && *text == '-')
		neg = true, text++;
	switch (unit) {
	case JL_UNIT_NS: {
		int64_t ns;

		if (jl_parse_duration(text, &ns, why, wl))
			return -1;
		*v = neg ? -(double)ns : (double)ns;
		return 0;
	}
	case JL_UNIT_FRACTION:
		*v = strtod(text, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (end == text || *end || !isfinite(*v) || *v < 0 || *v > 1) {
			snprintf(why, wl, "'%s' is not a fraction (expected a number from 0 to 1, e.g. 0.2)", text);
			return -1;
		}
		break;
	case JL_UNIT_HZ:
		*v = strtod(text, &end);
		while (isspace((unsigned char)*end))
			end++;
		if (end == text || (*end && strcasecmp(end, "Hz")) || !isfinite(*v)) {
			snprintf(why, wl, "'%s' is not a rate in Hz (e.g. 99 or 99.5Hz)", text);
			return -1;
		}
		break;
	case JL_UNIT_COUNT: {
		long long c;

		if (jl_parse_int(text, 0, 0x7fffffffffffffffLL, &c, why, wl))
			return -1;
		*v = (double)c;
		break;
	}
	}
	if (neg)
		*v = -*v;
	return 0;
}

int jl_scenario_expect_parse(const char *label, const char *value, struct jl_expect *e, char *why, size_t wl)
{
	static const struct {
		const char *text;
		enum jl_cmp op;
	} ops[] = { { "<=", JL_CMP_LE }, { ">=", JL_CMP_GE }, { "==", JL_CMP_EQ }, { "<", JL_CMP_LT }, { ">", JL_CMP_GT } };
	const char *p = strpbrk(value, "<>="), *rhs;
	size_t oplen = 0, n;

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
	if (n == 0 || n >= 160)
		goto syntax;
	for (rhs = p + oplen; isspace((unsigned char)*rhs); rhs++)
		;
	if (!*rhs)
		goto syntax;
	if (metric_ref(value, n, e->thread, sizeof(e->thread), e->metric, sizeof(e->metric), why, wl))
		return -1;
	return unit_value(jl_metric_get(e->metric)->unit, rhs, false, &e->value, why, wl);
syntax:
	snprintf(why, wl, "'%s' is not an expectation (expected THREAD.METRIC OP VALUE, OP one of < <= > >= ==, e.g. control.latency.p99 < 2ms)", value);
	return -1;
}

/* ---- [gate] ---- */

/* The allowance after "baseline" at Q ("+ 10%", "- 5%", "+ 50us": a percentage, or a value in metric M's
 * unit) into G. 0; -1 with WHY; 1 when it is no allowance (the caller says what a gate looks like). */
static int gate_amount(const char *q, const struct jl_metric_desc *m, struct jl_gate *g, char *why, size_t wl)
{
	bool neg = *q == '-';
	char amt[96];
	size_t al;

	for (q++; isspace((unsigned char)*q); q++)
		;
	snprintf(amt, sizeof(amt), "%s", q);
	al = strlen(amt);
	while (al && isspace((unsigned char)amt[al - 1]))
		amt[--al] = '\0';
	if (!al)
		return 1;
	if (amt[al - 1] == '%') {
		char *end;

		amt[--al] = '\0';
		g->amount = strtod(amt, &end) / 100.0;
		if (end == amt || *end || !isfinite(g->amount) || g->amount < 0) {
			snprintf(why, wl, "'%s%%' is not a percentage (expected e.g. 10%%)", amt);
			return -1;
		}
		g->relative = true;
	} else if (unit_value(m->unit, amt, false, &g->amount, why, wl)) {
		return -1;
	}
	if (neg)
		g->amount = -g->amount;
	return 0;
}

int jl_scenario_gate_parse(const char *label, const char *value, struct jl_gate *g, char *why, size_t wl)
{
	static const char expected[] = "expected SERIES.METRIC <= baseline + 10%, SERIES.METRIC >= baseline - 5%, "
				       "SERIES.METRIC <= baseline + 50us or SERIES.METRIC no worse";
	const char *p, *q;
	size_t n, vl = strlen(value);
	const struct jl_metric_desc *m;
	int rc;

	memset(g, 0, sizeof(*g));
	snprintf(g->label, sizeof(g->label), "%s", label);
	snprintf(g->text, sizeof(g->text), "%s", value);
	while (vl && isspace((unsigned char)value[vl - 1]))
		vl--;
	if (vl > 9 && !strncmp(value + vl - 8, "no worse", 8) && isspace((unsigned char)value[vl - 9])) {
		g->kind = JL_GATE_NO_WORSE;
		n = vl - 9;
		while (n && isspace((unsigned char)value[n - 1]))
			n--;
		if (!n || n >= 160)
			goto syntax;
		if (metric_ref(value, n, g->thread, sizeof(g->thread), g->metric, sizeof(g->metric), why, wl))
			return -1;
		m = jl_metric_get(g->metric);
		if (m->better == JL_BETTER_NEITHER) {
			snprintf(why, wl, "%s has no worse side (neither more nor less is a regression): give a bound, e.g. "
					  "%s.%s <= baseline + 10%%", g->metric, g->thread, g->metric);
			return -1;
		}
		return 0;
	}
	if (!(p = strpbrk(value, "<>")) || p[1] != '=')
		goto syntax;
	g->kind = *p == '<' ? JL_GATE_LE : JL_GATE_GE;
	n = (size_t)(p - value);
	while (n && isspace((unsigned char)value[n - 1]))
		n--;
	if (!n || n >= 160)
		goto syntax;
	if (metric_ref(value, n, g->thread, sizeof(g->thread), g->metric, sizeof(g->metric), why, wl))
		return -1;
	m = jl_metric_get(g->metric);
	for (q = p + 2; isspace((unsigned char)*q); q++)
		;
	if (strncmp(q, "baseline", 8))
		goto syntax;
	for (q += 8; isspace((unsigned char)*q); q++)
		;
	if (!*q)
		return 0; /* OP baseline: an allowance of 0 */
	if (*q != '+' && *q != '-')
		goto syntax;
	rc = gate_amount(q, m, g, why, wl);
	if (rc <= 0)
		return rc;
syntax:
	snprintf(why, wl, "'%s' is not a gate (%s)", value, expected);
	return -1;
}

int jl_scenario_gate_check(const char *label, const char *value, struct jl_gate *g, char *why, size_t wl)
{
	return jl_scenario_gate_parse(label, value, g, why, wl);
}

/* The slot a LABEL = ... line of a labelled section ([expect], [gate]) fills in ITEMS[0..*N) (SIZE bytes
 * each, the label first): an earlier line of the same label is taken out (a --set replaces it; a file cannot
 * name a label twice: the parser refuses a key set twice), the label and the room checked. Its index, or
 * JL_KEY_FAIL_WHOLE with WHY. */
static int labelled_slot(void *items, int *n, size_t size, int max, const char *key, const char *what, const char *form,
			 char *why, size_t wl)
{
	char *base = items;

	for (int i = 0; i < *n; i++) {
		if (!strcmp(base + (size_t)i * size, key)) {
			memmove(base + (size_t)i * size, base + (size_t)(i + 1) * size, (size_t)(*n - i - 1) * size);
			(*n)--;
			break;
		}
	}
	if (*n >= max) {
		snprintf(why, wl, "too many %s (at most %d)", what, max);
		return JL_KEY_FAIL_WHOLE;
	}
	if (strlen(key) >= JL_NAME_MAX || !*key ||
	    key[strspn(key, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")]) {
		snprintf(why, wl, "label '%s' is not valid (expected LABEL = %s, LABEL of letters, digits, '_', '-', '.', at "
				  "most %d characters)", key, form, JL_NAME_MAX - 1);
		return JL_KEY_FAIL_WHOLE;
	}
	return *n;
}

_Static_assert(offsetof(struct jl_expect, label) == 0 && offsetof(struct jl_gate, label) == 0,
	       "labelled_slot finds a line by the label its struct starts with");

/* A labelled section's key and its entry for the writer: the slot, the line's parser, its line number. */
#define LABELLED_KEY(fn, arr, n, max, what, form, parse)                                                       \
	KEY_PARSE(fn)                                                                                           \
	{                                                                                                       \
		struct jl_scenario *sc = v->sc;                                                                 \
		int i = labelled_slot(sc->arr, &sc->n, sizeof(sc->arr[0]), max, key, what, form, why, wl);      \
                                                                                                                \
		(void)d;                                                                                        \
		if (i < 0)                                                                                      \
			return i;                                                                               \
		if (parse(key, value, &sc->arr[i], why, wl))                                                    \
			return JL_KEY_FAIL;                                                                     \
		sc->arr[sc->n++].line = v->line;                                                                \
		return 0;                                                                                       \
	}                                                                                                       \
	KEY_ENTRY(fn##_entry)                                                                                   \
	{                                                                                                       \
		if (i >= v->sc->n)                                                                              \
			return false;                                                                           \
		*key = v->sc->arr[i].label;                                                                     \
		*value = v->sc->arr[i].text;                                                                    \
		return true;                                                                                    \
	}

/* LABEL = THREAD.METRIC OP VALUE. */
LABELLED_KEY(expect_key, expect, nexpect, JL_MAX_EXPECT, "expectations", "THREAD.METRIC OP VALUE", jl_scenario_expect_parse)

static const struct jl_key_desc expect_keys[] = {
	{ .name = "", .pattern = "LABEL", .syntax = "THREAD.METRIC OP VALUE",
	  .range = "OP one of < <= > >= ==, METRIC one of jitterlab list's metrics, VALUE with the metric's unit",
	  .help = "an assertion checked after the run (exit status 3 if it fails), e.g. "
		  "fifo_rate = control.rate_hz > 99",
	  .slot = 0, .parse = expect_key, .entry = expect_key_entry },
};

const struct jl_key_table jl_keys_expect = { "expect", expect_keys, (int)(sizeof(expect_keys) / sizeof(expect_keys[0])) };

/* LABEL = SERIES.METRIC OP baseline [+|- AMOUNT] | SERIES.METRIC no worse. */
LABELLED_KEY(gate_key, gates, ngates, JL_MAX_GATES, "gates", "SERIES.METRIC <= baseline + 10%", jl_scenario_gate_parse)

static const struct jl_key_desc gate_keys[] = {
	{ .name = "", .pattern = "LABEL", .syntax = "SERIES.METRIC <= baseline + AMOUNT | SERIES.METRIC >= baseline - AMOUNT | SERIES.METRIC no worse",
	  .range = "AMOUNT a percentage of the baseline's mean (10%) or a value in the metric's unit (50us); "
		   "METRIC one of jitterlab list's metrics",
	  .help = "a regression gate, checked by `jitterlab compare` and `sweep --baseline` on the 95% CI of the "
		  "change over runs (at least 3 a side): <= fails when the CI's lower bound is above the allowance, "
		  ">= when its upper bound is below it, no worse when the CI lies wholly on the worse side; exit status 3, "
		  "e.g. p99 = control.latency.p99 <= baseline + 10%",
	  .slot = 0, .parse = gate_key, .entry = gate_key_entry },
};

const struct jl_key_table jl_keys_gate = { "gate", gate_keys, (int)(sizeof(gate_keys) / sizeof(gate_keys[0])) };

/* Where an instance of a section was defined: its name (cut to a name's length), file and line. */
static void section_origin(char *nm, size_t nmlen, char *f, size_t flen, int *ln, const char *name, const char *file,
			   int line)
{
	snprintf(nm, nmlen, "%.*s", JL_NAME_MAX - 1, name);
	snprintf(f, flen, "%s", file);
	*ln = line;
}

#define SET_ORIGIN(s, n, f, l) section_origin((s)->name, sizeof((s)->name), (s)->file, sizeof((s)->file), &(s)->line, n, f, l)

/* ---- [node NAME] ---- */

static void view_node(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_node_spec *n = &sc->nodes[i];

	*v = (struct jl_key_view){ .sc = sc, .node = n, .key_line = n->key_line };
}

static const struct jl_key_table *const node_tables[] = { &jl_keys_node, NULL };
static const struct jl_section_store node_store = {
	JL_SECTION_STORE(nodes, nnodes, struct jl_node_spec, name, file, line),
};

/* ---- [queue NAME]: a topic entry with queue = true (trigger = QUEUE names it like a topic) ---- */

/* Topics and queues share sc->topics: the Ith of one kind, and how many there are */
static int nth_topic(const struct jl_scenario *sc, int i, bool queue)
{
	for (int k = 0; k < sc->ntopics; k++)
		if (sc->topics[k].queue == queue && i-- == 0)
			return k;
	return -1;
}

static int count_kind(const struct jl_scenario *sc, bool queue)
{
	int n = 0;

	for (int i = 0; i < sc->ntopics; i++)
		n += sc->topics[i].queue == queue;
	return n;
}

static int count_queues(const struct jl_scenario *sc)
{
	return count_kind(sc, true);
}

static int queue_topic(const struct jl_scenario *sc, int i) /* the Ith queue's topic index */
{
	return nth_topic(sc, i, true);
}

static void view_queue(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_topic_spec *t = &sc->topics[queue_topic(sc, i)];

	*v = (struct jl_key_view){ .sc = sc, .topic = t, .key_line = t->key_line };
}

static const char *queue_name(const struct jl_scenario *sc, int i)
{
	return sc->topics[queue_topic(sc, i)].name;
}

static const struct jl_key_table *const queue_tables[] = { &jl_keys_queue, NULL };

static int add_queue(struct jl_scenario *sc, const char *name, const char *file, int line)
{
	struct jl_topic_spec *t;
	struct jl_key_view v;

	if (sc->ntopics >= JL_MAX_TOPICS)
		return -1;
	t = &sc->topics[sc->ntopics++];
	memset(t, 0, sizeof(*t));
	t->queue = true;
	t->keep = JL_KEEP_ALL;
	v = (struct jl_key_view){ .sc = sc, .topic = t, .key_line = t->key_line };
	jl_section_defaults(jl_section_kind_find("queue"), &v);
	SET_ORIGIN(t, name, file, line);
	return count_queues(sc) - 1;
}

/* ---- [source NAME]: the placement table (on its thread spec) and its own keys ---- */

static void view_source(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_source_spec *s = &sc->sources[i];

	*v = (struct jl_key_view){ .sc = sc, .place = &s->t.place, .source = s, .key_line = s->t.key_line };
}

static const struct jl_key_table *const source_tables[] = { &jl_keys_placement, &jl_keys_source, NULL };

static void source_init(void *spec)
{
	struct jl_source_spec *s = spec;

	s->t.beh.kind = JL_BEH_SOURCE;
	s->t.beh.measure = 0;
}

static void source_after(void *spec)
{
	((struct jl_source_spec *)spec)->t.place.count = 1; /* one thread (its `count` is its requests) */
}

static const struct jl_section_store source_store = {
	JL_SECTION_STORE(sources, nsources, struct jl_source_spec, t.name, t.file, t.line),
	.init = source_init, .after = source_after,
};

/* ---- [lock NAME] ---- */

static void view_lock(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_lock_spec *l = &sc->locks[i];

	*v = (struct jl_key_view){ .sc = sc, .lock = l, .key_line = l->key_line };
}

static const struct jl_key_table *const lock_tables[] = { &jl_keys_lock, NULL };
static const struct jl_section_store lock_store = {
	JL_SECTION_STORE(locks, nlocks, struct jl_lock_spec, name, file, line),
};

/* ---- [sync NAME] ---- */

static void view_sync(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_sync_spec *y = &sc->syncs[i];

	*v = (struct jl_key_view){ .sc = sc, .sync = y, .key_line = y->key_line };
}

static const struct jl_key_table *const sync_tables[] = { &jl_keys_sync, NULL };
static const struct jl_section_store sync_store = {
	JL_SECTION_STORE(syncs, nsyncs, struct jl_sync_spec, name, file, line),
};

/* ---- [budget] ---- */

/* e2e.CALLBACK / stage.CALLBACK = DURATION; a --set replaces the budget of that key */
static int budget_key(struct jl_key_view *v, const char *key, const char *value, bool e2e, char *why, size_t wl)
{
	struct jl_scenario *sc = v->sc;
	const char *cb = key + (e2e ? 4 : 6);
	struct jl_budget *b;
	int64_t ns;

	if (!jl_scenario_name_ok(cb) || strlen(cb) >= JL_NAME_MAX) {
		snprintf(why, wl, "'%s' does not name a callback (expected %s.CALLBACK)", key, e2e ? "e2e" : "stage");
		return JL_KEY_FAIL_WHOLE;
	}
	if (jl_parse_duration(value, &ns, why, wl))
		return JL_KEY_FAIL;
	if (ns <= 0) {
		snprintf(why, wl, "a budget must be greater than 0");
		return JL_KEY_FAIL;
	}
	for (b = sc->budgets; b < sc->budgets + sc->nbudgets; b++)
		if (b->e2e == e2e && !strcmp(b->callback, cb))
			break;
	if (b == sc->budgets + sc->nbudgets) {
		if (sc->nbudgets >= JL_MAX_BUDGETS) {
			snprintf(why, wl, "too many budgets (at most %d)", JL_MAX_BUDGETS);
			return JL_KEY_FAIL_WHOLE;
		}
		sc->nbudgets++;
	}
	*b = (struct jl_budget){ .e2e = e2e, .limit_ns = ns, .line = v->line };
	snprintf(b->callback, sizeof(b->callback), "%s", cb);
	jl_format_duration(ns, b->text, sizeof(b->text)); /* (into its own buffer: never copied onto itself) */
	return 0;
}

KEY_PARSE(budget_e2e)
{
	(void)d;
	return budget_key(v, key, value, true, why, wl);
}

KEY_PARSE(budget_stage)
{
	(void)d;
	return budget_key(v, key, value, false, why, wl);
}

static bool budget_entry(const struct jl_key_view *v, int i, bool e2e, const char **key, const char **value)
{
	for (int k = 0; k < v->sc->nbudgets; k++) {
		const struct jl_budget *b = &v->sc->budgets[k];

		if (b->e2e != e2e || i--)
			continue;
		*key = b->callback;
		*value = b->text;
		return true;
	}
	return false;
}

KEY_ENTRY(budget_e2e_entry)
{
	return budget_entry(v, i, true, key, value);
}

KEY_ENTRY(budget_stage_entry)
{
	return budget_entry(v, i, false, key, value);
}

static const struct jl_key_desc budget_keys[] = {
	{ .name = "e2e.", .pattern = "e2e.CALLBACK", .syntax = "DURATION", .range = "greater than 0",
	  .help = "p99 of the data's age at the end of CALLBACK (its origin, the sensor's release, to the end)",
	  .slot = 0, .parse = budget_e2e, .entry = budget_e2e_entry },
	{ .name = "stage.", .pattern = "stage.CALLBACK", .syntax = "DURATION", .range = "greater than 0",
	  .help = "p99 of CALLBACK's own latency (ready to end)", .slot = 1, .parse = budget_stage,
	  .entry = budget_stage_entry },
};

const struct jl_key_table jl_keys_budget = { "budget", budget_keys, (int)(sizeof(budget_keys) / sizeof(budget_keys[0])) };

/* ---- [sweep] ---- */

KEY_PARSE(sweep_runs)
{
	long long n;

	(void)d, (void)key;
	if (jl_parse_int(value, 1, 1000, &n, why, wl))
		return -1;
	v->sweep->runs = (int)n;
	return 0;
}

KEY_FORMAT(fmt_runs)
{
	snprintf(buf, len, "%d", v->sweep->runs);
	return buf;
}

KEY_PARSE(sweep_compare)
{
	(void)d, (void)key;
	if (strlen(value) >= sizeof(v->sweep->compare)) {
		snprintf(why, wl, "compare list is too long");
		return -1;
	}
	snprintf(v->sweep->compare, sizeof(v->sweep->compare), "%s", value);
	return 0;
}

KEY_FORMAT(fmt_compare)
{
	(void)buf, (void)len;
	return v->sweep->compare[0] ? v->sweep->compare : NULL;
}

KEY_PARSE(sweep_condition)
{
	struct jl_sweep_spec *sw = v->sweep;
	const char *lab = key + strlen(d->name);
	struct jl_condition *c;

	if (!(islower((unsigned char)*lab) || isdigit((unsigned char)*lab)) || strlen(lab) >= JL_NAME_MAX ||
	    lab[strspn(lab, "abcdefghijklmnopqrstuvwxyz0123456789_-")]) {
		snprintf(why, wl, "condition label '%s' is not valid (expected [a-z0-9][a-z0-9_-]*)", lab);
		return -1;
	}
	if (sw->nconditions >= JL_MAX_CONDITIONS) {
		snprintf(why, wl, "too many conditions (at most %d)", JL_MAX_CONDITIONS);
		return -1;
	}
	c = &sw->conditions[sw->nconditions++];
	snprintf(c->label, sizeof(c->label), "%s", lab);
	snprintf(c->overrides, sizeof(c->overrides), "%s", value);
	c->line = v->line;
	return 0;
}

KEY_ENTRY(condition_entry)
{
	if (i >= v->sweep->nconditions)
		return false;
	*key = v->sweep->conditions[i].label;
	*value = v->sweep->conditions[i].overrides;
	return true;
}

KEY_PARSE(sweep_vary)
{
	struct jl_sweep_spec *sw = v->sweep;
	const char *what = key + strlen(d->name);

	if (sw->nvary >= JL_MAX_VARY) {
		snprintf(why, wl, "too many vary keys (at most %d)", JL_MAX_VARY);
		return -1;
	}
	if (!strchr(what, '.') || strlen(what) >= sizeof(sw->vary[0].key) || strlen(value) >= sizeof(sw->vary[0].values)) {
		snprintf(why, wl, "'%s' must be vary.SECTION.KEY (e.g. vary.control.policy)", key);
		return -1;
	}
	snprintf(sw->vary[sw->nvary].key, sizeof(sw->vary[0].key), "%s", what);
	snprintf(sw->vary[sw->nvary].values, sizeof(sw->vary[0].values), "%s", value);
	sw->vary[sw->nvary].line = v->line;
	sw->nvary++;
	return 0;
}

KEY_ENTRY(vary_entry)
{
	if (i >= v->sweep->nvary)
		return false;
	*key = v->sweep->vary[i].key;
	*value = v->sweep->vary[i].values;
	return true;
}

KEY_PARSE(sweep_order)
{
	(void)d, (void)key;
	if (strcmp(value, "shuffled") && strcmp(value, "fixed")) {
		snprintf(why, wl, "'%s' is not an order (expected shuffled or fixed)", value);
		return -1;
	}
	v->sweep->fixed_order = !strcmp(value, "fixed");
	return 0;
}

KEY_FORMAT(fmt_order)
{
	(void)buf, (void)len;
	return v->sweep->fixed_order ? "fixed" : "shuffled";
}

KEY_PARSE(sweep_seed)
{
	long long n;

	(void)d, (void)key;
	if (!strcmp(value, "auto")) {
		v->sweep->seed_set = false;
		v->sweep->seed = 0;
		return 0;
	}
	if (jl_parse_int(value, 1, 4294967295LL, &n, why, wl))
		return -1;
	v->sweep->seed_set = true;
	v->sweep->seed = (unsigned long)n;
	return 0;
}

KEY_FORMAT(fmt_seed)
{
	if (!v->sweep->seed_set)
		return "auto";
	snprintf(buf, len, "%lu", v->sweep->seed);
	return buf;
}

static const struct jl_key_desc sweep_keys[] = {
	{ .name = "runs", .slot = 0, .syntax = "N", .def = "5", .range = "1-1000", .help = "runs per condition",
	  .parse = sweep_runs, .format = fmt_runs },
	{ .name = "condition.", .pattern = "condition.LABEL", .slot = 1, .syntax = "SECTION.KEY=VALUE; ...",
	  .range = "LABEL [a-z0-9][a-z0-9_-]*, each override as --set takes it",
	  .help = "a named condition: ';'-separated overrides, e.g. condition.fifo4 = control.policy=fifo; "
		  "control.priority=80",
	  .parse = sweep_condition, .entry = condition_entry },
	{ .name = "vary.", .pattern = "vary.SECTION.KEY", .slot = 2, .syntax = "VALUE, VALUE, ...",
	  .range = "a key --set takes, and values it takes",
	  .help = "conditions from a list of values of one key (several vary lines: every combination)",
	  .parse = sweep_vary, .entry = vary_entry },
	{ .name = "compare", .slot = 3, .syntax = "LABEL_A:LABEL_B,...", .def_doc = "every pair",
	  .range = "pairs of condition labels", .help = "the condition pairs to test (Welch t)",
	  .parse = sweep_compare, .format = fmt_compare },
	{ .name = "order", .slot = 4, .syntax = "shuffled|fixed", .def = "shuffled", .range = "shuffled, fixed",
	  .help = "the conditions' order within each round: shuffled anew per round (from the seed), so that a "
		  "place in the round (warm caches, drift, the last run's leftovers) is not a condition's; fixed: "
		  "the order they are written in, every round",
	  .parse = sweep_order, .format = fmt_order },
	{ .name = "seed", .slot = 5, .syntax = "auto|N", .def = "auto", .range = "1-4294967295",
	  .help = "the shuffle's seed (auto: a fresh one, which sweep.json records: set it to repeat an order)",
	  .parse = sweep_seed, .format = fmt_seed },
};

const struct jl_key_table jl_keys_sweep = { "sweep", sweep_keys, (int)(sizeof(sweep_keys) / sizeof(sweep_keys[0])) };

/* ---- the section kinds ---- */

static int count_one(const struct jl_scenario *sc)
{
	(void)sc;
	return 1;
}

static void view_run(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	(void)i;
	*v = (struct jl_key_view){ .sc = sc, .run = &sc->run, .key_line = sc->run.key_line };
}

static int add_none(struct jl_scenario *sc, const char *name, const char *file, int line)
{
	(void)sc, (void)name, (void)file, (void)line;
	return 0;
}

static void view_thread(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_thread_spec *t = &sc->threads[i];

	*v = (struct jl_key_view){ .sc = sc, .place = &t->place, .beh = &t->beh, .key_line = t->key_line };
}

static const struct jl_key_table *const thread_tables[] = { &jl_keys_placement, &jl_keys_copies, &jl_keys_behaviour, NULL };

static void thread_init(void *spec)
{
	((struct jl_thread_spec *)spec)->beh.measure = -1; /* yes if periodic: no value of the key says that */
}

static const struct jl_section_store thread_store = {
	JL_SECTION_STORE(threads, nthreads, struct jl_thread_spec, name, file, line), .init = thread_init,
};

/* [executor NAME]: the placement table (on its thread spec) and its own keys */
static void view_executor(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_executor_spec *e = &sc->executors[i];

	*v = (struct jl_key_view){ .sc = sc, .place = &e->t.place, .executor = e, .key_line = e->t.key_line };
}

static const struct jl_key_table *const executor_tables[] = { &jl_keys_placement, &jl_keys_copies, &jl_keys_executor, NULL };

static void executor_init(void *spec)
{
	struct jl_executor_spec *e = spec;

	e->t.beh.kind = JL_BEH_EXECUTOR;
	e->t.beh.measure = 1;
}

static const struct jl_section_store executor_store = {
	JL_SECTION_STORE(executors, nexecutors, struct jl_executor_spec, t.name, t.file, t.line), .init = executor_init,
};

/* [callback NAME] */
static void view_callback(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_callback_spec *c = &sc->callbacks[i];

	*v = (struct jl_key_view){ .sc = sc, .callback = c, .key_line = c->key_line };
}

static const struct jl_key_table *const callback_tables[] = { &jl_keys_callback, NULL };
static const struct jl_section_store callback_store = {
	JL_SECTION_STORE(callbacks, ncallbacks, struct jl_callback_spec, name, file, line),
};

/* [topic NAME] */
static int count_topics(const struct jl_scenario *sc)
{
	return count_kind(sc, false);
}

static void view_topic(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	struct jl_topic_spec *t = &sc->topics[nth_topic(sc, i, false)];

	*v = (struct jl_key_view){ .sc = sc, .topic = t, .key_line = t->key_line };
}

static const char *topic_name(const struct jl_scenario *sc, int i)
{
	return sc->topics[nth_topic(sc, i, false)].name;
}

static const struct jl_key_table *const topic_tables[] = { &jl_keys_topic, NULL };

static int add_topic(struct jl_scenario *sc, const char *name, const char *file, int line)
{
	struct jl_topic_spec *t;
	struct jl_key_view v;

	if (sc->ntopics >= JL_MAX_TOPICS)
		return -1;
	t = &sc->topics[sc->ntopics++];
	memset(t, 0, sizeof(*t));
	v = (struct jl_key_view){ .sc = sc, .topic = t, .key_line = t->key_line };
	jl_section_defaults(jl_section_kind_find("topic"), &v);
	SET_ORIGIN(t, name, file, line);
	return count_kind(sc, false) - 1;
}

static int count_expect(const struct jl_scenario *sc)
{
	return sc->nexpect ? 1 : 0;
}

static void view_sc(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	(void)i;
	*v = (struct jl_key_view){ .sc = sc };
}

static int count_sweep(const struct jl_scenario *sc)
{
	return sc->sweep.present ? 1 : 0;
}

static void view_sweep(struct jl_scenario *sc, int i, struct jl_key_view *v)
{
	(void)i;
	*v = (struct jl_key_view){ .sc = sc, .sweep = &sc->sweep };
}

static int add_sweep(struct jl_scenario *sc, const char *name, const char *file, int line)
{
	(void)name, (void)file, (void)line;
	sc->sweep.present = true;
	return 0;
}

static const struct jl_key_table *const run_tables[] = { &jl_keys_run, NULL };
static const struct jl_key_table *const expect_tables[] = { &jl_keys_expect, NULL };
static const struct jl_key_table *const budget_tables[] = { &jl_keys_budget, NULL };
static const struct jl_key_table *const gate_tables[] = { &jl_keys_gate, NULL };

static int count_gate(const struct jl_scenario *sc)
{
	return sc->ngates ? 1 : 0;
}

static int count_budget(const struct jl_scenario *sc)
{
	return sc->nbudgets ? 1 : 0;
}

static const struct jl_key_table *const sweep_tables[] = { &jl_keys_sweep, NULL };

/* In the order sections are written back. */
const struct jl_section_kind jl_section_kinds[] = {
	{ .name = "run", .help = "the run as a whole: how long, what is traced, which CPUs are shielded",
	  .tables = run_tables, .count = count_one, .view = view_run, .add = add_none },
	{ .name = "thread", .help = "a thread: where it runs (placement) and what it does each cycle (behaviour)",
	  .named = true, .tables = thread_tables, .view = view_thread, .max = JL_MAX_THREADS, .store = &thread_store },
	{ .name = "executor", .help = "a pool of threads that run callbacks (placement keys as for [thread])",
	  .named = true, .tables = executor_tables, .view = view_executor, .max = JL_MAX_EXECUTORS, .store = &executor_store },
	{ .name = "node", .help = "a node: its callbacks' executor and their default mutually exclusive group",
	  .named = true, .tables = node_tables, .view = view_node, .max = JL_MAX_NODES, .store = &node_store },
	{ .name = "callback", .help = "a callback an executor runs: a timer, in a group, doing work",
	  .named = true, .tables = callback_tables, .view = view_callback, .max = JL_MAX_CALLBACKS, .store = &callback_store },
	{ .name = "topic", .help = "a topic: its subscribers' histories (depth, keep)",
	  .named = true, .tables = topic_tables, .count = count_topics, .view = view_topic, .add = add_topic,
	  .name_of = topic_name, .max = JL_MAX_TOPICS },
	{ .name = "sync", .help = "pairs the messages of two topics by their stamps (approximate or slop)",
	  .named = true, .tables = sync_tables, .view = view_sync, .max = JL_MAX_SYNCS, .store = &sync_store },
	{ .name = "expect", .help = "assertions checked after the run, one per line",
	  .tables = expect_tables, .count = count_expect, .view = view_sc, .add = add_none },
	{ .name = "sweep", .help = "repeat the scenario under named conditions, in rounds (each in a shuffled order)",
	  .tables = sweep_tables, .count = count_sweep, .view = view_sweep, .add = add_sweep },
	{ .name = "queue", .help = "a work queue: each request taken once by its serving callback, replied to when that run ends",
	  .named = true, .tables = queue_tables, .count = count_queues, .view = view_queue, .add = add_queue,
	  .name_of = queue_name, .max = JL_MAX_TOPICS },
	{ .name = "lock", .help = "a mutex (mutex, pi or ceiling) held while the work of the threads and callbacks naming it runs",
	  .named = true, .tables = lock_tables, .view = view_lock, .max = JL_MAX_LOCKS, .store = &lock_store },
	{ .name = "source", .help = "an open-loop request generator (a load client): a burst, or a rate, into a [queue]",
	  .named = true, .tables = source_tables, .view = view_source, .max = JL_MAX_SOURCES, .store = &source_store },
	{ .name = "budget", .help = "latency budgets checked after the run: exit 3 and a table when one is exceeded",
	  .tables = budget_tables, .count = count_budget, .view = view_sc, .add = add_none },
	{ .name = "gate", .help = "regression gates: a metric's change against a baseline, judged by `jitterlab compare`",
	  .tables = gate_tables, .count = count_gate, .view = view_sc, .add = add_none },
};

const int jl_nsection_kinds = (int)(sizeof(jl_section_kinds) / sizeof(jl_section_kinds[0]));

const struct jl_section_kind *jl_section_kind_find(const char *name)
{
	for (int i = 0; i < jl_nsection_kinds; i++)
		if (!strcmp(jl_section_kinds[i].name, name))
			return &jl_section_kinds[i];
	return NULL;
}

const struct jl_key_desc *jl_section_key_find(const struct jl_section_kind *k, const char *key)
{
	for (const struct jl_key_table *const *t = k->tables; *t; t++)
		for (int i = 0; i < (*t)->nkeys; i++)
			if (!(*t)->keys[i].pattern && !strcmp((*t)->keys[i].name, key))
				return &(*t)->keys[i];
	for (const struct jl_key_table *const *t = k->tables; *t; t++)
		for (int i = 0; i < (*t)->nkeys; i++)
			if ((*t)->keys[i].pattern && !strncmp((*t)->keys[i].name, key, strlen((*t)->keys[i].name)))
				return &(*t)->keys[i];
	return NULL;
}

int jl_section_keys(const struct jl_section_kind *k, const struct jl_key_desc **out, int max)
{
	int n = 0;

	for (const struct jl_key_table *const *t = k->tables; *t; t++)
		for (int i = 0; i < (*t)->nkeys && n < max; i++)
			out[n++] = &(*t)->keys[i];
	for (int i = 1; i < n; i++) /* by slot: a few dozen keys */
		for (int j = i; j > 0 && out[j - 1]->slot > out[j]->slot; j--) {
			const struct jl_key_desc *tmp = out[j];

			out[j] = out[j - 1];
			out[j - 1] = tmp;
		}
	return n;
}

int jl_section_find(const struct jl_section_kind *k, const struct jl_scenario *sc, const char *name)
{
	if (!k->named)
		return -1;
	for (int i = 0; i < jl_section_count(k, sc); i++)
		if (!strcmp(jl_section_name(k, sc, i), name))
			return i;
	return -1;
}

int jl_section_count(const struct jl_section_kind *k, const struct jl_scenario *sc)
{
	return k->store ? *(const int *)((const char *)sc + k->store->count) : k->count(sc);
}

const char *jl_section_name(const struct jl_section_kind *k, const struct jl_scenario *sc, int i)
{
	const struct jl_section_store *s = k->store;

	return s ? (const char *)sc + s->array + (size_t)i * s->size + s->name : k->name_of(sc, i);
}

int jl_section_add(const struct jl_section_kind *k, struct jl_scenario *sc, const char *name, const char *file, int line)
{
	const struct jl_section_store *s = k->store;
	struct jl_key_view v;
	char *spec;
	int *n;

	if (!s)
		return k->add(sc, name, file, line);
	n = (int *)((char *)sc + s->count);
	if (*n >= k->max)
		return -1;
	spec = (char *)sc + s->array + (size_t)*n * s->size;
	memset(spec, 0, s->size);
	(*n)++;
	if (s->init)
		s->init(spec);
	k->view(sc, *n - 1, &v);
	jl_section_defaults(k, &v);
	if (s->after)
		s->after(spec);
	section_origin(spec + s->name, s->name_len, spec + s->file, s->file_len, (int *)(void *)(spec + s->line), name,
		       file, line);
	return *n - 1;
}

void jl_section_defaults(const struct jl_section_kind *k, struct jl_key_view *v)
{
	char why[JL_ERR_MAX];
	int *lines = v->key_line;

	v->key_line = NULL; /* a default is no key set */
	v->line = 0;
	for (const struct jl_key_table *const *t = k->tables; *t; t++) {
		for (int i = 0; i < (*t)->nkeys; i++) {
			const struct jl_key_desc *d = &(*t)->keys[i];

			if (d->def && d->parse(v, d, d->name, d->def, why, sizeof(why))) {
				fprintf(stderr, "jitterlab: [%s] %s: the default '%s' does not parse: %s\n", k->name, d->name,
					d->def, why);
				abort();
			}
		}
	}
	v->key_line = lines;
}

char *jl_section_kinds_text(char *buf, size_t len)
{
	const int last = jl_nsection_kinds - 1;
	size_t used = 0;

	buf[0] = '\0';
	for (int i = 0; i < jl_nsection_kinds && used < len; i++) {
		const struct jl_section_kind *s = &jl_section_kinds[i];

		used += (size_t)snprintf(buf + used, len - used, "%s[%s%s]", i == 0 ? "" : i == last ? " or " : ", ",
					 s->name, s->named ? " NAME" : "");
	}
	return buf;
}

char *jl_section_keys_text(const struct jl_section_kind *k, char *buf, size_t len)
{
	const struct jl_key_desc *keys[128];
	int n = jl_section_keys(k, keys, 128);
	bool patterns = false;
	size_t used = 0;

	for (int i = 0; i < n; i++)
		patterns |= keys[i]->pattern != NULL;
	buf[0] = '\0';
	/* plain keys: "one of a, b, c"; with patterns: "runs, condition.LABEL, vary.SECTION.KEY or compare" */
	used = (size_t)snprintf(buf, len, "%s", patterns ? "" : "one of ");
	for (int i = 0; i < n && used < len; i++)
		used += (size_t)snprintf(buf + used, len - used, "%s%s", i == 0 ? "" : patterns && i == n - 1 ? " or " : ", ",
					 keys[i]->pattern ? keys[i]->pattern : keys[i]->name);
	return buf;
}
