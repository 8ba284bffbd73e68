/* stop: the process-wide stop flag, the one global of jitterlab.
 * Why a global: it is read in every measured thread's cycle and inside long work calls (a 50 M sin()
 * call must notice a stop within milliseconds), and it is set from the signal/watchdog path. Passing
 * a pointer to every work kind would buy nothing but an indirection. Reads are relaxed atomics. */
#ifndef JL_STOP_H
#define JL_STOP_H

#include <stdatomic.h>
#include <stdbool.h>

/* END: the run reached its end: neighbours (continuous threads, children) stop, while periodic
 * threads finish the cycle they are in and leave at their first release past the end.
 * SIGNAL, WATCHDOG, ERROR end the run early: everything stops at once. */
enum jl_stop_reason { JL_STOP_NONE = 0, JL_STOP_END, JL_STOP_SIGNAL, JL_STOP_WATCHDOG, JL_STOP_ERROR };


extern atomic_int jl_stop_flag;

static inline enum jl_stop_reason jl_stop_reason(void)
{
	return (enum jl_stop_reason)atomic_load(&jl_stop_flag);
}

static inline bool jl_stopping(void)
{
	return atomic_load_explicit(&jl_stop_flag, memory_order_relaxed) != JL_STOP_NONE;
}

static inline void jl_stop_request(enum jl_stop_reason why)
{
	int expected = JL_STOP_NONE;

	atomic_compare_exchange_strong(&jl_stop_flag, &expected, (int)why);
}

/* True when every thread must stop now (not just the neighbours). */
static inline bool jl_stopping_now(void)
{
	return atomic_load_explicit(&jl_stop_flag, memory_order_relaxed) > JL_STOP_END;
}

/* For tests and long-lived callers: lower the flag again. */
static inline void jl_stop_reset(void)
{
	atomic_store(&jl_stop_flag, JL_STOP_NONE);
}

#endif
