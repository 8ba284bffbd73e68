/* pages: a run's recorded pages, as trace.dat holds them, read without trace.dat (read.h: struct
 * jl_trace_pages), and the stream the live analysis reads as the reader appends to them. */
#include <errno.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <tracefs.h>

#include "capture.h"
#include "decode.h"
#include "pages.h"

#define PAGES_PER_READ 16 /* pages read at once from a CPU's file */

struct jl_pcpu {
	char *buf;              /* PAGES_PER_READ pages of the CPU's file, from buf_off */
	uint64_t buf_off, buf_len;
	struct kbuffer *kb;
	uint64_t off;           /* the next page's offset in the CPU's pages */
	bool loaded;            /* a page is in kb */
	bool fresh;             /* its first record not read yet (the only one with missed events) */
	bool taken;             /* rec was handed on: the next peek moves past it */
	struct tep_record rec;  /* the CPU's next record (rec.data NULL: none left) */
};

/* The next record of CPU C into P->rec (its data in P's buffer, valid until the CPU moves on). 1, 0 when
 * the CPU has no more, -1 on a read error or a page larger than the page size. */
static int pcpu_peek(const struct jl_trace_pages *src, int c, struct jl_pcpu *p)
{
	uint64_t base = src->cpu_off ? src->cpu_off[c] : 0, psz = (uint64_t)src->page_size;
	unsigned long long ts;

	p->rec.data = NULL;
	for (;;) {
		void *data = !p->loaded ? NULL : p->taken ? kbuffer_next_event(p->kb, &ts) : kbuffer_read_event(p->kb, &ts);

		p->taken = false;
		if (data) {
			p->rec.ts = ts;
			p->rec.cpu = c;
			p->rec.data = data;
			p->rec.size = kbuffer_event_size(p->kb);
			p->rec.missed_events = p->fresh ? kbuffer_missed_events(p->kb) : 0; /* the page's first only */
			p->fresh = false;
			return 1;
		}
		if (p->off + psz > src->cpu_bytes[c])
			return 0;
		if (p->off < p->buf_off || p->off + psz > p->buf_off + p->buf_len) {
			uint64_t want = src->cpu_bytes[c] - p->off;
			ssize_t got;

			want = want > PAGES_PER_READ * psz ? PAGES_PER_READ * psz : want - want % psz;
			got = pread(src->cpu_fd[c], p->buf, (size_t)want, (off_t)(base + p->off));
			if (got < (ssize_t)psz) {
				if (got >= 0)
					errno = EIO; /* a file shorter than it said */
				return -1;
			}
			p->buf_off = p->off;
			p->buf_len = (uint64_t)got - (uint64_t)got % psz;
		}
		p->loaded = kbuffer_load_subbuffer(p->kb, p->buf + (p->off - p->buf_off)) == 0;
		p->fresh = true;
		p->off += psz;
		if (p->loaded && kbuffer_subbuffer_size(p->kb) > src->page_size) {
			errno = EINVAL;
			return -1;
		}
	}
}

/* A merge over SRC's CPUs in time order that can stop and go on: the pages a CPU's file holds can grow
 * between two runs (the live analysis reads the files the reader thread appends to). */

int jl_pages_iter_init(struct jl_pages_iter *it, const struct jl_trace_pages *src)
{
	memset(it, 0, sizeof(*it));
	it->src = src;
	it->p = calloc((size_t)(src->ncpus > 0 ? src->ncpus : 1), sizeof(*it->p));
	if (!it->p)
		return -1;
	for (int c = 0; c < src->ncpus; c++) {
		it->p[c].buf = malloc((size_t)src->page_size * PAGES_PER_READ);
		it->p[c].kb = tep_kbuffer(src->tep);
		if (!it->p[c].buf || !it->p[c].kb)
			return -1;
	}
	return 0;
}

void jl_pages_iter_free(struct jl_pages_iter *it)
{
	for (int c = 0; it->p && c < it->src->ncpus; c++) {
		free(it->p[c].buf);
		if (it->p[c].kb)
			kbuffer_free(it->p[c].kb);
	}
	free(it->p);
	it->p = NULL;
}

int jl_pages_iter_run(struct jl_pages_iter *it, int64_t limit, jl_record_fn fn, void *data)
{
	const struct jl_trace_pages *src = it->src;
	struct jl_pcpu *p = it->p;

	if (it->failed)
		return -1;
	for (int c = 0; c < src->ncpus; c++)
		if (!p[c].rec.data && pcpu_peek(src, c, &p[c]) < 0)
			goto fail;
	for (;;) {
		int next = -1;

		for (int c = 0; c < src->ncpus; c++)
			if (p[c].rec.data && (next < 0 || p[c].rec.ts < p[next].rec.ts))
				next = c;
		if (next < 0 || (int64_t)p[next].rec.ts >= limit)
			return 0;
		if (fn(NULL, &p[next].rec, next, data) < 0)
			goto fail;
		p[next].taken = true;
		if (pcpu_peek(src, next, &p[next]) < 0)
			goto fail;
	}
fail:
	it->failed = true;
	return -1;
}

int jl_pages_iterate(const struct jl_trace_pages *src, jl_record_fn fn, void *data)
{
	struct jl_pages_iter it;
	int rc = jl_pages_iter_init(&it, src) < 0 ? -1 : jl_pages_iter_run(&it, INT64_MAX, fn, data);

	jl_pages_iter_free(&it);
	return rc;
}

/* One system's event formats into TEP; false when none could be parsed */
static bool parse_system(struct tep_handle *tep, const char *sys)
{
	char **events = tracefs_system_events(NULL, sys);
	bool any = false;

	for (char **e = events; e && *e; e++) {
		char path[512], *buf;
		int len = 0;

		snprintf(path, sizeof(path), "events/%s/%s/format", sys, *e);
		buf = tracefs_instance_file_read(NULL, path, &len);
		if (buf && len > 0 && tep_parse_event(tep, buf, (unsigned long)len, sys) == 0)
			any = true;
		free(buf);
	}
	tracefs_list_free(events);
	return any;
}

/* The parser of the groups' events: libtracefs' tracefs_local_events_system() would also load
 * /proc/kallsyms into its function map (12 MB on a distribution kernel, in every traced run's peak),
 * while the few function names a trace needs come from syms.c. So: the header page, the formats of the
 * groups' systems and ftrace's, and the printk formats, each parsed by libtraceevent. */
struct tep_handle *jl_trace_pages_tep(unsigned groups, char *err, size_t errlen)
{
	const char *sys[20];
	int n = jl_trace_systems(groups, sys, 18), len = 0;
	struct tep_handle *tep = tep_alloc();
	char *buf = tep ? tracefs_instance_file_read(NULL, "events/header_page", &len) : NULL;
	bool ok = buf && len > 0 && tep_parse_header_page(tep, buf, (unsigned long)len, (int)sizeof(long)) == 0;

	free(buf);
	if (ok) { /* what libtracefs sets up beside the formats: this machine's long, its CPUs */
		tep_set_long_size(tep, (int)sizeof(long));
		tep_set_cpus(tep, (int)sysconf(_SC_NPROCESSORS_CONF));
	}
	sys[n++] = "ftrace"; /* raw_data: the markers and the probes' records */
	for (int i = 0; ok && i < n; i++)
		(void)parse_system(tep, sys[i]); /* a system the kernel lacks has none: its events are optional */
	if (!ok || tep_get_events_count(tep) == 0) {
		snprintf(err, errlen, "trace: cannot read this kernel's event formats: %s",
			 !tep ? "out of memory" : !ok ? "events/header_page is unreadable" : "none of the groups' formats parsed");
		tep_free(tep);
		return NULL;
	}
	buf = tracefs_instance_file_read(NULL, "printk_formats", &len); /* best effort, as libtracefs does */
	if (buf && len > 0)
		tep_parse_printk_formats(tep, buf);
	free(buf);
	return tep;
}

struct tep_handle *jl_trace_tep(struct jl_trace *t, char *err, size_t errlen)
{
	if (!t->tep)
		t->tep = jl_trace_pages_tep(t->groups, err, errlen);
	return t->tep;
}

const struct jl_ksyms *jl_trace_ksyms(struct jl_trace *t)
{
	if (!t->ksyms_state)
		t->ksyms_state = (t->groups & (JL_TRACE_TIMER | JL_TRACE_IRQ)) && jl_ksyms_load(&t->ksyms) == 0 ? 1 : -1;
	return t->ksyms_state > 0 ? &t->ksyms : NULL;
}

/* ---- the recorded pages read as they grow (the live analysis) ---- */

struct jl_trace_stream {
	struct jl_decoder r;
	struct jl_pages_iter it;
	struct jl_trace_pages src;
	struct jl_trace_readinfo info;
};

struct jl_trace_stream *jl_trace_stream_open(const struct jl_trace_pages *src, struct jl_analysis *an,
					     const struct jl_ksyms *live)
{
	struct jl_trace_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->src = *src;
	s->r.tep = src->tep;
	s->r.an = an;
	s->r.live = live;
	s->r.pages = true;
	s->r.info = &s->info;
	jl_decoder_setup(&s->r);
	if (jl_pages_iter_init(&s->it, &s->src) < 0) {
		jl_trace_stream_close(s);
		return NULL;
	}
	return s;
}

int jl_trace_stream_feed(struct jl_trace_stream *s, int64_t limit)
{
	if (jl_pages_iter_run(&s->it, limit, jl_decoder_feed, &s->r) < 0 || s->r.failed) {
		errno = s->r.failed ? s->r.failed : errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct jl_trace_readinfo *jl_trace_stream_info(const struct jl_trace_stream *s)
{
	return &s->info;
}

void jl_trace_stream_close(struct jl_trace_stream *s)
{
	if (!s)
		return;
	jl_pages_iter_free(&s->it);
	free(s);
}
