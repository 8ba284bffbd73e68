/* biglock: CPython's interpreter-lock rule (Python/ceval_gil.c with FORCE_SWITCHING), pure: the state
 * and the decisions, with no clock, no thread and no lock of its own. lock.c runs it under its mutex with
 * real threads and condition variables; tests/unit/test_biglock.c runs it on a fake clock.
 * - a thread that asks while another holds it waits at most the switch interval; if the lock did not
 *   change hands in that interval, it sets the drop request and waits again;
 * - the holder, at its next check point, drops it when the request is set, then waits until another
 *   thread has taken it (FORCE_SWITCHING: it cannot retake it at once);
 * - whoever takes it clears the request. */
#ifndef JL_BIGLOCK_H
#define JL_BIGLOCK_H

#include <stdbool.h>
#include <stdint.h>

struct jl_biglock {
	bool locked;
	uint64_t switch_number;  /* takes so far: a change means the lock changed hands */
	bool drop_request;       /* a waiter timed out: the holder drops it at its next check point */
};

/* A thread asks for it: true if it took it (it was free); else it waits (a timed wait of the switch
 * interval) and, after, calls jl_biglock_waited with the switch number it saw when it began waiting. */
bool jl_biglock_try_take(struct jl_biglock *b);
/* A waiter's wait ended: by the interval passing (TIMED_OUT) or a signal. Sets the drop request when
 * the interval passed without the lock changing hands. Then it tries again (jl_biglock_try_take). */
void jl_biglock_waited(struct jl_biglock *b, uint64_t seen, bool timed_out);
/* The holder at a check point: must it drop it now? */
static inline bool jl_biglock_must_drop(const struct jl_biglock *b)
{
	return b->drop_request;
}
/* The holder gives it up; returns the switch number a forced dropper waits to see change. */
uint64_t jl_biglock_release(struct jl_biglock *b);
/* A forced dropper may go on (and ask again) once another thread took it after its release at SEEN. */
bool jl_biglock_switched(const struct jl_biglock *b, uint64_t seen);

#endif
