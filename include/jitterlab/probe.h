/* jitterlab/probe.h: mark the cycles of your own loop so that jitterlab measures them (C and C++,
 * header only, no library to link).
 *
 *   #include <jitterlab/probe.h>
 *
 *   jl_probe_init();                     // optional, once per thread, before its loop: connects it
 *   jl_probe_name("control");            // optional, once per thread: the series' name
 *   for (;;) {
 *           clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
 *           jl_probe_wake(ts_ns(&next));     // the time the loop meant to wake (0: it has none)
 *           do_work();
 *           jl_probe_end();
 *           next += period;
 *   }
 *
 * Run it under jitterlab as `exec = ./my_loop` with `measure = probe` in its [thread] section.
 *
 * How a call reaches the run: each thread of the program gets a ring of fixed 32-byte records in memory
 * the run shares with it (preallocated, locked and prefaulted). A call is a store of the record, stamped
 * with CLOCK_MONOTONIC (the vDSO: the clock of the run's trace) and the CPU (rseq or the vDSO's getcpu):
 * no system call, tens of nanoseconds. jitterlab drains the rings from a housekeeping CPU and writes the
 * records into trace.dat as the kernel would have (ftrace raw_data events on the CPU they were made on,
 * the thread as their pid), so trace-cmd, KernelShark and `jitterlab analyze` see them where they
 * happened. A full ring loses the record (counted, reported like lost events), it never blocks.
 * Where a thread gets no ring (more threads than the run has rings, an older jitterlab), its calls write
 * the same record to the run's trace_marker_raw instead: one write(2) each, the kernel's timestamp.
 * JITTERLAB_PROBE_RING=0 in the environment chooses that path for every thread (a comparison).
 * Outside a jitterlab run every call is a no-op costing one branch. A thread's first call connects (a few
 * system calls): call jl_probe_init() in each thread before its loop to keep that out of the first cycle.
 *
 * How the probe reaches jitterlab: JITTERLAB_PROBE names a unix socket on which the run hands over an
 * open descriptor of the trace marker, then, asked with the thread's id, the ring's memory and which ring
 * is the thread's (SCM_RIGHTS), so it works for a program started by a launcher that closes inherited
 * descriptors, and as the sudo user; a program running as root falls back to opening
 * JITTERLAB_PROBE_MARKER. When JITTERLAB_PROBE is set but neither works, the probe says so once on
 * stderr and stays a no-op. Thread-safe: any thread may call it; the connection is shared by every file
 * of the program that includes this header (weak symbols), each thread's ring is its own. Linux, x86-64
 * or AArch64; needs POSIX 2008 (_GNU_SOURCE, or _POSIX_C_SOURCE 200809L, or the compiler's default gnu
 * dialect); C99 and later, C++11 and later. */
#ifndef JITTERLAB_PROBE_H
#define JITTERLAB_PROBE_H

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/time.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#ifdef __cplusplus
extern "C" {
#endif

#define JL_PROBE_ID 0x4a4c5042u /* "JLPB": the first 4 bytes of every probe record in the trace */

/* SERIES: the thread's next WAKE (and the END that closes it) belongs to the series the record names,
 * whichever thread of the program makes it (a request served by any worker of a pool). */
enum jl_probe_kind { JL_PROBE_WAKE = 1, JL_PROBE_END = 2, JL_PROBE_NAME = 3, JL_PROBE_SERIES = 4 };

/* Does a record of KIND carry a name (the 32-byte shape) rather than a release? */
static inline int jl_probe_kind_named(uint32_t kind)
{
	return kind == JL_PROBE_NAME || kind == JL_PROBE_SERIES;
}

/* One record as the trace holds it (trace_marker_raw's, and what jitterlab writes for a ring's record;
 * little-endian on every platform jitterlab runs on): WAKE and END are the first 16 bytes, NAME and SERIES
 * all 32. */
struct jl_probe_rec {
	uint32_t id;
	uint32_t kind;
	int64_t release_ns; /* WAKE: the CLOCK_MONOTONIC time the loop meant to wake, 0 = none */
	char name[16];      /* NAME, SERIES: the series' name, [a-z0-9_-], NUL-padded */
};

/* ---- the rings (shared with the run) ---- */

#define JL_PROBE_RING_MAGIC 0x4a4c5052u /* "JLPR": the area's first word, the request's and the answer's */
#define JL_PROBE_RING_VERSION 1

/* The area the run shares: this header at 0, NRINGS controls from CTL_OFF, then each ring's CAP records
 * from REC_OFF (ring I's at REC_OFF + I * CAP * 32). Sealed: it cannot shrink under the run. */
struct jl_probe_area {
	uint32_t magic, version;
	uint32_t nrings, cap; /* CAP: a power of 2 */
	uint32_t ctl_off, rec_off;
};

/* One ring's control, 128 bytes: what the thread writes on one cache line, what the run writes on
 * the next. */
struct jl_probe_ring_ctl {
	uint64_t head;    /* records written (the thread's; published with release order) */
	uint64_t lost;    /* records the thread found no room for (the ring was full) */
	char pad_[48];
	uint64_t tail;    /* records the run has drained (the run's) */
	char pad2_[56];
};

/* One record of a ring, 32 bytes. */
struct jl_probe_ring_rec {
	int64_t ts;       /* CLOCK_MONOTONIC ns when the call was made */
	uint32_t kind;    /* enum jl_probe_kind */
	int32_t cpu;      /* the CPU it was made on */
	union {
		int64_t release_ns; /* WAKE */
		char name[16];      /* NAME, SERIES */
	} u;
};

/* A thread's ring request on the socket, and the run's answer (the area's descriptor with it). */
struct jl_probe_ring_req {
	uint32_t magic;
	int32_t tid;
};
struct jl_probe_ring_ans {
	uint32_t magic;
	int32_t ring;     /* -1: none for this thread (its calls write to the marker) */
	uint64_t size;    /* the area's size */
};

/* Per thread: the ring (state 1), none (-1: the marker), or not asked yet (0). Weak: one per thread for
 * the whole program, whichever file calls. */
struct jl_probe__tls {
	struct jl_probe_ring_ctl *ctl;
	struct jl_probe_ring_rec *recs;
	uint64_t mask;
	int state;
};
__attribute__((weak)) __thread struct jl_probe__tls jl_probe__me;

/* -2: not connected yet, -1: no jitterlab run (every call returns at once), else the marker's descriptor;
 * one for the whole program, as is the shared area once mapped (weak: every file that includes this
 * header shares them) */
__attribute__((weak)) int jl_probe__fd = -2;
__attribute__((weak)) void *jl_probe__area;

/* sched_getcpu (glibc: rseq or the vDSO, no system call) and syscall, declared here in a strict dialect */
#ifdef __USE_GNU
#include <sched.h>
#else
int sched_getcpu(void);
#endif
#if !defined(__USE_MISC) && !defined(__cplusplus)
long syscall(long number, ...);
#endif
#ifndef MAP_POPULATE
#define MAP_POPULATE 0 /* the probe touches its ring's pages itself */
#endif

/* One message from S: a byte or an answer, with at most one descriptor (into *FD, else -1). The bytes. */
static inline ssize_t jl_probe__recv(int s, void *buf, size_t len, int *fd)
{
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov;
	struct msghdr msg;
	struct cmsghdr *c;
	ssize_t n;

	memset(&msg, 0, sizeof(msg));
	iov.iov_base = buf;
	iov.iov_len = len;
	msg.msg_iov = &iov;
	msg.msg_iovlen = 1;
	msg.msg_control = ctl;
	msg.msg_controllen = sizeof(ctl);
	*fd = -1;
	n = recvmsg(s, &msg, MSG_CMSG_CLOEXEC);
	if (n > 0 && (c = CMSG_FIRSTHDR(&msg)) && c->cmsg_level == SOL_SOCKET && c->cmsg_type == SCM_RIGHTS &&
	    c->cmsg_len == CMSG_LEN(sizeof(int)))
		memcpy(fd, CMSG_DATA(c), sizeof(*fd));
	return n;
}

/* In a forked child: its thread is not the parent's, nor is its ring. It connects again at its first call
 * (its own ring and tid); the marker's descriptor it inherited is left alone. */
static inline void jl_probe__forked(void)
{
	jl_probe__me.state = 0;
	if (__atomic_load_n(&jl_probe__fd, __ATOMIC_RELAXED) >= 0)
		__atomic_store_n(&jl_probe__fd, -2, __ATOMIC_RELAXED);
}

__attribute__((weak)) int jl_probe__atfork_done;

/* The area of descriptor AFD (SIZE bytes) mapped once for the program; ring RING of it becomes the calling
 * thread's. 0, or -1 when the area is not one (the thread then writes to the marker). */
static inline int jl_probe__take_ring(int afd, uint64_t size, int32_t ring)
{
	void *a = __atomic_load_n(&jl_probe__area, __ATOMIC_ACQUIRE), *expected = NULL;
	const struct jl_probe_area *h;

	if (!a) {
		a = mmap(NULL, (size_t)size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, afd, 0);
		if (a == MAP_FAILED)
			return -1;
		if (mlock(a, (size_t)size)) {
			/* not allowed (RLIMIT_MEMLOCK): MAP_POPULATE prefaulted it; the run keeps it resident */
		}
		if (!__atomic_exchange_n(&jl_probe__atfork_done, 1, __ATOMIC_ACQ_REL))
			pthread_atfork(NULL, NULL, jl_probe__forked);
		if (!__atomic_compare_exchange_n(&jl_probe__area, &expected, a, 0, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE)) {
			munmap(a, (size_t)size); /* another thread mapped it first */
			a = expected;
		}
	}
	h = (const struct jl_probe_area *)a;
	if (h->magic != JL_PROBE_RING_MAGIC || h->version != JL_PROBE_RING_VERSION || ring < 0 ||
	    (uint32_t)ring >= h->nrings || !h->cap || (h->cap & (h->cap - 1)) ||
	    (uint64_t)h->ctl_off + (uint64_t)h->nrings * sizeof(struct jl_probe_ring_ctl) > size ||
	    (uint64_t)h->rec_off + (uint64_t)h->nrings * h->cap * sizeof(struct jl_probe_ring_rec) > size)
		return -1;
	jl_probe__me.ctl = (struct jl_probe_ring_ctl *)((char *)a + h->ctl_off) + ring;
	jl_probe__me.recs = (struct jl_probe_ring_rec *)((char *)a + h->rec_off) + (uint64_t)ring * h->cap;
	jl_probe__me.mask = h->cap - 1;
	for (uint64_t i = 0; i < h->cap; i += 4096 / sizeof(struct jl_probe_ring_rec))
		__atomic_load_n(&jl_probe__me.recs[i].ts, __ATOMIC_RELAXED); /* prefaulted: no fault in a cycle */
	return 0;
}

/* Connect to the run at SOCK_PATH: the marker's descriptor (returned, -1 when refused), and with WANT_RING
 * a ring for the calling thread (jl_probe__me.state 1 when it got one, else -1). */
static inline int jl_probe__connect(const char *sock_path, int want_ring)
{
	struct sockaddr_un sa;
	struct jl_probe_ring_req req;
	struct jl_probe_ring_ans ans;
	struct timeval tv;
	char byte;
	int s, fd = -1, afd = -1;

	if (jl_probe__me.state == -1)
		want_ring = 0; /* the thread said it writes to the marker (state -1 before its first call) */
	jl_probe__me.state = -1;
	memset(&sa, 0, sizeof(sa));
	sa.sun_family = AF_UNIX;
	if (strlen(sock_path) >= sizeof(sa.sun_path)) {
		errno = ENAMETOOLONG;
		return -1;
	}
	strcpy(sa.sun_path, sock_path);
	s = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (s < 0)
		return -1;
	tv.tv_sec = 5; /* a run that hands nothing over is not waited for */
	tv.tv_usec = 0;
	setsockopt(s, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
	errno = 0;
	if (connect(s, (struct sockaddr *)&sa, sizeof(sa)) == 0 && jl_probe__recv(s, &byte, 1, &fd) == 1 && fd >= 0) {
		req.magic = JL_PROBE_RING_MAGIC;
		req.tid = (int32_t)syscall(SYS_gettid);
		if (want_ring && send(s, &req, sizeof(req), MSG_NOSIGNAL) == (ssize_t)sizeof(req) &&
		    jl_probe__recv(s, &ans, sizeof(ans), &afd) == (ssize_t)sizeof(ans) && ans.magic == JL_PROBE_RING_MAGIC &&
		    afd >= 0 && ans.ring >= 0 && jl_probe__take_ring(afd, ans.size, ans.ring) == 0)
			jl_probe__me.state = 1;
		if (afd >= 0)
			close(afd); /* the mapping stays */
	} else if (errno == 0 || errno == EINPROGRESS) {
		errno = EACCES; /* the run refused this program (not one of its own, or another user) */
	}
	close(s);
	return fd;
}

/* Whether this thread should ask for a ring (JITTERLAB_PROBE_RING=0: every call writes to the marker). */
static inline int jl_probe__ring_wanted(void)
{
	const char *v = getenv("JITTERLAB_PROBE_RING");

	return !v || strcmp(v, "0") != 0;
}

/* Connect to the run: the program once, the calling thread's ring once (later calls return at once).
 * Returns 0 when records go to a run, -1 when there is none (the probe is then a no-op). */
static inline int jl_probe_init(void)
{
	int fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_ACQUIRE), expected = -2;
	const char *sock, *marker;

	if (fd == -1)
		return -1;
	sock = getenv("JITTERLAB_PROBE");
	if (fd >= 0) { /* the program is connected: this thread's ring, once */
		if (jl_probe__me.state == 0 && sock && *sock) {
			int again = jl_probe__ring_wanted() ? jl_probe__connect(sock, 1) : (jl_probe__me.state = -1, -1);

			if (again >= 0)
				close(again); /* the program keeps its first marker descriptor */
		}
		return 0;
	}
	marker = getenv("JITTERLAB_PROBE_MARKER");
	fd = -1;
	errno = 0;
	if (sock && *sock) {
		fd = jl_probe__connect(sock, jl_probe__ring_wanted());
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

/* A record into the calling thread's ring: no system call (the clock and the CPU come from the vDSO and
 * rseq). A full ring counts the record lost. */
static inline void jl_probe__put(uint32_t kind, int64_t release_ns, const char *name)
{
	struct jl_probe__tls *me = &jl_probe__me;
	uint64_t h = me->ctl->head;
	struct jl_probe_ring_rec *r;
	struct timespec ts;

	if (h - __atomic_load_n(&me->ctl->tail, __ATOMIC_ACQUIRE) > me->mask) {
		__atomic_store_n(&me->ctl->lost, me->ctl->lost + 1, __ATOMIC_RELAXED);
		return;
	}
	r = &me->recs[h & me->mask];
	clock_gettime(CLOCK_MONOTONIC, &ts);
	r->ts = (int64_t)ts.tv_sec * 1000000000LL + ts.tv_nsec;
	r->kind = kind;
	r->cpu = sched_getcpu();
	if (name) {
		memset(r->u.name, 0, sizeof(r->u.name));
		strncpy(r->u.name, name, sizeof(r->u.name) - 1);
	} else {
		r->u.release_ns = release_ns;
	}
	__atomic_store_n(&me->ctl->head, h + 1, __ATOMIC_RELEASE);
}

/* The same record written to the run's trace marker: one write(2), the kernel's timestamp. */
static inline void jl_probe__write_marker(int fd, uint32_t kind, int64_t release_ns, const char *name)
{
	struct jl_probe_rec r;

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

static inline void jl_probe__record(uint32_t kind, int64_t release_ns, const char *name)
{
	int fd;

	if (__builtin_expect(jl_probe__me.state == 1, 1)) {
		jl_probe__put(kind, release_ns, name);
		return;
	}
	fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_RELAXED);
	if (fd == -1)
		return; /* no run */
	if (fd == -2 || jl_probe__me.state == 0) {
		jl_probe_init();
		if (jl_probe__me.state == 1) {
			jl_probe__put(kind, release_ns, name);
			return;
		}
		fd = __atomic_load_n(&jl_probe__fd, __ATOMIC_ACQUIRE);
	}
	if (fd >= 0)
		jl_probe__write_marker(fd, kind, release_ns, name);
}

/* The loop woke for the cycle due at RELEASE_NS (CLOCK_MONOTONIC ns; 0 when it has no such time). */
static inline void jl_probe_wake(int64_t release_ns)
{
	jl_probe__record(JL_PROBE_WAKE, release_ns, NULL);
}

/* The cycle's work ended. */
static inline void jl_probe_end(void)
{
	jl_probe__record(JL_PROBE_END, 0, NULL);
}

/* The same as jl_probe_wake, for a wake that belongs to series SERIES (at most 15 characters of
 * [a-z0-9_-]) rather than to the thread's: a server whose workers each serve any method marks a request
 * with its method's name, and every worker's requests of that method make one series. Wakes and ends
 * nest: the end closes the thread's latest open wake (a request's own outgoing call inside it). */
static inline void jl_probe_wake_as(const char *series, int64_t release_ns)
{
	struct jl_probe__tls *me = &jl_probe__me;

	/* the name and its wake both, or neither (counted lost): a name alone would go to the thread's next wake */
	if (me->state == 1 && me->ctl->head - __atomic_load_n(&me->ctl->tail, __ATOMIC_ACQUIRE) + 1 > me->mask) {
		__atomic_store_n(&me->ctl->lost, me->ctl->lost + 2, __ATOMIC_RELAXED);
		return;
	}
	jl_probe__record(JL_PROBE_SERIES, 0, series ? series : "");
	jl_probe__record(JL_PROBE_WAKE, release_ns, NULL);
}

/* Name this thread's series (at most 15 characters of [a-z0-9_-]); without it, the thread's name. */
static inline void jl_probe_name(const char *name)
{
	jl_probe__record(JL_PROBE_NAME, 0, name ? name : "");
}

#ifdef __cplusplus
}
#endif

#endif
