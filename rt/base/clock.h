/* clock: the one reading of the time every layer shares (CLOCK_MONOTONIC, the clock of the measured
 * threads' timers and of the trace's events). */
#ifndef JL_CLOCK_H
#define JL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns. */
int64_t jl_now_ns(void);
/* The wall clock (CLOCK_REALTIME, ns since the epoch) at CLOCK_MONOTONIC time MONO_NS, as the two clocks
 * stand now. */
int64_t jl_realtime_at(int64_t mono_ns);

#endif
