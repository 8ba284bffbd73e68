/* tev_builders: hand-made trace events for the analysis unit tests (test_trace_events.c,
 * test_trace_bandwidth.c); times in us for readability. */
#ifndef JL_TEST_TEV_BUILDERS_H
#define JL_TEST_TEV_BUILDERS_H

#include <stdio.h>

#include "rt/trace/analysis/event.h"

/* sched_switch PREV (kernel prio PREV_PRIO, prev_state PREV_STATE) -> NEXT on CPU. */
static inline struct jl_event tev_switch(int64_t us, int cpu, int prev, int prev_prio, int prev_state, int next,
				       int next_prio, const char *next_comm)
{
	struct jl_event e = { .ts = us * 1000, .cpu = cpu, .kind = JL_EVENT_SWITCH, .has_cur = true, .cur = prev,
			    .prev_pid = prev, .prev_prio = prev_prio, .prev_state = prev_state, .pid = next,
			    .prio = next_prio };

	snprintf(e.comm, sizeof(e.comm), "%s", next_comm);
	return e;
}

/* A waking (KIND: JL_EVENT_WAKING or JL_EVENT_WAKEUP_NEW) of PID recorded on CPU while CUR ran. */
static inline struct jl_event tev_wake(int64_t us, int cpu, int cur, int pid, int prio, int kind)
{
	struct jl_event e = { .ts = us * 1000, .cpu = cpu, .kind = kind, .has_cur = true, .cur = cur, .pid = pid,
			    .prio = prio, .target_cpu = cpu };

	snprintf(e.comm, sizeof(e.comm), "t%d", pid);
	return e;
}

/* Any other record (CUR < 0: no common_pid, e.g. a lost-events mark). */
static inline struct jl_event ev(int64_t us, int cpu, int cur, int kind, int pid, const char *name)
{
	struct jl_event e = { .ts = us * 1000, .cpu = cpu, .kind = kind, .has_cur = cur >= 0, .cur = cur, .pid = pid };

	snprintf(e.comm, sizeof(e.comm), "%s", name ? name : "");
	return e;
}

#endif
