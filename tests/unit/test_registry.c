/* test_registry: the scenario section registry (rt/scenario/scenario_registry.h), iterated: every key of every
 * section kind has a syntax, a range and one line of help, a slot inside its section's key_line, is
 * found by the parser's lookup and named by the unknown-key message; every default parses, gives the
 * state of an untouched section, and formats and parses back to the same text; the writer writes every
 * key that applies; `jitterlab list`, the fuzz dictionary and jitterlab-scenario(5) name every key. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "affinity/cli.h"
#include "rt/scenario/scenario.h"
#include "rt/scenario/scenario_registry.h"

#define MAX_KEYS 128

static struct jl_scenario *sc_a, *sc_b; /* ~0.5 MB each: on the heap */

static int setup(void **state)
{
	(void)state;
	sc_a = calloc(1, sizeof(*sc_a));
	sc_b = calloc(1, sizeof(*sc_b));
	return sc_a && sc_b ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(sc_a);
	free(sc_b);
	return 0;
}

/* A scenario with one instance of every implemented section kind. */
static const char every_section[] = "[run]\n[thread a]\nrate = 100Hz\n[executor e]\n[node n]\nexecutor = e\n[callback c]\nnode = n\n"
				    "period = 10ms\npublish = t\nlock = k\n[callback srv]\nexecutor = e\ntrigger = q\n[queue q]\n[source s]\ntarget = q\nrate = 5Hz\n[lock k]\n[topic t]\n[topic u]\n[sync y]\ninputs = t, u\n[budget]\ne2e.c = 1s\nstage.c = 1s\n[expect]\nx = a.misses == 0\n[gate]\ng = a.latency.p99 <= baseline + 10%\n[sweep]\n"
				    "condition.c1 = a.nice=1\nvary.a.work = spin 1ms, spin 2ms\ncompare = c1:c1\n";

static void parse_ok(struct jl_scenario *sc, const char *text)
{
	char err[JL_ERR_MAX];

	if (jl_scenario_parse_string("x.ini", text, sc, err, sizeof(err))) {
		print_error("parse failed: %s\n", err);
		fail();
	}
}

static int key_line_size(const struct jl_section_kind *k)
{
	if (!strcmp(k->name, "run"))
		return JL_RUN_KEY_N;
	if (!strcmp(k->name, "thread") || !strcmp(k->name, "executor"))
		return JL_SPEC_KEYS;
	if (!strcmp(k->name, "callback"))
		return JL_CALLBACK_KEY_N;
	if (!strcmp(k->name, "topic") || !strcmp(k->name, "queue"))
		return JL_TOPIC_KEY_N;
	if (!strcmp(k->name, "source"))
		return JL_SPEC_KEYS;
	if (!strcmp(k->name, "sync"))
		return JL_SYNC_KEY_N;
	if (!strcmp(k->name, "node"))
		return JL_NODE_KEY_N;
	if (!strcmp(k->name, "lock"))
		return JL_LOCK_KEY_N;
	return -1; /* keeps no key lines */
}

static void test_every_key_is_described(void **state)
{
	int kinds = 0;

	(void)state;
	for (int s = 0; s < jl_nsection_kinds; s++) {
		const struct jl_section_kind *k = &jl_section_kinds[s];
		const struct jl_key_desc *keys[MAX_KEYS];
		int n = jl_section_keys(k, keys, MAX_KEYS), size = key_line_size(k);
		struct jl_key_view v;

		kinds++;
		assert_non_null(k->help);
		assert_true(n > 0 && n < MAX_KEYS);
		parse_ok(sc_a, every_section);
		assert_true(jl_section_count(k, sc_a) >= 1); /* every kind in every_section (two topics: a sync needs two) */
		k->view(sc_a, 0, &v);
		assert_true((size < 0) == (v.key_line == NULL));
		for (int i = 0; i < n; i++) {
			const struct jl_key_desc *d = keys[i];
			char key[128];

			assert_true(d->help && d->help[0] && !strchr(d->help, '\n'));
			assert_true(d->syntax && d->syntax[0]);
			assert_true(d->range && d->range[0]);
			assert_non_null(d->parse);
			assert_true(!d->def || !d->def_doc); /* one default */
			assert_true(!d->entry == !d->pattern);
			if (size >= 0)
				assert_true(d->slot >= 0 && d->slot < size);
			if (i)
				assert_true(keys[i - 1]->slot < d->slot); /* one slot each, in order */
			/* the parser finds it: a plain key by name, a pattern key by a key with its prefix */
			snprintf(key, sizeof(key), "%s%s", d->name, d->pattern ? "lbl.x" : "");
			assert_ptr_equal(jl_section_key_find(k, key), d);
		}
	}
	assert_true(kinds >= 4);
	assert_non_null(jl_section_kind_find("thread"));
	assert_null(jl_section_kind_find("nosuch"));
}

/* The view of instance 0 of K in SC. */
static void view0(const struct jl_section_kind *k, struct jl_scenario *sc, struct jl_key_view *v)
{
	k->view(sc, 0, v);
	v->line = 1;
}

static void test_every_default_round_trips(void **state)
{
	int checked = 0;

	(void)state;
	for (int s = 0; s < jl_nsection_kinds; s++) {
		const struct jl_section_kind *k = &jl_section_kinds[s];
		const struct jl_key_desc *keys[MAX_KEYS];
		int n = jl_section_keys(k, keys, MAX_KEYS);

		for (int i = 0; i < n; i++) {
			const struct jl_key_desc *d = keys[i];
			char why[JL_ERR_MAX] = "", untouched[4096], one[4096], two[4096];
			const char *t0, *t1, *t2;
			struct jl_key_view v;

			if (!d->def)
				continue;
			/* the default parses */
			parse_ok(sc_a, every_section);
			view0(k, sc_a, &v);
			t0 = d->format ? d->format(&v, untouched, sizeof(untouched)) : NULL;
			if (t0 != untouched && t0)
				snprintf(untouched, sizeof(untouched), "%s", t0);
			if (d->parse(&v, d, d->name, d->def, why, sizeof(why))) {
				print_error("[%s] %s: default '%s' does not parse: %s\n", k->name, d->name, d->def, why);
				fail();
			}
			if (!d->format)
				continue;
			/* it is the untouched state, it formats, and that text parses back to the same text */
			t1 = d->format(&v, one, sizeof(one));
			assert_non_null(t1);
			if (t1 != one)
				snprintf(one, sizeof(one), "%s", t1);
			if (!t0 || strcmp(untouched, one)) {
				print_error("[%s] %s: default '%s' formats as '%s', an untouched section as '%s'\n", k->name,
					    d->name, d->def, one, t0 ? untouched : "(nothing)");
				fail();
			}
			parse_ok(sc_b, every_section);
			view0(k, sc_b, &v);
			assert_int_equal(d->parse(&v, d, d->name, one, why, sizeof(why)), 0);
			t2 = d->format(&v, two, sizeof(two));
			assert_non_null(t2);
			assert_string_equal(t2, one);
			checked++;
		}
	}
	assert_true(checked >= 20);
}

/* An unknown key's message names every key of the section (its list is the registry's). */
static void test_unknown_key_names_every_key(void **state)
{
	static const struct {
		const char *kind, *text;
	} cases[] = {
		{ "run", "[run]\nzzz = 1\n[thread a]\n" },
		{ "thread", "[thread a]\nzzz = 1\n" },
		{ "sweep", "[thread a]\n[sweep]\nzzz = 1\n" },
	};

	(void)state;
	for (size_t c = 0; c < sizeof(cases) / sizeof(cases[0]); c++) {
		const struct jl_section_kind *k = jl_section_kind_find(cases[c].kind);
		const struct jl_key_desc *keys[MAX_KEYS];
		int n = jl_section_keys(k, keys, MAX_KEYS);
		char err[JL_ERR_MAX];

		assert_int_equal(jl_scenario_parse_string("x.ini", cases[c].text, sc_a, err, sizeof(err)), -1);
		assert_non_null(strstr(err, "unknown key 'zzz'"));
		for (int i = 0; i < n; i++) {
			const char *name = keys[i]->pattern ? keys[i]->pattern : keys[i]->name;

			if (!strstr(err, name)) {
				print_error("unknown-key message does not name '%s': %s\n", name, err);
				fail();
			}
		}
	}
}

/* The writer writes every key whose descriptor says it applies, and nothing else. */
static void test_writer_writes_what_applies(void **state)
{
	static const char *const texts[] = {
		every_section,
		"[thread f]\npolicy = fifo\npriority = 80\ncpus = 0\nperiod = 1ms\n",
		"[thread x]\nexec = sleep 100\nuser = root\n",
		"[thread h]\npolicy = batch\nwork = sin 100\n",
	};

	(void)state;
	for (size_t c = 0; c < sizeof(texts) / sizeof(texts[0]); c++) {
		const struct jl_section_kind *k = jl_section_kind_find("thread");
		const struct jl_key_desc *keys[MAX_KEYS];
		int n = jl_section_keys(k, keys, MAX_KEYS);
		struct jl_key_view v;
		char *out = NULL;
		size_t len = 0;
		FILE *f;

		parse_ok(sc_a, texts[c]);
		f = open_memstream(&out, &len);
		assert_non_null(f);
		assert_int_equal(jl_scenario_write(sc_a, f), 0);
		fclose(f);
		view0(k, sc_a, &v);
		{
			/* the first [thread] section's text only (other sections have keys of the same names) */
			char *sec = strstr(out, "\n[thread "), *next = sec ? strstr(sec + 1, "\n[") : NULL;

			assert_non_null(sec);
			if (next)
				next[1] = '\0';
			memmove(out, sec, strlen(sec) + 1);
		}
		for (int i = 0; i < n; i++) {
			char want[80], buf[4096];
			bool written = (!keys[i]->applies || keys[i]->applies(&v)) && keys[i]->format &&
				       keys[i]->format(&v, buf, sizeof(buf));

			snprintf(want, sizeof(want), "\n%s = ", keys[i]->name);
			if (written != (strstr(out, want) != NULL)) {
				print_error("key %s: %s expected\n%s", keys[i]->name, written ? "written" : "not written", out);
				fail();
			}
		}
		free(out);
	}
}

static char *doc(void (*fn)(FILE *))
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	fn(f);
	fclose(f);
	return buf;
}

static void man5(FILE *f)
{
	assert_int_equal(jl_scenario_doc_man(f, NULL), 0);
}

/* A key as roff writes it ('-' as \-), for looking it up in the man page's source. */
static void roff_key(const char *key, char *out, size_t len)
{
	size_t n = 0;

	for (; *key && n + 3 < len; key++) {
		if (*key == '-')
			out[n++] = '\\';
		out[n++] = *key;
	}
	out[n] = '\0';
}

static void test_docs_name_every_key(void **state)
{
	char *list = doc(jl_scenario_doc_list), *dict = doc(jl_scenario_doc_dict), *man = doc(man5);

	(void)state;
	for (int s = 0; s < jl_nsection_kinds; s++) {
		const struct jl_section_kind *k = &jl_section_kinds[s];
		const struct jl_key_desc *keys[MAX_KEYS];
		int n = jl_section_keys(k, keys, MAX_KEYS);
		char want[160], rk[160];

		snprintf(want, sizeof(want), "[%s", k->name);
		assert_non_null(strstr(list, want));
		assert_non_null(strstr(dict, want));
		assert_non_null(strstr(man, want));
		for (int i = 0; i < n; i++) {
			const char *title = keys[i]->pattern ? keys[i]->pattern : keys[i]->name;

			snprintf(want, sizeof(want), "    %s ", title);
			assert_non_null(strstr(list, want));
			if (keys[i]->name[0]) {
				snprintf(want, sizeof(want), "=\"%s\"\n", keys[i]->name);
				assert_non_null(strstr(dict, want));
			}
			roff_key(title, rk, sizeof(rk));
			snprintf(want, sizeof(want), ".TP\n\\fB%s\\fR = ", rk);
			if (!strstr(man, want)) {
				print_error("jitterlab-scenario(5) has no entry for %s\n", title);
				fail();
			}
		}
	}
	free(list);
	free(dict);
	free(man);
}

/* Whatever a text holds, no line of roff it becomes starts a request. */
static void test_roff_escapes(void **state)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	(void)state;
	assert_non_null(f);
	jl_roff_text(f, ".TH evil\n'br\n\\fBbold\\fR -x", NULL);
	fclose(f);
	assert_string_equal(buf, "\\&.TH evil\n\\&'br\n\\efBbold\\efR \\-x");
	free(buf);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_every_key_is_described),
		cmocka_unit_test(test_every_default_round_trips),
		cmocka_unit_test(test_unknown_key_names_every_key),
		cmocka_unit_test(test_writer_writes_what_applies),
		cmocka_unit_test(test_docs_name_every_key),
		cmocka_unit_test(test_roff_escapes),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
