/* series: the storage of a measured series (series.h). */
#include "series.h"
#include "memlock.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int jl_series_alloc(struct jl_series *s, size_t cap)
{
	atomic_store(&s->n, 0);
	atomic_store(&s->consumed, 0);
	s->dropped = 0;
	s->samples = NULL;
	s->cap = 0;
	s->ring = s->partial = s->adopted_heap = false;
	if (!cap)
		return 0;
	if (cap > SIZE_MAX / sizeof(*s->samples)) {
		errno = ENOMEM;
		return -1;
	}
	s->samples = mmap(NULL, cap * sizeof(*s->samples), PROT_READ | PROT_WRITE,
			  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
	if (s->samples == MAP_FAILED) {
		s->samples = NULL;
		return -1;
	}
	memset(s->samples, 0, cap * sizeof(*s->samples)); /* prefault: no page fault on the cycle path */
	jl_memlock_range(s->samples, cap * sizeof(*s->samples));
	s->cap = cap;
	return 0;
}

int jl_series_alloc_ring(struct jl_series *s, size_t cap)
{
	size_t c = 64;

	while (c < cap && c < ((size_t)1 << 40))
		c <<= 1;
	if (jl_series_alloc(s, c))
		return -1;
	atomic_store(&s->consumed, 0);
	s->ring = true;
	return 0;
}

static void release_storage(struct jl_series *s)
{
	if (s->samples && s->adopted_heap)
		free(s->samples);
	else if (s->samples)
		munmap(s->samples, s->cap * sizeof(*s->samples));
	s->samples = NULL;
	s->cap = 0;
}

void jl_series_free(struct jl_series *s)
{
	release_storage(s);
	s->ring = s->partial = s->adopted_heap = false;
	atomic_store(&s->n, 0);
	atomic_store(&s->consumed, 0);
}

void jl_series_adopt(struct jl_series *s, struct jl_sample *kept, size_t n)
{
	s->appended = atomic_load(&s->n);
	release_storage(s);
	s->samples = kept;
	s->cap = n;
	s->ring = false;
	s->partial = true;
	s->adopted_heap = true;
	atomic_store(&s->n, n);
	atomic_store(&s->consumed, 0);
}

void *jl_series_memory(const struct jl_series *s, size_t *len)
{
	*len = s->samples ? s->cap * sizeof(*s->samples) : 0;
	return s->samples;
}

static int cmp_release(const void *a, const void *b)
{
	const struct jl_sample *x = a, *y = b;

	return (x->release > y->release) - (x->release < y->release);
}

void jl_series_sort_by_release(struct jl_series *s)
{
	if (s->samples)
		qsort(s->samples, jl_series_count(s), sizeof(*s->samples), cmp_release);
}
