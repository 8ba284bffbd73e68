/* trace_capture: record the run with libtracefs in a private instance (jitterlab-<pid>): mono clock set
 * first, buffer size per CPU, the event groups of [run] trace (anchored regexes), raw pages drained by a
 * housekeeping reader thread (SCHED_OTHER, off the isolated CPUs) into anonymous temp files, lost events
 * counted from per_cpu/cpuN/stats. jl_trace_mark() is the only function a measured thread calls: one
 * write() to trace_marker_raw, nothing else (no allocation, no locks). Never leaves an instance behind. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../affinity/leftovers.h"
#include "trace.h"
#include "trace_int.h"

#define READER_PERIOD_NS 20000000 /* 20 ms: far below the time a 16 MB buffer takes to fill */

static const char *const sched_events[] = { "sched_waking", "sched_wakeup", "sched_wakeup_new", "sched_switch",
					    "sched_migrate_task", NULL };
static const char *const irq_events[] = { "irq_handler_entry", "irq_handler_exit", "softirq_entry", "softirq_exit",
					  NULL };
static const char *const timer_events[] = { "hrtimer_start", "hrtimer_expire_entry", "hrtimer_expire_exit", NULL };

const struct jl_trace_group jl_trace_groups[] = {
	{ JL_TRACE_SCHED, "sched", sched_events,
	  "sched_waking, sched_wakeup(_new), sched_switch, sched_migrate_task: wakeups and who held the CPU" },
	{ JL_TRACE_IRQ, "irq", irq_events, "irq_handler_entry/exit, softirq_entry/exit: interrupt time in a wait" },
	{ JL_TRACE_TIMER, "timer", timer_events,
	  "hrtimer_start, hrtimer_expire_entry/exit: timer callbacks, named in trace.dat" },
};
const int jl_trace_ngroups = sizeof(jl_trace_groups) / sizeof(jl_trace_groups[0]);

/* An instance jitterlab-<pid> whose process is gone (a killed run): remove it. */
static int remove_if_stale(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	pid_t pid = jl_leftover_instance_pid(name); /* only jitterlab-<digits>, the whole name */

	(void)ctx;
	if (!pid || pid == getpid() || jl_leftover_pid_alive(pid))
		return 0;
	inst = tracefs_instance_alloc(NULL, name);
	if (inst) {
		tracefs_instance_destroy(inst);
		tracefs_instance_free(inst);
	}
	return 0;
}

static void remove_stale_instances(void)
{
	tracefs_instances_walk(remove_if_stale, NULL);
}

static int read_drain(struct jl_trace *t, int cpu)
{
	struct jl_trace_cpu *c = &t->cpu[cpu];
	int n, pages = 0;

	if (!c->tcpu)
		return 0;
	for (;;) {
		memset(t->page, 0, t->page_size);
		n = tracefs_cpu_read(c->tcpu, t->page, true);
		if (n <= 0)
			break;
		if (write(c->fd, t->page, t->page_size) != t->page_size)
			return -1;
		c->bytes += t->page_size;
		if (++pages > 4096) /* let the other CPUs have their turn */
			break;
	}
	return 0;
}

static void *reader_main(void *arg)
{
	struct jl_trace *t = arg;
	struct timespec next;

	clock_gettime(CLOCK_MONOTONIC, &next);
	while (!atomic_load(&t->reader_stop)) {
		for (int cpu = 0; cpu < t->ncpus; cpu++)
			if (read_drain(t, cpu) < 0 && !t->reader_errno)
				t->reader_errno = errno ? errno : EIO;
		next.tv_nsec += READER_PERIOD_NS;
		while (next.tv_nsec >= 1000000000L) {
			next.tv_nsec -= 1000000000L;
			next.tv_sec++;
		}
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &next, NULL);
	}
	return NULL;
}

static int start_reader(struct jl_trace *t, const struct jl_run_spec *run)
{
	pthread_attr_t attr;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	if (run->isolate_set) {
		cpu_set_t hk;
		long n = sysconf(_SC_NPROCESSORS_CONF);

		CPU_ZERO(&hk);
		for (long c = 0; c < n && c < CPU_SETSIZE; c++)
			if (!CPU_ISSET(c, &run->isolate))
				CPU_SET(c, &hk);
		if (CPU_COUNT(&hk))
			pthread_attr_setaffinity_np(&attr, sizeof(hk), &hk);
	}
	rc = pthread_create(&t->reader, &attr, reader_main, t);
	pthread_attr_destroy(&attr);
	if (rc) {
		errno = rc;
		return -1;
	}
	t->reader_started = true;
	return 0;
}

static int enable_groups(struct jl_trace *t, char *err, size_t errlen)
{
	for (int g = 0; g < jl_trace_ngroups; g++) {
		if (!(t->groups & jl_trace_groups[g].bit))
			continue;
		for (const char *const *e = jl_trace_groups[g].events; *e; e++) {
			char sys[64], ev[96];

			snprintf(sys, sizeof(sys), "^%s$", jl_trace_groups[g].system);
			snprintf(ev, sizeof(ev), "^%s$", *e);
			if (tracefs_event_enable(t->inst, sys, ev) < 0) {
				/* sched_waking and switch are required; the others are optional on odd kernels */
				if (!strcmp(*e, "sched_switch") || !strcmp(*e, "sched_waking")) {
					snprintf(err, errlen, "trace: cannot enable %s:%s: %s", jl_trace_groups[g].system,
						 *e, strerror(errno));
					return -1;
				}
			}
		}
	}
	return 0;
}

int jl_trace_start(struct jl_trace **out, const struct jl_run_spec *run, char *err, size_t errlen)
{
	struct jl_trace *t;
	char *clk, *path;

	*out = NULL;
	if (!run->trace_groups) {
		snprintf(err, errlen, "trace: tracing is off for this run");
		return -1;
	}
	if (!tracefs_tracing_dir()) {
		snprintf(err, errlen, "trace: tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		return -1;
	}
	remove_stale_instances();
	t = calloc(1, sizeof(*t));
	if (!t) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	t->marker_fd = -1;
	t->groups = run->trace_groups;
	snprintf(t->name, sizeof(t->name), "jitterlab-%d", (int)getpid());
	t->inst = tracefs_instance_create(t->name);
	if (!t->inst) {
		snprintf(err, errlen, "trace: cannot create tracing instance %s: %s", t->name, strerror(errno));
		goto fail;
	}
	tracefs_trace_off(t->inst);
	/* the clock first: writing trace_clock clears the buffer */
	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "trace: cannot set the mono trace clock: %s", strerror(errno));
		goto fail;
	}
	clk = tracefs_instance_file_read(t->inst, "trace_clock", NULL);
	if (clk) {
		snprintf(t->clock, sizeof(t->clock), "%s", clk);
		free(clk);
	}
	if (!strstr(t->clock, "[mono]")) {
		snprintf(err, errlen, "trace: the mono trace clock did not take (trace_clock: %s)", t->clock);
		goto fail;
	}
	if (run->trace_buffer && tracefs_instance_set_buffer_size(t->inst, run->trace_buffer / 1024, -1) < 0) {
		snprintf(err, errlen, "trace: cannot set the buffer size to %llu KB per CPU: %s",
			 (unsigned long long)(run->trace_buffer / 1024), strerror(errno));
		goto fail;
	}
	if (enable_groups(t, err, errlen) < 0)
		goto fail;
	t->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	t->cpu = calloc(t->ncpus, sizeof(*t->cpu));
	if (!t->cpu) {
		snprintf(err, errlen, "trace: out of memory");
		goto fail;
	}
	for (int c = 0; c < t->ncpus; c++) {
		t->cpu[c].fd = -1;
		t->cpu[c].tcpu = tracefs_cpu_open(t->inst, c, true);
		if (!t->cpu[c].tcpu)
			continue; /* offline CPU */
		if (!t->page_size)
			t->page_size = tracefs_cpu_read_size(t->cpu[c].tcpu);
		t->cpu[c].fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
		if (t->cpu[c].fd < 0) { /* a /tmp without O_TMPFILE: a named file, unlinked at once */
			char tmpl[] = "/tmp/jitterlab-trace-XXXXXX";

			t->cpu[c].fd = mkostemp(tmpl, O_CLOEXEC);
			if (t->cpu[c].fd >= 0)
				unlink(tmpl);
		}
		if (t->cpu[c].fd < 0) {
			snprintf(err, errlen, "trace: cannot create a temporary file in /tmp: %s", strerror(errno));
			goto fail;
		}
	}
	if (t->page_size <= 0 || !(t->page = malloc(t->page_size))) {
		snprintf(err, errlen, "trace: cannot open the per-CPU raw buffers of %s", t->name);
		goto fail;
	}
	path = tracefs_instance_get_file(t->inst, "trace_marker_raw");
	if (path) {
		t->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
		tracefs_put_tracing_file(path);
	}
	if (start_reader(t, run) < 0) {
		snprintf(err, errlen, "trace: cannot start the trace reader thread: %s", strerror(errno));
		goto fail;
	}
	if (tracefs_trace_on(t->inst) < 0) {
		snprintf(err, errlen, "trace: cannot turn tracing on in %s: %s", t->name, strerror(errno));
		goto fail;
	}
	*out = t;
	return 0;
fail:
	jl_trace_destroy(t);
	return -1;
}

int jl_trace_set_reader_cpus(struct jl_trace *t, const cpu_set_t *cpus)
{
	int rc;

	if (!t || !t->reader_started || !cpus || !CPU_COUNT(cpus)) {
		errno = EINVAL;
		return -1;
	}
	rc = pthread_setaffinity_np(t->reader, sizeof(*cpus), cpus);
	if (rc) {
		errno = rc;
		return -1;
	}
	return 0;
}

void jl_trace_mark(void *ctx, const struct jl_thread *th, uint64_t cycle, int64_t latency_ns, bool miss)
{
	struct jl_trace *t = ctx;
	struct jl_trace_mark_rec m;

	if (!t || t->marker_fd < 0)
		return;
	m.id = JL_TRACE_MARK_ID;
	m.thread = th && th->eng ? (int32_t)(th - th->eng->threads) : -1;
	m.cycle = cycle;
	m.latency_ns = latency_ns;
	m.miss = miss;
	if (write(t->marker_fd, &m, sizeof(m)) < 0) {
		/* nothing to do on the cycle path: the marker is best effort */
	}
}

static uint64_t stat_value(const char *text, const char *key)
{
	const char *p = strstr(text, key);

	return p ? strtoull(p + strlen(key), NULL, 10) : 0;
}

int jl_trace_stop(struct jl_trace *t, char *err, size_t errlen)
{
	if (!t)
		return -1;
	if (t->stopped)
		return 0;
	t->stopped = true;
	if (t->inst)
		tracefs_trace_off(t->inst);
	if (t->reader_started) {
		atomic_store(&t->reader_stop, true);
		pthread_join(t->reader, NULL);
		t->reader_started = false;
	}
	for (int c = 0; c < t->ncpus; c++) {
		char file[64], *stats;

		while (t->cpu[c].tcpu) {
			uint64_t before = t->cpu[c].bytes;

			if (read_drain(t, c) < 0) {
				snprintf(err, errlen, "trace: cannot save the raw pages of CPU %d: %s", c, strerror(errno));
				return -1;
			}
			if (t->cpu[c].bytes == before)
				break;
		}
		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		stats = t->inst ? tracefs_instance_file_read(t->inst, file, NULL) : NULL;
		if (stats) {
			t->lost_events += stat_value(stats, "overrun:") + stat_value(stats, "dropped events:");
			free(stats);
		}
	}
	if (t->reader_errno) {
		snprintf(err, errlen, "trace: the reader failed to save pages: %s", strerror(t->reader_errno));
		return -1;
	}
	return 0;
}

void jl_trace_destroy(struct jl_trace *t)
{
	if (!t)
		return;
	if (t->reader_started) {
		atomic_store(&t->reader_stop, true);
		pthread_join(t->reader, NULL);
	}
	if (t->marker_fd >= 0)
		close(t->marker_fd);
	for (int c = 0; t->cpu && c < t->ncpus; c++) {
		if (t->cpu[c].tcpu)
			tracefs_cpu_close(t->cpu[c].tcpu);
		if (t->cpu[c].fd >= 0)
			close(t->cpu[c].fd);
	}
	if (t->inst) {
		tracefs_trace_off(t->inst);
		tracefs_instance_destroy(t->inst);
		tracefs_instance_free(t->inst);
	}
	free(t->cpu);
	free(t->page);
	free(t);
}
