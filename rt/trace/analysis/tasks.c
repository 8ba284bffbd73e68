/* tasks: the task table and the names. The table: pid -> last known priority, comm and waking, for the
 * tasks alive in the trace. Open addressing with linear probing; it doubles at 70% full, and a task that
 * exits (sched_process_exit) is taken out (backward-shift deletion: no tombstones), so a trace that
 * churns through thousands of pids (a kernel build, hackbench) keeps only the live ones and never mixes
 * two tasks in one slot. The names states and segments give are interned: each stored once. */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_int.h"

void jl_analysis_clean_name(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			*s = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : '_';
}

const char *jl_analysis_comm(const struct jl_analysis *an, int32_t pid)
{
	const struct jl_analysis_task *t = jl_task_find(an, pid);

	if (t)
		return t->comm[0] ? t->comm : NULL;
	for (size_t i = an->nbirths; i-- > 0;) /* a task that exited: the comm it had when it did */
		if (an->births[i].pid == pid)
			return an->births[i].comm[0] ? an->births[i].comm : NULL;
	for (size_t i = an->ngone; i-- > 0;)
		if (an->gone[i].pid == pid)
			return an->gone[i].comm[0] ? an->gone[i].comm : NULL;
	return NULL;
}

static int task_grow(struct jl_analysis *an)
{
	struct jl_analysis_task *old = an->tasks;
	size_t cap = an->task_cap;

	an->tasks = calloc(cap * 2, sizeof(*an->tasks));
	if (!an->tasks) {
		an->tasks = old;
		return -1;
	}
	an->task_cap = cap * 2;
	for (size_t i = 0; i < cap; i++)
		if (old[i].pid > 0) {
			size_t j = jl_task_home(an, old[i].pid);

			while (an->tasks[j].pid)
				j = (j + 1) & (an->task_cap - 1);
			an->tasks[j] = old[i];
		}
	free(old);
	return 0;
}

/* The pid's entry, made when it has none; NULL when out of memory (or no pid). */
struct jl_analysis_task *jl_task_slot(struct jl_analysis *an, int32_t pid)
{
	struct jl_analysis_task *t = jl_task_find(an, pid);
	size_t i;

	if (t || pid <= 0)
		return t;
	if ((an->task_live + 1) * 10 > an->task_cap * 7 && task_grow(an))
		return NULL;
	for (i = jl_task_home(an, pid); an->tasks[i].pid; i = (i + 1) & (an->task_cap - 1))
		;
	memset(&an->tasks[i], 0, sizeof(an->tasks[i]));
	an->tasks[i].pid = pid;
	an->task_live++;
	return &an->tasks[i];
}

/* A task exited: its entry goes; the entries after it in its run move up where their probe allows. */
static int grow_gone(struct jl_analysis *an)
{
	size_t cap = an->capgone ? an->capgone * 2 : 64;
	struct jl_analysis_gone *g = realloc(an->gone, cap * sizeof(*g));

	if (!g)
		return -1;
	an->gone = g;
	an->capgone = cap;
	return 0;
}

void jl_task_forget(struct jl_analysis *an, int32_t pid, int64_t ts)
{
	struct jl_analysis_task *t = jl_task_find(an, pid);
	const size_t mask = an->task_cap - 1;
	size_t i, j;

	if (!t)
		return;
	if (t->birth && t->birth <= an->nbirths) { /* its name outlives it, with its birth */
		jl_event_copy(an->births[t->birth - 1].comm, sizeof(an->births[0].comm), t->comm, sizeof(t->comm));
		an->births[t->birth - 1].exited = ts > 0 ? ts : 1;
		an->births[t->birth - 1].kprio = t->kprio;
	} else if (an->ngone < an->capgone || grow_gone(an) == 0) { /* born before the trace: kept as gone */
		an->gone[an->ngone].pid = pid;
		an->gone[an->ngone].kprio = t->kprio;
		jl_event_copy(an->gone[an->ngone].comm, sizeof(an->gone[0].comm), t->comm, sizeof(t->comm));
		an->ngone++;
	}
	i = (size_t)(t - an->tasks);
	for (j = (i + 1) & mask; an->tasks[j].pid; j = (j + 1) & mask) {
		size_t k = jl_task_home(an, an->tasks[j].pid);

		/* J may fill the hole at I unless its home lies cyclically in (I, J] */
		if (i <= j ? (k <= i || k > j) : (k <= i && k > j)) {
			an->tasks[i] = an->tasks[j];
			i = j;
		}
	}
	memset(&an->tasks[i], 0, sizeof(an->tasks[i]));
	an->task_live--;
	an->tasks_forgotten++;
}

void jl_task_births_forget(struct jl_analysis *an,
			   bool (*gone)(const struct jl_analysis *an, const struct jl_analysis_birth *b, const void *ctx),
			   const void *ctx)
{
	uint32_t *moved;
	size_t j = 0;

	if (!an->nbirths)
		return;
	moved = malloc(an->nbirths * sizeof(*moved));
	if (!moved)
		return; /* kept until the next time */
	for (size_t i = 0; i < an->nbirths; i++) {
		if (gone(an, &an->births[i], ctx)) {
			moved[i] = 0;
			an->births_forgotten++;
			continue;
		}
		an->births[j] = an->births[i];
		moved[i] = (uint32_t)++j;
	}
	if (j < an->nbirths) /* the live tasks' births moved down: their index with them */
		for (size_t k = 0; k < an->task_cap; k++)
			if (an->tasks[k].pid > 0 && an->tasks[k].birth)
				an->tasks[k].birth = an->tasks[k].birth <= an->nbirths ? moved[an->tasks[k].birth - 1] : 0;
	an->nbirths = j;
	free(moved);
}

size_t jl_analysis_tasks_live(const struct jl_analysis *an)
{
	return an->task_live;
}


struct jl_analysis_task *jl_task_note(struct jl_analysis *an, int32_t pid, int32_t kprio, const char *comm)
{
	struct jl_analysis_task *t = jl_task_slot(an, pid);

	if (!t)
		return NULL;
	t->kprio = kprio;
	if (comm && comm[0] && !jl_event_same(t->comm, comm)) { /* a new name: its id with it */
		jl_event_copy(t->comm, sizeof(t->comm), comm, SIZE_MAX);
		t->name_id = jl_name_intern(an, t->comm);
	}
	return t;
}

/* A hash of NAME as jl_name_intern() keeps it (cut to MAX bytes), eight bytes at a time; *LEN its length. */
static uint32_t name_hash(const char *name, size_t max, size_t *len)
{
	size_t n = strnlen(name, max), i = 0;
	uint64_t h = n;

	for (; i + 8 <= n; i += 8) {
		uint64_t w;

		memcpy(&w, name + i, 8);
		h = ((h << 5 | h >> 59) ^ w) * 0x517cc1b727220a95ull;
	}
	if (i < n) {
		uint64_t w = 0;

		memcpy(&w, name + i, n - i);
		h = ((h << 5 | h >> 59) ^ w) * 0x517cc1b727220a95ull;
	}
	*len = n;
	return (uint32_t)(h ^ h >> 32);
}

/* The index of NAME in AN's names, added if new (0: "", and on ENOMEM). An open-addressing table of
 * index + 1 over the names, each name's hash kept beside it so that a probe compares strings only on a
 * hash match: states and segments intern a name each, the busiest thing the feed does. */
static uint32_t intern_n(struct jl_analysis *an, const char *name, size_t max)
{
	uint32_t h, mask, i;
	size_t len;

	if (!name || !name[0])
		return 0; /* index 0 is "" (jl_analysis_name says so before the table exists) */
	h = name_hash(name, max < JL_ANALYSIS_NAME_MAX - 1 ? max : JL_ANALYSIS_NAME_MAX - 1, &len);
	if (an->nnames + 1 > an->capnames) { /* grow: names, their hashes, the table over them */
		uint32_t cap = an->capnames ? an->capnames * 2 : 256;
		char (*names)[JL_ANALYSIS_NAME_MAX] = realloc(an->names, (size_t)cap * sizeof(*names));
		uint32_t *hs = names ? realloc(an->name_h, (size_t)cap * sizeof(*hs)) : NULL;
		uint32_t *table = hs ? calloc((size_t)cap * 2, sizeof(*table)) : NULL;

		if (names)
			an->names = names;
		if (hs)
			an->name_h = hs;
		if (!table)
			return 0;
		free(an->name_hash);
		an->name_hash = table;
		an->capnames = cap;
		if (!an->nnames) { /* index 0 is "": never in the table (jl_name_intern answers it first) */
			an->names[0][0] = '\0';
			an->name_h[0] = 0;
			an->nnames = 1;
		}
		for (uint32_t k = 1; k < an->nnames; k++) {
			for (i = an->name_h[k] & (cap * 2 - 1); table[i]; i = (i + 1) & (cap * 2 - 1))
				;
			table[i] = k + 1;
		}
	}
	mask = an->capnames * 2 - 1;
	for (i = h & mask; an->name_hash[i]; i = (i + 1) & mask) {
		uint32_t k = an->name_hash[i] - 1;

		if (an->name_h[k] == h && !memcmp(an->names[k], name, len) && !an->names[k][len])
			return k;
	}
	memcpy(an->names[an->nnames], name, len);
	an->names[an->nnames][len] = '\0';
	an->name_h[an->nnames] = h;
	an->name_hash[i] = an->nnames + 1;
	return an->nnames++;
}

uint32_t jl_name_intern(struct jl_analysis *an, const char *name)
{
	return intern_n(an, name, JL_ANALYSIS_NAME_MAX - 1);
}

/* The id of LIT, a string constant (its address stands for it: interned once). */
uint32_t jl_name_literal(struct jl_analysis *an, const char *lit)
{
	int i;

	for (i = 0; i < JL_ANALYSIS_LITERALS && an->lit[i]; i++)
		if (an->lit[i] == lit)
			return an->lit_id[i];
	if (i == JL_ANALYSIS_LITERALS)
		return jl_name_intern(an, lit);
	an->lit[i] = lit;
	return an->lit_id[i] = jl_name_intern(an, lit);
}

void jl_analysis_set_irq_name(struct jl_analysis *an, int n, const char *name)
{
	if (n >= 0 && n < JL_ANALYSIS_IRQS && name && name[0])
		an->irq_name[n] = jl_name_intern(an, name);
}
