/* decompose: explain one cycle's wait part by part, from the CPU timelines and the thread's states:
 * the wakeup window (decompose.c; waited.c: what ran while it waited; bandwidth.c: RT bandwidth's
 * shapes) and the response window (window.c). */
#ifndef JL_TRACE_DECOMPOSE_H
#define JL_TRACE_DECOMPOSE_H

#include <stdbool.h>
#include <stdint.h>

#include "analysis.h"

/* Decompose one wakeup: RELEASE (0 = unknown: the wakeup latency is the whole), the pair, and WAKE
 * (user-space wake time, 0 = unknown). Fills C's parts and timestamps. */
void jl_analysis_decompose(const struct jl_analysis *an, const struct jl_pair *p, int64_t release, int64_t wake,
		      struct jl_cycle *c);

/* Decompose the response window [wake, end) of sample SI of thread TI into C (running, preempted behind
 * whom, blocked and who woke it, lost). */
void jl_analysis_decompose_response(const struct jl_analysis *an, int ti, size_t si, struct jl_cycle *c);
/* Loop entry TI's cycle S, woken by P (NULL: no wakeup matched it), PREV_END the previous cycle's end (0:
 * unknown): its response window into C (jl_analysis_decompose_response's, for a cycle given alone: the live
 * matcher's), or only its wait [release, wake) */
void jl_analysis_decompose_loop_response(const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
					 const struct jl_pair *p, int64_t prev_end, struct jl_cycle *c);
void jl_analysis_decompose_loop_wait(const struct jl_analysis *an, int ti, const struct jl_analysis_sample *s,
				     const struct jl_pair *p, int64_t prev_end, struct jl_cycle *c);
/* Did thread TI leave the CPU (preempted or blocked) in (FROM, TO)? */
bool jl_analysis_left_cpu(const struct jl_analysis *an, int ti, int64_t from, int64_t to);
/* jl_analysis_decompose of thread TI's cycle [RELEASE, WAKE) woken by P; when the thread ran, left the CPU and
 * came back before its cycle began (a lock between its wakeup and its cycle: a Python thread waiting for
 * the interpreter lock, seen from a probe's wake record), [switch-in, WAKE) is explained from its own
 * states: running, waiting behind whom, blocked and who woke it. */
void jl_analysis_decompose_cycle(const struct jl_analysis *an, int ti, const struct jl_pair *p, int64_t release, int64_t wake,
			    struct jl_cycle *c);
/* The wakeup window of sample SI of callback entry TI (executor > 0): the runs of the executor's other
 * callbacks in [release, wake) ("executor" parts, by callback), then the rest as a wakeup (P, the pair
 * matched in the rest, or NULL: the thread went from the last of them straight to this one). */
void jl_analysis_decompose_callback(const struct jl_analysis *an, int ti, size_t si, const struct jl_pair *p, struct jl_cycle *c);

/* bandwidth.c: add the wait of an RT task on CPU in [FROM, TO) while lower tasks or nothing ran
 * there, classified (throttle / unpreempted / preempting), to C. Returns the time accounted. */
int64_t jl_analysis_add_lower_stretch(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int64_t stretch_start,
				 int32_t self_prio, struct jl_cycle *c);

/* waited.c, for decompose.c and window.c: add what ran on CPU in [FROM, TO) while
 * SELF (kernel prio SELF_PRIO) waited (idle as "switch from idle" when IDLE_AS_SWITCH, else "idle");
 * returns the time accounted. */
int64_t jl_analysis_add_window(const struct jl_analysis *an, int cpu, int64_t from, int64_t to, int32_t self, int32_t self_prio,
			  struct jl_cycle *c, bool idle_as_switch);

#endif
