/* probe_cost: the cost of one probe call (jl_probe_wake or jl_probe_end), in ns, measured over N pairs.
 * Run under jitterlab (exec with measure = probe): the calls write to the run's trace; outside a run: the
 * no-op branch. Prints "probe_cost: N pairs, X ns per call (connected|no run)". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "jitterlab/probe.h"

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 100000;
	int connected = jl_probe_init() == 0;
	int64_t t0, t1;

	jl_probe_name("cost");
	t0 = now_ns();
	for (long i = 0; i < n; i++) {
		jl_probe_wake(0);
		jl_probe_end();
	}
	t1 = now_ns();
	printf("probe_cost: %ld pairs, %.1f ns per call (%s)\n", n, (double)(t1 - t0) / (2.0 * (double)n),
	       connected ? "connected" : "no run");
	return 0;
}
