/* scenario: the model of a scenario file (contract: docs/scenario-format.md) and its parser.
 * Parsing never touches the machine: errors are reported as "FILE:LINE: context: reason" and the
 * caller exits 2. The effective scenario (every default written out) can be written back as INI. */
#ifndef JL_SCENARIO_H
#define JL_SCENARIO_H

#include <sched.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../base/work.h"

#define JL_NAME_MAX 64
#define JL_MAX_THREADS 256 /* after count expansion */
#define JL_MAX_EXPECT 64
#define JL_MAX_CONDITIONS 64
#define JL_MAX_VARY 8
#define JL_MAX_EXECUTORS 16
#define JL_MAX_CALLBACKS 64
#define JL_MAX_TOPICS 32
#define JL_MAX_BUDGETS 32
#define JL_MAX_GATES 32
#define JL_MAX_SYNCS 8
#define JL_MAX_NODES 32
#define JL_MAX_LOCKS 16
#define JL_MAX_SOURCES 16
#define JL_TOPIC_KEEP_ALL_LIMIT 4096 /* keep = all: the resource limit of a subscriber's history */
#define JL_ERR_MAX 512
/* a cpu list as written when it uses a name (pcores, ecores, smt:N): at most 191 characters, so that
 * `isolate=TEXT` fits the reader's line (199) when written back */
#define JL_CPUS_TEXT_MAX 192

enum jl_policy { JL_POLICY_OTHER, JL_POLICY_BATCH, JL_POLICY_IDLE, JL_POLICY_FIFO, JL_POLICY_RR, JL_POLICY_DEADLINE, JL_POLICY_N };

enum jl_overrun { JL_OVERRUN_SKIP, JL_OVERRUN_CATCHUP };

/* [run] trace groups (bit mask) */
enum { JL_TRACE_SCHED = 1 << 0, JL_TRACE_IRQ = 1 << 1, JL_TRACE_TIMER = 1 << 2, JL_TRACE_OSNOISE = 1 << 3 };

enum jl_irq_affinity { JL_IRQ_KEEP, JL_IRQ_HOUSEKEEPING };

/* what a run does with what its neighbours left (processes of its tree, /dev/shm entries): rt/engine/leftovers.h */
enum jl_cleanup { JL_CLEANUP_REPORT, JL_CLEANUP_REMOVE };

/* thread keys, in the order they are written back: the slots of the placement and behaviour key tables
 * (scenario_registry.h), which share this one numbering so that a thread has one key_line array */
enum jl_thread_key {
	JL_THREAD_KEY_POLICY, JL_THREAD_KEY_PRIORITY, JL_THREAD_KEY_NICE, JL_THREAD_KEY_CPUS, JL_THREAD_KEY_COUNT, JL_THREAD_KEY_PERIOD,
	JL_THREAD_KEY_RATE, JL_THREAD_KEY_WORK, JL_THREAD_KEY_DEADLINE, JL_THREAD_KEY_OVERRUN, JL_THREAD_KEY_RUNTIME, JL_THREAD_KEY_MEM_NODE,
	JL_THREAD_KEY_START, JL_THREAD_KEY_MEASURE, JL_THREAD_KEY_THREADS, JL_THREAD_KEY_EXEC, JL_THREAD_KEY_USER, JL_THREAD_KEY_LOCK,
	JL_THREAD_KEY_ATTACH, JL_THREAD_KEY_N
};

/* who an `exec` neighbour runs as: root (jitterlab's own user), or the invoking sudo user (SUDO_UID,
 * SUDO_GID and that user's groups), dropped to after its placement is applied */
enum jl_user { JL_USER_ROOT, JL_USER_INVOKING };

/* [run] keys, in the order they are written back (the slots of the [run] key table) */
enum jl_run_key {
	JL_RUN_KEY_NAME, JL_RUN_KEY_DURATION, JL_RUN_KEY_WARMUP, JL_RUN_KEY_TRACE, JL_RUN_KEY_TRACE_BUFFER,
	JL_RUN_KEY_TRACE_THRESHOLD, JL_RUN_KEY_ISOLATE, JL_RUN_KEY_IRQ_AFFINITY, JL_RUN_KEY_HOUSEKEEPING, JL_RUN_KEY_CPU_DMA_LATENCY,
	JL_RUN_KEY_RT_RUNTIME, JL_RUN_KEY_FAIR_SERVER, JL_RUN_KEY_SEED, JL_RUN_KEY_GRACE, JL_RUN_KEY_CLEANUP, JL_RUN_KEY_SAMPLES,
	JL_RUN_KEY_SAMPLES_MEMORY, JL_RUN_KEY_INTERVAL, JL_RUN_KEY_STOP_AT, JL_RUN_KEY_CHECKPOINT, JL_RUN_KEY_TRACE_KEEP,
	JL_RUN_KEY_PERCENTILES, JL_RUN_KEY_HISTOGRAM, JL_RUN_KEY_TAIL, JL_RUN_KEY_N
};

/* [run] samples: what samples.csv holds. auto: every cycle, unless the run is long (samples_memory:
 * jl_engine_long), then the worst */
enum jl_samples_mode { JL_SAMPLES_AUTO, JL_SAMPLES_ALL, JL_SAMPLES_WORST, JL_SAMPLES_NONE };

/* [run] trace_keep: which pages of the trace trace.dat holds. all: every one; worst: the flight recorder
 * (the windows of each loop's worst cycles and first misses, and the last pages); auto: worst when the
 * run is long (jl_engine_long), all otherwise */
enum jl_trace_keep { JL_TRACE_KEEP_AUTO, JL_TRACE_KEEP_ALL, JL_TRACE_KEEP_WORST };

/* [run] percentiles: how the loops' percentiles are found (every loop keeps a ring). exact: every value
 * is written to a file in /tmp as well (nearest rank, in flat memory); histogram: from the rings'
 * histograms (no file); auto: exact when the file fits (jl_engine_spill_fits), histogram otherwise. */
enum jl_percentiles { JL_PERCENTILES_AUTO, JL_PERCENTILES_EXACT, JL_PERCENTILES_HISTOGRAM };

/* [run] interval: at most this many intervals in a run (their series are preallocated) */
#define JL_MAX_INTERVALS 20000

/* [run] stop_at = SERIES.METRIC > DURATION: the metric of a cycle that ends the run */
enum jl_stop_metric { JL_STOP_AT_LATENCY, JL_STOP_AT_RESPONSE };
struct jl_stop_at {
	bool set;
	char series[JL_NAME_MAX + 16];
	enum jl_stop_metric metric;
	int64_t threshold_ns;
};

struct jl_run_spec {
	char name[JL_NAME_MAX];
	int64_t duration_ns;
	int64_t warmup_ns;
	unsigned trace_groups;      /* 0 = off */
	bool trace_timer_implied;   /* timer added to the default trace for a measure = wakeups thread */
	uint64_t trace_buffer;      /* bytes per CPU */
	int64_t trace_threshold_ns; /* 0 = none: mark only misses */
	bool isolate_set;
	cpu_set_t isolate;
	char isolate_text[JL_CPUS_TEXT_MAX]; /* as written if it names CPUs (pcores, ...); "" = numbers only */
	enum jl_irq_affinity irq_affinity;
	bool housekeeping_set;      /* false: auto (the online CPUs no measured thread is pinned to) */
	cpu_set_t housekeeping;     /* where jitterlab's own threads run: watchdog, trace reader, probe server */
	char housekeeping_text[JL_CPUS_TEXT_MAX];
	int64_t cpu_dma_latency_ns; /* -1 = off */
	int64_t rt_runtime_us;      /* -2 = keep, -1 = unlimited */
	int64_t fair_server_ns;     /* the fair server's runtime per period on every CPU; -1 = keep */
	long long seed;
	int64_t grace_ns;           /* watchdog grace after the end */
	enum jl_cleanup cleanup;    /* report (default) or remove what the neighbours left */
	enum jl_samples_mode samples;
	uint64_t samples_memory;    /* a long run: its loops' cycles would take more (bytes; jl_engine_long) */
	int64_t interval_ns;        /* the max-per-interval series; 0 = auto */
	int64_t histogram_us;       /* histogram.txt's rows (1 us each; beyond: overflows); 0 = auto */
	int64_t checkpoint_ns;      /* summary.json checkpoints; 0 = off */
	struct jl_stop_at stop_at;
	enum jl_trace_keep trace_keep;
	enum jl_percentiles percentiles;
	int64_t tail_ns;            /* [run] tail: each loop's latency tail counted by cause from every cycle
				     * (trace.tail) above p99 (0), or above this latency; -1: off */
	int key_line[JL_RUN_KEY_N];
};

/* Where and how a thread runs, whatever it does: the one placement object, parsed by one set of keys
 * (the placement table of scenario_keys.c) and shared by every section that creates OS threads
 * ([thread] and [executor]). Applied by the engine before the start gate, never changed after. */
struct jl_placement {
	enum jl_policy policy;
	int priority;               /* 0 = unset */
	int nice;
	int64_t runtime_ns;         /* SCHED_DEADLINE */
	bool cpus_set;
	cpu_set_t cpus;             /* resolved: the names of cpus_text already turned into CPUs */
	char cpus_text[JL_CPUS_TEXT_MAX]; /* as written if it names CPUs (pcores, ecores, smt:N); "" = numbers only */
	int mem_node;               /* -1 = none */
	unsigned count;             /* copies: NAME.0 ... */
	enum jl_user user;          /* exec only */
};

/* What a thread does after the start gate: the behaviour. Its kind picks the driver (engine.h). */
/* measure = probe: an exec'd program marks its own cycles (include/jitterlab/probe.h) */
#define JL_MEASURE_PROBE 2
/* measure = wakeups: an exec'd program's threads measured from the trace alone (threads = PATTERN) */
#define JL_MEASURE_WAKEUPS 3
/* is the program measured, by the probe or from the trace (an exec'd program's series come after the run) */
#define JL_MEASURE_FROM_TRACE(m) ((m) == JL_MEASURE_PROBE || (m) == JL_MEASURE_WAKEUPS)

enum jl_behaviour_kind { JL_BEH_PERIODIC, JL_BEH_CONTINUOUS, JL_BEH_EXEC, JL_BEH_EXECUTOR, JL_BEH_SOURCE, JL_BEH_ATTACH,
			  JL_BEH_N };

struct jl_behaviour {
	enum jl_behaviour_kind kind; /* derived from the keys: exec -> exec, a period -> periodic, else continuous */
	int64_t period_ns;          /* 0 = continuous (back to back) */
	bool period_from_rate;
	struct jl_work_spec work;
	int64_t deadline_ns;        /* 0 = period */
	enum jl_overrun overrun;
	int64_t start_ns;
	int measure;                /* -1 = default (yes if periodic), 0 no, 1 yes, JL_MEASURE_PROBE */
	char exec[1024];            /* "" = built-in thread */
	char threads[128];          /* measure = wakeups: which threads ("" = every thread of the process tree) */
	char attach[256];           /* threads already running, measured from the trace (measure = wakeups, nothing
				     * started or changed): a comma list of pid:N, tid:N, comm:GLOB, rt; "" = none */
	char lock[JL_NAME_MAX];     /* a [lock] held while each work call runs ("" = none) */
};

/* [executor NAME] keys after the placement's (their slots follow JL_THREAD_KEY_N in the spec's key_line) */
enum jl_executor_key { JL_EXECUTOR_KEY_THREADS = JL_THREAD_KEY_N, JL_EXECUTOR_KEY_DISPATCH, JL_EXECUTOR_KEY_END };
/* [source NAME] keys after the placement's, the same way */
enum jl_source_key { JL_SOURCE_KEY_TARGET = JL_THREAD_KEY_N, JL_SOURCE_KEY_BURST, JL_SOURCE_KEY_RATE, JL_SOURCE_KEY_COUNT, JL_SOURCE_KEY_START,
		 JL_SOURCE_KEY_DEADLINE, JL_SOURCE_KEY_END };
#define JL_SPEC_KEYS ((int)JL_EXECUTOR_KEY_END > (int)JL_SOURCE_KEY_END ? (int)JL_EXECUTOR_KEY_END : (int)JL_SOURCE_KEY_END)

struct jl_thread_spec {
	char name[JL_NAME_MAX];     /* base name; copies are NAME.0 ... */
	char file[256];             /* where it was defined (for messages) */
	int line;                   /* line of the section header */
	struct jl_placement place;
	struct jl_behaviour beh;
	int key_line[JL_SPEC_KEYS]; /* line where each key was set (0 = default) */
};

/* How an executor picks the next callback (rt/engine/dispatch.h says what each does). */
enum jl_dispatch_rule { JL_DISPATCH_RCLCPP, JL_DISPATCH_FIFO };

/* [executor NAME]: a pool of threads that run callbacks. Its thread spec is the placement of every pool
 * thread (place.count = `threads`), its behaviour the executor's (kind JL_BEH_EXECUTOR). */
struct jl_executor_spec {
	struct jl_thread_spec t;
	enum jl_dispatch_rule dispatch;
};

enum jl_callback_key { JL_CALLBACK_KEY_EXECUTOR, JL_CALLBACK_KEY_NODE, JL_CALLBACK_KEY_GROUP, JL_CALLBACK_KEY_PERIOD, JL_CALLBACK_KEY_TRIGGER, JL_CALLBACK_KEY_POLL, JL_CALLBACK_KEY_PHASE,
	       JL_CALLBACK_KEY_JITTER, JL_CALLBACK_KEY_WORK, JL_CALLBACK_KEY_PUBLISH, JL_CALLBACK_KEY_DEADLINE, JL_CALLBACK_KEY_LOCK, JL_CALLBACK_KEY_PROPAGATION,
	       JL_CALLBACK_KEY_MARGIN, JL_CALLBACK_KEY_CANCEL, JL_CALLBACK_KEY_N };

/* [callback NAME]: a callback of an executor: a timer (period), or triggered by a topic's messages
 * (trigger = TOPIC: once per message), or a timer that polls a topic (poll = TOPIC with a period: reads the
 * newest message, consumes nothing); after its work it may publish to a topic. */
struct jl_callback_spec {
	char name[JL_NAME_MAX];
	char file[256];
	int line;
	char executor[JL_NAME_MAX]; /* the [executor] it runs on (or its node's) */
	char node[JL_NAME_MAX];     /* its [node] ("" = the executor's implicit node) */
	char group[JL_NAME_MAX];    /* its mutually exclusive group ("default": the executor's), or "reentrant" */
	int64_t period_ns, phase_ns, deadline_ns; /* deadline 0 = the period */
	int64_t jitter_ns;          /* a timer's declared release jitter: each release later by 0..jitter */
	struct jl_work_spec work;
	char trigger[JL_NAME_MAX], poll[JL_NAME_MAX], publish[JL_NAME_MAX]; /* topics ("" = none) */
	char lock[JL_NAME_MAX];     /* a [lock] held while its work runs ("" = none) */
	char call[JL_NAME_MAX];     /* work = call QUEUE: a request to the queue, waited for ("" = none) */
	bool propagate;             /* deadline_propagation: the call waits at most the request's remaining
				     * time minus margin, and carries that deadline */
	int64_t margin_ns;
	int64_t cancel_ns;          /* cancel = cooperative D: it checks every D whether its caller gave up
				     * (0: none, a synchronous handler runs to its end) */
	int key_line[JL_CALLBACK_KEY_N];
};

/* [budget]: e2e.CALLBACK = D (p99 of the data's origin -> the end of the callback), stage.CALLBACK = D (p99
 * of the callback's own ready -> end); checked after the run: exit 3 and a table when one is exceeded */
struct jl_budget {
	bool e2e;                   /* e2e.CALLBACK, else stage.CALLBACK */
	char callback[JL_NAME_MAX];
	int64_t limit_ns;
	char text[32];              /* the value as written */
	int line;
};

enum jl_sync_key { JL_SYNC_KEY_ALGORITHM, JL_SYNC_KEY_INPUTS, JL_SYNC_KEY_SLOP, JL_SYNC_KEY_MAX_INTERVAL, JL_SYNC_KEY_QUEUE, JL_SYNC_KEY_PUBLISH,
	       JL_SYNC_KEY_N };

/* [sync NAME]: pairs the messages of two topics by their stamps (the data's origin), publishing one message
 * per set (rt/engine/sync.h: the algorithms) */
struct jl_sync_spec {
	char name[JL_NAME_MAX];
	char file[256];
	int line;
	int algorithm;              /* enum jl_sync_algo: 0 approximate, 1 slop */
	char inputs[2][JL_NAME_MAX];
	int64_t slop_ns, max_interval_ns;
	unsigned queue;
	char publish[JL_NAME_MAX];  /* "" = none */
	int key_line[JL_SYNC_KEY_N];
};

/* [node NAME]: callbacks of a node run on its executor, and its default group is one mutually exclusive
 * group (ROS 2's default); callbacks without a node belong to their executor's implicit node */
enum jl_node_key { JL_NODE_KEY_EXECUTOR, JL_NODE_KEY_N };
struct jl_node_spec {
	char name[JL_NAME_MAX];
	char file[256];
	int line;
	char executor[JL_NAME_MAX];
	int key_line[JL_NODE_KEY_N];
};

/* [source NAME]: an open-loop request generator (a load client) in its own thread, placed
 * like a [thread]: a burst of requests at `start`, or `count` requests at `rate` from `start` */
struct jl_source_spec {
	struct jl_thread_spec t;    /* its thread (beh.kind JL_BEH_SOURCE, beh.start_ns: `start`) */
	char target[JL_NAME_MAX];   /* the [queue] */
	unsigned burst;             /* N requests at once (0: rate) */
	double rate_hz;
	unsigned count;             /* rate: how many (0: until the end) */
	int64_t deadline_ns;        /* per request, from its creation (0: none) */
};

/* [lock NAME]: a mutex held while the work of the threads and callbacks naming it runs
 * (rt/base/lock.h: the kinds) */
enum jl_lock_key { JL_LOCK_KEY_KIND, JL_LOCK_KEY_CEILING, JL_LOCK_KEY_SWITCH, JL_LOCK_KEY_HANDOFFS, JL_LOCK_KEY_N };
struct jl_lock_spec {
	char name[JL_NAME_MAX];
	char file[256];
	int line;
	int kind;                   /* enum jl_lock_kind */
	int ceiling;                /* kind = ceiling: the priority its holders run at (0: not set) */
	int64_t switch_interval_ns; /* kind = biglock: a waiter asks for it after this long */
	unsigned handoffs;          /* kind = biglock: extra release/retake round trips per work call */
	int key_line[JL_LOCK_KEY_N];
};

enum jl_keep { JL_KEEP_LAST, JL_KEEP_ALL };
enum jl_topic_key { JL_TOPIC_KEY_DEPTH, JL_TOPIC_KEY_KEEP, JL_TOPIC_KEY_LIMIT, JL_TOPIC_KEY_N };

/* [topic NAME]: one publisher side, each subscriber with its own history (a ROS topic's QoS). */
struct jl_topic_spec {
	char name[JL_NAME_MAX];
	char file[256];
	int line;
	unsigned depth;             /* KEEP_LAST(depth): a full history drops its oldest, counted */
	enum jl_keep keep;          /* or KEEP_ALL: nothing dropped; JL_TOPIC_KEEP_ALL_LIMIT full: an error, counted */
	bool queue;                 /* a [queue]: each request taken once by its one serving callback
				     * (its pool's threads compete), replied to when that run ends */
	unsigned limit;             /* a queue: at most this many requests in service or queued, the rest refused
				     * at once (0: none; a full depth refuses too) */
	int key_line[JL_TOPIC_KEY_N];
};

enum jl_cmp { JL_CMP_LT, JL_CMP_LE, JL_CMP_GT, JL_CMP_GE, JL_CMP_EQ };

struct jl_expect {
	char label[JL_NAME_MAX];
	char text[256];             /* as written, for reports */
	char thread[JL_NAME_MAX];
	char metric[32];            /* e.g. "latency.p99", "rate_hz" */
	enum jl_cmp op;
	double value;               /* ns for times, plain for counts/Hz */
	int line;
};

/* [gate]: LABEL = SERIES.METRIC OP baseline [+|- AMOUNT[%]] | SERIES.METRIC no worse. Checked by
 * `jitterlab compare` and `sweep --baseline` against a baseline, on the 95% CI of the change (new - baseline,
 * Welch over runs): OP <= fails when the CI's lower bound is above the allowance, OP >= when its upper bound is
 * below it; `no worse` fails when the CI lies wholly on the metric's worse side (metrics.h: better). */
enum jl_gate_kind { JL_GATE_NO_WORSE, JL_GATE_LE, JL_GATE_GE };

struct jl_gate {
	char label[JL_NAME_MAX];
	char text[256];             /* as written */
	char thread[JL_NAME_MAX];   /* the series (thread, callback, sync, lock, source) */
	char metric[32];
	enum jl_gate_kind kind;
	double amount;              /* the allowance: a fraction of the baseline's mean (relative) or a value in
				     * the metric's unit; signed (+ allows an increase, - asks for a decrease) */
	bool relative;              /* AMOUNT was a percentage */
	int line;
};

struct jl_condition {
	char label[JL_NAME_MAX];
	char overrides[1024];       /* "SECTION.KEY=VALUE; ..." */
	int line;
};

struct jl_sweep_spec {
	bool present;
	int runs;
	int nconditions;
	struct jl_condition conditions[JL_MAX_CONDITIONS];
	char compare[1024];         /* "" = every pair */
	bool fixed_order;           /* order = fixed: every round in the conditions' order (else shuffled) */
	bool seed_set;              /* seed = N (else a fresh one, recorded in sweep.json) */
	unsigned long seed;
	int nvary;
	struct {
		char key[128];          /* SECTION.KEY */
		char values[512];       /* "v1, v2, ..." */
		int line;
	} vary[JL_MAX_VARY];
};

struct jl_scenario {
	char path[4096];
	struct jl_run_spec run;
	int nthreads;
	struct jl_thread_spec threads[JL_MAX_THREADS];
	int nexpect;
	struct jl_expect expect[JL_MAX_EXPECT];
	struct jl_sweep_spec sweep;
	int nexecutors;
	struct jl_executor_spec executors[JL_MAX_EXECUTORS];
	int ncallbacks;
	struct jl_callback_spec callbacks[JL_MAX_CALLBACKS];
	int ntopics;
	struct jl_topic_spec topics[JL_MAX_TOPICS];
	int nbudgets;
	struct jl_budget budgets[JL_MAX_BUDGETS];
	int ngates;
	struct jl_gate gates[JL_MAX_GATES];
	int nsyncs;
	struct jl_sync_spec syncs[JL_MAX_SYNCS];
	int nnodes;
	struct jl_node_spec nodes[JL_MAX_NODES];
	int nlocks;
	struct jl_lock_spec locks[JL_MAX_LOCKS];
	int nsources;
	struct jl_source_spec sources[JL_MAX_SOURCES];
};

/* Lookups by name (NULL, or -1, when there is none): a topic or queue (its index in sc->topics), a
 * callback, a lock. */
int jl_scenario_topic_index(const struct jl_scenario *sc, const char *name);
const struct jl_callback_spec *jl_scenario_callback(const struct jl_scenario *sc, const char *name);
const struct jl_lock_spec *jl_scenario_lock(const struct jl_scenario *sc, const char *name);

/* Parse PATH into SC (defaults applied, cross-checks done). Returns 0, or -1 with ERR filled. */
int jl_scenario_parse_file(const char *path, struct jl_scenario *sc, char *err, size_t errlen);
/* Parse from a string (tests, fuzzing); NAME stands for the file in messages. */
int jl_scenario_parse_string(const char *name, const char *text, struct jl_scenario *sc, char *err, size_t errlen);
/* What every command does with a scenario: parse PATH, apply the NSETS "SECTION.KEY=VALUE" overrides
 * in order, check. 0, or -1 with ERR. */
int jl_scenario_load(const char *path, const char *const *sets, int nsets, struct jl_scenario *sc, char *err,
		     size_t errlen);
/* Apply one "SECTION.KEY=VALUE" override (as --set does); then call jl_scenario_validate(). */
int jl_scenario_set(struct jl_scenario *sc, const char *assignment, char *err, size_t errlen);
/* One gate line LABEL = VALUE in [gate]'s form, outside a scenario (`compare --gate`, a run's scenario.ini
 * read for its gates alone), into G. 0, or -1 with WHY. */
int jl_scenario_gate_check(const char *label, const char *value, struct jl_gate *g, char *why, size_t wl);
/* Cross-key checks (policy vs priority, cpus online, ...). Called by the parse functions. */
int jl_scenario_validate(struct jl_scenario *sc, char *err, size_t errlen);
/* Write the effective scenario, every key explicit, as INI that parses back to the same model. */
int jl_scenario_write(const struct jl_scenario *sc, FILE *out);
/* The same into PATH, through the one root-safe atomic writer (output.h). 0, or -1 with errno. */
int jl_scenario_write_file(const char *path, const struct jl_scenario *sc);

/* Format "FILE:LINE: message" (or "FILE: message" when LINE <= 0: a --set key or a default) into
 * ERR and return -1: the one way every scenario check reports. */
int jl_scenario_fail(const struct jl_scenario *sc, int line, char *err, size_t errlen, const char *fmt, ...)
	__attribute__((format(printf, 5, 6)));

const char *jl_policy_name(enum jl_policy p);
bool jl_policy_is_rt(enum jl_policy p);
/* The longest line libinih hands us: INI_MAX_LINE (200) less the terminating NUL. A written scenario's
 * "key=value" must fit in it to be read back. */
#define JL_INI_LINE_MAX 199

/* Periodic threads with measure on. */
bool jl_thread_measured(const struct jl_thread_spec *t);
/* A thread jitterlab's own threads keep off: measured, or measured from the trace (probe, wakeups). */
bool jl_thread_keeps_housekeeping_off(const struct jl_thread_spec *t);
/* [run] housekeeping = auto as a scenario says it: the online CPUs that no thread of
 * jl_thread_keeps_housekeeping_off and no executor is pinned to, none isolated. False (OUT empty) when
 * one of those is not pinned (it may run anywhere) or no CPU is left. */
bool jl_scenario_auto_housekeeping(const struct jl_scenario *sc, cpu_set_t *out);
/* The deadline a cycle of T is judged by: `deadline`, or the period when unset. */
int64_t jl_thread_deadline_ns(const struct jl_thread_spec *t);
int64_t jl_behaviour_deadline_ns(const struct jl_behaviour *b);
bool jl_behaviour_measured(const struct jl_behaviour *b);
/* A policy as shown to users: "fifo 80", "other nice 5", "deadline"; UPPER: "FIFO 80", "OTHER nice 5". */
void jl_policy_format(enum jl_policy p, int priority, int nice, bool upper, char *buf, size_t len);
/* The policy named NAME ("fifo", ...), or JL_POLICY_N. */
enum jl_policy jl_policy_from_name(const char *name);

/* Does a traced run of SC keep its trace with the flight recorder (trace_keep = worst, or auto with
 * RINGS: the loops keep rings; never when executors or programs measured from the trace need every page)? */
bool jl_scenario_trace_worst(const struct jl_scenario *sc, bool rings);

/* Does SC attach to running threads (an attach section: what jitterlab watch writes)? */
bool jl_scenario_is_watch(const struct jl_scenario *sc);

#endif
