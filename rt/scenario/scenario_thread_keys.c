/* scenario_thread_keys: the two key tables of a [thread NAME] section (scenario_registry.h): the
 * placement table (where and how the OS thread runs: policy, priority, nice, cpus, count, runtime,
 * mem_node, user), shared by every section that creates OS threads, and the behaviour table (what it
 * does each cycle: period/rate, work, deadline, overrun, start, measure, exec). Placement keys touch
 * only v->place (user's writing rule asks whether the section has an exec behaviour); behaviour keys
 * only v->beh. Pure: a value in, a field set or a reason out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/units.h"

static void mark_unset(struct jl_key_view *v, enum jl_thread_key k)
{
	if (v->key_line)
		v->key_line[k] = 0;
}

/* ---- placement ---- */

/* count: a [thread]'s copies (an [executor] says threads) */
KEY_APPLIES(not_executor)
{
	return !v->executor;
}

KEY_PARSE(place_policy)
{
	(void)key;
	for (size_t i = 0; i < JL_POLICY_N; i++) {
		if (!strcmp(value, jl_policy_names[i])) {
			v->place->policy = (enum jl_policy)i;
			return 0; /* a --set policy drops the keys it does not take: policy_after_set() */
		}
	}
	snprintf(why, wl, "'%s' is not a policy (expected %s)", value, d->range);
	return -1;
}

KEY_FORMAT(fmt_policy)
{
	(void)buf, (void)len;
	return jl_policy_name(v->place->policy);
}

/* An override of the policy replaces the way the thread runs: keys that the new policy does not take
 * are dropped (the contract's `condition.other = control.policy=other` on a fifo thread with a
 * priority must work). */
static void policy_after_set(struct jl_key_view *v)
{
	struct jl_placement *p = v->place;

	if (!jl_policy_is_rt(p->policy))
		mark_unset(v, JL_THREAD_KEY_PRIORITY); /* kept as a value: overriding back to fifo reuses it */
	if (p->policy != JL_POLICY_OTHER && p->policy != JL_POLICY_BATCH) {
		p->nice = 0;
		mark_unset(v, JL_THREAD_KEY_NICE);
	}
	if (p->policy != JL_POLICY_DEADLINE) {
		p->runtime_ns = 0;
		mark_unset(v, JL_THREAD_KEY_RUNTIME);
	}
}

KEY_PARSE(place_priority)
{
	long long n;

	(void)key;
	/* range depends on the policy: checked in validate() */
	if (jl_parse_int(value, -1000, 1000, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a priority (expected an integer, %s)", value, d->range);
		return -1;
	}
	v->place->priority = (int)n;
	return 0;
}

KEY_FORMAT(fmt_priority)
{
	snprintf(buf, len, "%d", v->place->priority);
	return buf;
}

KEY_APPLIES(is_rt)
{
	return jl_policy_is_rt(v->place->policy);
}

KEY_PARSE(place_nice)
{
	long long n;

	(void)d, (void)key;
	if (jl_parse_int(value, -20, 19, &n, why, wl))
		return -1;
	v->place->nice = (int)n;
	return 0;
}

KEY_FORMAT(fmt_nice)
{
	snprintf(buf, len, "%d", v->place->nice);
	return buf;
}

KEY_APPLIES(is_fair)
{
	return v->place->policy == JL_POLICY_OTHER || v->place->policy == JL_POLICY_BATCH;
}

KEY_PARSE(place_cpus)
{
	(void)d, (void)key;
	if (jl_scenario_cpus_parse(value, &v->place->cpus, v->place->cpus_text, why, wl))
		return -1;
	v->place->cpus_set = true;
	return 0;
}

KEY_FORMAT(fmt_cpus)
{
	return v->place->cpus_set ? jl_scenario_cpus_format(&v->place->cpus, v->place->cpus_text, buf, len) : NULL;
}

KEY_FORMAT(note_cpus)
{
	return v->place->cpus_set ? jl_scenario_cpus_note("cpus", &v->place->cpus, v->place->cpus_text, buf, len) : NULL;
}

KEY_PARSE(place_count)
{
	long long n;

	(void)d, (void)key;
	if (jl_parse_int(value, 1, 64, &n, why, wl))
		return -1;
	v->place->count = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_count)
{
	snprintf(buf, len, "%u", v->place->count);
	return buf;
}

KEY_PARSE(place_runtime)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->place->runtime_ns, why, wl))
		return -1;
	if (v->place->runtime_ns < 1024) {
		snprintf(why, wl, "runtime must be at least 1024ns (SCHED_DEADLINE's minimum)");
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_runtime)
{
	return jl_format_duration(v->place->runtime_ns, buf, len);
}

KEY_APPLIES(is_deadline)
{
	return v->place->policy == JL_POLICY_DEADLINE;
}

KEY_PARSE(place_mem_node)
{
	long long n;

	(void)d, (void)key;
	if (!strcmp(value, "none")) {
		v->place->mem_node = -1;
		return 0;
	}
	if (jl_parse_int(value, 0, 1023, &n, why, wl))
		return -1;
	v->place->mem_node = (int)n;
	return 0;
}

KEY_FORMAT(fmt_mem_node)
{
	if (v->place->mem_node < 0)
		return "none";
	snprintf(buf, len, "%d", v->place->mem_node);
	return buf;
}

KEY_PARSE(place_user)
{
	(void)key;
	/* who an exec neighbour runs as; `invoking` needs sudo and exec: checked in validate() */
	if (!strcmp(value, "root"))
		v->place->user = JL_USER_ROOT;
	else if (!strcmp(value, "invoking"))
		v->place->user = JL_USER_INVOKING;
	else {
		snprintf(why, wl, "'%s' is not a user (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_user)
{
	(void)buf, (void)len;
	return v->place->user == JL_USER_INVOKING ? "invoking" : "root";
}

KEY_APPLIES(is_exec)
{
	return v->beh && v->beh->exec[0];
}

static const struct jl_key_desc placement_keys[] = {
	{ .name = "policy", .slot = JL_THREAD_KEY_POLICY, .syntax = "fifo|rr|other|batch|idle|deadline", .def = "other",
	  .range = "fifo, rr, other, batch, idle or deadline",
	  .help = "the scheduling policy (jitterlab list: policies)", .parse = place_policy, .format = fmt_policy,
	  .after_set = policy_after_set },
	{ .name = "priority", .slot = JL_THREAD_KEY_PRIORITY, .syntax = "N", .def_doc = "none: required for fifo and rr",
	  .range = "1-99 for fifo and rr", .help = "real-time priority; only for fifo and rr (99 only on CPUs the harness's FIFO 99 watchdog does not use)",
	  .parse = place_priority, .format = fmt_priority, .applies = is_rt },
	{ .name = "nice", .slot = JL_THREAD_KEY_NICE, .syntax = "N", .def = "0", .range = "-20-19",
	  .help = "nice value; only for other and batch", .parse = place_nice, .format = fmt_nice, .applies = is_fair },
	{ .name = "cpus", .slot = JL_THREAD_KEY_CPUS, .syntax = "CPULIST", .def_doc = "all allowed",
	  .range = "a list of online CPUs (numbers and names: pcores, ecores, smt:N)",
	  .help = "CPUs the thread is pinned to", .parse = place_cpus, .format = fmt_cpus, .unset = "(all allowed)",
	  .note = note_cpus },
	{ .name = "runtime", .slot = JL_THREAD_KEY_RUNTIME, .syntax = "DURATION", .def_doc = "none: required for deadline",
	  .range = "at least 1024ns, at most the deadline",
	  .help = "SCHED_DEADLINE runtime per period; only for policy deadline (which needs period too)",
	  .parse = place_runtime, .format = fmt_runtime, .applies = is_deadline },
	{ .name = "mem_node", .slot = JL_THREAD_KEY_MEM_NODE, .syntax = "none|N", .def = "none",
	  .range = "none, or an existing NUMA node 0-1023", .help = "NUMA node for the thread's memory (libnuma)",
	  .parse = place_mem_node, .format = fmt_mem_node },
	{ .name = "user", .slot = JL_THREAD_KEY_USER, .syntax = "root|invoking", .def = "root",
	  .range = "root or invoking: the sudo user, SUDO_UID",
	  .help = "who an exec neighbour runs as (invoking: the sudo user, dropped to after placement)",
	  .parse = place_user, .format = fmt_user, .applies = is_exec },
};

const struct jl_key_table jl_keys_placement = { "placement", placement_keys,
						(int)(sizeof(placement_keys) / sizeof(placement_keys[0])) };

/* A [thread]'s copies (its own table: a [source]'s `count` is its requests; an [executor] keeps it only to
 * say that its count is `threads`) */
static const struct jl_key_desc copies_keys[] = {
	{ .name = "count", .slot = JL_THREAD_KEY_COUNT, .syntax = "N", .def = "1", .range = "1-64",
	  .help = "identical copies, named NAME.0, NAME.1, ...", .parse = place_count, .format = fmt_count,
	  .applies = not_executor },
};

const struct jl_key_table jl_keys_copies = { "copies", copies_keys, (int)(sizeof(copies_keys) / sizeof(copies_keys[0])) };

/* ---- behaviour ---- */

static const char period_range[] = "a period of 10us-1h, a rate of 1/h-100kHz";

static int check_period(struct jl_key_view *v, const char *value, char *why, size_t wl)
{
	if (v->beh->period_ns < 10000 || v->beh->period_ns > 3600 * JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, period_range);
		return -1;
	}
	return 0;
}

KEY_PARSE(beh_period)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->beh->period_ns, why, wl))
		return -1;
	v->beh->period_from_rate = false;
	if (v->line <= 0) /* --set period replaces a rate from the file */
		mark_unset(v, JL_THREAD_KEY_RATE);
	return check_period(v, value, why, wl);
}

KEY_FORMAT(fmt_period)
{
	return v->beh->period_ns ? jl_format_duration(v->beh->period_ns, buf, len) : NULL;
}

KEY_APPLIES(is_periodic)
{
	return v->beh->period_ns != 0;
}

KEY_PARSE(beh_rate)
{
	(void)d, (void)key;
	if (jl_parse_rate(value, &v->beh->period_ns, why, wl))
		return -1;
	v->beh->period_from_rate = true;
	if (v->line <= 0) /* --set rate replaces a period from the file */
		mark_unset(v, JL_THREAD_KEY_PERIOD);
	return check_period(v, value, why, wl);
}

KEY_PARSE(beh_work)
{
	(void)d, (void)key;
	return jl_work_parse(value, &v->beh->work, why, wl);
}

KEY_FORMAT(fmt_work)
{
	return jl_work_format(&v->beh->work, buf, len);
}

KEY_APPLIES(is_builtin)
{
	return !v->beh->exec[0] && !v->beh->attach[0];
}

KEY_PARSE(beh_lock)
{
	(void)d, (void)key;
	if (!strcmp(value, "none")) { /* a --set takes the lock away */
		v->beh->lock[0] = '\0';
		return 0;
	}
	return jl_scenario_name_value(value, v->beh->lock, sizeof(v->beh->lock), "a lock name", why, wl);
}

KEY_FORMAT(fmt_lock)
{
	(void)buf, (void)len;
	return v->beh->lock[0] ? v->beh->lock : NULL;
}

KEY_PARSE(beh_deadline)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->beh->deadline_ns, why, wl))
		return -1;
	if (v->beh->deadline_ns <= 0) {
		snprintf(why, wl, "deadline must be greater than 0");
		return -1;
	}
	return 0;
}

/* deadline: a loop's (with its period), or a probed program's without one */
KEY_APPLIES(deadline_applies)
{
	return v->beh->period_ns != 0 || (JL_MEASURE_FROM_TRACE(v->beh->measure) && v->beh->deadline_ns);
}

KEY_FORMAT(fmt_deadline)
{
	return jl_format_duration(jl_behaviour_deadline_ns(v->beh), buf, len);
}

KEY_PARSE(beh_overrun)
{
	(void)key;
	if (!strcmp(value, "skip"))
		v->beh->overrun = JL_OVERRUN_SKIP;
	else if (!strcmp(value, "catchup"))
		v->beh->overrun = JL_OVERRUN_CATCHUP;
	else {
		snprintf(why, wl, "'%s' is not an overrun mode (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_overrun)
{
	(void)buf, (void)len;
	return v->beh->overrun == JL_OVERRUN_SKIP ? "skip" : "catchup";
}

KEY_PARSE(beh_start)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->beh->start_ns, why, wl);
}

KEY_FORMAT(fmt_start)
{
	return jl_format_duration(v->beh->start_ns, buf, len);
}

KEY_PARSE(beh_measure)
{
	bool b;

	(void)d, (void)key;
	if (!strcmp(value, "probe")) {
		v->beh->measure = JL_MEASURE_PROBE;
		return 0;
	}
	if (!strcmp(value, "wakeups")) {
		v->beh->measure = JL_MEASURE_WAKEUPS;
		return 0;
	}
	if (jl_parse_bool(value, &b, why, wl)) {
		size_t n = strlen(why);

		/* "... is not a boolean (expected yes, no, ...)": and probe */
		if (n && why[n - 1] == ')')
			snprintf(why + n - 1, wl - (n - 1), "; or probe: an exec'd program marks its cycles; or wakeups: its "
				 "threads from the trace)");
		return -1;
	}
	v->beh->measure = b;
	return 0;
}

KEY_FORMAT(fmt_measure)
{
	(void)buf, (void)len;
	if (v->beh->measure == JL_MEASURE_PROBE)
		return "probe";
	if (v->beh->measure == JL_MEASURE_WAKEUPS)
		return "wakeups";
	return jl_behaviour_measured(v->beh) ? "yes" : "no";
}

/* measure: a built-in thread's, or an exec's that is probed */
KEY_APPLIES(measure_applies)
{
	return !v->beh->exec[0] || JL_MEASURE_FROM_TRACE(v->beh->measure);
}

/* threads = PATTERN: which threads of an exec'd program measure = wakeups measures. A glob on the thread
 * names (fnmatch), tid:N, new:N (the Nth task the program's process tree created, from 1), or kthread:GLOB
 * (kernel threads born during the run whose names match: those the program has the kernel start, such as
 * rtla timerlat's timerlat/N; kthreadd is their parent, not the program). */
KEY_PARSE(beh_threads)
{
	(void)d, (void)key;
	if (!strcmp(value, "all")) {
		v->beh->threads[0] = '\0';
		return 0;
	}
	if (strlen(value) >= sizeof(v->beh->threads) || !*value) {
		snprintf(why, wl, "'%.40s' is not a thread pattern (expected all, a glob on thread names, tid:N, new:N or "
			 "kthread:GLOB; at most %zu characters)", value, sizeof(v->beh->threads) - 1);
		return -1;
	}
	if (!strncmp(value, "tid:", 4) || !strncmp(value, "new:", 4)) {
		char *end;
		long n = strtol(value + 4, &end, 10);

		if (*end || end == value + 4 || n < 1) {
			snprintf(why, wl, "'%s' is not a thread pattern (expected %.4sN, N a positive integer)", value, value);
			return -1;
		}
	}
	if (!strcmp(value, "kthread:")) {
		snprintf(why, wl, "'%s' names no kernel thread (expected kthread:GLOB, e.g. kthread:timerlat/*)", value);
		return -1;
	}
	snprintf(v->beh->threads, sizeof(v->beh->threads), "%s", value);
	return 0;
}

KEY_FORMAT(fmt_threads)
{
	(void)buf, (void)len;
	return v->beh->threads[0] ? v->beh->threads : "all";
}

KEY_APPLIES(threads_applies)
{
	return v->beh->measure == JL_MEASURE_WAKEUPS;
}

/* attach = SELECTORS: threads already running, measured from the trace (jitterlab watch writes one): a comma
 * list of pid:N (the process, its threads and the tasks they create), tid:N, comm:GLOB (thread names, also
 * tasks that appear or are renamed later) and rt (every user-space SCHED_FIFO, RR or DEADLINE thread). */
KEY_PARSE(beh_attach)
{
	char buf[sizeof(v->beh->attach)], *save = NULL, *tok;
	int count = 0;

	(void)d, (void)key;
	if (strlen(value) >= sizeof(buf) || !*value) {
		snprintf(why, wl, "'%.40s' is not a selection (expected %s; at most %zu characters)", value, d->range,
			 sizeof(buf) - 1);
		return -1;
	}
	for (const char *c = value; *c; c++)
		if ((unsigned char)*c < 0x20 || *c == 0x7f) {
			snprintf(why, wl, "a selection holds no control character (expected %s)", d->range);
			return -1;
		}
	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ", ", &save); tok; tok = strtok_r(NULL, ", ", &save)) {
		char *end = NULL;
		long n = 0;

		if (++count > 16 || (!strncmp(tok, "comm:", 5) && strlen(tok + 5) > 63)) {
			snprintf(why, wl, "'%.40s': at most 16 selectors, a glob of at most 63 characters", tok);
			return -1;
		}

		if (!strncmp(tok, "pid:", 4) || !strncmp(tok, "tid:", 4))
			n = strtol(tok + 4, &end, 10);
		if (((!strncmp(tok, "pid:", 4) || !strncmp(tok, "tid:", 4)) && (*end || end == tok + 4 || n < 1 || n > 0x3fffffff)) ||
		    (!strncmp(tok, "comm:", 5) && !tok[5]) ||
		    (strncmp(tok, "pid:", 4) && strncmp(tok, "tid:", 4) && strncmp(tok, "comm:", 5) && strcmp(tok, "rt"))) {
			snprintf(why, wl, "'%s' is not a selector (expected %s)", tok, d->range);
			return -1;
		}
	}
	snprintf(v->beh->attach, sizeof(v->beh->attach), "%s", value);
	return 0;
}

KEY_FORMAT(fmt_attach)
{
	(void)buf, (void)len;
	return v->beh->attach[0] ? v->beh->attach : "none";
}

KEY_APPLIES(is_attach)
{
	return v->beh && v->beh->attach[0];
}

KEY_PARSE(beh_exec)
{
	(void)d, (void)key;
	if (!*value || strlen(value) >= sizeof(v->beh->exec)) {
		snprintf(why, wl, "exec needs a command line (at most %zu characters)", sizeof(v->beh->exec) - 1);
		return -1;
	}
	snprintf(v->beh->exec, sizeof(v->beh->exec), "%s", value);
	return 0;
}

KEY_FORMAT(fmt_exec)
{
	(void)buf, (void)len;
	return v->beh->exec[0] ? v->beh->exec : NULL;
}

static const struct jl_key_desc behaviour_keys[] = {
	{ .name = "period", .slot = JL_THREAD_KEY_PERIOD, .syntax = "DURATION", .def_doc = "none: back to back",
	  .range = period_range,
	  .help = "periodic: released every period at absolute times (CLOCK_MONOTONIC); without period or rate the "
		  "thread repeats its work back to back",
	  .parse = beh_period, .format = fmt_period, .applies = is_periodic },
	{ .name = "rate", .slot = JL_THREAD_KEY_RATE, .syntax = "RATE", .def_doc = "none: back to back", .range = period_range,
	  .help = "another way to write a period (period = 1/rate, rounded to ns; written back as period)",
	  .parse = beh_rate },
	{ .name = "work", .slot = JL_THREAD_KEY_WORK, .syntax = "WORK", .def = "none",
	  .range = "a work kind and its argument (jitterlab list: work kinds)", .help = "what one cycle does",
	  .parse = beh_work, .format = fmt_work, .applies = is_builtin },
	{ .name = "deadline", .slot = JL_THREAD_KEY_DEADLINE, .syntax = "DURATION", .def_doc = "the period",
	  .range = "greater than 0, at most 1000 periods",
	  .help = "a cycle whose work ends later than release + deadline is a miss", .parse = beh_deadline,
	  .format = fmt_deadline, .applies = deadline_applies },
	{ .name = "overrun", .slot = JL_THREAD_KEY_OVERRUN, .syntax = "skip|catchup", .def = "skip", .range = "skip or catchup",
	  .help = "when a cycle ends after the next release: skip the missed releases (counted as skipped) or catch up",
	  .parse = beh_overrun, .format = fmt_overrun, .applies = is_periodic },
	{ .name = "start", .slot = JL_THREAD_KEY_START, .syntax = "DURATION", .def = "0s",
	  .range = "a duration before the end of the run",
	  .help = "delay after the measured phase begins before this thread starts", .parse = beh_start,
	  .format = fmt_start },
	{ .name = "measure", .slot = JL_THREAD_KEY_MEASURE, .syntax = "BOOL|probe|wakeups", .def_doc = "yes if periodic",
	  .range = "yes or no (yes needs a period; not for exec); for exec, needing trace = sched: probe (the "
		   "program marks its cycles with the probe) or wakeups (its threads from the trace alone)",
	  .help = "record per-cycle samples for this thread (probe, wakeups: for the threads of an exec'd program)",
	  .parse = beh_measure, .format = fmt_measure, .applies = measure_applies },
	{ .name = "threads", .slot = JL_THREAD_KEY_THREADS, .syntax = "all|PATTERN", .def = "all",
	  .range = "all, a glob on thread names, tid:N, new:N (the Nth task the program created) or kthread:GLOB "
		   "(kernel threads born during the run, e.g. kthread:timerlat/*)",
	  .help = "measure = wakeups: the threads of the exec'd process tree to measure (followed through fork, "
		  "exec and rename), or the kernel threads it has the kernel start",
	  .parse = beh_threads, .format = fmt_threads, .applies = threads_applies },
	{ .name = "exec", .slot = JL_THREAD_KEY_EXEC, .syntax = "COMMAND", .def_doc = "none: a built-in thread",
	  .range = "a command line of at most 1023 characters",
	  .help = "run this command (argv split like a shell, no shell) as a child with this placement instead of a "
		  "built-in thread",
	  .parse = beh_exec, .format = fmt_exec, .applies = is_exec },
	{ .name = "attach", .slot = JL_THREAD_KEY_ATTACH, .syntax = "SELECTORS", .def_doc = "none: a thread jitterlab starts",
	  .range = "a comma list of pid:N, tid:N, comm:GLOB and rt",
	  .help = "measure threads already running, from the trace alone (nothing started, nothing changed): the "
		  "process pid:N and the tasks it creates, tid:N, threads named comm:GLOB, every user-space RT thread "
		  "(rt); jitterlab watch writes one",
	  .parse = beh_attach, .format = fmt_attach, .applies = is_attach },
	{ .name = "lock", .slot = JL_THREAD_KEY_LOCK, .syntax = "NAME|none", .def_doc = "none", .range = "the name of a [lock] section, or none",
	  .help = "held while each work call runs (taken before, given back after; its wait is part of the cycle)",
	  .parse = beh_lock, .format = fmt_lock, .applies = is_builtin },
};

const struct jl_key_table jl_keys_behaviour = { "behaviour", behaviour_keys,
						(int)(sizeof(behaviour_keys) / sizeof(behaviour_keys[0])) };
