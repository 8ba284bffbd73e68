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
#include <string.h>

#define JL_EVENT_COMM 24

/* strnlen(S, MAX) where S holds at least MAX readable bytes and MAX is small (a record's or a table's
 * fixed-size name): eight bytes at a time; else strnlen. */
static inline size_t jl_event_len(const char *s, size_t max)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t n = 0;

	if (max > 64)
		return strnlen(s, max);
	for (; n + 8 <= max; n += 8) {
		uint64_t w, z;

		memcpy(&w, s + n, 8);
		z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
		if (z)
			return n + (size_t)(__builtin_ctzll(z) >> 3);
	}
	while (n < max && s[n])
		n++;
	return n;
#else
	return strnlen(s, max);
#endif
}

/* Copy at most MAX bytes of the string SRC into DST of LEN bytes, always terminated: the names copied per
 * event (comms, segment and state names), without printf's cost (a third of the analysis time when it was
 * snprintf("%s")). MAX <= 64: SRC holds that many readable bytes (a fixed-size field); SIZE_MAX: SRC is
 * any C string. */
static inline void jl_event_copy(char *dst, size_t len, const char *src, size_t max)
{
	size_t n;

	if (!len)
		return;
	n = max <= 64 ? jl_event_len(src, max) : strnlen(src, max < len - 1 ? max : len - 1);
	if (n > len - 1)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Whether the names A and B, each in a buffer of JL_EVENT_COMM bytes and terminated within it (an event's,
 * a task's, a CPU's name), are the same string: strcmp's answer, eight bytes at a time (the analysis
 * compares a name on nearly every switch). */
_Static_assert(JL_EVENT_COMM % 8 == 0, "names are compared a word at a time");
static inline bool jl_event_same(const char *a, const char *b)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (size_t n = 0; n < JL_EVENT_COMM; n += 8) {
		uint64_t x, y, z, d;

		memcpy(&x, a + n, 8);
		memcpy(&y, b + n, 8);
		z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull; /* its lowest bit: A's first NUL */
		d = x ^ y;
		if (d) /* the same only if A ended (so B did) before the first byte that differs */
			return z && __builtin_ctzll(z) < __builtin_ctzll(d);
		if (z)
			return true;
	}
	return true;
#else
	return !strncmp(a, b, JL_EVENT_COMM);
#endif
}

enum jl_event_kind {
	JL_EVENT_SWITCH,        /* prev_* -> pid (next) on cpu */
	JL_EVENT_WAKING,        /* sched_waking of pid (recorded on the waker's cpu) */
	JL_EVENT_WAKEUP_NEW,    /* sched_wakeup_new of pid */
	JL_EVENT_WAKEUP,        /* sched_wakeup (informational) */
	JL_EVENT_MIGRATE,       /* pid moved to target_cpu */
	JL_EVENT_IRQ_ENTRY,     /* pid = irq number, comm = handler name */
	JL_EVENT_IRQ_EXIT,
	JL_EVENT_SOFTIRQ_ENTRY, /* pid = vector */
	JL_EVENT_SOFTIRQ_EXIT,
	JL_EVENT_TIMER_ENTRY,   /* hrtimer_expire_entry, comm = function */
	JL_EVENT_TIMER_EXIT,
	JL_EVENT_MARK,          /* jitterlab marker: mark_thread, mark_cycle */
	JL_EVENT_LOST,          /* events were lost on cpu before ts */
	JL_EVENT_OTHER,
	/* recorded for the analyses to come (trace_read.c); nothing above reads them yet */
	JL_EVENT_PI_SETPRIO,    /* priority inheritance: pid, comm; prev_prio = oldprio, prio = newprio */
	JL_EVENT_NEWTASK,       /* task_newtask: pid = new task, comm; prev_pid = creator (common_pid);
			       * arg = clone_flags (CLONE_THREAD 0x10000: a thread, not a process) */
	JL_EVENT_FORK,          /* sched_process_fork: prev_pid/prev_comm = parent, pid/comm = child */
	JL_EVENT_RENAME,        /* task_rename: pid, prev_comm = old comm, comm = new comm */
	JL_EVENT_EXIT,          /* sched_process_exit: pid, comm, prio; arg = 1 when its whole process is gone */
	JL_EVENT_IPI,           /* ipi_send_cpu/cpumask, on the sender's cpu: target_cpu (-1 = several),
			       * arg = target CPUs 0-63 as bits, comm = callback ("" for reschedule),
			       * prev_comm = call site */
	JL_EVENT_TIMER_START,   /* hrtimer_start: arg = hrtimer, expires, softexpires, comm = function */
	JL_EVENT_PROBE,         /* a probe record (include/jitterlab/probe.h) written by pid: mark_thread = its
			       * kind (wake, end, name), expires = the release it names, comm = the name */
};

struct jl_event {
	int64_t ts;
	int32_t cpu;
	int32_t kind;         /* enum jl_event_kind */
	bool has_cur;         /* cur is known (every real record has it: common_pid) */
	int32_t cur;          /* the task running on cpu when the record was written (0 = idle) */
	int32_t pid;          /* subject: woken/next/migrated pid, irq number, softirq vector */
	int32_t prio;         /* kernel prio of pid (99 - rt_priority for RT, 120 + nice for CFS, -1 DL) */
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	int32_t target_cpu;   /* waking: target_cpu; migrate: dest_cpu */
	int32_t mark_thread;
	uint64_t mark_cycle;
	char comm[JL_EVENT_COMM];      /* subject comm / irq name / timer function */
	char prev_comm[JL_EVENT_COMM];
	uint8_t flags;               /* common_flags: JL_EVENT_F_HARDIRQ, JL_EVENT_F_SOFTIRQ (0 when unknown) */
	uint64_t arg;                /* NEWTASK: clone_flags; EXIT: group dead; IPI: target CPU bits;
				      * TIMER_ENTRY, TIMER_START: the hrtimer's address */
	int64_t expires;             /* TIMER_START: hard expiry; TIMER_ENTRY: the `now` it expired at */
	int64_t softexpires;         /* TIMER_START: soft expiry (expires - softexpires = the slack) */
};

#define JL_EVENT_F_HARDIRQ 0x08        /* TRACE_FLAG_HARDIRQ: written in hard IRQ context */
#define JL_EVENT_F_SOFTIRQ 0x10        /* TRACE_FLAG_SOFTIRQ: written in softirq context */

/* The parts a cycle's latency is made of (contract: outputs.md trace.worst[].parts[].kind, plus the kinds
 * after OTHER). A task is kind "task" (it blocked the wakeup) unless the woken task is real-time (RT or
 * DEADLINE) and the task has a lower priority. Then, while a lower task runs and the woken RT task waits:
 * - "throttle": RT bandwidth control kept the RT task off (RT throttling ended by sched_rt_period_timer,
 *   or the fair server running CFS tasks after its dl_task_timer), or without timer events a stretch with
 *   the shape of a budget (see trace_bandwidth.c);
 * - "unpreempted": a lower task kept running for a while (>= JL_UNPREEMPTED_NS) without that shape: a
 *   non-preemptible kernel section or a vCPU the host took away; the trace cannot tell which;
 * - "other" named "preempting NAME": the short time the kernel took to preempt it.
 * For a CFS task woken, every task that ran first is a "task" (fair share). "lost": the window overlaps a
 * gap of lost events. "running" and "blocked": parts of the response window (wake -> end of work).
 * "executor": a callback ready while its executor's thread ran another callback (which one: the name). */
enum jl_part_kind { JL_PART_IRQ, JL_PART_SOFTIRQ, JL_PART_TASK, JL_PART_TIMER, JL_PART_IDLE_EXIT, JL_PART_OTHER,
		    JL_PART_THROTTLE, JL_PART_UNPREEMPTED, JL_PART_LOST, JL_PART_RUNNING, JL_PART_BLOCKED,
		    JL_PART_EXECUTOR, JL_PART_IPI, JL_PART_N };

#define JL_UNPREEMPTED_NS 100000 /* a lower task still running this long after an RT wakeup is not "preempting" */
/* The longest a switch out of the idle task, or a "return" (switch-in to the loop's own clock read), may
 * take and still be called so: the CPU is awake by then (it handled the wakeup). Longer idle while an RT
 * task is runnable is a wait of its own ("runnable, CPU idle"), named by its shape where it has one. */
#define JL_SWITCH_IDLE_MAX_NS 1000000
/* The longest "idle exit" without timer events (release -> waking on an idle CPU): the deepest idle states
 * take hundreds of microseconds to leave, a VM's halted vCPU a few ms; longer is a late wakeup no event
 * explains. */
#define JL_IDLE_EXIT_MAX_NS 5000000
const char *jl_part_kind_name(enum jl_part_kind k);

struct jl_part {
	enum jl_part_kind kind;
	char name[72];
	int32_t pid;          /* task pid, irq number, softirq vector, -1 otherwise */
	int32_t kprio;        /* kernel prio for tasks, 0 otherwise */
	char policy[24];      /* tasks: "FIFO 90" (known thread) or derived from kprio ("RT 90", "CFS nice 0") */
	int64_t duration_ns;
	char detail[160];     /* throttle, unpreempted, blocked, lost: the explanation in words */
};

#define JL_MAX_PARTS 16

struct jl_pair {
	int64_t waking, switch_in;  /* ts of sched_waking (or wakeup_new) and of the switch-in */
	int32_t pid, cpu, wake_cpu; /* cpu of the switch-in; cpu the waking was recorded on */
	int32_t kprio;              /* the woken task's kernel prio (from the waking record) */
	bool new_task;
	bool implicit;              /* no sched_switch record: switch_in is the first record the task wrote
				     * on cpu (an upper bound; refined to the sample's wake time if earlier) */
	bool matched;               /* paired with a sample's release (jl_analysis_match) */
	int32_t queue_cpu;          /* the runqueue it was woken onto (sched_waking's target_cpu) */
	int32_t waker_pid;          /* the task that woke it (the waking recorded in its context, no IRQ), -1 */
	/* the hrtimer whose expiry woke it (timer group recorded), else timer_cpu = -1 */
	int32_t timer_cpu;
	int64_t timer_entry;        /* hrtimer_expire_entry of it */
	int64_t timer_now;          /* the interrupt's `now` */
	int64_t timer_expires, timer_soft; /* as armed (hrtimer_start); 0 = its start was not seen */
};

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
	/* results */
	struct jl_pair *pairs;
	size_t npairs, cap;
	size_t switch_in, switch_out, wakings; /* sched_switch records (in = next_pid, out = prev_pid) */
	size_t pairs_forgotten;      /* a pruned analysis: the pairs it counted and did not keep */
	size_t implicit_in;          /* switch-ins seen only as the task's first record on a CPU */
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
	int32_t kind;                /* JL_PROBE_WAKE, _END, _NAME */
	int32_t cpu;                 /* where it was written */
	char name[16];               /* name: the series' name */
};

/* The pruner's calls from the analysis it prunes (trace_prune.c sets them with an->prune): the feed
 * and the task table know a pruned analysis only through these, never trace_prune.c by name. */
struct jl_analysis;
struct jl_pair;
struct jl_analysis_prune_ops {
	bool (*pair)(struct jl_analysis *an, int ti, const struct jl_pair *p); /* keep this pair (counted either way)? */
	int (*compact)(struct jl_analysis *an, int64_t now);                     /* after each event fed */
	void (*free)(struct jl_analysis *an);                                    /* with the analysis */
};

/* A task was born: PID, created by PARENT (fork, or a thread of its process). */
struct jl_analysis_birth {
	int32_t pid, parent;
	bool thread;                 /* a thread of the creator's process (CLONE_THREAD) */
	char comm[JL_EVENT_COMM];      /* a task that has exited since: its comm then ("" while it lives) */
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
	const char *lit[JL_ANALYSIS_LITERALS]; /* string constants interned (trace_events.c literal()) */
	uint32_t lit_id[JL_ANALYSIS_LITERALS];
	struct jl_analysis_task *tasks;   /* pid -> last known prio and comm (private hash: the live tasks) */
	size_t task_cap, task_live;
	uint64_t tasks_forgotten;    /* tasks that exited, taken out of the table */
	size_t implicit_switches;    /* switches inferred from common_pid (the kernel did not record them) */
	size_t *vm_heuristic;        /* per CPU: switches out of idle inferred from a woken task's first record
				      * (used only on CPUs whose trace shows no switch out of the idle task) */
	struct jl_analysis_budget budget;
	size_t timer_events;         /* hrtimer_expire_entry records seen (the timer group was recorded) */
	struct jl_analysis_mark *rt_unthrottle, *fair_start;
	size_t n_rt_unthrottle, n_fair_start, cap_rt_unthrottle, cap_fair_start;
	struct jl_analysis_gap *gaps;
	size_t ngaps, capgaps;
	/* for probed programs (trace_probe.c): the probe records and the births, in time order */
	struct jl_analysis_probe *probes;
	size_t nprobes, capprobes;
	struct jl_analysis_birth *births;
	size_t nbirths, capbirths;
	struct jl_analysis_prune *prune;  /* a pruned analysis (jl_analysis_prune), NULL: everything is kept */
	const struct jl_analysis_prune_ops *prune_ops; /* set with prune: how the feed calls the pruner */
	/* IRQ number -> its handlers' name (jl_analysis_name), from irq_handler_entry or /proc/irq: a threaded
	 * handler's task name is cut at 15 characters ("irq/25-virtio0-") */
	uint32_t irq_name[JL_ANALYSIS_IRQS];
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

/* Index of the thread with PID in AN->threads, or -1. */
int jl_analysis_thread_of(const struct jl_analysis *an, int32_t pid);

/* Sort EV[0..N) by timestamp, stable (events of one CPU keep their order on equal timestamps). */
int jl_event_sort(struct jl_event *ev, size_t n);

/* The kernel's defaults: RT runtime 950 ms of 1 s, the fair server 50 ms of 1 s (jl_analysis_init uses them). */
void jl_analysis_budget_defaults(struct jl_analysis_budget *b);

/* Set up AN for NTHREADS threads (names/pids/samples copied by reference from THREADS) and NCPUS. */
int jl_analysis_init(struct jl_analysis *an, const struct jl_analysis_thread *threads, int nthreads, int ncpus);
/* trace_prune.c: analyse a long run in flat memory. When every measured entry has samples and they are
 * partial (the cycles a ring kept), states, pairs and segments are kept only where a kept cycle needs
 * them: around each kept sample's wakeup (to match it), and around the cycles that can be explained (each
 * entry's JL_ANALYSIS_PRUNE_WORST worst by latency, its JL_ANALYSIS_PRUNE_MISSES longest missed deadlines) from
 * JL_ANALYSIS_PRUNE_BACK_MIN (at least twice the RT budget's shapes) before the release to 2 ms after the end.
 * The rest is counted and forgotten a second of trace time behind the events: the off-CPU totals of
 * [FROM, TO) are stepped before the states go, every wakeup's latency in [FROM, TO) goes to a histogram.
 * Call after jl_analysis_init and the budget, before the first event. 1: pruned; 0: not every measured entry
 * is partial (nothing changes); -1: ENOMEM. */
#define JL_ANALYSIS_PRUNE_WORST 16
#define JL_ANALYSIS_PRUNE_MISSES 16
#define JL_ANALYSIS_PRUNE_BACK_MIN 20000000LL
#define JL_ANALYSIS_PRUNE_LAG_NS 1000000000LL
int jl_analysis_prune(struct jl_analysis *an, int64_t from, int64_t to);
/* A pruned analysis fed while the run goes (trace_live.c): the entries' samples come at the end, the
 * windows as the run goes (jl_analysis_prune_add: each before the first event in it is fed). A pair no window
 * keeps waits in its entry's tail (a loop's last cycles are kept, and known
 * only at the end). jl_analysis_prune_settle, once the samples are in: their windows and candidates, the
 * window's end TO, the tail's pairs the windows keep. Same returns as jl_analysis_prune. */
int jl_analysis_prune_live(struct jl_analysis *an, int64_t from);
/* The candidates' whole windows now (replacing the last set): kept while they are candidates, and what
 * only they held goes at the next compaction once they are not. 0 or -1. */
int jl_analysis_prune_candidates(struct jl_analysis *an, const int64_t (*w)[2], size_t n);
/* Entry TI's tail may drop the pairs switched in before T (the release of the oldest of its last kept
 * cycles, less the clock slack): they can be nobody's. Only grows. */
void jl_analysis_prune_tail_from(struct jl_analysis *an, int ti, int64_t t);
/* Append P to T's pairs (growing them). 0 or -1. */
int jl_analysis_keep_pair(struct jl_analysis_thread *t, const struct jl_pair *p);
int jl_analysis_prune_add(struct jl_analysis *an, const int64_t (*w)[2], size_t n);
int jl_analysis_prune_settle(struct jl_analysis *an, int64_t to);
/* The window a sample needs: its whole one (a candidate: from BACK before its release to 2 ms after its
 * end), else its wakeup window (where jl_analysis_match looks). */
void jl_analysis_prune_window(const struct jl_analysis_sample *x, bool whole, int64_t back, int64_t w[2]);
/* How far before a release a pruned analysis keeps the trace of a cycle it may explain (the RT budget's
 * shapes look back: twice the larger of the throttled share and the fair server's runtime, plus 10 ms,
 * at least JL_ANALYSIS_PRUNE_BACK_MIN). */
int64_t jl_analysis_prune_back(const struct jl_analysis_budget *b);
/* A pruned analysis of a trace that is not whole (the flight recorder): a candidate is explained only if
 * COVERED(CTX, a, b) says the trace is whole over its window. Call after jl_analysis_prune. */
void jl_analysis_prune_cover(struct jl_analysis *an, bool (*covered)(const void *ctx, int64_t a, int64_t b), const void *ctx);
/* A pruned analysis: may sample SI of entry TI be explained (the trace around it is whole)? */
bool jl_analysis_sample_whole(const struct jl_analysis *an, int ti, size_t si);
/* A pruned analysis: does [A, B) overlap a kept window (what is kept of the trace is whole there)? */
bool jl_analysis_prune_keeps(const struct jl_analysis *an, int64_t a, int64_t b);
/* A pruned analysis, for trace_result.c: every wakeup of entry TI in [from, to), as a distribution (its
 * percentiles within the histogram's bound); false when TI is not pruned. */
struct jl_dist;
bool jl_analysis_prune_wakeups(const struct jl_analysis *an, int ti, struct jl_dist *d, size_t *n);
/* A pruned analysis, for jl_analysis_offcpu: the off-CPU totals of entry TI stepped so far into O and the
 * first state not stepped into *FIRST, when [FROM, TO) is the pruned window; else false. */
struct jl_offcpu;
bool jl_analysis_prune_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to, struct jl_offcpu *o,
			 size_t *first);
/* What a pruned analysis forgot (for the summary): states, pairs, segments. */
void jl_analysis_prune_counts(const struct jl_analysis *an, size_t *states, size_t *pairs, size_t *segs);
/* trace_events.c, for trace_prune.c: the time up to which every CPU's timeline is closed (the earliest
 * start of a CPU's open piece that is not idle), at most NOW. */
int64_t jl_analysis_timeline_closed(const struct jl_analysis *an, int64_t now);
/* trace_prune.c (also the prune_ops' compact, pair and free): forget what no kept window needs, once a
 * second of trace time; a pair a pruned analysis keeps (its latency counted either way); the pruner's
 * state freed. */
int jl_analysis_compact(struct jl_analysis *an, int64_t now);
bool jl_analysis_prune_pair(struct jl_analysis *an, int ti, const struct jl_pair *p);
void jl_analysis_prune_free(struct jl_analysis *an);

/* Feed one event; events must come in timestamp order (jl_event_sort, or a merged reader). */
int jl_analysis_feed(struct jl_analysis *an, const struct jl_event *ev);
/* Close open segments at the last timestamp. Call once after the last event. */
void jl_analysis_end(struct jl_analysis *an);
/* Convenience: sort EV, feed them all and end. */
int jl_analysis_run(struct jl_analysis *an, struct jl_event *ev, size_t n);
void jl_analysis_free(struct jl_analysis *an);

/* Decompose one wakeup: RELEASE (0 = unknown: the wakeup latency is the whole), the pair, and WAKE
 * (user-space wake time, 0 = unknown). Fills C's parts and timestamps. */
void jl_analysis_decompose(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, int64_t wake,
		      struct jl_cycle *c);

/* Match every measured thread's samples with release >= FROM to pairs: a sample's pair is the first
 * wakeup at or after its release (less the trace clock's offset to CLOCK_MONOTONIC, JL_ANALYSIS_CLOCK_SLACK_NS)
 * and before its wake. Fills matched counts, pair.matched and thread.sample_pair. 0 or -1 (ENOMEM). */
int jl_analysis_match(struct jl_analysis *an, int64_t from);

#define JL_ANALYSIS_CLOCK_SLACK_NS 5000

/* The worst cycles, decomposed, worst first, into OUT[0..*nout): the N worst matched cycles across all
 * threads by wakeup latency (without samples: by the wakeup latency of pairs with waking >= FROM), each
 * measured thread's worst among them, then every missed deadline (response window) up to N_MISSES more.
 * *MISSES gets how many cycles missed in all (so a caller can say the list was capped). Calls
 * jl_analysis_match. */
int jl_analysis_worst(struct jl_analysis *an, int64_t from, struct jl_cycle *out, int n, int n_misses, int *nout,
		 size_t *misses);

/* Decompose the response window [wake, end) of sample SI of thread TI into C (running, preempted behind
 * whom, blocked and who woke it, lost). */
void jl_analysis_decompose_response(const struct jl_analysis *an, int ti, size_t si, struct jl_cycle *c);
/* Did thread TI leave the CPU (preempted or blocked) in (FROM, TO)? */
bool jl_analysis_left_cpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to);
/* jl_analysis_decompose of thread TI's cycle [RELEASE, WAKE) woken by P; when the thread ran, left the CPU and
 * came back before its cycle began (a lock between its wakeup and its cycle: a Python thread waiting for
 * the interpreter lock, seen from a probe's wake record), [switch-in, WAKE) is explained from its own
 * states: running, waiting behind whom, blocked and who woke it. */
void jl_analysis_decompose_cycle(const struct jl_analysis *an, int ti, const struct jl_pair *p, int64_t release, int64_t wake,
			    struct jl_cycle *c);
/* The wakeup window of sample SI of callback entry TI (executor > 0): the runs of the executor's other
 * callbacks in [release, wake) ("executor" parts, by callback), then the rest as a wakeup (P, the pair
 * matched in the rest, or NULL: the thread went from the last of them straight to this one). */
void jl_analysis_decompose_callback(const struct jl_analysis *an, int ti, size_t si, const struct jl_pair *p, struct jl_cycle *c);

/* Wakeup latencies (switch_in - waking) of thread TI's pairs with waking >= FROM, unsorted, malloc'd:
 * for a thread with samples only the pairs matched to a release (jl_analysis_match first), never the
 * wakeups of sleep slices or of sleeps inside its work. */
int64_t *jl_analysis_wakeups(const struct jl_analysis *an, int ti, int64_t from, size_t *n);

/* Does a gap of lost events on CPU (or on any CPU when CPU < 0) overlap [FROM, TO)? */
bool jl_analysis_lost_in(const struct jl_analysis *an, int cpu, int64_t from, int64_t to);

/* trace_bandwidth.c: add the wait of an RT task on CPU in [FROM, TO) while lower tasks or nothing ran
 * there, classified (throttle / unpreempted / preempting), to C. Returns the time accounted. */
int64_t jl_analysis_add_lower_stretch(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int64_t stretch_start,
				 int32_t self_prio, struct jl_cycle *c);

/* The first segment of CPU whose end is after TS (binary search over the timeline). */
size_t jl_analysis_seg_find(const struct jl_analysis *an, int cpu, int64_t ts);
/* The segment of CPU covering TS, or NULL (a CPU out of range, or no segment there). */
const struct jl_segment *jl_analysis_seg_at(const struct jl_analysis *an, int cpu, int64_t ts);

/* trace_waited.c, for trace_decompose.c and trace_window.c: add what ran on CPU in [FROM, TO) while
 * SELF (kernel prio SELF_PRIO) waited (idle as "switch from idle" when IDLE_AS_SWITCH, else "idle");
 * returns the time accounted. Name the parts' tasks and order the parts (jl_analysis_finish_parts). */
int64_t jl_analysis_add_window(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t self, int32_t self_prio,
			  struct jl_cycle *c, bool idle_as_switch);
void jl_analysis_finish_parts(const struct jl_analysis *an, struct jl_cycle *c);

/* trace_parts.c: add a part (merged with an equal one); finish a cycle's parts (jl_analysis_finish_parts,
 * above). */
void jl_cycle_add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d,
		       const char *detail);

/* Main culprit of a cycle: index of the longest part among the tasks (not idle) that kept it waiting,
 * RT bandwidth control (throttle) and a lower task that was not preempted (unpreempted), or -1. */
int jl_cycle_culprit(const struct jl_cycle *c);

/* "control cycle 812: 331 us = timer 5 us + waited 318 us behind scan.0 (pid 4321, FIFO 90) + ..." */
void jl_cycle_format(const struct jl_cycle *c, const char *thread, char *buf, size_t len);

/* Policy text of a kernel prio: "FIFO 90"-style for RT (we cannot tell FIFO from RR: "RT 90"),
 * "CFS nice 0", "DL". */
void jl_kprio_format(int kprio, char *buf, size_t len);
/* The priority as a user sets it: rt_priority for RT tasks, nice for CFS, -1 for DEADLINE. */
int jl_kprio_user(int kprio);

#endif
