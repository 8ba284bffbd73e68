/* probe_paths: a probed program for the integration tests (include/jitterlab/probe.h).
 *
 *   probe_paths loops PERIOD_US      two threads, the same loop half a period apart: "ring" records through
 *                                    its ring, "marker" through the trace marker (its ring refused by
 *                                    hand); each prints "NAME release NS" for every cycle it ran
 *   probe_paths burst PAIRS [wait]   wake/end pairs back to back (faster than the run drains: the ring
 *                                    fills), then prints "calls N" (the calls made, the name's included);
 *                                    with wait, waits for the run to end it
 *   probe_paths forever              pairs back to back until it is killed
 *   probe_paths fork PAIRS           named "parent", forks; each process then writes PAIRS pairs (the
 *                                    child under its own name and ring), prints "done"
 */
#include <pthread.h>
#include <sys/wait.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "jitterlab/probe.h"

static volatile sig_atomic_t stop;
static int64_t period_ns, start_ns;

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

struct loop {
	const char *name;
	int64_t offset;
	int64_t *rel;
	long n, cap;
	pthread_t t;
};

static void *loop_main(void *arg)
{
	struct loop *l = arg;
	int64_t next = start_ns + l->offset;

	if (!strcmp(l->name, "marker"))
		jl_probe__me.state = -1; /* this thread writes to the marker: the old path, beside the ring */
	jl_probe_init();
	jl_probe_name(l->name);
	while (!stop && l->n < l->cap) {
		struct timespec ts = { next / 1000000000LL, next % 1000000000LL };
		int64_t t;

		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
		if (stop)
			break;
		jl_probe_wake(next);
		for (t = now_ns(); now_ns() - t < 100000;) /* 100 us of work */
			;
		jl_probe_end();
		l->rel[l->n++] = next;
		next += period_ns;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "";

	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (!strcmp(mode, "loops") && argc > 2) {
		struct loop l[2] = { { .name = "ring" }, { .name = "marker" } };

		period_ns = atoll(argv[2]) * 1000;
		start_ns = now_ns() + 50 * 1000000LL;
		for (int i = 0; i < 2; i++) {
			l[i].offset = i * period_ns / 2;
			l[i].cap = 1000000;
			l[i].rel = calloc((size_t)l[i].cap, sizeof(int64_t));
			if (!l[i].rel || pthread_create(&l[i].t, NULL, loop_main, &l[i]))
				return 1;
		}
		for (int i = 0; i < 2; i++)
			pthread_join(l[i].t, NULL);
		for (int i = 0; i < 2; i++)
			for (long k = 0; k < l[i].n; k++)
				printf("%s release %lld\n", l[i].name, (long long)l[i].rel[k]);
		return 0;
	}
	if (!strcmp(mode, "burst") && argc > 2) {
		long pairs = atol(argv[2]), calls = 1;

		jl_probe_init();
		jl_probe_name("burst");
		for (long i = 0; i < pairs; i++) {
			jl_probe_wake(0);
			jl_probe_end();
			calls += 2;
		}
		printf("calls %ld\n", calls);
		fflush(stdout);
		while (argc > 3 && !strcmp(argv[3], "wait") && !stop) /* the run ends it */
			pause();
		return 0;
	}
	if (!strcmp(mode, "burstnamed") && argc > 2) { /* requests of one method, back to back */
		long pairs = atol(argv[2]), calls = 0;

		jl_probe_init();
		for (long i = 0; i < pairs; i++) {
			jl_probe_wake_as("req", 0);
			jl_probe_end();
			calls += 3; /* its name, its wake, its end */
		}
		printf("calls %ld\n", calls);
		fflush(stdout);
		while (!stop) /* the run ends it */
			pause();
		return 0;
	}
	if (!strcmp(mode, "forever")) {
		jl_probe_init();
		printf("connected\n");
		fflush(stdout);
		for (;;) {
			jl_probe_wake(0);
			jl_probe_end();
		}
	}
	if (!strcmp(mode, "fork") && argc > 2) {
		long pairs = atol(argv[2]);
		pid_t child;

		jl_probe_init();
		jl_probe_name("parent");
		child = fork();
		if (child == 0)
			jl_probe_name("child"); /* its own connection and ring: not the parent's */
		for (long i = 0; i < pairs; i++) {
			jl_probe_wake(0);
			jl_probe_end();
		}
		if (child > 0)
			waitpid(child, NULL, 0);
		printf("done\n");
		fflush(stdout);
		while (child > 0 && !stop) /* the run ends it */
			pause();
		return 0;
	}
	fprintf(stderr, "usage: probe_paths loops PERIOD_US | burst PAIRS [wait] | forever | fork PAIRS\n");
	return 2;
}
