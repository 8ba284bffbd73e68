/* analysis: the pure model of a scheduling trace and the wakeup analysis built on it.
 * Input: events (sched switch/waking/wakeup_new/migrate, irq, softirq, hrtimer, markers, lost-event
 * gaps) in any order; they are merged by timestamp (stable) before anything else. Output: wakeup pairs
 * (sched_waking -> switch-in) per analysed pid, per-CPU timeline segments, and for each measured cycle
 * the decomposition of its latency (timer or idle exit, waiting behind tasks/IRQs/softirqs, return).
 * It never touches the machine, tracefs or files: unit tests feed it hand-written sequences. */
#ifndef JL_TRACE_ANALYSIS_H
#define JL_TRACE_ANALYSIS_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "event.h"
#include "parts.h"

struct jl_pair {
	int64_t waking, switch_in;  /* ts of sched_waking (or wakeup_new) and of the switch-in */
	int32_t pid, cpu, wake_cpu; /* cpu of the switch-in; cpu the waking was recorded on */
	int32_t kprio;              /* the woken task's kernel prio (from the waking record) */
	bool new_task;
	bool caught_running;        /* woken by its own timer while still on CPU (a trace-only thread, feed.c):
				     * no switch; switch_in is the waking */
	bool implicit;              /* no sched_switch record: switch_in is the first record the task wrote
				     * on cpu (an upper bound; refined to the sample's wake time if earlier) */
	bool matched;               /* paired with a sample's release (jl_analysis_match) */
	int32_t queue_cpu;          /* the runqueue it was woken onto (sched_waking's target_cpu) */
	int32_t waker_pid;          /* the task that woke it (the waking recorded in its context, no IRQ), -1 */
	/* the hrtimer whose expiry woke it (timer group recorded), else timer_cpu = -1 */
	int32_t timer_cpu;
	int64_t timer_entry;        /* hrtimer_expire_entry of it */
	int64_t timer_now;          /* the interrupt's `now` */
	int64_t timer_expires, timer_soft; /* as armed (hrtimer_start), on the timer's clock; 0 = its start was
					    * not seen */
	int64_t timer_irq;          /* the local timer interrupt that delivered the expiry (for a soft timer:
				     * that raised HRTIMER_SOFTIRQ), 0 = not recorded */
	bool timer_in_softirq;      /* it expired in HRTIMER_SOFTIRQ (ktimers/N on PREEMPT_RT), not the IRQ */
	int32_t timer_runner;       /* the task the expiry ran in (ktimers/N; the interrupted task, or 0) */
	int32_t timer_armer;        /* the task that armed it (as armed), -1 unknown */
	int32_t timer_mode;         /* as armed: JL_HRTIMER_MODE_* */
	uint32_t timer_fn;          /* its callback's name (jl_analysis_name: "hrtimer hrtimer_wakeup") */
	int32_t timer_clock;        /* the clock it ran on (enum jl_timer_clock): its times above are converted
				     * to the trace's; JL_TIMER_CLOCK_UNPLACED: they could not be (left 0) */
};

/* The clock an hrtimer runs on, told by its expiry's `now` against the trace clock (CLOCK_MONOTONIC). */
enum jl_timer_clock { JL_TIMER_CLOCK_MONOTONIC, JL_TIMER_CLOCK_BOOTTIME, JL_TIMER_CLOCK_REALTIME, JL_TIMER_CLOCK_TAI,
		      JL_TIMER_CLOCK_UNPLACED };

/* The other clocks as offsets from CLOCK_MONOTONIC (the trace clock), which the caller reads at the start of
 * the recording (known) and again at its end (stepped: they moved, a clock_settime or a resume: a timer on
 * them is not placed). Without them only CLOCK_MONOTONIC (and BOOTTIME without a suspend) timers are. */
struct jl_analysis_clocks {
	bool known, stepped;
	int64_t realtime, tai, boottime;
};

/* Why a wakeup was measured from its waking, not from its timer (the sample says which: jl_sample.release_by): */
enum jl_release_why {
	JL_RELEASE_WHY_TIMER,       /* it was not: its timer gave the release */
	JL_RELEASE_WHY_NOT_TIMER,   /* not woken by a timer of its own (a task, an IRQ, the tick, a message) */
	JL_RELEASE_WHY_UNARMED,     /* woken by its timer, whose arming the trace does not hold (it began mid-sleep,
				     * events lost, the timer group not recorded on the CPU it armed it on) */
	JL_RELEASE_WHY_CLOCK,       /* its timer runs on a clock the run could not place on the trace's */
};

/* The release of wakeup P of thread PID: the requested expiry (softexpires, on the trace clock) of the hrtimer
 * whose expiry woke it, where that timer is one a program sleeps on (a sleeper's: nanosleep, clock_nanosleep,
 * the timeouts of poll/select/epoll/futex, armed by PID itself; timerfd, POSIX and itimer timers, armed by
 * any thread) and its arming is in the trace; else 0 and *WHY says why (the caller measures from the
 * waking). Pure. */
int64_t jl_analysis_release(const struct jl_analysis *an, const struct jl_pair *p, int *why);
/* The offset (a clock's time - the trace's) of the clock whose expiry pass read NOW at trace time ENTRY,
 * into *OFF and its enum jl_timer_clock returned; JL_TIMER_CLOCK_UNPLACED when none fits. */
int jl_analysis_timer_clock(const struct jl_analysis *an, int64_t now, int64_t entry, int64_t *off);

/* What happened to an analysed thread, in order: the response window (wake -> end of work) is read from
 * these. */
enum jl_tstate_what { JL_TS_IN, JL_TS_PREEMPTED, JL_TS_BLOCKED, JL_TS_WOKEN, JL_TS_MIGRATED };

struct jl_tstate {
	int64_t ts;
	int32_t cpu;                /* where it is (MIGRATED: the CPU it was moved to) */
	int32_t rec_cpu;            /* the CPU the record was written on */
	int32_t what;               /* enum jl_tstate_what */
	int32_t by_kind;            /* WOKEN: who woke it: JL_PART_TASK, IRQ, SOFTIRQ (hrtimers are IRQ) */
	int32_t by_pid;             /* the waking task's pid, the IRQ number or the softirq vector, -1 */
	uint32_t by;                /* its name (jl_analysis_name: "an IRQ (irq events not recorded)" when the irq
				     * group is off) */
};

/* One analysed thread: a pid, its name, and (optionally) its samples. */
struct jl_analysis_sample {
	int64_t release, wake;
	int64_t end;                 /* end of the cycle's work (0 = unknown: no response window) */
	bool miss;                   /* its work ended after release + deadline */
	uint64_t cycle;
	int32_t tid;                 /* the thread that ran it (a pool's callback: any of the pool's) */
};

struct jl_analysis_thread {
	char name[64];
	int32_t pid;
	bool measured;               /* analysed (pairs, cycles); others only lend their name and policy */
	char policy[24];             /* "FIFO 90", "CFS nice 0": how to present it ("" = derive from prio) */
	const struct jl_analysis_sample *samples; /* may be NULL: then only the wakeup pairs are analysed */
	size_t nsamples;
	bool partial;                /* the samples are the cycles a long run kept (a ring's), not all of them */
	bool sampled;                /* its cycles are samples of its own (a loop's, a callback's), given here or
				      * streamed to a live analysis' matcher (samples NULL then): a cycle may
				      * begin after the thread's switch-in (jl_analysis_decompose_cycle) */
	/* results */
	struct jl_pair *pairs;
	size_t npairs, cap;
	size_t switch_in, switch_out, wakings; /* sched_switch records (in = next_pid, out = prev_pid) */
	size_t pairs_forgotten;      /* a pruned analysis: the pairs it counted and did not keep */
	size_t implicit_in;          /* switch-ins seen only as the task's first record on a CPU */
	size_t caught_running;       /* cycles whose timer woke it while it was still on a CPU (trace-only threads:
				      * a release due before it slept; its switch-in is the waking) */
	size_t measured_samples;     /* samples with release >= from */
	size_t matched;              /* of those, matched to a wakeup pair */
	struct jl_tstate *states;    /* measured threads: switch-ins, switch-outs, wakings, in order */
	size_t nstates, capstates;
	long *sample_pair;           /* per sample: its pair (jl_analysis_match), -1 when unmatched */
	int executor;                /* > 0: a callback (or a pool thread, `pool`) of the executor of this id (0:
				      * none): a late start is first the executor's other callbacks that ran (their
				      * samples), then the wakeup of the thread that ran it */
	int pool_size;               /* a callback: its executor's threads (1: single-threaded, its pid the one) */
	int group;                   /* a callback: its mutually exclusive group (-1: reentrant) */
	uint64_t boosts;             /* sched_pi_setprio events that raised it (priority inheritance) */
	int32_t boost_prio;          /* the highest (lowest kernel) priority a boost gave it (0: none) */
	/* the priorities this (measured) thread lent through a PI lock it blocked on (sched_pi_setprio written by
	 * it: the holder raised to its priority), in time order, at most JL_ANALYSIS_LENT_MAX */
	struct jl_analysis_lent *lent;
	size_t nlent, caplent;
	bool pool;                   /* a pool thread of a multi-threaded executor: its wakeups and states are
				      * analysed for the callbacks it ran, never listed as cycles of its own */
	bool requests;               /* with `executor`: a probed server's request series (its "callbacks") or
				      * worker (its `pool`): the pool is the threads that served its requests, a
				      * run inside another of the same worker is a call made while serving it */
	int owner;                   /* the entry the events of this pid go to (the first measured entry with
				      * the pid, else the first): jl_analysis_match gives every other entry of the
				      * same thread (two series written by one thread) a copy of its pairs and
				      * states */
};

enum jl_window { JL_WINDOW_WAKEUP, JL_WINDOW_RESPONSE };

struct jl_cycle {
	int thread;                  /* index into threads */
	int32_t tid;                 /* the thread that ran it, when the entry's pid is none (a pool's callback) */
	uint64_t cycle;
	int window;                  /* enum jl_window: what the parts explain */
	int64_t latency_ns;          /* sample latency (wake - release), or the wakeup latency without samples;
				      * a response window's length is end - release */
	int64_t release, waking, switch_in, wake, end;
	bool miss;
	bool lost_in_window;         /* a gap of lost events overlaps [release or waking, wake or end) */
	int migrations;              /* runqueue moves between the waking and the switch-in */
	int cpu;
	bool implicit;               /* the switch-in had no sched_switch record */
	int release_by;              /* how release was found (enum jl_release_by: the series' own; a trace-only
				      * cycle's timer, or its waking) */
	int nparts;
	struct jl_part parts[JL_MAX_PARTS];
};

#define JL_ANALYSIS_NAME_MAX (JL_EVENT_COMM + 32)

struct jl_segment {
	int64_t start, end;
	int32_t kind;                /* enum jl_part_kind: TASK, IRQ, SOFTIRQ, OTHER (hrtimer callbacks: IRQ) */
	int32_t pid, kprio;
	uint32_t name;               /* jl_analysis_name */
};

struct jl_analysis_cpu;
struct jl_analysis_task;

/* RT bandwidth as the kernel is set (defaults: sched_rt_runtime_us 950000 of 1000000; the fair server
 * 50 ms of 1 s per CPU). The caller sets them (jl_analysis_init fills the defaults). */
struct jl_analysis_budget {
	int64_t rt_runtime_ns, rt_period_ns;  /* rt_runtime_ns < 0: unlimited */
	int64_t fair_runtime_ns, fair_period_ns;
	bool fair_server;            /* the kernel has one (Linux 6.12 and later) */
	bool fair_known;             /* runtime/period read from debugfs (else the defaults) */
};

/* Evidence of RT bandwidth control in the trace: expiries of the timers that end RT throttling
 * (sched_rt_period_timer, any CPU) and start the fair server (dl_task_timer, on its CPU). */
struct jl_analysis_mark {
	int64_t ts;
	int32_t cpu;
};

struct jl_analysis_gap {
	int64_t from, to;            /* nothing is known on cpu in [from, to) */
	int32_t cpu;
	uint64_t lost;               /* events lost there, where the kernel counted them */
};
/* A probe record, as written by a probed program (include/jitterlab/probe.h) */
struct jl_analysis_probe {
	int64_t ts;                  /* when it was written: a wake's start, an end */
	int64_t release;             /* wake: the release it names (0 = none) */
	int32_t pid;                 /* the thread that wrote it */
	int32_t kind;                /* JL_PROBE_WAKE, _END, _NAME, _SERIES */
	int32_t cpu;                 /* where it was written */
	char name[16];               /* name, series: the series' name */
};

/* The pruner's calls from the analysis it prunes (prune.c sets them with an->prune): the feed
 * and the task table know a pruned analysis only through these, never prune.c by name. */
struct jl_analysis;
struct jl_pair;
struct jl_offcpu;
struct jl_analysis_prune_ops {
	bool (*pair)(struct jl_analysis *an, int ti, const struct jl_pair *p); /* keep this pair (counted either way)? */
	int (*compact)(struct jl_analysis *an, int64_t now);                     /* after each event fed */
	void (*free)(struct jl_analysis *an);                                    /* with the analysis */
	/* the off-CPU totals of entry TI it stepped before forgetting states, when [FROM, TO) is its window
	 * (offcpu.c): into O, and the first state not stepped into *FIRST; false: step them all */
	bool (*offcpu)(const struct jl_analysis *an, int ti, int64_t from, int64_t to, struct jl_offcpu *o,
		       size_t *first);
};

/* A task was born: PID, created by PARENT (fork, or a thread of its process). */
struct jl_analysis_birth {
	int32_t pid, parent;
	bool thread;                 /* a thread of the creator's process (CLONE_THREAD) */
	char comm[JL_EVENT_COMM];      /* a task that has exited since: its comm then ("" while it lives) */
	int32_t kprio;               /* and its kernel prio then */
	int64_t born, exited;        /* when (exited: 0 while it lives); a pruned analysis forgets the births
				      * of tasks that lived wholly before its horizon, in no kept window
				      * (jl_task_births_forget, prune.c's birth_gone) */
};

#define JL_ANALYSIS_IRQS 1024
#define JL_ANALYSIS_LENT_MAX 4096
struct jl_analysis_lent {
	int64_t ts;
	int32_t holder, kprio;   /* the lock's holder and the kernel prio it was raised to */
};
struct jl_analysis {
	int nthreads;
	struct jl_analysis_thread *threads;
	int ncpus;
	struct jl_segment **segs;    /* per CPU timeline: non-overlapping pieces */
	size_t *nsegs, *capsegs;
	size_t events, lost_gaps;
	uint64_t lost_events;        /* sum of the gaps' counts where known */
	size_t markers;
	int64_t first_ts, last_ts;
	struct jl_analysis_cpu *cpu;      /* per-CPU running state (private) */
	int64_t *pending;            /* per thread: ts of the pending waking, 0 = none */
	int32_t *pending_cpu;
	int32_t *pending_prio;
	struct jl_pair *pending_pair; /* per thread: what the pending waking knows (queue CPU, its timer) */
	struct jl_analysis_armed *armed;  /* hrtimers as last armed (private hash) */
	bool *pending_new;
	/* the names states and segments give (comms, IRQ and softirq names): each stored once, an index in
	 * them (a trace has a few hundred distinct ones and millions of states and segments) */
	char (*names)[JL_ANALYSIS_NAME_MAX];
	uint32_t nnames, capnames;
	uint32_t *name_hash;         /* capnames * 2 slots: index + 1, 0 empty */
	uint32_t *name_h;            /* capnames: each name's hash */
#define JL_ANALYSIS_LITERALS 12
	const char *lit[JL_ANALYSIS_LITERALS]; /* string constants interned (feed.c literal()) */
	uint32_t lit_id[JL_ANALYSIS_LITERALS];
	struct jl_analysis_task *tasks;   /* pid -> last known prio and comm (private hash: the live tasks) */
	size_t task_cap, task_live;
	uint64_t tasks_forgotten;    /* tasks that exited, taken out of the table */
	uint64_t births_forgotten;   /* births a pruned analysis forgot (jl_task_births_forget) */
	size_t implicit_switches;    /* switches inferred from common_pid (the kernel did not record them) */
	size_t *vm_heuristic;        /* per CPU: switches out of idle inferred from a woken task's first record
				      * (used only on CPUs whose trace shows no switch out of the idle task) */
	struct jl_analysis_budget budget;
	size_t timer_events;         /* hrtimer_expire_entry records seen (the timer group was recorded) */
	struct jl_analysis_mark *rt_unthrottle, *fair_start;
	size_t n_rt_unthrottle, n_fair_start, cap_rt_unthrottle, cap_fair_start;
	struct jl_analysis_gap *gaps;
	size_t ngaps, capgaps;
	/* for probed programs (io/probe_server.c): the probe records and the births, in time order */
	struct jl_analysis_probe *probes;
	size_t nprobes, capprobes;
	struct jl_analysis_birth *births;
	size_t nbirths, capbirths;
	/* tasks born before the trace began that exited in it (their birth is not in births): pid, comm (a
	 * watch of a program that ends; jl_analysis_comm); a pruned analysis keeps them too (one per exit) */
	struct jl_analysis_gone { int32_t pid, kprio; char comm[JL_EVENT_COMM]; } *gone;
	size_t ngone, capgone;
	struct jl_analysis_prune *prune;  /* a pruned analysis (jl_analysis_prune), NULL: everything is kept */
	const struct jl_analysis_prune_ops *prune_ops; /* set with prune: how the feed calls the pruner */
	/* IRQ number -> its handlers' name (jl_analysis_name), from irq_handler_entry or /proc/irq: a threaded
	 * handler's task name is cut at 15 characters ("irq/25-virtio0-") */
	uint32_t irq_name[JL_ANALYSIS_IRQS];
	struct jl_analysis_clocks clocks; /* the caller's, before the first event (timers on other clocks) */
};

/* IRQ N's handlers are called NAME (the live run reads /proc/irq; the trace's irq_handler_entry too). */
void jl_analysis_set_irq_name(struct jl_analysis *an, int n, const char *name);

/* The task that created PID (its latest birth in the trace), or 0. */
int32_t jl_analysis_parent(const struct jl_analysis *an, int32_t pid);
/* Is PID ROOT, or born in ROOT's tree (as the trace's births say)? */
bool jl_analysis_in_tree(const struct jl_analysis *an, int32_t root, int32_t pid);
/* A comm made usable in a series name: [a-z0-9_-], upper case lowered, anything else '_'. */
void jl_analysis_clean_name(char *s);
/* The last comm the trace showed for PID, or NULL. */
const char *jl_analysis_comm(const struct jl_analysis *an, int32_t pid);
/* The name a state's `by` or a segment's `name` stands for ("" if none). */
static inline const char *jl_analysis_name(const struct jl_analysis *an, uint32_t id)
{
	return id < an->nnames ? an->names[id] : "";
}
/* The tasks the table holds now (alive as far as the trace has told). */
size_t jl_analysis_tasks_live(const struct jl_analysis *an);

/* The first of thread T's states after TS (binary search: they are in time order) */
static inline size_t jl_analysis_state_after(const struct jl_analysis_thread *t, int64_t ts)
{
	size_t lo = 0, hi = t->nstates;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (t->states[mid].ts <= ts)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* Index of the thread with PID in AN->threads, or -1. */
int jl_analysis_thread_of(const struct jl_analysis *an, int32_t pid);


/* The kernel's defaults: RT runtime 950 ms of 1 s, the fair server 50 ms of 1 s (jl_analysis_init uses them). */
void jl_analysis_budget_defaults(struct jl_analysis_budget *b);

/* Set up AN for NTHREADS threads (names/pids/samples copied by reference from THREADS) and NCPUS. */
int jl_analysis_init(struct jl_analysis *an, const struct jl_analysis_thread *threads, int nthreads, int ncpus);
/* For prune.c: the time up to which every CPU's timeline is closed (the earliest
 * start of a CPU's open piece that is not idle), at most NOW. */
int64_t jl_analysis_timeline_closed(const struct jl_analysis *an, int64_t now);

/* Feed one event; events must come in timestamp order (jl_event_sort, or a merged reader). */
int jl_analysis_feed(struct jl_analysis *an, const struct jl_event *ev);
/* Close open segments at the last timestamp. Call once after the last event. */
void jl_analysis_end(struct jl_analysis *an);
/* Convenience: sort EV, feed them all and end. */
int jl_analysis_run(struct jl_analysis *an, struct jl_event *ev, size_t n);
void jl_analysis_free(struct jl_analysis *an);

/* Does a gap of lost events on CPU (or on any CPU when CPU < 0) overlap [FROM, TO)? */
bool jl_analysis_lost_in(const struct jl_analysis *an, int cpu, int64_t from, int64_t to);
/* The first segment of CPU whose end is after TS (binary search over the timeline). */
size_t jl_analysis_seg_find(const struct jl_analysis *an, int cpu, int64_t ts);
/* The segment of CPU covering TS, or NULL (a CPU out of range, or no segment there). */
const struct jl_segment *jl_analysis_segment_at(const struct jl_analysis *an, int cpu, int64_t ts);

/* Append P to T's pairs (growing them). 0 or -1. */
int jl_analysis_append_pair(struct jl_analysis_thread *t, const struct jl_pair *p);

#endif
