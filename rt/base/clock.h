/* clock: the one reading of the time every layer shares (CLOCK_MONOTONIC, the clock of the measured
 * threads' timers and of the trace's events). */
#ifndef JL_CLOCK_H
#define JL_CLOCK_H

#include <stdint.h>

/* CLOCK_MONOTONIC now, in ns. */
int64_t jl_now_ns(void);

#endif
