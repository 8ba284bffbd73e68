/* scenario_registry: the sections of a scenario file and their keys, as tables. A section kind ([run],
 * [thread NAME], [expect], [sweep]) is a list of key tables; a key table is an array of key descriptors
 * (name, value syntax, default, range, one line of help, parse, format, where it applies). The parser
 * (scenario.c), the writer (scenario_write.c), `jitterlab list`, the fuzz dictionary and the man page
 * jitterlab-scenario(5) (scenario_doc.c) all iterate these tables: a key exists once, here. A table
 * shared by several section kinds (the placement table: [thread] and [executor]) works on its
 * own object (struct jl_placement), reached through the view each section kind fills in. */
#ifndef JL_SCENARIO_REGISTRY_H
#define JL_SCENARIO_REGISTRY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>

#include "scenario.h"

/* One instance of a section, as its keys see it: the objects it has (NULL where it has none), its key
 * lines, and the line being parsed. The one thing a key function is given. */
struct jl_key_view {
	struct jl_scenario *sc;
	struct jl_run_spec *run;     /* [run] */
	struct jl_placement *place;  /* sections that create OS threads */
	struct jl_behaviour *beh;    /* [thread] */
	struct jl_sweep_spec *sweep; /* [sweep] */
	struct jl_executor_spec *executor; /* [executor] (with place) */
	struct jl_callback_spec *callback; /* [callback] */
	struct jl_topic_spec *topic; /* [topic] */
	struct jl_sync_spec *sync;   /* [sync] */
	struct jl_node_spec *node;   /* [node] */
	struct jl_lock_spec *lock;   /* [lock] */
	struct jl_source_spec *source; /* [source] (with place) */
	int *key_line;               /* indexed by a key's slot; NULL: the section keeps no key lines */
	int line;                    /* the line being parsed (<= 0: --set) */
};

/* A parse function's failure: JL_KEY_FAIL ("CONTEXT KEY: reason"), or JL_KEY_FAIL_WHOLE when the
 * reason is not about the value but the entry itself ("[expect]: label 'x y' is not valid"). */
enum { JL_KEY_FAIL = -1, JL_KEY_FAIL_WHOLE = -2 };

struct jl_key_desc {
	const char *name;    /* "policy"; a pattern key: the prefix of its keys ("condition.", "" = any key) */
	const char *pattern; /* a pattern key as documented ("condition.LABEL"); NULL: a plain key */
	/* the value: '|'-separated alternatives, lower case = literal words, upper case = a placeholder
	 * (DURATION, RATE, SIZE, CPULIST, BOOL, N, WORK, NAME, COMMAND, ...) */
	const char *syntax;
	const char *def;     /* the default as a value that parses to it; NULL: no such value (see def_doc) */
	const char *def_doc; /* the default in words when def is NULL ("= period", "all allowed"); NULL: none */
	const char *range;   /* what is accepted, in the words the parse errors use */
	const char *help;    /* one line */
	int slot;            /* index in key_line, and the order keys are written and listed in */
	/* VALUE into the view's objects (KEY: the key as written, for pattern keys). 0, or JL_KEY_FAIL*
	 * with a reason in WHY. */
	int (*parse)(struct jl_key_view *v, const struct jl_key_desc *d, const char *key, const char *value, char *why,
		     size_t wl);
	/* The value as scenario.ini writes it (into BUF or a constant), NULL when not set. NULL format: never
	 * written (another key writes it: rate is written as period). */
	const char *(*format)(const struct jl_key_view *v, char *buf, size_t len);
	/* Whether the writer writes the key for this instance (priority only for fifo/rr, ...); NULL: always */
	bool (*applies)(const struct jl_key_view *v);
	const char *unset;   /* the comment written when format gives NULL ("; cpus = (all allowed)"); NULL: nothing */
	/* a comment line written before the key (a cpu list that names CPUs: what it gave here); NULL: none */
	const char *(*note)(const struct jl_key_view *v, char *buf, size_t len);
	/* pattern keys: the I-th entry's key (after the prefix) and value; false past the last */
	bool (*entry)(const struct jl_key_view *v, int i, const char **key, const char **value);
	/* after a --set of this key (a --set policy drops the keys the new policy does not take); NULL: none */
	void (*after_set)(struct jl_key_view *v);
};

/* The functions of a key's row, defined in the key files (scenario_keys.c, scenario_thread_keys.c,
 * scenario_exec_keys.c, scenario_sections.c) with these signatures, once for all: `KEY_PARSE(run_name) {
 * ... }` defines the static parser the row names in `.parse = run_name` (grep the name to find both). */
#define KEY_PARSE(fn) \
	static int fn(struct jl_key_view *v, const struct jl_key_desc *d, const char *key, const char *value, char *why, size_t wl)
#define KEY_FORMAT(fn) static const char *fn(const struct jl_key_view *v, char *buf, size_t len)
#define KEY_APPLIES(fn) static bool fn(const struct jl_key_view *v)
#define KEY_ENTRY(fn) static bool fn(const struct jl_key_view *v, int i, const char **key, const char **value)

struct jl_key_table {
	const char *name;    /* "placement" */
	const struct jl_key_desc *keys;
	int nkeys;
};

struct jl_section_kind {
	const char *name;    /* "run", "thread" */
	const char *help;    /* one line */
	bool named;          /* [thread NAME]: many, each named; else at most one, no name */
	const struct jl_key_table *const *tables; /* NULL-terminated */
	/* how many instances SC has (unnamed: 1 if it is to be written, else 0): jl_section_count */
	int (*count)(const struct jl_scenario *sc);
	/* the view of instance I */
	void (*view)(struct jl_scenario *sc, int i, struct jl_key_view *v);
	/* a header was read: jl_section_add */
	int (*add)(struct jl_scenario *sc, const char *name, const char *file, int line);
	const char *(*name_of)(const struct jl_scenario *sc, int i); /* named kinds */
	int max;             /* named kinds: at most this many */
	/* a named kind kept in an array of its own: count, add and name_of come from it (NULL: from the
	 * functions above) */
	const struct jl_section_store *store;
};

/* Where a named kind's instances are kept in struct jl_scenario: an array of SIZE-byte specs at ARRAY and
 * its length (an int) at COUNT; in each spec the name, file and line of its header. INIT sets what the
 * defaults cannot (before them), AFTER what overrides them; either may be NULL. A kind with a store needs
 * only its view, its tables and this: a new kind of section is one row in jl_section_kinds[]. */
struct jl_section_store {
	size_t array, count, size;
	size_t name, name_len, file, file_len, line;
	void (*init)(void *spec);
	void (*after)(void *spec);
};
#define JL_SECTION_STORE(arr, n, type, nm, fl, ln)                                                           \
	.array = offsetof(struct jl_scenario, arr), .count = offsetof(struct jl_scenario, n), .size = sizeof(type), \
	.name = offsetof(type, nm), .name_len = sizeof(((type *)0)->nm), .file = offsetof(type, fl),          \
	.file_len = sizeof(((type *)0)->fl), .line = offsetof(type, ln)

/* How many instances of K SC has (unnamed kinds: 1 when it is to be written, else 0); instance I's name
 * (named kinds); a header was read: a new instance (named: its index with the defaults applied, -1 when
 * there are too many), or the unnamed section marked present (0). */
int jl_section_count(const struct jl_section_kind *k, const struct jl_scenario *sc);
const char *jl_section_name(const struct jl_section_kind *k, const struct jl_scenario *sc, int i);
int jl_section_add(const struct jl_section_kind *k, struct jl_scenario *sc, const char *name, const char *file, int line);

extern const struct jl_section_kind jl_section_kinds[];
extern const int jl_nsection_kinds;
extern const struct jl_key_table jl_keys_run, jl_keys_placement, jl_keys_copies, jl_keys_behaviour, jl_keys_expect, jl_keys_sweep,
	jl_keys_executor, jl_keys_callback, jl_keys_topic, jl_keys_budget, jl_keys_gate, jl_keys_sync, jl_keys_node, jl_keys_lock, jl_keys_queue, jl_keys_source;

/* The section kind called NAME, or NULL. */
const struct jl_section_kind *jl_section_kind_find(const char *name);
/* The descriptor KEY is parsed by in K: a plain key by name, else the pattern whose prefix KEY has. */
const struct jl_key_desc *jl_section_key_find(const struct jl_section_kind *k, const char *key);
/* K's keys in slot order (every table of it); returns how many (at most MAX). */
int jl_section_keys(const struct jl_section_kind *k, const struct jl_key_desc **out, int max);
/* Instance of K named NAME in SC, or -1. */
int jl_section_find(const struct jl_section_kind *k, const struct jl_scenario *sc, const char *name);
/* Every key of K with a default parsed into V (its key lines left at 0). Aborts if a default does not
 * parse: a table error, which the unit test catches first. */
void jl_section_defaults(const struct jl_section_kind *k, struct jl_key_view *v);
/* "[run], [thread NAME], [expect] or [sweep]": the implemented section kinds, for messages. */
char *jl_section_kinds_text(char *buf, size_t len);
/* "policy, priority, ..." (plain keys) or "runs, condition.LABEL, vary.SECTION.KEY or compare" (with
 * pattern keys): K's keys for an unknown-key message. */
char *jl_section_keys_text(const struct jl_section_kind *k, char *buf, size_t len);

/* Documentation from the tables (scenario_doc.c): `jitterlab list`'s sections, the libFuzzer
 * dictionary, and the roff man page jitterlab-scenario(5) (EXAMPLE: that file's text, NULL: none). */
void jl_scenario_doc_list(FILE *out);
void jl_scenario_doc_dict(FILE *out);
int jl_scenario_doc_man(FILE *out, const char *example);

#endif
