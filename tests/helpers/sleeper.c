/* sleeper: an unmodified periodic program (no jitterlab probe, no marker), the kind `measure = wakeups`
 * measures from the trace alone. Each cycle it sleeps until its next release by one of the ways a real
 * program does, then reads the clock at once and logs, as cyclictest does, when it asked to wake and
 * when it found itself running (both on CLOCK_MONOTONIC, ns): the reference the trace-only series is
 * checked against cycle by cycle.
 *
 *   sleeper [-m abs|rel|realtime|timerfd|posix|poll] [-p PERIOD_US] [-n CYCLES] [-l LOG]
 *     abs       clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) on a period grid (cyclictest's way)
 *     rel       nanosleep(period): relative, what time.sleep() does; the grid drifts
 *     realtime  clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME): the timer runs on the wall clock
 *     timerfd   a periodic timerfd waited for in epoll_wait
 *     posix     a periodic POSIX timer (timer_create, SIGEV_SIGNAL) taken by sigwaitinfo
 *     poll      poll() with the period as timeout on a pipe a second thread writes to every 3rd cycle,
 *               so that some cycles end early by a message (woken by a task, not by the timer)
 * The log's lines: "cycle requested_ns woke_ns how" (how: timer, or message for a poll ended by data). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE
#endif
#include <errno.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/epoll.h>
#include <sys/timerfd.h>
#include <time.h>
#include <unistd.h>

#define NS 1000000000LL

static int64_t now_ns(clockid_t c)
{
	struct timespec ts;

	clock_gettime(c, &ts);
	return (int64_t)ts.tv_sec * NS + ts.tv_nsec;
}

static struct timespec ts_of(int64_t ns)
{
	return (struct timespec){ .tv_sec = ns / NS, .tv_nsec = ns % NS };
}

static int pipefd[2];
static int64_t period;

static void *writer(void *arg)
{
	(void)arg;
	for (;;) {
		struct timespec d = ts_of(period * 3 - period / 2);

		nanosleep(&d, NULL);
		if (write(pipefd[1], "x", 1) != 1)
			return NULL;
	}
}

int main(int argc, char **argv)
{
	const char *mode = "abs", *logpath = NULL;
	long cycles = 1000;
	int64_t next, off = 0;
	FILE *log = NULL;
	int opt, tfd = -1, ep = -1;
	timer_t pt;
	sigset_t set;

	period = 1000000;
	while ((opt = getopt(argc, argv, "m:p:n:l:")) != -1) {
		if (opt == 'm')
			mode = optarg;
		else if (opt == 'p')
			period = atoll(optarg) * 1000;
		else if (opt == 'n')
			cycles = atol(optarg);
		else if (opt == 'l')
			logpath = optarg;
		else
			return 2;
	}
	if (period <= 0 || cycles <= 0 || (logpath && !(log = fopen(logpath, "w")))) {
		fprintf(stderr, "sleeper: bad arguments\n");
		return 2;
	}
	if (log) /* a line per cycle: a run that ends the program keeps every cycle it logged */
		setvbuf(log, NULL, _IOLBF, 0);
	next = now_ns(CLOCK_MONOTONIC) + period;
	if (!strcmp(mode, "timerfd")) {
		struct itimerspec its = { .it_interval = ts_of(period), .it_value = ts_of(next) };
		struct epoll_event e = { .events = EPOLLIN };

		tfd = timerfd_create(CLOCK_MONOTONIC, 0);
		ep = epoll_create1(0);
		if (tfd < 0 || ep < 0 || epoll_ctl(ep, EPOLL_CTL_ADD, tfd, &e) ||
		    timerfd_settime(tfd, TFD_TIMER_ABSTIME, &its, NULL))
			return perror("sleeper: timerfd"), 1;
	} else if (!strcmp(mode, "posix")) {
		struct sigevent sev = { .sigev_notify = SIGEV_SIGNAL, .sigev_signo = SIGRTMIN };
		struct itimerspec its = { .it_interval = ts_of(period), .it_value = ts_of(next) };

		sigemptyset(&set);
		sigaddset(&set, SIGRTMIN);
		sigprocmask(SIG_BLOCK, &set, NULL);
		if (timer_create(CLOCK_MONOTONIC, &sev, &pt) || timer_settime(pt, TIMER_ABSTIME, &its, NULL))
			return perror("sleeper: timer_create"), 1;
	} else if (!strcmp(mode, "poll")) {
		pthread_t w;

		if (pipe(pipefd) || pthread_create(&w, NULL, writer, NULL))
			return perror("sleeper: pipe"), 1;
	} else if (!strcmp(mode, "realtime")) {
		off = now_ns(CLOCK_REALTIME) - now_ns(CLOCK_MONOTONIC);
	} else if (strcmp(mode, "abs") && strcmp(mode, "rel")) {
		fprintf(stderr, "sleeper: -m %s: expected abs, rel, realtime, timerfd, posix or poll\n", mode);
		return 2;
	}
	for (long c = 0; c < cycles; c++) {
		const char *how = "timer";
		int64_t woke, asked = next;

		if (!strcmp(mode, "abs")) {
			struct timespec t = ts_of(next);

			while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &t, NULL) == EINTR)
				;
		} else if (!strcmp(mode, "realtime")) {
			struct timespec t = ts_of(next + off);

			while (clock_nanosleep(CLOCK_REALTIME, TIMER_ABSTIME, &t, NULL) == EINTR)
				;
		} else if (!strcmp(mode, "rel")) {
			struct timespec t = ts_of(period);

			asked = now_ns(CLOCK_MONOTONIC) + period; /* what the kernel arms: now + the request */
			nanosleep(&t, NULL);
		} else if (!strcmp(mode, "timerfd")) {
			struct epoll_event e;
			uint64_t n;

			if (epoll_wait(ep, &e, 1, -1) != 1 || read(tfd, &n, sizeof(n)) != sizeof(n))
				return perror("sleeper: epoll"), 1;
			asked = next += (int64_t)(n - 1) * period; /* overran: the last expiry is this wake's */
		} else if (!strcmp(mode, "posix")) {
			siginfo_t si;

			if (sigwaitinfo(&set, &si) < 0)
				return perror("sleeper: sigwaitinfo"), 1;
			asked = next += (int64_t)si.si_overrun * period;
		} else {
			struct pollfd p = { .fd = pipefd[0], .events = POLLIN };
			int ms = (int)((next - now_ns(CLOCK_MONOTONIC) + 999999) / 1000000); /* poll's unit: ms */
			char b;

			asked = now_ns(CLOCK_MONOTONIC) + (int64_t)(ms > 0 ? ms : 0) * 1000000;
			if (poll(&p, 1, ms > 0 ? ms : 0) > 0 && read(pipefd[0], &b, 1) == 1)
				how = "message";
		}
		woke = now_ns(CLOCK_MONOTONIC);
		if (log)
			fprintf(log, "%ld %lld %lld %s\n", c, (long long)asked, (long long)woke, how);
		next += period;
		if (!strcmp(mode, "rel") || !strcmp(mode, "poll"))
			next = woke + period;
	}
	if (log)
		fclose(log);
	return 0;
}
