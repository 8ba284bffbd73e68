/* analysis: an analysis' life (init, the CPUs it grows to, free) and what it knows of the threads it
 * analyses and the tasks' births. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "analysis_int.h"

void jl_analysis_budget_defaults(struct jl_analysis_budget *b)
{
	*b = (struct jl_analysis_budget){ .rt_runtime_ns = 950000000LL, .rt_period_ns = 1000000000LL,
				     .fair_runtime_ns = 50000000LL, .fair_period_ns = 1000000000LL, .fair_server = true };
}

int jl_analysis_init(struct jl_analysis *an, const struct jl_analysis_thread *threads, int nthreads, int ncpus)
{
	memset(an, 0, sizeof(*an));
	if (ncpus < 1)
		ncpus = 1;
	an->nthreads = nthreads;
	an->ncpus = ncpus;
	an->threads = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->threads));
	an->pending = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending));
	an->pending_cpu = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_cpu));
	an->pending_prio = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_prio));
	an->pending_new = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_new));
	an->pending_pair = calloc(nthreads > 0 ? nthreads : 1, sizeof(*an->pending_pair));
	an->armed = calloc(ARMED_HASH, sizeof(*an->armed));
	an->cpu = calloc(ncpus, sizeof(*an->cpu));
	an->tasks = calloc(TASK_HASH_MIN, sizeof(*an->tasks));
	an->task_cap = TASK_HASH_MIN;
	an->segs = calloc(ncpus, sizeof(*an->segs));
	an->nsegs = calloc(ncpus, sizeof(*an->nsegs));
	an->capsegs = calloc(ncpus, sizeof(*an->capsegs));
	an->vm_heuristic = calloc(ncpus, sizeof(*an->vm_heuristic));
	if (!an->vm_heuristic || !an->pending_pair || !an->armed || !an->threads || !an->pending || !an->pending_cpu || !an->pending_prio || !an->pending_new || !an->cpu || !an->tasks || !an->segs ||
	    !an->nsegs || !an->capsegs) {
		jl_analysis_free(an);
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < nthreads; i++) {
		an->threads[i] = threads[i];
		an->threads[i].pairs = NULL;
		an->threads[i].npairs = an->threads[i].cap = an->threads[i].pairs_forgotten = 0;
		an->threads[i].switch_in = an->threads[i].switch_out = an->threads[i].wakings = 0;
		an->threads[i].matched = an->threads[i].measured_samples = 0;
		an->threads[i].states = NULL;
		an->threads[i].nstates = an->threads[i].capstates = 0;
		an->threads[i].sample_pair = NULL;
		an->threads[i].owner = i;
		an->threads[i].executor = threads[i].executor;
	}
	/* entries of one pid (series written by one thread): the events go to the first measured one (the
	 * pairs and states are kept for measured entries only), or the first one when none is measured */
	for (int i = 0; i < nthreads; i++) {
		int first = -1, measured = -1;

		for (int j = 0; j < nthreads && threads[i].pid > 0; j++) {
			if (threads[j].pid != threads[i].pid)
				continue;
			if (first < 0)
				first = j;
			if (measured < 0 && threads[j].measured)
				measured = j;
		}
		if (first >= 0)
			an->threads[i].owner = measured >= 0 ? measured : first;
	}
	an->first_ts = -1;
	jl_analysis_budget_defaults(&an->budget);
	return 0;
}

void jl_analysis_free(struct jl_analysis *an)
{
	if (an->threads)
		for (int i = 0; i < an->nthreads; i++) {
			free(an->threads[i].pairs);
			free(an->threads[i].states);
			free(an->threads[i].sample_pair);
			free(an->threads[i].lent);
		}
	if (an->segs)
		for (int c = 0; c < an->ncpus; c++)
			free(an->segs[c]);
	free(an->threads);
	free(an->pending);
	free(an->pending_cpu);
	free(an->pending_prio);
	free(an->pending_new);
	free(an->cpu);
	free(an->tasks);
	free(an->segs);
	free(an->nsegs);
	free(an->capsegs);
	free(an->vm_heuristic);
	free(an->pending_pair);
	free(an->armed);
	free(an->rt_unthrottle);
	free(an->fair_start);
	free(an->gaps);
	free(an->probes);
	free(an->births);
	free(an->gone);
	free(an->names);
	free(an->name_hash);
	free(an->name_h);
	if (an->prune_ops)
		an->prune_ops->free(an);
	memset(an, 0, sizeof(*an));
}

int jl_analysis_grow_cpus(struct jl_analysis *an, int cpu)
{
	int n = cpu + 1;
	void *p;

	if (cpu < an->ncpus)
		return 0;
#define GROW(field)                                                                   \
	do {                                                                          \
		p = realloc(an->field, n * sizeof(*an->field));                       \
		if (!p)                                                               \
			return -1;                                                    \
		an->field = p;                                                        \
		memset(an->field + an->ncpus, 0, (n - an->ncpus) * sizeof(*an->field)); \
	} while (0)
	GROW(cpu);
	GROW(segs);
	GROW(nsegs);
	GROW(capsegs);
	GROW(vm_heuristic);
#undef GROW
	an->ncpus = n;
	return 0;
}

int jl_analysis_thread_of(const struct jl_analysis *an, int32_t pid)
{
	if (pid <= 0)
		return -1;
	for (int i = 0; i < an->nthreads; i++)
		if (an->threads[i].pid == pid)
			return an->threads[i].owner;
	return -1;
}

int32_t jl_analysis_parent(const struct jl_analysis *an, int32_t pid)
{
	for (size_t i = an->nbirths; i-- > 0;) /* the latest birth of a reused pid */
		if (an->births[i].pid == pid)
			return an->births[i].parent != pid ? an->births[i].parent : 0;
	return 0;
}

bool jl_analysis_in_tree(const struct jl_analysis *an, int32_t root, int32_t pid)
{
	for (int hops = 0; pid > 0 && hops < 64; hops++, pid = jl_analysis_parent(an, pid))
		if (pid == root)
			return true;
	return false;
}

int jl_analysis_append_pair(struct jl_analysis_thread *t, const struct jl_pair *p)
{
	if (t->npairs == t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 256;
		struct jl_pair *n = realloc(t->pairs, cap * sizeof(*n));

		if (!n)
			return -1;
		t->pairs = n;
		t->cap = cap;
	}
	t->pairs[t->npairs++] = *p;
	return 0;
}
