/* series: the storage of a measured series (series.h). */
#include "series.h"

#include <errno.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>

int jl_series_alloc(struct jl_series *s, size_t cap)
{
	atomic_store(&s->n, 0);
	s->dropped = 0;
	s->samples = NULL;
	s->cap = 0;
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
	s->cap = cap;
	return 0;
}

void jl_series_free(struct jl_series *s)
{
	if (s->samples)
		munmap(s->samples, s->cap * sizeof(*s->samples));
	s->samples = NULL;
	s->cap = 0;
	atomic_store(&s->n, 0);
}

size_t jl_series_first_from(const struct jl_series *s, int64_t t)
{
	size_t n = jl_series_count(s), i = 0;

	while (i < n && s->samples[i].release < t)
		i++;
	return i;
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
