/* probe_loop: a periodic C loop that marks its cycles with the jitterlab probe (include/jitterlab/probe.h).
 * Run it under jitterlab with `exec = build/examples/probe_loop 1000 200` and `measure = probe`:
 * a 1000 us period, 200 us of spin per cycle. Prints the cycles it ran when it ends (SIGINT/SIGTERM). */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "jitterlab/probe.h"

static volatile sig_atomic_t stop;

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

int main(int argc, char **argv)
{
	int64_t period = (argc > 1 ? atoll(argv[1]) : 1000) * 1000, spin = (argc > 2 ? atoll(argv[2]) : 100) * 1000;
	int64_t next;
	long cycles = 0;

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	jl_probe_init(); /* connect before the loop: the first cycle then costs what every cycle costs */
	jl_probe_name("loop");
	next = now_ns() + period;
	while (!stop) {
		struct timespec ts = { next / 1000000000LL, next % 1000000000LL };
		int64_t t;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (stop)
			break;
		jl_probe_wake(next);
		for (t = now_ns(); now_ns() - t < spin;)
			;
		jl_probe_end();
		cycles++;
		next += period;
	}
	printf("probe_loop: %ld cycles\n", cycles);
	return 0;
}
