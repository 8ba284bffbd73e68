/* work: the registry of work kinds, what one cycle of a thread does.
 * A new kind is one function in work.c plus one line in JL_WORK_KINDS.
 * jl_work_run() is on the measured cycle path: no allocation, no I/O, no locks; only the kind's own
 * job (a `sleep` kind blocks by design, a `syscall` kind makes syscalls by design). */
#ifndef JL_WORK_H
#define JL_WORK_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum jl_arg_type { JL_ARG_NONE, JL_ARG_DURATION, JL_ARG_COUNT, JL_ARG_SIZE };

/*  X(id,      name,      arg type,        function,     help) */
#define JL_WORK_KINDS(X)                                                                                       \
	X(NONE,    "none",    JL_ARG_NONE,     work_none,    "nothing: measures pure wakeup latency")             \
	X(SPIN,    "spin",    JL_ARG_DURATION, work_spin,    "busy-wait until DURATION has passed (spin 200us)")  \
	X(SIN,     "sin",     JL_ARG_COUNT,    work_sin,     "N iterations of r += sin(i), the published scan load (sin 50000000)") \
	X(SLEEP,   "sleep",   JL_ARG_DURATION, work_sleep,   "block for DURATION, giving the CPU away (sleep 1ms)") \
	X(MEMORY,  "memory",  JL_ARG_SIZE,     work_memory,  "stream over a buffer of SIZE: cache/bandwidth pressure (memory 16MB)") \
	X(SYSCALL, "syscall", JL_ARG_COUNT,    work_syscall, "N cheap system calls (syscall 1000)")

enum jl_work_kind {
#define X(id, name, arg, fn, help) JL_WORK_##id,
	JL_WORK_KINDS(X)
#undef X
	JL_WORK_NKINDS
};

struct jl_work_state;

struct jl_work_desc {
	const char *name;
	enum jl_arg_type arg;
	void (*run)(struct jl_work_state *st);
	const char *help;
};

struct jl_work_spec {
	enum jl_work_kind kind;
	int64_t arg; /* ns, count or bytes according to the kind's arg type */
};

/* Per-thread state, prepared outside the measured path. */
struct jl_lock;

struct jl_work_state {
	struct jl_work_spec spec;
	void *buf;           /* memory kind: the buffer (mlocked, prefaulted) */
	size_t buflen;
	volatile double sink; /* keeps the compiler from dropping sin() */
	int mem_node;        /* -1 = default */
	bool run_to_end;     /* set by the engine from its driver's end mode: at the normal end of a run the
			      * call runs to its end, only an early stop cuts it (see stop.h) */
	struct jl_lock *lock; /* held around each call (lock.h), or NULL */
};

extern const struct jl_work_desc jl_work_registry[JL_WORK_NKINDS];

/* "spin 200us" -> spec. Returns 0 or -1 with a reason in ERR. */
int jl_work_parse(const char *text, struct jl_work_spec *spec, char *err, size_t errlen);
/* Canonical text ("spin 200us"), parses back to the same spec. */
char *jl_work_format(const struct jl_work_spec *spec, char *buf, size_t len);
/* Allocate/prefault what the kind needs (on MEM_NODE if >= 0). 0 or -1 with errno. */
int jl_work_prepare(struct jl_work_state *st, const struct jl_work_spec *spec, int mem_node);
/* One call of the work (holding its lock, if it has one). Returns early when the stop flag is raised. */
void jl_work_run(struct jl_work_state *st);
void jl_work_release(struct jl_work_state *st);

#endif
