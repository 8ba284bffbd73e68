/* scenario_exec_keys: the application-structure sections, as key tables of the registry:
 * [executor NAME] (the placement table, shared with [thread], plus threads and dispatch) and
 * [callback NAME] (a timer callback of an executor: its group, period, phase, work, deadline). Topics,
 * triggers, polls, syncs and budgets come next, each one more table. Pure. */
#include <stdio.h>
#include <string.h>

#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/lock.h"
#include "../base/units.h"

/* ---- [executor NAME] ---- */

KEY_PARSE(exec_threads)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 1, 64, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a thread count (expected %s)", value, d->range);
		return -1;
	}
	v->place->count = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_exec_threads)
{
	snprintf(buf, len, "%u", v->place->count);
	return buf;
}

KEY_PARSE(exec_dispatch)
{
	(void)key;
	if (!strcmp(value, "rclcpp"))
		v->executor->dispatch = JL_DISPATCH_RCLCPP;
	else if (!strcmp(value, "fifo"))
		v->executor->dispatch = JL_DISPATCH_FIFO;
	else {
		snprintf(why, wl, "'%s' is not a dispatch rule (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_exec_dispatch)
{
	(void)buf, (void)len;
	return v->executor->dispatch == JL_DISPATCH_FIFO ? "fifo" : "rclcpp";
}

static const struct jl_key_desc executor_keys[] = {
	{ .name = "threads", .slot = JL_EXECUTOR_KEY_THREADS, .syntax = "N", .def = "1", .range = "1-64",
	  .help = "the executor's threads (1: a single-threaded executor); they take the wait in turn",
	  .parse = exec_threads, .format = fmt_exec_threads },
	{ .name = "dispatch", .slot = JL_EXECUTOR_KEY_DISPATCH, .syntax = "rclcpp|fifo", .def = "rclcpp", .range = "rclcpp or fifo",
	  .help = "rclcpp: a snapshot of the ready callbacks per wait, timers first, each in declaration order; "
		  "fifo: in the order they became ready",
	  .parse = exec_dispatch, .format = fmt_exec_dispatch },
};

const struct jl_key_table jl_keys_executor = { "executor", executor_keys,
					       (int)(sizeof(executor_keys) / sizeof(executor_keys[0])) };

/* ---- [callback NAME] ---- */

int jl_scenario_name_value(const char *value, char *out, size_t size, const char *what, char *why, size_t wl)
{
	if (!jl_scenario_name_ok(value) || strlen(value) >= size) {
		snprintf(why, wl, "'%s' is not %s (expected [a-z][a-z0-9_-]*, at most %zu characters)", value, what, size - 1);
		return -1;
	}
	snprintf(out, size, "%s", value);
	return 0;
}

KEY_PARSE(cb_executor)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->callback->executor, sizeof(v->callback->executor), "an executor name", why, wl);
}

KEY_FORMAT(fmt_cb_executor)
{
	(void)buf, (void)len;
	return v->callback->executor[0] ? v->callback->executor : NULL;
}

KEY_PARSE(cb_lock)
{
	(void)d, (void)key;
	if (!strcmp(value, "none")) { /* a --set takes the lock away */
		v->callback->lock[0] = '\0';
		return 0;
	}
	return jl_scenario_name_value(value, v->callback->lock, sizeof(v->callback->lock), "a lock name", why, wl);
}

KEY_FORMAT(fmt_cb_lock)
{
	(void)buf, (void)len;
	return v->callback->lock[0] ? v->callback->lock : NULL;
}

/* where a key means something, so that the scenario writer writes it back only there */
KEY_APPLIES(cb_calls)
{
	return v->callback->call[0] != 0;
}

KEY_APPLIES(cb_cancels)
{
	return v->callback->cancel_ns != 0;
}

KEY_PARSE(cb_propagate)
{
	(void)d, (void)key;
	return jl_parse_bool(value, &v->callback->propagate, why, wl);
}

KEY_FORMAT(fmt_cb_propagate)
{
	(void)buf, (void)len;
	return v->callback->propagate ? "yes" : "no";
}

KEY_PARSE(cb_margin)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->callback->margin_ns, why, wl))
		return -1;
	return 0;
}

KEY_FORMAT(fmt_cb_margin)
{
	return jl_format_duration(v->callback->margin_ns, buf, len);
}

KEY_PARSE(cb_cancel)
{
	(void)key;
	if (!strcmp(value, "none")) {
		v->callback->cancel_ns = 0;
		return 0;
	}
	if (strncmp(value, "cooperative ", 12) || jl_parse_duration(value + 12, &v->callback->cancel_ns, why, wl) ||
	    v->callback->cancel_ns <= 0) {
		snprintf(why, wl, "'%s' is not a cancellation (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_cb_cancel)
{
	char d[32];

	if (!v->callback->cancel_ns)
		return "none";
	snprintf(buf, len, "cooperative %s", jl_format_duration(v->callback->cancel_ns, d, sizeof(d)));
	return buf;
}

KEY_PARSE(cb_node)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->callback->node, sizeof(v->callback->node), "a node name", why, wl);
}

KEY_FORMAT(fmt_cb_node)
{
	(void)buf, (void)len;
	return v->callback->node[0] ? v->callback->node : NULL;
}

KEY_PARSE(cb_group)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->callback->group, sizeof(v->callback->group), "a group name", why, wl);
}

KEY_FORMAT(fmt_cb_group)
{
	(void)buf, (void)len;
	return v->callback->group;
}

KEY_PARSE(cb_period)
{
	(void)key;
	if (jl_parse_duration(value, &v->callback->period_ns, why, wl))
		return -1;
	if (v->callback->period_ns < 10000 || v->callback->period_ns > 3600 * JL_NSEC_PER_SEC) {
		snprintf(why, wl, "'%s' is out of range (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_cb_period)
{
	return v->callback->period_ns ? jl_format_duration(v->callback->period_ns, buf, len) : NULL;
}

#define TOPIC_KEY(field)                                                                                      \
	KEY_PARSE(cb_##field)                                                                                 \
	{                                                                                                     \
		(void)d, (void)key;                                                                           \
		return jl_scenario_name_value(value, v->callback->field, sizeof(v->callback->field), "a topic name", why, wl); \
	}                                                                                                     \
	KEY_FORMAT(fmt_cb_##field)                                                                            \
	{                                                                                                     \
		(void)buf, (void)len;                                                                         \
		return v->callback->field[0] ? v->callback->field : NULL;                                     \
	}
TOPIC_KEY(trigger)
TOPIC_KEY(poll)
TOPIC_KEY(publish)

KEY_PARSE(cb_phase)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->callback->phase_ns, why, wl);
}

KEY_FORMAT(fmt_cb_phase)
{
	return jl_format_duration(v->callback->phase_ns, buf, len);
}

KEY_PARSE(cb_jitter)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->callback->jitter_ns, why, wl);
}

KEY_FORMAT(fmt_cb_jitter)
{
	return jl_format_duration(v->callback->jitter_ns, buf, len);
}

KEY_PARSE(cb_work)
{
	(void)d, (void)key;
	v->callback->call[0] = '\0';
	if (!strncmp(value, "call ", 5) || !strcmp(value, "call")) { /* a request to a [queue], waited for */
		const char *q = value + 4;

		while (*q == ' ')
			q++;
		v->callback->work = (struct jl_work_spec){ .kind = JL_WORK_NONE };
		return jl_scenario_name_value(q, v->callback->call, sizeof(v->callback->call), "a queue name (call QUEUE)",
					      why, wl);
	}
	return jl_work_parse(value, &v->callback->work, why, wl);
}

KEY_FORMAT(fmt_cb_work)
{
	if (v->callback->call[0]) {
		snprintf(buf, len, "call %s", v->callback->call);
		return buf;
	}
	return jl_work_format(&v->callback->work, buf, len);
}

KEY_PARSE(cb_deadline)
{
	(void)d, (void)key;
	if (jl_parse_duration(value, &v->callback->deadline_ns, why, wl))
		return -1;
	if (v->callback->deadline_ns <= 0) {
		snprintf(why, wl, "deadline must be greater than 0");
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_cb_deadline)
{
	if (!v->callback->deadline_ns && !v->callback->period_ns)
		return NULL; /* a triggered callback without a deadline: none */
	return jl_format_duration(v->callback->deadline_ns ? v->callback->deadline_ns : v->callback->period_ns, buf, len);
}

static const struct jl_key_desc callback_keys[] = {
	{ .name = "executor", .slot = JL_CALLBACK_KEY_EXECUTOR, .syntax = "NAME", .def_doc = "none: its node's",
	  .range = "the name of an [executor] section", .help = "the executor whose threads run it",
	  .parse = cb_executor, .format = fmt_cb_executor },
	{ .name = "node", .slot = JL_CALLBACK_KEY_NODE, .syntax = "NAME", .def_doc = "none: its executor's implicit node",
	  .range = "the name of a [node] section",
	  .help = "the node it belongs to: it runs on the node's executor, and group = default is the node's own "
		  "mutually exclusive group (named like the node)",
	  .parse = cb_node, .format = fmt_cb_node },
	{ .name = "group", .slot = JL_CALLBACK_KEY_GROUP, .syntax = "NAME|reentrant", .def = "default",
	  .range = "a group name ([a-z][a-z0-9_-]*), or reentrant",
	  .help = "callbacks of one group never run at once (mutually exclusive; default: the executor's one group); "
		  "reentrant: may run on several threads at once, even with itself",
	  .parse = cb_group, .format = fmt_cb_group },
	{ .name = "period", .slot = JL_CALLBACK_KEY_PERIOD, .syntax = "DURATION", .def_doc = "none: triggered",
	  .range = "10us-1h", .help = "a timer: released every period (missed periods are skipped, the phase kept); "
				     "required unless trigger is given",
	  .parse = cb_period, .format = fmt_cb_period },
	{ .name = "trigger", .slot = JL_CALLBACK_KEY_TRIGGER, .syntax = "TOPIC", .def_doc = "none: a timer",
	  .range = "the name of a [topic] section", .help = "runs once per message of the topic (a subscription)",
	  .parse = cb_trigger, .format = fmt_cb_trigger },
	{ .name = "poll", .slot = JL_CALLBACK_KEY_POLL, .syntax = "TOPIC", .def_doc = "none",
	  .range = "the name of a [topic] section", .help = "with a period: each run reads the topic's newest message "
							     "(consumes nothing; re-reads are counted)",
	  .parse = cb_poll, .format = fmt_cb_poll },
	{ .name = "phase", .slot = JL_CALLBACK_KEY_PHASE, .syntax = "DURATION", .def = "0s", .range = "a duration",
	  .help = "the first release's offset from the executor's start", .parse = cb_phase, .format = fmt_cb_phase },
	{ .name = "jitter", .slot = JL_CALLBACK_KEY_JITTER, .syntax = "DURATION", .def = "0s", .range = "0s up to the period",
	  .help = "a timer's releases come later by a declared pseudo-random 0..jitter each ([run] seed: the same in "
		  "every run): publishers' timing is declared, never implied",
	  .parse = cb_jitter, .format = fmt_cb_jitter },
	{ .name = "work", .slot = JL_CALLBACK_KEY_WORK, .syntax = "WORK", .def = "none",
	  .range = "a work kind and its argument (jitterlab list: work kinds)", .help = "what one run of it does",
	  .parse = cb_work, .format = fmt_cb_work },
	{ .name = "publish", .slot = JL_CALLBACK_KEY_PUBLISH, .syntax = "TOPIC", .def_doc = "none",
	  .range = "the name of a [topic] section",
	  .help = "after its work, publishes a message carrying the origin time of what it consumed (a timer: its release)",
	  .parse = cb_publish, .format = fmt_cb_publish },
	{ .name = "deadline", .slot = JL_CALLBACK_KEY_DEADLINE, .syntax = "DURATION", .def_doc = "the period",
	  .range = "greater than 0", .help = "a run that ends later than release + deadline is a miss",
	  .parse = cb_deadline, .format = fmt_cb_deadline },
	{ .name = "lock", .slot = JL_CALLBACK_KEY_LOCK, .syntax = "NAME|none", .def_doc = "none", .range = "the name of a [lock] section, or none",
	  .help = "held while its work runs (taken before, given back after; its wait is part of the run)",
	  .parse = cb_lock, .format = fmt_cb_lock },
	{ .name = "deadline_propagation", .slot = JL_CALLBACK_KEY_PROPAGATION, .syntax = "BOOL", .def = "no", .range = "yes or no",
	  .help = "work = call: the call waits at most its request's remaining time minus `margin` and the request it "
		  "sends carries that deadline (on expiry: DEADLINE_EXCEEDED); no: it waits for the reply, however long",
	  .parse = cb_propagate, .format = fmt_cb_propagate, .applies = cb_calls },
	{ .name = "margin", .slot = JL_CALLBACK_KEY_MARGIN, .syntax = "DURATION", .def = "0s", .range = "a duration",
	  .help = "deadline_propagation: what the call keeps for itself of its request's remaining time",
	  .parse = cb_margin, .format = fmt_cb_margin, .applies = cb_calls },
	{ .name = "cancel", .slot = JL_CALLBACK_KEY_CANCEL, .syntax = "none|cooperative DURATION", .def = "none",
	  .range = "none, or cooperative and a duration greater than 0 (work = sleep or spin)",
	  .help = "a callback serving a [queue], when its caller gave up: none (it runs to its end, as a synchronous "
		  "handler does) or cooperative D (its work checks every D and stops)",
	  .parse = cb_cancel, .format = fmt_cb_cancel, .applies = cb_cancels },
};

const struct jl_key_table jl_keys_callback = { "callback", callback_keys,
					       (int)(sizeof(callback_keys) / sizeof(callback_keys[0])) };

/* ---- [topic NAME] ---- */

KEY_PARSE(topic_depth)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 1, 1024, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a depth (expected %s)", value, d->range);
		return -1;
	}
	v->topic->depth = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_topic_depth)
{
	snprintf(buf, len, "%u", v->topic->depth);
	return buf;
}

KEY_PARSE(topic_keep)
{
	(void)key;
	if (!strcmp(value, "last"))
		v->topic->keep = JL_KEEP_LAST;
	else if (!strcmp(value, "all"))
		v->topic->keep = JL_KEEP_ALL;
	else {
		snprintf(why, wl, "'%s' is not a history (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_topic_keep)
{
	(void)buf, (void)len;
	return v->topic->keep == JL_KEEP_ALL ? "all" : "last";
}

static const struct jl_key_desc topic_keys[] = {
	{ .name = "depth", .slot = JL_TOPIC_KEY_DEPTH, .syntax = "N", .def = "10", .range = "1-1024",
	  .help = "keep = last: each subscriber keeps this many messages, a full history drops its oldest (counted)",
	  .parse = topic_depth, .format = fmt_topic_depth },
	{ .name = "keep", .slot = JL_TOPIC_KEY_KEEP, .syntax = "last|all", .def = "last", .range = "last or all",
	  .help = "last: KEEP_LAST(depth); all: KEEP_ALL, nothing dropped (a full resource limit is an error, counted)",
	  .parse = topic_keep, .format = fmt_topic_keep },
};

const struct jl_key_table jl_keys_topic = { "topic", topic_keys, (int)(sizeof(topic_keys) / sizeof(topic_keys[0])) };

/* ---- [sync NAME] ---- */

KEY_PARSE(sync_algorithm)
{
	(void)key;
	if (!strcmp(value, "approximate"))
		v->sync->algorithm = 0;
	else if (!strcmp(value, "slop"))
		v->sync->algorithm = 1;
	else {
		snprintf(why, wl, "'%s' is not a sync algorithm (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

/* a --set algorithm drops the key the other algorithm takes (as a --set policy drops a priority) */
static void sync_algorithm_after_set(struct jl_key_view *v)
{
	if (v->key_line)
		v->key_line[v->sync->algorithm ? JL_SYNC_KEY_MAX_INTERVAL : JL_SYNC_KEY_SLOP] = 0;
}

KEY_FORMAT(fmt_sync_algorithm)
{
	(void)buf, (void)len;
	return v->sync->algorithm ? "slop" : "approximate";
}

KEY_PARSE(sync_inputs)
{
	char a[JL_NAME_MAX * 2 + 8], *comma, *b;

	(void)key;
	snprintf(a, sizeof(a), "%s", value);
	comma = strchr(a, ',');
	if (!comma || strchr(comma + 1, ',')) {
		snprintf(why, wl, "'%s' is not two topics (expected %s)", value, d->range);
		return -1;
	}
	*comma = '\0';
	for (b = comma + 1; *b == ' '; b++)
		;
	for (char *e = a + strlen(a); e > a && e[-1] == ' '; e--)
		e[-1] = '\0';
	if (jl_scenario_name_value(a, v->sync->inputs[0], sizeof(v->sync->inputs[0]), "a topic name", why, wl) ||
	    jl_scenario_name_value(b, v->sync->inputs[1], sizeof(v->sync->inputs[1]), "a topic name", why, wl))
		return -1;
	return 0;
}

KEY_FORMAT(fmt_sync_inputs)
{
	if (!v->sync->inputs[0][0])
		return NULL;
	snprintf(buf, len, "%s, %s", v->sync->inputs[0], v->sync->inputs[1]);
	return buf;
}

KEY_PARSE(sync_slop)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->sync->slop_ns, why, wl);
}

KEY_FORMAT(fmt_sync_slop)
{
	return jl_format_duration(v->sync->slop_ns, buf, len);
}

static bool sync_is_slop(const struct jl_key_view *v)
{
	return v->sync->algorithm == 1;
}

static bool sync_is_approximate(const struct jl_key_view *v)
{
	return v->sync->algorithm == 0;
}

KEY_PARSE(sync_max_interval)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->sync->max_interval_ns, why, wl);
}

KEY_FORMAT(fmt_sync_max_interval)
{
	return jl_format_duration(v->sync->max_interval_ns, buf, len);
}

KEY_PARSE(sync_queue)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 1, 64, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a queue size (expected %s)", value, d->range);
		return -1;
	}
	v->sync->queue = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_sync_queue)
{
	snprintf(buf, len, "%u", v->sync->queue);
	return buf;
}

KEY_PARSE(sync_publish)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->sync->publish, sizeof(v->sync->publish), "a topic name", why, wl);
}

KEY_FORMAT(fmt_sync_publish)
{
	(void)buf, (void)len;
	return v->sync->publish[0] ? v->sync->publish : NULL;
}

static const struct jl_key_desc sync_keys[] = {
	{ .name = "algorithm", .slot = JL_SYNC_KEY_ALGORITHM, .syntax = "approximate|slop", .def = "approximate",
	  .range = "approximate or slop",
	  .help = "approximate: message_filters' ApproximateTime (emits a set when no better one can come); slop: "
		  "the Python ApproximateTimeSynchronizer (pairs on arrival within slop)",
	  .parse = sync_algorithm, .format = fmt_sync_algorithm, .after_set = sync_algorithm_after_set },
	{ .name = "inputs", .slot = JL_SYNC_KEY_INPUTS, .syntax = "TOPIC, TOPIC", .def_doc = "none: required",
	  .range = "two [topic] names, comma separated", .help = "the two topics it pairs",
	  .parse = sync_inputs, .format = fmt_sync_inputs },
	{ .name = "slop", .slot = JL_SYNC_KEY_SLOP, .syntax = "DURATION", .def = "0s", .range = "a duration (algorithm = slop)",
	  .help = "slop: the largest stamp difference of a set", .parse = sync_slop, .format = fmt_sync_slop,
	  .applies = sync_is_slop },
	{ .name = "max_interval", .slot = JL_SYNC_KEY_MAX_INTERVAL, .syntax = "DURATION", .def = "0s",
	  .range = "a duration, 0s = any (algorithm = approximate)",
	  .help = "approximate: the largest stamp difference of a set", .parse = sync_max_interval,
	  .format = fmt_sync_max_interval, .applies = sync_is_approximate },
	{ .name = "queue", .slot = JL_SYNC_KEY_QUEUE, .syntax = "N", .def = "10", .range = "1-64",
	  .help = "messages kept per input (the oldest goes)", .parse = sync_queue, .format = fmt_sync_queue },
	{ .name = "publish", .slot = JL_SYNC_KEY_PUBLISH, .syntax = "TOPIC", .def_doc = "none",
	  .range = "the name of a [topic] section", .help = "one message per set, carrying the older stamp as its origin",
	  .parse = sync_publish, .format = fmt_sync_publish },
};

const struct jl_key_table jl_keys_sync = { "sync", sync_keys, (int)(sizeof(sync_keys) / sizeof(sync_keys[0])) };

/* ---- [node NAME] ---- */

KEY_PARSE(node_executor)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->node->executor, sizeof(v->node->executor), "an executor name", why, wl);
}

KEY_FORMAT(fmt_node_executor)
{
	(void)buf, (void)len;
	return v->node->executor[0] ? v->node->executor : NULL;
}

static const struct jl_key_desc node_keys[] = {
	{ .name = "executor", .slot = JL_NODE_KEY_EXECUTOR, .syntax = "NAME", .def_doc = "none: required",
	  .range = "the name of an [executor] section", .help = "the executor its callbacks run on",
	  .parse = node_executor, .format = fmt_node_executor },
};

const struct jl_key_table jl_keys_node = { "node", node_keys, (int)(sizeof(node_keys) / sizeof(node_keys[0])) };

/* ---- [lock NAME] ---- */

KEY_PARSE(lock_kind)
{
	int k = jl_lock_kind_parse(value);

	(void)key;
	if (k < 0) {
		snprintf(why, wl, "'%s' is not a lock kind (expected %s)", value, d->range);
		return -1;
	}
	v->lock->kind = k;
	return 0;
}

KEY_FORMAT(fmt_lock_kind)
{
	(void)buf, (void)len;
	return jl_lock_kind_name((enum jl_lock_kind)v->lock->kind);
}

KEY_PARSE(lock_ceiling)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 1, 99, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a priority (expected %s)", value, d->range);
		return -1;
	}
	v->lock->ceiling = (int)n;
	return 0;
}

KEY_FORMAT(fmt_lock_ceiling)
{
	if (!v->lock->ceiling)
		return NULL;
	snprintf(buf, len, "%d", v->lock->ceiling);
	return buf;
}

KEY_APPLIES(is_biglock)
{
	return v->lock->kind == JL_LOCK_BIGLOCK;
}

KEY_PARSE(lock_switch)
{
	(void)key;
	if (jl_parse_duration(value, &v->lock->switch_interval_ns, why, wl) || v->lock->switch_interval_ns < 1000 ||
	    v->lock->switch_interval_ns > 1000000000) {
		snprintf(why, wl, "'%s' is not a switch interval (expected %s)", value, d->range);
		return -1;
	}
	return 0;
}

KEY_FORMAT(fmt_lock_switch)
{
	return jl_format_duration(v->lock->switch_interval_ns, buf, len);
}

KEY_PARSE(lock_handoffs)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 0, 1000, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a number of hand-offs (expected %s)", value, d->range);
		return -1;
	}
	v->lock->handoffs = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_lock_handoffs)
{
	snprintf(buf, len, "%u", v->lock->handoffs);
	return buf;
}

static const struct jl_key_desc lock_keys[] = {
	{ .name = "kind", .slot = JL_LOCK_KEY_KIND, .syntax = "mutex|pi|ceiling|biglock", .def = "mutex",
	  .range = "mutex, pi, ceiling or biglock",
	  .help = "mutex: no priority protocol (a waiter can wait as long as a middle task keeps the holder off its "
		  "CPU); pi: priority inheritance (PTHREAD_PRIO_INHERIT); ceiling: priority protection "
		  "(PTHREAD_PRIO_PROTECT): its holders run at `ceiling`; biglock: CPython's interpreter lock "
		  "(switch_interval, handoffs)",
	  .parse = lock_kind, .format = fmt_lock_kind },
	{ .name = "ceiling", .slot = JL_LOCK_KEY_CEILING, .syntax = "PRIO", .def_doc = "none (kind = ceiling: required)",
	  .range = "1-99, at least the priority of every fifo or rr user",
	  .help = "kind = ceiling: the SCHED_FIFO priority a holder runs at while it holds the lock",
	  .parse = lock_ceiling, .format = fmt_lock_ceiling },
	{ .name = "switch_interval", .slot = JL_LOCK_KEY_SWITCH, .syntax = "DURATION", .def = "5ms", .range = "1us-1s",
	  .help = "biglock: a waiter asks the holder to drop it after this long (CPython's sys.setswitchinterval); the "
		  "holder drops it at its next check point (`sin` has them, `spin` none, `sleep` drops it at once) "
		  "and waits until the waiter has taken it",
	  .parse = lock_switch, .format = fmt_lock_switch, .applies = is_biglock },
	{ .name = "handoffs", .slot = JL_LOCK_KEY_HANDOFFS, .syntax = "N", .def = "0", .range = "0-1000",
	  .help = "biglock: extra release/retake round trips per work call (an interpreter's executor does several per "
		  "dispatch; each may wait a switch interval for a computing holder)",
	  .parse = lock_handoffs, .format = fmt_lock_handoffs, .applies = is_biglock },
};

const struct jl_key_table jl_keys_lock = { "lock", lock_keys, (int)(sizeof(lock_keys) / sizeof(lock_keys[0])) };

/* ---- [queue NAME]: a topic entry with queue = true ---- */

KEY_PARSE(queue_depth)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 1, JL_TOPIC_KEEP_ALL_LIMIT, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a depth (expected %s)", value, d->range);
		return -1;
	}
	v->topic->depth = (unsigned)n;
	return 0;
}

KEY_PARSE(queue_limit)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 0, JL_TOPIC_KEEP_ALL_LIMIT, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a limit (expected %s)", value, d->range);
		return -1;
	}
	v->topic->limit = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_queue_limit)
{
	snprintf(buf, len, "%u", v->topic->limit);
	return buf;
}

static const struct jl_key_desc queue_keys[] = {
	{ .name = "depth", .slot = JL_TOPIC_KEY_DEPTH, .syntax = "N", .def = "100", .range = "1-4096",
	  .help = "requests it holds waiting for a thread of its serving callback; a full queue refuses the next (counted)",
	  .parse = queue_depth, .format = fmt_topic_depth },
	{ .name = "limit", .slot = JL_TOPIC_KEY_LIMIT, .syntax = "N", .def = "0", .range = "0 (none) or at most the depth",
	  .help = "at most this many requests in service or queued: the rest are refused at once (RESOURCE_EXHAUSTED, "
		  "as a gRPC server's maximum_concurrent_rpcs does)",
	  .parse = queue_limit, .format = fmt_queue_limit },
};

const struct jl_key_table jl_keys_queue = { "queue", queue_keys, (int)(sizeof(queue_keys) / sizeof(queue_keys[0])) };

/* ---- [source NAME]: placement keys, then these ---- */

KEY_APPLIES(src_bursts)
{
	return v->source->burst != 0;
}

KEY_APPLIES(src_rates)
{
	return v->source->rate_hz > 0;
}

KEY_PARSE(src_target)
{
	(void)d, (void)key;
	return jl_scenario_name_value(value, v->source->target, sizeof(v->source->target), "a queue name", why, wl);
}

KEY_FORMAT(fmt_src_target)
{
	(void)buf, (void)len;
	return v->source->target[0] ? v->source->target : NULL;
}

KEY_PARSE(src_burst)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 0, 100000, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a burst (expected %s)", value, d->range);
		return -1;
	}
	v->source->burst = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_src_burst)
{
	snprintf(buf, len, "%u", v->source->burst);
	return buf;
}

KEY_PARSE(src_rate)
{
	int64_t period;

	(void)d, (void)key;
	if (jl_parse_rate(value, &period, why, wl))
		return -1;
	v->source->rate_hz = 1e9 / (double)period;
	return 0;
}

KEY_FORMAT(fmt_src_rate)
{
	if (v->source->rate_hz <= 0)
		return NULL;
	snprintf(buf, len, "%gHz", v->source->rate_hz);
	return buf;
}

KEY_PARSE(src_count)
{
	long long n;

	(void)key;
	if (jl_parse_int(value, 0, 10000000, &n, why, wl)) {
		snprintf(why, wl, "'%s' is not a count (expected %s)", value, d->range);
		return -1;
	}
	v->source->count = (unsigned)n;
	return 0;
}

KEY_FORMAT(fmt_src_count)
{
	snprintf(buf, len, "%u", v->source->count);
	return buf;
}

KEY_PARSE(src_start)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->source->t.beh.start_ns, why, wl);
}

KEY_FORMAT(fmt_src_start)
{
	return jl_format_duration(v->source->t.beh.start_ns, buf, len);
}

KEY_PARSE(src_deadline)
{
	(void)d, (void)key;
	return jl_parse_duration(value, &v->source->deadline_ns, why, wl);
}

KEY_FORMAT(fmt_src_deadline)
{
	if (!v->source->deadline_ns)
		return NULL;
	return jl_format_duration(v->source->deadline_ns, buf, len);
}

static const struct jl_key_desc source_keys[] = {
	{ .name = "target", .slot = JL_SOURCE_KEY_TARGET, .syntax = "QUEUE", .def_doc = "none: required",
	  .range = "the name of a [queue] section", .help = "the queue its requests go to", .parse = src_target,
	  .format = fmt_src_target },
	{ .name = "burst", .slot = JL_SOURCE_KEY_BURST, .syntax = "N", .def = "0", .range = "0-100000 (0: use rate)",
	  .help = "N requests at once, at start", .parse = src_burst, .format = fmt_src_burst, .applies = src_bursts },
	{ .name = "rate", .slot = JL_SOURCE_KEY_RATE, .syntax = "RATE", .def_doc = "none", .range = "a rate (5Hz)",
	  .help = "one request every 1/RATE from start (open loop: it never waits for a reply)", .parse = src_rate,
	  .format = fmt_src_rate },
	{ .name = "count", .slot = JL_SOURCE_KEY_COUNT, .syntax = "N", .def = "0", .range = "0 (until the end) or more",
	  .help = "rate: how many requests", .parse = src_count, .format = fmt_src_count, .applies = src_rates },
	{ .name = "start", .slot = JL_SOURCE_KEY_START, .syntax = "DURATION", .def = "0s", .range = "a duration",
	  .help = "when it begins, after the measured phase begins", .parse = src_start, .format = fmt_src_start },
	{ .name = "deadline", .slot = JL_SOURCE_KEY_DEADLINE, .syntax = "DURATION", .def_doc = "none",
	  .range = "a duration (0s: none)",
	  .help = "per request, from its creation: the client gives up then (DEADLINE_EXCEEDED; what the servers still "
		  "do for it is wasted)", .parse = src_deadline, .format = fmt_src_deadline },
};

const struct jl_key_table jl_keys_source = { "source", source_keys, (int)(sizeof(source_keys) / sizeof(source_keys[0])) };
