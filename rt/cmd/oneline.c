/* oneline: see oneline.h. The scenario's text holds only what this file formats itself (names T0.., load0..,
 * numbers, CPU lists it parsed and wrote back, a policy from the list); a load's command goes in through
 * jl_scenario_set, as --set would put it, never pasted into the text. */
#include "oneline.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../affinity/cpulist.h"
#include "../base/units.h"

#define DEFAULT_INTERVAL_US 1000 /* cyclictest's */
#define DEFAULT_DISTANCE_US 500

static bool all_digits(const char *s)
{
	if (!s || !*s)
		return false;
	for (; *s; s++)
		if (!isdigit((unsigned char)*s))
			return false;
	return true;
}

bool jl_oneline_is_distance(const char *value)
{
	return all_digits(value);
}

const char *jl_oneline_duration(const char *value, char *buf, size_t len)
{
	size_t n = strlen(value);
	int64_t ns;
	char why[128];

	if (all_digits(value)) {
		snprintf(buf, len, "%ss", value);
		return buf;
	}
	if (n > 1 && value[n - 1] == 'd') { /* days: cyclictest's, not the scenario's */
		char days[32];

		snprintf(days, sizeof(days), "%.*s", (int)(n - 1), value);
		if (!all_digits(days) || n - 1 > 6)
			return NULL;
		snprintf(buf, len, "%lldh", strtoll(days, NULL, 10) * 24);
		return buf;
	}
	if (jl_parse_duration(value, &ns, why, sizeof(why)) || ns <= 0)
		return NULL;
	snprintf(buf, len, "%s", value);
	return buf;
}

/* OPT's value V in ns: a bare number is microseconds (cyclictest's), else a duration with its unit. */
static int us_value(const char *opt, const char *v, int64_t min_ns, int64_t *ns, char *err, size_t errlen)
{
	char why[128];

	if (all_digits(v) && strlen(v) < 12)
		*ns = strtoll(v, NULL, 10) * 1000;
	else if (jl_parse_duration(v, ns, why, sizeof(why)))
		*ns = -1;
	if (*ns < min_ns) {
		snprintf(err, errlen, "%s %s: expected microseconds (a number, as cyclictest takes it) or a duration with "
			 "its unit, at least %lld us", opt, v, (long long)(min_ns / 1000));
		return -1;
	}
	return 0;
}

/* The policy and priority of the loops: --policy (normal is other), fifo when only -p is given. */
static int policy_of(const struct jl_oneline *o, char *policy, size_t len, char *err, size_t errlen)
{
	static const char *const names[] = { "other", "normal", "batch", "idle", "fifo", "rr" };
	const char *p = o->policy ? o->policy : o->priority > 0 ? "fifo" : "other";
	bool known = false, rt;

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		known |= !strcmp(p, names[i]);
	if (!known) {
		snprintf(err, errlen, "--policy %s: expected other, normal, batch, idle, fifo or rr (cyclictest's names)", p);
		return -1;
	}
	snprintf(policy, len, "%s", strcmp(p, "normal") ? p : "other");
	rt = !strcmp(policy, "fifo") || !strcmp(policy, "rr");
	if (rt && o->priority <= 0) {
		snprintf(err, errlen, "--policy %s needs -p PRIO (1-99)", policy);
		return -1;
	}
	if (!rt && o->priority > 0) {
		snprintf(err, errlen, "-p %d with --policy %s: a priority is for fifo or rr (leave --policy out: -p "
			 "alone means fifo, as in cyclictest)", o->priority, policy);
		return -1;
	}
	return 0;
}

/* How many loops, and the CPU each is pinned to (-1: not pinned) into CPU[]. */
static int placement(const struct jl_oneline *o, int *nthreads, int *cpu, char *err, size_t errlen)
{
	cpu_set_t online, set;
	int on[CPU_SETSIZE], non = 0, pin[CPU_SETSIZE], npin = 0;
	const char *aff = o->smp ? "" : o->affinity;
	char why[256];

	if (jl_cpulist_online(&online)) {
		snprintf(err, errlen, "cannot read the online CPUs");
		return -1;
	}
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &online))
			on[non++] = c;
	*nthreads = 1;
	if (o->smp || (o->threads && !*o->threads)) {
		*nthreads = non;
	} else if (o->threads) {
		if (!all_digits(o->threads) || atoi(o->threads) < 1 || atoi(o->threads) > JL_MAX_THREADS - JL_ONELINE_LOADS) {
			snprintf(err, errlen, "-t %s: expected a number of threads from 1 to %d (or -t alone: one per CPU)",
				 o->threads, JL_MAX_THREADS - JL_ONELINE_LOADS);
			return -1;
		}
		*nthreads = atoi(o->threads);
	}
	if (aff && *aff) {
		if (jl_cpulist_parse(aff, &set, why, sizeof(why))) {
			snprintf(err, errlen, "-a %s: %s", aff, why);
			return -1;
		}
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &set)) {
				if (!CPU_ISSET(c, &online)) {
					snprintf(err, errlen, "-a %s: CPU %d is not online", aff, c);
					return -1;
				}
				pin[npin++] = c;
			}
	} else if (aff) { /* -a alone: thread N on CPU N, as cyclictest does (round robin past the last) */
		memcpy(pin, on, sizeof(int) * (size_t)non);
		npin = non;
	}
	for (int i = 0; i < *nthreads; i++)
		cpu[i] = npin ? pin[i % npin] : -1;
	return 0;
}

/* Append to BUF (of LEN, *OFF used). */
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void put(char *buf, size_t len, size_t *off, const char *fmt, ...)
{
	va_list ap;

	if (*off >= len)
		return;
	va_start(ap, fmt);
	*off += (size_t)vsnprintf(buf + *off, len - *off, fmt, ap);
	va_end(ap);
}

int jl_oneline_scenario(const struct jl_oneline *o, const char *const *sets, int nsets, struct jl_scenario *sc,
			char *err, size_t errlen)
{
	int64_t interval = DEFAULT_INTERVAL_US * 1000LL, distance = DEFAULT_DISTANCE_US * 1000LL, longest;
	int n, cpu[JL_MAX_THREADS];
	char policy[16], text[32768], set[JL_INI_LINE_MAX + 32], list[256], dur[64];
	size_t off = 0;
	cpu_set_t lc;

	if ((o->interval && us_value("-i", o->interval, 10000, &interval, err, errlen)) ||
	    (o->distance && us_value("-d", o->distance, 0, &distance, err, errlen)) ||
	    policy_of(o, policy, sizeof(policy), err, errlen) || placement(o, &n, cpu, err, errlen))
		return -1;
	if (o->priority < 0 || o->priority > 99) {
		snprintf(err, errlen, "-p %d: expected a priority from 1 to 99", o->priority);
		return -1;
	}
	put(text, sizeof(text), &off, "[run]\nname = %s\n", JL_ONELINE_NAME);
	for (int i = 0; i < n; i++) {
		put(text, sizeof(text), &off, "\n[thread t%d]\npolicy = %s\n", i, policy);
		if (o->priority > 0)
			put(text, sizeof(text), &off, "priority = %d\n", o->priority);
		if (cpu[i] >= 0)
			put(text, sizeof(text), &off, "cpus = %d\n", cpu[i]);
		put(text, sizeof(text), &off, "period = %lldns\nwork = none\n", (long long)(interval + i * distance));
	}
	if (o->load_cpus && jl_cpulist_parse(o->load_cpus, &lc, list, sizeof(list))) {
		snprintf(err, errlen, "--load-cpus %s: %s", o->load_cpus, list);
		return -1;
	}
	for (int i = 0; i < o->nloads; i++) {
		put(text, sizeof(text), &off, "\n[thread load%d]\npolicy = other\nexec = /bin/true\n", i);
		if (o->load_cpus)
			put(text, sizeof(text), &off, "cpus = %s\n", jl_cpulist_format(&lc, list, sizeof(list)));
	}
	if (off >= sizeof(text)) {
		snprintf(err, errlen, "too many threads for one scenario");
		return -1;
	}
	if (jl_scenario_parse_string(JL_ONELINE_PATH, text, sc, err, errlen))
		return -1;
	for (int i = 0; i < o->nloads; i++) { /* the command as --set puts one: never pasted into the text */
		char why[JL_ERR_MAX];

		snprintf(set, sizeof(set), "load%d.exec=%s", i, o->loads[i]);
		if (jl_scenario_set(sc, set, why, sizeof(why))) { /* said as the user typed it, not as the --set */
			const char *reason = strstr(why, "key 'exec': ");

			snprintf(err, errlen, "--load %s: %s", o->loads[i], reason ? reason + strlen("key 'exec': ") : why);
			return -1;
		}
	}
	if (o->loops) {
		if (!all_digits(o->loops) || strlen(o->loops) > 12 || !strtoll(o->loops, NULL, 10)) {
			snprintf(err, errlen, "-l %s: expected a number of loops, 1 or more", o->loops);
			return -1;
		}
		longest = interval + (n - 1) * distance;
		snprintf(set, sizeof(set), "run.duration=%s",
			 jl_format_duration(strtoll(o->loops, NULL, 10) * longest, dur, sizeof(dur)));
		if (jl_scenario_set(sc, set, err, errlen))
			return -1;
	}
	for (int i = 0; i < nsets; i++)
		if (jl_scenario_set(sc, sets[i], err, errlen))
			return -1;
	return jl_scenario_validate(sc, err, errlen);
}
