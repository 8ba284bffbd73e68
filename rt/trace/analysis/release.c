/* release: where a wakeup's cycle began when the program cannot say (measure = wakeups): the requested
 * expiry of the hrtimer it slept on, as the trace shows it (hrtimer_start's softexpires, taken over by the
 * expiry that woke it), or else its waking. cyclictest and timerlat measure from that expiry; measuring
 * from the waking leaves out the timer interrupt's lateness, what a VM, an SMI or an interrupts-off section
 * adds. Pure: reads the pair the feed linked (feed.c note_wake_cause). */
#include <stdlib.h>
#include <string.h>

#include "analysis.h"

#define CLOCK_FIT_NS 1000000000LL /* an expiry pass reads its clock well within this of its first record */

int jl_analysis_timer_clock(const struct jl_analysis *an, int64_t now, int64_t entry, int64_t *off)
{
	const int64_t d = now - entry;
	const struct { int clock; int64_t off; bool ok; } cand[] = {
		{ JL_TIMER_CLOCK_MONOTONIC, 0, true },
		{ JL_TIMER_CLOCK_BOOTTIME, an->clocks.boottime, an->clocks.known },
		{ JL_TIMER_CLOCK_REALTIME, an->clocks.realtime, an->clocks.known && !an->clocks.stepped },
		{ JL_TIMER_CLOCK_TAI, an->clocks.tai, an->clocks.known && !an->clocks.stepped },
	};

	int best = -1;

	*off = 0;
	for (size_t i = 0; i < sizeof(cand) / sizeof(cand[0]); i++) /* the nearest (BOOTTIME is MONOTONIC + suspends) */
		if (cand[i].ok && llabs(d - cand[i].off) < CLOCK_FIT_NS &&
		    (best < 0 || llabs(d - cand[i].off) < llabs(d - cand[best].off)))
			best = (int)i;
	if (best < 0)
		return JL_TIMER_CLOCK_UNPLACED;
	*off = cand[best].off;
	return cand[best].clock;
}

/* Timers a program sleeps on, woken at their expiry: the sleeper's own (on its stack: only the task that
 * armed it sleeps on it), and the timer objects whose expiry is the program's release whoever armed them
 * (timerfd's re-arm is done by its reader, a POSIX timer's by the thread that took the signal). Any other
 * callback (the tick, a driver's timer) woke the task on its own account. */
static const char *const sleeper_fn = "hrtimer_wakeup";
static const char *const object_fns[] = { "timerfd_tmrproc", "posix_timer_fn", "it_real_fn", "alarmtimer_fired" };

static bool hex_only(const char *s)
{
	if (!s[0])
		return false;
	for (; *s; s++)
		if (!strchr("0123456789abcdefx", *s))
			return false;
	return true;
}

int64_t jl_analysis_release(const struct jl_analysis *an, const struct jl_pair *p, int *why)
{
	const char *fn = jl_analysis_name(an, p->timer_fn);
	bool object = false;

	if (!strncmp(fn, "hrtimer ", 8))
		fn += 8;
	for (size_t i = 0; i < sizeof(object_fns) / sizeof(object_fns[0]); i++)
		object |= !strcmp(fn, object_fns[i]);
	if (p->timer_cpu < 0 || !(object || !strcmp(fn, sleeper_fn) || hex_only(fn))) {
		*why = JL_RELEASE_WHY_NOT_TIMER;
		return 0;
	}
	if (p->timer_clock == JL_TIMER_CLOCK_UNPLACED ||
	    (an->clocks.stepped && (p->timer_clock == JL_TIMER_CLOCK_REALTIME || p->timer_clock == JL_TIMER_CLOCK_TAI))) {
		*why = JL_RELEASE_WHY_CLOCK;
		return 0;
	}
	/* a sleeper's (or an unnamed) timer is its own only when it armed it: the address of a timer on a stack
	 * serves every task that sleeps there in turn */
	if (p->timer_soft <= 0 || (!object && p->timer_armer != p->pid) || p->timer_soft > p->waking) {
		*why = JL_RELEASE_WHY_UNARMED;
		return 0;
	}
	*why = JL_RELEASE_WHY_TIMER;
	return p->timer_soft;
}
