/* trace_fixture: recorded traces as unit fixtures. A reader for `trace-cmd report -t` lines (the events the
 * analysis uses: sched, irq, irq_vectors' local timer, timer), and the fixture files beside this header
 * (tests/unit/fixtures/; each file's first lines say how it was recorded and what it shows). */
#ifndef JL_TEST_TRACE_FIXTURE_H
#define JL_TEST_TRACE_FIXTURE_H

#include <libgen.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt/trace/analysis/event.h"

/* hrtimer_start's mode as trace-cmd prints it: "mode=0x1" (report -N) or "mode=REL|SOFT" (its plugin);
 * JL_HRTIMER_MODE_* bits, 0 (absolute) when absent. */
static inline int hrtimer_mode(const char *m)
{
	unsigned v = 0;

	if (!m)
		return 0;
	m += 5;
	if (sscanf(m, "0x%x", &v) == 1)
		return (int)v;
	return (strstr(m, "REL") ? JL_HRTIMER_MODE_REL : 0) | (strstr(m, "PINNED") ? 0x02 : 0) |
	       (strstr(m, "SOFT") ? JL_HRTIMER_MODE_SOFT : 0) | (strstr(m, "HARD") ? 0x08 : 0);
}

static inline int prio_state(const char *s)
{
	int st = 0;

	for (; *s; s++)
		switch (*s) {
		case 'S': st |= 0x1; break;
		case 'D': st |= 0x2; break;
		case 'T': st |= 0x4; break;
		case '+': st |= 0x100; break;
		default: break;
		}
	return st;
}

/* "comm:pid [prio]" -> pid, prio, comm (comm may hold ':'). */
static inline void task_field(const char *s, char *comm, int *pid, int *prio)
{
	const char *br = strchr(s, '[');
	const char *colon = s;

	for (const char *p = s; p < br; p++)
		if (*p == ':')
			colon = p;
	snprintf(comm, JL_EVENT_COMM, "%.*s", (int)(colon - s), s);
	*pid = atoi(colon + 1);
	*prio = atoi(br + 1);
}

static inline bool parse_line(const char *line, struct jl_event *e)
{
	char who[128], event[64], rest[512];
	const char *dash;
	int cpu;
	double ts;

	memset(e, 0, sizeof(*e));
	if (line[0] == '#' || sscanf(line, " %127s [%d] %lf: %63[^:]: %511[^\n]", who, &cpu, &ts, event, rest) < 4)
		return false;
	dash = strrchr(who, '-');
	e->cpu = cpu;
	e->ts = (int64_t)(ts * 1e9 + 0.5);
	e->has_cur = true;
	e->cur = dash ? atoi(dash + 1) : 0;
	if (!strcmp(event, "sched_switch")) {
		char a[200], b[200], st[16];
		char *arrow = strstr(rest, " ==> ");

		if (!arrow)
			return false;
		snprintf(a, sizeof(a), "%.*s", (int)(arrow - rest), rest);
		snprintf(b, sizeof(b), "%s", arrow + 5);
		e->kind = JL_EVENT_SWITCH;
		task_field(a, e->prev_comm, &e->prev_pid, &e->prev_prio);
		sscanf(strchr(a, ']') + 1, " %15s", st);
		e->prev_state = prio_state(st);
		task_field(b, e->comm, &e->pid, &e->prio);
	} else if (!strcmp(event, "sched_waking")) {
		e->kind = JL_EVENT_WAKING;
		sscanf(rest, "comm=%23s pid=%d prio=%d target_cpu=%d", e->comm, &e->pid, &e->prio, &e->target_cpu);
	} else if (!strcmp(event, "hrtimer_expire_entry")) {
		const char *f = strstr(rest, "function=");
		unsigned long long ptr = 0;
		long long now = 0;

		e->kind = JL_EVENT_TIMER_ENTRY;
		sscanf(f + 9, "%23[^/ ]", e->comm);
		sscanf(rest, "hrtimer=%llx now=%lld", &ptr, &now);
		e->arg = ptr;
		e->expires = now;
	} else if (!strcmp(event, "hrtimer_start")) {
		const char *f = strstr(rest, "function="), *x = strstr(rest, "expires=");
		unsigned long long ptr = 0;
		long long hard = 0, soft = 0;

		e->kind = JL_EVENT_TIMER_START;
		sscanf(f + 9, "%23[^/ ]", e->comm);
		sscanf(rest, "hrtimer=%llx", &ptr);
		if (x)
			sscanf(x, "expires=%lld softexpires=%lld", &hard, &soft);
		e->arg = ptr;
		e->expires = hard;
		e->softexpires = soft;
		e->prev_state = hrtimer_mode(strstr(rest, "mode="));
	} else if (!strcmp(event, "hrtimer_expire_exit")) {
		e->kind = JL_EVENT_TIMER_EXIT;
	} else if (!strcmp(event, "irq_handler_entry")) {
		e->kind = JL_EVENT_IRQ_ENTRY;
		sscanf(rest, "irq=%d name=%23s", &e->pid, e->comm);
	} else if (!strcmp(event, "irq_handler_exit")) {
		e->kind = JL_EVENT_IRQ_EXIT;
		sscanf(rest, "irq=%d", &e->pid);
	} else if (!strcmp(event, "local_timer_entry") || !strcmp(event, "local_timer_exit")) {
		e->kind = event[12] == 'e' && event[13] == 'n' ? JL_EVENT_IRQ_ENTRY : JL_EVENT_IRQ_EXIT;
		e->pid = JL_EVENT_IRQ_LOCAL_TIMER;
		snprintf(e->comm, sizeof(e->comm), "LOC local timer");
	} else if (!strcmp(event, "softirq_raise")) {
		e->kind = JL_EVENT_SOFTIRQ_RAISE;
		sscanf(rest, "vec=%d", &e->pid);
	} else if (!strcmp(event, "softirq_entry")) {
		e->kind = JL_EVENT_SOFTIRQ_ENTRY;
		sscanf(rest, "vec=%d", &e->pid);
	} else if (!strcmp(event, "softirq_exit")) {
		e->kind = JL_EVENT_SOFTIRQ_EXIT;
		sscanf(rest, "vec=%d", &e->pid);
	} else {
		e->kind = JL_EVENT_OTHER;
	}
	return true;
}

/* The fixture NAME beside this file (or beside the test binary's source tree). */
static inline size_t load_fixture(const char *name, struct jl_event *ev, size_t max)
{
	char path[PATH_MAX], src[PATH_MAX], line[1024];
	FILE *f;
	size_t n = 0;

	snprintf(src, sizeof(src), "%s", __FILE__);
	snprintf(path, sizeof(path), "%s/fixtures/%s", dirname(src), name);
	f = fopen(path, "r");
	if (!f) {
		char exe[PATH_MAX];
		ssize_t k = readlink("/proc/self/exe", exe, sizeof(exe) - 1);

		exe[k > 0 ? k : 0] = '\0'; /* BUILD/tests/test_x -> BUILD/../tests/unit/fixtures */
		snprintf(path, sizeof(path), "%s/../../tests/unit/fixtures/%s", dirname(exe), name);
		f = fopen(path, "r");
	}
	assert_non_null(f);
	while (n < max && fgets(line, sizeof(line), f))
		if (parse_line(line, &ev[n]))
			n++;
	fclose(f);
	return n;
}

#endif
