/* chains: a chain of callbacks (a timer publishes, triggered or polled callbacks consume and publish on),
 * read back from the samples' links (series.h: each callback run names the run that published the
 * message it consumed). Pure, after the run, on the series as they are: tested on hand-made series.
 *
 * For a chain END (a callback that consumes a topic), each of its measured runs (an output) is walked
 * back link by link to the timer run the data started at (the head). Its path is the callbacks it went
 * through (and the syncs between them); the path most outputs took is the chain's (the others are
 * counted). Over the outputs of that path:
 * - the per-stage breakdown of each output's data age (end - origin): at the head, wait = start - origin
 *   (its release) and run = end - start; at every later stage, wait = start - the previous stage's end
 *   (the message in transit, queued, or waiting for the poll) and run = end - start. The parts of one
 *   output add up to its data age exactly.
 * - per INPUT (each run of the head released in the window, up to the newest one any output carries):
 *   its data age, from its origin to the end of the LAST output that used it (CARET's data age; inputs
 *   no output used are counted apart: overwritten, dropped, never read), and its reaction time, from its
 *   origin to the end of the FIRST output that reflects it or a newer input (the cause-effect chains'
 *   reaction time).
 * - the analytic bound of the data age along keep-last stages: the head's response time (the data's
 *   origin is its release), plus per polled stage its period and response time, plus per triggered stage
 *   its response time (from the message's arrival), with each stage's largest response in the window.
 *   Transit between stages (the publish call) is outside it, and a stage that skipped periods or a sync
 *   on the path (which waits for a partner) has no such bound (bound 0). */
#ifndef JL_CHAINS_H
#define JL_CHAINS_H

#include <stdbool.h>
#include <stdint.h>

#include "../base/series.h"
#include "../base/stats.h"

#define JL_CHAIN_MAX_STAGES 16

struct jl_chain_stage {
	int series;                 /* its series id */
	int via_sync;               /* the hop into it came out of sync via_sync - 1 (0: straight) */
	struct jl_dist wait, run;   /* over the chain's outputs */
	int64_t worst_wait, worst_run; /* the worst output's parts */
};

struct jl_chain {
	int end;                    /* the end's series id */
	int nstages;                /* 0: no output had a complete path */
	struct jl_chain_stage stages[JL_CHAIN_MAX_STAGES]; /* head .. end */
	uint64_t outputs;           /* measured runs of the end with data, on the chain's path */
	uint64_t other_paths;       /* outputs on another path */
	uint64_t broken;            /* outputs whose links could not be followed (a dropped sample, too deep) */
	uint64_t inputs;            /* head runs in the window an output could reflect */
	uint64_t unused_inputs;     /* of those, used by no output */
	uint64_t pending_inputs;    /* head runs in the window newer than every output's data */
	struct jl_dist data_age;    /* per used input: origin -> end of the last output that used it */
	struct jl_dist reaction;    /* per input: origin -> end of the first output reflecting it */
	int64_t bound_ns;           /* the analytic bound of the data age (0: none) */
	int64_t worst_e2e, worst_end; /* the output with the oldest data: its age, and when it ended */
};

/* Compute the chain ending at series END among SERIES[0..N) (ids = indices), over END's samples
 * released in [FROM, TO) and the head's runs released there. 0, or -1 with errno (ENOMEM). */
int jl_chain_compute(const struct jl_series *series, int n, int end, int64_t from, int64_t to, struct jl_chain *out);

#endif
