/* recorder: the flight recorder ([run] trace_keep = worst). A long run's trace cannot be kept whole (a
 * 4 x 1 kHz run writes ~50 MB a minute), so each CPU's pages go first into a circle of the last
 * JL_KEEP_LAST_BYTES; a page leaving it is kept (appended to the CPU's file, which becomes trace.dat's)
 * only if it overlaps a window the collector asked for (jl_trace_recorder_cycle, from its thread, as it reads
 * the cycles):
 * - each loop's JL_ANALYSIS_PRUNE_WORST worst cycles by latency so far and its JL_ANALYSIS_PRUNE_MISSES longest
 *   missed deadlines so far, from jl_analysis_prune_lookback_ns() before the release to 2 ms after the end: what the
 *   pruned analysis explains (analysis/prune.c), with the same margins;
 * - its first JL_KEEP_FIRST_MISSES misses, release to end: so each is in the file (the cap is said);
 * - around the text marker written for each loop's JL_KEEP_MARKED worst so far (ftrace print: "jitterlab:
 *   kept ..."): the cycles the summary explains each have one.
 * At the end the circle follows the kept pages. Where pages were dropped, the next page kept carries
 * the ring buffer's "missed events" flag (RB_MISSED_EVENTS in its commit word, the count unknown), so
 * trace-cmd, KernelShark and the analysis all see a gap, not a CPU that did nothing. A window is
 * complete when no page it overlaps was dropped before it was asked for; only complete windows (and the
 * circle) count as covered (jl_recorder_covered), so the analysis explains only cycles whose trace
 * is whole. The reader thread (pages) and the collector (windows) share the windows under one mutex; the
 * measured threads never come here. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "../../base/clock.h"
#include "../../base/tmpfile.h"
#include "../../base/stream.h"
#include "capture.h"
#include "recorder.h"
#include "trace.h"
#include "../analysis/analysis.h"
#include "../analysis/prune.h"
#include "../analysis/worst.h"
#include "../../base/summary_keys.h"

struct rec_cpu {
	int fd;                      /* the circle: NSLOTS pages */
	int64_t *ts;                 /* each slot's first timestamp */
	uint64_t written;            /* pages that entered the circle */
	bool last_dropped;           /* the last page to leave it was dropped */
};

struct keep_series {
	struct jl_topk lat, miss, marked;
	uint64_t misses;
};

struct rec_win {
	int64_t a, b;
	bool complete;
};

struct jl_recorder {
	int ncpus, page_size;
	uint64_t nslots;
	struct rec_cpu *cpu;
	struct kbuffer *kb;
	void *buf;
	pthread_mutex_t lock;        /* win, nwin, dropped_until */
	struct rec_win *win;
	size_t nwin, capwin;
	int64_t dropped_until;       /* the end of the latest page dropped */
	struct keep_series *ser;     /* the collector's: per series */
	int nser;
	int64_t back;
	uint64_t kept, dropped, gaps, markers;
	int64_t ring_from;           /* after jl_recorder_finish: the circle's start (every CPU's pages from here) */
};

/* The kernel's RT budget, as the analysis will be told it (analysis/summarize.c reads the host block built from
 * the same files): the windows must reach as far back as the pruned analysis looks. */
static int64_t rt_back(void)
{
	struct jl_analysis_budget b;
	long long v;
	FILE *f;

	jl_analysis_budget_defaults(&b);
	f = fopen("/proc/sys/kernel/sched_rt_runtime_us", "re");
	if (f && fscanf(f, "%lld", &v) == 1)
		b.rt_runtime_ns = v < 0 ? -1 : v * 1000;
	if (f)
		fclose(f);
	f = fopen("/proc/sys/kernel/sched_rt_period_us", "re");
	if (f && fscanf(f, "%lld", &v) == 1 && v > 0)
		b.rt_period_ns = v * 1000;
	if (f)
		fclose(f);
	/* the fair server's runtime may be set higher than the default: look back a whole period for it */
	b.fair_runtime_ns = b.fair_period_ns / 2 > b.fair_runtime_ns ? b.fair_runtime_ns : b.fair_period_ns / 2;
	return jl_analysis_prune_lookback_ns(&b);
}

int jl_recorder_init(struct jl_trace *t, char *err, size_t errlen)
{
	struct jl_recorder *r = calloc(1, sizeof(*r));

	if (!r)
		goto nomem;
	t->rec = r;
	pthread_mutex_init(&r->lock, NULL);
	r->ncpus = t->ncpus;
	r->page_size = t->page_size;
	r->nslots = JL_KEEP_LAST_BYTES / (uint64_t)t->page_size;
	if (r->nslots < 16)
		r->nslots = 16;
	r->back = rt_back();
	r->dropped_until = INT64_MIN;
	/* only the pages' timestamps are read here: a kbuffer of this machine's word size and byte order (no
	 * tep: this kernel's formats and symbols take ~11 MB, locked while the run goes) */
	r->kb = kbuffer_alloc(sizeof(long) == 8 ? KBUFFER_LSIZE_8 : KBUFFER_LSIZE_4,
			      __BYTE_ORDER__ == __ORDER_BIG_ENDIAN__ ? KBUFFER_ENDIAN_BIG : KBUFFER_ENDIAN_LITTLE);
	r->buf = malloc((size_t)t->page_size);
	r->cpu = calloc((size_t)t->ncpus, sizeof(*r->cpu));
	if (!r->kb || !r->buf || !r->cpu)
		goto nomem;
	for (int c = 0; c < t->ncpus; c++)
		r->cpu[c].fd = -1; /* none yet: freeing closes only what was opened */
	for (int c = 0; c < t->ncpus; c++) {
		r->cpu[c].fd = jl_tmpfile();
		r->cpu[c].ts = calloc(r->nslots, sizeof(*r->cpu[c].ts));
		if (r->cpu[c].fd < 0 || !r->cpu[c].ts) {
			snprintf(err, errlen, "trace: the flight recorder's circle: %s", strerror(errno ? errno : ENOMEM));
			return -1;
		}
	}
	return 0;
nomem:
	snprintf(err, errlen, "trace: out of memory");
	return -1;
}

void jl_recorder_free(struct jl_recorder *r)
{
	if (!r)
		return;
	if (r->cpu)
		for (int c = 0; c < r->ncpus; c++) {
			if (r->cpu[c].fd >= 0)
				close(r->cpu[c].fd);
			free(r->cpu[c].ts);
		}
	free(r->cpu);
	if (r->kb)
		kbuffer_free(r->kb);
	free(r->buf);
	free(r->win);
	free(r->ser);
	pthread_mutex_destroy(&r->lock);
	free(r);
}

/* Does [A, B) overlap a window? (the lock held) */
static bool wanted(const struct jl_recorder *r, int64_t a, int64_t b)
{
	for (size_t i = 0; i < r->nwin; i++)
		if (r->win[i].a < b && a < r->win[i].b)
			return true;
	return false;
}

static void add_window(struct jl_recorder *r, int64_t a, int64_t b)
{
	pthread_mutex_lock(&r->lock);
	if (r->nwin == r->capwin) {
		size_t cap = r->capwin ? r->capwin * 2 : 256;
		struct rec_win *w = realloc(r->win, cap * sizeof(*w));

		if (!w) { /* not kept: the window is simply not there (nothing claims it is covered) */
			pthread_mutex_unlock(&r->lock);
			return;
		}
		r->win = w;
		r->capwin = cap;
	}
	r->win[r->nwin++] = (struct rec_win){ .a = a, .b = b, .complete = a >= r->dropped_until };
	pthread_mutex_unlock(&r->lock);
}

/* Mark PAGE as following a gap: RB_MISSED_EVENTS (bit 31 of the commit word, which follows the 8-byte
 * timestamp), the count unknown. Little-endian only (x86, arm64); elsewhere the gap is not marked. */
static void mark_gap(struct jl_recorder *r, unsigned char *page)
{
	if (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__)
		return;
	page[8 + 3] |= 0x80;
	r->gaps++;
}

static int append_page(struct jl_trace *t, int cpu, unsigned char *page, bool gap)
{
	if (gap)
		mark_gap(t->rec, page);
	if (write(t->cpu[cpu].fd, page, (size_t)t->page_size) != t->page_size)
		return -1;
	t->cpu[cpu].bytes += (uint64_t)t->page_size;
	return 0;
}

int jl_recorder_page(struct jl_trace *t, int cpu, const void *page)
{
	struct jl_recorder *r = t->rec;
	struct rec_cpu *c = &r->cpu[cpu];
	uint64_t slot = c->written % r->nslots;
	int64_t ts = (int64_t)kbuffer_subbuf_timestamp(r->kb, (void *)page);

	if (c->written >= r->nslots) { /* the oldest page leaves the circle: kept, or dropped */
		int64_t a = c->ts[slot], b = r->nslots > 1 ? c->ts[(slot + 1) % r->nslots] : ts;
		bool keep;

		pthread_mutex_lock(&r->lock);
		keep = wanted(r, a, b);
		if (!keep && b > r->dropped_until)
			r->dropped_until = b;
		pthread_mutex_unlock(&r->lock);
		if (keep) {
			if (pread(c->fd, r->buf, (size_t)r->page_size, (off_t)(slot * (uint64_t)r->page_size)) != r->page_size ||
			    append_page(t, cpu, r->buf, c->last_dropped) < 0)
				return -1;
			r->kept++;
		} else {
			r->dropped++;
		}
		c->last_dropped = !keep;
	}
	if (pwrite(c->fd, page, (size_t)r->page_size, (off_t)(slot * (uint64_t)r->page_size)) != r->page_size)
		return -1;
	c->ts[slot] = ts;
	c->written++;
	return 0;
}

int jl_recorder_finish(struct jl_trace *t)
{
	struct jl_recorder *r = t->rec;

	r->ring_from = INT64_MIN;
	for (int cpu = 0; cpu < r->ncpus; cpu++) {
		struct rec_cpu *c = &r->cpu[cpu];
		uint64_t first = c->written > r->nslots ? c->written - r->nslots : 0;

		if (c->written > r->nslots && c->ts[first % r->nslots] > r->ring_from)
			r->ring_from = c->ts[first % r->nslots]; /* before it, this CPU's pages may have been dropped */
		for (uint64_t i = first; i < c->written; i++) {
			uint64_t slot = i % r->nslots;

			if (pread(c->fd, r->buf, (size_t)r->page_size, (off_t)(slot * (uint64_t)r->page_size)) != r->page_size ||
			    append_page(t, cpu, r->buf, i == first && c->last_dropped) < 0)
				return -1;
		}
	}
	return 0;
}

bool jl_recorder_covered(const struct jl_recorder *r, int64_t a, int64_t b)
{
	if (!r)
		return true;
	if (a >= r->ring_from)
		return true;
	for (size_t i = 0; i < r->nwin; i++)
		if (r->win[i].complete && r->win[i].a <= a && b <= r->win[i].b)
			return true;
	return false;
}

void jl_trace_recorder_cycle(struct jl_trace *t, int series, const struct jl_series *s, const struct jl_sample *x,
			 int64_t latency, int64_t response, bool miss)
{
	struct jl_recorder *r = t ? t->rec : NULL;
	struct keep_series *k;
	int64_t end = x->end > x->wake ? x->end : x->wake;
	bool whole = false;

	if (!r || series < 0)
		return;
	if (series >= r->nser) {
		int n = series + 8;
		struct keep_series *p = realloc(r->ser, (size_t)n * sizeof(*p));

		if (!p)
			return;
		for (int i = r->nser; i < n; i++) {
			jl_topk_init(&p[i].lat, JL_ANALYSIS_PRUNE_WORST);
			jl_topk_init(&p[i].miss, JL_ANALYSIS_PRUNE_MISSES);
			jl_topk_init(&p[i].marked, JL_KEEP_MARKED);
			p[i].misses = 0;
		}
		r->ser = p;
		r->nser = n;
	}
	k = &r->ser[series];
	whole |= jl_topk_add(&k->lat, latency, x->cycle) >= 0;
	if (miss) {
		whole |= jl_topk_add(&k->miss, response, x->cycle) >= 0;
		if (k->misses++ < JL_KEEP_FIRST_MISSES)
			add_window(r, x->release - JL_ANALYSIS_CLOCK_SLACK_NS, end + 1000);
	}
	if (!whole)
		return;
	add_window(r, x->release - r->back, end + 2000000LL);
	/* a marker in the file for each of the loop's worst so far: written now (the collector reads cycles within
	 * 100 ms of their end), naming the cycle and when it was released; the page it lands on is kept too */
	if (jl_topk_add(&k->marked, latency, x->cycle) >= 0) {
		int64_t now = jl_now_ns();

		add_window(r, now - 1000000LL, now + 50000000LL);
		if (tracefs_printf(t->inst, "jitterlab: kept %s cycle %" PRIu64 ": latency %" PRId64 " ns, response %" PRId64
				   " ns%s, released at %" PRId64 "\n", s->name, x->cycle, latency, response,
				   miss ? ", missed its deadline" : "", x->release) >= 0)
			r->markers++;
	}
}

size_t jl_recorder_gaps(const struct jl_recorder *r)
{
	return (size_t)r->gaps;
}

void jl_recorder_describe(const struct jl_recorder *r, json_object *block)
{
	json_object *o = json_object_new_object();
	size_t complete = 0;

	for (size_t i = 0; i < r->nwin; i++)
		complete += r->win[i].complete;
	json_object_object_add(o, JL_K(mode), json_object_new_string("worst"));
	json_object_object_add(o, JL_K(last_bytes_per_cpu), json_object_new_int64((int64_t)(r->nslots * (uint64_t)r->page_size)));
	json_object_object_add(o, JL_K(last_from_ns), json_object_new_int64(r->ring_from == INT64_MIN ? 0 : r->ring_from));
	json_object_object_add(o, JL_K(worst_per_loop), json_object_new_int(JL_ANALYSIS_PRUNE_WORST));
	json_object_object_add(o, JL_K(longest_misses_per_loop), json_object_new_int(JL_ANALYSIS_PRUNE_MISSES));
	json_object_object_add(o, JL_K(first_misses_per_loop), json_object_new_int(JL_KEEP_FIRST_MISSES));
	json_object_object_add(o, JL_K(window_before_ns), json_object_new_int64(r->back));
	json_object_object_add(o, JL_K(windows), json_object_new_int64((int64_t)r->nwin));
	json_object_object_add(o, JL_K(windows_complete), json_object_new_int64((int64_t)complete));
	json_object_object_add(o, JL_K(pages_kept), json_object_new_int64((int64_t)r->kept));
	json_object_object_add(o, JL_K(pages_dropped), json_object_new_int64((int64_t)r->dropped));
	json_object_object_add(o, JL_K(gaps), json_object_new_int64((int64_t)r->gaps));
	json_object_object_add(o, JL_K(markers), json_object_new_int64((int64_t)r->markers));
	json_object_object_add(block, JL_K(kept), o);
}
