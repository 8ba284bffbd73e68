/* lock: a [lock NAME]: a mutex held while a thread's or a callback's work runs, of one of the
 * kinds real-time code chooses between, with every acquisition timed:
 * - mutex: a plain pthread mutex (PTHREAD_PRIO_NONE): a waiter of high priority can wait for as long as a
 *   middle-priority task keeps the holder off its CPU (unbounded priority inversion);
 * - pi: PTHREAD_PRIO_INHERIT: the holder runs at its highest waiter's priority (the kernel's rt_mutex,
 *   seen in the trace as sched_pi_setprio), so the wait is bounded by the critical section;
 * - ceiling: PTHREAD_PRIO_PROTECT with a ceiling: every holder runs at the ceiling while it holds the
 *   lock (no waiter needed), which must be at least every user's priority.
 * - biglock: CPython's interpreter lock (ceval_gil.c, FORCE_SWITCHING): a waiter that got nothing within
 *   `switch_interval` asks the holder to drop it; the holder drops it at its next check point (the `sin`
 *   work has them; `spin` is one long C call and has none; `sleep` releases it while it sleeps), then
 *   waits until another thread has taken it. Not priority-inheriting. `handoffs` extra release/retake
 *   round trips per work call (an interpreter's executor does several per dispatch).
 * The work (work.h) takes it around each call: jl_work_run() is the one place it is taken.
 * Acquisitions are recorded into preallocated samples (a slot claimed with one atomic add; beyond the
 * capacity they are counted, never blocking), read after the run. */
#ifndef JL_LOCK_H
#define JL_LOCK_H

#include <pthread.h>
#include <stdatomic.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "biglock.h"

enum jl_lock_kind { JL_LOCK_MUTEX, JL_LOCK_PI, JL_LOCK_CEILING, JL_LOCK_BIGLOCK };

/* One acquisition: when it was asked for, taken, released (CLOCK_MONOTONIC ns), by which thread */
struct jl_lock_sample {
	int64_t ask, got, rel;
	int32_t tid;
};

struct jl_lock {
	char name[64];
	enum jl_lock_kind kind;
	int ceiling;                /* JL_LOCK_CEILING: the priority every holder runs at */
	pthread_mutex_t mu;
	bool init;
	struct jl_lock_sample *samples;
	size_t cap;
	atomic_size_t n;            /* slots claimed (may exceed cap: the rest were counted only) */
	atomic_uint_fast64_t errors; /* acquisitions that failed (EINVAL: a ceiling below the caller) */
	/* biglock: CPython's state (mu guards it; cond: the lock is free; switch_cond: it changed hands) */
	struct {
		pthread_cond_t cond, switch_cond;
		struct jl_biglock rule;  /* the state and its decisions (biglock.h), under mu */
		atomic_int drop_request; /* rule.drop_request, for the holder's check points (read without mu) */
		int64_t interval_ns;
		unsigned handoffs;
		atomic_uint_fast64_t forced; /* drops at a check point on a waiter's request */
	} big;
};

/* Name of a kind ("mutex", "pi", "ceiling"), and back (-1: none). */
const char *jl_lock_kind_name(enum jl_lock_kind k);
int jl_lock_kind_parse(const char *s);
/* Make L of KIND (CEILING for JL_LOCK_CEILING) with room for CAP samples (prefaulted). 0, or -1 with errno. */
int jl_lock_init(struct jl_lock *l, const char *name, enum jl_lock_kind kind, int ceiling, size_t cap);
/* biglock: its switch interval and hand-offs per work call (before the first take) */
void jl_lock_set_biglock(struct jl_lock *l, int64_t interval_ns, unsigned handoffs);
void jl_lock_free(struct jl_lock *l);

/* On the cycle path: take L (the time asked for in *ASK, taken in *GOT); false if it could not be taken */
bool jl_lock_take(struct jl_lock *l, int64_t *ask, int64_t *got);
/* ... and give it back, recording the acquisition (by the thread jl_lock_thread named) */
void jl_lock_give(struct jl_lock *l, int64_t ask, int64_t got);
/* At a thread's start, before its first lock: its tid, for the samples (no syscall on the cycle path) */
void jl_lock_thread(int32_t tid);
/* biglock, on the work's check points (the holder's): give it up and take it back if a waiter asked */
static inline bool jl_lock_drop_requested(struct jl_lock *l)
{
	return atomic_load_explicit(&l->big.drop_request, memory_order_relaxed) != 0;
}
void jl_lock_checkpoint(struct jl_lock *l);
/* biglock: give it up around a blocking call (a sleep), and take it back after */
void jl_lock_release_for_block(struct jl_lock *l);
void jl_lock_retake_after_block(struct jl_lock *l);

/* Readers (after the run): the samples kept, and the acquisitions beyond the capacity */
static inline size_t jl_lock_count(const struct jl_lock *l)
{
	size_t n = atomic_load(&l->n);

	return n < l->cap ? n : l->cap;
}

static inline size_t jl_lock_dropped(const struct jl_lock *l)
{
	size_t n = atomic_load(&l->n);

	return n > l->cap ? n - l->cap : 0;
}

#endif
