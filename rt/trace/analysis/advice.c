/* advice: one line of advice for an explained cycle, from the part that kept it longest and what
 * the run and the host say. A rule is a part kind, a condition on the part and on the
 * run, and the remedy; the rules are one table, tried in order, the first that applies speaks. Never a
 * guess and never what the run already does: a rule whose remedy the run follows says nothing, and a
 * culprit no rule knows gets no advice (rtla's auto-analysis names causes but gives no remedy; this is
 * the row it lacks). Pure: reads the cycle, the analysis' thread table and the facts it is given. */
#include <stdio.h>
#include <string.h>

#include "advice.h"
#include "analysis.h"
#include "parts.h"

struct ctx {
	const struct jl_analysis *an;
	const struct jl_cycle *c;
	const struct jl_part *p;           /* the culprit */
	const struct jl_trace_advice_in *in;
	bool loop_rt;                      /* the loop's policy is FIFO, RR or DEADLINE */
	int loop_prio;                     /* its RT priority (0 for CFS) */
};

/* The loop's policy from the analysis' thread table ("FIFO 70", "RR 10", "CFS nice 0", "DEADLINE"). */
static void loop_policy(struct ctx *x)
{
	const char *pol = x->an->threads[x->c->thread].policy;

	x->loop_rt = !strncmp(pol, "FIFO", 4) || !strncmp(pol, "RR", 2) || !strncmp(pol, "DEADLINE", 8);
	x->loop_prio = 0;
	if (x->loop_rt && sscanf(pol, "%*s %d", &x->loop_prio) != 1)
		x->loop_prio = 99; /* DEADLINE: above every RT priority */
}

static bool part_rt(const struct jl_part *p)
{
	return p->kprio < 100;
}

/* ---- the rules: APPLIES says whether the rule speaks, SAY writes the remedy ---- */

static bool irq_thread(const struct ctx *x)
{
	return x->p->kind == JL_PART_TASK && !strncmp(x->p->name, "the handler thread irq/", 23);
}

static int say_irq_thread(const struct ctx *x, char *out, size_t len)
{
	int irq = -1, prio = jl_kprio_user(x->p->kprio), o = 0;

	sscanf(x->p->name, "the handler thread irq/%d", &irq);
	if (x->loop_prio <= prio)
		o += snprintf(out + o, len - o, "raise the loop above the IRQ threads (priority = %d or more; they run at "
			      "FIFO %d)", prio + 1, prio);
	if (x->in->irq_steered != 1 && (size_t)o < len)
		o += snprintf(out + o, len - o, "%ssteer IRQ %d off CPU %d (isolate = %d with irq_affinity = housekeeping)",
			      o ? ", or " : "", irq, x->c->cpu, x->c->cpu);
	return o;
}

static bool higher_rt_task(const struct ctx *x)
{
	return x->p->kind == JL_PART_TASK && part_rt(x->p) && x->loop_rt && jl_kprio_user(x->p->kprio) >= x->loop_prio;
}

static int say_higher_rt_task(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "%s (%s) outranks the loop on CPU %d: move it to another CPU, or give the loop "
			"a higher priority than %d", x->p->name, x->p->policy, x->c->cpu, jl_kprio_user(x->p->kprio));
}

static bool cfs_loop_behind_cfs(const struct ctx *x)
{
	return x->p->kind == JL_PART_TASK && !x->loop_rt && !part_rt(x->p);
}

static int say_cfs_loop(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "the loop runs SCHED_OTHER and shares CPU %d fairly with %s: policy = fifo (with a "
			"priority) makes it preempt them", x->c->cpu, x->p->name);
}

static bool rt_budget(const struct ctx *x)
{
	return x->p->kind == JL_PART_THROTTLE && strcmp(x->p->name, "fair server");
}

/* The last RT task below the loop (kernel prio above SELF_KPRIO) that ran on CPU before TS: who spent the
 * budget, or NULL. */
static const struct jl_segment *last_rt_before(const struct jl_analysis *an, int cpu, int64_t ts, int32_t self,
					       int self_kprio)
{
	if (cpu < 0 || cpu >= an->ncpus)
		return NULL;
	for (size_t i = jl_analysis_seg_find(an, cpu, ts); i-- > 0;) {
		const struct jl_segment *s = &an->segs[cpu][i];

		if (s->kind == JL_PART_TASK && s->kprio < 100 && s->kprio > self_kprio && s->pid != self && s->pid > 0)
			return s;
	}
	return NULL;
}

static int say_rt_budget(const struct ctx *x, char *out, size_t len)
{
	const struct jl_segment *s = last_rt_before(x->an, x->c->cpu, x->c->waking, x->an->threads[x->c->thread].pid,
						    99 - x->loop_prio);
	char who[96];

	if (s)
		snprintf(who, sizeof(who), "%s (pid %d, RT %d)", jl_analysis_name(x->an, s->name), s->pid,
			 jl_kprio_user(s->kprio));
	else
		snprintf(who, sizeof(who), "a lower-priority RT task");
	return snprintf(out, len, "%s spent CPU %d's RT budget: move it off the loop's CPU, or make it block or yield "
			"(raising sched_rt_runtime_us, or -1, instead lets RT tasks starve ksoftirqd, kworkers and RCU on "
			"that CPU)", who, x->c->cpu);
}

static bool fair_server(const struct ctx *x)
{
	return x->p->kind == JL_PART_THROTTLE && !strcmp(x->p->name, "fair server");
}

static int say_fair_server(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "CFS tasks on CPU %d (%s) got the fair server's reserve while the loop was runnable: "
			"move them off the loop's CPU (isolate), or [run] fair_server = 0us (they may then starve)",
			x->c->cpu, x->p->pid > 0 ? x->p->name : "the CFS tasks");
}

static bool idle_exit(const struct ctx *x)
{
	return x->p->kind == JL_PART_IDLE_EXIT || (x->p->kind == JL_PART_OTHER && !strcmp(x->p->name, "switch from idle"));
}

static int say_idle_exit(const struct ctx *x, char *out, size_t len)
{
	if (x->in->vm)
		return snprintf(out, len, "on a VM the idle exit is the hypervisor's (the vCPU halted, the host wakes it): "
				"pin and isolate the vCPU on the host, or poll in the guest (cpuidle haltpoll, idle=poll)");
	if (x->in->dma_latency_us != 0)
		return snprintf(out, len, "hold the CPUs out of deep idle states: [run] cpu_dma_latency = 0us (this run "
				"held %s)", x->in->dma_latency_us < 0 ? "none" : "more");
	return snprintf(out, len, "the CPU left an idle state although cpu_dma_latency was held at 0 (its states: %s): "
			"intel_idle.max_cstate=1 or processor.max_cstate=1 on the kernel command line keeps them shallow",
			x->in->idle_states[0] ? x->in->idle_states : "see `jitterlab doctor`");
}

static bool unpreempted(const struct ctx *x)
{
	return x->p->kind == JL_PART_UNPREEMPTED;
}

static int say_unpreempted(const struct ctx *x, char *out, size_t len)
{
	if (x->in->rt_kernel)
		return snprintf(out, len, "rare on PREEMPT_RT: run it again with trace = sched, irq, timer to see what "
				"held CPU %d", x->c->cpu);
	if (x->in->vm)
		return snprintf(out, len, "on a VM the host may have taken the vCPU (the trace cannot tell it from a "
				"non-preemptible section): pin and isolate the vCPU on the host");
	if (x->in->preempt_mode[0] && strcmp(x->in->preempt_mode, "full"))
		return snprintf(out, len, "this kernel preempts at %s: boot with preempt=full, or a PREEMPT_RT kernel",
				x->in->preempt_mode);
	return snprintf(out, len, "a non-preemptible kernel section: a PREEMPT_RT kernel makes most of them "
			"preemptible");
}

static bool timer_softirq(const struct ctx *x)
{
	return x->p->kind == JL_PART_TIMER && !strncmp(x->p->name, "timer softirq in ktimers/", 25) && !x->loop_rt;
}

static int say_timer_softirq(const struct ctx *x, char *out, size_t len)
{
	(void)x;
	return snprintf(out, len, "on PREEMPT_RT a SCHED_OTHER task's timer is run by ktimers, the timer softirq's "
			"thread: policy = fifo (any priority) makes the kernel expire it in hard interrupt context");
}

static bool late_interrupt(const struct ctx *x)
{
	return x->p->kind == JL_PART_TIMER && (!strcmp(x->p->name, "timer interrupt late") ||
					       (!strcmp(x->p->name, "timer") && x->p->duration_ns >= JL_UNPREEMPTED_NS));
}

static int say_late_interrupt(const struct ctx *x, char *out, size_t len)
{
	if (x->in->vm)
		return snprintf(out, len, "on a VM the host delivers the timer's interrupt: pin and isolate the vCPU on "
				"the host (host.steal_ns says how much it took)");
	return snprintf(out, len, "interrupts were held off on CPU %d: trace = sched, irq, timer shows the timer and "
			"what ran", x->c->cpu);
}

static bool irq_on_cpu(const struct ctx *x)
{
	return (x->p->kind == JL_PART_IRQ || x->p->kind == JL_PART_SOFTIRQ) && x->in->irq_steered != 1 &&
	       strncmp(x->p->name, "hrtimer", 7);
}

static int say_irq_on_cpu(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "interrupt handlers ran on the loop's CPU: isolate = %d with irq_affinity = "
			"housekeeping moves the movable IRQs off it", x->c->cpu);
}

/* An IPI is no device's: steering IRQs does not move it. Another CPU sent it: a reschedule, because it
 * woke a task onto this one; a function call, for work it needs done here (a TLB flush of a process with
 * threads on both, a timer or a sysctl). */
static bool ipi(const struct ctx *x)
{
	return x->p->kind == JL_PART_IPI;
}

static int say_ipi(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "%s came from another CPU: %s; keep other work and the program's other threads off "
			"CPU %d (isolate = %d)", x->p->name,
			strstr(x->p->name, "reschedule") ? "it woke a task onto this CPU"
							  : "work there needed this CPU (a TLB flush of a process with "
							    "threads on both, a timer, a sysctl)",
			x->c->cpu, x->c->cpu);
}

static bool unexplained(const struct ctx *x)
{
	return x->p->kind == JL_PART_OTHER && (!strcmp(x->p->name, "runnable, CPU idle") ||
					       strstr(x->p->name, "no event says why"));
}

static int say_unexplained(const struct ctx *x, char *out, size_t len)
{
	(void)x;
	return snprintf(out, len, "no event explains it: trace = sched, irq, timer records the timers and IRQs%s",
			x->in->vm ? "; on a VM the vCPU may not have run (host.steal_ns)" : "");
}

static bool executor_wait(const struct ctx *x)
{
	return x->p->kind == JL_PART_EXECUTOR;
}

static int say_executor(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "the callback waited for %s on its executor's thread: give it a callback group and "
			"an executor of its own", x->p->name);
}

static bool pool_exhausted(const struct ctx *x)
{
	return x->p->kind == JL_PART_POOL;
}

static int say_pool(const struct ctx *x, char *out, size_t len)
{
	int64_t held = 0; /* every stretch the pool was held, whichever request series its workers served */

	for (int i = 0; i < x->c->nparts; i++)
		if (x->c->parts[i].kind == JL_PART_POOL)
			held += x->c->parts[i].duration_ns;
	return snprintf(out, len, "the request waited %.1f ms for a worker, its pool held (%s): more workers, a "
			"separate pool for the cheap methods, deadlines propagated (a call then ends with its caller) or a "
			"limit on the slow method's queue", (double)held / 1e6, x->p->name + 6);
}

static bool lost(const struct ctx *x)
{
	return x->p->kind == JL_PART_LOST;
}

static int say_lost(const struct ctx *x, char *out, size_t len)
{
	(void)x;
	return snprintf(out, len, "events were lost: a larger [run] trace_buffer keeps them");
}

static bool inversion(const struct ctx *x)
{
	return x->p->kind == JL_PART_BLOCKED && strstr(x->p->name, "(it waited behind ") &&
	       strncmp(x->p->name, "blocked on a PI lock", 20);
}

static int say_inversion(const struct ctx *x, char *out, size_t len)
{
	(void)x;
	return snprintf(out, len, "a priority inversion: the task that woke the loop was kept off its CPU meanwhile; "
			"if it held a lock the loop waited for, a priority-inheritance lock ([lock] kind = pi, "
			"PTHREAD_PRIO_INHERIT) raises it above the task that kept it off");
}

static bool pi_holder(const struct ctx *x)
{
	return x->p->kind == JL_PART_BLOCKED && !strncmp(x->p->name, "blocked on a PI lock held by ", 29);
}


static int say_pi_holder(const struct ctx *x, char *out, size_t len)
{
	return snprintf(out, len, "the loop waited %.1f ms for a lock's holder, already raised to its priority: "
			"shorten what the holder does under the lock, or hand the data over without one",
			(double)x->p->duration_ns / 1e6);
}

static const struct rule {
	const char *name;
	bool (*applies)(const struct ctx *x);
	int (*say)(const struct ctx *x, char *out, size_t len);
} rules[] = {
	{ "irq-thread", irq_thread, say_irq_thread },
	{ "higher-rt-task", higher_rt_task, say_higher_rt_task },
	{ "cfs-loop", cfs_loop_behind_cfs, say_cfs_loop },
	{ "rt-budget", rt_budget, say_rt_budget },
	{ "fair-server", fair_server, say_fair_server },
	{ "idle-exit", idle_exit, say_idle_exit },
	{ "unpreempted", unpreempted, say_unpreempted },
	{ "timer-softirq", timer_softirq, say_timer_softirq },
	{ "late-interrupt", late_interrupt, say_late_interrupt },
	{ "irq-on-cpu", irq_on_cpu, say_irq_on_cpu },
	{ "ipi", ipi, say_ipi },
	{ "unexplained", unexplained, say_unexplained },
	{ "executor", executor_wait, say_executor },
	{ "pool", pool_exhausted, say_pool },
	{ "lost", lost, say_lost },
	{ "pi-holder", pi_holder, say_pi_holder },
	{ "inversion", inversion, say_inversion },
};

const char *jl_trace_advice(const struct jl_analysis *an, const struct jl_cycle *c, const struct jl_trace_advice_in *in,
			    char *out, size_t len)
{
	struct ctx x = { .an = an, .c = c, .in = in };
	int key = -1;

	out[0] = '\0';
	/* the part that kept the cycle longest (the return is bounded and never a cause) */
	for (int i = 0; i < c->nparts; i++)
		if (strcmp(c->parts[i].name, "return") && (key < 0 || c->parts[i].duration_ns > c->parts[key].duration_ns))
			key = i;
	if (key < 0 || c->thread < 0 || c->thread >= an->nthreads)
		return NULL;
	x.p = &c->parts[key];
	loop_policy(&x);
	for (size_t i = 0; i < sizeof(rules) / sizeof(rules[0]); i++)
		if (rules[i].applies(&x)) {
			if (rules[i].say(&x, out, len) <= 0) {
				out[0] = '\0';
				return NULL; /* the run already does what the rule would say */
			}
			return rules[i].name;
		}
	return NULL;
}
