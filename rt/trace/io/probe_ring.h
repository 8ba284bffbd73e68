/* probe_ring: the probe's rings (include/jitterlab/probe.h; probe_ring.c). */
#ifndef JL_TRACE_PROBE_RING_H
#define JL_TRACE_PROBE_RING_H

#include <stddef.h>
#include <stdint.h>

struct tep_handle;
#define JL_PROBE_RINGS 128      /* threads that can have one; a thread past them writes to the marker */
#define JL_PROBE_RING_CAP 1024  /* records per ring: 1 s of a 500 Hz loop between two drains */
#define JL_PROBE_DRAIN_NS (5 * 1000000LL)
struct jl_probe_rings;
struct jl_probe_rings_stats {
	int rings;              /* threads that got one */
	uint64_t records;       /* records drained and kept */
	uint64_t lost;          /* records a full ring had no room for (the programs' count) */
	uint64_t bad;           /* records not kept: out of order or range, a ring written over, no room in /tmp */
	uint64_t refused;       /* rings asked for and not given (none left, or not a thread of the asker) */
};
/* NRINGS rings of CAP records (a power of 2) for a trace of NCPUS CPUs, in a sealed memfd; NULL with ERR. */
struct jl_probe_rings *jl_probe_rings_new(int ncpus, uint32_t nrings, uint32_t cap, char *err, size_t errlen);
void jl_probe_rings_free(struct jl_probe_rings *R);
/* The memfd to hand over, and its size. */
int jl_probe_rings_fd(const struct jl_probe_rings *R, uint64_t *size);
/* A ring for thread TID of process PID (checked in /proc), the same one when asked again; -1: none. */
int jl_probe_rings_assign(struct jl_probe_rings *R, int32_t pid, int32_t tid);
/* Move what the rings hold into their files (one thread at a time: the probe server's, then the finish). */
void jl_probe_rings_drain(struct jl_probe_rings *R);
void jl_probe_rings_count(const struct jl_probe_rings *R, struct jl_probe_rings_stats *s);
/* The records drained so far (any thread, while the drain goes on) */
uint64_t jl_probe_rings_records(const struct jl_probe_rings *R);
/* Each CPU's pages (FDS, BYTES) that the rings have records of, written anew with them (as raw_data events
 * in time order): FDS and BYTES then name the new files, which OWNED holds too (-1 elsewhere) for the
 * caller to close. 0, or -1 with ERR. */
int jl_probe_rings_merge(struct jl_probe_rings *R, struct tep_handle *tep, int ncpus, int page_size, int *fds,
			 uint64_t *bytes, int *owned, char *err, size_t errlen);
/* For the unit test: N events (TS, DATA, LEN; MISSED: a page starts with that gap before it) as pages. */
int jl_probe_pages_encoder_test(int fd, int page_size, int ts_size, int commit_size, const int64_t *ts,
				const unsigned char *const *data, const int *len, const long long *missed, int n);

#endif
