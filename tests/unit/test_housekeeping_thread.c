/* test_housekeeping_thread: a helper thread (rt/base/housekeeping_thread.c) runs at SCHED_OTHER even when its creator is
 * real-time (the run's watchdog is SCHED_FIFO 99 while the measured threads run), on the CPUs asked for
 * (the creator's when none are), under the name asked for. What the thread runs at is read by the thread
 * itself (sched_getscheduler, sched_getaffinity, pthread_getname_np), once the start has returned. SCHED_FIFO needs root: the
 * test of the policy is skipped without it. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <semaphore.h>
#include <string.h>
#include <unistd.h>

#include <cmocka.h>

#include "rt/base/housekeeping_thread.h"

struct seen {
	sem_t go;           /* posted once jl_housekeeping_thread_start returned: the name is set by then */
	int policy;
	cpu_set_t cpus;
	char name[16];
};

static void *look(void *arg)
{
	struct seen *s = arg;

	while (sem_wait(&s->go))
		;
	s->policy = sched_getscheduler(0);
	sched_getaffinity(0, sizeof(s->cpus), &s->cpus);
	pthread_getname_np(pthread_self(), s->name, sizeof(s->name));
	return NULL;
}

static void start_and_look(const cpu_set_t *cpus, const char *name, struct seen *s)
{
	pthread_t t;

	memset(s, 0, sizeof(*s));
	sem_init(&s->go, 0, 0);
	assert_int_equal(jl_housekeeping_thread_start(&t, cpus, name, look, s), 0);
	sem_post(&s->go);
	pthread_join(t, NULL);
	sem_destroy(&s->go);
}

static void test_other_from_a_realtime_creator(void **state)
{
	struct sched_param rt = { .sched_priority = 1 }, other = { .sched_priority = 0 };
	int before = sched_getscheduler(0);
	struct seen s;

	(void)state;
	if (pthread_setschedparam(pthread_self(), SCHED_FIFO, &rt))
		skip(); /* not root */
	start_and_look(NULL, "jl-test", &s);
	pthread_setschedparam(pthread_self(), before, &other);
	assert_int_equal(s.policy, SCHED_OTHER);
	assert_int_equal(sched_getscheduler(0), before);
}

static void test_cpus_and_name(void **state)
{
	cpu_set_t mine, one, none;
	struct seen s;
	int first = -1;

	(void)state;
	assert_int_equal(sched_getaffinity(0, sizeof(mine), &mine), 0);
	for (int c = 0; c < CPU_SETSIZE && first < 0; c++)
		if (CPU_ISSET(c, &mine))
			first = c;
	CPU_ZERO(&one);
	CPU_SET(first, &one);
	start_and_look(&one, "jl-one", &s);
	assert_true(CPU_EQUAL(&s.cpus, &one));
	assert_string_equal(s.name, "jl-one");

	CPU_ZERO(&none); /* empty, or none given: the creator's CPUs */
	start_and_look(&none, NULL, &s);
	assert_true(CPU_EQUAL(&s.cpus, &mine));
	start_and_look(NULL, "jl-mine", &s);
	assert_true(CPU_EQUAL(&s.cpus, &mine));
	assert_string_equal(s.name, "jl-mine");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_other_from_a_realtime_creator),
		cmocka_unit_test(test_cpus_and_name),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
