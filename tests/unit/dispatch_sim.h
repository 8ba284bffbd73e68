/* dispatch_sim: the fake-clock discrete event simulation the dispatch model's unit tests share
 * (test_dispatch.c, test_dispatch_rclcpp.c): N executor threads, each takes the wait in turn (the free ones
 * in thread order at each instant), runs the callback for its work time, then returns it; every run is
 * recorded. Times in ns; at most 8 callbacks and 8 threads. */
#ifndef JL_TEST_DISPATCH_SIM_H
#define JL_TEST_DISPATCH_SIM_H

#include <stdint.h>
#include <string.h>

#include "rt/engine/dispatch.h"

#define MS 1000000LL
#define US 1000LL
#define MAXRUN 4096

struct run {
	int cb, thread;
	int64_t ready, start, end;
};

struct sim {
	struct run runs[MAXRUN];
	int nruns;
	int max_parallel[8];        /* per callback: most runs at once */
};

struct post {
	int64_t at;
	int cb;
};

static inline void simulate(struct jl_dispatch *d, int nthreads, const int64_t *work, const struct post *posts,
			    int nposts, int64_t t_end, struct sim *s)
{
	int64_t free_at[8] = { 0 }, now = 0;
	int running[8], np = 0, active[8] = { 0 };

	memset(s, 0, sizeof(*s));
	for (int t = 0; t < nthreads; t++)
		running[t] = -1;
	while (now < t_end) {
		int64_t next = INT64_MAX;

		for (; np < nposts && posts[np].at <= now; np++)
			jl_dispatch_post(d, posts[np].cb, posts[np].at);
		for (int t = 0; t < nthreads; t++)
			if (running[t] >= 0 && free_at[t] <= now) {
				jl_dispatch_done(d, running[t]);
				active[running[t]]--;
				running[t] = -1;
			}
		for (int t = 0; t < nthreads; t++) { /* the free threads take the wait in turn */
			int64_t ready;
			int cb;

			if (running[t] >= 0)
				continue;
			cb = jl_dispatch_take(d, now, &ready);
			if (cb < 0)
				break;
			running[t] = cb;
			free_at[t] = now + work[cb];
			if (++active[cb] > s->max_parallel[cb])
				s->max_parallel[cb] = active[cb];
			if (s->nruns < MAXRUN)
				s->runs[s->nruns++] = (struct run){ cb, t, ready, now, free_at[t] };
		}
		for (int t = 0; t < nthreads; t++)
			if (running[t] >= 0 && free_at[t] < next)
				next = free_at[t];
			else if (running[t] < 0 && jl_dispatch_next_release(d) < next)
				next = jl_dispatch_next_release(d) > now ? jl_dispatch_next_release(d) : next;
		if (np < nposts && posts[np].at < next)
			next = posts[np].at;
		if (next == INT64_MAX || next <= now)
			break;
		now = next;
	}
}

/* the start times of callback CB */
static inline int starts(const struct sim *s, int cb, int64_t *out, int max)
{
	int n = 0;

	for (int i = 0; i < s->nruns && n < max; i++)
		if (s->runs[i].cb == cb)
			out[n++] = s->runs[i].start;
	return n;
}

#endif
