/* memlock: lock in RAM only what the measured threads touch, where mlockall() would
 * lock everything the process ever maps (the trace's event formats, the reader's buffers, the collector's
 * statistics, the post-run analysis: tens of MB on a traced run, for nothing measured).
 * What is locked, each piece where it is made (prefaulted by the lock itself):
 * - the code and static data of the program, libc, libm and ld.so (jl_memlock_code);
 * - every measured thread's stack block, its TLS and thread descriptor with it (jl_memlock_stack, from
 *   the thread, before it starts its cycles);
 * - the series' samples and rings, the locks' samples, the work buffers (series.c, lock.c, work.c);
 * - the engine's tables and the executors' state and messages (engine.c, executor.c), the trace's marker
 *   handle (io/capture.c).
 * Nothing is locked until jl_memlock_begin() (a run calls it; the tests, sweep's parent and analyze do
 * not); jl_memlock_end() (munlockall) ends it after the measured phase, and on every way out before it.
 * A failure (RLIMIT_MEMLOCK without root) is a warning, once, as mlockall's was: the run goes on with
 * page faults possible. */
#ifndef JL_MEMLOCK_H
#define JL_MEMLOCK_H

#include <stdbool.h>
#include <stddef.h>

/* From now on jl_memlock_* lock (until jl_memlock_end). */
void jl_memlock_begin(void);
/* Stop locking and unlock everything (munlockall). */
void jl_memlock_end(void);
/* Lock the pages that hold [P, P + LEN) (no-op before jl_memlock_begin, or for LEN 0). */
void jl_memlock_range(const void *p, size_t len);
/* Lock the loadable segments of the program, libc, libm and ld.so: what a cycle executes and the
 * static data it reads (the stop flag, the work registry, the GOT). */
void jl_memlock_code(void);
/* Lock the calling thread's stack block (with its TLS and descriptor at its top, in glibc). */
void jl_memlock_stack(void);

#endif
