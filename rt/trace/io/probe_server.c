/* probe_server: programs that mark their own cycles (include/jitterlab/probe.h, python/jitterlab_probe.py).
 *
 * During the run: a unix socket /run/jitterlab/probe-PID.sock, named to the children in JITTERLAB_PROBE,
 * on which a small thread (SCHED_OTHER, on the trace reader's CPUs) hands each connecting probe an open
 * descriptor of the run's trace_marker_raw (SCM_RIGHTS). Only root and the invoking sudo user may
 * connect (SO_PEERCRED); the descriptor lets them write markers into this run's instance, nothing else.
 * A launcher that closes inherited descriptors (ros2 run, launch) does not stop it; a program running as
 * root may also open JITTERLAB_PROBE_MARKER itself.
 * After the run, analysis/probe_series.c makes their records series. */
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <tracefs.h>
#include <unistd.h>

#include "../../base/clock.h"
#include "../../../include/jitterlab/probe.h"
#include "../../base/housekeeping_thread.h"
#include "../../base/output.h"
#include "../../base/stats.h"
#include "../../base/units.h"
#include "capture.h"
#include "probe_ring.h"
#include "trace.h"
#include "../analysis/analysis.h"
#include "../analysis/trace_series.h"

#define PROBE_DIR "/run/jitterlab"

/* ---- the socket ---- */

static void send_fd(int conn, int fd)
{
	char byte = 'j', ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &byte, 1 };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1, .msg_control = ctl, .msg_controllen = sizeof(ctl) };
	struct cmsghdr *c = CMSG_FIRSTHDR(&msg);

	memset(ctl, 0, sizeof(ctl));
	c->cmsg_level = SOL_SOCKET;
	c->cmsg_type = SCM_RIGHTS;
	c->cmsg_len = CMSG_LEN(sizeof(int));
	memcpy(CMSG_DATA(c), &fd, sizeof(fd));
	if (sendmsg(conn, &msg, MSG_NOSIGNAL) < 0) {
		/* the probe gives up and says so on its side */
	}
}

/* Does PID descend from this process (a program of the run: its children, and orphans reparented to it
 * while it is their subreaper)? */
static bool of_this_run(pid_t pid)
{
	for (int hops = 0; pid > 1 && hops < 64; hops++) {
		char path[64], line[256];
		pid_t ppid = 0;
		FILE *f;

		if (pid == getpid())
			return true;
		snprintf(path, sizeof(path), "/proc/%d/status", (int)pid);
		f = fopen(path, "re");
		if (!f)
			return false;
		while (fgets(line, sizeof(line), f))
			if (!strncmp(line, "PPid:", 5)) {
				ppid = (pid_t)atoi(line + 5);
				break;
			}
		fclose(f);
		pid = ppid;
	}
	return false;
}

/* After the marker, a thread of a newer probe asks for a ring (struct jl_probe_ring_req): it gets one, with
 * the area's descriptor, or -1 (none left, not a thread of the asker). An older probe closes instead. */
static void serve_ring(struct jl_trace *t, int conn, pid_t pid)
{
	struct pollfd p = { conn, POLLIN, 0 };
	struct jl_probe_ring_req req;
	struct jl_probe_ring_ans ans = { .magic = JL_PROBE_RING_MAGIC, .ring = -1 };
	char ctl[CMSG_SPACE(sizeof(int))];
	struct iovec iov = { &ans, sizeof(ans) };
	struct msghdr msg = { .msg_iov = &iov, .msg_iovlen = 1 };
	int afd;

	/* a new probe asks at once, an old one closes at once: 100 ms is a client that does neither, and
	 * the rings are not drained meanwhile */
	if (!t->rings || poll(&p, 1, 100) != 1 || recv(conn, &req, sizeof(req), MSG_DONTWAIT) != (ssize_t)sizeof(req) ||
	    req.magic != JL_PROBE_RING_MAGIC)
		return;
	ans.ring = jl_probe_rings_assign(t->rings, pid, req.tid);
	afd = jl_probe_rings_fd(t->rings, &ans.size);
	if (ans.ring >= 0) {
		struct cmsghdr *c;

		memset(ctl, 0, sizeof(ctl));
		msg.msg_control = ctl;
		msg.msg_controllen = sizeof(ctl);
		c = CMSG_FIRSTHDR(&msg);
		c->cmsg_level = SOL_SOCKET;
		c->cmsg_type = SCM_RIGHTS;
		c->cmsg_len = CMSG_LEN(sizeof(int));
		memcpy(CMSG_DATA(c), &afd, sizeof(afd));
	}
	if (sendmsg(conn, &msg, MSG_NOSIGNAL) < 0) {
		/* the thread writes to the marker */
	}
}

static void *probe_server_main(void *arg)
{
	struct jl_trace *t = arg;
	int64_t next_drain = 0;

	for (;;) {
		struct pollfd p[2] = { { t->probe_listen, POLLIN, 0 }, { t->probe_wake[0], POLLIN, 0 } };
		struct ucred cred;
		socklen_t len = sizeof(cred);
		int conn, wait = -1;

		if (t->rings) { /* rings given out: drained every JL_PROBE_DRAIN_NS */
			struct jl_probe_rings_stats st;
			int64_t now = jl_now_ns();

			jl_probe_rings_count(t->rings, &st);
			if (st.rings && now >= next_drain) {
				jl_probe_rings_drain(t->rings);
				next_drain = now + JL_PROBE_DRAIN_NS;
			}
			if (st.rings)
				wait = (int)((next_drain - now) / 1000000) + 1;
		}
		if (poll(p, 2, wait) < 0 && errno != EINTR)
			break;
		if (p[1].revents)
			break;
		if (!(p[0].revents & POLLIN))
			continue;
		conn = accept4(t->probe_listen, NULL, NULL, SOCK_CLOEXEC);
		if (conn < 0)
			continue;
		/* root or the sudo user, and a program of this run (not any process of that user) */
		if (getsockopt(conn, SOL_SOCKET, SO_PEERCRED, &cred, &len) == 0 &&
		    (cred.uid == 0 || (t->probe_have_sudo && cred.uid == t->probe_sudo_uid)) && of_this_run(cred.pid)) {
			send_fd(conn, t->marker_fd);
			atomic_fetch_add(&t->probe_clients, 1);
			serve_ring(t, conn, cred.pid);
		} else {
			atomic_fetch_add(&t->probe_refused, 1);
		}
		close(conn);
	}
	return NULL;
}

int jl_trace_probe_serve(struct jl_trace *t, const cpu_set_t *cpus, char *err, size_t errlen)
{
	struct sockaddr_un sa = { .sun_family = AF_UNIX };
	char *marker;
	int rc;

	if (t->marker_fd < 0) {
		snprintf(err, errlen, "probe: the trace has no marker file");
		return -1;
	}
	if (mkdir(PROBE_DIR, 0755) && errno != EEXIST) {
		snprintf(err, errlen, "probe: cannot create %s: %s", PROBE_DIR, strerror(errno));
		return -1;
	}
	{
		/* the socket goes in a directory only root can write to: never one someone else could swap */
		struct stat st;

		if (lstat(PROBE_DIR, &st) || !S_ISDIR(st.st_mode) || st.st_uid != 0 || (st.st_mode & 022)) {
			snprintf(err, errlen, "probe: %s is not a root-owned directory others cannot write to", PROBE_DIR);
			return -1;
		}
	}
	{
		gid_t gid;

		t->probe_have_sudo = jl_output_sudo_user(&t->probe_sudo_uid, &gid); /* before the thread reads it */
	}
	if (!t->rings) { /* without them (no memfd here) every probe writes to the marker */
		char rerr[256];

		t->rings = jl_probe_rings_new(t->ncpus, JL_PROBE_RINGS, JL_PROBE_RING_CAP, rerr, sizeof(rerr));
		if (!t->rings)
			fprintf(stderr, "jitterlab: warning: %s: probed programs write to the trace marker\n", rerr);
	}
	snprintf(t->probe_path, sizeof(t->probe_path), PROBE_DIR "/probe-%d.sock", (int)getpid());
	snprintf(sa.sun_path, sizeof(sa.sun_path), "%s", t->probe_path);
	unlink(t->probe_path); /* a dead run's socket of our pid: ours to replace (a root-owned directory) */
	t->probe_listen = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
	if (t->probe_listen < 0 || bind(t->probe_listen, (struct sockaddr *)&sa, sizeof(sa)) ||
	    chmod(t->probe_path, 0666) || listen(t->probe_listen, 64) || pipe2(t->probe_wake, O_CLOEXEC)) {
		snprintf(err, errlen, "probe: cannot listen on %s: %s", t->probe_path, strerror(errno));
		jl_trace_probe_unserve(t);
		return -1;
	}
	/* the environment first: the server thread must not read it while it changes */
	marker = tracefs_instance_get_file(t->inst, "trace_marker_raw");
	setenv("JITTERLAB_PROBE", t->probe_path, 1);
	if (marker)
		setenv("JITTERLAB_PROBE_MARKER", marker, 1);
	tracefs_put_tracing_file(marker);
	rc = jl_housekeeping_thread_start(&t->probe_thread, cpus, "jl-probe", probe_server_main, t);
	if (rc) {
		snprintf(err, errlen, "probe: cannot start the server thread: %s", strerror(rc));
		jl_trace_probe_unserve(t);
		return -1;
	}
	t->probe_started = true;
	t->probe_served = true;
	return 0;
}

void jl_trace_probe_unserve(struct jl_trace *t)
{
	if (t->probe_started) {
		if (write(t->probe_wake[1], "x", 1) < 0) {
			/* the pipe cannot be full: one byte, once */
		}
		pthread_join(t->probe_thread, NULL);
		t->probe_started = false;
		jl_probe_rings_drain(t->rings); /* what the programs wrote last (they have ended) */
	}
	for (int i = 0; i < 2; i++)
		if (t->probe_wake[i] >= 0) {
			close(t->probe_wake[i]);
			t->probe_wake[i] = -1;
		}
	if (t->probe_listen >= 0) {
		close(t->probe_listen);
		t->probe_listen = -1;
	}
	if (t->probe_path[0]) {
		unlink(t->probe_path);
		t->probe_path[0] = '\0';
		unsetenv("JITTERLAB_PROBE");
		unsetenv("JITTERLAB_PROBE_MARKER");
	}
}
