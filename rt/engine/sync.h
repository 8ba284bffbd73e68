/* sync: pairing of two topics by their messages' time stamps (the data's origin), pure, the model behind
 * [sync NAME], tested on hand-made stamps.
 *
 * JL_SYNC_APPROXIMATE, after message_filters' ApproximateTime (C++) for two inputs: sets of one message of
 * each input, each message in at most one set, the sets as tight as they can be; a set is emitted only when
 * later messages show that no better one can come: the older message's nearest partner on the other input
 * is known (a message at or after it has arrived there), that partner's nearest on the first input is the
 * older message itself (known the same way), and their interval is within max_interval. Messages older
 * than an emitted set are dropped.
 * JL_SYNC_SLOP, after the Python ApproximateTimeSynchronizer: on each arrival, the first combination (in
 * stamp order) of queued messages within `slop` of each other is emitted at once and removed.
 * Both keep at most `queue` messages per input (the oldest goes). */
#ifndef JL_SYNC_H
#define JL_SYNC_H

#include <stdbool.h>
#include <stdint.h>

#define JL_SYNC_QUEUE_MAX 64

enum jl_sync_algo { JL_SYNC_APPROXIMATE, JL_SYNC_SLOP };

struct jl_sync {
	enum jl_sync_algo algo;
	int64_t slop;               /* slop: the largest spread of a set */
	int64_t max_interval;       /* approximate: the largest spread of a set (0 = any) */
	unsigned queue;             /* per input, at most JL_SYNC_QUEUE_MAX */
	struct {
		int64_t t[JL_SYNC_QUEUE_MAX];
		unsigned n;
	} q[2];
	/* counts */
	uint64_t in[2], used[2], out;
	int64_t diff_sum, diff_max; /* |stamp a - stamp b| of the emitted sets */
};

void jl_sync_init(struct jl_sync *s, enum jl_sync_algo algo, int64_t slop, int64_t max_interval, unsigned queue);
/* A message stamped STAMP arrived on INPUT (0 or 1; stamps in arrival order per input). The sets it
 * completes go to OUT (stamps of input 0 and 1), at most MAX; returns how many. */
int jl_sync_add(struct jl_sync *s, int input, int64_t stamp, int64_t (*out)[2], int max);

#endif
