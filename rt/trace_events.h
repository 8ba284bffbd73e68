/* trace_events: the pure model of a scheduling trace and the wakeup analysis built on it.
 * Input: events (sched switch/waking/wakeup_new/migrate, irq, softirq, hrtimer, markers, lost-event
 * gaps) in any order; they are merged by timestamp (stable) before anything else. Output: wakeup pairs
 * (sched_waking -> switch-in) per analysed pid, per-CPU timeline segments, and for each measured cycle
 * the decomposition of its latency (timer or idle exit, waiting behind tasks/IRQs/softirqs, return).
 * It never touches the machine, tracefs or files: unit tests feed it hand-written sequences. */
#ifndef JL_TRACE_EVENTS_H
#define JL_TRACE_EVENTS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_TEV_COMM 24

enum jl_tev_kind {
	JL_TEV_SWITCH,        /* prev_* -> pid (next) on cpu */
	JL_TEV_WAKING,        /* sched_waking of pid (recorded on the waker's cpu) */
	JL_TEV_WAKEUP_NEW,    /* sched_wakeup_new of pid */
	JL_TEV_WAKEUP,        /* sched_wakeup (informational) */
	JL_TEV_MIGRATE,       /* pid moved to target_cpu */
	JL_TEV_IRQ_ENTRY,     /* pid = irq number, comm = handler name */
	JL_TEV_IRQ_EXIT,
	JL_TEV_SOFTIRQ_ENTRY, /* pid = vector */
	JL_TEV_SOFTIRQ_EXIT,
	JL_TEV_TIMER_ENTRY,   /* hrtimer_expire_entry, comm = function */
	JL_TEV_TIMER_EXIT,
	JL_TEV_MARK,          /* jitterlab marker: mark_thread, mark_cycle */
	JL_TEV_LOST,          /* events were lost on cpu before ts */
	JL_TEV_OTHER,
};

struct jl_tev {
	int64_t ts;
	int32_t cpu;
	int32_t kind;         /* enum jl_tev_kind */
	bool has_cur;         /* cur is known (every real record has it: common_pid) */
	int32_t cur;          /* the task running on cpu when the record was written (0 = idle) */
	int32_t pid;          /* subject: woken/next/migrated pid, irq number, softirq vector */
	int32_t prio;         /* kernel prio of pid (99 - rt_priority for RT, 120 + nice for CFS, -1 DL) */
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	int32_t target_cpu;   /* waking: target_cpu; migrate: dest_cpu */
	int32_t mark_thread;
	uint64_t mark_cycle;
	char comm[JL_TEV_COMM];      /* subject comm / irq name / timer function */
	char prev_comm[JL_TEV_COMM];
};

/* The parts a cycle's latency is made of (contract: outputs.md trace.worst[].parts[].kind). A task is
 * kind "task" (it blocked the wakeup) unless the woken task is real-time (RT or DEADLINE) and the task has
 * a lower priority: then it only ran until the kernel preempted it, and is kind "other", named
 * "preempting NAME" (the cost is the preemption path or a non-preemptible section, not that task's right
 * to the CPU). For a CFS task woken, every task that ran first is a "task" (fair share). */
enum jl_part_kind { JL_PART_IRQ, JL_PART_SOFTIRQ, JL_PART_TASK, JL_PART_TIMER, JL_PART_IDLE_EXIT, JL_PART_OTHER };
const char *jl_part_kind_name(enum jl_part_kind k);

struct jl_part {
	enum jl_part_kind kind;
	char name[72];
	int32_t pid;          /* task pid, irq number, softirq vector, -1 otherwise */
	int32_t kprio;        /* kernel prio for tasks, 0 otherwise */
	char policy[24];      /* tasks: "FIFO 90" (known thread) or derived from kprio ("RT 90", "CFS nice 0") */
	int64_t duration_ns;
};

#define JL_MAX_PARTS 16

struct jl_pair {
	int64_t waking, switch_in;  /* ts of sched_waking (or wakeup_new) and of the switch-in */
	int32_t pid, cpu, wake_cpu; /* cpu of the switch-in; cpu the waking was recorded on */
	int32_t kprio;              /* the woken task's kernel prio (from the waking record) */
	bool new_task;
	bool implicit;              /* no sched_switch record: switch_in is the first record the task wrote
				     * on cpu (an upper bound; refined to the sample's wake time if earlier) */
};

/* One analysed thread: a pid, its name, and (optionally) its samples. */
struct jl_tan_sample {
	int64_t release, wake;
	uint64_t cycle;
};

struct jl_tan_thread {
	char name[64];
	int32_t pid;
	bool measured;               /* analysed (pairs, cycles); others only lend their name and policy */
	char policy[24];             /* "FIFO 90", "CFS nice 0": how to present it ("" = derive from prio) */
	const struct jl_tan_sample *samples; /* may be NULL: then only the wakeup pairs are analysed */
	size_t nsamples;
	/* results */
	struct jl_pair *pairs;
	size_t npairs, cap;
	size_t switch_in, switch_out, wakings; /* sched_switch records (in = next_pid, out = prev_pid) */
	size_t implicit_in;          /* switch-ins seen only as the task's first record on a CPU */
	size_t measured_samples;     /* samples with release >= from */
	size_t matched;              /* of those, matched to a wakeup pair */
};

struct jl_cycle {
	int thread;                  /* index into threads */
	uint64_t cycle;
	int64_t latency_ns;          /* sample latency (wake - release), or wakeup latency without samples */
	int64_t release, waking, switch_in, wake;
	int cpu;
	bool implicit;               /* the switch-in had no sched_switch record */
	int nparts;
	struct jl_part parts[JL_MAX_PARTS];
};

struct jl_segment {
	int64_t start, end;
	int32_t kind;                /* enum jl_part_kind: TASK, IRQ, SOFTIRQ, OTHER (hrtimer callbacks: IRQ) */
	int32_t pid, kprio;
	char name[JL_TEV_COMM + 8];
};

struct jl_tan_cpu;
struct jl_tan_task;

struct jl_tan {
	int nthreads;
	struct jl_tan_thread *threads;
	int ncpus;
	struct jl_segment **segs;    /* per CPU timeline: non-overlapping pieces */
	size_t *nsegs, *capsegs;
	size_t events, lost_gaps;
	uint64_t lost_events;        /* sum of the gaps' counts where known */
	size_t markers;
	int64_t first_ts, last_ts;
	struct jl_tan_cpu *cpu;      /* per-CPU running state (private) */
	int64_t *pending;            /* per thread: ts of the pending waking, 0 = none */
	int32_t *pending_cpu;
	int32_t *pending_prio;
	bool *pending_new;
	struct jl_tan_task *tasks;   /* pid -> last known prio and comm (private hash) */
	size_t implicit_switches;    /* switches inferred from common_pid (the kernel did not record them) */
};

/* Index of the thread with PID in AN->threads, or -1. */
int jl_tan_thread_of(const struct jl_tan *an, int32_t pid);

/* Sort EV[0..N) by timestamp, stable (events of one CPU keep their order on equal timestamps). */
int jl_tev_sort(struct jl_tev *ev, size_t n);

/* Set up AN for NTHREADS threads (names/pids/samples copied by reference from THREADS) and NCPUS. */
int jl_tan_init(struct jl_tan *an, const struct jl_tan_thread *threads, int nthreads, int ncpus);
/* Feed one event; events must come in timestamp order (jl_tev_sort, or a merged reader). */
int jl_tan_feed(struct jl_tan *an, const struct jl_tev *ev);
/* Close open segments at the last timestamp. Call once after the last event. */
void jl_tan_end(struct jl_tan *an);
/* Convenience: sort EV, feed them all and end. */
int jl_tan_run(struct jl_tan *an, struct jl_tev *ev, size_t n);
void jl_tan_free(struct jl_tan *an);

/* Decompose one wakeup: RELEASE (0 = unknown: the wakeup latency is the whole), the pair, and WAKE
 * (user-space wake time, 0 = unknown). Fills C's parts and timestamps. */
void jl_tan_decompose(const struct jl_tan *an, const struct jl_pair *p, int64_t release, int64_t wake,
		      struct jl_cycle *c);

/* Match thread TI's samples with release >= FROM to pairs; fills matched counts. For the N worst matched
 * cycles across all threads (by sample latency; without samples: by wakeup latency of pairs with
 * waking >= FROM), fill OUT[0..*nout) decomposed, worst first. */
int jl_tan_worst(struct jl_tan *an, int64_t from, struct jl_cycle *out, int n, int *nout);

/* Wakeup latencies (switch_in - waking) of thread TI's pairs with waking >= FROM, unsorted, malloc'd. */
int64_t *jl_tan_wakeups(const struct jl_tan *an, int ti, int64_t from, size_t *n);

/* Main culprit of a cycle: index of the task part with the longest duration (not idle), or -1. */
int jl_cycle_culprit(const struct jl_cycle *c);

/* "control cycle 812: 331 us = timer 5 us + waited 318 us behind scan.0 (pid 4321, FIFO 90) + ..." */
void jl_cycle_format(const struct jl_cycle *c, const char *thread, char *buf, size_t len);

/* Policy text of a kernel prio: "FIFO 90"-style for RT (we cannot tell FIFO from RR: "RT 90"),
 * "CFS nice 0", "DL". */
void jl_kprio_format(int kprio, char *buf, size_t len);

#endif
