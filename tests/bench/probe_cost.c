/* probe_cost: the cost of one probe call (jl_probe_wake or jl_probe_end), in ns, measured over N pairs.
 * Run under jitterlab (exec with measure = probe): the calls go to the thread's ring (or, with
 * JITTERLAB_PROBE_RING=0, to the trace marker); outside a run: the no-op branch. The pairs come in bursts
 * of 200 with a 20 ms pause between them, so that the run drains the ring (every 5 ms) and no call finds
 * it full (a full ring's call only counts the loss: it would flatter the figure); only the bursts are
 * timed. Prints "probe_cost: N pairs, X ns per call (connected|no run)". */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "jitterlab/probe.h"

#define BURST 200

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
	int64_t spent = 0;

	jl_probe_name("cost");
	for (long done = 0; done < n; done += BURST) {
		struct timespec pause = { 0, 20 * 1000000L };
		int64_t t0 = now_ns();

		for (long i = 0; i < BURST; i++) {
			jl_probe_wake(0);
			jl_probe_end();
		}
		spent += now_ns() - t0;
		if (connected)
			nanosleep(&pause, NULL);
	}
	printf("probe_cost: %ld pairs, %.1f ns per call (%s)\n", (n + BURST - 1) / BURST * BURST,
	       (double)spent / (2.0 * (double)((n + BURST - 1) / BURST * BURST)), connected ? "connected" : "no run");
	return 0;
}
