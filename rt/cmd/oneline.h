/* oneline: `jitterlab run` without a scenario file, in cyclictest's words: its loop options (-p, -i, -d,
 * -t, -a, -S, --policy, -l) and exec neighbours (--load CMD, --load-cpus LIST) turned into a scenario, which
 * the run then writes out as its scenario.ini, so a one-liner becomes a file. Pure: it only builds the
 * scenario (the run checks and runs it as any other). */
#ifndef JL_ONELINE_H
#define JL_ONELINE_H

#include <stdbool.h>
#include <stdint.h>
#include <stddef.h>

#include "../scenario/scenario.h"

#define JL_ONELINE_LOADS 8
#define JL_ONELINE_NAME "cyclic"   /* the scenario's name: runs go to OUT/cyclic/ */
#define JL_ONELINE_PATH "command line"

/* What the command line said, as cyclictest means it. */
struct jl_oneline {
	const char *given;          /* the first loop option given (for "needs no SCENARIO"); NULL: none */
	int priority;               /* -p: 0 = not given */
	const char *policy;         /* --policy: other, normal, batch, idle, fifo or rr; NULL: fifo with -p, else other */
	const char *interval;       /* -i US (a bare number: microseconds), default 1000 */
	const char *distance;       /* -d US, default 500 (cyclictest's): thread N's interval is -i + N x -d */
	const char *threads;        /* -t [NUM]: NULL not given (1 thread), "" one per online CPU */
	const char *affinity;       /* -a [CPUSET]: NULL not given, "" thread N on CPU N */
	bool smp;                   /* -S: -a -t, every thread at -p */
	const char *loops;          /* -l LOOPS: the run lasts LOOPS of the longest interval */
	const char *loads[JL_ONELINE_LOADS]; /* --load CMD */
	int nloads;
	const char *load_cpus;      /* --load-cpus LIST: where the loads run (NULL: anywhere) */
};

/* A cyclictest -D value as a scenario duration into BUF: a bare number is seconds, a d suffix days, and
 * otherwise the scenario's own units (10s, 30m, 1h). BUF, or NULL when it is none of those. */
const char *jl_oneline_duration(const char *value, char *buf, size_t len);

/* Is VALUE a cyclictest -d distance (a bare number of microseconds), not a duration (which has a unit)? */
bool jl_oneline_is_distance(const char *value);

/* O as a scenario into SC: loops t0..t(N-1) (work = none, mlocked, as cyclictest's threads), loads
 * load0..; the [run] name JL_ONELINE_NAME; SETS (--set, --duration, --warmup) applied last. 0, or -1 with ERR
 * naming the option and what was expected. */
int jl_oneline_scenario(const struct jl_oneline *o, const char *const *sets, int nsets, struct jl_scenario *sc,
			char *err, size_t errlen);

#endif
