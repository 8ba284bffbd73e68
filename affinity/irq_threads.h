/* irq_threads: IRQ threads' CPU masks, journalled before a run changes anything and put back after it.
 *
 * Why: a cgroup v2 partition, made and dissolved, rewrites the mask of every root-cgroup task that is not
 * per-CPU, IRQ threads included ("irq/9-acpi" 1 -> 0-1), and steering an IRQ makes its thread follow the
 * IRQ to the housekeeping CPUs. The kernel re-derives a thread's mask from its IRQ's effective affinity
 * only after an affinity write flagged it (IRQTF_AFFINITY): before Linux 6.9 when the IRQ next fires,
 * which on a headless machine may be never; from 6.9 at once. So the undo puts each journalled thread's
 * mask back itself, after the partition is gone (the "irqthreads" entry is journalled before any cgroup
 * change, and the journal is replayed newest first).
 *
 * When sched_setaffinity leaves nothing behind: before Linux 6.2 always. From 6.2 the kernel keeps the mask
 * a sched_setaffinity gave as the task's "user mask" and intersects every later kernel change with it
 * (8f9ea86fdf99, da019032819a); for an IRQ thread whose mask was its IRQ's single effective CPU that
 * residue changes nothing (the intersection with a later single CPU is that CPU or empty, and an empty one
 * is ignored), so such a thread is put back too. A thread with a wider mask on 6.2+ is left to the kernel
 * and said (jl_irq_thread_may_set). */
#ifndef JL_IRQ_THREADS_H
#define JL_IRQ_THREADS_H

#include <sched.h>
#include <stdbool.h>
#include <sys/types.h>

/* One IRQ thread as journalled. */
struct jl_irq_thread_mask {
	pid_t tid;
	unsigned long long start; /* jl_proc_start_time: a reused tid is never taken for it */
	int irq;
	cpu_set_t cpus;           /* its mask before the run */
	char effective[64];       /* its IRQ's effective_affinity_list then ("" when the kernel does not say) */
};

/* What the undo does to tasks: the kernel's, or a unit test's (jl_irq_threads_set_ops). */
struct jl_task_ops {
	bool (*same)(pid_t tid, unsigned long long start, int irq); /* still that IRQ's thread */
	int (*get)(pid_t tid, cpu_set_t *mask);
	int (*set)(pid_t tid, const cpu_set_t *mask);
	bool (*user_mask_kept)(void); /* sched_setaffinity leaves a user mask (Linux 6.2+) */
};

/* Every IRQ thread of this machine (from /proc), in *OUT (malloc'd; free it). The count, or -1 (ENOMEM). */
int jl_irq_threads_scan(struct jl_irq_thread_mask **out);

/* May the undo set a thread back to WAS with sched_setaffinity without leaving anything behind? Before
 * 6.2 always; from 6.2 when WAS is one CPU and its IRQ's effective CPU then (EFFECTIVE_THEN) was that CPU. */
bool jl_irq_thread_may_set(const cpu_set_t *was, const char *effective_then, bool user_mask_kept);

/* What a thread of T is after the undo. */
enum jl_irq_thread_state { JL_IRQT_GONE, JL_IRQT_SAME, JL_IRQT_PUT_BACK, JL_IRQT_LEFT, JL_IRQT_REFUSED };

/* Put back each thread of T[N] whose mask differs from its journalled one, where jl_irq_thread_may_set
 * allows; STATE[i] (may be NULL) says what became of T[i]. *ERRNO_FIRST: the first refusal's errno. The
 * number put back. */
int jl_irq_threads_put_back(const struct jl_irq_thread_mask *t, int n, enum jl_irq_thread_state *state,
			    int *errno_first);

/* The task operations in use; a test's (NULL: the kernel's again). */
const struct jl_task_ops *jl_irq_threads_ops(void);
void jl_irq_threads_set_ops(const struct jl_task_ops *ops);

#endif
