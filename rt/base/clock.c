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

int64_t jl_realtime_at(int64_t mono_ns)
{
	struct timespec r;
	int64_t m = jl_now_ns();

	clock_gettime(CLOCK_REALTIME, &r);
	return (int64_t)r.tv_sec * 1000000000LL + r.tv_nsec + (mono_ns - m);
}
