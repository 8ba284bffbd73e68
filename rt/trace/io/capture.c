/* capture: record the run with libtracefs in a private instance (jitterlab-<pid>): mono clock set
 * first, buffer size per CPU, the event groups of [run] trace (groups.c; anchored regexes; IRQ
 * and timer events limited to the measured CPUs by event filters), raw pages drained by a
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

#include "../../base/clock.h"
#include "../../../affinity/cpulist.h"
#include "../../../affinity/stale_runs.h"
#include "../../base/tmpfile.h"
#include "../../base/housekeeping_thread.h"
#include "../../base/memlock.h"
#include "capture.h"
#include "live.h"
#include "probe_ring.h"
#include "recorder.h"
#include "trace.h"
#include "../../../affinity/runnames.h"
#include "../../base/summary_keys.h"

#define READER_PERIOD_NS 20000000 /* 20 ms: far below the time a 16 MB buffer takes to fill */


/* An instance jitterlab-<pid> whose process is gone (a killed run): remove it. */
static int remove_if_stale(const char *name, void *ctx)
{
	struct tracefs_instance *inst;
	pid_t pid = jl_stale_instance_pid(name); /* only jitterlab-<digits>, the whole name */

	(void)ctx;
	if (!pid || pid == getpid() || jl_stale_pid_alive(pid))
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

/* The pages CPU's buffer holds now (at most 4096: the other CPUs get their turn) into its file, or into
 * the flight recorder's circle (recorder.c). Returns the pages read, or -1. */
static int read_drain(struct jl_trace *t, int cpu)
{
	struct jl_trace_cpu *c = &t->cpu[cpu];
	int64_t t0 = jl_now_ns();
	int n, pages = 0;

	if (!c->tcpu)
		return 0;
	for (;;) {
		memset(t->page, 0, t->page_size);
		n = tracefs_cpu_read(c->tcpu, t->page, true);
		if (n <= 0) { /* empty: every event before T0 is in the file (the live analysis' watermark) */
			if (n == 0)
				__atomic_store_n(&c->drained_ns, t0, __ATOMIC_RELEASE);
			break;
		}
		if (t->rec) {
			if (jl_recorder_page(t, cpu, t->page) < 0)
				return -1;
		} else {
			if (write(c->fd, t->page, t->page_size) != t->page_size)
				return -1;
			__atomic_store_n(&c->bytes, c->bytes + (uint64_t)t->page_size, __ATOMIC_RELEASE);
		}
		if (++pages > 4096)
			break;
	}
	return pages;
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
	cpu_set_t hk;
	int rc;

	CPU_ZERO(&hk);
	if (run->isolate_set) {
		long n = sysconf(_SC_NPROCESSORS_CONF);

		for (long c = 0; c < n && c < CPU_SETSIZE; c++)
			if (!CPU_ISSET(c, &run->isolate))
				CPU_SET(c, &hk);
	}
	rc = jl_housekeeping_thread_start(&t->reader, &hk, "jl-trace", reader_main, t); /* empty: the run's CPUs */
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
		for (const struct jl_trace_event *e = jl_trace_groups[g].events; e->name; e++) {
			char sys[64], ev[96];

			snprintf(sys, sizeof(sys), "^%s$", e->system);
			snprintf(ev, sizeof(ev), "^%s$", e->name);
			if (e->filter && tracefs_event_file_exists(t->inst, e->system, e->name, "filter"))
				tracefs_event_file_write(t->inst, e->system, e->name, "filter", e->filter);
			if (tracefs_event_enable(t->inst, sys, ev) == 0)
				continue;
			if (e->flags & JL_TRACE_EV_REQUIRED) {
				snprintf(err, errlen, "trace: cannot enable %s:%s: %s", e->system, e->name, strerror(errno));
				return -1;
			}
			/* optional: an older kernel (ipi since 6.5) or a config without it */
			snprintf(t->missing + strlen(t->missing), sizeof(t->missing) - strlen(t->missing), "%s%s:%s",
				 t->missing[0] ? "," : "", e->system, e->name);
		}
	}
	return 0;
}

int jl_trace_limit_local(struct jl_trace *t, const cpu_set_t *cpus)
{
	char list[240], filter[256], both[320];
	int failed = 0;

	if (!t || !t->inst || !cpus || !CPU_COUNT(cpus)) {
		errno = EINVAL;
		return -1;
	}
	jl_cpulist_format(cpus, list, sizeof(list));
	snprintf(filter, sizeof(filter), "CPU & CPUS{%s}", list);
	for (int g = 0; g < jl_trace_ngroups; g++) {
		if (!(t->groups & jl_trace_groups[g].bit))
			continue;
		for (const struct jl_trace_event *e = jl_trace_groups[g].events; e->name; e++) {
			if (!(e->flags & JL_TRACE_EV_LOCAL) || !tracefs_event_file_exists(t->inst, e->system, e->name, "filter"))
				continue;
			snprintf(both, sizeof(both), "(%s) && (%s)", filter, e->filter ? e->filter : "1");
			if (tracefs_event_file_write(t->inst, e->system, e->name, "filter", e->filter ? both : filter) < 0)
				failed = errno ? errno : EIO;
		}
	}
	if (failed) { /* all or nothing: an event filtered on some CPUs only would look like missing IRQs */
		for (int g = 0; g < jl_trace_ngroups; g++)
			for (const struct jl_trace_event *e = jl_trace_groups[g].events; e->name; e++)
				if ((t->groups & jl_trace_groups[g].bit) && (e->flags & JL_TRACE_EV_LOCAL))
					tracefs_event_file_write(t->inst, e->system, e->name, "filter",
								 e->filter ? e->filter : "0");
		errno = failed;
		return -1;
	}
	snprintf(t->local_cpus, sizeof(t->local_cpus), "%s", list);
	return 0;
}

void jl_trace_describe_recording(const struct jl_trace *t, json_object *block)
{
	json_object *rec, *ev;

	if (!t || !block)
		return;
	rec = json_object_new_object();
	ev = json_object_new_array();
	for (int g = 0; g < jl_trace_ngroups; g++) {
		if (!(t->groups & jl_trace_groups[g].bit))
			continue;
		for (const struct jl_trace_event *e = jl_trace_groups[g].events; e->name; e++) {
			char name[128], pat[130];

			snprintf(name, sizeof(name), "%s:%s", e->system, e->name);
			snprintf(pat, sizeof(pat), ",%s,", name);
			{
				char missing[sizeof(t->missing) + 2];

				snprintf(missing, sizeof(missing), ",%s,", t->missing);
				if (strstr(missing, pat))
					continue;
			}
			json_object_array_add(ev, json_object_new_string(name));
		}
	}
	json_object_object_add(rec, JL_K(events), ev);
	json_object_object_add(rec, JL_K(missing), json_object_new_string(t->missing));
	/* where the IRQ and timer events were recorded: the measured CPUs, or all */
	json_object_object_add(rec, JL_K(local_cpus), json_object_new_string(t->local_cpus[0] ? t->local_cpus : "all"));
	json_object_object_add(block, JL_K(recorded), rec);
}

/* T's instance on the mono clock (first: writing trace_clock clears the buffer), and its buffer's size. 0, or
 * -1 with ERR. */
static int set_clock_and_buffer(struct jl_trace *t, const struct jl_run_spec *run, char *err, size_t errlen)
{
	char *clk;

	if (tracefs_instance_file_write(t->inst, "trace_clock", "mono") < 0) {
		snprintf(err, errlen, "trace: cannot set the mono trace clock: %s", strerror(errno));
		return -1;
	}
	clk = tracefs_instance_file_read(t->inst, "trace_clock", NULL);
	if (clk) {
		snprintf(t->clock, sizeof(t->clock), "%s", clk);
		free(clk);
	}
	if (!strstr(t->clock, "[mono]")) {
		snprintf(err, errlen, "trace: the mono trace clock did not take (trace_clock: %s)", t->clock);
		return -1;
	}
	if (run->trace_buffer && tracefs_instance_set_buffer_size(t->inst, run->trace_buffer / 1024, -1) < 0) {
		snprintf(err, errlen, "trace: cannot set the buffer size to %llu KB per CPU: %s",
			 (unsigned long long)(run->trace_buffer / 1024), strerror(errno));
		return -1;
	}
	return 0;
}

/* Each online CPU's raw buffer opened, with the temporary file its pages go to, and the page buffer. 0, or
 * -1 with ERR. */
static int open_cpus(struct jl_trace *t, char *err, size_t errlen)
{
	t->ncpus = (int)sysconf(_SC_NPROCESSORS_CONF);
	t->cpu = calloc(t->ncpus, sizeof(*t->cpu));
	if (!t->cpu) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	for (int c = 0; c < t->ncpus; c++) {
		t->cpu[c].fd = -1;
		t->cpu[c].tcpu = tracefs_cpu_open(t->inst, c, true);
		if (!t->cpu[c].tcpu)
			continue; /* offline CPU */
		if (!t->page_size)
			t->page_size = tracefs_cpu_read_size(t->cpu[c].tcpu);
		t->cpu[c].fd = jl_tmpfile();
		if (t->cpu[c].fd < 0) {
			snprintf(err, errlen, "trace: cannot create a temporary file in /tmp: %s", strerror(errno));
			return -1;
		}
	}
	if (t->page_size <= 0 || !(t->page = malloc(t->page_size))) {
		snprintf(err, errlen, "trace: cannot open the per-CPU raw buffers of %s", t->name);
		return -1;
	}
	return 0;
}

int jl_trace_start(struct jl_trace **out, const struct jl_run_spec *run, char *err, size_t errlen)
{
	struct jl_trace *t;
	char *path;

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
	jl_memlock_range(t, sizeof(*t)); /* a measured thread's cycle reads marker_fd (jl_trace_mark) */
	t->marker_fd = -1;
	t->probe_listen = t->probe_wake[0] = t->probe_wake[1] = -1;
	t->groups = run->trace_groups;
	snprintf(t->name, sizeof(t->name), "jitterlab-%d", (int)getpid());
	t->inst = tracefs_instance_create(t->name);
	if (!t->inst) {
		snprintf(err, errlen, "trace: cannot create tracing instance %s: %s", t->name, strerror(errno));
		goto fail;
	}
	tracefs_trace_off(t->inst);
	if (set_clock_and_buffer(t, run, err, errlen) < 0 || enable_groups(t, err, errlen) < 0 ||
	    open_cpus(t, err, errlen) < 0)
		goto fail;
	path = tracefs_instance_get_file(t->inst, "trace_marker_raw");
	if (path) {
		t->marker_fd = open(path, O_WRONLY | O_CLOEXEC);
		tracefs_put_tracing_file(path);
	}
	if (start_reader(t, run) < 0) {
		snprintf(err, errlen, "trace: cannot start the trace reader thread: %s", strerror(errno));
		goto fail;
	}
	/* the parser and the symbols now, before the budget measures the setup (a failure is said when it is
	 * needed) */
	(void)jl_trace_tep(t, err, errlen);
	(void)jl_trace_ksyms(t);
	*out = t; /* recording begins with jl_trace_record(), once the filters are in place */
	return 0;
fail:
	jl_trace_destroy(t);
	return -1;
}

/* The other clocks a timer may run on, as offsets from CLOCK_MONOTONIC (the trace clock): each read between
 * two reads of it. */
static void read_clocks(struct jl_analysis_clocks *c)
{
	const clockid_t ids[3] = { CLOCK_REALTIME, CLOCK_TAI, CLOCK_BOOTTIME };
	int64_t *out[3] = { &c->realtime, &c->tai, &c->boottime };

	for (int i = 0; i < 3; i++) {
		int64_t gap = INT64_MAX;

		for (int k = 0; k < 5; k++) { /* the read least disturbed (preempted between its MONOTONIC reads) */
			struct timespec a, x, b;
			int64_t ta, tb;

			clock_gettime(CLOCK_MONOTONIC, &a);
			clock_gettime(ids[i], &x);
			clock_gettime(CLOCK_MONOTONIC, &b);
			ta = (int64_t)a.tv_sec * 1000000000 + a.tv_nsec;
			tb = (int64_t)b.tv_sec * 1000000000 + b.tv_nsec;
			if (tb - ta < gap) {
				gap = tb - ta;
				*out[i] = (int64_t)x.tv_sec * 1000000000 + x.tv_nsec - (ta + tb) / 2;
			}
		}
	}
	/* BOOTTIME is MONOTONIC plus the time suspended, exactly 0 on a machine that never slept. The reads
	 * above carry tens of ns of noise, which would make BOOTTIME the nearer clock for half of the
	 * MONOTONIC timers (jl_analysis_timer_clock) and move their releases by that noise: under 10 us (a
	 * resume takes milliseconds at the least) it is the two clocks' identity, not an offset. */
	if (llabs(c->boottime) < 10000)
		c->boottime = 0;
	c->known = true;
}

int jl_trace_record(struct jl_trace *t, char *err, size_t errlen)
{
	if (tracefs_trace_on(t->inst) < 0) {
		snprintf(err, errlen, "trace: cannot turn tracing on in %s: %s", t->name, strerror(errno));
		return -1;
	}
	t->t_on = jl_now_ns();
	read_clocks(&t->clocks);
	return 0;
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
	t->reader_cpus = *cpus;
	return 0;
}

void jl_trace_mark(void *ctx, const struct jl_series *s, uint64_t cycle, int64_t latency_ns, bool miss)
{
	struct jl_trace *t = ctx;
	struct jl_trace_mark_rec m;

	if (!t || t->marker_fd < 0)
		return;
	m.id = JL_TRACE_MARK_ID;
	m.thread = s ? s->id : -1; /* the analysis' thread index: one per series (finish.c) */
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

/* The sum over every CPU of the per_cpu/cpuN/stats values named in KEYS (NULL-terminated) */
static uint64_t stats_sum(const struct jl_trace *t, const char *const *keys)
{
	uint64_t n = 0;

	for (int c = 0; t->inst && c < t->ncpus; c++) {
		char file[64], *stats;

		snprintf(file, sizeof(file), "per_cpu/cpu%d/stats", c);
		stats = tracefs_instance_file_read(t->inst, file, NULL);
		for (const char *const *k = keys; stats && *k; k++)
			n += stat_value(stats, *k);
		free(stats);
	}
	return n;
}

/* Events the kernel lost so far on every CPU */
static uint64_t lost_in_stats(const struct jl_trace *t)
{
	static const char *const keys[] = { "overrun:", "dropped events:", NULL };

	return stats_sum(t, keys);
}

/* Events recorded so far on every CPU: read, still in the buffer, or written over */
static uint64_t events_in_stats(const struct jl_trace *t)
{
	static const char *const keys[] = { "entries:", "read events:", "overrun:", NULL };

	return stats_sum(t, keys);
}

enum jl_analysis_hold jl_trace_analysis_hold(const struct jl_trace *t, const struct jl_engine *eng, uint64_t *events)
{
	bool recent = eng->rings;

	/* the kernel's events and the probes' records, which join them in trace.dat */
	*events = t && t->t_on && !t->stopped ? events_in_stats(t) + jl_probe_rings_records(t->rings) : 0;
	if (!t)
		return JL_HOLD_NONE;
	/* pruned (live or after the run) only when every measured series is a loop's ring: an executor's
	 * callbacks, a probed program, a thread measured from its wakeups need the whole analysis */
	for (int u = 0; u < eng->nunits; u++)
		if (JL_MEASURE_FROM_TRACE(eng->units[u].spec->beh.measure))
			recent = false;
	for (int i = 0; recent && i < eng->nseries; i++)
		if (eng->series[i].measured && !eng->series[i].ring)
			recent = false;
	return t->live || recent ? JL_HOLD_RECENT : JL_HOLD_WHOLE;
}

uint64_t jl_trace_lost_now(const struct jl_trace *t)
{
	return t && !t->stopped ? lost_in_stats(t) : 0;
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
	if (t->clocks.known) { /* a step (clock_settime, a leap, a resume) between start and stop: 1 ms or more */
		struct jl_analysis_clocks end = { 0 };

		read_clocks(&end);
		t->clocks.stepped = llabs(end.realtime - t->clocks.realtime) > 1000000 ||
				    llabs(end.tai - t->clocks.tai) > 1000000 || llabs(end.boottime - t->clocks.boottime) > 1000000;
	}
	jl_trace_probe_unserve(t);
	if (t->reader_started) {
		atomic_store(&t->reader_stop, true);
		pthread_join(t->reader, NULL);
		t->reader_started = false;
	}
	for (int c = 0; c < t->ncpus; c++) {
		while (t->cpu[c].tcpu) {
			int n = read_drain(t, c);

			if (n < 0) {
				snprintf(err, errlen, "trace: cannot save the raw pages of CPU %d: %s", c, strerror(errno));
				return -1;
			}
			if (n == 0)
				break;
		}
	}
	t->lost_events += lost_in_stats(t);
	if (t->rec) {
		tracefs_print_close(t->inst);
		if (jl_recorder_finish(t) < 0) { /* the circle's pages follow the kept ones */
			snprintf(err, errlen, "trace: cannot save the flight recorder's pages: %s", strerror(errno));
			return -1;
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
	jl_trace_probe_unserve(t);
	jl_trace_live_free(t); /* before the files it reads are closed */
	if (t->tep)
		tep_free(t->tep);
	if (t->ksyms_state > 0)
		jl_ksyms_free(&t->ksyms);
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
		if (tracefs_instance_destroy(t->inst))
			/* EBUSY: a process still holds one of its files (a probed program's marker descriptor) */
			fprintf(stderr, "jitterlab: warning: cannot remove the tracing instance %s: %s (a process still "
				"holds one of its files; `jitterlab restore` removes it later)\n", t->name, strerror(errno));
		tracefs_instance_free(t->inst);
	}
	jl_recorder_free(t->rec);
	jl_probe_rings_free(t->rings);
	for (int c = 0; t->merged_fd && c < t->ncpus; c++)
		if (t->merged_fd[c] >= 0)
			close(t->merged_fd[c]);
	free(t->merged_fd);
	free(t->cpu);
	free(t->page);
	free(t);
}

int jl_trace_recorder_start(struct jl_trace *t, char *err, size_t errlen)
{
	if (t->rec)
		return 0;
	if (jl_recorder_init(t, err, errlen) < 0) {
		jl_recorder_free(t->rec);
		t->rec = NULL;
		return -1;
	}
	return 0;
}
