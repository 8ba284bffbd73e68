/* sync: two-topic pairing (sync.h). */
#include "sync.h"

#include <string.h>

void jl_sync_init(struct jl_sync *s, enum jl_sync_algo algo, int64_t slop, int64_t max_interval, unsigned queue)
{
	memset(s, 0, sizeof(*s));
	s->algo = algo;
	s->slop = slop;
	s->max_interval = max_interval;
	s->queue = queue < 1 ? 1 : queue > JL_SYNC_QUEUE_MAX ? JL_SYNC_QUEUE_MAX : queue;
}

static void drop_front(struct jl_sync *s, int i, unsigned k)
{
	if (k > s->q[i].n)
		k = s->q[i].n;
	memmove(s->q[i].t, s->q[i].t + k, (s->q[i].n - k) * sizeof(s->q[i].t[0]));
	s->q[i].n -= k;
}

static int64_t absdiff(int64_t a, int64_t b)
{
	return a > b ? a - b : b - a;
}

static void emit(struct jl_sync *s, int64_t a, int64_t b, int64_t (*out)[2], int max, int *n)
{
	int64_t d = absdiff(a, b);

	s->out++;
	s->used[0]++;
	s->used[1]++;
	s->diff_sum += d;
	if (d > s->diff_max)
		s->diff_max = d;
	if (*n < max) {
		out[*n][0] = a;
		out[*n][1] = b;
	}
	(*n)++;
}

/* The index of the message of input I nearest to T, or -1 while a later message of I may still come nearer
 * (none at or after T has arrived). */
static int nearest_final(const struct jl_sync *s, int i, int64_t t)
{
	int best = -1;

	for (unsigned k = 0; k < s->q[i].n; k++) {
		if (best < 0 || absdiff(s->q[i].t[k], t) < absdiff(s->q[i].t[best], t))
			best = (int)k;
		if (s->q[i].t[k] >= t)
			return best; /* later ones are farther */
	}
	return -1;
}

static int approximate(struct jl_sync *s, int64_t (*out)[2], int max)
{
	int n = 0;

	while (s->q[0].n && s->q[1].n) {
		/* the older head, its nearest partner, and that partner's nearest: a mutual best is a set */
		int x = s->q[0].t[0] <= s->q[1].t[0] ? 0 : 1, y = 1 - x;
		int64_t o = s->q[x].t[0];
		int b = nearest_final(s, y, o), back;

		if (b < 0)
			break; /* wait: a nearer partner may still come */
		back = nearest_final(s, x, s->q[y].t[b]);
		if (back < 0)
			break;
		if (back != 0) {
			drop_front(s, x, 1); /* its partner prefers a later message: it gets no set */
			continue;
		}
		if (!s->max_interval || absdiff(o, s->q[y].t[b]) <= s->max_interval)
			emit(s, x == 0 ? o : s->q[y].t[b], x == 0 ? s->q[y].t[b] : o, out, max, &n);
		drop_front(s, x, 1);
		drop_front(s, y, (unsigned)b + 1); /* older than the set: they can never be in a later one */
	}
	return n;
}

static int slop(struct jl_sync *s, int64_t (*out)[2], int max)
{
	int n = 0;

	for (unsigned a = 0; a < s->q[0].n; a++)
		for (unsigned b = 0; b < s->q[1].n; b++)
			if (absdiff(s->q[0].t[a], s->q[1].t[b]) <= s->slop) {
				emit(s, s->q[0].t[a], s->q[1].t[b], out, max, &n);
				memmove(s->q[0].t + a, s->q[0].t + a + 1, (s->q[0].n - a - 1) * sizeof(int64_t));
				memmove(s->q[1].t + b, s->q[1].t + b + 1, (s->q[1].n - b - 1) * sizeof(int64_t));
				s->q[0].n--;
				s->q[1].n--;
				return n; /* one set per arrival: the new message is in at most one */
			}
	return n;
}

int jl_sync_add(struct jl_sync *s, int input, int64_t stamp, int64_t (*out)[2], int max)
{
	s->in[input]++;
	if (s->q[input].n == s->queue)
		drop_front(s, input, 1);
	s->q[input].t[s->q[input].n++] = stamp;
	return s->algo == JL_SYNC_APPROXIMATE ? approximate(s, out, max) : slop(s, out, max);
}
