/* read: read a trace.dat (ours, or one trace-cmd wrote, v6 or v7) through libtracecmd's public read
 * API, merged across CPUs by timestamp (tracecmd_iterate_events), each record an event (decode.c); a
 * whole trace in two threads where two CPUs are allowed (one reads and decodes, the other analyses).
 * A plain v6 file's pages (its header says so, and libtracecmd's first record of each CPU is where the
 * page says) are read directly with kbuffer, like a run's recorded pages (dat_pages): the only part of
 * the layout read here, the documented header fields and CPU order. It never writes files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd.h>
#include <tracefs.h>

#include "../../base/housekeeping_thread.h"
#include "capture.h"
#include "decode.h"
#include "pages.h"
#include "read.h"
#include "syms.h"
#include "../analysis/analysis.h"
#include "../analysis/event.h"
#include "../../../include/jitterlab/probe.h"

struct tracecmd_input *jl_dat_open(const char *path, char *err, size_t errlen)
{
	struct tracecmd_input *h;

	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		snprintf(err, errlen, "trace: cannot read %s as a trace-cmd file: %s", path,
			 errno ? strerror(errno) : "bad format");
	return h;
}

/* ---- trace.dat's pages, read the same way ---- */

/* Whether the page at OFF of FD starts with record REC (the same timestamp and bytes): the check that a
 * file's CPU data lies as plain pages where libtracecmd reads it (not compressed, no timestamp offsets). */
static bool page_holds(struct tep_handle *tep, int fd, uint64_t off, int page_size, const struct tep_record *rec)
{
	struct kbuffer *kb = tep_kbuffer(tep);
	char *page = malloc((size_t)page_size);
	unsigned long long ts = 0;
	bool ok = false;
	void *d;

	if (kb && page && pread(fd, page, (size_t)page_size, (off_t)off) == page_size &&
	    kbuffer_load_subbuffer(kb, page) == 0 && kbuffer_subbuffer_size(kb) <= page_size &&
	    (d = kbuffer_read_event(kb, &ts)))
		ok = ts == rec->ts && kbuffer_event_size(kb) == rec->size && !memcmp(d, rec->data, (size_t)rec->size);
	free(page);
	if (kb)
		kbuffer_free(kb);
	return ok;
}

/* Where each CPU's pages of the open trace.dat H (file descriptor FD) lie. Only for a v6 file of one
 * buffer, whose CPUs' data are its last section, each CPU's pages whole, page-aligned and in CPU order
 * (trace-cmd.dat.v6(5)): a CPU's pages run from the page of its first record to where the next CPU's
 * start, the last CPU's to the end of the file. The first page of each must hold the record libtracecmd
 * reads there (so no compression, no timestamp offsets). False otherwise: then read record by record. */
static bool dat_pages(struct tracecmd_input *h, int fd, struct jl_trace_pages *src, int *fds, uint64_t *off,
		      uint64_t *bytes, int max)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	int ncpus = tep ? tep_get_cpus(tep) : 0, psz;
	unsigned char head[18];
	uint32_t page;
	struct stat st;

	/* the header: "\027\010\104tracing", "6", endianness (0 little, 1 big), long size, page size (u32) */
	if (ncpus <= 0 || ncpus > max || tracecmd_buffer_instances(h) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) || memcmp(head, "\027\010\104tracing6", 12) ||
	    head[12] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || fstat(fd, &st))
		return false;
	memcpy(&page, head + 14, sizeof(page));
	psz = (int)page;
	if (psz <= 0 || (psz & (psz - 1)) || st.st_size % psz)
		return false;
	for (int c = 0; c < ncpus; c++) {
		struct tep_record *a = tracecmd_read_cpu_first(h, c);
		bool ok = !a || page_holds(tep, fd, a->offset & ~(uint64_t)(psz - 1), psz, a);

		fds[c] = fd;
		off[c] = a ? a->offset & ~(uint64_t)(psz - 1) : 0;
		bytes[c] = a ? 1 : 0; /* set below */
		tracecmd_free_record(a);
		if (!ok)
			return false;
	}
	for (int c = 0; c < ncpus; c++) {
		uint64_t end = (uint64_t)st.st_size;

		if (!bytes[c])
			continue;
		for (int o = c + 1; o < ncpus; o++) /* CPU order: the next CPU with records starts after C */
			if (bytes[o]) {
				if (off[o] <= off[c])
					return false;
				end = off[o];
				break;
			}
		bytes[c] = end - off[c];
	}
	*src = (struct jl_trace_pages){ .tep = tep, .ncpus = ncpus, .page_size = psz, .cpu_fd = fds,
					.cpu_off = off, .cpu_bytes = bytes };
	return true;
}

/* FN over every record of trace.dat H in time order: its pages read directly where they are plain
 * (dat_pages: several times faster than libtracecmd's record by record), else tracecmd_iterate_events
 * on a fresh handle of PATH (the checks moved H's CPU iterators). Records of either are read with H's tep:
 * the same file's formats. */
int jl_dat_iterate(struct tracecmd_input *h, const char *path, jl_record_fn fn, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	int ncpus = tep && tep_get_cpus(tep) > 0 ? tep_get_cpus(tep) : 1;
	int *fds = calloc((size_t)ncpus, sizeof(*fds)), fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t *off = calloc((size_t)ncpus, sizeof(*off)), *bytes = calloc((size_t)ncpus, sizeof(*bytes));
	struct jl_trace_pages src;
	int rc = -1;

	if (fds && off && bytes && fd >= 0 && dat_pages(h, fd, &src, fds, off, bytes, ncpus)) {
		rc = jl_pages_iterate(&src, fn, data);
	} else {
		struct tracecmd_input *fresh = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);

		if (fresh) {
			rc = tracecmd_iterate_events(fresh, NULL, 0, fn, data);
			tracecmd_close(fresh);
		}
	}
	if (fd >= 0)
		close(fd);
	free(fds);
	free(off);
	free(bytes);
	return rc;
}

/* ---- a whole trace read in two threads (jl_trace_read_start) ----
 * Opening the file, reading its pages and turning records into events is about 40% of the work, the
 * analysis the rest, and each goes through the events in order: with a second CPU, a thread reads and
 * converts while the caller's thread feeds the analysis, the events handed over in batches through a ring
 * of PIPE_SLOTS (the reader waits when it is full). The reader starts before the analysis exists: it opens
 * the file (libtracecmd reads its headers and kallsyms: about 10 ms) while the caller reads the run's
 * summary and samples. The analysis sees the same events in the same order as jl_decoder_feed gives them. */
#define PIPE_BATCH 512
#define PIPE_SLOTS 8 /* 600 KB of events; a longer lead measured no faster (its memory is cold) */

struct pipe_batch {
	int n;
	struct jl_event ev[PIPE_BATCH];
};

/* The reader thread writes r's counters (info) on every record and reads r for every field: r and info
 * are on cache lines of their own, which the analysis thread touches only to set r.an before it begins
 * and to read the counters after the join (a flag it read on every event, on info's line, once cost the
 * reader a fifth of its time). */
struct jl_trace_reading {
	struct jl_decoder r __attribute__((aligned(64)));
	struct jl_trace_readinfo info;
	char pad_ __attribute__((aligned(64)));
	char *path;                           /* a trace.dat, or */
	const struct jl_trace_pages *src;     /* a run's recorded pages */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct pipe_batch *b[PIPE_SLOTS];     /* allocated as the reader first needs them */
	unsigned head, tail;                  /* batches handed over, batches fed */
	bool done, stop;                      /* the reader finished (rc says how); the analysis stopped */
	int rc, rerr;                         /* the reading's result, its errno when it failed */
	int failed;                           /* the analysis' errno when it failed (read after the join) */
	char err[1024];                       /* the reader's failure to open the file */
};

/* The batch the reader fills: b[head % PIPE_SLOTS], made on first use. NULL without memory. */
static struct pipe_batch *pipe_fill(struct jl_trace_reading *p)
{
	struct pipe_batch **b = &p->b[p->head % PIPE_SLOTS];

	if (!*b && (*b = malloc(sizeof(**b))))
		(*b)->n = 0;
	return *b;
}

/* Hand the batch being filled over, then wait for room. False when the analysis stopped. */
static bool pipe_push(struct jl_trace_reading *p)
{
	bool go;

	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&p->head, p->head + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->cv);
	while (p->head - p->tail == PIPE_SLOTS && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	go = !p->stop;
	pthread_mutex_unlock(&p->mu);
	return go;
}

static int on_pipe(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct jl_trace_reading *p = data;
	struct pipe_batch *b = pipe_fill(p);

	(void)h;
	if (b && b->n + 2 > PIPE_BATCH) {
		if (!pipe_push(p))
			return -1;
		b = pipe_fill(p);
	}
	if (!b) {
		errno = ENOMEM;
		return -1;
	}
	b->n += jl_decoder_events(&p->r, rec, cpu, &b->ev[b->n]);
	return 0;
}

/* The records of P's trace.dat or pages, in time order, to FN: opening the file (with its tep) first. */
static int iterate(struct jl_trace_reading *p, jl_record_fn fn, void *data)
{
	struct tracecmd_input *h;
	int rc;

	if (p->src) {
		p->r.tep = p->src->tep;
		p->r.pages = true;
		jl_decoder_setup(&p->r);
		return jl_pages_iterate(p->src, fn, data);
	}
	if (!(h = jl_dat_open(p->path, p->err, sizeof(p->err))))
		return -1;
	p->r.tep = tracecmd_get_tep(h);
	jl_decoder_setup(&p->r);
	rc = jl_dat_iterate(h, p->path, fn, data);
	tracecmd_close(h);
	p->r.tep = NULL;
	return rc;
}

static void *pipe_reader(void *arg)
{
	struct jl_trace_reading *p = arg;
	int rc = iterate(p, on_pipe, p), e = errno;

	pthread_mutex_lock(&p->mu);
	p->rerr = rc < 0 ? (e ? e : EIO) : 0;
	if (p->b[p->head % PIPE_SLOTS] && p->b[p->head % PIPE_SLOTS]->n && !p->stop)
		__atomic_store_n(&p->head, p->head + 1, __ATOMIC_RELEASE);
	p->rc = rc;
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The CPUs this thread may run on. */
static int cpus_allowed(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

static struct jl_trace_reading *reading_new(const char *path, const struct jl_trace_pages *src,
					    const struct jl_ksyms *live)
{
	struct jl_trace_reading *p = aligned_alloc(64, sizeof(*p)); /* its cache lines as laid out */

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	if (path && !(p->path = strdup(path))) {
		free(p);
		return NULL;
	}
	p->src = src;
	p->r.live = live;
	p->r.info = &p->info;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (cpus_allowed() >= 2) {
		/* the reader away from this thread's CPU: a new thread starts beside its creator, and on a short
		 * trace the balancer moved it too late (measured: half the runs took twice as long, serialised) */
		cpu_set_t other;
		int me = sched_getcpu();

		CPU_ZERO(&other);
		if (sched_getaffinity(0, sizeof(other), &other) == 0 && me >= 0 && me < CPU_SETSIZE)
			CPU_CLR(me, &other);
		p->threaded = jl_housekeeping_thread_start(&p->thread, CPU_COUNT(&other) ? &other : NULL, "jl-read", pipe_reader,
						 p) == 0;
	}
	return p;
}

struct jl_trace_reading *jl_trace_read_start(const char *path, const struct jl_ksyms *live)
{
	return reading_new(path, NULL, live);
}

/* Stop P's reader (the analysis failed or will not come) and free P. */
static void reading_free(struct jl_trace_reading *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
	}
	for (int i = 0; i < PIPE_SLOTS; i++)
		free(p->b[i]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->path);
	free(p);
}

void jl_trace_read_cancel(struct jl_trace_reading *p)
{
	reading_free(p);
}

/* A spinning thread's hint to the CPU (a hyperthread sibling gets the core meanwhile). */
static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* The analysis caught up with the reader: wait for the next batch spinning, up to PIPE_SPIN_NS, before
 * sleeping (a sleep and its wakeup cost tens of microseconds on a VM, a batch takes about a hundred to
 * read; sleeping on every catch-up was a fifth of the run time). */
#define PIPE_SPIN_NS 2000000
static void pipe_spin(const struct jl_trace_reading *p)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned k = 1; __atomic_load_n(&p->head, __ATOMIC_ACQUIRE) == p->tail &&
			     !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE); k++) {
		cpu_pause();
		if (!(k % 256)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) > PIPE_SPIN_NS)
				return;
		}
	}
}

/* Feed P's events to AN, in this thread: from the reader's batches, or reading them here. */
static int reading_feed(struct jl_trace_reading *p, struct jl_analysis *an)
{
	p->r.an = an;
	if (!p->threaded) {
		errno = 0;
		p->rc = iterate(p, jl_decoder_feed, &p->r);
		p->rerr = p->rc < 0 ? (errno ? errno : EIO) : 0;
		return p->rc;
	}
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct pipe_batch *b;
		int failed = 0;

		if (p->tail == p->head && !p->done) {
			pthread_mutex_unlock(&p->mu);
			pipe_spin(p);
			pthread_mutex_lock(&p->mu);
		}
		while (p->tail == p->head && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->tail == p->head)
			break;
		pthread_mutex_unlock(&p->mu);
		b = p->b[p->tail % PIPE_SLOTS];
		for (int i = 0; i < b->n && !failed; i++)
			if (jl_analysis_feed(an, &b->ev[i]) < 0)
				failed = errno ? errno : ENOMEM;
		b->n = 0;
		pthread_mutex_lock(&p->mu);
		p->tail++;
		if (failed)
			p->stop = true;
		pthread_cond_broadcast(&p->cv);
		if (failed) {
			p->failed = failed;
			break;
		}
	}
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	p->threaded = false;
	if (p->failed)
		p->r.failed = p->failed;
	return p->rc;
}

int jl_trace_read_finish(struct jl_trace_reading *p, struct jl_analysis *an, struct jl_trace_readinfo *info, char *err,
			 size_t errlen)
{
	int rc;

	memset(info, 0, sizeof(*info));
	if (!p) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	rc = reading_feed(p, an);
	if (!p->err[0]) /* the file was opened: the analysis ends (nothing of it otherwise) */
		jl_analysis_end(an);
	*info = p->info;
	if (p->err[0]) {
		snprintf(err, errlen, "%s", p->err);
		rc = -1;
	} else if (rc < 0 || p->r.failed) {
		/* the analysis' errno; a read's (a short page read says EIO), else EIO: libtracecmd's
		 * iteration sets none of its own */
		int e = p->r.failed ? p->r.failed : p->src && p->rerr ? p->rerr : EIO;

		if (p->src)
			snprintf(err, errlen, "trace: reading the recorded pages failed: %s", strerror(e));
		else
			snprintf(err, errlen, "trace: reading %s failed: %s", p->path, strerror(e));
		rc = -1;
	}
	reading_free(p);
	return rc;
}

int jl_trace_read(const char *path, struct jl_analysis *an, const struct jl_ksyms *live, struct jl_trace_readinfo *info,
		  char *err, size_t errlen)
{
	return jl_trace_read_finish(jl_trace_read_start(path, live), an, info, err, errlen);
}

int jl_trace_read_pages(const struct jl_trace_pages *src, struct jl_analysis *an, const struct jl_ksyms *live,
			struct jl_trace_readinfo *info, char *err, size_t errlen)
{
	return jl_trace_read_finish(reading_new(NULL, src, live), an, info, err, errlen);
}
