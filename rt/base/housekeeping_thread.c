/* housekeeping_thread: helper threads at SCHED_OTHER (housekeeping_thread.h). */
#include "housekeeping_thread.h"

int jl_housekeeping_thread_start(pthread_t *t, const cpu_set_t *cpus, const char *name, void *(*fn)(void *), void *arg)
{
	pthread_attr_t attr;
	int rc = pthread_attr_init(&attr);

	if (rc)
		return rc;
	pthread_attr_setinheritsched(&attr, PTHREAD_EXPLICIT_SCHED);
	pthread_attr_setschedpolicy(&attr, SCHED_OTHER);
	pthread_attr_setschedparam(&attr, &(struct sched_param){ .sched_priority = 0 });
	if (cpus && CPU_COUNT(cpus))
		pthread_attr_setaffinity_np(&attr, sizeof(*cpus), cpus);
	rc = pthread_create(t, &attr, fn, arg);
	pthread_attr_destroy(&attr);
	if (!rc && name)
		pthread_setname_np(*t, name);
	return rc;
}
