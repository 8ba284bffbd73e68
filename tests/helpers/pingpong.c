/* pingpong: a test helper (tests/integration/test_trace.py): a periodic loop whose work blocks until
 * another task wakes it, the shape the harness has no work kind for yet. Thread "pp-loop" (the policy and
 * CPUs jitterlab gives the process) releases every PERIOD_US at absolute times, writes a byte into a pipe
 * and blocks reading the reply; thread "pp-writer" (SCHED_OTHER) reads it, spins WORK_US and replies.
 * Prints "tids LOOP WRITER" and then one line per cycle "cycle,release_ns,wake_ns,end_ns" (CLOCK_MONOTONIC)
 * on stdout, and stops after CYCLES cycles or on SIGINT/SIGTERM.
 *   pingpong PERIOD_US WORK_US CYCLES */
#include <errno.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static int to_writer[2], to_loop[2];
static long work_us;
static volatile sig_atomic_t stop;
static pid_t writer_tid;

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

static void on_signal(int sig)
{
	(void)sig;
	stop = 1;
}

static void *writer_main(void *arg)
{
	char b;
	struct sched_param sp = { 0 };

	(void)arg;
	pthread_setname_np(pthread_self(), "pp-writer");
	writer_tid = (pid_t)syscall(SYS_gettid);
	pthread_setschedparam(pthread_self(), SCHED_OTHER, &sp);
	while (read(to_writer[0], &b, 1) == 1) {
		int64_t until = now_ns() + work_us * 1000;

		while (now_ns() < until)
			;
		if (write(to_loop[1], &b, 1) != 1)
			break;
	}
	return NULL;
}

int main(int argc, char **argv)
{
	long period_us, cycles;
	pthread_t w;
	int64_t release;
	struct timespec ts;
	char b = 'x';

	if (argc != 4) {
		fprintf(stderr, "usage: pingpong PERIOD_US WORK_US CYCLES\n");
		return 2;
	}
	period_us = atol(argv[1]);
	work_us = atol(argv[2]);
	cycles = atol(argv[3]);
	signal(SIGINT, on_signal);
	signal(SIGTERM, on_signal);
	if (pipe(to_writer) || pipe(to_loop) || pthread_create(&w, NULL, writer_main, NULL))
		return 1;
	pthread_setname_np(pthread_self(), "pp-loop");
	while (!writer_tid)
		usleep(1000);
	printf("tids %ld %ld\n", (long)syscall(SYS_gettid), (long)writer_tid);
	release = now_ns() + 100000000LL;
	for (long c = 0; c < cycles && !stop; c++, release += period_us * 1000) {
		int64_t wake, end;

		ts.tv_sec = release / 1000000000LL;
		ts.tv_nsec = release % 1000000000LL;
		while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR && !stop)
			;
		wake = now_ns();
		if (write(to_writer[1], &b, 1) != 1 || read(to_loop[0], &b, 1) != 1)
			break;
		end = now_ns();
		printf("%ld,%lld,%lld,%lld\n", c, (long long)release, (long long)wake, (long long)end);
	}
	fflush(stdout);
	return 0;
}
