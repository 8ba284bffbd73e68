/* work: the work kinds. jl_work_run() runs inside a measured cycle: it must never allocate, log,
 * lock or make system calls other than the clock (except kinds whose job is to block or to call
 * the kernel). Long kinds poll the stop flag so a run always ends on time. */
#include "work.h"
#include "memlock.h"
#include "lock.h"

#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <numa.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "stop.h"
#include "units.h"


/* The work of a driver that ends at its next release (a loop: its last cycle must be measured whole)
 * runs to its end at the normal end of a run; any other work stops as soon as the run ends. */
static inline bool work_stop(const struct jl_work_state *st)
{
	return st->run_to_end ? jl_stopping_now() : jl_stopping();
}

static inline int64_t now_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * JL_NSEC_PER_SEC + ts.tv_nsec;
}

int jl_work_parse(const char *text, struct jl_work_spec *spec, char *err, size_t errlen)
{
	char word[32];
	size_t n = 0;
	const char *p = text, *arg;
	const struct jl_work_desc *d = NULL;
	int k;

	while (isspace((unsigned char)*p))
		p++;
	while (p[n] && !isspace((unsigned char)p[n]))
		n++;
	if (n == 0 || n >= sizeof(word)) {
		snprintf(err, errlen, "'%s' is not a work kind (expected none, spin DURATION, sin N, sleep DURATION, memory SIZE or syscall N)", text);
		return -1;
	}
	memcpy(word, p, n);
	word[n] = '\0';
	for (k = 0; k < JL_WORK_NKINDS; k++) {
		if (!strcmp(word, jl_work_registry[k].name)) {
			d = &jl_work_registry[k];
			break;
		}
	}
	if (!d) {
		snprintf(err, errlen, "unknown work kind '%s' (expected none, spin, sin, sleep, memory or syscall; see `jitterlab list`)", word);
		return -1;
	}
	arg = p + n;
	while (isspace((unsigned char)*arg))
		arg++;
	spec->kind = (enum jl_work_kind)k;
	spec->arg = 0;
	switch (d->arg) {
	case JL_ARG_NONE:
		if (*arg) {
			snprintf(err, errlen, "work '%s' takes no argument (got '%s')", d->name, arg);
			return -1;
		}
		return 0;
	case JL_ARG_DURATION:
		if (!*arg) {
			snprintf(err, errlen, "work '%s' needs a duration (e.g. %s 200us)", d->name, d->name);
			return -1;
		}
		return jl_parse_duration(arg, &spec->arg, err, errlen);
	case JL_ARG_COUNT: {
		long long v;

		if (!*arg) {
			snprintf(err, errlen, "work '%s' needs a count (e.g. %s 1000)", d->name, d->name);
			return -1;
		}
		if (jl_parse_int(arg, 0, 1000000000000LL, &v, err, errlen))
			return -1;
		spec->arg = v;
		return 0;
	}
	case JL_ARG_SIZE: {
		uint64_t b;

		if (!*arg) {
			snprintf(err, errlen, "work '%s' needs a size (e.g. %s 16MB)", d->name, d->name);
			return -1;
		}
		if (jl_parse_size(arg, &b, err, errlen))
			return -1;
		if (b < 64 || b > (64ULL << 30)) {
			snprintf(err, errlen, "work '%s' size must be 64B-64GB (got '%s')", d->name, arg);
			return -1;
		}
		spec->arg = (int64_t)b;
		return 0;
	}
	}
	return -1;
}

char *jl_work_format(const struct jl_work_spec *spec, char *buf, size_t len)
{
	const struct jl_work_desc *d = &jl_work_registry[spec->kind];
	char v[64];

	switch (d->arg) {
	case JL_ARG_NONE:
		snprintf(buf, len, "%s", d->name);
		break;
	case JL_ARG_DURATION:
		snprintf(buf, len, "%s %s", d->name, jl_format_duration(spec->arg, v, sizeof(v)));
		break;
	case JL_ARG_COUNT:
		snprintf(buf, len, "%s %lld", d->name, (long long)spec->arg);
		break;
	case JL_ARG_SIZE:
		snprintf(buf, len, "%s %s", d->name, jl_format_size((uint64_t)spec->arg, v, sizeof(v)));
		break;
	}
	return buf;
}

int jl_work_prepare(struct jl_work_state *st, const struct jl_work_spec *spec, int mem_node)
{
	memset(st, 0, sizeof(*st));
	st->spec = *spec;
	st->mem_node = mem_node;
	if (spec->kind != JL_WORK_MEMORY)
		return 0;
	st->buflen = (size_t)spec->arg;
	{
		/* a buffer beyond half of the RAM would be prefaulted into the OOM killer's arms (which picks
		 * a victim anywhere on the machine): refuse it here, before anything runs */
		long pages = sysconf(_SC_PHYS_PAGES), psize = sysconf(_SC_PAGESIZE);

		if (pages > 0 && psize > 0 && st->buflen / 2 > (size_t)pages / 4 * (size_t)psize) {
			errno = ENOMEM;
			return -1;
		}
	}
	if (mem_node >= 0 && numa_available() >= 0)
		st->buf = numa_alloc_onnode(st->buflen, mem_node);
	else
		st->buf = mmap(NULL, st->buflen, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (!st->buf || st->buf == MAP_FAILED) {
		st->buf = NULL;
		errno = ENOMEM;
		return -1;
	}
	memset(st->buf, 1, st->buflen); /* prefault */
	jl_memlock_range(st->buf, st->buflen);
	return 0;
}

/* now + D, saturating: a duration near INT64_MAX (parse accepts up to 292 years) must not wrap into the past */
static inline int64_t deadline_after(int64_t d)
{
	int64_t now = now_ns();

	return d > INT64_MAX - now ? INT64_MAX : now + d;
}

static void work_spin(struct jl_work_state *st)
{
	int64_t until = deadline_after(st->spec.arg);

	while (now_ns() < until && !work_stop(st))
		;
}

static void work_sin(struct jl_work_state *st)
{
	double r = 0.0;
	int64_t n = st->spec.arg;

	for (int64_t i = 0; i < n; i++) {
		r += sin((double)i);
		/* an interpreter's check point, every 1024 iterations (tens of us): a biglock holder drops it
		 * there when a waiter asked */
		if ((i & 0x3ff) == 0x3ff && st->lock && jl_lock_drop_requested(st->lock))
			jl_lock_checkpoint(st->lock);
		if ((i & 0xffff) == 0xffff && work_stop(st))
			break;
	}
	st->sink = r;
}

/* Sleeps until an absolute end, in slices of at most 100 ms so a stop is seen within 100 ms even in a
 * `sleep 1h` (a sleep shorter than a slice is one clock_nanosleep, as before). */
static void work_sleep(struct jl_work_state *st)
{
	int64_t until = deadline_after(st->spec.arg);

	while (!work_stop(st)) {
		int64_t now = now_ns(), next = until;
		struct timespec ts;

		if (now >= until)
			break;
		if (next - now > 100000000LL)
			next = now + 100000000LL;
		ts.tv_sec = next / JL_NSEC_PER_SEC;
		ts.tv_nsec = next % JL_NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
}

static void work_memory(struct jl_work_state *st)
{
	volatile unsigned char *b = st->buf;
	unsigned acc = 0;

	/* one write per cache line: the stream defeats the caches and loads the memory bus */
	for (size_t i = 0; i < st->buflen; i += 64) {
		b[i] = (unsigned char)(b[i] + 1);
		acc += b[i];
		if ((i & 0xfffff) == 0 && work_stop(st))
			break;
	}
	st->sink = acc;
}

static void work_syscall(struct jl_work_state *st)
{
	for (int64_t i = 0; i < st->spec.arg; i++) {
		syscall(SYS_getppid);
		if ((i & 0x3ff) == 0x3ff && work_stop(st))
			break;
	}
}

static void work_none(struct jl_work_state *st)
{
	(void)st;
}

const struct jl_work_desc jl_work_registry[JL_WORK_NKINDS] = {
#define X(id, name, arg, fn, help) [JL_WORK_##id] = { name, arg, fn, help },
	JL_WORK_KINDS(X)
#undef X
};

void jl_work_run(struct jl_work_state *st)
{
	int64_t ask, got;

	if (!st->lock) {
		jl_work_registry[st->spec.kind].run(st);
		return;
	}
	if (!jl_lock_take(st->lock, &ask, &got))
		return; /* counted in the lock's errors: the work did not run */
	if (st->lock->kind == JL_LOCK_BIGLOCK && st->spec.kind == JL_WORK_SLEEP) {
		/* a blocking call gives an interpreter's lock away while it blocks, and takes it back after */
		jl_lock_release_for_block(st->lock);
		jl_work_registry[st->spec.kind].run(st);
		jl_lock_retake_after_block(st->lock);
	} else {
		jl_work_registry[st->spec.kind].run(st);
	}
	jl_lock_give(st->lock, ask, got);
}

void jl_work_release(struct jl_work_state *st)
{
	if (st->buf) {
		if (st->mem_node >= 0 && numa_available() >= 0)
			numa_free(st->buf, st->buflen);
		else
			munmap(st->buf, st->buflen);
	}
	st->buf = NULL;
}
