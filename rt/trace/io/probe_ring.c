/* probe_ring: the probe's rings (include/jitterlab/probe.h): the memory a run shares with its probed
 * programs, the drain, and the records written into the recorded pages as the kernel would have.
 *
 * The area: one sealed memfd (it cannot shrink or grow under the run), JL_PROBE_RINGS rings of
 * JL_PROBE_RING_CAP records, locked here. The probe server (probe_server.c) gives a ring to each thread that
 * asks, with its tid checked against the asking process; it drains them every JL_PROBE_DRAIN_NS from its
 * housekeeping CPU, and once more when the run's programs have ended. Everything read from the area is
 * the program's to write, so nothing of it is trusted: the head is bounds-checked against this side's own
 * tail, each record's kind, CPU and time are checked (a record out of order or out of range is counted
 * bad, never kept), and the ring's owner is this side's record of who asked for it.
 *
 * The records of a ring go to their own file (in time order: one writer per ring). After the run
 * (jl_probe_rings_merge) each CPU's recorded pages that have records of that CPU are written anew, the
 * kernel's events and the probe's in time order, the probe's as the ftrace raw_data events a write to
 * trace_marker_raw makes (the thread as common_pid, JL_PROBE_ID first): trace.dat, KernelShark and the
 * analysis read them as they read the marker's. The page format is the kernel's (header_page,
 * header_event), re-encoded: time deltas and extends, the lost-events flags and count of each page. */
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <event-parse.h>
#include <kbuffer.h>

#include "../../base/clock.h"
#include "../../../include/jitterlab/probe.h"
#include "../../base/tmpfile.h"
#include "capture.h"
#include "probe_ring.h"

#define CTL_OFF 4096 /* the area's header page, then the controls */
#define TS_BITS 27
#define TYPE_PADDING 29
#define TYPE_TIME_EXTEND 30
#define MAX_SMALL 112 /* the largest data a type_len holds (28 words) */
#define MISSED_EVENTS (1ull << 31)
#define MISSED_STORED (1ull << 30)

struct ring_own {
	int32_t tid, pid;       /* who asked (checked then), this side's record */
	int fd;                 /* its records so far (-1 until the first) */
	uint64_t tail;          /* drained */
	int64_t last_ts;
	bool broken;            /* its head went where no head goes: not read again */
};

struct jl_probe_rings {
	int memfd;
	void *area;
	size_t size;
	uint32_t nrings, cap;
	int ncpus;
	int nassigned;
	struct ring_own *own;
	uint64_t *per_cpu;      /* records kept, per CPU */
	uint64_t records, bad, refused;
};

/* Where ring I's control and records lie: this side's geometry, never the area's header (the programs'). */
static struct jl_probe_ring_ctl *ctl_of(const struct jl_probe_rings *R, int i)
{
	return (struct jl_probe_ring_ctl *)((char *)R->area + CTL_OFF) + i;
}

static struct jl_probe_ring_rec *recs_of(const struct jl_probe_rings *R, int i)
{
	return (struct jl_probe_ring_rec *)((char *)R->area + CTL_OFF + (size_t)R->nrings * sizeof(struct jl_probe_ring_ctl)) +
	       (size_t)i * R->cap;
}

struct jl_probe_rings *jl_probe_rings_new(int ncpus, uint32_t nrings, uint32_t cap, char *err, size_t errlen)
{
	struct jl_probe_rings *R = calloc(1, sizeof(*R));
	struct jl_probe_area *h;

	if (!R || ncpus < 1 || !nrings || !cap || (cap & (cap - 1))) {
		snprintf(err, errlen, "probe: %s", R ? "bad ring geometry" : "out of memory");
		free(R);
		return NULL;
	}
	R->memfd = -1;
	R->ncpus = ncpus;
	R->nrings = nrings;
	R->cap = cap;
	R->size = CTL_OFF + (size_t)nrings * sizeof(struct jl_probe_ring_ctl) + (size_t)nrings * cap * sizeof(struct jl_probe_ring_rec);
	R->own = calloc(nrings, sizeof(*R->own));
	R->per_cpu = calloc((size_t)ncpus, sizeof(*R->per_cpu));
	if (!R->own || !R->per_cpu) {
		snprintf(err, errlen, "probe: out of memory");
		goto fail;
	}
	R->memfd = memfd_create("jitterlab-probe", MFD_CLOEXEC | MFD_ALLOW_SEALING);
	if (R->memfd < 0 || ftruncate(R->memfd, (off_t)R->size) ||
	    fcntl(R->memfd, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_GROW | F_SEAL_SEAL)) {
		snprintf(err, errlen, "probe: cannot make the rings' memory: %s", strerror(errno));
		goto fail;
	}
	R->area = mmap(NULL, R->size, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_POPULATE, R->memfd, 0);
	if (R->area == MAP_FAILED) {
		R->area = NULL;
		snprintf(err, errlen, "probe: cannot map the rings' memory: %s", strerror(errno));
		goto fail;
	}
	if (mlock(R->area, R->size)) {
		/* without the limit (not root): prefaulted, and the programs lock their mappings where they may */
	}
	h = R->area;
	*h = (struct jl_probe_area){ .magic = JL_PROBE_RING_MAGIC, .version = JL_PROBE_RING_VERSION, .nrings = nrings,
				     .cap = cap, .ctl_off = CTL_OFF,
				     .rec_off = CTL_OFF + nrings * (uint32_t)sizeof(struct jl_probe_ring_ctl) };
	for (uint32_t i = 0; i < nrings; i++)
		R->own[i].fd = -1;
	return R;
fail:
	jl_probe_rings_free(R);
	return NULL;
}

void jl_probe_rings_free(struct jl_probe_rings *R)
{
	if (!R)
		return;
	for (uint32_t i = 0; R->own && i < R->nrings; i++)
		if (R->own[i].fd >= 0)
			close(R->own[i].fd);
	if (R->area)
		munmap(R->area, R->size);
	if (R->memfd >= 0)
		close(R->memfd);
	free(R->own);
	free(R->per_cpu);
	free(R);
}

int jl_probe_rings_fd(const struct jl_probe_rings *R, uint64_t *size)
{
	*size = R->size;
	return R->memfd;
}

int jl_probe_rings_assign(struct jl_probe_rings *R, int32_t pid, int32_t tid)
{
	char path[64];
	struct stat st;

	snprintf(path, sizeof(path), "/proc/%d/task/%d", (int)pid, (int)tid);
	if (tid <= 0 || stat(path, &st)) { /* a thread of the asking process, or no ring */
		R->refused++;
		return -1;
	}
	for (int i = 0; i < R->nassigned; i++)
		if (R->own[i].tid == tid && R->own[i].pid == pid)
			return i; /* asked again (a second file of the program): the same ring */
	if ((uint32_t)R->nassigned >= R->nrings) {
		R->refused++;
		return -1;
	}
	R->own[R->nassigned].tid = tid;
	R->own[R->nassigned].pid = pid;
	return R->nassigned++;
}

/* Whether REC may be kept: a kind, a CPU of the trace, a time not before the ring's last and not after
 * NOW (a second of slack: a record from the future would make every later one look out of order). */
static bool rec_ok(const struct jl_probe_rings *R, const struct ring_own *o, const struct jl_probe_ring_rec *r,
		   int64_t now)
{
	return r->kind >= JL_PROBE_WAKE && r->kind <= JL_PROBE_SERIES && r->cpu >= 0 && r->cpu < R->ncpus && r->ts > 0 &&
	       r->ts >= o->last_ts && r->ts <= now + 1000000000LL;
}

/* N records of ring O into its file: counted kept when written, bad when not. */
static void flush_recs(struct jl_probe_rings *R, struct ring_own *o, const struct jl_probe_ring_rec *buf, size_t n)
{
	if (!n)
		return;
	if (o->fd < 0)
		o->fd = jl_tmpfile();
	if (o->fd < 0 || write(o->fd, buf, n * sizeof(buf[0])) != (ssize_t)(n * sizeof(buf[0]))) {
		R->bad += n; /* no room in /tmp: lost, and counted */
		return;
	}
	for (size_t i = 0; i < n; i++)
		R->per_cpu[buf[i].cpu]++;
	__atomic_store_n(&R->records, R->records + n, __ATOMIC_RELAXED); /* read while the run goes (jl_probe_rings_records) */
}

void jl_probe_rings_drain(struct jl_probe_rings *R)
{
	struct jl_probe_ring_rec buf[256];
	int64_t now = jl_now_ns();
	for (int i = 0; R && i < R->nassigned; i++) {
		struct ring_own *o = &R->own[i];
		struct jl_probe_ring_ctl *c = ctl_of(R, i);
		const struct jl_probe_ring_rec *recs = recs_of(R, i);
		uint64_t head;
		size_t n = 0;

		if (o->broken)
			continue;
		head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		for (int again = 0; again < 3 && (head < o->tail || head - o->tail > R->cap); again++) {
			sched_yield(); /* a second look before a ring is given up: a head caught mid-store (seen once
					* in the emulated RT guest) reads right the next time */
			head = __atomic_load_n(&c->head, __ATOMIC_ACQUIRE);
		}
		if (head < o->tail || head - o->tail > R->cap) {
			o->broken = true; /* the program wrote its control over */
			R->bad++;
			fprintf(stderr, "jitterlab: probe: ring %d given up: its head %llu against the %llu records read "
				"(at most %u ahead): the program wrote over its ring's control\n", i, (unsigned long long)head,
				(unsigned long long)o->tail, (unsigned)R->cap);
			continue;
		}
		while (o->tail < head) {
			struct jl_probe_ring_rec r;

			memcpy(&r, &recs[o->tail & (R->cap - 1)], sizeof(r)); /* a copy: the program may write on */
			o->tail++;
			if (!rec_ok(R, o, &r, now)) {
				R->bad++;
				continue;
			}
			if (jl_probe_kind_named(r.kind))
				r.u.name[sizeof(r.u.name) - 1] = '\0';
			o->last_ts = r.ts;
			buf[n++] = r;
			if (n == sizeof(buf) / sizeof(buf[0])) {
				flush_recs(R, o, buf, n);
				n = 0;
			}
		}
		flush_recs(R, o, buf, n);
		__atomic_store_n(&c->tail, o->tail, __ATOMIC_RELEASE);
	}
}

uint64_t jl_probe_rings_records(const struct jl_probe_rings *R)
{
	return R ? __atomic_load_n(&R->records, __ATOMIC_RELAXED) : 0;
}

void jl_probe_rings_count(const struct jl_probe_rings *R, struct jl_probe_rings_stats *s)
{
	memset(s, 0, sizeof(*s));
	if (!R)
		return;
	s->rings = R->nassigned;
	s->records = R->records;
	s->bad = R->bad;
	s->refused = R->refused;
	for (int i = 0; i < R->nassigned; i++) {
		uint64_t lost = __atomic_load_n(&ctl_of(R, i)->lost, __ATOMIC_RELAXED);

		s->lost += lost < (1ull << 40) ? lost : 0; /* the program's count: an absurd one is not added */
	}
}

/* ---- writing pages as the kernel does ---- */

struct enc {
	int fd;
	int page_size, ts_size, commit_size, data_cap;
	unsigned char *page;
	int used;               /* data bytes in the page */
	int64_t page_ts, last_ts;
	long long missed;       /* the page starts after lost events: -1 unknown count, > 0 the count, 0 none */
	uint64_t bytes;
	bool failed;
};

static void put_le(unsigned char *p, uint64_t v, int size)
{
	for (int i = 0; i < size; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static void enc_flush(struct enc *e)
{
	uint64_t commit = (uint64_t)e->used;

	if (!e->used && !e->missed)
		return;
	if (e->missed) {
		commit |= MISSED_EVENTS;
		if (e->missed > 0 && e->used + e->commit_size <= e->data_cap) {
			commit |= MISSED_STORED;
			put_le(e->page + e->ts_size + e->commit_size + e->used, (uint64_t)e->missed, e->commit_size);
		}
	}
	put_le(e->page, (uint64_t)e->page_ts, e->ts_size);
	put_le(e->page + e->ts_size, commit, e->commit_size);
	if (write(e->fd, e->page, (size_t)e->page_size) != e->page_size)
		e->failed = true;
	e->bytes += (uint64_t)e->page_size;
	memset(e->page, 0, (size_t)e->page_size);
	e->used = 0;
	e->missed = 0;
}

/* The bytes an event of LEN data bytes takes (its header, a length word past MAX_SMALL, 4-byte padding). */
static int ev_bytes(int len)
{
	int pad = (len + 3) & ~3;

	return 4 + (len > MAX_SMALL || len == 0 ? 4 : 0) + (pad ? pad : 4);
}

/* One event: DATA (LEN bytes) at TS. */
static void enc_event(struct enc *e, int64_t ts, const void *data, int len)
{
	int need = ev_bytes(len), reserve = e->missed > 0 ? e->commit_size : 0;
	int64_t delta = e->used ? ts - e->last_ts : 0;
	unsigned char *p;

	if (len <= 0 || len > 65536)
		return; /* the kernel writes none such */
	if (delta >= (1ll << 59))
		delta = (1ll << 59) - 1; /* a time extend holds 59 bits: never reached in a run (years) */

	if (delta < 0)
		delta = 0; /* never: the merge is in time order */
	if (delta >= (1ll << TS_BITS))
		need += 8;
	if (e->used + need + reserve > e->data_cap) {
		enc_flush(e);
		delta = 0;
		need = ev_bytes(len);
	}
	if (!e->used)
		e->page_ts = ts;
	p = e->page + e->ts_size + e->commit_size + e->used;
	if (delta >= (1ll << TS_BITS)) {
		put_le(p, TYPE_TIME_EXTEND | ((uint32_t)(delta & ((1 << TS_BITS) - 1)) << 5), 4);
		put_le(p + 4, (uint64_t)(delta >> TS_BITS), 4);
		p += 8;
		e->used += 8;
		need -= 8;
		delta = 0;
	}
	if (len > 0 && len <= MAX_SMALL) {
		put_le(p, (uint32_t)((len + 3) / 4) | ((uint32_t)delta << 5), 4);
		memcpy(p + 4, data, (size_t)len);
	} else { /* type_len 0: the length word (data + itself) first */
		put_le(p, (uint32_t)delta << 5, 4);
		put_le(p + 4, (uint64_t)len + 4, 4);
		memcpy(p + 8, data, (size_t)len);
	}
	e->used += need;
	e->last_ts = ts;
}

int jl_probe_pages_encoder_test(int fd, int page_size, int ts_size, int commit_size, const int64_t *ts,
				const unsigned char *const *data, const int *len, const long long *missed, int n)
{
	struct enc e = { .fd = fd, .page_size = page_size, .ts_size = ts_size, .commit_size = commit_size,
			 .data_cap = page_size - ts_size - commit_size };

	e.page = calloc(1, (size_t)page_size);
	if (!e.page)
		return -1;
	for (int i = 0; i < n; i++) {
		if (missed[i]) {
			enc_flush(&e);
			e.missed = missed[i];
		}
		enc_event(&e, ts[i], data[i], len[i]);
	}
	enc_flush(&e);
	free(e.page);
	return e.failed ? -1 : 0;
}

/* ---- the merge ---- */

/* The layout of ftrace's raw_data event (what a write to trace_marker_raw makes). */
struct rawfmt {
	int id;
	int type_off, type_size, pid_off, pid_size, id_off, buf_off;
};

static bool raw_format(struct tep_handle *tep, struct rawfmt *f)
{
	struct tep_event *ev = tep_find_event_by_name(tep, "ftrace", "raw_data");
	struct tep_format_field *type, *pid, *id, *buf;

	if (!ev)
		return false;
	type = tep_find_common_field(ev, "common_type");
	pid = tep_find_common_field(ev, "common_pid");
	id = tep_find_field(ev, "id");
	buf = tep_find_field(ev, "buf");
	if (!type || !pid || !id || !buf || id->size != 4 || (type->size != 2 && type->size != 4) || pid->size != 4 ||
	    buf->offset < id->offset + 4 || buf->offset > 64)
		return false;
	*f = (struct rawfmt){ .id = ev->id, .type_off = type->offset, .type_size = type->size, .pid_off = pid->offset,
			      .pid_size = pid->size, .id_off = id->offset, .buf_off = buf->offset };
	return true;
}

/* The raw_data event for ring record R of thread TID into OUT (room for 128 bytes). Its length. */
static int raw_event(const struct rawfmt *f, int32_t tid, const struct jl_probe_ring_rec *r, unsigned char *out)
{
	struct jl_probe_rec p;
	size_t n = jl_probe_kind_named(r->kind) ? sizeof(p) : offsetof(struct jl_probe_rec, name);

	memset(out, 0, 128);
	memset(&p, 0, sizeof(p));
	p.id = JL_PROBE_ID;
	p.kind = r->kind;
	if (jl_probe_kind_named(r->kind))
		memcpy(p.name, r->u.name, sizeof(p.name));
	else
		p.release_ns = r->u.release_ns;
	put_le(out + f->type_off, (uint64_t)f->id, f->type_size);
	put_le(out + f->pid_off, (uint64_t)(uint32_t)tid, f->pid_size);
	/* the marker's layout: the id in its field, the rest of the write in buf */
	memcpy(out + f->id_off, &p, 4);
	memcpy(out + f->buf_off, (const char *)&p + 4, n - 4);
	return f->buf_off + (int)n - 4;
}

/* One ring's records of one CPU, read in order from its file. */
struct rstream {
	int fd;
	int32_t tid;
	off_t off;
	struct jl_probe_ring_rec buf[128];
	int n, at;
	bool have;
	struct jl_probe_ring_rec cur;
};

static void rs_next(struct rstream *s, int cpu)
{
	s->have = false;
	for (;;) {
		if (s->at == s->n) {
			ssize_t got = s->fd >= 0 ? pread(s->fd, s->buf, sizeof(s->buf), s->off) : 0;

			if (got <= 0)
				return;
			s->off += got - got % (ssize_t)sizeof(s->buf[0]);
			s->n = (int)(got / (ssize_t)sizeof(s->buf[0]));
			s->at = 0;
			if (!s->n)
				return;
		}
		s->cur = s->buf[s->at++];
		if (s->cur.cpu == cpu) {
			s->have = true;
			return;
		}
	}
}

/* CPU's kernel pages (FD, BYTES) and the rings' records of that CPU, in time order, into a new file. */
static int merge_cpu(struct jl_probe_rings *R, struct tep_handle *tep, const struct rawfmt *f, int cpu, int page_size,
		     int fd, uint64_t bytes, int *out_fd, uint64_t *out_bytes)
{
	struct kbuffer *kb = tep_kbuffer(tep);
	struct rstream *rs = calloc((size_t)(R->nassigned > 0 ? R->nassigned : 1), sizeof(*rs));
	unsigned char *in = malloc((size_t)page_size), raw[128];
	struct enc e = { .page_size = page_size, .ts_size = tep_get_header_timestamp_size(tep),
			 .commit_size = tep_get_header_page_size(tep) };
	uint64_t off = 0;
	void *kdata = NULL;
	unsigned long long kts = 0;
	int rc = -1;

	e.data_cap = page_size - e.ts_size - e.commit_size;
	e.page = calloc(1, (size_t)page_size);
	e.fd = jl_tmpfile();
	if (!kb || !rs || !in || !e.page || e.fd < 0 || e.ts_size != 8 || (e.commit_size != 4 && e.commit_size != 8))
		goto out;
	for (int i = 0; i < R->nassigned; i++) {
		rs[i] = (struct rstream){ .fd = R->own[i].fd, .tid = R->own[i].tid };
		rs_next(&rs[i], cpu);
	}
	for (;;) {
		int next = -1;

		while (!kdata && off + (uint64_t)page_size <= bytes) { /* the next kernel event, page by page */
			if (pread(fd, in, (size_t)page_size, (off_t)off) != page_size)
				goto out;
			off += (uint64_t)page_size;
			if (kbuffer_load_subbuffer(kb, in) || kbuffer_subbuffer_size(kb) > page_size) {
				errno = EINVAL;
				goto out;
			}
			kdata = kbuffer_read_event(kb, &kts);
			if (kbuffer_missed_events(kb)) { /* the gap stays where the kernel said */
				enc_flush(&e);
				e.missed = kbuffer_missed_events(kb);
				if (!kdata) /* a page of nothing but the gap */
					enc_flush(&e);
			}
		}
		for (int i = 0; i < R->nassigned; i++)
			if (rs[i].have && (next < 0 || rs[i].cur.ts < rs[next].cur.ts))
				next = i;
		if (!kdata && next < 0)
			break;
		if (kdata && (next < 0 || (int64_t)kts <= rs[next].cur.ts)) {
			enc_event(&e, (int64_t)kts, kdata, kbuffer_event_size(kb));
			kdata = kbuffer_next_event(kb, &kts);
		} else {
			int len = raw_event(f, rs[next].tid, &rs[next].cur, raw);

			enc_event(&e, rs[next].cur.ts, raw, len);
			rs_next(&rs[next], cpu);
		}
	}
	enc_flush(&e);
	if (!e.failed) {
		*out_fd = e.fd;
		*out_bytes = e.bytes;
		e.fd = -1;
		rc = 0;
	}
out:
	if (e.fd >= 0)
		close(e.fd);
	if (kb)
		kbuffer_free(kb);
	free(e.page);
	free(in);
	free(rs);
	return rc;
}

int jl_probe_rings_merge(struct jl_probe_rings *R, struct tep_handle *tep, int ncpus, int page_size, int *fds,
			 uint64_t *bytes, int *owned, char *err, size_t errlen)
{
	struct rawfmt f;

	for (int c = 0; c < ncpus; c++)
		owned[c] = -1;
	if (!R || !R->records)
		return 0;
	if (!raw_format(tep, &f)) {
		snprintf(err, errlen, "probe: this kernel's ftrace raw_data format is not the marker's");
		return -1;
	}
	for (int c = 0; c < ncpus && c < R->ncpus; c++) {
		int nfd;
		uint64_t nbytes;

		if (!R->per_cpu[c])
			continue;
		if (merge_cpu(R, tep, &f, c, page_size, fds[c], bytes[c], &nfd, &nbytes) < 0) {
			snprintf(err, errlen, "probe: cannot write the rings' records into CPU %d's pages: %s", c,
				 strerror(errno ? errno : EIO));
			return -1;
		}
		owned[c] = fds[c] = nfd;
		bytes[c] = nbytes;
	}
	return 0;
}
