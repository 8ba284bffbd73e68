/* clock: see clock.h. */
#include <time.h>

#include "clock.h"
#include "units.h"

int64_t jl_now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * JL_NSEC_PER_SEC + ts.tv_nsec;
}
