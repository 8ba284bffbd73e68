/* attach: the threads an attach section (jitterlab watch) measures that were running when the run began,
 * found in /proc by its selectors (pid:N, tid:N, comm:GLOB, rt); those born later are found in the trace
 * (trace/analysis/wakeups.c). Nothing here starts or changes a thread. */
#ifndef JL_ENGINE_ATTACH_H
#define JL_ENGINE_ATTACH_H

#include <stdbool.h>
#include <stdint.h>
#include <sys/types.h>

/* One selector of an attach value. */
struct jl_attach_sel {
	enum { JL_ATTACH_PID, JL_ATTACH_TID, JL_ATTACH_COMM, JL_ATTACH_RT } kind;
	int32_t id;               /* pid:N, tid:N */
	char glob[64];            /* comm:GLOB */
};

/* The selectors of VALUE (as the scenario key checked it) into SEL (room for MAX); how many. */
int jl_attach_parse(const char *value, struct jl_attach_sel *sel, int max);

/* Is TID (of process TGID, named COMM, a user-space task whose policy is RT: rt) one that SEL[0..N) selects?
 * A pid selects its process' threads (TGID) here; the tasks it creates later are followed in the trace. */
bool jl_attach_selects(const struct jl_attach_sel *sel, int n, int32_t tid, int32_t tgid, const char *comm, bool rt);

/* The threads running now that VALUE selects, never one of process SELF's: a malloc'd array of their tids
 * into *OUT, their count returned (0: none yet, which is not an error), -1 with errno. */
int jl_attach_scan(const char *value, pid_t self, int32_t **out);

/* Does VALUE name a process or thread that does not exist, or SELF (the run itself), with no selector that
 * can match later (comm:, rt)? The message into ERR, true. */
bool jl_attach_refused(const char *value, pid_t self, char *err, size_t errlen);

/* Is TID one of this process' threads? Is it alive? Is it a kernel thread (alive)? */
bool jl_attach_is_kthread(int32_t tid);
bool jl_attach_is_self(int32_t tid);
bool jl_attach_alive(int32_t tid);

/* TID's policy now (enum jl_policy) with its priority and nice, or -1 when it is gone. */
int jl_attach_policy(int32_t tid, int *priority, int *nice);

/* Is TID's policy real-time (FIFO, RR, DEADLINE) and TID a user-space task (not a kernel thread)? */
bool jl_attach_is_rt_user(int32_t tid);

#endif
