/* analysis_int: what the analysis' own files (analysis.c, tasks.c, timeline.c, feed.c) share of its
 * private state: each CPU's running state and context stack, the task table, the armed hrtimers. Never
 * included outside rt/trace/analysis. */
#ifndef JL_TRACE_ANALYSIS_INT_H
#define JL_TRACE_ANALYSIS_INT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "analysis.h"

#define CTX_DEPTH 8

struct ctx {
	int32_t kind, pid;
	char name[JL_EVENT_COMM + 8];
	uint32_t name_id;     /* intern(name) */
	uint64_t timer;       /* an hrtimer callback: its address, when it began and the interrupt's now */
	int64_t entry, now;   /* entry: also a local timer interrupt's (LOC) */
	/* an hrtimer callback: the timer as hrtimer_start armed it (armed false: its arming is not in the
	 * trace), and the local timer interrupt that delivered its expiry (0: not known); soft: it ran in
	 * HRTIMER_SOFTIRQ (ktimers/N on PREEMPT_RT), not in the interrupt */
	bool armed, soft;
	int32_t armer, mode;
	int64_t expires, softexpires, irq;
};

#define ARMED_HASH 4096

/* An hrtimer as hrtimer_start last armed it. */
struct jl_analysis_armed {
	uint64_t timer;
	int64_t expires, soft;
	int32_t pid;          /* the task that armed it (common_pid; -1 unknown): sleepers keep their timers on
			       * the stack, so one address serves many tasks */
	int32_t mode;         /* hrtimer_start's mode: JL_HRTIMER_MODE_* */
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
	/* HRTIMER_SOFTIRQ raised here and not yet run: the local timer interrupt that raised it (the raise
	 * itself outside one), 0 none; the raise the running soft expiry pass took */
	int64_t hrtimer_raise, hrtimer_pass;
};


/* analysis.c: AN's per-CPU arrays grown to hold CPU. 0 or -1. */
int jl_analysis_grow_cpus(struct jl_analysis *an, int cpu);

/* tasks.c: the task table (pid -> last known prio, comm, waking, birth) and the names interned. */
static inline size_t jl_task_home(const struct jl_analysis *an, int32_t pid)
{
	return (size_t)((uint32_t)pid * 2654435761u) & (an->task_cap - 1);
}

static inline struct jl_analysis_task *jl_task_find(const struct jl_analysis *an, int32_t pid)
{
	for (size_t i = jl_task_home(an, pid), n = 0; pid > 0 && an->tasks && n < an->task_cap; i = (i + 1) & (an->task_cap - 1), n++) {
		if (an->tasks[i].pid == pid)
			return &an->tasks[i];
		if (an->tasks[i].pid == 0)
			break;
	}
	return NULL;
}
/* PID's slot, made if new (NULL: out of memory, or PID is the idle task). */
struct jl_analysis_task *jl_task_slot(struct jl_analysis *an, int32_t pid);
/* PID's slot with KPRIO and COMM (NULL or "": the comm it had). */
struct jl_analysis_task *jl_task_note(struct jl_analysis *an, int32_t pid, int32_t kprio, const char *comm);
/* PID exited: out of the table (its comm stays with its birth). */
void jl_task_forget(struct jl_analysis *an, int32_t pid, int64_t ts);
/* Forget the births GONE(AN, birth, CTX) says nobody will ask about (their order kept; the live tasks'
 * indices into them follow). A failed allocation forgets nothing. */
void jl_task_births_forget(struct jl_analysis *an,
			   bool (*gone)(const struct jl_analysis *an, const struct jl_analysis_birth *b, const void *ctx),
			   const void *ctx);
/* NAME's id (jl_analysis_name), stored once. */
uint32_t jl_name_intern(struct jl_analysis *an, const char *name);
/* The id of LIT, a string constant (its address stands for it: interned once). */
uint32_t jl_name_literal(struct jl_analysis *an, const char *lit);

/* timeline.c: each CPU's timeline. Close the piece that ends at TS (whatever is on top of the CPU's
 * context stack), push one, enter and leave an interrupt context. */
int jl_timeline_push(struct jl_analysis *an, int cpu, int64_t start, int64_t end, int kind, int pid, int kprio,
		     uint32_t name);
int jl_timeline_close(struct jl_analysis *an, int cpu, int64_t ts);
void jl_timeline_push_ctx(struct jl_analysis *an, struct jl_analysis_cpu *c, int kind, int pid, const char *name);
static inline void jl_timeline_pop_ctx(struct jl_analysis_cpu *c)
{
	if (c->depth > 0)
		c->depth--;
}

static inline struct jl_analysis_armed *jl_armed_slot(struct jl_analysis *an, uint64_t timer)
{
	return &an->armed[(timer >> 3) * 11400714819323198485ull >> 52]; /* 4096 slots; a collision overwrites */
}

#endif
