/* housekeeping_thread: the one way a helper thread (one that is not measured: the collector, the trace reader, the
 * live analysis, the probe server, analyze's page reader) is started. */
#ifndef JL_HOUSEKEEPING_THREAD_H
#define JL_HOUSEKEEPING_THREAD_H

#include <pthread.h>
#include <sched.h>

/* Start FN(ARG) in *T at SCHED_OTHER whatever its creator runs at (the run's main thread is the watchdog,
 * SCHED_FIFO 99, while the measured threads run: a helper that inherited that could starve them), on
 * CPUS (NULL or empty: the creator's CPUs), named NAME (NULL: the creator's name). 0, or pthread_create's
 * error number. */
int jl_housekeeping_thread_start(pthread_t *t, const cpu_set_t *cpus, const char *name, void *(*fn)(void *), void *arg);

#endif
