/* scenario_check: cross-key rules of a parsed scenario (policy vs priority, periods, CPUs online,
 * expectations naming threads, `user = invoking` under sudo only). Reads the online CPUs, a few sysctls
 * and SUDO_UID/SUDO_GID; changes nothing. */
#include <errno.h>
#include <numa.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "../../affinity/cpulist.h"
#include "../base/lock.h"
#include "../base/metrics.h"
#include "scenario_int.h"
#include "scenario_registry.h"

/* ---- cross-key validation ---- */

int jl_scenario_fail(const struct jl_scenario *sc, int line, char *err, size_t errlen, const char *fmt, ...)
{
	char msg[JL_ERR_MAX];
	va_list ap;

	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(err, errlen, "%s:%d: %s", sc->path, line, msg);
	else
		snprintf(err, errlen, "%s: %s", sc->path, msg);
	errno = EINVAL;
	return -1;
}

#define VFAIL(line, ...) return jl_scenario_fail(sc, (line), err, errlen, __VA_ARGS__)

static int line_of(const struct jl_thread_spec *t, enum jl_thread_key k)
{
	return t->key_line[k] ? t->key_line[k] : t->line;
}

static bool thread_name_exists(const struct jl_scenario *sc, const char *name)
{
	for (int i = 0; i < sc->ncallbacks; i++) /* a callback is a measured series of its name */
		if (!strcmp(sc->callbacks[i].name, name))
			return true;
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		size_t n = strlen(t->name);

		if (!strcmp(t->name, name))
			return true;
		/* a probed program's series are NAME.PROBE_NAME (known after the run) */
		if (JL_MEASURE_FROM_TRACE(t->beh.measure) && !strncmp(t->name, name, n) && name[n] == '.' && name[n + 1])
			return true;
		if (t->place.count > 1 && !strncmp(t->name, name, n) && name[n] == '.') {
			char *end;
			long idx = strtol(name + n + 1, &end, 10);

			if (!*end && end != name + n + 1 && idx >= 0 && idx < (long)t->place.count)
				return true;
		}
	}
	return false;
}

/* The CPUs of PLACE that are not online, into BUF; false when there are none (or no cpus key). */
static bool offline_cpus(const struct jl_placement *place, const cpu_set_t *online, char *buf, size_t len)
{
	cpu_set_t extra;

	if (!place->cpus_set)
		return false;
	CPU_XOR(&extra, &place->cpus, online);
	CPU_AND(&extra, &extra, &place->cpus);
	if (!CPU_COUNT(&extra))
		return false;
	jl_cpulist_format(&extra, buf, len);
	return true;
}

/* The name of another section that names series or --set targets: threads, executors, callbacks share one
 * namespace. */
static const char *name_taken(const struct jl_scenario *sc, const char *name, const void *self)
{
	for (int i = 0; i < sc->nthreads; i++)
		if ((const void *)&sc->threads[i] != self && !strcmp(sc->threads[i].name, name))
			return "a thread";
	for (int i = 0; i < sc->nexecutors; i++)
		if ((const void *)&sc->executors[i] != self && !strcmp(sc->executors[i].t.name, name))
			return "an executor";
	for (int i = 0; i < sc->ncallbacks; i++)
		if ((const void *)&sc->callbacks[i] != self && !strcmp(sc->callbacks[i].name, name))
			return "a callback";
	return NULL;
}

/* [run] housekeeping: online CPUs, none isolated, none a measured thread, a probed program or an
 * executor is pinned to (jitterlab's own threads would wake there). */
static int validate_housekeeping(struct jl_scenario *sc, const cpu_set_t *online, char *err, size_t errlen)
{
	const int line = sc->run.key_line[JL_RUN_KEY_HOUSEKEEPING];
	const cpu_set_t *hk = &sc->run.housekeeping;
	cpu_set_t both;
	char buf[256];

	CPU_XOR(&both, hk, online);
	CPU_AND(&both, &both, hk);
	if (CPU_COUNT(&both))
		VFAIL(line, "[run] housekeeping: CPU %s is not online", jl_cpulist_format(&both, buf, sizeof(buf)));
	if (sc->run.isolate_set) {
		CPU_AND(&both, hk, &sc->run.isolate);
		if (CPU_COUNT(&both))
			VFAIL(line, "[run] housekeeping: CPU %s is isolated (expected CPUs outside isolate)",
			      jl_cpulist_format(&both, buf, sizeof(buf)));
	}
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (!t->place.cpus_set || !jl_thread_keeps_housekeeping_off(t))
			continue;
		CPU_AND(&both, hk, &t->place.cpus);
		if (CPU_COUNT(&both))
			VFAIL(line, "[run] housekeeping: CPU %s is thread '%s''s (expected CPUs no measured thread is "
			      "pinned to)", jl_cpulist_format(&both, buf, sizeof(buf)), t->name);
	}
	for (int i = 0; i < sc->nexecutors; i++) {
		const struct jl_thread_spec *t = &sc->executors[i].t;

		CPU_AND(&both, hk, &t->place.cpus);
		if (t->place.cpus_set && CPU_COUNT(&both))
			VFAIL(line, "[run] housekeeping: CPU %s is executor '%s''s (expected CPUs no executor is pinned "
			      "to)", jl_cpulist_format(&both, buf, sizeof(buf)), t->name);
	}
	return 0;
}

/* Priority 99 is the watchdog's too (it runs at FIFO 99 on the housekeeping CPUs, to demote threads that do
 * not end): a thread at 99 may not share a CPU with it, or the watchdog could never run there. Whether
 * PLACE may: "" when it may, else why not (into WHY). */
static const char *prio99_conflict(const struct jl_scenario *sc, const struct jl_placement *place,
				   const cpu_set_t *online, char *why, size_t len)
{
	cpu_set_t hk, both;
	char a[256], b[256];

	why[0] = '\0';
	if (place->priority != 99)
		return why;
	if (!place->cpus_set) {
		snprintf(why, len, "without cpus it may run on every CPU, the watchdog's included (expected cpus = CPUs "
			 "the watchdog does not use, or a priority in 1-98)");
		return why;
	}
	if (sc->run.housekeeping_set)
		CPU_AND(&hk, &sc->run.housekeeping, online);
	else if (!jl_scenario_auto_housekeeping(sc, &hk))
		CPU_ZERO(&hk);
	CPU_AND(&both, &hk, &place->cpus);
	if (!CPU_COUNT(&hk))
		snprintf(why, len, "no CPU is left for the watchdog (expected a CPU no measured thread is pinned to, or a "
			 "priority in 1-98)");
	else if (CPU_COUNT(&both))
		snprintf(why, len, "it shares CPU %s with the watchdog (housekeeping CPUs %s; expected cpus outside them, or "
			 "a priority in 1-98)", jl_cpulist_format(&both, a, sizeof(a)), jl_cpulist_format(&hk, b, sizeof(b)));
	return why;
}

/* A fifo or rr thread's or executor's (KIND) priority: given, in 1-99, and 99 only off the watchdog's CPUs. */
static int validate_rt_priority(const struct jl_scenario *sc, const struct jl_thread_spec *t, const char *kind,
				const cpu_set_t *online, char *err, size_t errlen)
{
	const char *pol = jl_policy_name(t->place.policy);
	char why[512];

	if (!t->key_line[JL_THREAD_KEY_PRIORITY] && !t->place.priority)
		VFAIL(line_of(t, JL_THREAD_KEY_POLICY), "%s '%s': policy %s needs a priority (1-99)", kind, t->name, pol);
	if (t->place.priority < 1 || t->place.priority > 99)
		VFAIL(line_of(t, JL_THREAD_KEY_PRIORITY), "%s '%s': priority %d is out of range for policy %s (1-99)", kind,
		      t->name, t->place.priority, pol);
	if (prio99_conflict(sc, &t->place, online, why, sizeof(why))[0])
		VFAIL(line_of(t, JL_THREAD_KEY_PRIORITY), "%s '%s': priority 99 is the watchdog's, and %s", kind, t->name, why);
	return 0;
}

/* Each [node]'s executor exists; a callback of a node runs on its node's executor (filled in here). */
static int validate_nodes(struct jl_scenario *sc, char *err, size_t errlen)
{
	for (int i = 0; i < sc->nnodes; i++) {
		const struct jl_node_spec *n = &sc->nodes[i];
		bool found = false;

		if (!n->executor[0])
			VFAIL(n->line, "node '%s': no executor (expected executor = NAME of an [executor] section)", n->name);
		for (int k = 0; k < sc->nexecutors; k++)
			found |= !strcmp(sc->executors[k].t.name, n->executor);
		if (!found)
			VFAIL(n->key_line[JL_NODE_KEY_EXECUTOR], "node '%s': no executor '%s' (expected the name of an [executor] "
			      "section)", n->name, n->executor);
	}
	for (int i = 0; i < sc->ncallbacks; i++) {
		struct jl_callback_spec *c = &sc->callbacks[i];
		const struct jl_node_spec *n = NULL;

		if (!c->node[0])
			continue;
		for (int k = 0; k < sc->nnodes && !n; k++)
			if (!strcmp(sc->nodes[k].name, c->node))
				n = &sc->nodes[k];
		if (!n)
			VFAIL(c->key_line[JL_CALLBACK_KEY_NODE], "callback '%s': no node '%s' (expected the name of a [node] section)",
			      c->name, c->node);
		if (c->executor[0] && strcmp(c->executor, n->executor))
			VFAIL(c->key_line[JL_CALLBACK_KEY_EXECUTOR], "callback '%s': executor '%s' is not its node's ('%s' runs on '%s')",
			      c->name, c->executor, n->name, n->executor);
		snprintf(c->executor, sizeof(c->executor), "%s", n->executor); /* a node's callbacks run on its executor */
	}
	return 0;
}

/* Callback C: a name of its own, an executor, a timer or a trigger (not both), jitter and poll with a timer,
 * topics that exist, no chain that feeds itself, a deadline within 1000 periods. */
static int validate_callback(const struct jl_scenario *sc, const struct jl_callback_spec *c, char *err, size_t errlen)
{
	const char *other = name_taken(sc, c->name, c);
	int line_e = c->key_line[JL_CALLBACK_KEY_EXECUTOR] ? c->key_line[JL_CALLBACK_KEY_EXECUTOR] : c->line;
	bool found = false;

	if (other)
		VFAIL(c->line, "callback '%s': the name is also %s's (threads, executors and callbacks share names)",
		      c->name, other);
	if (!c->executor[0])
		VFAIL(c->line, "callback '%s': no executor (expected executor = NAME of an [executor] section, or node = NAME)", c->name);
	for (int k = 0; k < sc->nexecutors; k++)
		found |= !strcmp(sc->executors[k].t.name, c->executor);
	if (!found)
		VFAIL(line_e, "callback '%s': no executor '%s' (expected the name of an [executor] section)", c->name,
		      c->executor);
	if (!c->period_ns && !c->trigger[0])
		VFAIL(c->line, "callback '%s': neither a period nor a trigger (expected period = DURATION, or "
		      "trigger = TOPIC)", c->name);
	if (c->period_ns && c->trigger[0])
		VFAIL(c->key_line[JL_CALLBACK_KEY_TRIGGER], "callback '%s': a timer and a trigger on one callback (expected "
		      "one of period and trigger)", c->name);
	if (c->jitter_ns && (!c->period_ns || c->jitter_ns >= c->period_ns))
		VFAIL(c->key_line[JL_CALLBACK_KEY_JITTER], "callback '%s': jitter is for a timer, and less than its period",
		      c->name);
	if (c->poll[0] && !c->period_ns)
		VFAIL(c->key_line[JL_CALLBACK_KEY_POLL], "callback '%s': poll needs a period (how often it reads)", c->name);
	if (c->poll[0] && c->trigger[0])
		VFAIL(c->key_line[JL_CALLBACK_KEY_POLL], "callback '%s': poll and trigger on one callback", c->name);
	{
		const char *topics[3] = { c->trigger, c->poll, c->publish };
		const int keys[3] = { JL_CALLBACK_KEY_TRIGGER, JL_CALLBACK_KEY_POLL, JL_CALLBACK_KEY_PUBLISH };

		for (int k = 0; k < 3; k++) {
			bool known = !topics[k][0];

			for (int j = 0; j < sc->ntopics && !known; j++)
				known = !strcmp(sc->topics[j].name, topics[k]);
			if (!known)
				VFAIL(c->key_line[keys[k]], "callback '%s': no topic '%s' (expected the name of a [topic] "
				      "section)", c->name, topics[k]);
		}
	}
	if (c->publish[0] && c->trigger[0] && !strcmp(c->publish, c->trigger))
		VFAIL(c->key_line[JL_CALLBACK_KEY_PUBLISH], "callback '%s': publishes to the topic that triggers it (a chain "
		      "that feeds itself)", c->name);
	if (c->period_ns && c->deadline_ns > c->period_ns * 1000)
		VFAIL(c->key_line[JL_CALLBACK_KEY_DEADLINE], "callback '%s': deadline is more than 1000 periods", c->name);
	return 0;
}

/* Executor X: a name of its own, threads (not count), no user, no deadline policy, its priority, online CPUs,
 * and a callback to run. */
static int validate_executor(const struct jl_scenario *sc, const struct jl_executor_spec *x, const cpu_set_t *online,
			     char *err, size_t errlen)
{
	const struct jl_thread_spec *t = &x->t;
	const char *other = name_taken(sc, t->name, x);
	bool used = false;

	if (other)
		VFAIL(t->line, "executor '%s': the name is also %s's (threads, executors and callbacks share names)",
		      t->name, other);
	if (t->key_line[JL_THREAD_KEY_COUNT])
		VFAIL(line_of(t, JL_THREAD_KEY_COUNT), "executor '%s': count is not an executor key (expected threads = N)",
		      t->name);
	if (t->key_line[JL_THREAD_KEY_USER])
		VFAIL(line_of(t, JL_THREAD_KEY_USER), "executor '%s': user is only for exec threads", t->name);
	if (t->place.policy == JL_POLICY_DEADLINE)
		VFAIL(line_of(t, JL_THREAD_KEY_POLICY), "executor '%s': policy deadline is not supported for executors "
		      "(expected fifo, rr, other, batch or idle)", t->name);
	if (jl_policy_is_rt(t->place.policy) && validate_rt_priority(sc, t, "executor", online, err, errlen))
		return -1;
	{
		char buf[256];

		if (offline_cpus(&t->place, online, buf, sizeof(buf)))
			VFAIL(line_of(t, JL_THREAD_KEY_CPUS), "executor '%s': cpus names CPU %s, which is not online", t->name,
			      buf);
	}
	for (int k = 0; k < sc->ncallbacks; k++)
		used |= !strcmp(sc->callbacks[k].executor, t->name);
	if (!used)
		VFAIL(t->line, "executor '%s' runs no callback (expected a [callback NAME] with executor = %s)", t->name,
		      t->name);
	return 0;
}

/* [executor] and [callback]: placement as a thread's (what an executor takes), a callback on an executor
 * that exists, a timer period, names unique among threads, executors and callbacks. */
static int validate_executors(struct jl_scenario *sc, const cpu_set_t *online, char *err, size_t errlen)
{
	if (validate_nodes(sc, err, errlen))
		return -1;
	for (int i = 0; i < sc->ncallbacks; i++)
		if (validate_callback(sc, &sc->callbacks[i], err, errlen))
			return -1;
	for (int i = 0; i < sc->nexecutors; i++)
		if (validate_executor(sc, &sc->executors[i], online, err, errlen))
			return -1;
	return 0;
}

static long long read_sysctl_ll(const char *path, long long fallback)
{
	FILE *f = fopen(path, "re");
	long long v;

	if (!f)
		return fallback;
	if (fscanf(f, "%lld", &v) != 1 || v <= 0)
		v = fallback;
	fclose(f);
	return v;
}


/* [lock] sections and their users: each named lock exists; a ceiling is set exactly for kind = ceiling,
 * and is at least every RT user's priority (pthread_mutex_lock fails with EINVAL below it) */
static int ceiling_holds(const struct jl_scenario *sc, const struct jl_lock_spec *l, const char *user,
			 const struct jl_placement *p, char *err, size_t errlen)
{
	if (l->kind == JL_LOCK_CEILING && !jl_policy_is_rt(p->policy))
		VFAIL(l->key_line[JL_LOCK_KEY_KIND] ? l->key_line[JL_LOCK_KEY_KIND] : l->line,
		      "lock '%s': kind = ceiling, and its user '%s' is %s (expected fifo or rr users: glibc raises a "
		      "holder to the ceiling within its own policy, which a SCHED_OTHER thread cannot be: its first lock "
		      "fails with EINVAL, later ones take it unraised; use kind = pi)", l->name, user, jl_policy_name(p->policy));
	if (l->kind == JL_LOCK_CEILING && jl_policy_is_rt(p->policy) && p->priority > l->ceiling)
		VFAIL(l->key_line[JL_LOCK_KEY_CEILING] ? l->key_line[JL_LOCK_KEY_CEILING] : l->line,
		      "lock '%s': ceiling %d is below the priority %d of its user '%s' (expected a ceiling of at least "
		      "every fifo or rr user's priority)", l->name, l->ceiling, p->priority, user);
	return 0;
}

static int validate_locks(const struct jl_scenario *sc, char *err, size_t errlen)
{
	for (int i = 0; i < sc->nlocks; i++) {
		const struct jl_lock_spec *l = &sc->locks[i];

		if (l->kind == JL_LOCK_CEILING && !l->ceiling)
			VFAIL(l->line, "lock '%s': kind = ceiling needs a ceiling (expected ceiling = PRIO, 1-99)", l->name);
		if (l->kind != JL_LOCK_BIGLOCK && (l->key_line[JL_LOCK_KEY_SWITCH] || l->key_line[JL_LOCK_KEY_HANDOFFS]))
			VFAIL(l->key_line[JL_LOCK_KEY_SWITCH] ? l->key_line[JL_LOCK_KEY_SWITCH] : l->key_line[JL_LOCK_KEY_HANDOFFS],
			      "lock '%s': %s is for kind = biglock (this one is %s)", l->name,
			      l->key_line[JL_LOCK_KEY_SWITCH] ? "switch_interval" : "handoffs", jl_lock_kind_name((enum jl_lock_kind)l->kind));
		if (l->kind != JL_LOCK_CEILING && l->ceiling)
			VFAIL(l->key_line[JL_LOCK_KEY_CEILING], "lock '%s': ceiling is for kind = ceiling (this one is %s)", l->name,
			      jl_lock_kind_name((enum jl_lock_kind)l->kind));
	}
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		const struct jl_lock_spec *l;

		if (!t->beh.lock[0])
			continue;
		if (t->beh.exec[0])
			VFAIL(line_of(t, JL_THREAD_KEY_LOCK), "thread '%s': lock is held around built-in work (expected no lock with "
			      "exec: a program takes its own locks)", t->name);
		l = jl_scenario_lock(sc, t->beh.lock);
		if (!l)
			VFAIL(line_of(t, JL_THREAD_KEY_LOCK), "thread '%s': no lock '%s' (expected the name of a [lock] section)",
			      t->name, t->beh.lock);
		if (ceiling_holds(sc, l, t->name, &t->place, err, errlen))
			return -1;
	}
	for (int i = 0; i < sc->ncallbacks; i++) {
		const struct jl_callback_spec *c = &sc->callbacks[i];
		const struct jl_lock_spec *l;

		if (!c->lock[0])
			continue;
		l = jl_scenario_lock(sc, c->lock);
		if (!l)
			VFAIL(c->key_line[JL_CALLBACK_KEY_LOCK], "callback '%s': no lock '%s' (expected the name of a [lock] section)",
			      c->name, c->lock);
		for (int k = 0; k < sc->nexecutors; k++)
			if (!strcmp(sc->executors[k].t.name, c->executor) &&
			    ceiling_holds(sc, l, c->name, &sc->executors[k].t.place, err, errlen))
				return -1;
	}
	return 0;
}

static const struct jl_topic_spec *topic_named(const struct jl_scenario *sc, const char *name)
{
	int k = jl_scenario_topic_index(sc, name);

	return k < 0 ? NULL : &sc->topics[k];
}

/* [queue]s, [source]s and calls: a queue has exactly one serving callback (its pool's threads
 * compete for the requests; a poll or a second trigger would not take each request once), requests come
 * from sources and calls only, and the keys of a call or a cancellation are where they mean something */
static int validate_queues(const struct jl_scenario *sc, char *err, size_t errlen)
{
	for (int i = 0; i < sc->ntopics; i++) {
		const struct jl_topic_spec *q = &sc->topics[i];
		int servers = 0;

		if (!q->queue)
			continue;
		for (int k = 0; k < sc->ncallbacks; k++) {
			const struct jl_callback_spec *c = &sc->callbacks[k];

			servers += !strcmp(c->trigger, q->name);
			if (!strcmp(c->poll, q->name))
				VFAIL(c->key_line[JL_CALLBACK_KEY_POLL], "callback '%s': polls queue '%s' (expected trigger = %s: each "
				      "request is taken once)", c->name, q->name, q->name);
			if (!strcmp(c->publish, q->name))
				VFAIL(c->key_line[JL_CALLBACK_KEY_PUBLISH], "callback '%s': publishes to queue '%s' (expected work = call "
				      "%s, or a [source] with target = %s)", c->name, q->name, q->name, q->name);
		}
		if (servers != 1)
			VFAIL(q->line, "queue '%s': %s (expected one [callback] with trigger = %s: its executor's threads compete "
			      "for the requests)", q->name, servers ? "served by more than one callback" : "nothing serves it",
			      q->name);
		for (int k = 0; k < sc->nsyncs; k++) /* a sync pairs data, not requests (each replied to once) */
			if (!strcmp(sc->syncs[k].inputs[0], q->name) || !strcmp(sc->syncs[k].inputs[1], q->name) ||
			    !strcmp(sc->syncs[k].publish, q->name))
				VFAIL(sc->syncs[k].line, "sync '%s': queue '%s' is no topic (expected [topic] inputs and output)",
				      sc->syncs[k].name, q->name);
		if (q->limit > q->depth)
			VFAIL(q->key_line[JL_TOPIC_KEY_LIMIT], "queue '%s': limit %u is more than its depth %u", q->name, q->limit,
			      q->depth);
	}
	for (int k = 0; k < sc->ncallbacks; k++) {
		const struct jl_callback_spec *c = &sc->callbacks[k];
		const struct jl_topic_spec *q = c->call[0] ? topic_named(sc, c->call) : NULL;
		const struct jl_topic_spec *served = c->trigger[0] ? topic_named(sc, c->trigger) : NULL;

		if (c->call[0] && !q)
			VFAIL(c->key_line[JL_CALLBACK_KEY_WORK], "callback '%s': work = call %s: no queue '%s' (expected the name of a "
			      "[queue] section)", c->name, c->call, c->call);
		if (q && !q->queue)
			VFAIL(c->key_line[JL_CALLBACK_KEY_WORK], "callback '%s': work = call %s: '%s' is a topic, not a [queue]", c->name,
			      c->call, c->call);
		if (c->call[0] && !strcmp(c->call, c->trigger))
			VFAIL(c->key_line[JL_CALLBACK_KEY_WORK], "callback '%s': calls the queue it serves (a chain that feeds itself)",
			      c->name);
		if (!c->call[0] && (c->key_line[JL_CALLBACK_KEY_PROPAGATION] || c->key_line[JL_CALLBACK_KEY_MARGIN]))
			VFAIL(c->key_line[JL_CALLBACK_KEY_PROPAGATION] ? c->key_line[JL_CALLBACK_KEY_PROPAGATION] : c->key_line[JL_CALLBACK_KEY_MARGIN],
			      "callback '%s': deadline_propagation and margin are for work = call QUEUE", c->name);
		if (c->cancel_ns && !(served && served->queue))
			VFAIL(c->key_line[JL_CALLBACK_KEY_CANCEL], "callback '%s': cancel is for a callback serving a [queue] (expected "
			      "trigger = QUEUE)", c->name);
		if (c->cancel_ns && c->work.kind != JL_WORK_SLEEP && c->work.kind != JL_WORK_SPIN)
			VFAIL(c->key_line[JL_CALLBACK_KEY_CANCEL], "callback '%s': cancel = cooperative needs work = sleep or spin (a "
			      "slice of it is the same work shorter)", c->name);
	}
	for (int i = 0; i < sc->nsources; i++) {
		const struct jl_source_spec *s = &sc->sources[i];
		const struct jl_topic_spec *q = s->target[0] ? topic_named(sc, s->target) : NULL;

		if (!s->target[0])
			VFAIL(s->t.line, "source '%s': no target (expected target = QUEUE)", s->t.name);
		if (!q || !q->queue)
			VFAIL(s->t.key_line[JL_SOURCE_KEY_TARGET], "source '%s': no queue '%s' (expected the name of a [queue] section)",
			      s->t.name, s->target);
		if (!s->burst == !(s->rate_hz > 0))
			VFAIL(s->t.line, "source '%s': %s (expected burst = N, or rate = RATE with count = N)", s->t.name,
			      s->burst ? "both a burst and a rate" : "neither a burst nor a rate");
		if (s->burst && s->t.key_line[JL_SOURCE_KEY_COUNT])
			VFAIL(s->t.key_line[JL_SOURCE_KEY_COUNT], "source '%s': count is for rate (a burst is its own count)", s->t.name);
	}
	return 0;
}

/* Policy deadline's needs: runtime <= deadline <= period, a period within the kernel's bounds, no CPU subset;
 * runtime for no other policy. 0, or -1 with ERR. */
static int validate_deadline(const struct jl_scenario *sc, const struct jl_thread_spec *t, const cpu_set_t *online,
			     char *err, size_t errlen)
{
	if (t->place.policy == JL_POLICY_DEADLINE) {
		if (!t->place.runtime_ns || !t->beh.period_ns)
			VFAIL(line_of(t, JL_THREAD_KEY_POLICY), "thread '%s': policy deadline needs runtime and period", t->name);
		if (t->place.runtime_ns > jl_thread_deadline_ns(t))
			VFAIL(line_of(t, JL_THREAD_KEY_RUNTIME), "thread '%s': runtime must not exceed the deadline", t->name);
		{
			/* the kernel's bounds on a SCHED_DEADLINE period (sysctls; these defaults elsewhere) */
			long long lo = read_sysctl_ll("/proc/sys/kernel/sched_deadline_period_min_us", 100);
			long long hi = read_sysctl_ll("/proc/sys/kernel/sched_deadline_period_max_us", 4194304);

			if (t->beh.period_ns < lo * 1000 || t->beh.period_ns > hi * 1000)
				VFAIL(line_of(t, t->key_line[JL_THREAD_KEY_RATE] ? JL_THREAD_KEY_RATE : JL_THREAD_KEY_PERIOD),
				      "thread '%s': policy deadline needs a period of %lldus-%lldus "
				      "(kernel.sched_deadline_period_min_us/max_us)", t->name, lo, hi);
		}
		if (t->beh.deadline_ns > t->beh.period_ns)
			VFAIL(line_of(t, JL_THREAD_KEY_DEADLINE),
			      "thread '%s': policy deadline needs deadline <= period (runtime <= deadline <= period)", t->name);
		if (t->place.cpus_set && !CPU_EQUAL(&t->place.cpus, online))
			VFAIL(line_of(t, JL_THREAD_KEY_CPUS),
			      "thread '%s': SCHED_DEADLINE threads cannot be pinned to a subset of CPUs (the kernel refuses "
			      "affinity narrower than the root domain); drop cpus",
			      t->name);
	} else if (t->key_line[JL_THREAD_KEY_RUNTIME]) {
		VFAIL(line_of(t, JL_THREAD_KEY_RUNTIME), "thread '%s': runtime is only for policy deadline", t->name);
	}
	return 0;
}

/* An exec neighbour: no work, periodic only when probed, trace = sched when measured from the trace, not
 * measured itself, no deadline policy; user = invoking only for one, and only under sudo. 0, or -1 with ERR. */
static int validate_exec(const struct jl_scenario *sc, const struct jl_thread_spec *t, char *err, size_t errlen)
{
	if (t->beh.exec[0]) {
		if (t->key_line[JL_THREAD_KEY_WORK])
			VFAIL(line_of(t, JL_THREAD_KEY_WORK), "thread '%s': exec and work are exclusive (exec runs a command instead of built-in work)", t->name);
		if (t->beh.period_ns && !JL_MEASURE_FROM_TRACE(t->beh.measure))
			VFAIL(line_of(t, JL_THREAD_KEY_EXEC), "thread '%s': an exec neighbour cannot be periodic (drop period/rate, "
			      "or measure = probe: then period and deadline are the probed loop's)", t->name);
		if (JL_MEASURE_FROM_TRACE(t->beh.measure) && !(sc->run.trace_groups & JL_TRACE_SCHED))
			VFAIL(line_of(t, JL_THREAD_KEY_MEASURE), "thread '%s': measure = %s needs trace = sched (%s)", t->name,
			      t->beh.measure == JL_MEASURE_PROBE ? "probe" : "wakeups",
			      t->beh.measure == JL_MEASURE_PROBE ? "the probe's records are read from the trace"
								  : "the threads are measured from the trace");
		if (t->beh.measure == 1)
			VFAIL(line_of(t, JL_THREAD_KEY_MEASURE), "thread '%s': an exec neighbour cannot be measured", t->name);
		if (t->place.policy == JL_POLICY_DEADLINE)
			VFAIL(line_of(t, JL_THREAD_KEY_POLICY), "thread '%s': exec with policy deadline is not supported", t->name);
	}
	if (t->place.user == JL_USER_INVOKING) {
		const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");

		if (!t->beh.exec[0])
			VFAIL(line_of(t, JL_THREAD_KEY_USER), "thread '%s': user = invoking is only for an exec neighbour (built-in threads run in jitterlab)",
			      t->name);
		if (!u || !g || !*u || !*g || u[strspn(u, "0123456789")] || g[strspn(g, "0123456789")])
			VFAIL(line_of(t, JL_THREAD_KEY_USER),
			      "thread '%s': user = invoking needs sudo (SUDO_UID and SUDO_GID name the invoking user; they are not set)",
			      t->name);
	}
	return 0;
}

/* The name of a [thread] key by its slot (the tables of a thread's keys). */
static const char *thread_key_name(int slot)
{
	const struct jl_key_table *tables[] = { &jl_keys_placement, &jl_keys_copies, &jl_keys_behaviour };

	for (size_t t = 0; t < sizeof(tables) / sizeof(tables[0]); t++)
		for (int i = 0; i < tables[t]->nkeys; i++)
			if (tables[t]->keys[i].slot == slot)
				return tables[t]->keys[i].name;
	return "?";
}

bool jl_attach_key_allowed(int slot)
{
	return slot == JL_THREAD_KEY_ATTACH || slot == JL_THREAD_KEY_MEASURE || slot == JL_THREAD_KEY_THREADS ||
	       slot == JL_THREAD_KEY_CPUS;
}

/* An attach section measures threads already running from the trace: it starts nothing and changes nothing of
 * them, so only the keys that choose what to measure apply (measure = wakeups, implied; threads; cpus: where
 * its IRQ and timer events are recorded), with trace = sched. 0, or -1 with ERR. */
static int validate_attach(const struct jl_scenario *sc, const struct jl_thread_spec *t, char *err, size_t errlen)
{
	for (int k = 0; k < JL_THREAD_KEY_N; k++)
		if (t->key_line[k] && !jl_attach_key_allowed(k))
			VFAIL(line_of(t, k), "thread '%s': %s does not go with attach (attach measures threads already running "
			      "and changes nothing of them: expected only measure = wakeups, threads and cpus)", t->name,
			      thread_key_name(k));
	if (t->key_line[JL_THREAD_KEY_MEASURE] && t->beh.measure != JL_MEASURE_WAKEUPS)
		VFAIL(line_of(t, JL_THREAD_KEY_MEASURE), "thread '%s': attach measures from the trace alone (expected "
		      "measure = wakeups, or no measure key)", t->name);
	if (!(sc->run.trace_groups & JL_TRACE_SCHED))
		VFAIL(line_of(t, JL_THREAD_KEY_ATTACH), "thread '%s': attach needs trace = sched (the threads are measured "
		      "from the trace)", t->name);
	return 0;
}

static int validate_thread(const struct jl_scenario *sc, const struct jl_thread_spec *t, const cpu_set_t *online,
			   char *err, size_t errlen)
{
	const char *pol = jl_policy_name(t->place.policy);

	if (t->beh.attach[0])
		return validate_attach(sc, t, err, errlen);

	if (t->key_line[JL_THREAD_KEY_PERIOD] && t->key_line[JL_THREAD_KEY_RATE])
		VFAIL(line_of(t, JL_THREAD_KEY_RATE), "thread '%s': period and rate both given (expected one of them)", t->name);
	if (jl_policy_is_rt(t->place.policy)) {
		if (validate_rt_priority(sc, t, "thread", online, err, errlen))
			return -1;
	} else if (t->key_line[JL_THREAD_KEY_PRIORITY]) {
		VFAIL(line_of(t, JL_THREAD_KEY_PRIORITY), "thread '%s': priority is only for fifo and rr (policy is %s%s)",
		      t->name, pol, t->place.policy == JL_POLICY_OTHER || t->place.policy == JL_POLICY_BATCH ? "; use nice" : "");
	}
	if (t->key_line[JL_THREAD_KEY_NICE] && t->place.policy != JL_POLICY_OTHER && t->place.policy != JL_POLICY_BATCH)
		VFAIL(line_of(t, JL_THREAD_KEY_NICE), "thread '%s': nice is only for other and batch (policy is %s)", t->name, pol);
	if (validate_deadline(sc, t, online, err, errlen))
		return -1;
	if (t->beh.deadline_ns && !t->beh.period_ns && !JL_MEASURE_FROM_TRACE(t->beh.measure))
		VFAIL(line_of(t, JL_THREAD_KEY_DEADLINE), "thread '%s': deadline needs a period or rate", t->name);
	if (t->beh.deadline_ns && t->beh.period_ns && t->beh.deadline_ns > t->beh.period_ns * 1000)
		VFAIL(line_of(t, JL_THREAD_KEY_DEADLINE), "thread '%s': deadline is more than 1000 periods", t->name);
	if (t->key_line[JL_THREAD_KEY_OVERRUN] && !t->beh.period_ns)
		VFAIL(line_of(t, JL_THREAD_KEY_OVERRUN), "thread '%s': overrun needs a period or rate", t->name);
	if (t->beh.measure == JL_MEASURE_PROBE && !t->beh.exec[0])
		VFAIL(line_of(t, JL_THREAD_KEY_MEASURE), "thread '%s': measure = probe needs exec (the probe marks the cycles "
		      "of a program jitterlab runs; a built-in thread is measured with measure = yes)", t->name);
	if (t->beh.measure == JL_MEASURE_WAKEUPS && !t->beh.exec[0])
		VFAIL(line_of(t, JL_THREAD_KEY_MEASURE), "thread '%s': measure = wakeups needs exec (it measures the threads "
		      "of a program jitterlab runs)", t->name);
	if (t->key_line[JL_THREAD_KEY_THREADS] && t->beh.measure != JL_MEASURE_WAKEUPS)
		VFAIL(line_of(t, JL_THREAD_KEY_THREADS), "thread '%s': threads is for measure = wakeups", t->name);
	if (t->beh.measure == 1 && !t->beh.period_ns)
		VFAIL(line_of(t, JL_THREAD_KEY_MEASURE),
		      "thread '%s': measure = yes needs a period or rate (a back-to-back thread has no releases)", t->name);
	{
		char buf[256], on[128];

		if (offline_cpus(&t->place, online, buf, sizeof(buf)))
			VFAIL(line_of(t, JL_THREAD_KEY_CPUS), "thread '%s': cpus names CPU %s, which is not online (online: %s)",
			      t->name, buf, jl_cpulist_format(online, on, sizeof(on)));
	}
	if (validate_exec(sc, t, err, errlen))
		return -1;
	if (t->place.mem_node >= 0) {
		int max = numa_available() >= 0 ? numa_max_node() : 0;

		if (t->place.mem_node > max)
			VFAIL(line_of(t, JL_THREAD_KEY_MEM_NODE), "thread '%s': mem_node %d does not exist (nodes 0-%d)", t->name,
			      t->place.mem_node, max);
	}
	if (t->beh.start_ns >= sc->run.duration_ns)
		VFAIL(line_of(t, JL_THREAD_KEY_START), "thread '%s': start is not before the end of the run (duration %.3fs)",
		      t->name, (double)sc->run.duration_ns / 1e9);
	return 0;
}

/* An [expect] or [gate] line's SERIES.METRIC: the series exists, and the metric is one of its kind's. */
static int check_metric_ref(const struct jl_scenario *sc, const char *section, const char *label, const char *thread,
			    const char *metric, int line, char *err, size_t errlen)
{
	const struct jl_metric_desc *m = jl_metric_get(metric);
	enum jl_metric_scope target = JL_SCOPE_SERIES;
	const char *what = "thread or callback";

	for (int k = 0; k < sc->nsyncs; k++)
		if (!strcmp(sc->syncs[k].name, thread))
			target = JL_SCOPE_SYNC, what = "[sync]";
	if (jl_scenario_lock(sc, thread))
		target = JL_SCOPE_LOCK, what = "[lock]";
	for (int k = 0; k < sc->nsources; k++)
		if (!strcmp(sc->sources[k].t.name, thread))
			target = JL_SCOPE_SOURCE, what = "[source]";
	if (target == JL_SCOPE_SERIES && !thread_name_exists(sc, thread))
		VFAIL(line, "[%s] %s: no thread, callback, sync, lock or source '%s'", section, label, thread);
	if (m && m->scope != target && !(m->scope == JL_SCOPE_BOTH && (target == JL_SCOPE_SERIES || target == JL_SCOPE_SYNC))) {
		char names[512];
		size_t used = 0;

		names[0] = '\0';
		for (int k = 0; k < jl_nmetrics && used < sizeof(names); k++) /* the registry's, never a copy */
			if (jl_metrics[k].scope == target || (jl_metrics[k].scope == JL_SCOPE_BOTH && target == JL_SCOPE_SYNC))
				used += (size_t)snprintf(names + used, sizeof(names) - used, "%s%s", used ? ", " : "",
							 jl_metrics[k].name);
		VFAIL(line, "[%s] %s: %s is not a metric of a %s ('%s'; expected one of %s)", section, label, metric, what,
		      thread, target == JL_SCOPE_SERIES ? "the series metrics (jitterlab list)" : names);
	}
	return 0;
}

/* [run]'s keys against the rest: isolate on online CPUs with one left, housekeeping, intervals, stop_at's
 * series, trace_keep = worst only for loops, irq_affinity with isolate. 0, or -1 with ERR. */
static int validate_run(struct jl_scenario *sc, const cpu_set_t *online, char *err, size_t errlen)
{
	if (sc->run.isolate_set) {
		cpu_set_t extra, hk;
		char buf[256];
		int line = sc->run.key_line[JL_RUN_KEY_ISOLATE];

		CPU_XOR(&extra, &sc->run.isolate, online);
		CPU_AND(&extra, &extra, &sc->run.isolate);
		if (CPU_COUNT(&extra))
			VFAIL(line, "[run] isolate: CPU %s is not online", jl_cpulist_format(&extra, buf, sizeof(buf)));
		CPU_XOR(&hk, &sc->run.isolate, online);
		if (CPU_COUNT(&hk) == 0)
			VFAIL(line, "[run] isolate: shielding every online CPU (%s) leaves no housekeeping CPU",
			      jl_cpulist_format(online, buf, sizeof(buf)));
	}
	if (sc->run.housekeeping_set && validate_housekeeping(sc, online, err, errlen))
		return -1;
	if (sc->run.interval_ns > 0 && sc->run.duration_ns / sc->run.interval_ns >= JL_MAX_INTERVALS)
		VFAIL(sc->run.key_line[JL_RUN_KEY_INTERVAL], "[run] interval: %lld intervals in the duration (at most %d: "
		      "expected a longer interval)", (long long)(sc->run.duration_ns / sc->run.interval_ns), JL_MAX_INTERVALS);
	if (sc->run.stop_at.set && !thread_name_exists(sc, sc->run.stop_at.series))
		VFAIL(sc->run.key_line[JL_RUN_KEY_STOP_AT], "[run] stop_at: no loop or callback '%s' (expected the name of a "
		      "measured [thread], NAME.i of one with count, or a [callback])", sc->run.stop_at.series);
	if (sc->run.trace_keep == JL_TRACE_KEEP_WORST) {
		/* the flight recorder keeps the windows of loops' cycles: a callback's chain, a program measured
		 * from the trace need every page */
		if (sc->nexecutors > 0)
			VFAIL(sc->run.key_line[JL_RUN_KEY_TRACE_KEEP], "[run] trace_keep = worst: executor '%s' needs the "
			      "whole trace (expected trace_keep = all, or loops only)", sc->executors[0].t.name);
		for (int i = 0; i < sc->nthreads; i++)
			if (JL_MEASURE_FROM_TRACE(sc->threads[i].beh.measure))
				VFAIL(sc->run.key_line[JL_RUN_KEY_TRACE_KEEP], "[run] trace_keep = worst: thread '%s' is "
				      "measured from the trace, which needs every page (expected trace_keep = all)",
				      sc->threads[i].name);
	}
	if (sc->run.irq_affinity == JL_IRQ_HOUSEKEEPING && !sc->run.isolate_set)
		VFAIL(sc->run.key_line[JL_RUN_KEY_IRQ_AFFINITY], "[run] irq_affinity = housekeeping needs isolate (which CPUs to keep IRQs off)");
	return 0;
}

/* Sync Y: inputs, two of them, the key of its algorithm, topics that exist, not publishing to an input. */
static int validate_sync(const struct jl_scenario *sc, const struct jl_sync_spec *y, char *err, size_t errlen)
{
	const char *topics[3] = { y->inputs[0], y->inputs[1], y->publish };

	if (!y->inputs[0][0])
		VFAIL(y->line, "sync '%s': no inputs (expected inputs = TOPIC, TOPIC)", y->name);
	if (!strcmp(y->inputs[0], y->inputs[1]))
		VFAIL(y->key_line[JL_SYNC_KEY_INPUTS], "sync '%s': its two inputs are one topic", y->name);
	if (y->algorithm == 0 && y->key_line[JL_SYNC_KEY_SLOP])
		VFAIL(y->key_line[JL_SYNC_KEY_SLOP], "sync '%s': slop is for algorithm = slop (approximate takes "
		      "max_interval)", y->name);
	if (y->algorithm == 1 && y->key_line[JL_SYNC_KEY_MAX_INTERVAL])
		VFAIL(y->key_line[JL_SYNC_KEY_MAX_INTERVAL], "sync '%s': max_interval is for algorithm = approximate (slop "
		      "takes slop)", y->name);
	for (int k = 0; k < 3; k++) {
		bool known = !topics[k][0];

		for (int j = 0; j < sc->ntopics && !known; j++)
			known = !strcmp(sc->topics[j].name, topics[k]);
		if (!known)
			VFAIL(y->key_line[k < 2 ? JL_SYNC_KEY_INPUTS : JL_SYNC_KEY_PUBLISH], "sync '%s': no topic '%s' (expected "
			      "the name of a [topic] section)", y->name, topics[k]);
	}
	if (y->publish[0] && (!strcmp(y->publish, y->inputs[0]) || !strcmp(y->publish, y->inputs[1])))
		VFAIL(y->key_line[JL_SYNC_KEY_PUBLISH], "sync '%s': publishes to one of its inputs (a chain that feeds "
		      "itself)", y->name);
	return 0;
}

int jl_scenario_validate(struct jl_scenario *sc, char *err, size_t errlen)
{
	cpu_set_t online;
	int total = 0;

	if (jl_cpulist_online(&online)) {
		snprintf(err, errlen, "cannot read the online CPUs: %s", strerror(errno));
		return -1;
	}
	if (sc->nthreads == 0 && sc->nexecutors == 0)
		VFAIL(0, "no [thread NAME] or [executor NAME] section (a scenario needs at least one thread)");
	for (int i = 0; i < sc->nthreads; i++) {
		struct jl_behaviour *b = &sc->threads[i].beh;

		/* the behaviour's kind, from its keys: the one place it is decided */
		b->kind = b->attach[0] ? JL_BEH_ATTACH : b->exec[0] ? JL_BEH_EXEC : b->period_ns ? JL_BEH_PERIODIC
			  : JL_BEH_CONTINUOUS;
		if (b->attach[0])
			b->measure = JL_MEASURE_WAKEUPS;
		if (validate_thread(sc, &sc->threads[i], &online, err, errlen))
			return -1;
		total += (int)sc->threads[i].place.count;
	}
	for (int i = 0; i < sc->nexecutors; i++)
		total += (int)sc->executors[i].t.place.count;
	if (total > JL_MAX_THREADS)
		VFAIL(0, "%d threads after count expansion (at most %d)", total, JL_MAX_THREADS);
	/* a program measured from its wakeups is measured from its timer's requested expiry where the trace
	 * holds the timer: with trace left at its default, the timer group is recorded too (the run says so) */
	for (int i = 0; i < sc->nthreads && !sc->run.key_line[JL_RUN_KEY_TRACE]; i++)
		if (sc->threads[i].beh.measure == JL_MEASURE_WAKEUPS && sc->run.trace_groups &&
		    !(sc->run.trace_groups & JL_TRACE_TIMER)) {
			sc->run.trace_groups |= JL_TRACE_TIMER;
			sc->run.trace_timer_implied = true;
		}
	if (validate_run(sc, &online, err, errlen) || validate_executors(sc, &online, err, errlen))
		return -1;
	for (int i = 0; i < sc->nsyncs; i++)
		if (validate_sync(sc, &sc->syncs[i], err, errlen))
			return -1;
	if (validate_locks(sc, err, errlen) || validate_queues(sc, err, errlen))
		return -1;
	for (int i = 0; i < sc->nbudgets; i++) {
		bool found = false;

		for (int k = 0; k < sc->ncallbacks; k++)
			found |= !strcmp(sc->callbacks[k].name, sc->budgets[i].callback);
		if (!found)
			VFAIL(sc->budgets[i].line, "[budget] %s.%s: no callback '%s' (expected the name of a [callback] section)",
			      sc->budgets[i].e2e ? "e2e" : "stage", sc->budgets[i].callback, sc->budgets[i].callback);
	}
	for (int i = 0; i < sc->nexpect; i++)
		if (check_metric_ref(sc, "expect", sc->expect[i].label, sc->expect[i].thread, sc->expect[i].metric,
				     sc->expect[i].line, err, errlen))
			return -1;
	for (int i = 0; i < sc->ngates; i++)
		if (check_metric_ref(sc, "gate", sc->gates[i].label, sc->gates[i].thread, sc->gates[i].metric,
				     sc->gates[i].line, err, errlen))
			return -1;
	return 0;
}

bool jl_scenario_trace_worst(const struct jl_scenario *sc, bool rings)
{
	if (sc->run.trace_keep == JL_TRACE_KEEP_WORST)
		return true; /* the scenario check refused it where a unit needs every page */
	if (sc->run.trace_keep != JL_TRACE_KEEP_AUTO || !rings || sc->nexecutors)
		return false;
	for (int i = 0; i < sc->nthreads; i++)
		if (JL_MEASURE_FROM_TRACE(sc->threads[i].beh.measure))
			return false;
	return true;
}

bool jl_scenario_is_watch(const struct jl_scenario *sc)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (sc->threads[i].beh.attach[0])
			return true;
	return false;
}
