/* trace_events: the analysis pass over a merged event stream: wakeup pairs per analysed thread and each
 * CPU's timeline (tasks, IRQs, softirqs, hrtimer callbacks as non-overlapping pieces); trace_decompose.c
 * explains cycles from them. Pure: no tracefs, no files, no globals. Rules (platform-facts.md, tracing
 * notes): first sched_waking (or wakeup_new) of a pid -> next sched_switch with next_pid == pid; a pending
 * wake is dropped if the task switches out first, or when events were lost; the real CPU is the switch
 * record's CPU. A task that writes a record on a CPU where no switch put it was switched in untraced: after
 * lost events (the CPU's state is unknown), or out of idle on a CPU whose trace shows no switch out of the
 * idle task (this VM's kernel records none on some CPUs): the switch is inferred, and counted per CPU.
 * Lost events close the CPU's timeline at its last record before the gap and leave a "lost" piece. The
 * expiries of the timers that end RT throttling and start the fair server are kept as evidence, and so
 * is every switch and waking of an analysed thread (its response window is read from them). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "trace_events.h"

#define CTX_DEPTH 8

struct ctx {
	int32_t kind, pid;
	char name[JL_EVENT_COMM + 8];
	uint32_t name_id;     /* intern(name) */
	uint64_t timer;       /* an hrtimer callback: its address, when it began and the interrupt's now */
	int64_t entry, now;
};

#define ARMED_HASH 4096

/* An hrtimer as hrtimer_start last armed it. */
struct jl_analysis_armed {
	uint64_t timer;
	int64_t expires, soft;
};

#define TASK_HASH_MIN 1024 /* the task table's first size (it doubles at 70% full) */

struct jl_analysis_task {
	int32_t pid;          /* 0 = empty slot (the idle task is never stored) */
	int32_t kprio;
	size_t birth;         /* its birth in an->births, + 1 (0: born before the trace began) */
	int64_t last_waking;
	char comm[JL_EVENT_COMM];
	uint32_t name_id;     /* intern(comm), kept as the comm changes */
};

struct jl_analysis_cpu {
	bool seen, known;
	bool idle_exit_traced;   /* a sched_switch out of the idle task was recorded on this CPU */
	/* an RT task was switched out still runnable for a lower task at this time (RT throttling or the
	 * fair server set the RT queue aside), and no RT task has run here since; 0 otherwise */
	int64_t rt_set_aside;
	int32_t rt_preempted;    /* an RT task switched out here still runnable, not switched in since (0: none) */
	int64_t seg_start;
	int64_t last_ts;      /* the CPU's previous record */
	int32_t pid, kprio;
	char comm[JL_EVENT_COMM];
	uint32_t comm_id;        /* intern(comm) when comm_ok: segments name the task by it */
	bool comm_ok;
	int depth;
	struct ctx stack[CTX_DEPTH];
};


static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK",
					     "IRQ_POLL", "TASKLET", "SCHED", "HRTIMER", "RCU" };


/* ---- sorting ---- */

static void merge_pass(struct jl_event *a, struct jl_event *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(*a));
}

int jl_event_sort(struct jl_event *ev, size_t n)
{
	struct jl_event *tmp;
	size_t width, lo;
	bool sorted = true;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = ev[i].ts >= ev[i - 1].ts;
	if (sorted)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (width = 1; width < n; width *= 2)
		for (lo = 0; lo < n - width; lo += 2 * width)
			merge_pass(ev, tmp, lo, lo + width, lo + 2 * width < n ? lo + 2 * width : n);
	free(tmp);
	return 0;
}

/* ---- state ---- */

void jl_analysis_budget_defaults(struct jl_analysis_budget *b)
{
	*b = (struct jl_analysis_budget){ .rt_runtime_ns = 950000000LL, .rt_period_ns = 1000000000LL,
				     .fair_runtime_ns = 50000000LL, .fair_period_ns = 1000000000LL, .fair_server = true };
}

int jl_analysis_init(struct jl_analysis *an, const struct jl_analysis_thread *threads, int nthreads, int ncpus)
{
	memset(an, 0, sizeof(*an));
	if (ncpus < 1)
		ncpus = 1;
	an->nthreads = nthreads;
	an->ncpus = ncpus;
	an->threads = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->threads));
	an->pending = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending));
	an->pending_cpu = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_cpu));
	an->pending_prio = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_prio));
	an->pending_new = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_new));
	an->pending_pair = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_pair));
	an->armed = calloc(ARMED_HASH, sizeof(*an->armed));
	an->cpu = calloc(ncpus, sizeof(*an->cpu));
	an->tasks = calloc(TASK_HASH_MIN, sizeof(*an->tasks));
	an->task_cap = TASK_HASH_MIN;
	an->segs = calloc(ncpus, sizeof(*an->segs));
	an->nsegs = calloc(ncpus, sizeof(*an->nsegs));
	an->capsegs = calloc(ncpus, sizeof(*an->capsegs));
	an->vm_heuristic = calloc(ncpus, sizeof(*an->vm_heuristic));
	if (!an->vm_heuristic || !an->pending_pair || !an->armed || !an->threads || !an->pending || !an->pending_cpu || !an->pending_prio || !an->pending_new || !an->cpu || !an->tasks || !an->segs ||
	    !an->nsegs || !an->capsegs) {
		jl_analysis_free(an);
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < nthreads; i++) {
		an->threads[i] = threads[i];
		an->threads[i].pairs = NULL;
		an->threads[i].npairs = an->threads[i].cap = an->threads[i].pairs_forgotten = 0;
		an->threads[i].switch_in = an->threads[i].switch_out = an->threads[i].wakings = 0;
		an->threads[i].matched = an->threads[i].measured_samples = 0;
		an->threads[i].states = NULL;
		an->threads[i].nstates = an->threads[i].capstates = 0;
		an->threads[i].sample_pair = NULL;
		an->threads[i].owner = i;
		an->threads[i].executor = threads[i].executor;
	}
	/* entries of one pid (series written by one thread): the events go to the first measured one (the
	 * pairs and states are kept for measured entries only), or the first one when none is measured */
	for (int i = 0; i < nthreads; i++) {
		int first = -1, measured = -1;

		for (int j = 0; j < nthreads && threads[i].pid > 0; j++) {
			if (threads[j].pid != threads[i].pid)
				continue;
			if (first < 0)
				first = j;
			if (measured < 0 && threads[j].measured)
				measured = j;
		}
		if (first >= 0)
			an->threads[i].owner = measured >= 0 ? measured : first;
	}
	an->first_ts = -1;
	jl_analysis_budget_defaults(&an->budget);
	return 0;
}

void jl_analysis_free(struct jl_analysis *an)
{
	if (an->threads)
		for (int i = 0; i < an->nthreads; i++) {
			free(an->threads[i].pairs);
			free(an->threads[i].states);
			free(an->threads[i].sample_pair);
			free(an->threads[i].lent);
		}
	if (an->segs)
		for (int c = 0; c < an->ncpus; c++)
			free(an->segs[c]);
	free(an->threads);
	free(an->pending);
	free(an->pending_cpu);
	free(an->pending_prio);
	free(an->pending_new);
	free(an->cpu);
	free(an->tasks);
	free(an->segs);
	free(an->nsegs);
	free(an->capsegs);
	free(an->vm_heuristic);
	free(an->pending_pair);
	free(an->armed);
	free(an->rt_unthrottle);
	free(an->fair_start);
	free(an->gaps);
	free(an->probes);
	free(an->births);
	free(an->names);
	free(an->name_hash);
	free(an->name_h);
	if (an->prune_ops)
		an->prune_ops->free(an);
	memset(an, 0, sizeof(*an));
}

static int grow_cpus(struct jl_analysis *an, int cpu)
{
	int n = cpu + 1;
	void *p;

	if (cpu < an->ncpus)
		return 0;
#define GROW(field)                                                                   \
	do {                                                                          \
		p = realloc(an->field, n * sizeof(*an->field));                       \
		if (!p)                                                               \
			return -1;                                                    \
		an->field = p;                                                        \
		memset(an->field + an->ncpus, 0, (n - an->ncpus) * sizeof(*an->field)); \
	} while (0)
	GROW(cpu);
	GROW(segs);
	GROW(nsegs);
	GROW(capsegs);
	GROW(vm_heuristic);
#undef GROW
	an->ncpus = n;
	return 0;
}

int jl_analysis_thread_of(const struct jl_analysis *an, int32_t pid)
{
	if (pid <= 0)
		return -1;
	for (int i = 0; i < an->nthreads; i++)
		if (an->threads[i].pid == pid)
			return an->threads[i].owner;
	return -1;
}

int32_t jl_analysis_parent(const struct jl_analysis *an, int32_t pid)
{
	for (size_t i = an->nbirths; i-- > 0;) /* the latest birth of a reused pid */
		if (an->births[i].pid == pid)
			return an->births[i].parent != pid ? an->births[i].parent : 0;
	return 0;
}

bool jl_analysis_in_tree(const struct jl_analysis *an, int32_t root, int32_t pid)
{
	for (int hops = 0; pid > 0 && hops < 64; hops++, pid = jl_analysis_parent(an, pid))
		if (pid == root)
			return true;
	return false;
}

void jl_analysis_clean_name(char *s)
{
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= '0' && *s <= '9') || *s == '_' || *s == '-'))
			*s = *s >= 'A' && *s <= 'Z' ? (char)(*s - 'A' + 'a') : '_';
}

/* The task table: pid -> last known priority, comm and waking, for the tasks alive in the trace. Open
 * addressing with linear probing; it doubles at 70% full, and a task that exits (sched_process_exit) is
 * taken out (backward-shift deletion: no tombstones), so a trace that churns through thousands of pids (a
 * kernel build, hackbench) keeps only the live ones and never mixes two tasks in one slot. */
static size_t task_home(const struct jl_analysis *an, int32_t pid)
{
	return (size_t)((uint32_t)pid * 2654435761u) & (an->task_cap - 1);
}

static struct jl_analysis_task *task_find(const struct jl_analysis *an, int32_t pid)
{
	for (size_t i = task_home(an, pid), n = 0; pid > 0 && an->tasks && n < an->task_cap; i = (i + 1) & (an->task_cap - 1), n++) {
		if (an->tasks[i].pid == pid)
			return &an->tasks[i];
		if (an->tasks[i].pid == 0)
			break;
	}
	return NULL;
}

const char *jl_analysis_comm(const struct jl_analysis *an, int32_t pid)
{
	const struct jl_analysis_task *t = task_find(an, pid);

	if (t)
		return t->comm[0] ? t->comm : NULL;
	for (size_t i = an->nbirths; i-- > 0;) /* a task that exited: the comm it had when it did */
		if (an->births[i].pid == pid)
			return an->births[i].comm[0] ? an->births[i].comm : NULL;
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
			size_t j = task_home(an, old[i].pid);

			while (an->tasks[j].pid)
				j = (j + 1) & (an->task_cap - 1);
			an->tasks[j] = old[i];
		}
	free(old);
	return 0;
}

/* The pid's entry, made when it has none; NULL when out of memory (or no pid). */
static struct jl_analysis_task *task_slot(struct jl_analysis *an, int32_t pid)
{
	struct jl_analysis_task *t = task_find(an, pid);
	size_t i;

	if (t || pid <= 0)
		return t;
	if ((an->task_live + 1) * 10 > an->task_cap * 7 && task_grow(an))
		return NULL;
	for (i = task_home(an, pid); an->tasks[i].pid; i = (i + 1) & (an->task_cap - 1))
		;
	memset(&an->tasks[i], 0, sizeof(an->tasks[i]));
	an->tasks[i].pid = pid;
	an->task_live++;
	return &an->tasks[i];
}

/* A task exited: its entry goes; the entries after it in its run move up where their probe allows. */
static void task_forget(struct jl_analysis *an, int32_t pid)
{
	struct jl_analysis_task *t = task_find(an, pid);
	const size_t mask = an->task_cap - 1;
	size_t i, j;

	if (!t)
		return;
	if (t->birth && t->birth <= an->nbirths) /* its name outlives it, with its birth */
		jl_event_copy(an->births[t->birth - 1].comm, sizeof(an->births[0].comm), t->comm, sizeof(t->comm));
	i = (size_t)(t - an->tasks);
	for (j = (i + 1) & mask; an->tasks[j].pid; j = (j + 1) & mask) {
		size_t k = task_home(an, an->tasks[j].pid);

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

size_t jl_analysis_tasks_live(const struct jl_analysis *an)
{
	return an->task_live;
}

static uint32_t intern(struct jl_analysis *an, const char *name);

static struct jl_analysis_task *task_note(struct jl_analysis *an, int32_t pid, int32_t kprio, const char *comm)
{
	struct jl_analysis_task *t = task_slot(an, pid);

	if (!t)
		return NULL;
	t->kprio = kprio;
	if (comm && comm[0] && !jl_event_same(t->comm, comm)) { /* a new name: its id with it */
		jl_event_copy(t->comm, sizeof(t->comm), comm, SIZE_MAX);
		t->name_id = intern(an, t->comm);
	}
	return t;
}

/* A hash of NAME as intern() keeps it (cut to MAX bytes), eight bytes at a time; *LEN its length. */
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
		if (!an->nnames) { /* index 0 is "": never in the table (intern answers it first) */
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

static uint32_t intern(struct jl_analysis *an, const char *name)
{
	return intern_n(an, name, JL_ANALYSIS_NAME_MAX - 1);
}

/* The id of LIT, a string constant (its address stands for it: interned once). */
static uint32_t literal(struct jl_analysis *an, const char *lit)
{
	int i;

	for (i = 0; i < JL_ANALYSIS_LITERALS && an->lit[i]; i++)
		if (an->lit[i] == lit)
			return an->lit_id[i];
	if (i == JL_ANALYSIS_LITERALS)
		return intern(an, lit);
	an->lit[i] = lit;
	return an->lit_id[i] = intern(an, lit);
}

static int push_seg(struct jl_analysis *an, int cpu, int64_t start, int64_t end, int kind, int pid, int kprio,
		    uint32_t name)
{
	struct jl_segment *s;

	if (end <= start)
		return 0;
	if (an->nsegs[cpu] == an->capsegs[cpu]) {
		size_t cap = an->capsegs[cpu] ? an->capsegs[cpu] * 2 : 1024;

		s = realloc(an->segs[cpu], cap * sizeof(*s));
		if (!s)
			return -1;
		an->segs[cpu] = s;
		an->capsegs[cpu] = cap;
	}
	s = &an->segs[cpu][an->nsegs[cpu]++];
	s->start = start;
	s->end = end;
	s->kind = kind;
	s->pid = pid;
	s->kprio = kprio;
	s->name = name;
	return 0;
}

/* Close the piece of CPU's timeline that ends at TS (whatever is on top of its context stack). */
static int close_seg(struct jl_analysis *an, int cpu, int64_t ts)
{
	struct jl_analysis_cpu *c = &an->cpu[cpu];
	int rc = 0;

	if (!c->seen) {
		c->seen = true;
		c->seg_start = ts;
		return 0;
	}
	if (c->depth > 0) {
		/* nesting deeper than we keep (entries without exits): the deepest one kept */
		const struct ctx *x = &c->stack[(c->depth < CTX_DEPTH ? c->depth : CTX_DEPTH) - 1];

		rc = push_seg(an, cpu, c->seg_start, ts, x->kind, x->pid, 0, x->name_id);
	} else if (c->known) {
		if (!c->comm_ok) { /* the task's name, interned once per name it has on this CPU */
			c->comm_id = intern(an, c->comm);
			c->comm_ok = true;
		}
		rc = push_seg(an, cpu, c->seg_start, ts, c->pid == 0 ? JL_PART_OTHER : JL_PART_TASK, c->pid,
			      c->kprio, c->pid == 0 ? literal(an, "idle") : c->comm_id);
	} else {
		rc = push_seg(an, cpu, c->seg_start, ts, JL_PART_OTHER, -1, 0, literal(an, "unknown (not traced)"));
	}
	c->seg_start = ts;
	return rc;
}

static void push_ctx(struct jl_analysis *an, struct jl_analysis_cpu *c, int kind, int pid, const char *name)
{
	if (c->depth < CTX_DEPTH) {
		memset(&c->stack[c->depth], 0, sizeof(c->stack[c->depth]));
		c->stack[c->depth].kind = kind;
		c->stack[c->depth].pid = pid;
		jl_event_copy(c->stack[c->depth].name, sizeof(c->stack[c->depth].name), name, SIZE_MAX);
		c->stack[c->depth].name_id = intern(an, c->stack[c->depth].name);
	}
	c->depth++;
}

static struct jl_analysis_armed *armed_slot(struct jl_analysis *an, uint64_t timer)
{
	return &an->armed[(timer >> 3) * 11400714819323198485ull >> 52]; /* 4096 slots; a collision overwrites */
}

static void pop_ctx(struct jl_analysis_cpu *c)
{
	if (c->depth > 0)
		c->depth--;
}

static int append_grow(void *arr, size_t *cap, size_t size)
{
	char **a = arr;
	size_t c = *cap ? *cap * 2 : 64;
	char *p = realloc(*a, c * size);

	if (!p)
		return -1;
	*a = p;
	*cap = c;
	return 0;
}

/* Append ITEM (SIZE bytes) to the growable array *ARR of *N items (*CAP allocated). Inlined: SIZE is a
 * constant at each call, so the copy is a few moves (a state is appended for nearly every event). */
static inline __attribute__((always_inline)) int append(void *arr, size_t *n, size_t *cap, const void *item,
							 size_t size)
{
	char **a = arr;

	if (*n == *cap && append_grow(arr, cap, size) < 0)
		return -1;
	memcpy(*a + *n * size, item, size);
	(*n)++;
	return 0;
}

/* Record a state change of analysed thread TI (measured threads only: others lend only a name), BY the
 * name's id. */
static int note_state_id(struct jl_analysis *an, int ti, int64_t ts, int cpu, int what, int by_kind, int by_pid,
			 uint32_t by)
{
	struct jl_analysis_thread *t = &an->threads[ti];
	struct jl_tstate st = { .ts = ts, .cpu = cpu, .rec_cpu = cpu, .what = what, .by_kind = by_kind, .by_pid = by_pid,
				.by = by };

	if (!t->measured)
		return 0;
	return append(&t->states, &t->nstates, &t->capstates, &st, sizeof(st));
}


/* note_state_id with BY a string constant, or NULL for none. */
static int note_state(struct jl_analysis *an, int ti, int64_t ts, int cpu, int what, int by_kind, int by_pid,
		      const char *by)
{
	if (!an->threads[ti].measured)
		return 0;
	return note_state_id(an, ti, ts, cpu, what, by_kind, by_pid, by ? literal(an, by) : 0);
}

int jl_analysis_keep_pair(struct jl_analysis_thread *t, const struct jl_pair *p)
{
	if (t->npairs == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct jl_pair *n = realloc(t->pairs, cap * sizeof(*n));

		if (!n)
			return -1;
		t->pairs = n;
		t->cap = cap;
	}
	t->pairs[t->npairs++] = *p;
	return 0;
}

static int add_pair(struct jl_analysis *an, int ti, const struct jl_pair *p)
{
	if (an->prune_ops && !an->prune_ops->pair(an, ti, p)) /* a pruned analysis: counted, not kept */
		return 0;
	return jl_analysis_keep_pair(&an->threads[ti], p);
}

static bool running_somewhere(const struct jl_analysis *an, int32_t pid)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].known && an->cpu[c].pid == pid)
			return true;
	return false;
}

/* The task CUR wrote a record on CPU at TS but no sched_switch put it there (seen on virtual machines,
 * where the switch out of the idle task is not recorded). Out of idle, the switch follows the wakeup at
 * once: place it at the idle task's last record (not before CUR's waking, and for an RT task not before
 * the last sched_rt_period_timer expiry: a throttled CPU idles with RT tasks runnable); otherwise at TS. */
static int implicit_switch(struct jl_analysis *an, int cpu, int64_t ts, int32_t cur)
{
	struct jl_analysis_cpu *c = &an->cpu[cpu];
	const struct jl_analysis_task *k = task_find(an, cur);
	int64_t at = ts;
	int ti;

	if (c->seen && c->known && c->pid == 0) {
		at = c->last_ts;
		if (k && k->last_waking > at)
			at = k->last_waking;
		/* an RT task cannot have run while RT throttling held the CPU: not before the unthrottle */
		if (k && k->kprio < 100 && an->n_rt_unthrottle && an->rt_unthrottle[an->n_rt_unthrottle - 1].ts > at)
			at = an->rt_unthrottle[an->n_rt_unthrottle - 1].ts;
		/* nor while its CPU's RT queue is set aside (an RT task was switched out runnable for a lower
		 * one, and none ran since): it ran no earlier than its first record. The default trace has no
		 * timer events, and this is the evidence it has (before, the wait read as the task's return) */
		if (k && k->kprio < 100 && c->rt_set_aside > 0)
			at = ts;
		if (at > ts || at < c->seg_start)
			at = ts;
	}
	ts = at;
	if (k && k->kprio < 100) {
		c->rt_set_aside = 0;
		if (c->rt_preempted == cur)
			c->rt_preempted = 0;
	}
	if (close_seg(an, cpu, ts) < 0)
		return -1;
	an->implicit_switches++;
	if (c->seen && c->known && c->pid == 0)
		an->vm_heuristic[cpu]++;
	c->known = true;
	c->depth = 0;
	c->pid = cur;
	c->kprio = k ? k->kprio : 120;
	jl_event_copy(c->comm, sizeof(c->comm), k ? k->comm : "?", SIZE_MAX);
	c->comm_id = k ? k->name_id : 0;
	c->comm_ok = k && k->comm[0];
	ti = jl_analysis_thread_of(an, cur);
	if (ti >= 0 && note_state(an, ti, ts, cpu, JL_TS_IN, 0, -1, NULL) < 0)
		return -1;
	if (ti >= 0) {
		an->threads[ti].implicit_in++;
		if (an->pending[ti] && an->threads[ti].measured) {
			struct jl_pair p = an->pending_pair[ti];

			p.waking = an->pending[ti];
			p.switch_in = ts;
			p.pid = cur;
			p.cpu = cpu;
			p.wake_cpu = an->pending_cpu[ti];
			p.new_task = an->pending_new[ti];
			p.kprio = an->pending_prio[ti];
			p.implicit = true;

			if (add_pair(an, ti, &p) < 0)
				return -1;
		}
		an->pending[ti] = 0;
	}
	return 0;
}

/* Who woke analysed thread TI: the IRQ, softirq or hrtimer the waking CPU was in (the nesting of the
 * irq/timer events, else common_flags), or the task that ran there. The common_pid of a waking raised
 * in IRQ context is only the task the IRQ interrupted. */
static int note_waker(struct jl_analysis *an, int ti, const struct jl_event *ev)
{
	const struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	const struct jl_analysis_task *k;

	if (c->depth > 0 && c->depth <= CTX_DEPTH) {
		const struct ctx *x = &c->stack[c->depth - 1];

		return note_state_id(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, x->kind, x->pid, x->name_id);
	}
	if (ev->flags & JL_EVENT_F_HARDIRQ)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_IRQ, -1, "an IRQ (irq events not recorded)");
	if (ev->flags & JL_EVENT_F_SOFTIRQ)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_SOFTIRQ, -1,
				  "a softirq (irq events not recorded)");
	if (!ev->has_cur)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_OTHER, -1, "unknown");
	if (ev->cur == 0)
		return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_OTHER, 0, "the idle task");
	k = task_find(an, ev->cur);
	if (k && k->comm[0])
		return note_state_id(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_TASK, ev->cur, k->name_id);
	return note_state(an, ti, ev->ts, ev->cpu, JL_TS_WOKEN, JL_PART_TASK, ev->cur, "?");
}

/* What a wakeup of analysed thread TI starts from: the runqueue it goes to, and the hrtimer whose
 * callback raised it (with that timer as hrtimer_start armed it, when that was seen). */
static void note_wake_cause(struct jl_analysis *an, int ti, const struct jl_event *ev)
{
	const struct jl_analysis_cpu *c = &an->cpu[ev->cpu];
	struct jl_pair *p = &an->pending_pair[ti];

	memset(p, 0, sizeof(*p));
	p->queue_cpu = ev->target_cpu >= 0 ? ev->target_cpu : ev->cpu;
	p->timer_cpu = -1;
	/* a task woke it (not an IRQ on that task's back): on PREEMPT_RT a CFS task's timer is run by ktimers/N */
	p->waker_pid = ev->has_cur && ev->cur > 0 && c->depth == 0 && !(ev->flags & JL_EVENT_F_HARDIRQ) ? ev->cur : -1;
	if (c->depth > 0 && c->depth <= CTX_DEPTH && c->stack[c->depth - 1].timer) {
		const struct ctx *x = &c->stack[c->depth - 1];
		const struct jl_analysis_armed *a = armed_slot(an, x->timer);

		p->timer_cpu = ev->cpu;
		p->timer_entry = x->entry;
		p->timer_now = x->now;
		if (a->timer == x->timer) {
			p->timer_expires = a->expires;
			p->timer_soft = a->soft;
		}
	}
}

/* The expiries that end RT throttling (sched_rt_period_timer unthrottles every CPU's RT queues, from
 * whichever CPU it fires on) and start the fair server (its dl_task_timer, on the server's CPU). */
static int note_bandwidth_timer(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_mark m = { .ts = ev->ts, .cpu = ev->cpu };

	an->timer_events++;
	if (!strcmp(ev->comm, "sched_rt_period_timer"))
		return append(&an->rt_unthrottle, &an->n_rt_unthrottle, &an->cap_rt_unthrottle, &m, sizeof(m));
	if (!strcmp(ev->comm, "dl_task_timer"))
		return append(&an->fair_start, &an->n_fair_start, &an->cap_fair_start, &m, sizeof(m));
	return 0;
}

int jl_analysis_feed(struct jl_analysis *an, const struct jl_event *ev)
{
	struct jl_analysis_cpu *c;
	char name[JL_EVENT_COMM + 8];
	int ti;

	if (ev->cpu < 0 || grow_cpus(an, ev->cpu) < 0)
		return ev->cpu < 0 ? 0 : -1;
	c = &an->cpu[ev->cpu];
	an->events++;
	if (an->first_ts < 0)
		an->first_ts = ev->ts;
	if (ev->ts > an->last_ts)
		an->last_ts = ev->ts;
	/* A record written by a task that no switch put on this CPU: an untraced switch-in. A sched_switch
	 * record counts too when the CPU is idle for us (a task woken from idle that runs to its switch-out
	 * without writing anything else, e.g. a FIFO loop that spins and sleeps: its time is its own, and
	 * not the idle task's, for whoever was woken with it and waits behind it). */
	if (ev->kind == JL_EVENT_SWITCH && ev->prev_pid == 0 && ev->pid > 0)
		c->idle_exit_traced = true; /* from now on, never infer a switch out of idle on this CPU */
	if (ev->has_cur && ev->kind != JL_EVENT_LOST &&
	    (ev->kind != JL_EVENT_SWITCH ? !c->known || (c->pid != ev->cur && (c->pid != 0 || !c->idle_exit_traced))
				       : c->seen && c->known && c->pid == 0 && ev->cur > 0 && !c->idle_exit_traced) &&
	    implicit_switch(an, ev->cpu, ev->ts, ev->cur) < 0)
		return -1;

	switch (ev->kind) {
	case JL_EVENT_SWITCH:
		/* the record says who ran up to now: its prio and name hold for the piece it closes (a task
		 * whose switch-in was inferred may have had them guessed) */
		if (c->known && c->pid == ev->prev_pid && ev->prev_pid > 0) {
			c->kprio = ev->prev_prio;
			if (ev->prev_comm[0] && !jl_event_same(c->comm, ev->prev_comm)) {
				jl_event_copy(c->comm, sizeof(c->comm), ev->prev_comm, sizeof(ev->prev_comm));
				c->comm_ok = false;
			}
		}
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		/* the RT queue set aside: a lower task (or idle) is switched in while an RT task that was switched
		 * out here still runnable has not run since (it, or the task leaving now) */
		if (ev->prev_pid > 0 && ev->prev_prio < 100 && (ev->prev_state & ~0x100LL) == 0)
			c->rt_preempted = ev->prev_pid;
		if (ev->pid == c->rt_preempted)
			c->rt_preempted = 0;
		if (ev->prio >= 100 && c->rt_preempted > 0)
			c->rt_set_aside = ev->ts;
		else if (ev->pid > 0 && ev->prio < 100)
			c->rt_set_aside = 0;
		ti = jl_analysis_thread_of(an, ev->prev_pid);
		if (ti >= 0) {
			an->threads[ti].switch_out++;
			an->pending[ti] = 0; /* switched out before its switch-in: drop the wake */
			/* prev_state 0 (R) or only the preempted bit: still runnable; anything else: it blocked */
			if (note_state(an, ti, ev->ts, ev->cpu,
				       (ev->prev_state & ~0x100LL) == 0 ? JL_TS_PREEMPTED : JL_TS_BLOCKED, 0, -1, NULL) < 0)
				return -1;
		}
		/* a task's last switch-out (prev_state EXIT_DEAD or EXIT_ZOMBIE, after its sched_process_exit)
		 * does not bring it back into the table */
		if (!(ev->prev_state & 0x30) || task_find(an, ev->prev_pid))
			task_note(an, ev->prev_pid, ev->prev_prio, ev->prev_comm);
		{
			const struct jl_analysis_task *k = task_note(an, ev->pid, ev->prio, ev->comm);

			c->known = true;
			c->depth = 0;
			c->pid = ev->pid;
			c->kprio = ev->prio;
			jl_event_copy(c->comm, sizeof(c->comm), ev->comm, sizeof(ev->comm));
			/* the task's id when the record names it as the table does */
			c->comm_ok = k && jl_event_same(k->comm, c->comm);
			c->comm_id = c->comm_ok ? k->name_id : 0;
		}
		ti = jl_analysis_thread_of(an, ev->pid);
		if (ti >= 0 && note_state(an, ti, ev->ts, ev->cpu, JL_TS_IN, 0, -1, NULL) < 0)
			return -1;
		if (ti >= 0) {
			an->threads[ti].switch_in++;
			if (an->pending[ti] && an->threads[ti].measured) {
				struct jl_pair p = an->pending_pair[ti];

				p.waking = an->pending[ti];
				p.switch_in = ev->ts;
				p.pid = ev->pid;
				p.cpu = ev->cpu;
				p.wake_cpu = an->pending_cpu[ti];
				p.kprio = an->pending_prio[ti];
				p.new_task = an->pending_new[ti];

				if (add_pair(an, ti, &p) < 0)
					return -1;
			}
			an->pending[ti] = 0;
		}
		break;
	case JL_EVENT_WAKING:
	case JL_EVENT_WAKEUP_NEW:
		task_note(an, ev->pid, ev->prio, ev->comm);
		if (task_find(an, ev->pid))
			task_find(an, ev->pid)->last_waking = ev->ts;
		ti = jl_analysis_thread_of(an, ev->pid);
		if (ti < 0)
			break;
		an->threads[ti].wakings++;
		if (an->pending[ti] || running_somewhere(an, ev->pid))
			break; /* first waking counts; a waking while running is no wakeup */
		if (note_waker(an, ti, ev) < 0)
			return -1;
		an->pending[ti] = ev->ts;
		an->pending_cpu[ti] = ev->cpu;
		an->pending_new[ti] = ev->kind == JL_EVENT_WAKEUP_NEW;
		an->pending_prio[ti] = ev->prio;
		note_wake_cause(an, ti, ev);
		break;
	case JL_EVENT_IRQ_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		if (ev->pid >= 0 && ev->pid < JL_ANALYSIS_IRQS && ev->comm[0] && !an->irq_name[ev->pid])
			an->irq_name[ev->pid] = intern(an, ev->comm);
		if (ev->pid >= 0)
			snprintf(name, sizeof(name), "%d %s", ev->pid, ev->comm);
		else
			snprintf(name, sizeof(name), "%s", ev->comm); /* an IPI handler: "IPI reschedule" */
		push_ctx(an, c, ev->pid < 0 ? JL_PART_IPI : JL_PART_IRQ, ev->pid, name);
		break;
	case JL_EVENT_SOFTIRQ_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		push_ctx(an, c, JL_PART_SOFTIRQ, ev->pid,
			 ev->pid >= 0 && ev->pid < 10 ? softirq_names[ev->pid] : "?");
		break;
	case JL_EVENT_TIMER_ENTRY:
		if (close_seg(an, ev->cpu, ev->ts) < 0 || note_bandwidth_timer(an, ev) < 0)
			return -1;
		snprintf(name, sizeof(name), "hrtimer %s", ev->comm);
		push_ctx(an, c, JL_PART_IRQ, -1, name);
		if (c->depth <= CTX_DEPTH) {
			c->stack[c->depth - 1].timer = ev->arg;
			c->stack[c->depth - 1].entry = ev->ts;
			c->stack[c->depth - 1].now = ev->expires;
		}
		break;
	case JL_EVENT_IRQ_EXIT:
	case JL_EVENT_SOFTIRQ_EXIT:
	case JL_EVENT_TIMER_EXIT:
		if (close_seg(an, ev->cpu, ev->ts) < 0)
			return -1;
		pop_ctx(c);
		break;
	case JL_EVENT_LOST: {
		/* nothing is known since the CPU's last record: close its timeline there, not at the gap's end */
		int64_t from = c->seen && c->last_ts >= c->seg_start ? c->last_ts : ev->ts;
		struct jl_analysis_gap g = { .from = from, .to = ev->ts, .cpu = ev->cpu,
					.lost = ev->prev_state > 0 ? (uint64_t)ev->prev_state : 0 };

		if (c->seen && from < ev->ts) {
			if (close_seg(an, ev->cpu, from) < 0 ||
			    push_seg(an, ev->cpu, from, ev->ts, JL_PART_LOST, -1, 0, literal(an, "lost events")) < 0)
				return -1;
			c->seg_start = ev->ts;
		} else if (close_seg(an, ev->cpu, ev->ts) < 0) {
			return -1;
		}
		if (append(&an->gaps, &an->ngaps, &an->capgaps, &g, sizeof(g)) < 0)
			return -1;
		an->lost_gaps++;
		if (ev->prev_state > 0)
			an->lost_events += (uint64_t)ev->prev_state;
		for (int i = 0; i < an->nthreads; i++)
			an->pending[i] = 0;
		c->known = false;
		c->depth = 0;
		break;
	}
	case JL_EVENT_MARK:
		an->markers++;
		break;
	case JL_EVENT_PROBE: {
		struct jl_analysis_probe p = { .ts = ev->ts, .release = ev->expires, .pid = ev->cur, .kind = ev->mark_thread,
					  .cpu = ev->cpu };

		snprintf(p.name, sizeof(p.name), "%s", ev->comm);
		if (ev->cur > 0 && append(&an->probes, &an->nprobes, &an->capprobes, &p, sizeof(p)) < 0)
			return -1;
		break;
	}
	case JL_EVENT_EXIT:
		/* a task that exits leaves the table (its pid may come back as another task); the current
		 * task of no CPU is it any more once it has switched out (sched_switch follows) */
		task_forget(an, ev->pid);
		break;
	case JL_EVENT_FORK:
	case JL_EVENT_NEWTASK: {
		struct jl_analysis_birth b = { .pid = ev->pid, .parent = ev->prev_pid,
					  .thread = ev->kind == JL_EVENT_NEWTASK && (ev->arg & 0x10000) };


		if (ev->pid > 0 && append(&an->births, &an->nbirths, &an->capbirths, &b, sizeof(b)) < 0)
			return -1;
		if (ev->pid > 0 && task_slot(an, ev->pid))
			task_slot(an, ev->pid)->birth = an->nbirths;
		break;
	}
	case JL_EVENT_TIMER_START:
		if (ev->arg) {
			struct jl_analysis_armed *a = armed_slot(an, ev->arg);

			a->timer = ev->arg;
			a->expires = ev->expires;
			a->soft = ev->softexpires;
		}
		break;
	case JL_EVENT_MIGRATE:
		for (int k = 0; k < an->ncpus; k++) /* moved away: it no longer waits on that CPU */
			if (an->cpu[k].rt_preempted == ev->pid && k != ev->target_cpu)
				an->cpu[k].rt_preempted = 0;
		ti = jl_analysis_thread_of(an, ev->pid);
		if (ti >= 0 && note_state(an, ti, ev->ts, ev->target_cpu, JL_TS_MIGRATED, 0, ev->cur, NULL) < 0)
			return -1;
		if (ti >= 0 && an->threads[ti].measured)
			an->threads[ti].states[an->threads[ti].nstates - 1].rec_cpu = ev->cpu;
		break;
	case JL_EVENT_PI_SETPRIO:
		/* a priority-inheritance change: a boost raises the task (a lower kernel prio), the undo lowers it */
		ti = jl_analysis_thread_of(an, ev->pid);
		if (ti >= 0 && ev->prio < ev->prev_prio) {
			an->threads[ti].boosts++;
			if (!an->threads[ti].boost_prio || ev->prio < an->threads[ti].boost_prio)
				an->threads[ti].boost_prio = ev->prio;
		}
		/* written by the waiter as it blocks on the holder's lock (rt_mutex): what it lent, to whom */
		ti = ev->has_cur ? jl_analysis_thread_of(an, ev->cur) : -1;
		if (ti >= 0 && an->threads[ti].measured && ev->prio < ev->prev_prio && ev->pid != ev->cur &&
		    an->threads[ti].nlent < JL_ANALYSIS_LENT_MAX) {
			struct jl_analysis_lent l = { .ts = ev->ts, .holder = ev->pid, .kprio = ev->prio };

			if (append(&an->threads[ti].lent, &an->threads[ti].nlent, &an->threads[ti].caplent, &l,
				   sizeof(l)) < 0)
				return -1;
		}
		break;
	case JL_EVENT_IPI:
		/* the unthrottle reaches a throttled CPU as an IPI sent from sched_rt_period_timer: evidence even
		 * when hrtimer events are recorded on the measured CPUs only */
		if (!strncmp(ev->prev_comm, "sched_rt_period_timer", 21)) {
			struct jl_analysis_mark m = { .ts = ev->ts, .cpu = ev->target_cpu };

			if (append(&an->rt_unthrottle, &an->n_rt_unthrottle, &an->cap_rt_unthrottle, &m, sizeof(m)) < 0)
				return -1;
		}
		break;
	default:
		break;
	}
	c->last_ts = ev->ts;
	return an->prune_ops ? an->prune_ops->compact(an, ev->ts) : 0;
}

int64_t jl_analysis_timeline_closed(const struct jl_analysis *an, int64_t now)
{
	int64_t t = now;

	for (int c = 0; c < an->ncpus; c++) {
		const struct jl_analysis_cpu *x = &an->cpu[c];

		/* an idle CPU's open piece holds nobody back (no task waits behind idle): a tickless CPU may
		 * record nothing for minutes */
		if (!x->seen || (x->known && x->pid == 0 && x->depth == 0))
			continue;
		if (x->seg_start < t)
			t = x->seg_start;
	}
	return t;
}

void jl_analysis_end(struct jl_analysis *an)
{
	for (int c = 0; c < an->ncpus; c++)
		if (an->cpu[c].seen)
			close_seg(an, c, an->last_ts);
}

int jl_analysis_run(struct jl_analysis *an, struct jl_event *ev, size_t n)
{
	if (jl_event_sort(ev, n) < 0)
		return -1;
	for (size_t i = 0; i < n; i++)
		if (jl_analysis_feed(an, &ev[i]) < 0)
			return -1;
	jl_analysis_end(an);
	return 0;
}

void jl_analysis_set_irq_name(struct jl_analysis *an, int n, const char *name)
{
	if (n >= 0 && n < JL_ANALYSIS_IRQS && name && name[0])
		an->irq_name[n] = intern(an, name);
}
