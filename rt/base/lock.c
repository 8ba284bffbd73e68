/* lock: the [lock NAME] mutexes and their acquisitions (lock.h). */
#include "lock.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

#include <time.h>

#include "units.h"

static __thread int32_t self_tid; /* the calling thread's, set once at its start (jl_lock_thread) */

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

static const char *const kind_names[] = { [JL_LOCK_MUTEX] = "mutex", [JL_LOCK_PI] = "pi", [JL_LOCK_CEILING] = "ceiling" };

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
	if (cap) {
		l->samples = mmap(NULL, cap * sizeof(*l->samples), PROT_READ | PROT_WRITE,
				  MAP_PRIVATE | MAP_ANONYMOUS | MAP_POPULATE, -1, 0);
		if (l->samples == MAP_FAILED) {
			l->samples = NULL;
			return -1;
		}
		l->cap = cap;
	}
	pthread_mutexattr_init(&ma);
	rc = pthread_mutexattr_setprotocol(&ma, kind == JL_LOCK_PI ? PTHREAD_PRIO_INHERIT
					       : kind == JL_LOCK_CEILING ? PTHREAD_PRIO_PROTECT : PTHREAD_PRIO_NONE);
	if (!rc && kind == JL_LOCK_CEILING)
		rc = pthread_mutexattr_setprioceiling(&ma, ceiling);
	if (!rc)
		rc = pthread_mutex_init(&l->mu, &ma);
	pthread_mutexattr_destroy(&ma);
	if (rc) {
		jl_lock_free(l);
		errno = rc;
		return -1;
	}
	l->init = true;
	return 0;
}

void jl_lock_free(struct jl_lock *l)
{
	if (l->init)
		pthread_mutex_destroy(&l->mu);
	if (l->samples)
		munmap(l->samples, l->cap * sizeof(*l->samples));
	l->samples = NULL;
	l->cap = 0;
	l->init = false;
}

bool jl_lock_take(struct jl_lock *l, int64_t *ask, int64_t *got)
{
	*ask = now_ns();
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
	size_t i;

	pthread_mutex_unlock(&l->mu);
	i = atomic_fetch_add_explicit(&l->n, 1, memory_order_relaxed);
	if (i < l->cap)
		l->samples[i] = (struct jl_lock_sample){ .ask = ask, .got = got, .rel = rel, .tid = self_tid };
}
