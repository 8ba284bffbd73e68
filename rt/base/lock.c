/* lock: the [lock NAME] mutexes and their acquisitions (lock.h). */
#include "lock.h"
#include "memlock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <sched.h>
#include <time.h>

#include "units.h"

static __thread int32_t self_tid; /* the calling thread's, set once at its start (jl_lock_thread) */
static __thread int64_t held_ask, held_got; /* biglock: the holder's current acquisition (for its sample) */

static int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (int64_t)ts.tv_sec * JL_NSEC_PER_SEC + ts.tv_nsec;
}

void jl_lock_thread(int32_t tid)
{
	self_tid = tid;
}

static const char *const kind_names[] = { [JL_LOCK_MUTEX] = "mutex", [JL_LOCK_PI] = "pi", [JL_LOCK_CEILING] = "ceiling",
					  [JL_LOCK_BIGLOCK] = "biglock" };

const char *jl_lock_kind_name(enum jl_lock_kind k)
{
	return (unsigned)k < sizeof(kind_names) / sizeof(kind_names[0]) ? kind_names[k] : "?";
}

int jl_lock_kind_parse(const char *s)
{
	for (size_t i = 0; i < sizeof(kind_names) / sizeof(kind_names[0]); i++)
		if (!strcmp(s, kind_names[i]))
			return (int)i;
	return -1;
}

int jl_lock_init(struct jl_lock *l, const char *name, enum jl_lock_kind kind, int ceiling, size_t cap)
{
	pthread_mutexattr_t ma;
	int rc;

	memset(l, 0, sizeof(*l));
	snprintf(l->name, sizeof(l->name), "%s", name);
	l->kind = kind;
	l->ceiling = ceiling;
	l->big.interval_ns = 5000000;
	if (cap) {
		l->samples = mmap(NULL, cap * sizeof(*l->samples), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (l->samples == MAP_FAILED) {
			l->samples = NULL;
			return -1;
		}
		l->cap = cap;
		jl_memlock_range(l->samples, cap * sizeof(*l->samples));
	}
	pthread_mutexattr_init(&ma);
	rc = pthread_mutexattr_setprotocol(&ma, kind == JL_LOCK_PI ? PTHREAD_PRIO_INHERIT
					       : kind == JL_LOCK_CEILING ? PTHREAD_PRIO_PROTECT : PTHREAD_PRIO_NONE);
	if (!rc && kind == JL_LOCK_CEILING)
		rc = pthread_mutexattr_setprioceiling(&ma, ceiling);
	if (!rc)
		rc = pthread_mutex_init(&l->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	if (!rc && kind == JL_LOCK_BIGLOCK) { /* its waits are timed on CLOCK_MONOTONIC, like everything here */
		pthread_condattr_t ca;

		pthread_condattr_init(&ca);
		pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
		rc = pthread_cond_init(&l->big.cond, &ca);
		if (!rc)
			rc = pthread_cond_init(&l->big.switch_cond, &ca);
		pthread_condattr_destroy(&ca);
	}
	if (rc) {
		jl_lock_free(l);
		errno = rc;
		return -1;
	}
	l->init = true;
	return 0;
}

void jl_lock_set_biglock(struct jl_lock *l, int64_t interval_ns, unsigned handoffs)
{
	l->big.interval_ns = interval_ns;
	l->big.handoffs = handoffs;
}

/* ---- biglock: CPython's take_gil / drop_gil (ceval_gil.c, with FORCE_SWITCHING) ---- */

static void big_take(struct jl_lock *l)
{
	pthread_mutex_lock(&l->mu);
	while (!jl_biglock_try_take(&l->big.rule)) {
		const uint64_t seen = l->big.rule.switch_number;
		const int64_t until = now_ns() + l->big.interval_ns;
		struct timespec ts = { until / JL_NSEC_PER_SEC, until % JL_NSEC_PER_SEC };

		jl_biglock_waited(&l->big.rule, seen, pthread_cond_timedwait(&l->big.cond, &l->mu, &ts) == ETIMEDOUT);
		atomic_store(&l->big.drop_request, l->big.rule.drop_request);
	}
	atomic_store(&l->big.drop_request, 0);
	pthread_cond_signal(&l->big.switch_cond); /* a forced dropper waits for this */
	pthread_mutex_unlock(&l->mu);
}

/* FORCED: dropped on a waiter's request: wait until another thread has taken it (FORCE_SWITCHING) */
static void big_drop(struct jl_lock *l, bool forced)
{
	uint64_t seen;

	pthread_mutex_lock(&l->mu);
	seen = jl_biglock_release(&l->big.rule);
	pthread_cond_signal(&l->big.cond);
	while (forced && !jl_biglock_switched(&l->big.rule, seen))
		pthread_cond_wait(&l->big.switch_cond, &l->mu);
	pthread_mutex_unlock(&l->mu);
}

static void record(struct jl_lock *l, int64_t ask, int64_t got, int64_t rel)
{
	size_t i = atomic_fetch_add_explicit(&l->n, 1, memory_order_relaxed);

	if (i < l->cap)
		l->samples[i] = (struct jl_lock_sample){ .ask = ask, .got = got, .rel = rel, .tid = self_tid };
}

void jl_lock_checkpoint(struct jl_lock *l)
{
	if (!jl_lock_drop_requested(l))
		return;
	atomic_fetch_add(&l->big.forced, 1);
	record(l, held_ask, held_got, now_ns());
	big_drop(l, true);
	held_ask = now_ns();
	big_take(l);
	held_got = now_ns();
}

void jl_lock_release_for_block(struct jl_lock *l)
{
	record(l, held_ask, held_got, now_ns());
	big_drop(l, jl_lock_drop_requested(l)); /* asked for: wait until the waiter has it (CPython's drop_gil) */
}

void jl_lock_retake_after_block(struct jl_lock *l)
{
	held_ask = now_ns();
	big_take(l);
	held_got = now_ns();
}

void jl_lock_free(struct jl_lock *l)
{
	if (l->init)
		pthread_mutex_destroy(&l->mu);
	if (l->init && l->kind == JL_LOCK_BIGLOCK) {
		pthread_cond_destroy(&l->big.cond);
		pthread_cond_destroy(&l->big.switch_cond);
	}
	if (l->samples)
		munmap(l->samples, l->cap * sizeof(*l->samples));
	l->samples = NULL;
	l->cap = 0;
	l->init = false;
}

bool jl_lock_take(struct jl_lock *l, int64_t *ask, int64_t *got)
{
	*ask = now_ns();
	if (l->kind == JL_LOCK_BIGLOCK) {
		big_take(l);
		*got = held_got = now_ns();
		held_ask = *ask;
		for (unsigned k = 0; k < l->big.handoffs; k++) { /* round trips: each may wait for another holder */
			jl_lock_release_for_block(l);
			/* between, the CPU to whoever is runnable (time.sleep(0)'s syscall, where the thread the last
			 * take woke gets to run: a zero clock_nanosleep returned at once here, sched_yield does it) */
			sched_yield();
			jl_lock_retake_after_block(l);
		}
		return true;
	}
	if (pthread_mutex_lock(&l->mu)) {
		atomic_fetch_add(&l->errors, 1);
		return false;
	}
	*got = now_ns();
	return true;
}

void jl_lock_give(struct jl_lock *l, int64_t ask, int64_t got)
{
	const int64_t rel = now_ns();

	if (l->kind == JL_LOCK_BIGLOCK) {
		record(l, held_ask, held_got, rel); /* its last acquisition (a check point may have retaken it) */
		big_drop(l, jl_lock_drop_requested(l));
		return;
	}
	pthread_mutex_unlock(&l->mu);
	record(l, ask, got, rel);
}
