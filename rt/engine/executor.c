/* executor: the driver of an [executor NAME] unit: a pool of threads that run the unit's
 * callbacks by the dispatch model (dispatch.h), one series per callback.
 *
 * The dispatch, as engine.h's rules say: the model sits behind one priority-inheriting mutex
 * (PTHREAD_PRIO_INHERIT); a thread with nothing to run waits with one futex wait, absolute on
 * CLOCK_MONOTONIC, until the next timer release or a change (a callback ended: its group is free again; the
 * stop). No allocation, I/O or logging after the start gate: the samples go to the callbacks'
 * preallocated series, appended under the same lock (a reentrant callback may end on two threads at once).
 * The threads take the wait in turn (whoever holds the lock), so which thread runs what is what really
 * happened, never an assignment rule. */
#include <errno.h>
#include <limits.h>
#include <linux/futex.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "../base/memlock.h"
#include "../base/stop.h"
#include "../base/units.h"
#include "dispatch.h"
#include "engine.h"
#include "request.h"
#include "sync.h"

struct exec_ctx;

/* Where a message comes from (a chain's links, read back by chains.c): the data's origin and the run
 * that published it */
struct prov {
	int64_t origin;              /* when the data it carries was produced */
	uint32_t src_run;            /* the publishing run (its series' sample .run) */
	uint16_t src;                /* the publisher's series id + 1 */
	uint8_t via_sync;            /* it came out of sync via_sync - 1 (0: straight) */
	uint32_t req;                /* a request to a queue: its index + 1 (0: a message of a topic) */
};

/* One message in a subscriber's history */
struct msg {
	struct prov p;
	int64_t at;                  /* when it was published (a triggered callback's ready time) */
	uint64_t seq;                /* its number among the messages of this history, from 1 */
};

/* One subscriber's history of a topic (a trigger or a poll callback), guarded by its executor's lock */
struct sub {
	struct exec_ctx *x;
	int cb;                      /* the callback in that executor */
	int topic;                   /* index in the scenario's topics */
	bool poll;
	bool queue;                  /* a [queue]'s one serving callback (requests, replied to at each run's end) */
	unsigned limit;              /* a queue: in service + queued at most this (0: none) */
	unsigned in_service;         /* a queue: requests its callback is serving now */
	enum jl_keep keep;
	unsigned cap, head, n;       /* a ring of cap messages: depth (keep last) or the limit (keep all) */
	struct msg *ring;
	uint64_t seq, last_read;     /* messages published to it; the last one a poll read */
	int sid;                     /* its callback's series (an index: the array moves during init) */
};

/* A [sync NAME]: the pairing model behind its own (PI) lock, fed by the publishers of its inputs */
struct bsync {
	const struct jl_sync_spec *spec;
	pthread_mutex_t mu;
	struct jl_sync model;
	int in[2], out;              /* topics (out: -1 = none) */
	struct {                     /* per input, the provenance of its last messages (the model's queue */
		struct prov p[JL_SYNC_QUEUE_MAX]; /* holds stamps only): what a set's message carries on */
		unsigned next;
	} seen[2];
};

/* The provenance of the message of INPUT stamped STAMP, among the last JL_SYNC_QUEUE_MAX it got */
static struct prov sync_seen(const struct bsync *y, int input, int64_t stamp)
{
	for (unsigned k = 0; k < JL_SYNC_QUEUE_MAX; k++)
		if (y->seen[input].p[k].origin == stamp)
			return y->seen[input].p[k];
	return (struct prov){ .origin = stamp };
}

/* The topics: every subscriber of every executor of the run, the syncs, and the requests to queues
 * (eng->app) */
struct bus {
	struct jl_engine *eng;
	int nsubs, refs, nsyncs;
	struct sub subs[JL_MAX_CALLBACKS];
	struct bsync syncs[JL_MAX_SYNCS];
	struct jl_request *reqs;     /* preallocated: every source's requests and the calls they cause */
	size_t req_cap;
	atomic_size_t nreq;          /* slots claimed (beyond req_cap: counted in req_lost) */
	atomic_size_t req_lost;
};

static size_t request_bound(const struct jl_scenario *sc);

static struct bus *bus_new(struct jl_engine *eng)
{
	const struct jl_scenario *sc = eng->sc;
	struct bus *bus = calloc(1, sizeof(*bus));
	pthread_mutexattr_t ma;

	if (!bus)
		return NULL;
	bus->eng = eng;
	bus->req_cap = request_bound(sc);
	if (bus->req_cap && !(bus->reqs = calloc(bus->req_cap, sizeof(*bus->reqs)))) {
		free(bus);
		return NULL;
	}
	/* the measured threads' topics, syncs and requests: locked (and so prefaulted) as they are made */
	jl_memlock_range(bus, sizeof(*bus));
	jl_memlock_range(bus->reqs, bus->req_cap * sizeof(*bus->reqs));
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	for (int i = 0; i < sc->nsyncs; i++) {
		struct bsync *y = &bus->syncs[bus->nsyncs];

		y->spec = &sc->syncs[i];
		jl_sync_init(&y->model, sc->syncs[i].algorithm ? JL_SYNC_SLOP : JL_SYNC_APPROXIMATE, sc->syncs[i].slop_ns,
			     sc->syncs[i].max_interval_ns, sc->syncs[i].queue);
		y->in[0] = jl_scenario_topic_index(sc, sc->syncs[i].inputs[0]);
		y->in[1] = jl_scenario_topic_index(sc, sc->syncs[i].inputs[1]);
		y->out = sc->syncs[i].publish[0] ? jl_scenario_topic_index(sc, sc->syncs[i].publish) : -1;
		if (pthread_mutex_init(&y->mu, &ma))
			break;
		bus->nsyncs++;
	}
	pthread_mutexattr_destroy(&ma);
	return bus;
}

/* ---- requests to queues (request.h) ---- */

static const char *const req_status_names[] = { [JL_REQ_PENDING] = "pending", [JL_REQ_OK] = "ok",
						 [JL_REQ_DEADLINE] = "deadline_exceeded", [JL_REQ_REFUSED] = "dropped" };

const char *jl_req_status_name(enum jl_req_status s)
{
	return (unsigned)s < sizeof(req_status_names) / sizeof(req_status_names[0]) ? req_status_names[s] : "?";
}

/* Requests the run can make: every source's (a burst, a count, or a rate over the whole run), each
 * causing at most one call per calling callback on its way */
static size_t request_bound(const struct jl_scenario *sc)
{
	size_t n = 0, calls = 0, timer_calls = 0;
	const double run_s = (double)(sc->run.warmup_ns + sc->run.duration_ns) / 1e9;

	for (int i = 0; i < sc->nsources; i++) {
		const struct jl_source_spec *s = &sc->sources[i];

		n += s->burst ? s->burst : s->count ? s->count : (size_t)(s->rate_hz * run_s) + 2;
	}
	for (int i = 0; i < sc->ncallbacks; i++) {
		const struct jl_callback_spec *c = &sc->callbacks[i];

		if (!c->call[0])
			continue;
		calls++;
		if (c->period_ns) /* a timer that calls: one request per release */
			timer_calls += jl_engine_loop_capacity(sc, c->period_ns);
	}
	/* every request (a source's or a timer's call) causes at most one call per calling callback on its way;
	 * a callback triggered by a topic that calls: one per message, a timer's release at most each */
	n = (n + timer_calls) * (calls + 1) + 16;
	return n < (1u << 22) ? n : (1u << 22);
}

/* A new request to TOPIC at NOW (its slot, or -1: no slot left, counted) */
static int req_new(struct bus *bus, int topic, int64_t now, int64_t deadline, int parent, int source)
{
	size_t i = atomic_fetch_add(&bus->nreq, 1);
	struct jl_request *r;

	if (i >= bus->req_cap) {
		atomic_fetch_add(&bus->req_lost, 1);
		return -1;
	}
	r = &bus->reqs[i];
	r->created = now;
	r->deadline = deadline;
	r->parent = parent;
	r->topic = (int16_t)topic;
	r->source = (int16_t)source;
	r->server = -1;
	return (int)i;
}

/* R is answered (served, or refused) with STATUS at NOW: its caller, if waiting, wakes */
static void req_reply(struct jl_request *r, enum jl_req_status status, int64_t now)
{
	r->end = now;
	atomic_store(&r->status, (uint8_t)status);
	atomic_store_explicit(&r->done, 1, memory_order_release);
	syscall(SYS_futex, &r->done, FUTEX_WAKE_PRIVATE, INT_MAX, NULL, NULL, 0);
}

/* Has R's requester stopped waiting by NOW (its deadline passed, or its caller gave up)? What a server
 * with cancel = cooperative checks */
static bool req_abandoned(const struct jl_request *r, int64_t now)
{
	return (r->deadline && now >= r->deadline) || atomic_load(&r->gave_up);
}

const struct jl_request *jl_executor_requests(const struct jl_engine *eng, size_t *n, size_t *lost)
{
	const struct bus *bus = eng->app;
	size_t k = bus ? atomic_load(&((struct bus *)bus)->nreq) : 0;

	*n = bus && k > bus->req_cap ? bus->req_cap : k;
	*lost = bus ? atomic_load(&((struct bus *)bus)->req_lost) : 0;
	return bus ? bus->reqs : NULL;
}

const struct jl_request *jl_request_root(const struct jl_request *reqs, size_t n, const struct jl_request *r)
{
	for (int hops = 0; r->parent >= 0 && (size_t)r->parent < n && hops < 64; hops++)
		r = &reqs[r->parent];
	return r;
}

int64_t jl_request_given_up(const struct jl_request *reqs, size_t n, const struct jl_request *r)
{
	int64_t g = 0;

	for (int hops = 0; r && hops < 64; hops++) {
		int64_t mine = jl_request_gave_up(r);

		if (r->deadline && (!r->end || r->end > r->deadline) && (!mine || r->deadline < mine))
			mine = r->deadline; /* its requester's deadline passed before the reply */
		if (mine && (!g || mine < g))
			g = mine;
		r = r->parent >= 0 && (size_t)r->parent < n ? &reqs[r->parent] : NULL;
	}
	return g;
}

int64_t jl_request_wasted(const struct jl_request *reqs, size_t n, const struct jl_request *r)
{
	const int64_t g = jl_request_given_up(reqs, n, r);
	int64_t from;

	if (!g || !r->start || !r->end)
		return 0;
	from = r->start > g ? r->start : g;
	return r->end > from ? r->end - from : 0;
}

int jl_executor_syncs(const struct jl_engine *eng, struct jl_sync_report *out, int max)
{
	const struct bus *bus = eng->app;
	int n = 0;

	for (int i = 0; bus && i < bus->nsyncs && n < max; i++, n++) {
		out[n].spec = bus->syncs[i].spec;
		out[n].model = bus->syncs[i].model;
	}
	return n;
}

struct exec_ctx {
	const struct jl_executor_spec *spec;
	struct bus *bus;
	int *sub;                    /* per callback: its history in the bus, or -1 */
	int *pub;                    /* per callback: the topic it publishes to, or -1 */
	int *call;                   /* per callback: the queue its work calls (work = call QUEUE), or -1 */
	uint32_t *carry;             /* per callback: releases skipped after its last run (the next sample's) */
	uint64_t *skipped_seen;      /* per callback: the model's skip count at its last take */
	int active;                  /* pool threads still in the loop */
	pthread_mutex_t mu;
	bool mu_init;
	atomic_uint word;            /* futex the leader waits on: bumped on every change it must see */
	atomic_uint fword;           /* futex the followers wait on: bumped to hand the leadership on */
	bool leader;                 /* a thread waits for the next release or change (the wait's holder) */
	int followers;               /* threads waiting to become the leader */
	struct jl_dispatch d;
	bool d_init, started;
	int ncb;
	struct jl_dcb *dcb;
	const struct jl_callback_spec **cb; /* per callback: its section */
	struct jl_work_state *work;  /* per callback */
	int first_series;            /* callback i's series: eng->series[first_series + i] */
};

static int futex_wait_until(atomic_uint *word, unsigned val, int64_t abs_ns)
{
	struct timespec ts = { abs_ns / JL_NSEC_PER_SEC, abs_ns % JL_NSEC_PER_SEC };

	/* FUTEX_WAIT_BITSET takes an absolute time, on CLOCK_MONOTONIC unless FUTEX_CLOCK_REALTIME */
	return (int)syscall(SYS_futex, word, FUTEX_WAIT_BITSET_PRIVATE, val, &ts, NULL, FUTEX_BITSET_MATCH_ANY);
}

static void futex_wake(atomic_uint *word, int n)
{
	atomic_fetch_add_explicit(word, 1, memory_order_release);
	syscall(SYS_futex, word, FUTEX_WAKE_PRIVATE, n, NULL, NULL, 0);
}

/* A change the leader must see (a message, a group freed, the stop): only the leader waits on WORD */
static void futex_wake_all(atomic_uint *word)
{
	futex_wake(word, INT_MAX);
}

static const struct jl_executor_spec *executor_of(const struct jl_unit *u)
{
	return (const struct jl_executor_spec *)u->spec; /* the thread spec is the executor spec's first member */
}

static void executor_fini(struct jl_unit *u)
{
	struct exec_ctx *x = u->ctx;

	if (!x)
		return;
	if (x->bus && --x->bus->refs == 0) {
		for (int i = 0; i < x->bus->nsubs; i++)
			free(x->bus->subs[i].ring);
		for (int i = 0; i < x->bus->nsyncs; i++)
			pthread_mutex_destroy(&x->bus->syncs[i].mu);
		free(x->bus->reqs);
		free(x->bus);
		u->eng->app = NULL;
	}
	free(x->sub);
	free(x->pub);
	free(x->call);
	free(x->carry);
	free(x->skipped_seen);
	for (int i = 0; x->work && i < x->ncb; i++)
		jl_work_release(&x->work[i]);
	if (x->d_init)
		jl_dispatch_free(&x->d);
	if (x->mu_init)
		pthread_mutex_destroy(&x->mu);
	free(x->work);
	free(x->cb);
	free(x->dcb);
	free(x);
	u->ctx = NULL;
}

#define SERIES(bus, b) (&(bus)->eng->series[(b)->sid])

/* Messages a triggered callback can get at most: every message starts at a timer's release or is a
 * request (a source's or a call's), and each reaches a subscriber at most once */
static size_t message_bound(const struct jl_scenario *sc)
{
	size_t n = 16 + request_bound(sc); /* and every request a source or a call makes */

	for (int i = 0; i < sc->ncallbacks; i++)
		if (sc->callbacks[i].period_ns)
			n += jl_engine_loop_capacity(sc, sc->callbacks[i].period_ns);
	return n;
}

/* Publish a message with ORIGIN to TOPIC at NOW: into every subscriber's history, each under its own
 * executor's lock (never two locks at once: the caller holds none). A full keep-last history drops its
 * oldest (a trigger then has no new message to run for: the count is the same); keep-all at its limit
 * loses the new one, an error. */
static void publish(struct bus *bus, int topic, const struct prov *p, int64_t now)
{
	for (int i = 0; i < bus->nsubs; i++) {
		struct sub *b = &bus->subs[i];
		bool post = true;

		if (b->topic != topic)
			continue;
		pthread_mutex_lock(&b->x->mu);
		b->seq++;
		SERIES(bus, b)->msgs.published++;
		if (b->queue && p->req && (b->n == b->cap || (b->limit && b->n + b->in_service >= b->limit))) {
			/* a queue refuses at once what its limit (or its depth) has no room for */
			SERIES(bus, b)->msgs.limit_errors += b->n == b->cap;
			SERIES(bus, b)->msgs.never++;
			pthread_mutex_unlock(&b->x->mu);
			req_reply(&bus->reqs[p->req - 1], JL_REQ_REFUSED, now);
			continue;
		}
		if (b->n == b->cap) {
			if (b->keep == JL_KEEP_ALL) {
				SERIES(bus, b)->msgs.limit_errors++;
				SERIES(bus, b)->msgs.never++;
				pthread_mutex_unlock(&b->x->mu);
				continue;
			}
			if (!b->poll || b->ring[b->head].seq > b->last_read)
				SERIES(bus, b)->msgs.never++;  /* gone before it was consumed */
			SERIES(bus, b)->msgs.dropped++;
			b->head = (b->head + 1) % b->cap;
			b->n--;
			post = false;
		}
		b->ring[(b->head + b->n) % b->cap] = (struct msg){ .p = *p, .at = now, .seq = b->seq };
		b->n++;
		post = post && !b->poll; /* a poll reads on its own period: nothing to wake it for */
		if (post)
			jl_dispatch_post(&b->x->d, b->cb, now);
		pthread_mutex_unlock(&b->x->mu);
		if (post)
			futex_wake_all(&b->x->word);
	}
	/* the syncs fed by this topic: their sets go on to their output topic (after their lock is released) */
	for (int i = 0; i < bus->nsyncs; i++) {
		struct bsync *y = &bus->syncs[i];
		const int input = y->in[0] == topic ? 0 : 1;
		struct prov out[4];
		int64_t sets[4][2];
		int n = 0;

		if (y->in[0] != topic && y->in[1] != topic)
			continue;
		pthread_mutex_lock(&y->mu);
		y->seen[input].p[y->seen[input].next++ % JL_SYNC_QUEUE_MAX] = *p;
		n = jl_sync_add(&y->model, input, p->origin, sets, 4);
		for (int k = 0; k < n && k < 4; k++) { /* the fused data is as old as its older part, and its link */
			const int older = sets[k][0] <= sets[k][1] ? 0 : 1;

			out[k] = sync_seen(y, older, sets[k][older]);
			out[k].via_sync = (uint8_t)(i + 1);
		}
		pthread_mutex_unlock(&y->mu);
		for (int k = 0; k < n && k < 4 && y->out >= 0; k++)
			publish(bus, y->out, &out[k], now);
	}
}

/* What callback CB consumes as it starts (under its executor's lock): a trigger takes its oldest message,
 * a poll reads its newest (a first read, or a re-read: *REREAD, its age is not the data's age at
 * consumption, the model's measure). Returns the message's provenance (origin 0: no data), or READY as
 * the origin of a callback that consumes nothing (a timer: its data is its own). */
static struct prov consume(struct exec_ctx *x, int cb, int64_t *ready, bool *reread)
{
	struct bus *bus = x->bus;
	struct sub *b;
	struct prov p;

	*reread = false;
	if (x->sub[cb] < 0)
		return (struct prov){ .origin = *ready };
	b = &x->bus->subs[x->sub[cb]];
	if (!b->n)
		return (struct prov){ 0 };
	if (!b->poll) {
		p = b->ring[b->head].p;
		*ready = b->ring[b->head].at; /* this message's arrival, not the first pending one's */
		b->head = (b->head + 1) % b->cap;
		b->n--;
		SERIES(bus, b)->msgs.consumed++;
		if (b->n) /* fifo: the rest wait in their own arrival order, behind what arrived before them */
			jl_dispatch_restamp(&x->d, cb, b->ring[b->head].at);
		return p;
	}
	{
		const struct msg *m = &b->ring[(b->head + b->n - 1) % b->cap];

		if (m->seq > b->last_read) {
			SERIES(bus, b)->msgs.consumed++;
			SERIES(bus, b)->msgs.never += m->seq - b->last_read - 1; /* published since its last read, never read */
			b->last_read = m->seq;
		} else {
			SERIES(bus, b)->msgs.rereads++;
			*reread = true;
		}
		return m->p;
	}
}

/* The groups of the executor's callbacks: "reentrant", or a named mutually exclusive group (numbered in
 * the order first named). */
#define GROUP_NEW (-2) /* not a group named yet (never JL_GROUP_REENTRANT) */

static int group_index(const char *const *names, int *n, const char *name)
{
	if (!strcmp(name, "reentrant"))
		return JL_GROUP_REENTRANT;
	for (int i = 0; i < *n; i++)
		if (!strcmp(names[i], name))
			return i;
	return GROUP_NEW;
}

/* X's tables, one entry per callback of the executor (and one more), locked in memory: what the pool's
 * threads use on every dispatch; the application's message bus, shared by the executors. 0, or -1 with ERR. */
static int exec_tables(struct jl_unit *u, struct exec_ctx *x, char *err, size_t errlen)
{
	size_t n = (size_t)x->ncb + 1;

	x->dcb = calloc(n, sizeof(*x->dcb));
	x->cb = calloc(n, sizeof(*x->cb));
	x->work = calloc(n, sizeof(*x->work));
	x->sub = calloc(n, sizeof(*x->sub));
	x->pub = calloc(n, sizeof(*x->pub));
	x->call = calloc(n, sizeof(*x->call));
	x->carry = calloc(n, sizeof(*x->carry));
	x->skipped_seen = calloc(n, sizeof(*x->skipped_seen));
	if (!u->eng->app)
		u->eng->app = bus_new(u->eng);
	x->bus = u->eng->app;
	if (x->bus)
		x->bus->refs++;
	if (!x->dcb || !x->cb || !x->work || !x->sub || !x->pub || !x->call || !x->carry || !x->skipped_seen || !x->bus) {
		snprintf(err, errlen, "executor '%s': out of memory", x->spec->t.name);
		return -1;
	}
	jl_memlock_range(x, sizeof(*x));
	jl_memlock_range(x->dcb, n * sizeof(*x->dcb));
	jl_memlock_range(x->cb, n * sizeof(*x->cb));
	jl_memlock_range(x->work, n * sizeof(*x->work));
	jl_memlock_range(x->sub, n * sizeof(*x->sub));
	jl_memlock_range(x->pub, n * sizeof(*x->pub));
	jl_memlock_range(x->call, n * sizeof(*x->call));
	jl_memlock_range(x->carry, n * sizeof(*x->carry));
	jl_memlock_range(x->skipped_seen, n * sizeof(*x->skipped_seen));
	return 0;
}

/* Callback C (X's next) subscribes to its trigger's or poll's topic: its history ring, sized by the topic's
 * QoS (keep last: depth; keep all: the resource limit; a queue holds depth requests), locked. S: its series.
 * 0, or -1 with ERR. */
static int add_subscriber(struct exec_ctx *x, const struct jl_scenario *sc, const struct jl_callback_spec *c,
			  struct jl_series *s, char *err, size_t errlen)
{
	const struct jl_topic_spec *t;
	struct sub *b;

	if (x->bus->nsubs >= JL_MAX_CALLBACKS) {
		snprintf(err, errlen, "callback '%s': too many subscribers", c->name);
		return -1;
	}
	b = &x->bus->subs[x->bus->nsubs];
	memset(b, 0, sizeof(*b));
	b->x = x;
	b->cb = x->ncb;
	b->poll = c->poll[0] != 0;
	b->topic = jl_scenario_topic_index(sc, c->trigger[0] ? c->trigger : c->poll); /* validated: it exists */
	t = &sc->topics[b->topic];
	b->keep = t->keep;
	b->queue = t->queue;
	b->limit = t->limit;
	b->cap = b->keep == JL_KEEP_ALL && !b->queue ? JL_TOPIC_KEEP_ALL_LIMIT : t->depth;
	b->ring = calloc(b->cap ? b->cap : 1, sizeof(*b->ring));
	if (!b->ring) {
		snprintf(err, errlen, "callback '%s': out of memory for its history", c->name);
		return -1;
	}
	jl_memlock_range(b->ring, (b->cap ? b->cap : 1) * sizeof(*b->ring));
	s->msgs.subscriber = true;
	s->msgs.poll = b->poll;
	s->msgs.queue = b->queue;
	b->sid = s->id;
	x->sub[x->ncb] = x->bus->nsubs++;
	return 0;
}

/* Callback I of the scenario as X's next: its group (GROUPS, *NGROUPS), its dispatch entry, its topics, its
 * work, its series, its subscription. 0, or -1 with ERR. */
static int add_callback(struct jl_unit *u, struct exec_ctx *x, int i, const char **groups, int *ngroups, char *err,
			size_t errlen)
{
	const struct jl_scenario *sc = u->eng->sc;
	const struct jl_callback_spec *c = &sc->callbacks[i];
	/* a node's default group is its own (ROS 2's default); without a node, the executor's implicit node's */
	const char *gname = c->node[0] && !strcmp(c->group, "default") ? c->node : c->group;
	int g = group_index(groups, ngroups, gname);
	struct jl_series *s;

	if (g == GROUP_NEW) {
		g = *ngroups;
		groups[(*ngroups)++] = gname;
	}
	x->cb[x->ncb] = c;
	x->dcb[x->ncb] = (struct jl_dcb){ .kind = c->trigger[0] ? JL_CB_SUBSCRIPTION : JL_CB_TIMER, .group = g,
					  .period = c->period_ns, .phase = c->phase_ns, .jitter = c->jitter_ns,
					  .seed = (uint64_t)sc->run.seed * 1000003u + (uint64_t)i };
	x->sub[x->ncb] = -1;
	x->pub[x->ncb] = c->publish[0] ? jl_scenario_topic_index(sc, c->publish) : -1;
	x->call[x->ncb] = c->call[0] ? jl_scenario_topic_index(sc, c->call) : -1;
	if (jl_work_prepare(&x->work[x->ncb], &c->work, x->spec->t.place.mem_node)) {
		snprintf(err, errlen, "callback '%s': cannot prepare its work: %s", c->name, strerror(errno));
		return -1;
	}
	x->work[x->ncb].run_to_end = true; /* a callback in progress at the end runs whole */
	x->work[x->ncb].lock = jl_engine_lock(u->eng, c->lock);
	/* one series per callback: written by the executor's one thread, or by any of its pool */
	s = jl_unit_add_series(u, c->name, u->nthreads == 1 ? 0 : -1,
			       c->period_ns ? jl_engine_loop_capacity(sc, c->period_ns) + 16 : message_bound(sc), err, errlen);
	if (!s)
		return -1;
	if (!x->ncb)
		x->first_series = s->id;
	s->measured = true;
	s->group = g;
	s->has_origin = true; /* its data's origin: the release that started the chain (a timer: its own) */
	s->periodic = c->period_ns > 0 && !c->jitter_ns; /* jittered releases are not on a grid */
	s->period_ns = c->period_ns;
	s->deadline_ns = c->deadline_ns ? c->deadline_ns : c->period_ns;
	if ((c->trigger[0] || c->poll[0]) && add_subscriber(x, sc, c, s, err, errlen))
		return -1;
	x->ncb++;
	return 0;
}

static int executor_init(struct jl_unit *u, char *err, size_t errlen)
{
	const struct jl_scenario *sc = u->eng->sc;
	const struct jl_executor_spec *es = executor_of(u);
	const char *groups[JL_MAX_CALLBACKS];
	pthread_mutexattr_t ma;
	struct exec_ctx *x;
	int ngroups = 0;

	x = calloc(1, sizeof(*x));
	if (!x) {
		snprintf(err, errlen, "executor '%s': out of memory", es->t.name);
		return -1;
	}
	u->ctx = x;
	x->spec = es;
	for (int i = 0; i < sc->ncallbacks; i++)
		x->ncb += !strcmp(sc->callbacks[i].executor, es->t.name);
	if (exec_tables(u, x, err, errlen))
		return -1;
	x->ncb = 0;
	for (int i = 0; i < sc->ncallbacks; i++)
		if (!strcmp(sc->callbacks[i].executor, es->t.name) && add_callback(u, x, i, groups, &ngroups, err, errlen))
			return -1;
	if (jl_dispatch_init(&x->d, es->dispatch, x->dcb, x->ncb, ngroups, 0)) {
		snprintf(err, errlen, "executor '%s': out of memory", es->t.name);
		return -1;
	}
	x->d_init = true;
	pthread_mutexattr_init(&ma);
	pthread_mutexattr_setprotocol(&ma, PTHREAD_PRIO_INHERIT);
	if (pthread_mutex_init(&x->mu, &ma)) {
		pthread_mutexattr_destroy(&ma);
		snprintf(err, errlen, "executor '%s': cannot make its priority-inheriting lock", es->t.name);
		return -1;
	}
	pthread_mutexattr_destroy(&ma);
	x->mu_init = true;
	return 0;
}

/* work = call QUEUE, by callback CB serving request PARENT (-1: none) whose data came from IN: a request
 * to the queue, then the wait for its reply: with deadline_propagation at most until the parent's
 * deadline less the margin (the request carries that deadline), else until the reply (or the run's end).
 * A caller that stops waiting marks the request given up: its server may see it (cancel = cooperative).
 * Returns false when the call failed (DEADLINE_EXCEEDED, refused, no slot): the handler's own reply fails. */
static bool call_and_wait(struct exec_ctx *x, int cb, int parent, const struct prov *in)
{
	struct bus *bus = x->bus;
	const struct jl_callback_spec *c = x->cb[cb];
	const struct jl_request *p = parent >= 0 ? &bus->reqs[parent] : NULL;
	const int64_t now = jl_now_ns();
	int64_t deadline = 0, until;
	struct jl_request *r;
	int i;

	if (c->propagate && p && p->deadline)
		deadline = p->deadline - c->margin_ns;
	i = req_new(bus, x->call[cb], now, deadline, parent, -1);
	if (i < 0)
		return false;
	r = &bus->reqs[i];
	if (deadline && deadline <= now) { /* no time left: DEADLINE_EXCEEDED without sending it */
		atomic_store(&r->gave_up, now);
		req_reply(r, JL_REQ_DEADLINE, now);
		return false;
	}
	publish(bus, x->call[cb], &(struct prov){ .origin = in->origin, .req = (uint32_t)i + 1 }, now);
	until = deadline ? deadline : bus->eng->t_end;
	while (!atomic_load_explicit(&r->done, memory_order_acquire)) {
		const int64_t t = jl_now_ns();

		if (t >= until || jl_stopping_now()) {
			atomic_store(&r->gave_up, t); /* DEADLINE_EXCEEDED (or the run ended) */
			if (atomic_load_explicit(&r->done, memory_order_acquire))
				break; /* the reply came as it gave up: it counts */
			return false;
		}
		/* in slices: an early stop (whose servers never reply) is seen within one */
		futex_wait_until((atomic_uint *)&r->done, 0, until - t > 50000000 ? t + 50000000 : until);
	}
	return atomic_load(&r->status) == JL_REQ_OK;
}

/* The work of callback CB serving request R with cancel = cooperative D: in slices of D, stopping at the
 * first check that finds its requester gone (sleep and spin: the kinds a slice of which is the same
 * kind shorter) */
static void serve_cooperatively(struct exec_ctx *x, int cb, const struct jl_request *r)
{
	struct jl_work_state slice = x->work[cb];
	const int64_t total = x->work[cb].spec.arg, d = x->cb[cb]->cancel_ns, t0 = jl_now_ns();

	for (int64_t left = total; left > 0 && !req_abandoned(r, jl_now_ns()); left = total - (jl_now_ns() - t0)) {
		slice.spec.arg = left < d ? left : d;
		jl_work_run(&slice);
	}
}

/* Callback CB of X, taken from the dispatch (ready at READY), run by TH: called and returning with X's lock
 * held, which the run itself does not hold. Its sample, its request's reply, its group freed, its publish. */
static void run_callback(struct jl_thread *th, struct exec_ctx *x, int cb, int64_t ready)
{
	struct jl_engine *eng = th->eng;
	const uint64_t cycle = x->dcb[cb].runs - 1;
	const int64_t next = x->dcb[cb].next, period = x->dcb[cb].period;
	/* a sample counts the releases dropped before it (as drive_periodic's): those this take skipped go to
	 * the next one */
	const uint32_t skipped = x->carry[cb];
	bool reread, frees, failed = false;
	int64_t start, end;
	struct jl_request *req;
	struct jl_series *s;
	struct prov in;
	uint32_t run;
	int cpu;

	x->carry[cb] = (uint32_t)(x->dcb[cb].skipped - x->skipped_seen[cb]);
	x->skipped_seen[cb] = x->dcb[cb].skipped;
	in = consume(x, cb, &ready, &reread);
	req = in.req ? &x->bus->reqs[in.req - 1] : NULL;
	if (req) /* a request it serves: in service until this run ends */
		x->bus->subs[x->sub[cb]].in_service++;
	pthread_mutex_unlock(&x->mu);
	start = jl_now_ns();
	if (req) {
		req->start = start;
		req->server = x->first_series + cb;
	}
	if (x->call[cb] >= 0) /* its call failed: so does its own reply (DEADLINE_EXCEEDED) */
		failed = !call_and_wait(x, cb, req ? (int)in.req - 1 : -1, &in);
	else if (req && x->cb[cb]->cancel_ns)
		serve_cooperatively(x, cb, req);
	else
		jl_work_run(&x->work[cb]);
	end = jl_now_ns();
	cpu = sched_getcpu();
	if (cpu >= 0 && cpu < CPU_SETSIZE)
		CPU_SET(cpu, &th->cpus_used);
	pthread_mutex_lock(&x->mu);
	s = &eng->series[x->first_series + cb];
	run = (uint32_t)(jl_series_count(s) + s->dropped);
	jl_series_append(s, &(struct jl_sample){
		.release = ready, .wake = start, .end = end, .origin = in.origin, .tid = th->tid, .cpu = cpu,
		.cycle = period ? (uint64_t)((ready - s->first_release) / period) : cycle, .skipped = skipped, .run = run,
		.src = in.src, .src_run = in.src_run, .via_sync = in.via_sync, .reread = reread });
	jl_series_count_work(s, end - start);
	if (next > s->next_release)
		s->next_release = next;
	th->callbacks_run++;
	frees = x->dcb[cb].group != JL_GROUP_REENTRANT;
	jl_dispatch_done(&x->d, cb);
	if (req) { /* the reply: useful only while its requester still waits */
		x->bus->subs[x->sub[cb]].in_service--;
		req_reply(req, failed || req_abandoned(req, end) ? JL_REQ_DEADLINE : JL_REQ_OK, end);
	}
	if (!frees && x->pub[cb] < 0)
		return;
	pthread_mutex_unlock(&x->mu);
	if (frees) /* its group is free again: another thread may take from it */
		futex_wake_all(&x->word);
	if (x->pub[cb] >= 0) { /* what it consumed (a timer: its own release), holding no lock */
		const struct prov out = { .origin = in.origin > 0 ? in.origin : ready, .src_run = run,
					  .src = (uint16_t)(s->id + 1) };

		publish(x->bus, x->pub[cb], &out, jl_now_ns());
	}
	pthread_mutex_lock(&x->mu);
}

/* Nothing to run: one thread (the leader) waits for the next release or a change, as rclcpp's multi-threaded
 * executor lets one thread into the wait at a time; the others (followers) wait for the leadership, so a
 * release wakes one thread, never the whole pool. Called and returning with X's lock held. False when the
 * run is stopping. */
static bool wait_for_work(const struct jl_engine *eng, struct exec_ctx *x)
{
	int64_t wait_until;
	unsigned w;

	if (x->leader) {
		unsigned fw = atomic_load(&x->fword);

		if (jl_stopping_now())
			return false;
		x->followers++;
		pthread_mutex_unlock(&x->mu);
		futex_wait_until(&x->fword, fw, eng->t_end);
		pthread_mutex_lock(&x->mu);
		x->followers--;
		return true;
	}
	wait_until = jl_dispatch_next_release(&x->d);
	if (wait_until > eng->t_end)
		wait_until = eng->t_end;
	/* the word first, then the stop flag: a stop raised after this check bumps the word after it was read, so
	 * the wait returns at once */
	w = atomic_load(&x->word);
	if (jl_stopping_now())
		return false;
	x->leader = true;
	pthread_mutex_unlock(&x->mu);
	futex_wait_until(&x->word, w, wait_until);
	pthread_mutex_lock(&x->mu);
	x->leader = false;
	return true;
}

/* A pool thread leaves (X's lock held): the first release the executor did not run, per callback; the last one
 * out (after the measured phase, not a cycle path) counts what the histories still hold as never consumed and
 * puts a reentrant callback's series in release order. */
static void executor_leave(struct jl_unit *u, struct exec_ctx *x)
{
	struct jl_engine *eng = u->eng;

	for (int i = 0; i < x->ncb; i++)
		if (x->dcb[i].kind == JL_CB_TIMER && eng->series[x->first_series + i].next_release < x->dcb[i].next)
			eng->series[x->first_series + i].next_release = x->dcb[i].next;
	if (--x->active)
		return;
	for (int i = 0; i < x->ncb; i++) {
		struct jl_series *s = &eng->series[x->first_series + i];

		if (x->sub[i] >= 0) {
			struct sub *b = &x->bus->subs[x->sub[i]];

			SERIES(x->bus, b)->msgs.never += b->poll ? b->seq - b->last_read : b->n;
		}
		if (x->dcb[i].group == JL_GROUP_REENTRANT && !eng->defer_sort)
			jl_series_sort_by_release(s);
	}
}

/* One pool thread: take the next callback (under the lock), run it, record it, return it; wait when
 * nothing can run. Ends at the end of the run (a callback in progress runs whole) or on an early stop. */
static void drive_executor(struct jl_thread *th)
{
	struct jl_engine *eng = th->eng;
	struct jl_unit *u = &eng->units[th->unit];
	struct exec_ctx *x = u->ctx;

	pthread_mutex_lock(&x->mu);
	x->active++;
	if (!x->started) { /* the first thread in: the timers' grid starts at the run's start */
		jl_dispatch_start(&x->d, th->first_release);
		for (int i = 0; i < x->ncb; i++)
			eng->series[x->first_series + i].first_release = th->first_release + x->dcb[i].phase;
		x->started = true;
	}
	while (!jl_stopping_now()) {
		int64_t now = jl_now_ns(), ready;
		int cb;

		if (now >= eng->t_end)
			break;
		cb = jl_dispatch_take(&x->d, now, &ready);
		if (cb >= 0 && !x->leader && x->followers) /* it leaves the wait: a follower takes it over */
			futex_wake(&x->fword, 1);
		if (cb >= 0)
			run_callback(th, x, cb, ready);
		else if (!wait_for_work(eng, x))
			break;
	}
	executor_leave(u, x);
	pthread_mutex_unlock(&x->mu);
}

static void executor_stop(struct jl_unit *u)
{
	struct exec_ctx *x = u->ctx;

	if (x) {
		futex_wake_all(&x->word);
		futex_wake_all(&x->fword);
	}
}

const struct jl_driver jl_driver_executor = {
	.name = "callback", .end = JL_END_AT_RELEASE, .init = executor_init, .run = drive_executor,
	.stop = executor_stop, .fini = executor_fini,
};

/* ---- [source NAME]: a load client's thread ---- */

static const struct jl_source_spec *source_of(const struct jl_unit *u)
{
	return (const struct jl_source_spec *)u->spec; /* the thread spec is the source spec's first member */
}

static int source_init(struct jl_unit *u, char *err, size_t errlen)
{
	if (!u->eng->app) { /* a queue has a serving callback, so an executor made the bus (validation) */
		snprintf(err, errlen, "source '%s': no executor serves its queue", u->spec->name);
		return -1;
	}
	return 0;
}

/* Send one request of source S (index SI) to TOPIC at NOW: open loop, it waits for no reply */
static void source_send(struct bus *bus, const struct jl_source_spec *s, int si, int topic)
{
	const int64_t now = jl_now_ns();
	int i = req_new(bus, topic, now, s->deadline_ns ? now + s->deadline_ns : 0, -1, si);

	if (i >= 0)
		publish(bus, topic, &(struct prov){ .origin = now, .req = (uint32_t)i + 1 }, now);
}

static void drive_source(struct jl_thread *th)
{
	struct jl_engine *eng = th->eng;
	const struct jl_source_spec *s = source_of(&eng->units[th->unit]);
	struct bus *bus = eng->app;
	const int si = (int)(s - eng->sc->sources), topic = jl_scenario_topic_index(eng->sc, s->target);
	const int64_t period = s->rate_hz > 0 ? (int64_t)(1e9 / s->rate_hz) : 0;

	if (topic < 0 || !jl_sleep_until(th->first_release))
		return;
	if (s->burst) {
		for (unsigned k = 0; k < s->burst; k++)
			source_send(bus, s, si, topic);
		return;
	}
	for (unsigned k = 0; period && (!s->count || k < s->count); k++) {
		const int64_t at = th->first_release + (int64_t)k * period;

		if (at >= eng->t_end || !jl_sleep_until(at))
			break;
		source_send(bus, s, si, topic);
	}
}

const struct jl_driver jl_driver_source = {
	.name = "source", .end = JL_END_AT_RELEASE, .init = source_init, .run = drive_source,
};
