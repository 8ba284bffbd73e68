/* offcpu: where a measured thread's time went (offcpu.c). */
#ifndef JL_TRACE_OFFCPU_H
#define JL_TRACE_OFFCPU_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

/* Where a thread's time went in [FROM, TO), state by state (jl_analysis_offcpu is this over all its states;
 * a pruned analysis, prune.c, steps it as the states come and then forgets them). */
#define JL_OFFCPU_WHO 64
struct jl_offcpu_who {
	char name[JL_EVENT_COMM + 32];
	int64_t ns;
	uint64_t count;
};
struct jl_offcpu {
	int64_t from, to, since;
	int state, cpu;              /* the state it is in (enum jl_tstate_what, -1 unknown), where */
	bool done;                   /* a state at or after TO was seen: nothing later counts */
	int64_t run, preempted, blocked, waiting;
	uint64_t migrations;
	struct jl_offcpu_who pre[JL_OFFCPU_WHO], wk[JL_OFFCPU_WHO]; /* preempted behind whom, woken by whom */
	int npre, nwk;
};
void jl_offcpu_init(struct jl_offcpu *o, int64_t from, int64_t to);
/* One state X of thread T (its segments read for the time it was preempted; NULL: the end of the trace). */
void jl_offcpu_step(struct jl_offcpu *o, const struct jl_analysis *an, const struct jl_analysis_thread *t,
		    const struct jl_tstate *x);
json_object *jl_offcpu_json(struct jl_offcpu *o);
/* Entry TI's time in [FROM, TO) as summary.json's offcpu block: running, preempted (behind whom), blocked
 * (who ended it), the wait after a wakeup, migrations. */
json_object *jl_analysis_offcpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to);

#endif
