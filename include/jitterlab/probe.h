/* jitterlab/probe.h: mark the cycles of your own loop so that jitterlab measures them (C and C++,
 * header only, no library to link).
 *
 *   #include <jitterlab/probe.h>
 *
 *   jl_probe_name("control");            // optional, once per thread: the series' name
 *   for (;;) {
 *           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
 *           jl_probe_wake(ts_ns(&next));     // the time the loop meant to wake (0: it has none)
 *           do_work();
 *           jl_probe_end();
 *           next += period;
 *   }
 *
 * Run it under jitterlab as `exec = ./my_loop` with `measure = probe` in its [thread] section. Each call
 * is one write() of a few bytes to the run's tracing instance (trace_marker_raw), so the records carry
 * the same clock as the kernel's scheduling events and jitterlab pairs each cycle with its wakeup.
 * Outside a jitterlab run every call is a no-op costing one branch. The first call connects (a few
 * system calls): call jl_probe_init() before the loop to keep that out of the first cycle.
 *
 * How the probe reaches jitterlab: JITTERLAB_PROBE names a unix socket on which the run hands over an
 * open descriptor (SCM_RIGHTS), so it works for a program started by a launcher that closes inherited
 * descriptors, and as the sudo user; a program running as root falls back to opening
 * JITTERLAB_PROBE_MARKER. When JITTERLAB_PROBE is set but neither works, the probe says so once on
 * stderr and stays a no-op. Thread-safe: any thread may call it; the descriptor is shared by every file
 * of the program that includes this header (a weak symbol). Needs POSIX 2008 (_GNU_SOURCE, or
 * _POSIX_C_SOURCE 200809L, or the compiler's default gnu dialect) for O_CLOEXEC; C99 and later, C++11 and
 * later. */
#ifndef JITTERLAB_PROBE_H
#define JITTERLAB_PROBE_H

#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/un.h>
#include <unistd.h>

#define JL_PROBE_ID 0x4a4c5042u /* "JLPB": the first 4 bytes of every probe record */

enum jl_probe_kind { JL_PROBE_WAKE = 1, JL_PROBE_END = 2, JL_PROBE_NAME = 3 };

/* One record as written (little-endian on every platform jitterlab runs on): WAKE and END are the
 * first 16 bytes, NAME all 32. */
struct jl_probe_rec {
	uint32_t id;
	uint32_t kind;
	int64_t release_ns; /* WAKE: the CLOCK_MONOTONIC time the loop meant to wake, 0 = none */
	char name[16];      /* NAME: the series' name, [a-z0-9_-], NUL-padded */
};

/* -2: not connected yet, -1: no jitterlab run (every call returns at once), else the descriptor; one for
 * the whole program (weak: every file that includes this header shares it) */
__attribute__((weak)) int jl_probe__fd = -2;

static inline int jl_probe__receive(const char *sock_path)
{
	struct sockaddr_un sa;
	char byte, ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	int s, fd = -1;

	memset(&sa, 0, sizeof(sa));
	memset(&msg, 0, sizeof(msg));
	sa.sun_family = AF_UNIX;
	iov.iov_base = &byte;
	iov.iov_len = 1;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	if (strlen(sock_path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, sock_path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 && recvmsg(s, &msg, MSG_CMSG_CLOEXEC) == 1 &&
	    (c = CMSG_FIRSTHDR(&msg)) && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(&fd, CMSG_DATA(c), sizeof(fd));
	else if (errno == 0 || errno == EINPROGRESS)
		errno = EACCES; /* the run refused this program (not one of its own, or another user) */
	close(s);
	return fd;
}

/* Connect to the run (once; later calls return at once). Returns 0 when records go to a run, -1 when
 * there is none (the probe is then a no-op). */
static inline int jl_probe_init(void)
{
	int fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_ACQUIRE), expected = -2;
	const char *sock, *marker;

	if (fd != -2)
		return fd >= 0 ? 0 : -1;
	sock = getenv("JITTERLAB_PROBE");
	marker = getenv("JITTERLAB_PROBE_MARKER");
	fd = -1;
	errno = 0;
	if (sock && *sock) {
		fd = jl_probe__receive(sock);
		if (fd < 0 && marker && *marker && geteuid() == 0)
			fd = open(marker, O_WRONLY | O_CLOEXEC);
		if (fd < 0)
			fprintf(stderr, "jitterlab probe: cannot reach the run at %s (%s): cycles are not recorded\n",
				sock, strerror(errno));
	}
	if (!__atomic_compare_exchange_n(&jl_probe__fd, &expected, fd, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
		if (fd >= 0)
			close(fd); /* another thread connected first */
		fd = expected;
	}
	return fd >= 0 ? 0 : -1;
}

static inline void jl_probe__write(uint32_t kind, int64_t release_ns, const char *name)
{
	struct jl_probe_rec r;
	int fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_RELAXED);

	if (__builtin_expect(fd == -1, 1) && !name)
		return; /* no run: the one branch */
	if (fd == -2) {
		jl_probe_init();
		fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_ACQUIRE);
	}
	if (fd < 0)
		return;
	memset(&r, 0, sizeof(r));
	r.id = JL_PROBE_ID;
	r.kind = kind;
	r.release_ns = release_ns;
	if (name)
		strncpy(r.name, name, sizeof(r.name) - 1);
	if (write(fd, &r, name ? sizeof(r) : offsetof(struct jl_probe_rec, name)) < 0) {
		/* best effort: a full buffer loses the record, the trace reports lost events */
	}
}

/* The loop woke for the cycle due at RELEASE_NS (CLOCK_MONOTONIC ns; 0 when it has no such time). */
static inline void jl_probe_wake(int64_t release_ns)
{
	jl_probe__write(JL_PROBE_WAKE, release_ns, NULL);
}

/* The cycle's work ended. */
static inline void jl_probe_end(void)
{
	jl_probe__write(JL_PROBE_END, 0, NULL);
}

/* Name this thread's series (at most 15 characters of [a-z0-9_-]); without it, the thread's name. */
static inline void jl_probe_name(const char *name)
{
	jl_probe__write(JL_PROBE_NAME, 0, name ? name : "");
}

#endif
