/* child: external neighbours (`exec`): a child process in its own process group with its policy,
 * priority and CPUs applied before it execs, started at a given time, ended with SIGINT, a grace
 * period, then SIGKILL. No shell is involved: argv is split like a shell would (wordexp, no command
 * substitution). A child never outlives the run: PR_SET_PDEATHSIG covers a killed jitterlab. */
#ifndef JL_CHILD_H
#define JL_CHILD_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../scenario/scenario.h"

struct jl_child;

/* Split CMDLINE into argv (wordexp without command substitution) and check the program exists.
 * Returns 0, or -1 with a reason in ERR. Pure: used by the scenario checks too. */
int jl_child_check_cmdline(const char *cmdline, char *err, size_t errlen);

/* Fork the child; it applies SPEC's policy/priority/nice/cpus, with `user = invoking` then becomes the
 * sudo user (SUDO_UID, SUDO_GID, that user's groups), and waits for jl_child_go().
 * Its stdout and stderr go to LOG_PATH, created here (O_EXCL, never through a symlink, given to the
 * sudo user; NULL: inherited); stdin is /dev/null. */
struct jl_child *jl_child_spawn(const struct jl_thread_spec *spec, const char *name, const char *log_path,
				char *err, size_t errlen);
/* Let the child exec at START_NS (CLOCK_MONOTONIC). 0 or -1 with errno. */
int jl_child_go(struct jl_child *c, int64_t start_ns);
pid_t jl_child_pid(const struct jl_child *c);
/* Ending a child, in two steps so that many children share one grace period:
 * jl_child_interrupt() sends SIGINT to its process group (a child that never got go is killed at
 * once); jl_child_finish() waits until DEADLINE_NS (CLOCK_MONOTONIC), then SIGKILLs the group and
 * reaps. Returns the wait status (-1 if it could not be reaped). jl_child_stop() does both. */
void jl_child_interrupt(struct jl_child *c);
int jl_child_finish(struct jl_child *c, int64_t deadline_ns);
int jl_child_stop(struct jl_child *c, int64_t grace_ns);
/* True if the child had already ended when jl_child_interrupt() came. */
bool jl_child_ended_early(const struct jl_child *c);
/* Text of an exec failure reported by the child ("" if none). */
const char *jl_child_error(const struct jl_child *c);
void jl_child_free(struct jl_child *c);

#endif
