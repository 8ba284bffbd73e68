/* parts: the parts a late cycle is made of (struct jl_part) and what every explanation is built
 * from: the CPUs' segments at a time, adding a part, finishing a cycle's parts (order, names of kernel
 * threads), lost events, the culprit, and the one-line form. Pure: reads the analysis. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "analysis.h"
#include "parts.h"


void jl_cycle_add_part(struct jl_cycle *c, int kind, const char *name, int pid, int kprio, int64_t d,
		       const char *detail)
{
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *p = &c->parts[i];

		if ((int)p->kind == kind && p->pid == pid && !strcmp(p->name, name) &&
		    !strcmp(p->detail, detail ? detail : "")) {
			p->duration_ns += d;
			return;
		}
	}
	if (c->nparts == JL_MAX_PARTS) {
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, d, NULL);
		return;
	}
	if (c->nparts == JL_MAX_PARTS - 1 && !(kind == JL_PART_OTHER && !strcmp(name, "others"))) {
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, 0, NULL);
		jl_cycle_add_part(c, JL_PART_OTHER, "others", -1, 0, d, NULL);
		return;
	}
	memset(&c->parts[c->nparts], 0, sizeof(c->parts[c->nparts]));
	c->parts[c->nparts].kind = kind;
	snprintf(c->parts[c->nparts].name, sizeof(c->parts[c->nparts].name), "%s", name);
	snprintf(c->parts[c->nparts].detail, sizeof(c->parts[c->nparts].detail), "%s", detail ? detail : "");
	c->parts[c->nparts].pid = pid;
	c->parts[c->nparts].kprio = kprio;
	c->parts[c->nparts].duration_ns = d;
	c->nparts++;
}

/* ---- the part kinds: one row each ---- */

const struct jl_part_kind_info jl_part_kinds[JL_PART_N] = {
	[JL_PART_TIMER] = { .name = "timer", .rank = 0,
			    .help = "the timer: its slack, an interrupt that came late, the handler, the timer softirq" },
	[JL_PART_IDLE_EXIT] = { .name = "idle-exit", .rank = 0, .help = "the CPU leaving an idle state to take the wakeup" },
	[JL_PART_RUNNING] = { .name = "running", .rank = 0, .help = "the thread ran its own work (a response window)" },
	[JL_PART_EXECUTOR] = { .name = "executor", .rank = 0,
			       .help = "a callback was ready while its executor's thread ran another callback (which: the "
				       "name)" },
	[JL_PART_POOL] = { .name = "pool", .rank = 0,
			   .help = "a request of a probed server was ready while every worker of its program served "
				   "another (which: the name; the calls they were inside: the detail)" },
	[JL_PART_THROTTLE] = { .name = "throttle", .rank = 1, .culprit = true,
			       .help = "RT bandwidth control kept the RT task off: RT throttling, or the fair server "
				       "running CFS" },
	[JL_PART_TASK] = { .name = "task", .rank = 1, .culprit = true,
			   .help = "a task held the CPU: higher or equal priority, or any task for a CFS loop" },
	[JL_PART_BLOCKED] = { .name = "blocked", .rank = 1,
			      .help = "asleep inside its work (a response window): on what, and who ended the sleep" },
	[JL_PART_UNPREEMPTED] = { .name = "unpreempted", .rank = 1, .culprit = true,
				  .help = "a lower task kept running: a non-preemptible section, or the host took the "
					  "vCPU" },
	[JL_PART_IRQ] = { .name = "irq", .rank = 2, .interrupt = true, .word = "irq ",
			  .help = "a hardware interrupt's handler on that CPU" },
	[JL_PART_IPI] = { .name = "ipi", .rank = 2, .interrupt = true, .word = "",
			  .help = "an inter-processor interrupt's handler: a reschedule or a function call another CPU "
				  "sent (x86)" },
	[JL_PART_SOFTIRQ] = { .name = "softirq", .rank = 3, .interrupt = true, .word = "softirq ",
			      .help = "a softirq on that CPU (its vector: the name)" },
	[JL_PART_LOST] = { .name = "lost", .rank = 4, .help = "the window overlaps events the trace lost: not explained" },
	[JL_PART_OTHER] = { .name = "other", .rank = 4,
			    .help = "the rest: switch from idle, return, preempting NAME, what no event explains (the name "
				    "says)" },
};
const int jl_npart_kinds = JL_PART_N;

const char *jl_part_kind_name(enum jl_part_kind k)
{
	return (unsigned)k < JL_PART_N && jl_part_kinds[k].name ? jl_part_kinds[k].name : "other";
}

static int cmp_part(const void *pa, const void *pb)
{
	const struct jl_part *a = pa, *b = pb;
	const int ra = jl_part_kinds[a->kind].rank, rb = jl_part_kinds[b->kind].rank;

	if (ra != rb)
		return ra - rb;
	if (a->kind == JL_PART_OTHER && !strcmp(a->name, "return"))
		return 1;
	if (b->kind == JL_PART_OTHER && !strcmp(b->name, "return"))
		return -1;
	return a->duration_ns < b->duration_ns ? 1 : a->duration_ns > b->duration_ns ? -1 : 0;
}


/* A PREEMPT_RT kernel thread's task name NAME as an RT engineer says it, into OUT: a threaded IRQ
 * handler ("irq/25-virtio0-", cut at 15 characters) as "the handler thread irq/25 of IRQ 25
 * virtio0-requests", the IRQ's full name from the trace or /proc/irq; the timer softirq's, softirq and RCU
 * callback threads with what they run. False for any other task. */
static bool rt_kthread_name(const struct jl_analysis *an, const char *name, char *out, size_t len)
{
	static const struct { const char *prefix, *what; } kthreads[] = {
		{ "ktimers/", "the timer softirq's thread" },
		{ "ksoftirqd/", "the softirq thread" },
		{ "rcuc/", "the RCU callback thread" },
	};
	int n, end = 0;

	if (sscanf(name, "irq/%d-%n", &n, &end) == 1 && end > 0 && n >= 0) {
		const char *full = n < JL_ANALYSIS_IRQS && an->irq_name[n] ? jl_analysis_name(an, an->irq_name[n]) : name + end;

		snprintf(out, len, "the handler thread irq/%d of IRQ %d %s", n, n, full);
		return true;
	}
	for (size_t k = 0; k < sizeof(kthreads) / sizeof(kthreads[0]); k++)
		if (!strncmp(name, kthreads[k].prefix, strlen(kthreads[k].prefix))) {
			snprintf(out, len, "%s, %s", name, kthreads[k].what);
			return true;
		}
	return false;
}

/* Name the tasks of C's parts as the run knows them (thread names, policies) and order the parts. */
void jl_analysis_finish_parts(const struct jl_analysis *an, struct jl_cycle *c)
{
	for (int i = 0; i < c->nparts; i++) {
		struct jl_part *pt = &c->parts[i];
		char kname[sizeof(pt->name)];
		int ti;

		if (pt->pid <= 0 || (pt->kind != JL_PART_TASK && pt->kind != JL_PART_OTHER && pt->kind != JL_PART_UNPREEMPTED))
			continue;
		if (pt->kind == JL_PART_TASK && rt_kthread_name(an, pt->name, kname, sizeof(kname)))
			memcpy(pt->name, kname, sizeof(pt->name));
		ti = jl_analysis_thread_of(an, pt->pid);
		if (ti >= 0 && an->threads[ti].name[0] && pt->kind != JL_PART_UNPREEMPTED)
			snprintf(pt->name, sizeof(pt->name), "%s%s", pt->kind == JL_PART_OTHER ? "preempting " : "",
				 an->threads[ti].name);
		if (ti >= 0 && an->threads[ti].policy[0])
			snprintf(pt->policy, sizeof(pt->policy), "%s", an->threads[ti].policy);
		else
			jl_kprio_format(pt->kprio, pt->policy, sizeof(pt->policy));
	}
	qsort(c->parts, c->nparts, sizeof(c->parts[0]), cmp_part);
}

int jl_cycle_culprit(const struct jl_cycle *c)
{
	int best = -1;

	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];
		bool can = jl_part_kinds[p->kind].culprit && (p->kind != JL_PART_TASK || p->pid > 0);

		if (can && (best < 0 || p->duration_ns > c->parts[best].duration_ns))
			best = i;
	}
	return best;
}

/* The priority as a user sets it: rt_priority for RT tasks, nice for CFS, -1 for DEADLINE. */
int jl_kprio_user(int kprio)
{
	if (kprio < 0)
		return -1;
	if (kprio < 99)
		return 99 - kprio;
	if (kprio >= 100 && kprio < 140)
		return kprio - 120;
	return kprio;
}

void jl_kprio_format(int kprio, char *buf, size_t len)
{
	if (kprio < 0)
		snprintf(buf, len, "DEADLINE");
	else if (kprio < 99)
		snprintf(buf, len, "RT %d", 99 - kprio);
	else if (kprio >= 100 && kprio < 140)
		snprintf(buf, len, "CFS nice %d", kprio - 120);
	else
		snprintf(buf, len, "prio %d", kprio);
}

static long long us(int64_t ns)
{
	return (long long)((ns + (ns >= 0 ? 500 : -500)) / 1000);
}

void jl_cycle_format(const struct jl_cycle *c, const char *thread, char *buf, size_t len)
{
	size_t o = 0;
	bool first = true, waited = false;

#define APPEND(...)                                                          \
	do {                                                                 \
		if (o < len)                                                 \
			o += snprintf(buf + o, len - o, __VA_ARGS__);        \
	} while (0)
	if (c->window == JL_WINDOW_RESPONSE)
		APPEND("%s cycle %llu missed its deadline: response %lld us =", thread, (unsigned long long)c->cycle,
		       us(c->end - c->release));
	else
		APPEND("%s %s %llu: %lld us =", thread, c->release > 0 ? "cycle" : "wakeup", (unsigned long long)c->cycle,
		       us(c->latency_ns));
	for (int i = 0; i < c->nparts; i++) {
		const struct jl_part *p = &c->parts[i];

		/* under half a microsecond says nothing in a line (it is in the JSON); keep the fixed parts */
		if (p->duration_ns < 500 && !(p->kind == JL_PART_TIMER && !strcmp(p->name, "timer")) &&
		    p->kind != JL_PART_IDLE_EXIT && p->kind != JL_PART_LOST && strcmp(p->name, "return"))
			continue;
		APPEND("%s", first ? " " : " + ");
		first = false;
		switch (p->kind) {
		case JL_PART_TIMER:
		case JL_PART_IDLE_EXIT:
			APPEND("%s %lld us", p->name, us(p->duration_ns));
			break;
		case JL_PART_TASK:
			if (!waited)
				APPEND("waited %lld us behind %s (pid %d, %s)", us(p->duration_ns), p->name, p->pid,
				       p->policy);
			else
				APPEND("%s (pid %d, %s) %lld us", p->name, p->pid, p->policy, us(p->duration_ns));
			waited = true;
			break;
		case JL_PART_THROTTLE:
			APPEND("RT throttled %lld us (%s)", us(p->duration_ns), p->detail);
			break;
		case JL_PART_UNPREEMPTED:
			APPEND("%s %lld us while it was runnable (a non-preemptible section or the vCPU: the trace "
			       "cannot tell)", p->name, us(p->duration_ns));
			break;
		case JL_PART_LOST:
			APPEND("lost events %lld us", us(p->duration_ns));
			break;
		default: /* an interrupt kind says its word first: "irq 36 virtio1", "softirq TIMER" */
			APPEND("%s%s %lld us", jl_part_kinds[p->kind].interrupt ? jl_part_kinds[p->kind].word : "", p->name,
			       us(p->duration_ns));
			break;
		}
	}
	if (c->lost_in_window)
		APPEND(" [events were lost in this window: the explanation may be incomplete]");
#undef APPEND
}
