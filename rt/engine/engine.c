/* engine: thread setup, the common start barrier, the drivers (periodic, continuous), stop and join.
 * Setup (allocation, prefaulting, policy, affinity) happens before the go barrier; after it, a
 * driver's cycle path only sleeps, reads the clock, runs the work and stores into preallocated
 * samples. The watchdog (jl_engine_stop) runs in the main thread, which the run raises to FIFO 99. */
#include "engine.h"
#include "dispatch.h"

#include <errno.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/statfs.h>
#include <sys/syscall.h>
#include <linux/magic.h>
#include <time.h>
#include <unistd.h>

#include "../../affinity/topology.h"
#include "attach.h"
#include "child.h"
#include "../base/lock.h"
#include "../base/memlock.h"
#include "../base/stop.h"
#include "../base/units.h"

#define STACK_SIZE (512 * 1024)
#define PREFAULT_STACK (256 * 1024)
#define START_LEAD_NS (100 * 1000000LL) /* t0 is this far after the go barrier */

struct jl_sched_attr {
	uint32_t size;
	uint32_t sched_policy;
	uint64_t sched_flags;
	int32_t sched_nice;
	uint32_t sched_priority;
	uint64_t sched_runtime;
	uint64_t sched_deadline;
	uint64_t sched_period;
};

#ifndef SCHED_DEADLINE
#define SCHED_DEADLINE 6
#endif

static struct timespec ns_to_ts(int64_t ns)
{
	struct timespec ts = { .tv_sec = ns / JL_NSEC_PER_SEC, .tv_nsec = ns % JL_NSEC_PER_SEC };

	return ts;
}

/* Sleep until T in slices, so a stop request is noticed. Not for the cycle path. */
static void sleep_until_or_stop(int64_t t)
{
	while (!jl_stopping()) {
		int64_t now = jl_now_ns(), slice;
		struct timespec ts;

		if (now >= t)
			return;
		slice = t - now > 50000000LL ? now + 50000000LL : t;
		ts = ns_to_ts(slice);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static int policy_to_os(enum jl_policy p)
{
	switch (p) {
	case JL_POLICY_FIFO:
		return SCHED_FIFO;
	case JL_POLICY_RR:
		return SCHED_RR;
	case JL_POLICY_BATCH:
		return SCHED_BATCH;
	case JL_POLICY_IDLE:
		return SCHED_IDLE;
	case JL_POLICY_DEADLINE:
		return SCHED_DEADLINE;
	case JL_POLICY_OTHER:
	case JL_POLICY_N:
		break;
	}
	return SCHED_OTHER;
}

/* ---- drivers ---- */

static void record_cpu(struct jl_thread *th, int cpu)
{
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &th->cpus_used);
}

#define SLICE_NS (50 * 1000000LL)

/* Sleep until the release T (absolute). Long waits (a slow period, a late start) are cut into
 * slices so an early stop is noticed; the last sleep always ends exactly at T. Only
 * clock_nanosleep and clock_gettime. Returns false when the run is stopping early. */
bool jl_sleep_until(int64_t t)
{
	struct timespec ts;

	for (int64_t now = jl_now_ns(); !jl_stopping_now() && t - now > SLICE_NS; now = jl_now_ns()) {
		int64_t until = t - now > 2 * SLICE_NS ? now + SLICE_NS : t - SLICE_NS;

		ts = ns_to_ts(until);
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	ts = ns_to_ts(t);
	while (!jl_stopping_now() && clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL) == EINTR)
		;
	return !jl_stopping_now();
}

/* A control loop: releases at absolute times first_release + k * period, until the first release at
 * or after t_end (the cycle in progress at the end runs to its end: see stop.h). After t_end no
 * backlog cycle starts: with overrun = catchup the releases still owed are left (not started), with
 * overrun = skip they are dropped like any overrun. The series' next_release is the first release the
 * loop did not run: every release before it either ran (a sample) or was skipped (between two samples). */
static void drive_periodic(struct jl_thread *th)
{
	const struct jl_thread_spec *spec = th->spec;
	struct jl_engine *eng = th->eng;
	struct jl_series *ser = jl_thread_series(th, 0);
	const int64_t threshold = eng->hooks.mark_threshold_ns;
	int64_t period, deadline, release;
	uint64_t cycle = 0;
	uint32_t skipped = 0;

	if (!ser)
		return; /* its unit's init gave it no series: nothing to measure (thread_series_init always does) */
	period = ser->period_ns;
	deadline = ser->deadline_ns;
	release = ser->first_release;

	while (release < eng->t_end) {
		jl_mark_fn mark;
		int64_t wake, end, latency, now = jl_now_ns();
		bool miss;
		int cpu;

		if (now >= eng->t_end && release <= now) {
			/* the end came while releases were still owed: start none of them */
			if (spec->beh.overrun == JL_OVERRUN_SKIP)
				release += ((now - release) / period + 1) * period;
			break;
		}
		if (!jl_sleep_until(release))
			break;
		wake = jl_now_ns();
		jl_work_run(&th->work);
		end = jl_now_ns();
		cpu = sched_getcpu(); /* vDSO/rseq on x86_64: no syscall */

		latency = jl_latency_ns(release, wake);
		miss = jl_missed(release, end, deadline);
		jl_series_append(ser, &(struct jl_sample){ .release = release, .wake = wake, .end = end,
							   .origin = release, .cycle = cycle, .skipped = skipped,
							   .cpu = cpu, .tid = th->tid });
		jl_series_count_work(ser, end - wake);
		record_cpu(th, cpu);
		mark = atomic_load_explicit(&eng->hooks_mark, memory_order_acquire);
		if (mark && (miss || (threshold > 0 && latency > threshold)))
			mark(eng->hooks.mark_ctx, ser, cycle, latency, miss);

		cycle++;
		release += period;
		skipped = 0;
		if (spec->beh.overrun == JL_OVERRUN_SKIP && end > release) {
			int64_t k = (end - release) / period + 1;

			skipped = (uint32_t)k;
			release += k * period;
			cycle += (uint64_t)k;
		}
	}
	ser->next_release = release;
}

/* A neighbour: the work back to back until the end. */
static void drive_continuous(struct jl_thread *th)
{
	struct jl_engine *eng = th->eng;
	struct jl_series *ser = jl_thread_series(th, 0);

	if (!ser)
		return;
	sleep_until_or_stop(th->first_release);
	while (!jl_stopping()) {
		int64_t t1 = jl_now_ns(), t2;

		if (t1 >= eng->t_end)
			break;
		jl_work_run(&th->work);
		t2 = jl_now_ns();
		jl_series_count_work(ser, t2 - t1);
		record_cpu(th, sched_getcpu());
		if (th->spec->beh.work.kind == JL_WORK_NONE && ser->work_calls % 4096 == 0)
			sched_yield(); /* an empty neighbour would otherwise only read the clock */
	}
}

/* A [thread]'s one series per copy, named like the thread (NAME or NAME.i). A loop's is measured
 * (unless measure = no) and holds every cycle of the run; a neighbour's only counts its work. */
static int thread_series_init(struct jl_unit *u, char *err, size_t errlen)
{
	const struct jl_thread_spec *spec = u->spec;
	const bool periodic = spec->beh.kind == JL_BEH_PERIODIC;

	for (int i = 0; i < u->nthreads; i++) {
		const struct jl_thread *th = &u->eng->threads[u->first_thread + i];
		const bool ring = periodic && u->eng->rings;
		struct jl_series *s = jl_unit_add_series(u, th->name, i,
							 periodic && !ring ? jl_engine_loop_capacity(u->eng->sc, spec->beh.period_ns) : 0,
							 err, errlen);

		if (!s)
			return -1;
		if (ring && jl_series_alloc_ring(s, jl_engine_ring_capacity(spec->beh.period_ns))) {
			snprintf(err, errlen, "cannot allocate the ring of '%s': %s", th->name, strerror(errno));
			return -1;
		}
		s->measured = jl_thread_measured(spec);
		s->periodic = periodic;
		s->period_ns = spec->beh.period_ns;
		s->deadline_ns = periodic ? jl_thread_deadline_ns(spec) : 0;
		s->start_ns = spec->beh.start_ns;
	}
	return 0;
}

const struct jl_driver jl_driver_periodic = {
	.name = "periodic", .end = JL_END_AT_RELEASE, .init = thread_series_init, .run = drive_periodic,
};
const struct jl_driver jl_driver_continuous = {
	.name = "continuous", .end = JL_END_NOW, .init = thread_series_init, .run = drive_continuous,
};
/* a child process (rt/engine/child.c): it runs itself, the engine starts and ends it */
const struct jl_driver jl_driver_exec = {
	.name = "exec", .end = JL_END_NOW, .init = thread_series_init,
};
/* threads already running (an attach section: jitterlab watch): nothing runs, the trace measures them */
const struct jl_driver jl_driver_attach = {
	.name = "attach", .end = JL_END_NOW, .init = thread_series_init,
};

/* ---- the start gate: every thread arrives when set up, then waits until main opens it ---- */

static void gate_arrive_and_wait(struct jl_engine *eng)
{
	pthread_mutex_lock(&eng->gate_mu);
	eng->gate_arrived++;
	pthread_cond_broadcast(&eng->gate_cv);
	while (!eng->gate_open)
		pthread_cond_wait(&eng->gate_cv, &eng->gate_mu);
	pthread_mutex_unlock(&eng->gate_mu);
}

static void gate_wait_arrivals(struct jl_engine *eng, int n)
{
	pthread_mutex_lock(&eng->gate_mu);
	while (eng->gate_arrived < n)
		pthread_cond_wait(&eng->gate_cv, &eng->gate_mu);
	pthread_mutex_unlock(&eng->gate_mu);
}

static void gate_release(struct jl_engine *eng)
{
	pthread_mutex_lock(&eng->gate_mu);
	eng->gate_open = true;
	pthread_cond_broadcast(&eng->gate_cv);
	pthread_mutex_unlock(&eng->gate_mu);
}

/* ---- thread setup ---- */

static void thread_fail(struct jl_thread *th, int err, const char *what)
{
	th->error = err;
	snprintf(th->errmsg, sizeof(th->errmsg), "%s: %s%s", what, strerror(err),
		 err == EPERM ? " (needs root, or CAP_SYS_NICE and RLIMIT_RTPRIO; run with sudo)" : "");
}

static int apply_own_sched(struct jl_thread *th)
{
	const struct jl_thread_spec *spec = th->spec;

	if (spec->place.policy == JL_POLICY_DEADLINE) {
		struct jl_sched_attr attr = {
			.size = sizeof(attr),
			.sched_policy = SCHED_DEADLINE,
			.sched_runtime = (uint64_t)spec->place.runtime_ns,
			.sched_deadline = (uint64_t)jl_thread_deadline_ns(spec),
			.sched_period = (uint64_t)spec->beh.period_ns,
		};

		if (syscall(SYS_sched_setattr, 0, &attr, 0)) {
			thread_fail(th, errno, "sched_setattr(SCHED_DEADLINE)");
			return -1;
		}
	} else if ((spec->place.policy == JL_POLICY_OTHER || spec->place.policy == JL_POLICY_BATCH) && spec->place.nice) {
		if (setpriority(PRIO_PROCESS, (id_t)th->tid, spec->place.nice)) {
			thread_fail(th, errno, "setpriority(nice)");
			return -1;
		}
	}
	return 0;
}

static void prefault_stack(void)
{
	volatile char buf[PREFAULT_STACK];

	memset((char *)buf, 0, sizeof(buf));
}

/* The thread's name in ps and in every trace event, set before it does anything else. */
static void set_comm(const struct jl_thread *th)
{
	char comm[16]; /* the kernel keeps 15 characters */

	memcpy(comm, th->name, sizeof(comm) - 1);
	comm[sizeof(comm) - 1] = '\0';
	pthread_setname_np(pthread_self(), comm);
}

static void *thread_main(void *arg)
{
	struct jl_thread *th = arg;
	struct jl_engine *eng = th->eng;
	struct rusage ru;
	struct timespec cpu;

	th->tid = (pid_t)syscall(SYS_gettid);
	jl_lock_thread(th->tid);
	set_comm(th);
	/* a measured thread's timer fires when it asked, whatever its policy: the default 50 us slack of
	 * SCHED_OTHER threads (RT threads get none) would bias every fifo-vs-other comparison */
	if (th->measured && prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL))
		thread_fail(th, errno, "prctl(PR_SET_TIMERSLACK)");
	prefault_stack();
	if (th->measured)
		jl_memlock_stack(); /* the whole stack block, its TLS with it */
	CPU_ZERO(&th->cpus_used);
	apply_own_sched(th);
	if (th->spec->place.mem_node >= 0) {
		/* the thread's own memory policy: the samples of its series move there, its work buffer is
		 * allocated there */
		void *mem = NULL;

		for (int k = 0; k < th->nseries && !th->error; k++) {
			size_t len;
			void *p = jl_series_memory(jl_thread_series(th, k), &len);

			if (jl_topo_numa_bind_memory(th->spec->place.mem_node, p, len))
				thread_fail(th, errno, "binding memory to mem_node");
			mem = mem ? mem : p;
		}
		if (!th->nseries && jl_topo_numa_bind_memory(th->spec->place.mem_node, NULL, 0))
			thread_fail(th, errno, "binding memory to mem_node");
		if (!th->error)
			th->mem_node_used = jl_topo_numa_node_of(mem ? mem : (void *)&th->work);
	}
	if (!th->error && jl_work_prepare(&th->work, &th->spec->beh.work, th->spec->place.mem_node))
		thread_fail(th, errno, "preparing the work");
	th->work.lock = jl_engine_lock(eng, th->spec->beh.lock);
	/* how the work ends at the normal end of the run is the driver's to say (jl_work_prepare resets it) */
	th->work.run_to_end = eng->units[th->unit].drv->end == JL_END_AT_RELEASE;
	gate_arrive_and_wait(eng);
	if (th->error || jl_stopping())
		goto out;

	th->started_ns = jl_now_ns();
	th->eng->units[th->unit].drv->run(th);
	th->ended_ns = jl_now_ns();
out:
	if (!getrusage(RUSAGE_THREAD, &ru)) {
		th->ctx_voluntary = ru.ru_nvcsw;
		th->ctx_involuntary = ru.ru_nivcsw;
	}
	if (!clock_gettime(CLOCK_THREAD_CPUTIME_ID, &cpu))
		th->cpu_time_ns = cpu.tv_sec * JL_NSEC_PER_SEC + cpu.tv_nsec;
	return NULL;
}

/* ---- init / start / stop ---- */

size_t jl_engine_loop_capacity(const struct jl_scenario *sc, int64_t period_ns)
{
	int64_t span = sc->run.warmup_ns + sc->run.duration_ns;

	return period_ns > 0 ? (size_t)(span / period_ns) + 16 : 16;
}

double jl_engine_loop_bytes(const struct jl_scenario *sc)
{
	double need = 0;

	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (t->beh.period_ns && !t->beh.exec[0])
			need += (double)jl_engine_loop_capacity(sc, t->beh.period_ns) * (double)sizeof(struct jl_sample) *
				t->place.count;
	}
	return need;
}

void jl_engine_sort_series(struct jl_engine *eng)
{
	for (int i = 0; i < eng->nseries; i++)
		if (eng->series[i].group == JL_GROUP_REENTRANT && !eng->series[i].ring &&
		    eng->units[eng->series[i].unit].spec->beh.kind == JL_BEH_EXECUTOR)
			jl_series_sort_by_release(&eng->series[i]);
}

void jl_engine_stop_window(struct jl_engine *eng, int64_t t)
{
	int64_t cur = atomic_load(&eng->t_stopped);

	while ((!cur || t < cur) && !atomic_compare_exchange_weak(&eng->t_stopped, &cur, t))
		;
}

enum jl_samples_mode jl_engine_samples_mode(const struct jl_scenario *sc)
{
	enum jl_samples_mode m = sc->run.samples;

	return m == JL_SAMPLES_AUTO ? (jl_engine_long(sc) ? JL_SAMPLES_WORST : JL_SAMPLES_ALL) : m;
}

bool jl_engine_rings(const struct jl_scenario *sc)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (sc->threads[i].beh.period_ns && !sc->threads[i].beh.exec[0])
			return true;
	return false;
}

bool jl_engine_long(const struct jl_scenario *sc)
{
	return jl_engine_loop_bytes(sc) > (double)sc->run.samples_memory;
}

bool jl_engine_memory_matters(const struct jl_scenario *sc)
{
	return jl_engine_loop_bytes(sc) * 2 > (double)sc->run.samples_memory || sc->run.duration_ns >= 600 * JL_NSEC_PER_SEC;
}

static double spill_bytes(const struct jl_scenario *sc)
{
	double need = 0;

	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (t->beh.period_ns && !t->beh.exec[0])
			need += (double)jl_engine_loop_capacity(sc, t->beh.period_ns) * 3 * sizeof(int64_t) * t->place.count;
	}
	return need;
}

bool jl_engine_spill_fits(const struct jl_scenario *sc, double *bytes)
{
	struct statfs fs;
	double need = spill_bytes(sc);

	if (bytes)
		*bytes = need;
	if (sc->run.percentiles != JL_PERCENTILES_AUTO)
		return sc->run.percentiles == JL_PERCENTILES_EXACT;
	if (statfs("/tmp", &fs))
		return false;
	if (fs.f_type == TMPFS_MAGIC || fs.f_type == RAMFS_MAGIC)
		return need <= (double)sc->run.samples_memory;
	return need <= (double)JL_SPILL_MAX_BYTES && need <= (double)fs.f_bavail * (double)fs.f_bsize / 4;
}

/* A ring holds 4 s of a loop's cycles (the collector reads every 100 ms), at least 4096 */
size_t jl_engine_ring_capacity(int64_t period_ns)
{
	size_t want = period_ns > 0 ? (size_t)(4 * JL_NSEC_PER_SEC / period_ns) : 4096, cap = 4096;

	while (cap < want && cap < ((size_t)1 << 24))
		cap <<= 1;
	return cap;
}

void jl_engine_set_mark(struct jl_engine *eng, jl_mark_fn fn, void *ctx, int64_t threshold_ns)
{
	eng->hooks.mark = fn;
	eng->hooks.mark_ctx = ctx;
	eng->hooks.mark_threshold_ns = threshold_ns;
	atomic_store_explicit(&eng->hooks_mark, fn, memory_order_release);
}

struct jl_series *jl_thread_series(const struct jl_thread *th, int k)
{
	return k >= 0 && k < th->nseries ? &th->eng->series[th->first_series + k] : NULL;
}

const struct jl_thread *jl_series_thread(const struct jl_engine *eng, const struct jl_series *s)
{
	return s->thread >= 0 && s->thread < eng->nthreads ? &eng->threads[s->thread] : NULL;
}

/* A new series of unit U at the end of eng->series (the array grows: pointers taken before move). */
static struct jl_series *series_new(struct jl_engine *eng, struct jl_unit *u, const char *name, int thread, size_t cap,
				    char *err, size_t errlen)
{
	struct jl_series *s, *grown;

	grown = realloc(eng->series, ((size_t)(unsigned)eng->nseries + 1) * sizeof(*eng->series));
	if (!grown) {
		snprintf(err, errlen, "out of memory for the series of '%s'", u->spec->name);
		return NULL;
	}
	eng->series = grown;
	s = &eng->series[eng->nseries];
	memset(s, 0, sizeof(*s));
	snprintf(s->name, sizeof(s->name), "%s", name);
	s->kind = u->drv->name;
	s->id = eng->nseries;
	s->unit = (int)(u - eng->units);
	s->thread = thread >= 0 ? u->first_thread + thread : -1;
	if (jl_series_alloc(s, cap)) {
		snprintf(err, errlen, "cannot allocate %zu samples for '%s': %s", cap, name, strerror(errno));
		return NULL;
	}
	eng->nseries++;
	return s;
}

/* The returned series stays where it is until the next add (the array grows during init only). */
struct jl_series *jl_unit_add_series(struct jl_unit *u, const char *name, int thread, size_t cap, char *err,
				     size_t errlen)
{
	struct jl_engine *eng = u->eng;
	struct jl_series *s;

	if (thread < -1 || thread >= u->nthreads || strlen(name) >= sizeof(s->name) || eng->gate_init) {
		/* after init the array never moves: the threads hold pointers into it */
		snprintf(err, errlen, "%s: series '%.64s' of thread %d: no such thread, name too long, or added after "
			 "init (a driver bug)", u->spec->name, name, thread);
		return NULL;
	}
	if (!u->nseries)
		u->first_series = eng->nseries;
	s = series_new(eng, u, name, thread, cap, err, errlen);
	if (s)
		u->nseries++;
	return s;
}

struct jl_series *jl_engine_add_found_series(struct jl_engine *eng, int unit, const char *name, size_t cap, char *err,
					     size_t errlen)
{
	struct jl_unit *u;

	for (int i = 0; i < eng->nthreads; i++)
		if (eng->threads[i].created && !eng->threads[i].joined && !eng->threads[i].is_exec) {
			snprintf(err, errlen, "a series added while thread '%s' runs", eng->threads[i].name);
			return NULL;
		}
	if (unit < 0 || unit >= eng->nunits) {
		snprintf(err, errlen, "series '%.64s': no unit %d", name, unit);
		return NULL;
	}
	u = &eng->units[unit];
	if (strlen(name) >= sizeof(u->eng->series[0].name)) {
		snprintf(err, errlen, "series '%.64s': name too long", name);
		return NULL;
	}
	/* not one of the unit's own series (those are adjacent, made by its init): found after the run */
	return series_new(eng, u, name, -1, cap, err, errlen);
}

/* After every unit's init: which series each thread writes (a unit's series are added thread by
 * thread, so each thread's own series are adjacent), and whether it is measured. */
static int link_series(struct jl_engine *eng, char *err, size_t errlen)
{
	for (int t = 0; t < eng->nthreads; t++) {
		struct jl_thread *th = &eng->threads[t];
		const struct jl_unit *u = &eng->units[th->unit];

		th->first_series = -1;
		th->nseries = 0;
		for (int k = u->first_series; k < u->first_series + u->nseries; k++) {
			const struct jl_series *s = &eng->series[k];

			if (s->thread != t && s->thread >= 0)
				continue;
			th->measured |= s->measured;
			if (s->thread != t)
				continue;
			if (th->first_series < 0)
				th->first_series = k;
			else if (th->first_series + th->nseries != k) {
				snprintf(err, errlen, "%s: the series of thread '%s' are not adjacent (a driver bug)",
					 u->spec->name, th->name);
				return -1;
			}
			th->nseries++;
		}
	}
	return 0;
}

/* Room for every acquisition of LOCK: its users' releases (a loop's or a timer's), or a fixed number
 * for users without a period (beyond it acquisitions are counted, not kept) */
#define LOCK_UNTIMED_CAP 65536

static size_t lock_capacity(const struct jl_scenario *sc, const struct jl_lock_spec *l)
{
	/* acquisitions per work call: 1, and with a biglock one per hand-off and a retake after a sleep */
	const size_t per_call = l->kind == JL_LOCK_BIGLOCK ? 2 + l->handoffs : 1;
	size_t cap = 16, calls = 0;

	for (int i = 0; i < sc->nthreads; i++)
		if (!strcmp(sc->threads[i].beh.lock, l->name))
			calls += (sc->threads[i].beh.period_ns ? jl_engine_loop_capacity(sc, sc->threads[i].beh.period_ns)
							       : LOCK_UNTIMED_CAP) * sc->threads[i].place.count;
	for (int i = 0; i < sc->ncallbacks; i++)
		if (!strcmp(sc->callbacks[i].lock, l->name))
			calls += sc->callbacks[i].period_ns ? jl_engine_loop_capacity(sc, sc->callbacks[i].period_ns)
							    : LOCK_UNTIMED_CAP;
	cap += calls * per_call;
	if (l->kind == JL_LOCK_BIGLOCK) /* forced drops: at most one per switch interval over the run */
		cap += (size_t)((sc->run.warmup_ns + sc->run.duration_ns) / l->switch_interval_ns) + 16;
	return cap;
}

static int locks_init(struct jl_engine *eng, char *err, size_t errlen)
{
	const struct jl_scenario *sc = eng->sc;

	if (!sc->nlocks)
		return 0;
	eng->locks = calloc((size_t)sc->nlocks, sizeof(*eng->locks));
	if (!eng->locks) {
		snprintf(err, errlen, "out of memory for %d locks", sc->nlocks);
		return -1;
	}
	for (int i = 0; i < sc->nlocks; i++, eng->nlocks++)
		if (jl_lock_init(&eng->locks[i], sc->locks[i].name, (enum jl_lock_kind)sc->locks[i].kind, sc->locks[i].ceiling,
				 lock_capacity(sc, &sc->locks[i]))) {
			snprintf(err, errlen, "lock '%s': cannot make it: %s", sc->locks[i].name, strerror(errno));
			return -1;
		} else if (sc->locks[i].kind == JL_LOCK_BIGLOCK) {
			jl_lock_set_biglock(&eng->locks[i], sc->locks[i].switch_interval_ns, sc->locks[i].handoffs);
		}
	return 0;
}

struct jl_lock *jl_engine_lock(struct jl_engine *eng, const char *name)
{
	for (int i = 0; name && name[0] && i < eng->nlocks; i++)
		if (!strcmp(eng->locks[i].name, name))
			return &eng->locks[i];
	return NULL;
}

/* Unit I of SPEC: its driver, its threads (one per copy, named NAME or NAME.i), its driver's init. 0, or -1
 * with ERR. */
static int add_unit(struct jl_engine *eng, int i, const struct jl_thread_spec *spec, char *err, size_t errlen)
{
	struct jl_unit *u = &eng->units[eng->nunits++];

	u->spec = spec;
	u->eng = eng;
	u->drv = (unsigned)spec->beh.kind < JL_BEH_N ? eng->drivers[spec->beh.kind] : NULL;
	u->first_thread = eng->nthreads;
	if (!u->drv) {
		snprintf(err, errlen, "thread '%s': no driver for its behaviour (kind %d)", spec->name, (int)spec->beh.kind);
		return -1;
	}
	for (unsigned c = 0; c < spec->place.count; c++) {
		struct jl_thread *th = &eng->threads[eng->nthreads++];

		th->spec = spec;
		th->eng = eng;
		th->unit = i;
		th->copy = (int)c;
		th->exit_status = -1;
		if (spec->place.count > 1)
			snprintf(th->name, sizeof(th->name), "%s.%u", spec->name, c);
		else
			snprintf(th->name, sizeof(th->name), "%s", spec->name);
		th->is_exec = !u->drv->run;
		th->attached = spec->beh.kind == JL_BEH_ATTACH;
		th->mem_node_used = -1;
		CPU_ZERO(&th->cpus_used);
		u->nthreads++;
	}
	if (u->drv->init && u->drv->init(u, err, errlen))
		return -1;
	u->inited = true;
	return 0;
}

int jl_engine_init_drivers(struct jl_engine *eng, const struct jl_scenario *sc, const struct jl_engine_hooks *hooks,
			   const struct jl_driver *const *drivers, char *err, size_t errlen)
{
	int n = 0;

	memset(eng, 0, sizeof(*eng));
	eng->sc = sc;
	eng->drivers = drivers;
	eng->rings = jl_engine_rings(sc);
	if (hooks)
		eng->hooks = *hooks;
	atomic_store(&eng->hooks_mark, eng->hooks.mark);
	for (int i = 0; i < sc->nthreads; i++)
		n += (int)sc->threads[i].place.count;
	for (int i = 0; i < sc->nexecutors; i++)
		n += (int)sc->executors[i].t.place.count;
	for (int i = 0; i < sc->nsources; i++)
		n += (int)sc->sources[i].t.place.count;
	eng->threads = calloc(n > 0 ? (size_t)n : 1, sizeof(*eng->threads));
	eng->units = calloc((size_t)(sc->nthreads + sc->nexecutors + sc->nsources) + 1, sizeof(*eng->units));
	if (!eng->threads || !eng->units) {
		snprintf(err, errlen, "out of memory for %d threads", n);
		jl_engine_free(eng);
		return -1;
	}
	if (locks_init(eng, err, errlen)) {
		jl_engine_free(eng);
		return -1;
	}
	/* the units: every [thread], then every [executor] (its thread spec: the pool's placement), then every
	 * [source] (after the executors: it sends to their queues) */
	for (int i = 0; i < sc->nthreads + sc->nexecutors + sc->nsources; i++) {
		const struct jl_thread_spec *spec = i < sc->nthreads ? &sc->threads[i]
						  : i < sc->nthreads + sc->nexecutors ? &sc->executors[i - sc->nthreads].t
						  : &sc->sources[i - sc->nthreads - sc->nexecutors].t;

		if (add_unit(eng, i, spec, err, errlen)) {
			jl_engine_free(eng); /* fini only for the units whose init succeeded */
			return -1;
		}
	}
	if (link_series(eng, err, errlen)) {
		jl_engine_free(eng);
		return -1;
	}
	/* a probed program is measured (its series come from the trace after the run): placed like a
	 * measured thread, but it keeps its own timer slack (child.c says why) */
	for (int t = 0; t < eng->nthreads; t++)
		if (JL_MEASURE_FROM_TRACE(eng->threads[t].spec->beh.measure))
			eng->threads[t].measured = true;
	/* the tables every measured thread reads on its cycles (the series array is final now) */
	jl_memlock_range(eng, sizeof(*eng));
	jl_memlock_range(sc, sizeof(*sc));
	jl_memlock_range(eng->threads, (size_t)(n > 0 ? n : 1) * sizeof(*eng->threads));
	jl_memlock_range(eng->units, (size_t)eng->nunits * sizeof(*eng->units));
	jl_memlock_range(eng->series, (size_t)eng->nseries * sizeof(*eng->series));
	jl_memlock_range(eng->locks, (size_t)eng->nlocks * sizeof(*eng->locks));
	return 0;
}

static int create_thread(struct jl_thread *th, char *err, size_t errlen)
{
	const struct jl_thread_spec *spec = th->spec;
	struct sched_param sp = { 0 };
	pthread_attr_t attr;
	int rc;

	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, STACK_SIZE);
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	/* other and deadline start as SCHED_OTHER; deadline switches itself with sched_setattr */
	if (spec->place.policy != JL_POLICY_DEADLINE)
		pthread_attr_setschedpolicy(&attr, policy_to_os(spec->place.policy));
	else
		pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	if (jl_policy_is_rt(spec->place.policy))
		sp.sched_priority = spec->place.priority;
	pthread_attr_setschedparam(&attr, &sp);
	if (spec->place.cpus_set)
		pthread_attr_setaffinity_np(&attr, sizeof(spec->place.cpus), &spec->place.cpus);
	rc = pthread_create(&th->pthread, &attr, thread_main, th);
	pthread_attr_destroy(&attr);
	if (rc) {
		char prio[32] = "";

		if (jl_policy_is_rt(spec->place.policy))
			snprintf(prio, sizeof(prio), " priority %d", spec->place.priority);
		snprintf(err, errlen, "thread '%s': cannot start with policy %s%s: %s%s", th->name,
			 jl_policy_name(spec->place.policy), prio, strerror(rc),
			 rc == EPERM ? " (real-time policies need root, or CAP_SYS_NICE and RLIMIT_RTPRIO; run with sudo)" : "");
		return -1;
	}

	th->created = true;
	return 0;
}

static void abort_start(struct jl_engine *eng)
{
	jl_stop_request(JL_STOP_ERROR);
	if (!eng->t_end)
		eng->t0 = eng->t_measure = eng->t_end = jl_now_ns();
	gate_release(eng);
	jl_engine_stop(eng, jl_now_ns() + eng->sc->run.grace_ns);
}

/* The exec children first: each waits on its go pipe, then sleeps until its start time, then execs. 0, or -1
 * with ERR. */
static int spawn_children(struct jl_engine *eng, char *err, size_t errlen)
{
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];
		char log[4200];

		if (!th->is_exec)
			continue;
		if (th->attached) { /* what runs already: found now, the rest in the trace */
			th->nseed = jl_attach_scan(th->spec->beh.attach, getpid(), &th->seed);
			if (th->nseed < 0) {
				snprintf(err, errlen, "thread '%s': cannot read /proc: %s", th->name, strerror(errno));
				return -1;
			}
			continue;
		}
		snprintf(log, sizeof(log), "%s/%s.log", eng->log_dir, th->name);
		th->child = jl_child_spawn(th->spec, th->name, eng->log_dir[0] ? log : NULL, err, errlen);
		if (!th->child)
			return -1;
		th->tid = jl_child_pid(th->child);
	}
	return 0;
}

/* The built-in threads, each at the start gate when this returns: SCHED_DEADLINE ones last (once one
 * exists, the kernel refuses to create threads with a narrowed affinity: EINVAL). Then each is placed
 * (thread_ready) and the run told (all_ready). 0, or -1 with ERR. */
static int create_threads(struct jl_engine *eng, char *err, size_t errlen)
{
	int created = 0;

	for (int pass = 0; pass < 2; pass++)
		for (int i = 0; i < eng->nthreads; i++) {
			struct jl_thread *th = &eng->threads[i];

			if (th->is_exec || (th->spec->place.policy == JL_POLICY_DEADLINE) != (pass == 1))
				continue;
			if (create_thread(th, err, errlen)) {
				gate_wait_arrivals(eng, created);
				return -1;
			}
			created++;
		}
	gate_wait_arrivals(eng, created);
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];

		if (th->error) {
			snprintf(err, errlen, "thread '%s': %s", th->name, th->errmsg);
			return -1;
		}
		if (th->attached) /* not the run's to place */
			continue;
		if (eng->hooks.thread_ready && eng->hooks.thread_ready(eng->hooks.ctx, th)) {
			snprintf(err, errlen, "thread '%s': cannot place it: %s", th->name, strerror(errno));
			return -1;
		}
	}
	return eng->hooks.all_ready && eng->hooks.all_ready(eng->hooks.ctx, err, errlen) ? -1 : 0;
}

/* The run's times, each thread's and series' first release, the children told when to start. 0, or -1
 * with ERR. */
static int set_times(struct jl_engine *eng, char *err, size_t errlen)
{
	const struct jl_scenario *sc = eng->sc;

	eng->t0 = jl_now_ns() + START_LEAD_NS;
	eng->t0_realtime = jl_realtime_at(eng->t0);
	eng->t_measure = eng->t0 + sc->run.warmup_ns;
	eng->t_end = eng->t_measure + sc->run.duration_ns;
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];

		th->first_release = th->spec->beh.start_ns ? eng->t_measure + th->spec->beh.start_ns : eng->t0;
		if (th->is_exec && th->child && jl_child_go(th->child, th->first_release)) {
			snprintf(err, errlen, "thread '%s': cannot start the child: %s", th->name, strerror(errno));
			return -1;
		}
	}
	/* every series' grid: its thread's first release, or the run's for a series of no one thread */
	for (int k = 0; k < eng->nseries; k++) {
		struct jl_series *s = &eng->series[k];

		s->first_release = s->thread >= 0 ? eng->threads[s->thread].first_release
			: s->start_ns ? eng->t_measure + s->start_ns : eng->t0;
	}
	return 0;
}

int jl_engine_start(struct jl_engine *eng, char *err, size_t errlen)
{
	pthread_mutex_init(&eng->gate_mu, NULL);
	pthread_cond_init(&eng->gate_cv, NULL);
	eng->gate_init = true;
	if (spawn_children(eng, err, errlen) || create_threads(eng, err, errlen) || set_times(eng, err, errlen)) {
		abort_start(eng);
		return -1;
	}
	gate_release(eng);
	return 0;
}

static void join_until(struct jl_engine *eng, int64_t deadline)
{
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];
		struct timespec ts;

		if (th->is_exec || !th->created || th->joined)
			continue;
		ts = (struct timespec){ 0 };
		{
			/* pthread_timedjoin_np takes CLOCK_REALTIME */
			struct timespec rt;
			int64_t left = deadline - jl_now_ns();

			clock_gettime(CLOCK_REALTIME, &rt);
			if (left < 0)
				left = 0;
			ts = ns_to_ts(rt.tv_sec * JL_NSEC_PER_SEC + rt.tv_nsec + left);
		}
		if (pthread_timedjoin_np(th->pthread, NULL, &ts) == 0)
			th->joined = true;
	}
}

static bool all_joined(const struct jl_engine *eng)
{
	for (int i = 0; i < eng->nthreads; i++)
		if (!eng->threads[i].is_exec && eng->threads[i].created && !eng->threads[i].joined)
			return false;
	return true;
}

int jl_engine_stop(struct jl_engine *eng, int64_t deadline_ns)
{
	int64_t grace = eng->sc->run.grace_ns;

	jl_engine_stop_window(eng, jl_now_ns());
	jl_stop_request(JL_STOP_END);
	/* wake what waits inside a driver (an executor's ready queue); the flag is enough for the rest */
	for (int u = 0; u < eng->nunits; u++)
		if (eng->units[u].drv->stop)
			eng->units[u].drv->stop(&eng->units[u]);
	/* children: SIGINT to all, then one shared grace, then SIGKILL */
	for (int i = 0; i < eng->nthreads; i++)
		if (eng->threads[i].is_exec && eng->threads[i].child)
			jl_child_interrupt(eng->threads[i].child);
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];

		if (!th->is_exec || !th->child)
			continue;
		th->exit_status = jl_child_finish(th->child, eng->t_stopped + grace);
		th->ended_early = jl_child_ended_early(th->child);
		if (jl_child_error(th->child)[0])
			snprintf(th->errmsg, sizeof(th->errmsg), "%s", jl_child_error(th->child));
		jl_child_free(th->child);
		th->child = NULL;
	}
	if (deadline_ns < jl_now_ns() + 200 * 1000000LL)
		deadline_ns = jl_now_ns() + 200 * 1000000LL;
	join_until(eng, deadline_ns);
	if (all_joined(eng))
		return 0;

	/* Watchdog: a thread that has not ended is starved or stuck. Demote every unjoined thread to
	 * SCHED_OTHER so that none can monopolise a CPU, then give them a second grace. */
	eng->watchdog_fired = true;
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];
		struct sched_param sp = { 0 };

		if (th->is_exec || !th->created || th->joined)
			continue;
		pthread_setschedparam(th->pthread, SCHED_OTHER, &sp);
	}
	join_until(eng, jl_now_ns() + grace);
	if (all_joined(eng))
		return 0;
	eng->stuck[0] = '\0';
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];
		size_t used = strlen(eng->stuck);

		if (!th->is_exec && th->created && !th->joined)
			snprintf(eng->stuck + used, sizeof(eng->stuck) - used, "%s%s", used ? ", " : "", th->name);
	}
	errno = ETIMEDOUT;
	return -1;
}

void jl_engine_free(struct jl_engine *eng)
{
	if (!eng->threads && !eng->units)
		return;
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];

		if (th->created && !th->joined && !th->is_exec)
			return; /* a stuck thread may still write its samples: leak rather than crash */
	}
	for (int u = 0; u < eng->nunits; u++)
		if (eng->units[u].inited && eng->units[u].drv->fini)
			eng->units[u].drv->fini(&eng->units[u]);
	for (int i = 0; i < eng->nseries; i++)
		jl_series_free(&eng->series[i]);
	for (int i = 0; i < eng->nthreads; i++) {
		struct jl_thread *th = &eng->threads[i];

		jl_work_release(&th->work);
		if (th->child)
			jl_child_free(th->child);
		free(th->seed);
		th->seed = NULL;
	}
	for (int i = 0; i < eng->nlocks; i++)
		jl_lock_free(&eng->locks[i]);
	free(eng->locks);
	eng->locks = NULL;
	eng->nlocks = 0;
	if (eng->gate_init) {
		pthread_mutex_destroy(&eng->gate_mu);
		pthread_cond_destroy(&eng->gate_cv);
	}
	free(eng->series);
	free(eng->units);
	free(eng->threads);
	eng->series = NULL;
	eng->units = NULL;
	eng->threads = NULL;
	eng->nseries = eng->nunits = eng->nthreads = 0;
}
