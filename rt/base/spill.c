/* spill: values on disk, exact order statistics in bounded memory (spill.h). The selection sorts by the
 * value's bits with the sign flipped (so that unsigned order is signed order), a byte at a time from the
 * top: each pass counts, for every rank sought, the values whose higher bytes equal the prefix found so
 * far, by their next byte, and the rank's bucket gives the next byte of its value. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "spill.h"
#include "tmpfile.h"

#define SIGN (1ULL << 63)
#define READ_VALUES 8192

int jl_spill_open(struct jl_spill *s)
{
	s->n = 0;
	s->nbuf = 0;
	s->err = 0;
	s->fd = jl_tmpfile();
	if (s->fd < 0) {
		s->err = errno;
		return -1;
	}
	return 0;
}

static int flush(struct jl_spill *s)
{
	const char *p = (const char *)s->buf;
	size_t left = s->nbuf * sizeof(s->buf[0]);

	while (left && !s->err) {
		ssize_t w = write(s->fd, p, left);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			s->err = w < 0 ? errno : EIO;
		else
			p += w, left -= (size_t)w;
	}
	s->nbuf = 0;
	return s->err ? -1 : 0;
}

int jl_spill_add(struct jl_spill *s, int64_t v)
{
	if (s->fd < 0 || s->err)
		return -1;
	s->buf[s->nbuf++] = v;
	s->n++;
	return s->nbuf == JL_SPILL_BUF ? flush(s) : 0;
}

/* One pass: for every sought rank k still open, count by byte SHIFT the values whose bits above SHIFT + 8
 * equal PREFIX[k]. COUNTS is N x 256. */
static int count_pass(struct jl_spill *s, int n, const uint64_t *prefix, int shift, uint64_t *counts)
{
	int64_t *v = malloc(READ_VALUES * sizeof(*v));
	off_t off = 0;

	if (!v)
		return -1;
	memset(counts, 0, (size_t)n * 256 * sizeof(*counts));
	for (;;) {
		ssize_t r = pread(s->fd, v, READ_VALUES * sizeof(*v), off);

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			s->err = errno;
			free(v);
			return -1;
		}
		if (r == 0)
			break;
		off += r;
		for (size_t i = 0; i < (size_t)r / sizeof(*v); i++) {
			uint64_t u = (uint64_t)v[i] ^ SIGN;

			for (int k = 0; k < n; k++)
				if (shift == 56 || (u >> (shift + 8)) == prefix[k])
					counts[(size_t)k * 256 + ((u >> shift) & 0xff)]++;
		}
	}
	free(v);
	return 0;
}

int jl_spill_select(struct jl_spill *s, const uint64_t *ranks, int n, int64_t *out)
{
	uint64_t *prefix = calloc((size_t)n, sizeof(*prefix)), *left = malloc((size_t)n * sizeof(*left));
	uint64_t *counts = malloc((size_t)n * 256 * sizeof(*counts));
	int rc = -1;

	if (!prefix || !left || !counts || s->fd < 0 || flush(s))
		goto out;
	for (int k = 0; k < n; k++) {
		if (ranks[k] < 1 || ranks[k] > s->n) {
			errno = ERANGE;
			goto out;
		}
		left[k] = ranks[k]; /* the rank within the values that share the prefix */
	}
	for (int shift = 56; shift >= 0; shift -= 8) {
		if (count_pass(s, n, prefix, shift, counts))
			goto out;
		for (int k = 0; k < n; k++) {
			const uint64_t *c = counts + (size_t)k * 256;
			int b = 0;

			while (left[k] > c[b])
				left[k] -= c[b++];
			prefix[k] = (prefix[k] << 8) | (uint64_t)b;
		}
	}
	for (int k = 0; k < n; k++)
		out[k] = (int64_t)(prefix[k] ^ SIGN);
	rc = 0;
out:
	if (rc && !s->err)
		s->err = errno ? errno : EIO;
	free(prefix);
	free(left);
	free(counts);
	return rc;
}

int jl_spill_percentiles(struct jl_spill *s, struct jl_dist *d)
{
	static const double q[] = { 50.0, 90.0, 99.0, 99.9 };
	uint64_t ranks[4];
	int64_t v[4];

	if (!d->n)
		return 0;
	if ((uint64_t)d->n != s->n) {
		errno = EINVAL;
		return -1;
	}
	for (int k = 0; k < 4; k++)
		ranks[k] = jl_percentile_rank(s->n, q[k]);
	if (jl_spill_select(s, ranks, 4, v))
		return -1;
	d->p50 = v[0];
	d->p90 = v[1];
	d->p99 = v[2];
	d->p999 = v[3];
	return 0;
}

void jl_spill_close(struct jl_spill *s)
{
	if (s->fd >= 0)
		close(s->fd);
	s->fd = -1;
	s->n = 0;
	s->nbuf = 0;
}
