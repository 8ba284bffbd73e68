/* event: sorting events by time (a merge sort, stable: events of one CPU keep their order). */
#include <stdlib.h>
#include <string.h>

#include "event.h"

static void merge_pass(struct jl_event *a, struct jl_event *tmp, size_t lo, size_t mid, size_t hi)
{
	size_t i = lo, j = mid, k = lo;

	while (i < mid && j < hi)
		tmp[k++] = a[j].ts < a[i].ts ? a[j++] : a[i++];
	while (i < mid)
		tmp[k++] = a[i++];
	while (j < hi)
		tmp[k++] = a[j++];
	memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(*a));
}

int jl_event_sort(struct jl_event *ev, size_t n)
{
	struct jl_event *tmp;
	size_t width, lo;
	bool sorted = true;

	for (size_t i = 1; i < n && sorted; i++)
		sorted = ev[i].ts >= ev[i - 1].ts;
	if (sorted)
		return 0;
	tmp = malloc(n * sizeof(*tmp));
	if (!tmp)
		return -1;
	for (width = 1; width < n; width *= 2)
		for (lo = 0; lo < n - width; lo += 2 * width)
			merge_pass(ev, tmp, lo, lo + width, lo + 2 * width < n ? lo + 2 * width : n);
	free(tmp);
	return 0;
}
