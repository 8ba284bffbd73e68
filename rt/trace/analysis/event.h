/* event: one scheduling trace event as the analysis reads it (the reader, io/decode.c, makes them from
 * tracefs records; unit tests write them by hand), and the fast name helpers every event's names go
 * through. Pure: no tracefs, no files. */
#ifndef JL_TRACE_EVENT_H
#define JL_TRACE_EVENT_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#define JL_EVENT_COMM 24

/* strnlen(S, MAX) where S holds at least MAX readable bytes and MAX is small (a record's or a table's
 * fixed-size name): eight bytes at a time; else strnlen. */
static inline size_t jl_event_len(const char *s, size_t max)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	size_t n = 0;

	if (max > 64)
		return strnlen(s, max);
	for (; n + 8 <= max; n += 8) {
		uint64_t w, z;

		memcpy(&w, s + n, 8);
		z = (w - 0x0101010101010101ull) & ~w & 0x8080808080808080ull;
		if (z)
			return n + (size_t)(__builtin_ctzll(z) >> 3);
	}
	while (n < max && s[n])
		n++;
	return n;
#else
	return strnlen(s, max);
#endif
}

/* Copy at most MAX bytes of the string SRC into DST of LEN bytes, always terminated: the names copied per
 * event (comms, segment and state names), without printf's cost (a third of the analysis time when it was
 * snprintf("%s")). MAX <= 64: SRC holds that many readable bytes (a fixed-size field); SIZE_MAX: SRC is
 * any C string. */
static inline void jl_event_copy(char *dst, size_t len, const char *src, size_t max)
{
	size_t n;

	if (!len)
		return;
	n = max <= 64 ? jl_event_len(src, max) : strnlen(src, max < len - 1 ? max : len - 1);
	if (n > len - 1)
		n = len - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* Whether the names A and B, each in a buffer of JL_EVENT_COMM bytes and terminated within it (an event's,
 * a task's, a CPU's name), are the same string: strcmp's answer, eight bytes at a time (the analysis
 * compares a name on nearly every switch). */
_Static_assert(JL_EVENT_COMM % 8 == 0, "names are compared a word at a time");
static inline bool jl_event_same(const char *a, const char *b)
{
#if __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
	for (size_t n = 0; n < JL_EVENT_COMM; n += 8) {
		uint64_t x, y, z, d;

		memcpy(&x, a + n, 8);
		memcpy(&y, b + n, 8);
		z = (x - 0x0101010101010101ull) & ~x & 0x8080808080808080ull; /* its lowest bit: A's first NUL */
		d = x ^ y;
		if (d) /* the same only if A ended (so B did) before the first byte that differs */
			return z && __builtin_ctzll(z) < __builtin_ctzll(d);
		if (z)
			return true;
	}
	return true;
#else
	return !strncmp(a, b, JL_EVENT_COMM);
#endif
}

enum jl_event_kind {
	JL_EVENT_SWITCH,        /* prev_* -> pid (next) on cpu */
	JL_EVENT_WAKING,        /* sched_waking of pid (recorded on the waker's cpu) */
	JL_EVENT_WAKEUP_NEW,    /* sched_wakeup_new of pid */
	JL_EVENT_WAKEUP,        /* sched_wakeup (informational) */
	JL_EVENT_MIGRATE,       /* pid moved to target_cpu */
	JL_EVENT_IRQ_ENTRY,     /* pid = irq number, comm = handler name; x86 vectors: IPIs -2 (reschedule),
			       * -3, -4 (call function), JL_EVENT_IRQ_LOCAL_TIMER the local APIC timer */
	JL_EVENT_IRQ_EXIT,
	JL_EVENT_SOFTIRQ_ENTRY, /* pid = vector */
	JL_EVENT_SOFTIRQ_EXIT,
	JL_EVENT_TIMER_ENTRY,   /* hrtimer_expire_entry, comm = function */
	JL_EVENT_TIMER_EXIT,
	JL_EVENT_MARK,          /* jitterlab marker: mark_thread, mark_cycle */
	JL_EVENT_LOST,          /* events were lost on cpu before ts */
	JL_EVENT_OTHER,
	/* recorded for the analyses to come (io/read.c); nothing above reads them yet */
	JL_EVENT_PI_SETPRIO,    /* priority inheritance: pid, comm; prev_prio = oldprio, prio = newprio */
	JL_EVENT_NEWTASK,       /* task_newtask: pid = new task, comm; prev_pid = creator (common_pid);
			       * arg = clone_flags (CLONE_THREAD 0x10000: a thread, not a process) */
	JL_EVENT_FORK,          /* sched_process_fork: prev_pid/prev_comm = parent, pid/comm = child */
	JL_EVENT_RENAME,        /* task_rename: pid, prev_comm = old comm, comm = new comm */
	JL_EVENT_EXIT,          /* sched_process_exit: pid, comm, prio; arg = 1 when its whole process is gone */
	JL_EVENT_IPI,           /* ipi_send_cpu/cpumask, on the sender's cpu: target_cpu (-1 = several),
			       * arg = target CPUs 0-63 as bits, comm = callback ("" for reschedule),
			       * prev_comm = call site */
	JL_EVENT_TIMER_START,   /* hrtimer_start: arg = hrtimer, expires, softexpires, comm = function */
	JL_EVENT_PROBE,         /* a probe record (include/jitterlab/probe.h) written by pid: mark_thread = its
			       * kind (wake, end, name), expires = the release it names, comm = the name */
	JL_EVENT_SOFTIRQ_RAISE, /* softirq_raise: pid = vector (the timer group records HRTIMER's alone: the
			       * interrupt that handed a soft hrtimer to its softirq, ktimers/N on PREEMPT_RT) */
};

#define JL_EVENT_IRQ_LOCAL_TIMER (-5)

/* hrtimer_start's mode bits (enum hrtimer_mode): absolute unless REL; SOFT: it expires in HRTIMER_SOFTIRQ */
#define JL_HRTIMER_MODE_REL 0x01
#define JL_HRTIMER_MODE_SOFT 0x04
#define JL_SOFTIRQ_HRTIMER 8 /* HRTIMER_SOFTIRQ's vector */

struct jl_event {
	int64_t ts;
	int32_t cpu;
	int32_t kind;         /* enum jl_event_kind */
	bool has_cur;         /* cur is known (every real record has it: common_pid) */
	int32_t cur;          /* the task running on cpu when the record was written (0 = idle) */
	int32_t pid;          /* subject: woken/next/migrated pid, irq number, softirq vector */
	int32_t prio;         /* kernel prio of pid (99 - rt_priority for RT, 120 + nice for CFS, -1 DL) */
	int32_t prev_pid, prev_prio;
	int64_t prev_state;
	int32_t target_cpu;   /* waking: target_cpu; migrate: dest_cpu */
	int32_t mark_thread;
	uint64_t mark_cycle;
	char comm[JL_EVENT_COMM];      /* subject comm / irq name / timer function */
	char prev_comm[JL_EVENT_COMM];
	uint8_t flags;               /* common_flags: JL_EVENT_F_HARDIRQ, JL_EVENT_F_SOFTIRQ (0 when unknown) */
	uint64_t arg;                /* NEWTASK: clone_flags; EXIT: group dead; IPI: target CPU bits;
				      * TIMER_ENTRY, TIMER_START: the hrtimer's address */
	int64_t expires;             /* TIMER_START: hard expiry; TIMER_ENTRY: the `now` it expired at */
	int64_t softexpires;         /* TIMER_START: soft expiry (expires - softexpires = the slack)
				      * TIMER_START's prev_state: its mode (JL_HRTIMER_MODE_* bits) */
};

#define JL_EVENT_F_HARDIRQ 0x08        /* TRACE_FLAG_HARDIRQ: written in hard IRQ context */
#define JL_EVENT_F_SOFTIRQ 0x10        /* TRACE_FLAG_SOFTIRQ: written in softirq context */

/* Sort EV[0..N) by timestamp, stable (events of one CPU keep their order on equal timestamps). */
int jl_event_sort(struct jl_event *ev, size_t n);

#endif
