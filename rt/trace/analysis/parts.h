/* parts: what a cycle's latency is made of. The part kinds (one registry row each: parts.c), a part,
 * and what builds a cycle's list of parts: add one (merged with an equal one), order them, pick the
 * culprit, say them in one line. */
#ifndef JL_TRACE_PARTS_H
#define JL_TRACE_PARTS_H

#include <stdbool.h>
#include <stdint.h>

/* The parts a cycle's latency is made of (contract: docs/outputs.md trace.worst[].parts[].kind, plus the kinds
 * after OTHER). A task is kind "task" (it blocked the wakeup) unless the woken task is real-time (RT or
 * DEADLINE) and the task has a lower priority. Then, while a lower task runs and the woken RT task waits:
 * - "throttle": RT bandwidth control kept the RT task off (RT throttling ended by sched_rt_period_timer,
 *   or the fair server running CFS tasks after its dl_task_timer), or without timer events a stretch with
 *   the shape of a budget (see bandwidth.c);
 * - "unpreempted": a lower task kept running for a while (>= JL_UNPREEMPTED_NS) without that shape: a
 *   non-preemptible kernel section or a vCPU the host took away; the trace cannot tell which;
 * - "other" named "preempting NAME": the short time the kernel took to preempt it.
 * For a CFS task woken, every task that ran first is a "task" (fair share). "lost": the window overlaps a
 * gap of lost events. "running" and "blocked": parts of the response window (wake -> end of work).
 * "executor": a callback ready while its executor's thread ran another callback (which one: the name).
 * "pool": a probed server's request ready while every worker of its program served another request (which,
 * and the calls they were in: the name and the detail). */
enum jl_part_kind { JL_PART_IRQ, JL_PART_SOFTIRQ, JL_PART_TASK, JL_PART_TIMER, JL_PART_IDLE_EXIT, JL_PART_OTHER,
		    JL_PART_THROTTLE, JL_PART_UNPREEMPTED, JL_PART_LOST, JL_PART_RUNNING, JL_PART_BLOCKED,
		    JL_PART_EXECUTOR, JL_PART_IPI, JL_PART_POOL, JL_PART_N };

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

/* The kinds of part an explanation is made of, one row each, indexed by enum jl_part_kind
 * (above), in parts.c: the decomposition orders and picks culprits by it, summary.json
 * writes its name, `jitterlab list` and jitterlab(8) print it, the tests read it back through `list`. */
struct jl_part_kind_info {
	const char *name; /* summary.json's worst[].parts[].kind */
	int rank;         /* a cycle's parts in rank order (lower first), the longest first within one rank */
	bool culprit;     /* may be the cycle's culprit (a task only when it names one: pid > 0) */
	bool interrupt;   /* interrupt context: it runs inside whatever it interrupts (its pid is its number) */
	const char *word; /* interrupt kinds: the word before the name in the one-line form ("irq 36 virtio1") */
	const char *help; /* what it means */
};
extern const struct jl_part_kind_info jl_part_kinds[];
extern const int jl_npart_kinds;

struct jl_cycle;
struct jl_analysis;
/* Add a part to C (merged with an equal one). */
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
/* Name the parts' tasks and order the parts (the longest first within a rank: jl_part_kinds). */
void jl_analysis_finish_parts(const struct jl_analysis *an, struct jl_cycle *c);

#endif
