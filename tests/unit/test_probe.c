/* test_probe: the probe's records become series (rt/trace/io/probe_server.c). Hand-made event sequences, as
 * io/read.c decodes them from trace_marker_raw: a probed program's threads (one a child of the
 * exec'd process, one a thread it created, one of an unrelated process), wake/end records, names. What is
 * checked is counted here from the sequences. Also: include/jitterlab/probe.h outside a run is a no-op. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "include/jitterlab/probe.h"
#include "rt/engine/engine.h"
#include "rt/trace/analysis/advice.h"
#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/event.h"
#include "rt/trace/analysis/offcpu.h"
#include "rt/trace/analysis/parts.h"
#include "rt/trace/analysis/trace_series.h"
#include "rt/trace/analysis/worst.h"
#include "tests/unit/tev_builders.h"

#define CHILD 500   /* the exec'd program's pid */
#define WORKER 501  /* a thread it created */
#define GRAND 502   /* a process it forked */
#define OTHER 900   /* not the run's */
#define HOGP 600    /* a CPU hog */
#define MS 1000000LL

struct fake {
	struct jl_scenario sc;
	struct jl_engine eng;
	struct jl_thread th;
	struct jl_unit unit;
	struct jl_analysis an;
};

static void setup(struct fake *f, int64_t period_ns)
{
	memset(f, 0, sizeof(*f));
	f->sc.nthreads = 1;
	snprintf(f->sc.threads[0].name, sizeof(f->sc.threads[0].name), "ctl");
	snprintf(f->sc.threads[0].beh.exec, sizeof(f->sc.threads[0].beh.exec), "./loop");
	f->sc.threads[0].beh.measure = JL_MEASURE_PROBE;
	f->sc.threads[0].beh.period_ns = period_ns;
	f->sc.threads[0].beh.kind = JL_BEH_EXEC;
	f->sc.threads[0].place.count = 1;
	f->eng.sc = &f->sc;
	f->eng.nthreads = 1;
	f->eng.threads = &f->th;
	f->eng.nunits = 1;
	f->eng.units = &f->unit;
	f->unit.spec = &f->sc.threads[0];
	f->unit.eng = &f->eng;
	f->unit.drv = jl_drivers[JL_BEH_EXEC];
	f->unit.nthreads = 1;
	f->th.spec = &f->sc.threads[0];
	f->th.eng = &f->eng;
	f->th.is_exec = true;
	f->th.tid = CHILD;
	assert_int_equal(jl_analysis_init(&f->an, NULL, 0, 2), 0);
}

static void teardown(struct fake *f)
{
	for (int i = 0; i < f->eng.nseries; i++)
		jl_series_free(&f->eng.series[i]);
	free(f->eng.series);
	jl_analysis_free(&f->an);
}

static void feed(struct fake *f, struct jl_event e)
{
	assert_int_equal(jl_analysis_feed(&f->an, &e), 0);
}

/* a probe record written by PID at US: kind, the release it names (us), a name */
static void probe(struct fake *f, int64_t us, int pid, int kind, int64_t release_us, const char *name)
{
	struct jl_event e = ev(us, 1, pid, JL_EVENT_PROBE, 0, name ? name : "");

	e.mark_thread = kind;
	e.expires = release_us * 1000;
	feed(f, e);
}

static void born(struct fake *f, int64_t us, int parent, int pid, bool thread)
{
	struct jl_event e = ev(us, 0, parent, thread ? JL_EVENT_NEWTASK : JL_EVENT_FORK, pid, "x");

	e.prev_pid = parent;
	e.arg = thread ? 0x10000 : 0;
	feed(f, e);
}

static const struct jl_series *series(const struct fake *f, const char *name)
{
	for (int i = 0; i < f->eng.nseries; i++)
		if (!strcmp(f->eng.series[i].name, name))
			return &f->eng.series[i];
	return NULL;
}

/* Wakes and ends pair in order, per thread; a thread created by the program and a process it forked are
 * the unit's; a process that is not the run's is not; names come from the name records. */
static void test_records_become_series(void **state)
{
	struct fake f;
	const struct jl_series *a, *w, *g;
	char err[256];

	(void)state;
	setup(&f, 0);
	born(&f, 10, CHILD, WORKER, true);
	born(&f, 20, CHILD, GRAND, false);
	probe(&f, 50, CHILD, JL_PROBE_NAME, 0, "control");
	/* the main thread: 3 cycles every 10 ms, the second one skipped (no record at 1020 ms) */
	probe(&f, 1000050, CHILD, JL_PROBE_WAKE, 1000000, NULL);
	probe(&f, 1000250, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 1010040, CHILD, JL_PROBE_WAKE, 1010000, NULL);
	probe(&f, 1010200, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 1030070, CHILD, JL_PROBE_WAKE, 1030000, NULL);
	probe(&f, 1030100, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 1040070, CHILD, JL_PROBE_WAKE, 1040000, NULL); /* the last wake has no end: not a cycle */
	/* a worker thread without a release (0): ready = its wake */
	probe(&f, 1000500, WORKER, JL_PROBE_WAKE, 0, NULL);
	probe(&f, 1000600, WORKER, JL_PROBE_END, 0, NULL);
	probe(&f, 1005500, WORKER, JL_PROBE_WAKE, 0, NULL);
	probe(&f, 1005700, WORKER, JL_PROBE_END, 0, NULL);
	/* a forked process, named */
	probe(&f, 1000700, GRAND, JL_PROBE_NAME, 0, "scan");
	probe(&f, 1000800, GRAND, JL_PROBE_WAKE, 1000750, NULL);
	probe(&f, 1000900, GRAND, JL_PROBE_END, 0, NULL);
	/* not the run's */
	probe(&f, 1000800, OTHER, JL_PROBE_WAKE, 1000800, NULL);
	probe(&f, 1000900, OTHER, JL_PROBE_END, 0, NULL);
	assert_int_equal(f.an.nprobes, 17);
	assert_int_equal(f.an.nbirths, 2);

	assert_int_equal(jl_trace_probe_series(&f.eng, &f.an, err, sizeof(err)), 0);
	assert_int_equal(f.eng.nseries, 3);
	a = series(&f, "ctl.control");
	w = series(&f, "ctl.501");
	g = series(&f, "ctl.scan");
	assert_non_null(a);
	assert_non_null(w);
	assert_non_null(g);
	assert_string_equal(a->kind, "probe");
	assert_true(a->measured);
	assert_int_equal(a->thread, -1);
	assert_int_equal(a->tid, CHILD);
	assert_int_equal(w->tid, WORKER);

	/* the main thread: 3 cycles, the period from its releases (10 ms, the median step), the skipped
	 * release counted, the deadline = the period */
	assert_int_equal(jl_series_count(a), 3);
	assert_int_equal(a->period_ns, 10 * MS);
	assert_int_equal(a->deadline_ns, 10 * MS);
	assert_true(a->periodic);
	assert_int_equal(jl_series_at(a, 0)->release, 1000000 * 1000LL);
	assert_int_equal(jl_series_at(a, 0)->wake, 1000050 * 1000LL);
	assert_int_equal(jl_series_at(a, 0)->end, 1000250 * 1000LL);
	assert_int_equal(jl_series_at(a, 1)->cycle, 1);
	assert_int_equal(jl_series_at(a, 2)->cycle, 3);
	assert_int_equal(jl_series_at(a, 2)->skipped, 1);
	assert_int_equal(jl_series_at(a, 2)->tid, CHILD);
	assert_int_equal(a->first_release, 1000000 * 1000LL);
	assert_int_equal(a->next_release, 1040000 * 1000LL);
	assert_int_equal(a->work_calls, 3);

	/* the worker named no release: ready = wake, so its latency is 0 */
	assert_int_equal(jl_series_count(w), 2);
	assert_int_equal(jl_series_at(w, 1)->release, jl_series_at(w, 1)->wake);
	assert_int_equal(jl_series_count(g), 1);
	assert_false(g->periodic); /* one cycle: no period to tell */
	teardown(&f);
}

/* The scenario's period and deadline win over the records'; two threads of one name stay apart. */
static void test_scenario_period_and_names(void **state)
{
	struct fake f;
	char err[256];

	(void)state;
	setup(&f, 5 * MS);
	f.sc.threads[0].beh.deadline_ns = 2 * MS;
	born(&f, 10, CHILD, WORKER, true);
	probe(&f, 20, CHILD, JL_PROBE_NAME, 0, "loop");
	probe(&f, 30, WORKER, JL_PROBE_NAME, 0, "loop");
	for (int i = 0; i < 4; i++) {
		probe(&f, 1000 + i * 5000, CHILD, JL_PROBE_WAKE, 1000 + i * 5000 - 10, NULL);
		probe(&f, 1100 + i * 5000, CHILD, JL_PROBE_END, 0, NULL);
		probe(&f, 1200 + i * 5000, WORKER, JL_PROBE_WAKE, 0, NULL);
		probe(&f, 1300 + i * 5000, WORKER, JL_PROBE_END, 0, NULL);
	}
	assert_int_equal(jl_trace_probe_series(&f.eng, &f.an, err, sizeof(err)), 0);
	assert_int_equal(f.eng.nseries, 2);
	assert_string_equal(f.eng.series[0].name, "ctl.loop");
	assert_string_equal(f.eng.series[1].name, "ctl.loop.501");
	assert_int_equal(f.eng.series[0].period_ns, 5 * MS);
	assert_int_equal(f.eng.series[0].deadline_ns, 2 * MS);
	assert_int_equal(jl_series_count(&f.eng.series[0]), 4);
	teardown(&f);
}

/* A server's requests: wakes marked with a SERIES name make one series per name of the unit, whichever
 * thread served them; a request's own outgoing call nests inside it (an end closes the thread's latest
 * open wake); a thread's unmarked wakes stay its own series; a SERIES record names one wake only. */
static void test_series_per_wake(void **state)
{
	struct fake f;
	const struct jl_series *ping, *price, *call, *own;
	char err[256];

	(void)state;
	setup(&f, 0);
	born(&f, 10, CHILD, WORKER, true);
	/* the main thread serves a ping (sent at 900 us), then a price whose call to C nests inside it */
	probe(&f, 1000, CHILD, JL_PROBE_SERIES, 0, "ping");
	probe(&f, 1010, CHILD, JL_PROBE_WAKE, 900, NULL);
	probe(&f, 1030, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 2000, CHILD, JL_PROBE_SERIES, 0, "price");
	probe(&f, 2010, CHILD, JL_PROBE_WAKE, 1500, NULL);
	probe(&f, 2020, CHILD, JL_PROBE_SERIES, 0, "call-quote");
	probe(&f, 2030, CHILD, JL_PROBE_WAKE, 2025, NULL);
	probe(&f, 7030, CHILD, JL_PROBE_END, 0, NULL); /* the call's reply: 5 ms */
	probe(&f, 7040, CHILD, JL_PROBE_END, 0, NULL); /* the price's reply */
	/* the worker serves a ping too, and then an unmarked wake: its own series */
	probe(&f, 3000, WORKER, JL_PROBE_SERIES, 0, "ping");
	probe(&f, 3100, WORKER, JL_PROBE_WAKE, 2000, NULL);
	probe(&f, 3150, WORKER, JL_PROBE_END, 0, NULL);
	probe(&f, 4000, WORKER, JL_PROBE_WAKE, 0, NULL);
	probe(&f, 4010, WORKER, JL_PROBE_END, 0, NULL);
	assert_int_equal(jl_trace_probe_series(&f.eng, &f.an, err, sizeof(err)), 0);
	assert_int_equal(f.eng.nseries, 4);
	ping = series(&f, "ctl.ping");
	price = series(&f, "ctl.price");
	call = series(&f, "ctl.call-quote");
	own = series(&f, "ctl.501");
	assert_non_null(ping);
	assert_non_null(price);
	assert_non_null(call);
	assert_non_null(own);
	/* both threads' pings, each from its release (the client's send time) */
	assert_int_equal(jl_series_count(ping), 2);
	assert_int_equal(jl_series_at(ping, 0)->wake - jl_series_at(ping, 0)->release, 110 * 1000);
	assert_int_equal(jl_series_at(ping, 0)->tid, CHILD);
	assert_int_equal(jl_series_at(ping, 1)->wake - jl_series_at(ping, 1)->release, 1100 * 1000);
	assert_int_equal(jl_series_at(ping, 1)->tid, WORKER);
	assert_false(ping->periodic);
	/* the call closed first, inside the price */
	assert_int_equal(jl_series_count(call), 1);
	assert_int_equal(jl_series_at(call, 0)->end - jl_series_at(call, 0)->wake, 5000 * 1000);
	assert_int_equal(jl_series_count(price), 1);
	assert_int_equal(jl_series_at(price, 0)->end - jl_series_at(price, 0)->release, (7040 - 1500) * 1000);
	assert_int_equal(jl_series_count(own), 1);
	/* the named series are a pool's (any worker serves them: the trace explains them so); a thread's own
	 * series is its own */
	assert_true(ping->any_thread && price->any_thread && call->any_thread);
	assert_false(own->any_thread);
	teardown(&f);
}

/* A probe record of a test's program: at US, by PID, its kind, the release it names (us), a name */
struct rec {
	int64_t us;
	int pid, kind;
	int64_t release;
	const char *name;
};

/* A probed server's run, analysed: its records REC become series (CHILD and WORKER its two workers), its
 * sched events E are fed, and the worst cycles go into X->w; the ping's cycle, or NULL. */
struct explained {
	struct fake f;
	struct jl_analysis an;
	struct jl_analysis_thread *th;
	struct jl_analysis_sample *samples;
	struct jl_cycle w[8];
	int n, nw;
};

static const struct jl_cycle *explain_ping(struct explained *x, const struct rec *rec, size_t nrec, struct jl_event *e,
					   size_t ne)
{
	char err[256];

	setup(&x->f, 0);
	born(&x->f, 5, CHILD, WORKER, true);
	for (size_t i = 0; i < nrec; i++)
		probe(&x->f, rec[i].us, rec[i].pid, rec[i].kind, rec[i].release, rec[i].name);
	assert_int_equal(jl_trace_probe_series(&x->f.eng, &x->f.an, err, sizeof(err)), 0);
	x->th = jl_trace_engine_series(&x->f.eng, &x->samples, &x->n, false);
	assert_non_null(x->th);
	assert_int_equal(jl_analysis_init(&x->an, x->th, x->n, 2), 0);
	assert_int_equal(jl_analysis_run(&x->an, e, ne), 0);
	assert_int_equal(jl_analysis_worst(&x->an, 0, x->w, 8, 0, &x->nw, NULL), 0);
	for (int i = 0; i < x->nw; i++)
		if (!strcmp(x->an.threads[x->w[i].thread].name, "ctl.ping"))
			return &x->w[i];
	return NULL;
}

static void explained_free(struct explained *x)
{
	jl_analysis_free(&x->an);
	free(x->th);
	free(x->samples);
	teardown(&x->f);
}

/* The time C's parts of KIND whose name starts with PREFIX (NULL: any) and whose pid is PID (0: any) add up
 * to; KIND -1: every part */
static int64_t parts_ns(const struct jl_cycle *c, int kind, const char *prefix, int pid)
{
	int64_t ns = 0;

	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];

		if ((kind < 0 || (int)p->kind == kind) && (!prefix || !strncmp(p->name, prefix, strlen(prefix))) &&
		    (!pid || p->pid == pid))
			ns += p->duration_ns;
	}
	return ns;
}

/* A server's request waits for its pool, explained from the trace as a pool's callback (rt/trace/analysis/
 * window.c): two workers (CHILD and WORKER) each serve a price whose call to C nests inside it; a ping sent
 * at 2000 us starts on WORKER at 4300 us. Counted here from the records: both workers serve a price through
 * [2000, 4140), inside their calls but for WORKER's last 10 us (its call returned at 4130): one part;
 * WORKER then sleeps until the server's poller (700) wakes it at 4200 (the request on its way since 4140); a CFS hog holds its CPU until 4280; the worker runs 5 us and blocks on a lock (a GIL) that
 * the main thread (CHILD) releases at 4290, waits 5 us more behind the hog and runs 5 us to the probe's wake
 * at 4300. */
static void test_request_waits_for_the_pool(void **state)
{
	enum { POLLER = 700 };
	struct jl_event e[] = {
		tev_switch(4000, 1, 0, 120, 0, WORKER, 120, "worker"),
		tev_switch(4100, 0, 0, 120, 0, POLLER, 120, "poller"),
		tev_switch(4145, 1, WORKER, 120, 1, HOGP, 120, "hog"),
		tev_wake(4200, 0, POLLER, WORKER, 120, JL_EVENT_WAKING),
		tev_switch(4280, 1, HOGP, 120, 0, WORKER, 120, "worker"),
		tev_switch(4285, 1, WORKER, 120, 1, HOGP, 120, "hog"),
		tev_switch(4286, 0, POLLER, 120, 1, CHILD, 120, "python3"),
		tev_wake(4290, 0, CHILD, WORKER, 120, JL_EVENT_WAKING),
		tev_switch(4295, 1, HOGP, 120, 0, WORKER, 120, "worker"),
		tev_switch(4360, 1, WORKER, 120, 1, HOGP, 120, "hog"),
	};
	static const struct rec rec[] = {
		{ 1000, CHILD, JL_PROBE_SERIES, 0, "price" },       { 1010, CHILD, JL_PROBE_WAKE, 900, NULL },
		{ 1020, CHILD, JL_PROBE_SERIES, 0, "call-quote" },  { 1030, CHILD, JL_PROBE_WAKE, 1025, NULL },
		{ 1100, WORKER, JL_PROBE_SERIES, 0, "price" },      { 1110, WORKER, JL_PROBE_WAKE, 1050, NULL },
		{ 1120, WORKER, JL_PROBE_SERIES, 0, "call-quote" }, { 1130, WORKER, JL_PROBE_WAKE, 1125, NULL },
		{ 4130, WORKER, JL_PROBE_END, 0, NULL },            { 4140, WORKER, JL_PROBE_END, 0, NULL },
		{ 4290, WORKER, JL_PROBE_SERIES, 0, "ping" },       { 4300, WORKER, JL_PROBE_WAKE, 2000, NULL },
		{ 4350, WORKER, JL_PROBE_END, 0, NULL },            { 6030, CHILD, JL_PROBE_END, 0, NULL },
		{ 6040, CHILD, JL_PROBE_END, 0, NULL },
	};
	const struct jl_cycle *ping;
	struct jl_trace_advice_in in;
	struct explained x;
	char advice[512];
	int workers = 0;

	(void)state;
	e[3].target_cpu = e[7].target_cpu = 1; /* the poller, then the lock's holder, on CPU 0 wake the worker on CPU 1 */
	ping = explain_ping(&x, rec, sizeof(rec) / sizeof(rec[0]), e, sizeof(e) / sizeof(e[0]));
	/* three request series, then the two workers as the pool's threads */
	assert_int_equal(x.n, 5);
	for (int i = 0; i < x.n; i++) {
		assert_true(x.th[i].requests);
		assert_int_equal(x.th[i].executor, 1);
		assert_int_equal(x.th[i].pool_size, 2);
		workers += x.th[i].pool;
	}
	assert_int_equal(workers, 2);
	assert_non_null(ping);
	assert_int_equal(ping->latency_ns, 2300 * 1000);
	assert_int_equal(ping->tid, WORKER); /* the worker that served it, not the series' first writer */
	assert_int_equal(parts_ns(ping, JL_PART_EXECUTOR, NULL, 0), 0);
	assert_int_equal(parts_ns(ping, JL_PART_TIMER, NULL, 0), 0); /* a worker's wakeup by the poller is no timer's */
	/* one pool part: 2 workers x 2130 us in calls and 1 x 10 us, of 2 x 2140 us: 99.8% */
	assert_int_equal(parts_ns(ping, JL_PART_POOL, NULL, 0), 2140 * 1000);
	assert_int_equal(parts_ns(ping, JL_PART_POOL, "pool: all 2 workers busy serving ctl.price", 0), 2140 * 1000);
	for (int i = 0; i < ping->nparts; i++)
		if (ping->parts[i].kind == JL_PART_POOL)
			assert_string_equal(ping->parts[i].detail, "every worker of its program served another request, "
								   "inside calls they made (ctl.call-quote) 100% of the time");
	assert_int_equal(parts_ns(ping, JL_PART_OTHER, "on its way to a free worker", 0), 60 * 1000);
	assert_int_equal(parts_ns(ping, JL_PART_TASK, NULL, HOGP), (80 + 5) * 1000);
	/* the lock's holder named: it woke the worker */
	assert_int_equal(parts_ns(ping, JL_PART_BLOCKED, NULL, CHILD), 5 * 1000);
	assert_int_equal(parts_ns(ping, -1, NULL, 0), 2300 * 1000);
	jl_trace_advice_from_host(NULL, &in);
	assert_string_equal(jl_trace_advice(&x.an, ping, &in, advice, sizeof(advice)), "pool");
	assert_non_null(strstr(advice, "more workers"));
	explained_free(&x);
}

/* The worker that takes a request is woken inside its previous request too (C's reply to its call, at 4120
 * us): that wakeup is the previous request's. CHILD frees at 3000 us, WORKER at 4140 us; the ping (sent at
 * 2000 us) reaches WORKER with the poller's waking at 4200 us, a CFS hog holds the CPU until 4280 us, and its
 * wake record is at 4300 us. Counted by hand: both busy 1000 us, on its way 1200 us (3000 -> 4200), 80 us
 * behind the hog, 20 us to the wake. */
static void test_request_waits_past_the_workers_last_wakeup(void **state)
{
	enum { POLLER = 700 };
	struct jl_event e[] = {
		tev_switch(1000, 1, 0, 120, 0, WORKER, 120, "worker"),
		tev_switch(1100, 0, 0, 120, 0, POLLER, 120, "poller"),
		tev_switch(1140, 1, WORKER, 120, 1, HOGP, 120, "hog"),     /* blocked in its call to C */
		tev_wake(4120, 0, POLLER, WORKER, 120, JL_EVENT_WAKING),     /* C's reply */
		tev_switch(4125, 1, HOGP, 120, 0, WORKER, 120, "worker"),
		tev_switch(4145, 1, WORKER, 120, 1, HOGP, 120, "hog"),     /* its price answered: back to the queue */
		tev_wake(4200, 0, POLLER, WORKER, 120, JL_EVENT_WAKING),     /* the ping */
		tev_switch(4280, 1, HOGP, 120, 0, WORKER, 120, "worker"),
		tev_switch(4360, 1, WORKER, 120, 1, HOGP, 120, "hog"),
	};
	static const struct rec rec[] = {
		{ 1000, CHILD, JL_PROBE_SERIES, 0, "price" },       { 1010, CHILD, JL_PROBE_WAKE, 900, NULL },
		{ 1020, CHILD, JL_PROBE_SERIES, 0, "call-quote" },  { 1030, CHILD, JL_PROBE_WAKE, 1025, NULL },
		{ 1100, WORKER, JL_PROBE_SERIES, 0, "price" },      { 1110, WORKER, JL_PROBE_WAKE, 1050, NULL },
		{ 1120, WORKER, JL_PROBE_SERIES, 0, "call-quote" }, { 1130, WORKER, JL_PROBE_WAKE, 1125, NULL },
		{ 2990, CHILD, JL_PROBE_END, 0, NULL },             { 3000, CHILD, JL_PROBE_END, 0, NULL },
		{ 4130, WORKER, JL_PROBE_END, 0, NULL },            { 4140, WORKER, JL_PROBE_END, 0, NULL },
		{ 4290, WORKER, JL_PROBE_SERIES, 0, "ping" },       { 4300, WORKER, JL_PROBE_WAKE, 2000, NULL },
		{ 4350, WORKER, JL_PROBE_END, 0, NULL },
	};
	const struct jl_cycle *ping;
	struct explained x;

	(void)state;
	e[3].target_cpu = e[6].target_cpu = 1;
	ping = explain_ping(&x, rec, sizeof(rec) / sizeof(rec[0]), e, sizeof(e) / sizeof(e[0]));
	assert_non_null(ping);
	assert_int_equal(ping->latency_ns, 2300 * 1000);
	assert_int_equal(parts_ns(ping, JL_PART_POOL, "pool: all 2 workers busy", 0), 1000 * 1000);
	assert_int_equal(parts_ns(ping, JL_PART_OTHER, "on its way to a free worker", 0), 1200 * 1000);
	assert_int_equal(parts_ns(ping, JL_PART_TASK, NULL, HOGP), 80 * 1000);
	assert_int_equal(parts_ns(ping, -1, NULL, 0), 2300 * 1000);
	assert_int_equal(ping->waking, 4200 * 1000); /* the ping's wakeup, not the call's reply */
	explained_free(&x);
}

/* The work done after a client gave up: the unit's `deadline` (1 ms) makes its series a client's. Order 1
 * (sent at 5 us, answered at 5000 us) was given up at 1005 us; its call to price (started at 100 us) became
 * WORKER's price request (the same release), which ran from 150 to 4900 us: 3895 us of it after the give-up;
 * the order itself held CHILD 3995 us after it; the call is the order's own time, not counted again. Order 2
 * was answered in 500 us: nothing given up, nothing wasted. Order 3, released after the measured window
 * (20 ms), is not counted. */
static void test_wasted_after_the_client_gave_up(void **state)
{
	static const struct rec rec[] = {
		{ 10, CHILD, JL_PROBE_SERIES, 0, "order" },        { 10, CHILD, JL_PROBE_WAKE, 5, NULL },
		{ 100, CHILD, JL_PROBE_SERIES, 0, "call-price" },  { 100, CHILD, JL_PROBE_WAKE, 100, NULL },
		{ 150, WORKER, JL_PROBE_SERIES, 0, "price" },      { 150, WORKER, JL_PROBE_WAKE, 100, NULL },
		{ 4900, WORKER, JL_PROBE_END, 0, NULL },           { 4990, CHILD, JL_PROBE_END, 0, NULL },
		{ 5000, CHILD, JL_PROBE_END, 0, NULL },
		{ 10010, CHILD, JL_PROBE_SERIES, 0, "order" },     { 10010, CHILD, JL_PROBE_WAKE, 10000, NULL },
		{ 10020, CHILD, JL_PROBE_SERIES, 0, "call-price" }, { 10020, CHILD, JL_PROBE_WAKE, 10020, NULL },
		{ 10030, WORKER, JL_PROBE_SERIES, 0, "price" },    { 10030, WORKER, JL_PROBE_WAKE, 10020, NULL },
		{ 10400, WORKER, JL_PROBE_END, 0, NULL },          { 10480, CHILD, JL_PROBE_END, 0, NULL },
		{ 10500, CHILD, JL_PROBE_END, 0, NULL },
		/* after the measured window (it ends at 20 ms): given up, and not counted */
		{ 30010, CHILD, JL_PROBE_SERIES, 0, "order" },     { 30010, CHILD, JL_PROBE_WAKE, 30000, NULL },
		{ 32000, CHILD, JL_PROBE_END, 0, NULL },
	};
	const struct jl_series *order, *call, *price;
	struct fake f;
	char err[256];

	(void)state;
	setup(&f, 0);
	f.sc.threads[0].beh.deadline_ns = 1 * MS;
	f.eng.t_end = 20 * MS;
	born(&f, 5, CHILD, WORKER, true);
	for (size_t i = 0; i < sizeof(rec) / sizeof(rec[0]); i++)
		probe(&f, rec[i].us, rec[i].pid, rec[i].kind, rec[i].release, rec[i].name);
	assert_int_equal(jl_trace_probe_series(&f.eng, &f.an, err, sizeof(err)), 0);
	order = series(&f, "ctl.order");
	call = series(&f, "ctl.call-price");
	price = series(&f, "ctl.price");
	assert_non_null(order);
	assert_non_null(call);
	assert_non_null(price);
	assert_int_equal(jl_series_count(order), 3);
	assert_int_equal(jl_series_count(price), 2);
	assert_int_equal(order->wasted_ns, (5000 - 1005) * 1000);
	assert_int_equal(order->given_up, 1);
	assert_int_equal(price->wasted_ns, (4900 - 1005) * 1000);
	assert_int_equal(price->given_up, 0); /* its client was the order, not it */
	assert_int_equal(call->wasted_ns, 0);
	assert_int_equal(call->given_up, 0);
	teardown(&f);
}

/* A loop's wake whose end was lost is not closed by a later stray end: the next wake replaces it (as before
 * named wakes could nest), so a lost end never makes one long invented cycle. */
static void test_lost_end_is_no_cycle(void **state)
{
	struct fake f;
	const struct jl_series *c;
	char err[256];

	(void)state;
	setup(&f, 0);
	probe(&f, 1000, CHILD, JL_PROBE_WAKE, 1000, NULL); /* its end is lost */
	probe(&f, 2000, CHILD, JL_PROBE_WAKE, 2000, NULL);
	probe(&f, 2100, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 3000, CHILD, JL_PROBE_WAKE, 3000, NULL);
	probe(&f, 3100, CHILD, JL_PROBE_END, 0, NULL);
	probe(&f, 900000, CHILD, JL_PROBE_END, 0, NULL); /* a stray end: closes nothing */
	assert_int_equal(jl_trace_probe_series(&f.eng, &f.an, err, sizeof(err)), 0);
	assert_int_equal(f.eng.nseries, 1);
	c = &f.eng.series[0];
	assert_int_equal(jl_series_count(c), 2);
	assert_int_equal(jl_series_at(c, 0)->wake, 2000 * 1000);
	assert_int_equal(jl_series_at(c, 1)->end, 3100 * 1000);
	teardown(&f);
}

/* Outside a run the probe does nothing; JITTERLAB_PROBE naming no run: it gives up once (no second
 * connect: the descriptor stays -1). */
static void test_probe_outside_a_run(void **state)
{
	(void)state;
	unsetenv("JITTERLAB_PROBE");
	jl_probe__fd = -2;
	assert_int_equal(jl_probe_init(), -1);
	assert_int_equal(jl_probe__fd, -1);
	jl_probe_wake(1);
	jl_probe_end();
	jl_probe_name("x");
	setenv("JITTERLAB_PROBE", "/nonexistent/probe.sock", 1);
	jl_probe__fd = -2;
	assert_int_equal(jl_probe_init(), -1);
	jl_probe_wake(1); /* no second attempt, no second message */
	assert_int_equal(jl_probe__fd, -1);
	unsetenv("JITTERLAB_PROBE");
}

/* measure = wakeups: a thread's wakeups become its samples (ready = waking, start = switch-in, end = its
 * next switch-out), and off_cpu says where its time went. A worker on CPU 1: blocked from 0, woken by the
 * loop (CHILD) at 1000 us, runs 1010-1100, blocks; woken at 2000, runs 2030-2050, preempted by HOG until
 * 2250, runs to 2300, blocks to the end (3000). */
static void test_wakeups_become_samples(void **state)
{
	struct jl_event e[] = {
		tev_switch(0, 0, 0, 120, 0, CHILD, 120, "python3"),
		tev_switch(0, 1, WORKER, 120, 1, 0, 120, "swapper/1"),
		tev_wake(1000, 0, CHILD, WORKER, 120, JL_EVENT_WAKING),
		tev_switch(1010, 1, 0, 120, 0, WORKER, 120, "worker"),
		tev_switch(1100, 1, WORKER, 120, 1, 0, 120, "swapper/1"),
		tev_wake(2000, 0, CHILD, WORKER, 120, JL_EVENT_WAKING),
		tev_switch(2030, 1, 0, 120, 0, WORKER, 120, "worker"),
		tev_switch(2050, 1, WORKER, 120, 0, HOGP, 120, "hog"),
		tev_switch(2250, 1, HOGP, 120, 0, WORKER, 120, "worker"),
		tev_switch(2300, 1, WORKER, 120, 1, 0, 120, "swapper/1"),
		tev_switch(3000, 0, CHILD, 120, 1, 0, 120, "swapper/0"),
	};
	struct jl_analysis_thread th[1] = { 0 };
	struct fake f;
	struct jl_series *s;
	json_object *off, *w;
	char err[256];

	(void)state;
	setup(&f, 0);
	jl_analysis_free(&f.an);
	snprintf(th[0].name, sizeof(th[0].name), "ctl.worker");
	th[0].pid = WORKER;
	th[0].measured = true;
	assert_int_equal(jl_analysis_init(&f.an, th, 1, 2), 0);
	assert_int_equal(jl_analysis_run(&f.an, e, sizeof(e) / sizeof(e[0])), 0);
	s = jl_engine_add_found_series(&f.eng, 0, "ctl.worker", 0, err, sizeof(err));
	assert_non_null(s);
	s->trace_only = s->measured = true;
	s->tid = WORKER;
	assert_int_equal(jl_trace_wakeup_fill(&f.eng, &f.an, err, sizeof(err)), 0);
	s = &f.eng.series[0];
	assert_int_equal(jl_series_count(s), 2);
	assert_int_equal(jl_series_at(s, 0)->release, 1000000);
	assert_int_equal(jl_series_at(s, 0)->wake, 1010000);
	assert_int_equal(jl_series_at(s, 0)->end, 1100000);
	assert_int_equal(jl_series_at(s, 1)->wake, 2030000);
	assert_int_equal(jl_series_at(s, 1)->end, 2050000); /* its run ends where it is preempted */
	assert_int_equal(s->period_ns, 0);                  /* two wakeups: no steady period to tell */

	off = jl_analysis_offcpu(&f.an, 0, 0, 3000000);
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "running_ns")), (90 + 20 + 50) * 1000);
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "preempted_ns")), 200 * 1000);
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "blocked_ns")), (1000 + 900 + 700) * 1000);
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "wakeup_wait_ns")), (10 + 30) * 1000);
	w = json_object_array_get_idx(json_object_object_get(off, "preempted_behind"), 0);
	assert_string_equal(json_object_get_string(json_object_object_get(w, "name")), "hog");
	assert_int_equal(json_object_get_int64(json_object_object_get(w, "ns")), 200 * 1000);
	w = json_object_array_get_idx(json_object_object_get(off, "woken_by"), 0);
	assert_non_null(strstr(json_object_get_string(json_object_object_get(w, "name")), "python3"));
	assert_int_equal(json_object_get_int64(json_object_object_get(w, "times")), 2);
	assert_int_equal(json_object_get_int64(json_object_object_get(w, "blocked_ns")), (1000 + 900) * 1000);
	json_object_put(off);
	teardown(&f);
}

/* off_cpu across a migration (the time before it counted once, the rest on the new CPU), and new:N
 * counting each task once although task_newtask and sched_process_fork both record a clone. */
static void test_offcpu_migration_and_new_n(void **state)
{
	struct jl_event mig = ev(1010, 0, 0, JL_EVENT_MIGRATE, WORKER, "worker");
	struct jl_event e[] = {
		tev_switch(0, 0, 0, 120, 0, CHILD, 120, "python3"),
		tev_switch(0, 1, WORKER, 120, 1, 0, 120, "swapper/1"),
		tev_wake(1000, 0, CHILD, WORKER, 120, JL_EVENT_WAKING),
		mig,
		tev_switch(1100, 0, CHILD, 120, 0, WORKER, 120, "worker"),
		tev_switch(1200, 0, WORKER, 120, 1, CHILD, 120, "python3"),
	};
	struct jl_analysis_thread th[1] = { 0 };
	struct fake f;
	json_object *off;
	char err[256];
	long sum;

	(void)state;
	setup(&f, 0);
	jl_analysis_free(&f.an);
	snprintf(th[0].name, sizeof(th[0].name), "ctl.worker");
	th[0].pid = WORKER;
	th[0].measured = true;
	e[3].target_cpu = 0;
	e[3].prev_pid = 1; /* orig_cpu */
	assert_int_equal(jl_analysis_init(&f.an, th, 1, 2), 0);
	assert_int_equal(jl_analysis_run(&f.an, e, sizeof(e) / sizeof(e[0])), 0);
	off = jl_analysis_offcpu(&f.an, 0, 0, 2000000);
	sum = (long)(json_object_get_int64(json_object_object_get(off, "running_ns")) +
		     json_object_get_int64(json_object_object_get(off, "preempted_ns")) +
		     json_object_get_int64(json_object_object_get(off, "blocked_ns")) +
		     json_object_get_int64(json_object_object_get(off, "wakeup_wait_ns")));
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "wakeup_wait_ns")), 100 * 1000);
	assert_int_equal(json_object_get_int64(json_object_object_get(off, "running_ns")), 100 * 1000);
	assert_int_equal(sum, 2000 * 1000); /* the parts cover the window once */
	json_object_put(off);
	teardown(&f);

	/* new:2 is the second task the program created, each clone recorded twice */
	setup(&f, 0);
	f.sc.threads[0].beh.measure = JL_MEASURE_WAKEUPS;
	born(&f, 10, CHILD, WORKER, true);
	born(&f, 10, CHILD, WORKER, false);
	born(&f, 20, CHILD, GRAND, true);
	born(&f, 20, CHILD, GRAND, false);
	snprintf(f.sc.threads[0].beh.threads, sizeof(f.sc.threads[0].beh.threads), "new:2");
	assert_int_equal(jl_trace_wakeup_series(&f.eng, &f.an, err, sizeof(err)), 0);
	assert_int_equal(f.eng.nseries, 1);
	assert_int_equal(f.eng.series[0].tid, GRAND);
	teardown(&f);
}

/* kthread:GLOB: the kernel threads born during the run (kthreadd's children) whose names match, and not
 * the program's own tasks of the same name: rtla timerlat's timerlat/1 is kthreadd's child, renamed after
 * its birth. */
static void test_kthread_pattern(void **state)
{
	struct fake f;
	char err[256];

	(void)state;
	for (int glob = 0; glob < 2; glob++) {
		setup(&f, 0);
		f.sc.threads[0].beh.measure = JL_MEASURE_WAKEUPS;
		born(&f, 10, CHILD, WORKER, true); /* the program's own thread, named timerlat/9: not a kthread */
		born(&f, 20, 2, 700, false);       /* kthreadd starts the tracer's thread */
		born(&f, 30, 2, 701, false);       /* and a worker that does not match */
		/* their names as the switches give them (a kthread is named after its birth) */
		feed(&f, tev_switch(40, 1, 0, 120, 0, 700, 120, "timerlat/1"));
		feed(&f, tev_switch(41, 1, 700, 120, 1, WORKER, 120, "timerlat/9"));
		feed(&f, tev_switch(42, 1, WORKER, 120, 1, 701, 120, "kworker/1:2"));
		snprintf(f.sc.threads[0].beh.threads, sizeof(f.sc.threads[0].beh.threads), "%s",
			 glob ? "timerlat/*" : "kthread:timerlat/*");
		assert_int_equal(jl_trace_wakeup_series(&f.eng, &f.an, err, sizeof(err)), 0);
		assert_int_equal(f.eng.nseries, 1);
		/* kthread: the kernel's thread; a plain glob: the program's tree only */
		assert_int_equal(f.eng.series[0].tid, glob ? WORKER : 700);
		assert_string_equal(f.eng.series[0].name, glob ? "ctl.timerlat_9" : "ctl.timerlat_1");
		teardown(&f);
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_records_become_series),
		cmocka_unit_test(test_scenario_period_and_names),
		cmocka_unit_test(test_series_per_wake),
		cmocka_unit_test(test_request_waits_for_the_pool),
		cmocka_unit_test(test_request_waits_past_the_workers_last_wakeup),
		cmocka_unit_test(test_wasted_after_the_client_gave_up),
		cmocka_unit_test(test_lost_end_is_no_cycle),
		cmocka_unit_test(test_probe_outside_a_run),
		cmocka_unit_test(test_wakeups_become_samples),
		cmocka_unit_test(test_offcpu_migration_and_new_n),
		cmocka_unit_test(test_kthread_pattern),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
