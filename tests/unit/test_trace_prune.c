/* Unit test of the pruned analysis (rt/trace/analysis/prune.c) against the whole one (analysis/feed.c): the
 * same ten seconds of events (four 1 kHz FIFO loops beside a CFS hog on CPU 1, IRQs, a FIFO 90 intruder
 * now and then (before the loops, or preempting one), stalls where the hog is not preempted for 2 ms, a housekeeping task on CPU 0 that
 * forks 500 short-lived children a second) and the same
 * kept cycles (the worst, the misses, the last ones, every 50th: what a ring keeps) go to an analysis that
 * keeps everything and to one that prunes. They must explain the same worst cycles part by part, match
 * the same samples, give the same off-CPU totals, while the pruned one keeps a small part of the states
 * and segments. Its wakeup figures count every wakeup the generator made (counted here as it makes them).
 * The live one (jl_analysis_prune_live) must too when it gets each window only just before the first event in
 * it, the last cycles' windows never (their pairs wait in its tail ring), and the samples at the end. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/stats.h"
#include "rt/base/stream.h"
#include "rt/trace/analysis/analysis.h"
#include "rt/trace/analysis/event.h"
#include "rt/trace/analysis/offcpu.h"
#include "rt/trace/analysis/parts.h"
#include "rt/trace/analysis/prune.h"
#include "rt/trace/analysis/tail.h"
#include "rt/trace/analysis/worst.h"

#define NLOOPS 4
#define SLOTS 10000
#define HOG 500
#define INTRUDER 200
#define HK 300
#define KEEPER 600    /* HK's child that lives on */
#define KID0 1000     /* HK's children that exit at once: KIDS every 10 ms */
#define KIDS 5
#define US 1000LL
#define MS 1000000LL
#define MISS_NS (1500 * US)

struct gen {
	struct jl_event *ev;
	size_t n, cap;
	struct jl_analysis_sample *s[NLOOPS];
	size_t ns[NLOOPS];
	size_t wakeups[NLOOPS];   /* wakings in [from, to) */
	int64_t max_wakeup[NLOOPS];
	int64_t preempted;        /* the first loop, behind the intruder, in [from, to) */
	int64_t from, to;
	uint64_t rng;
};

static uint32_t rnd(struct gen *g, uint32_t n)
{
	g->rng = g->rng * 6364136223846793005ull + 1442695040888963407ull;
	return (uint32_t)(g->rng >> 33) % n;
}

static struct jl_event *push(struct gen *g, int64_t ts, int cpu, int cur, int kind)
{
	struct jl_event *e;

	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4096;
		g->ev = realloc(g->ev, g->cap * sizeof(*g->ev));
		assert_non_null(g->ev);
	}
	e = &g->ev[g->n++];
	memset(e, 0, sizeof(*e));
	e->ts = ts;
	e->cpu = cpu;
	e->kind = kind;
	e->has_cur = true;
	e->cur = cur;
	return e;
}

static void sw(struct gen *g, int64_t ts, int cpu, int prev, int pprio, int pstate, int next, int nprio)
{
	struct jl_event *e = push(g, ts, cpu, prev, JL_EVENT_SWITCH);

	e->prev_pid = prev;
	e->prev_prio = pprio;
	e->prev_state = pstate;
	e->pid = next;
	e->prio = nprio;
	snprintf(e->comm, sizeof(e->comm), "%s", next == HOG ? "hog" : next == INTRUDER ? "intruder" : next == HK ? "hk"
		 : next == KEEPER ? "keeper" : next == 0 ? "swapper/1" : "loop");
	snprintf(e->prev_comm, sizeof(e->prev_comm), "%s", prev == HOG ? "hog" : prev == INTRUDER ? "intruder"
		 : prev == HK ? "hk" : prev == KEEPER ? "keeper" : prev == 0 ? "swapper/1" : "loop");
}

static void waking(struct gen *g, int64_t ts, int cpu, int cur, int pid, int prio)
{
	struct jl_event *e = push(g, ts, cpu, cur, JL_EVENT_WAKING);

	e->pid = pid;
	e->prio = prio;
	e->target_cpu = cpu;
	snprintf(e->comm, sizeof(e->comm), "t%d", pid);
}

/* A task born (FORK: PARENT forks PID) or gone (EXIT) */
static void birth(struct gen *g, int64_t ts, int cpu, int parent, int pid, int kind)
{
	struct jl_event *e = push(g, ts, cpu, parent, kind);

	e->pid = pid;
	e->prev_pid = parent;
	e->prio = 120;
	snprintf(e->comm, sizeof(e->comm), "%s", pid == KEEPER ? "keeper" : "kid");
	snprintf(e->prev_comm, sizeof(e->prev_comm), "hk");
}

static void sample(struct gen *g, int i, int64_t release, int64_t in, int64_t out, uint64_t cycle)
{
	struct jl_analysis_sample *s = &g->s[i][g->ns[i]++];

	s->release = release;
	s->wake = in + 1 * US;
	s->end = out - 1 * US;
	s->miss = s->end - s->release > MISS_NS;
	s->cycle = cycle;
	s->tid = 101 + i;
}

/* Ten seconds of CPU 1 (and CPU 0's housekeeping), slot by slot. */
static void generate(struct gen *g, bool stalls)
{
	int skip = 0;

	memset(g, 0, sizeof(*g));
	g->rng = 42;
	for (int i = 0; i < NLOOPS; i++) {
		g->s[i] = calloc(SLOTS, sizeof(*g->s[i]));
		g->max_wakeup[i] = -1;
	}
	g->from = 10 * MS + 100 * MS;
	g->to = 10 * MS + (SLOTS - 100) * MS;
	sw(g, 1 * US, 1, 0, 120, 0, HOG, 120);
	sw(g, 2 * US, 0, 0, 120, 0, HK, 120);
	/* a child born after 250 others, that lives on, runs once (CPU 0 is idle then) and exits at the end */
	birth(g, 508 * MS, 0, HK, KEEPER, JL_EVENT_FORK);
	sw(g, 508 * MS + 100 * US, 0, 0, 120, 0, KEEPER, 120);
	sw(g, 508 * MS + 200 * US, 0, KEEPER, 120, 1, 0, 120);
	birth(g, 10 * MS + SLOTS * MS + 5 * MS, 0, HK, KEEPER, JL_EVENT_EXIT);
	for (int k = 0; k < SLOTS / 10; k++) { /* CPU 0: the housekeeping task runs 2 ms of every 10 */
		int64_t t = 5 * MS + k * 10 * MS;

		waking(g, t - 1 * US, 0, 0, HK, 120);
		sw(g, t, 0, 0, 120, 0, HK, 120);
		for (int j = 0; j < KIDS; j++) { /* and forks children that exit at once: churn */
			birth(g, t + (j + 1) * 100 * US, 0, HK, KID0 + k * KIDS + j, JL_EVENT_FORK);
			birth(g, t + (j + 1) * 100 * US + 50 * US, 0, HK, KID0 + k * KIDS + j, JL_EVENT_EXIT);
		}
		sw(g, t + 2 * MS, 0, HK, 120, 1, 0, 120);
	}
	for (int k = 0; k < SLOTS; k++) {
		int64_t T = 10 * MS + k * MS, t, wk[NLOOPS];
		bool intruder = k % 997 == 500, stall = stalls && k % 613 == 300;
		int prev = HOG, pprio = 120;

		if (skip) { /* after a stall: the loops' next releases were overrun */
			skip--;
			continue;
		}
		if (rnd(g, 7) == 0) { /* an IRQ just before the release */
			struct jl_event *e = push(g, T - 30 * US - rnd(g, 200) * US, 1, HOG, JL_EVENT_IRQ_ENTRY);

			e->pid = 24;
			snprintf(e->comm, sizeof(e->comm), "eth0");
			e = push(g, e->ts + 5 * US + rnd(g, 10) * US, 1, HOG, JL_EVENT_IRQ_EXIT);
			e->pid = 24;
		}
		if (k % 401 == 7) { /* a migration record while it sleeps (to the CPU it is on) */
			struct jl_event *e = push(g, T - 300 * US, 1, HOG, JL_EVENT_MIGRATE);

			e->pid = 104;
			e->target_cpu = 1;
		}
		{
			struct jl_event *e = push(g, T + 3 * US, 1, HOG, JL_EVENT_TIMER_ENTRY);

			snprintf(e->comm, sizeof(e->comm), "hrtimer_wakeup");
			e->arg = 0x1000;
			e->expires = T;
		}
		for (int i = 0; i < NLOOPS; i++) {
			wk[i] = T + (4 + i) * US;
			waking(g, wk[i], 1, HOG, 101 + i, 19);
		}
		push(g, T + 8 * US, 1, HOG, JL_EVENT_TIMER_EXIT);
		t = T + 12 * US + rnd(g, 30) * US;
		if (intruder) { /* FIFO 90 first, 300 us */
			waking(g, T + 9 * US, 1, HOG, INTRUDER, 9);
			sw(g, T + 10 * US, 1, HOG, 120, 0, INTRUDER, 9);
			prev = INTRUDER;
			pprio = 9;
			t = T + 310 * US;
		} else if (stall) { /* the hog is not preempted for 2 ms */
			t = T + 2 * MS;
			skip = 2;
		}
		for (int i = 0; i < NLOOPS; i++) {
			int64_t run = (10 + rnd(g, 30)) * US, out = t + run;

			sw(g, t, 1, prev, pprio, prev == HOG ? 0 : 1, 101 + i, 19);
			if (i == 0 && k % 997 == 800) { /* the intruder preempts the first loop for 200 us */
				waking(g, t + 5 * US, 1, 101, INTRUDER, 9);
				sw(g, t + 6 * US, 1, 101, 19, 0, INTRUDER, 9);
				sw(g, t + 206 * US, 1, INTRUDER, 9, 1, 101, 19);
				out += 200 * US;
				if (t >= g->from && t < g->to)
					g->preempted += 200 * US;
			}
			if (rnd(g, 11) == 0) { /* a softirq at the end of its run */
				struct jl_event *e = push(g, out - 5 * US, 1, 101 + i, JL_EVENT_SOFTIRQ_ENTRY);

				e->pid = 7;
				e = push(g, out - 2 * US, 1, 101 + i, JL_EVENT_SOFTIRQ_EXIT);
				e->pid = 7;
			}
			sample(g, i, T, t, out, (uint64_t)k);
			if (wk[i] >= g->from && wk[i] < g->to) {
				g->wakeups[i]++;
				if (t - wk[i] > g->max_wakeup[i])
					g->max_wakeup[i] = t - wk[i];
			}
			prev = 101 + i;
			pprio = 19;
			t = out;
		}
		sw(g, t, 1, prev, pprio, 1, HOG, 120);
	}
}

static int cmp_lat(const void *a, const void *b)
{
	const struct jl_analysis_sample *x = *(const struct jl_analysis_sample *const *)a, *y = *(const struct jl_analysis_sample *const *)b;
	int64_t lx = x->wake - x->release, ly = y->wake - y->release;

	return (ly > lx) - (ly < lx);
}

/* What a ring keeps: the 10 worst by latency, every miss, the last 256 (a ring keeps 1024 of many more),
 * and every 50th (for matching). */
static size_t keep(const struct jl_analysis_sample *all, size_t n, struct jl_analysis_sample *out)
{
	const struct jl_analysis_sample **by = malloc(n * sizeof(*by));
	bool *kept = calloc(n, 1);
	size_t m = 0;

	for (size_t i = 0; i < n; i++)
		by[i] = &all[i];
	qsort(by, n, sizeof(*by), cmp_lat);
	for (size_t i = 0; i < 10 && i < n; i++)
		kept[by[i] - all] = true;
	for (size_t i = 0; i < n; i++)
		if (all[i].miss || i + 256 >= n || i % 50 == 0)
			kept[i] = true;
	for (size_t i = 0; i < n; i++)
		if (kept[i])
			out[m++] = all[i];
	free(by);
	free(kept);
	return m;
}

enum mode { WHOLE, PRUNED, LIVE };

/* LIVE, as io/live.c drives it: each cycle (of all the generator made) comes before the analysis is
 * fed the first event of its whole window; while it is among its loop's 16 worst by latency or 16
 * longest misses so far it is a candidate (jl_analysis_prune_candidates: the set as it is now), each kept
 * cycle but the 10 worst (a ring keeps those as candidates) gives its wakeup window (jl_analysis_prune_add:
 * the rings' first misses), except the last ones: their windows never come (their pairs wait in the
 * tail). The samples and the window's end come at the end
 * (jl_analysis_prune_settle), when the last 100 ms are left to feed. */
struct arrival {
	int64_t at;
	int loop;
	const struct jl_analysis_sample *x;
	bool kept;                       /* a wakeup window (a kept miss, or every 50th kept) */
};

static int cmp_arrival(const void *a, const void *b)
{
	const struct arrival *x = a, *y = b;

	return (x->at > y->at) - (x->at < y->at);
}

static void analyse_live(struct jl_analysis *an, const struct gen *g, struct jl_analysis_sample **kept, const size_t *nkept)
{
	int64_t back = jl_analysis_prune_lookback_ns(&an->budget), cw[NLOOPS][32][2];
	struct jl_topk lat[NLOOPS], miss[NLOOPS];
	size_t na = 0, k = 0, e = 0, total = 0;
	struct arrival *arr;

	assert_int_equal(jl_analysis_prune_live(an, g->from), 1);
	assert_int_equal(jl_analysis_prune_match(an, true, 0), 1); /* every cycle matched as it comes */
	for (int i = 0; i < NLOOPS; i++) {
		total += g->ns[i];
		jl_topk_init(&lat[i], 16);
		jl_topk_init(&miss[i], 16);
	}
	arr = calloc(total, sizeof(*arr));
	for (int i = 0; i < NLOOPS; i++) {
		const struct jl_analysis_sample **by = malloc(g->ns[i] * sizeof(*by));
		bool *worst = calloc(g->ns[i], 1);
		size_t kk = 0;

		for (size_t j = 0; j < g->ns[i]; j++)
			by[j] = &g->s[i][j];
		qsort(by, g->ns[i], sizeof(*by), cmp_lat); /* the 10 worst: kept as candidates only */
		for (size_t j = 0; j < 10 && j < g->ns[i]; j++)
			worst[by[j] - g->s[i]] = true;
		for (size_t j = 0; j < g->ns[i]; j++) {
			const struct jl_analysis_sample *x = &g->s[i][j];
			bool is_kept = false;

			while (kk < nkept[i] && kept[i][kk].release < x->release)
				kk++;
			if (kk < nkept[i] && kept[i][kk].release == x->release) /* the last 256: the tail's */
				is_kept = j + 256 < g->ns[i] && (x->miss || !worst[j]);
			if (x->release < g->from)
				continue;
			arr[na++] = (struct arrival){ .at = x->release - back - MS, .loop = i, .x = x, .kept = is_kept };
		}
		free(by);
		free(worst);
	}
	qsort(arr, na, sizeof(*arr), cmp_arrival);
	/* the pairs before each loop's last 300 cycles can be nobody's (the collector says, as the cycles come):
	 * the tail keeps only the rest */
	for (int t = 0; t < NLOOPS; t++)
		jl_analysis_prune_tail_from(an, t, g->s[t][g->ns[t] - 300].release - JL_ANALYSIS_CLOCK_SLACK_NS);
	for (; e < g->n && g->ev[e].ts < g->to - 100 * MS; e++) {
		bool changed = false;

		for (; k < na && arr[k].at <= g->ev[e].ts; k++) { /* just in time */
			const struct jl_analysis_sample *x = arr[k].x;
			int i = arr[k].loop, slot;
			assert_int_equal(jl_analysis_prune_cycles(an, i, x, 1), 0);

			if ((slot = jl_topk_add(&lat[i], x->wake - x->release, x->cycle)) >= 0) {
				jl_analysis_prune_window(x, true, back, cw[i][slot]);
				changed = true;
			}
			if (x->miss && (slot = jl_topk_add(&miss[i], x->end - x->release, x->cycle)) >= 0) {
				jl_analysis_prune_window(x, true, back, cw[i][16 + slot]);
				changed = true;
			}
			if (arr[k].kept) {
				int64_t w[1][2];

				jl_analysis_prune_window(x, false, back, w[0]);
				assert_int_equal(jl_analysis_prune_add(an, (const int64_t (*)[2])w, 1), 0);
			}
		}
		if (changed) {
			int64_t w[NLOOPS * 32][2];
			size_t n = 0;

			for (int i = 0; i < NLOOPS; i++) {
				for (int j = 0; j < lat[i].n; j++, n++)
					memcpy(w[n], cw[i][lat[i].e[j].slot], sizeof(w[n]));
				for (int j = 0; j < miss[i].n; j++, n++)
					memcpy(w[n], cw[i][16 + miss[i].e[j].slot], sizeof(w[n]));
			}
			assert_int_equal(jl_analysis_prune_candidates(an, (const int64_t (*)[2])w, n), 0);
		}
		assert_int_equal(jl_analysis_feed(an, &g->ev[e]), 0);
	}
	/* after it: the cycles not given yet (io/live.c hands them over as its thread stops), the samples, the
	 * window's end, then the rest */
	for (; k < na; k++)
		assert_int_equal(jl_analysis_prune_cycles(an, arr[k].loop, arr[k].x, 1), 0);
	for (int t = 0; t < NLOOPS; t++) {
		an->threads[t].samples = kept[t];
		an->threads[t].nsamples = nkept[t];
	}
	assert_int_equal(jl_analysis_prune_settle(an, g->to), 0);
	for (; e < g->n; e++)
		assert_int_equal(jl_analysis_feed(an, &g->ev[e]), 0);
	jl_analysis_end(an);
	free(arr);
}

static void analyse(struct jl_analysis *an, const struct gen *g, struct jl_analysis_sample **kept, const size_t *nkept,
		    enum mode mode)
{
	struct jl_analysis_thread th[NLOOPS + 1];
	bool prune = mode != WHOLE;

	memset(th, 0, sizeof(th));
	for (int i = 0; i < NLOOPS; i++) {
		snprintf(th[i].name, sizeof(th[i].name), "loop.%d", i);
		th[i].pid = 101 + i;
		th[i].measured = th[i].sampled = true;
		snprintf(th[i].policy, sizeof(th[i].policy), "FIFO 80");
		th[i].samples = mode == LIVE ? NULL : kept[i];
		th[i].nsamples = mode == LIVE ? 0 : nkept[i];
		th[i].partial = prune;
	}
	snprintf(th[NLOOPS].name, sizeof(th[NLOOPS].name), "hog"); /* lends its name only */
	th[NLOOPS].pid = HOG;
	assert_int_equal(jl_analysis_init(an, th, NLOOPS + 1, 2), 0);
	/* no RT throttling, no fair server: the windows reach JL_ANALYSIS_PRUNE_BACK_MIN back (with the kernel's
	 * budgets, 110 ms: most of the trace around 30 cycles) */
	an->budget.rt_runtime_ns = -1;
	an->budget.fair_server = false;
	if (mode == LIVE) {
		analyse_live(an, g, kept, nkept);
		return;
	}
	assert_int_equal(jl_analysis_prune(an, g->from, g->to), prune ? 1 : 0);
	for (size_t i = 0; i < g->n; i++)
		assert_int_equal(jl_analysis_feed(an, &g->ev[i]), 0);
	jl_analysis_end(an);
}

static size_t kept_items(const struct jl_analysis *an)
{
	size_t n = 0;

	for (int i = 0; i < an->nthreads; i++)
		n += an->threads[i].nstates + an->threads[i].npairs;
	for (int c = 0; c < an->ncpus; c++)
		n += an->nsegs[c];
	return n;
}

static void same_table(const struct jl_tail_table *a, const struct jl_tail_table *b)
{
	assert_true(fabs(a->total_ns - b->total_ns) <= 1e-9 * b->total_ns + 1e-6);
	assert_int_equal(a->ncauses, b->ncauses);
	for (int k = 0; k < a->ncauses; k++) {
		assert_string_equal(a->c[k].name, b->c[k].name);
		assert_true(fabs(a->c[k].ns - b->c[k].ns) <= 1e-9 * b->total_ns + 1e-6);
		assert_int_equal(a->c[k].largest, b->c[k].largest);
	}
}

/* The tail the live matcher counted as the cycles came (the timelines compacted behind it) is the one the
 * whole analysis of every sample counts: the same cycles, each explained part by part the same. */
static void same_tail(struct jl_analysis *live, const struct jl_analysis *all, int i, int64_t from)
{
	struct jl_tail *tl = calloc(1, sizeof(*tl)), *ta = calloc(1, sizeof(*ta));
	struct jl_tail_acc *acc = jl_tail_new(0);

	assert_non_null(tl);
	assert_non_null(ta);
	assert_true(jl_analysis_prune_tail(live, i, tl));
	assert_true(jl_tail_of_samples(acc, all, i, from));
	jl_tail_result(acc, ta);
	assert_true(tl->computed && ta->computed);
	assert_int_equal(tl->measured, all->threads[i].measured_samples);
	assert_int_equal(tl->measured, ta->measured);
	assert_int_equal(tl->cycles, ta->cycles);
	assert_int_equal(tl->above, ta->above);
	assert_int_equal(tl->misses, ta->misses);
	assert_int_equal(tl->threshold, ta->threshold);
	assert_int_equal(tl->p50, ta->p50);
	assert_true(ta->cycles > 0 && ta->excess.ncauses > 3);
	same_table(&tl->excess, &ta->excess);
	same_table(&tl->response, &ta->response);
	/* the decomposition explains the tail: little of it is nobody's */
	for (int k = 0; k < ta->excess.ncauses; k++)
		if (!strcmp(ta->excess.c[k].name, "unexplained"))
			assert_true(ta->excess.c[k].ns < 0.2 * ta->excess.total_ns);
	print_message("%s tail: %llu cycles, %.0f us over p50: %s %.0f%%, %s %.0f%%\n", all->threads[i].name,
		      (unsigned long long)ta->cycles, ta->excess.total_ns / 1e3, ta->excess.c[0].name,
		      100 * ta->excess.c[0].ns / ta->excess.total_ns, ta->excess.c[1].name,
		      100 * ta->excess.c[1].ns / ta->excess.total_ns);
	jl_tail_free(acc);
	free(tl);
	free(ta);
}

static void pruned_equals_whole(bool stalls, enum mode mode)
{
	static struct gen g;
	struct jl_analysis_sample *kept[NLOOPS];
	size_t nkept[NLOOPS], nw = 0, np = 0, mw = 0, mp = 0, fs, fp, fg;
	struct jl_cycle w[16], p[16];
	struct jl_analysis whole, pruned;
	int nwo = 0, npo = 0;

	generate(&g, stalls);
	assert_int_equal(jl_event_sort(g.ev, g.n), 0);
	for (int i = 0; i < NLOOPS; i++) {
		kept[i] = calloc(g.ns[i], sizeof(*kept[i]));
		nkept[i] = keep(g.s[i], g.ns[i], kept[i]);
		assert_true(nkept[i] < g.ns[i] / 2);
	}
	analyse(&whole, &g, kept, nkept, WHOLE);
	analyse(&pruned, &g, kept, nkept, mode);

	/* the same worst cycles, part by part, and the same missed deadlines */
	assert_int_equal(jl_analysis_worst(&whole, g.from, w, 5, 10, &nwo, &mw), 0);
	assert_int_equal(jl_analysis_worst(&pruned, g.from, p, 5, 10, &npo, &mp), 0);
	assert_true(nwo >= 5);
	assert_int_equal(npo, nwo);
	assert_true(!stalls || mw > 0);
	assert_int_equal(mp, mw);
	for (int i = 0; i < nwo; i++) {
		assert_int_equal(p[i].thread, w[i].thread);
		assert_int_equal(p[i].cycle, w[i].cycle);
		assert_int_equal(p[i].window, w[i].window);
		assert_int_equal(p[i].latency_ns, w[i].latency_ns);
		assert_int_equal(p[i].switch_in, w[i].switch_in);
		assert_int_equal(p[i].nparts, w[i].nparts);
		for (int j = 0; j < w[i].nparts; j++) {
			assert_int_equal(p[i].parts[j].kind, w[i].parts[j].kind);
			assert_string_equal(p[i].parts[j].name, w[i].parts[j].name);
			assert_int_equal(p[i].parts[j].pid, w[i].parts[j].pid);
			assert_int_equal(p[i].parts[j].duration_ns, w[i].parts[j].duration_ns);
			assert_string_equal(p[i].parts[j].detail, w[i].parts[j].detail);
		}
	}
	/* what they explain: the stalls (2 ms of the hog, unpreempted), else the intruder */
	{
		bool unpre = false, intr = false;

		for (int i = 0; i < nwo; i++)
			for (int j = 0; j < w[i].nparts; j++) {
				unpre |= w[i].parts[j].kind == JL_PART_UNPREEMPTED;
				intr |= w[i].parts[j].pid == INTRUDER;
			}
		assert_true(stalls ? unpre : intr);
	}
	for (int i = 0; i < NLOOPS; i++) {
		const char *a, *b;
		json_object *oa = jl_analysis_offcpu(&whole, i, g.from, g.to), *ob = jl_analysis_offcpu(&pruned, i, g.from, g.to);
		struct jl_dist d;
		size_t n;

		/* the same kept samples matched */
		assert_int_equal(pruned.threads[i].measured_samples, whole.threads[i].measured_samples);
		assert_int_equal(pruned.threads[i].matched, whole.threads[i].matched);
		assert_true(whole.threads[i].matched > nkept[i] * 9 / 10);
		/* the same off-CPU totals, from the states the pruned one stepped before it forgot them */
		a = json_object_to_json_string(oa);
		b = json_object_to_json_string(ob);
		if (i == 0) { /* preempted behind the intruder as often as the generator made it */
			json_object *behind = json_object_object_get(oa, "preempted_behind");

			assert_int_equal(json_object_get_int64(json_object_object_get(oa, "preempted_ns")), g.preempted);
			assert_string_equal(json_object_get_string(json_object_object_get(
						    json_object_array_get_idx(behind, 0), "name")), "intruder");
		}
		assert_string_equal(b, a);
		json_object_put(oa);
		json_object_put(ob);
		/* every wakeup the generator made in the window, the largest exactly */
		assert_false(jl_analysis_prune_wakeups(&whole, i, &d, &n));
		assert_true(jl_analysis_prune_wakeups(&pruned, i, &d, &n));
		assert_int_equal(n, g.wakeups[i]);
		assert_int_equal(d.max, g.max_wakeup[i]);
		assert_int_equal(pruned.threads[i].npairs + pruned.threads[i].pairs_forgotten, whole.threads[i].npairs);
		nw += whole.threads[i].nstates;
		np += pruned.threads[i].nstates;
	}
	/* the churn: every birth in the whole one; the pruned one forgot those of children long gone, kept the
	 * living child's (its name and parent still found) */
	assert_int_equal(whole.nbirths, 1 + (SLOTS / 10) * KIDS);
	/* (this trace keeps a window every 50 ms: a birth within 20 ms before one is kept, about half) */
	assert_true(pruned.births_forgotten > 1000 && pruned.nbirths * 3 < whole.nbirths * 2);
	assert_int_equal(pruned.nbirths + pruned.births_forgotten, whole.nbirths);
	assert_int_equal(jl_analysis_parent(&pruned, KEEPER), HK);
	assert_int_equal(jl_analysis_parent(&whole, KEEPER), HK);
	assert_int_equal(jl_analysis_parent(&whole, KID0), HK);
	assert_int_equal(jl_analysis_parent(&pruned, KID0), 0); /* gone 10 s before the end, in no window */
	/* the living child's birth moved as others went: its exit at the end still wrote its name there */
	assert_non_null(jl_analysis_comm(&pruned, KEEPER));
	assert_string_equal(jl_analysis_comm(&pruned, KEEPER), "keeper");
	/* and kept a small part of what the whole one did */
	jl_analysis_prune_counts(&pruned, &fs, &fp, &fg);
	assert_true(fs > 0 && fp > 0 && fg > 0);
	assert_int_equal(np + fs, nw);
	print_message("kept %zu of %zu states, pairs and segments\n", kept_items(&pruned), kept_items(&whole));
	assert_true(kept_items(&pruned) * 4 < kept_items(&whole));
	if (mode == LIVE) { /* every cycle matched as it came: what the whole analysis of every sample says */
		struct jl_analysis all;

		analyse(&all, &g, g.s, g.ns, WHOLE);
		assert_int_equal(jl_analysis_match(&all, g.from), 0);
		for (int i = 0; i < NLOOPS; i++) {
			size_t measured, matched, n, nall;
			struct jl_dist d, da;
			int64_t *v = jl_analysis_wakeups(&all, i, g.from, &nall);

			assert_true(jl_analysis_prune_matched(&pruned, i, &measured, &matched, &d, &n));
			assert_int_equal(measured, all.threads[i].measured_samples);
			assert_int_equal(matched, all.threads[i].matched);
			assert_true(measured > nkept[i] && matched > measured * 9 / 10);
			assert_non_null(v);
			assert_int_equal(jl_dist_compute(v, nall, NULL, &da), 0);
			assert_int_equal(n, nall);
			assert_int_equal(d.p50, da.p50);
			assert_int_equal(d.p99, da.p99);
			assert_int_equal(d.max, da.max);
			free(v);
			same_tail(&pruned, &all, i, g.from);
		}
		jl_analysis_free(&all);
	}
	jl_analysis_free(&whole);
	jl_analysis_free(&pruned);
	for (int i = 0; i < NLOOPS; i++) {
		free(kept[i]);
		free(g.s[i]);
	}
	free(g.ev);
}

static void test_pruned_equals_whole_stalls(void **state)
{
	(void)state;
	pruned_equals_whole(true, PRUNED);
}

static void test_pruned_equals_whole_intruder(void **state)
{
	(void)state;
	pruned_equals_whole(false, PRUNED);
}

/* The live analysis: the windows come as the events are fed, the samples at the end. */
static void test_live_equals_whole_stalls(void **state)
{
	(void)state;
	pruned_equals_whole(true, LIVE);
}

static void test_live_equals_whole_intruder(void **state)
{
	(void)state;
	pruned_equals_whole(false, LIVE);
}

/* Not every measured entry partial (a callback's, an entry without samples): nothing is pruned. */
static void test_not_pruned_unless_all_partial(void **state)
{
	struct jl_analysis_sample s = { .release = 1000, .wake = 2000, .end = 3000, .cycle = 0 };
	struct jl_analysis_thread th[2] = { 0 };
	struct jl_analysis an;

	(void)state;
	th[0].pid = 1;
	th[0].measured = true;
	th[0].samples = &s;
	th[0].nsamples = 1;
	th[0].partial = true;
	th[1].pid = 2;
	th[1].measured = true; /* no samples: every wakeup of it is what is analysed */
	assert_int_equal(jl_analysis_init(&an, th, 2, 1), 0);
	assert_int_equal(jl_analysis_prune(&an, 0, 0), 0);
	assert_null(an.prune);
	assert_true(jl_analysis_prune_sample_kept(&an, 0, 0));
	jl_analysis_free(&an);
	th[1].samples = &s;
	th[1].nsamples = 1;
	th[1].partial = true;
	assert_int_equal(jl_analysis_init(&an, th, 2, 1), 0);
	assert_int_equal(jl_analysis_prune(&an, 0, 0), 1);
	assert_non_null(an.prune);
	jl_analysis_free(&an);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_pruned_equals_whole_stalls),
		cmocka_unit_test(test_pruned_equals_whole_intruder),
		cmocka_unit_test(test_live_equals_whole_stalls),
		cmocka_unit_test(test_live_equals_whole_intruder),
		cmocka_unit_test(test_not_pruned_unless_all_partial),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
