/* irq_threads: see irq_threads.h.
 * Must never: set the mask of a task that is not the journalled IRQ thread (tid, start time and IRQ must
 * all match), set a PF_NO_SETAFFINITY thread's (the kernel refuses it anyway), or leave a user mask that
 * can narrow a thread's later masks (jl_irq_thread_may_set). */
#include "irq_threads.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cpulist.h"
#include "kversion.h"
#include "procfs.h"

static bool kernel_same(pid_t tid, unsigned long long start, int irq)
{
	return jl_proc_is(tid, start) && jl_irq_thread_irq(tid, NULL) == irq;
}

static int kernel_get(pid_t tid, cpu_set_t *mask)
{
	return sched_getaffinity(tid, sizeof(*mask), mask);
}

static int kernel_set(pid_t tid, const cpu_set_t *mask)
{
	return sched_setaffinity(tid, sizeof(*mask), mask);
}

static bool kernel_user_mask_kept(void)
{
	return jl_kernel_has(JL_KERNEL_USER_MASK_KEPT, NULL);
}

static const struct jl_task_ops kernel_ops = { kernel_same, kernel_get, kernel_set, kernel_user_mask_kept };
static const struct jl_task_ops *ops = &kernel_ops;

const struct jl_task_ops *jl_irq_threads_ops(void)
{
	return ops;
}

void jl_irq_threads_set_ops(const struct jl_task_ops *o)
{
	ops = o ? o : &kernel_ops;
}

int jl_irq_threads_scan(struct jl_irq_thread_mask **out)
{
	DIR *proc = opendir("/proc");
	struct jl_irq_thread_mask *t = NULL;
	struct dirent *d;
	int n = 0, cap = 0;

	*out = NULL;
	while (proc && (d = readdir(proc))) {
		pid_t tid = (pid_t)atoi(d->d_name);
		int irq = tid > 0 ? jl_irq_thread_irq(tid, NULL) : -1;
		char path[64];

		if (irq < 0)
			continue;
		if (n == cap) {
			struct jl_irq_thread_mask *m = realloc(t, (size_t)(cap ? 2 * cap : 32) * sizeof(*t));

			if (!m) {
				free(t);
				closedir(proc);
				errno = ENOMEM;
				return -1;
			}
			t = m;
			cap = cap ? 2 * cap : 32;
		}
		memset(&t[n], 0, sizeof(t[n]));
		t[n].tid = tid;
		t[n].irq = irq;
		snprintf(path, sizeof(path), "/proc/irq/%d/effective_affinity_list", irq);
		if (jl_knob_read(path, t[n].effective, sizeof(t[n].effective)))
			t[n].effective[0] = '\0';
		if (jl_proc_start_time(tid, &t[n].start) == 0 && sched_getaffinity(tid, sizeof(t[n].cpus), &t[n].cpus) == 0)
			n++;
	}
	if (proc)
		closedir(proc);
	*out = t;
	return n;
}

bool jl_irq_thread_may_set(const cpu_set_t *was, const char *effective_then, bool user_mask_kept)
{
	cpu_set_t eff;

	if (!user_mask_kept)
		return true;
	return CPU_COUNT(was) == 1 && effective_then && effective_then[0] &&
	       jl_cpulist_parse(effective_then, &eff, NULL, 0) == 0 && CPU_EQUAL(&eff, was);
}

int jl_irq_threads_put_back(const struct jl_irq_thread_mask *t, int n, enum jl_irq_thread_state *state,
			    int *errno_first)
{
	bool kept = ops->user_mask_kept();
	int put = 0;

	*errno_first = 0;
	for (int i = 0; i < n; i++) {
		enum jl_irq_thread_state s;
		cpu_set_t now;

		if (!ops->same(t[i].tid, t[i].start, t[i].irq) || ops->get(t[i].tid, &now))
			s = JL_IRQT_GONE;
		else if (CPU_EQUAL(&now, &t[i].cpus))
			s = JL_IRQT_SAME;
		else if (!jl_irq_thread_may_set(&t[i].cpus, t[i].effective, kept))
			s = JL_IRQT_LEFT;
		else if (ops->set(t[i].tid, &t[i].cpus) == 0)
			s = JL_IRQT_PUT_BACK;
		else if (errno == ESRCH)
			s = JL_IRQT_GONE;
		else {
			s = JL_IRQT_REFUSED;
			if (!*errno_first)
				*errno_first = errno;
		}
		put += s == JL_IRQT_PUT_BACK;
		if (state)
			state[i] = s;
	}
	return put;
}
