/* test_probe_ring: the probe's rings (rt/trace/io/probe_ring.c).
 * - The page encoder against libtraceevent's kbuffer, an independent decoder: every event comes back with
 *   its time, bytes and size, across time extends (deltas of 2^27 ns and more), small and long events
 *   (type_len 0), page overflows, and the lost-events flag and count of a page.
 * - The drain: what a program writes into its ring is kept, and what it must not write (a kind, a CPU, a
 *   time out of order, a head past the ring) is counted and never kept; a full ring's count comes back;
 *   a ring goes only to a thread of the asking process. */
#include <pthread.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cmocka.h>
#include <kbuffer.h>

#include "include/jitterlab/probe.h"
#include "rt/base/tmpfile.h"
#include "rt/trace/io/capture.h"
#include "rt/trace/io/probe_ring.h"

#define PAGE 4096
#define N 600

static int64_t ts[N];
static unsigned char bytes[N][256];
static const unsigned char *data[N];
static int len[N];
static long long missed[N];

static void test_encoder_round_trip(void **state)
{
	int fd = jl_tmpfile(), n = 0;
	struct kbuffer *kb = kbuffer_alloc(KBUFFER_LSIZE_8, KBUFFER_ENDIAN_LITTLE);
	unsigned char page[PAGE];
	int64_t t = 1000000000LL;
	off_t off;

	(void)state;
	assert_true(fd >= 0 && kb);
	for (int i = 0; i < N; i++) {
		/* deltas: 0, small, just under and over 2^27 ns, far over; sizes 1..112, and 113..200 */
		static const int64_t steps[] = { 0, 1, 977, (1 << 27) - 1, 1 << 27, (1LL << 27) * 5 + 3, 40000 };
		t += steps[i % 7];
		ts[i] = t;
		len[i] = i % 11 == 0 ? 113 + i % 88 : 1 + i % 112;
		for (int b = 0; b < len[i]; b++)
			bytes[i][b] = (unsigned char)(i * 7 + b);
		data[i] = bytes[i];
		missed[i] = i == 0 ? 0 : i % 97 == 0 ? 1234 : i % 131 == 0 ? -1 : 0;
	}
	assert_int_equal(jl_probe_pages_encoder_test(fd, PAGE, 8, 8, ts, data, len, missed, N), 0);
	off = lseek(fd, 0, SEEK_END);
	assert_true(off > PAGE && off % PAGE == 0); /* several whole pages */
	for (off_t at = 0; at < off; at += PAGE) {
		unsigned long long got_ts;
		void *d;

		assert_int_equal(pread(fd, page, PAGE, at), PAGE);
		assert_int_equal(kbuffer_load_subbuffer(kb, page), 0);
		for (d = kbuffer_read_event(kb, &got_ts); d; d = kbuffer_next_event(kb, &got_ts)) {
			assert_true(n < N);
			if (n > 0 && missed[n]) /* a gap: its page's first event, with the count (or -1: unknown) */
				assert_int_equal(kbuffer_missed_events(kb), missed[n] > 0 ? missed[n] : -1);
			else
				assert_int_equal(kbuffer_missed_events(kb), 0); /* no gap said where there was none */
			assert_int_equal((long long)got_ts, ts[n]);
			assert_true(kbuffer_event_size(kb) >= len[n] && kbuffer_event_size(kb) <= ((len[n] + 3) & ~3));
			assert_memory_equal(d, bytes[n], (size_t)len[n]);
			n++;
		}
	}
	assert_int_equal(n, N);
	kbuffer_free(kb);
	close(fd);
}

struct area {
	struct jl_probe_rings *R;
	void *map;
	struct jl_probe_ring_ctl *ctl;
	struct jl_probe_ring_rec *recs;
	uint32_t cap;
};

static void area_open(struct area *a, int ncpus, uint32_t nrings, uint32_t cap)
{
	char err[256];
	uint64_t size;
	int fd;
	const struct jl_probe_area *h;

	a->R = jl_probe_rings_new(ncpus, nrings, cap, err, sizeof(err));
	assert_non_null(a->R);
	fd = jl_probe_rings_fd(a->R, &size);
	a->map = mmap(NULL, size, PROT_READ | PROT_WRITE, MAP_SHARED, fd, 0); /* as a program maps it */
	assert_true(a->map != MAP_FAILED);
	h = a->map;
	assert_int_equal(h->magic, JL_PROBE_RING_MAGIC);
	assert_int_equal(h->nrings, nrings);
	a->ctl = (struct jl_probe_ring_ctl *)((char *)a->map + h->ctl_off);
	a->recs = (struct jl_probe_ring_rec *)((char *)a->map + h->rec_off);
	a->cap = cap;
}

static void put(struct area *a, int ring, int64_t t, uint32_t kind, int32_t cpu)
{
	struct jl_probe_ring_ctl *c = &a->ctl[ring];

	if (c->head - c->tail >= a->cap) {
		c->lost++;
		return;
	}
	a->recs[(size_t)ring * a->cap + (c->head % a->cap)] =
		(struct jl_probe_ring_rec){ .ts = t, .kind = kind, .cpu = cpu, .u.release_ns = t - 5 };
	c->head++;
}

static void test_drain_keeps_what_is_valid(void **state)
{
	struct area a;
	struct jl_probe_rings_stats st;
	int32_t me = (int32_t)syscall(SYS_gettid);

	(void)state;
	area_open(&a, 2, 2, 8);
	assert_int_equal(jl_probe_rings_assign(a.R, getpid(), me), 0);
	assert_int_equal(jl_probe_rings_assign(a.R, getpid(), me), 0); /* asked again: the same ring */
	assert_int_equal(jl_probe_rings_assign(a.R, getpid(), 999999999), -1); /* no such thread */
	put(&a, 0, 100, JL_PROBE_WAKE, 0);
	put(&a, 0, 200, JL_PROBE_END, 1);
	put(&a, 0, 150, JL_PROBE_WAKE, 0); /* before the last: bad */
	put(&a, 0, 300, 7, 0);             /* no such kind: bad */
	put(&a, 0, 400, JL_PROBE_WAKE, 2); /* no such CPU: bad */
	put(&a, 0, 500, JL_PROBE_END, 1);
	jl_probe_rings_drain(a.R);
	jl_probe_rings_count(a.R, &st);
	assert_int_equal(st.rings, 1);
	assert_int_equal(st.records, 3);
	assert_int_equal(st.bad, 3);
	assert_int_equal(st.refused, 1);
	assert_int_equal(a.ctl[0].tail, 6); /* the ring is free again */
	for (int i = 0; i < 11; i++) /* 8 fit, 3 find it full */
		put(&a, 0, 1000 + i, JL_PROBE_WAKE, 0);
	jl_probe_rings_drain(a.R);
	jl_probe_rings_count(a.R, &st);
	assert_int_equal(st.records, 11);
	assert_int_equal(st.lost, 3);
	a.ctl[0].head += 1000; /* a head past the ring: written over, never read again */
	jl_probe_rings_drain(a.R);
	jl_probe_rings_count(a.R, &st);
	assert_int_equal(st.records, 11);
	assert_int_equal(st.bad, 4);
	{
		uint64_t size;

		jl_probe_rings_fd(a.R, &size);
		munmap(a.map, (size_t)size);
	}
	jl_probe_rings_free(a.R);
}

static int32_t other_tid;
static volatile int other_stop;

static void *other_thread(void *arg)
{
	(void)arg;
	__atomic_store_n(&other_tid, (int32_t)syscall(SYS_gettid), __ATOMIC_RELEASE);
	while (!other_stop)
		usleep(1000);
	return NULL;
}

static void test_rings_run_out(void **state)
{
	struct area a;
	struct jl_probe_rings_stats st;
	pthread_t t;

	(void)state;
	area_open(&a, 1, 1, 4);
	assert_int_equal(pthread_create(&t, NULL, other_thread, NULL), 0);
	while (!__atomic_load_n(&other_tid, __ATOMIC_ACQUIRE))
		usleep(1000);
	assert_int_equal(jl_probe_rings_assign(a.R, getpid(), (int32_t)syscall(SYS_gettid)), 0);
	assert_int_equal(jl_probe_rings_assign(a.R, getpid(), other_tid), -1); /* a real thread, no ring left */
	assert_int_equal(jl_probe_rings_assign(a.R, 1, other_tid), -1);        /* not a thread of the asker */
	jl_probe_rings_count(a.R, &st);
	assert_int_equal(st.rings, 1);
	assert_int_equal(st.refused, 2);
	other_stop = 1;
	pthread_join(t, NULL);
	{
		uint64_t size;

		jl_probe_rings_fd(a.R, &size);
		munmap(a.map, (size_t)size);
	}
	jl_probe_rings_free(a.R);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_encoder_round_trip),
		cmocka_unit_test(test_drain_keeps_what_is_valid),
		cmocka_unit_test(test_rings_run_out),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
