/* dispatch: an executor's ready queue and its dispatch rule, the model the executor driver runs
 * on its pool threads and the unit tests run on a fake clock. Pure: no clock, no threads, no allocation
 * after jl_dispatch_init; the caller holds the executor's one (priority-inheriting) lock around every call.
 *
 * What it models, after rclcpp (ros2/rclcpp: executor.cpp get_next_ready_executable, the
 * MultiThreadedExecutor's wait mutex, rcl's timer call):
 * - callbacks are timers (a period and a phase) or subscriptions (messages posted to them);
 * - a callback belongs to a group: mutually exclusive (its callbacks never run at once: while one runs,
 *   the group's others leave the wait set) or reentrant (any number at once, even the same callback);
 * - JL_DISPATCH_RCLCPP: at each wait point the executor takes a snapshot of the ready callbacks (timers
 *   first, then subscriptions, each in declaration order) and runs each at most once before it waits again;
 *   what becomes ready meanwhile waits for the next snapshot. With several threads, the threads take the
 *   wait in turn (the caller's lock), and a callback whose group became busy is skipped in the snapshot.
 *   (Jazzy iterates entities in hash order, still so at rclcpp 29.3.0, where rclcpp#2537 is not merged;
 *   this model keeps declaration order, as Iron did.)
 * - JL_DISPATCH_FIFO: the callback that became ready first runs first (an events executor, but with one
 *   ready time per callback, not one queue event per message or per timer call: docs/design-notes.md);
 * - a timer that missed periods runs once and keeps its phase (rcl_timer_call: the next call time is one
 *   period on, or, if that has passed, the first period boundary at or after now), counting the periods it
 *   skipped. (That is Humble's and Iron's rcl; rcl 9, since ros2/rcl#1089, takes the first boundary strictly
 *   after now: the two differ only when a call lands exactly on a boundary.)
 * Known difference: a callback of the current snapshot whose group is busy when its turn comes is dropped
 * from that snapshot (rclcpp keeps such a timer in the wait result and takes it before waiting again; such
 * a subscription it drops too), so a callback that became ready meanwhile and is declared earlier can run
 * first. */
#ifndef JL_DISPATCH_H
#define JL_DISPATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "../scenario/scenario.h" /* enum jl_dispatch_rule */

enum jl_cb_kind { JL_CB_TIMER, JL_CB_SUBSCRIPTION };

#define JL_GROUP_REENTRANT (-1)

struct jl_dcb {
	enum jl_cb_kind kind;
	int group;                  /* index of its mutually exclusive group, or JL_GROUP_REENTRANT */
	int64_t period, phase;      /* timers: first release at phase, then every period */
	int64_t jitter;             /* timers: each release later by a declared pseudo-random 0..jitter (0: none) */
	uint64_t seed;              /* its jitter's sequence (the run's seed and the callback: reproducible) */
	/* state */
	int64_t next;               /* timers: the next release on the period grid */
	int64_t off;                /* its jitter: the release is due at next + off */
	int64_t base;               /* its first release on the grid (t0 + phase) */
	int64_t ready_at;           /* when it became ready (FIFO order; the release or the first message) */
	uint64_t seq;               /* FIFO: the order it became ready in */
	uint32_t pending;           /* subscriptions: messages not yet taken */
	uint32_t running;           /* runs in progress (reentrant: may be more than one) */
	uint64_t runs, skipped;     /* taken; timer periods skipped */
};

struct jl_dispatch {
	enum jl_dispatch_rule rule;
	struct jl_dcb *cbs;
	int ncbs;
	bool *group_busy;           /* per mutually exclusive group */
	int ngroups;
	int *snapshot;              /* RCLCPP: the callbacks of the current wait, in run order */
	int nsnap, snap_pos;
	uint64_t seq;
};

/* Set up NCBS callbacks (CBS[i].kind, group, period, phase filled in; state cleared here) in NGROUPS
 * mutually exclusive groups; T0: the time the executor starts. 0, or -1 (ENOMEM). */
int jl_dispatch_init(struct jl_dispatch *d, enum jl_dispatch_rule rule, struct jl_dcb *cbs, int ncbs, int ngroups,
		     int64_t t0);
void jl_dispatch_free(struct jl_dispatch *d);
/* Start (again) at T0: every timer's first release at T0 + its phase, nothing pending. No allocation. */
void jl_dispatch_start(struct jl_dispatch *d, int64_t t0);
/* A message for subscription CB arrived at NOW. */
void jl_dispatch_post(struct jl_dispatch *d, int cb, int64_t now);
/* Subscription CB still has messages after a take, the next of which arrived at AT: FIFO orders it by
 * that arrival (what an events executor's one event per message does; the model alone, knowing no
 * arrivals, stamps it with the take's time). The driver, whose histories hold each arrival, calls it. */
void jl_dispatch_restamp(struct jl_dispatch *d, int cb, int64_t at);
/* The callback the calling thread runs next at NOW, taken (its group busy, a timer moved to its next
 * release, a message consumed), or -1: nothing can run now (wait until jl_dispatch_next_release() or a
 * post). *READY: when it became ready (a timer's release, a message's arrival). */
int jl_dispatch_take(struct jl_dispatch *d, int64_t now, int64_t *ready);
/* Callback CB's run ended. */
void jl_dispatch_done(struct jl_dispatch *d, int cb);
/* The earliest release of a timer that can run when its turn comes (INT64_MAX: none). */
int64_t jl_dispatch_next_release(const struct jl_dispatch *d);

#endif
