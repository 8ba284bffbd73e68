/* irq: IRQ steering for `irq_affinity = housekeeping`: every movable IRQ's affinity (and the default
 * affinity for IRQs that appear during the run) moved off the shield, each old value journalled first.
 * The undo is the journal's replay. The /proc/irq root is injectable (tests). */
#ifndef JL_IRQ_H
#define JL_IRQ_H

#include <json-c/json.h>
#include <sched.h>

#include "journal.h"

#define JL_PROC_IRQ "/proc/irq"
#define JL_IRQ_MAX_REFUSED 256
#define JL_IRQ_MAX_STEERED 1024

struct jl_irq_steer {
	int moved;       /* affinity changed */
	int kept;        /* already off the shield */
	int nrefused;    /* the kernel refused the write (managed or per-CPU IRQs) */
	int refused[JL_IRQ_MAX_REFUSED];
	int refused_errno;
	int default_moved;  /* default_smp_affinity changed */
	const char *proc_irq; /* where the IRQs were read (JL_PROC_IRQ or a test's tree) */
	/* what was written, to tell afterwards which IRQs someone else (irqbalance) moved during the run */
	int nsteered;
	struct {
		int irq;
		cpu_set_t mask;
	} steered[JL_IRQ_MAX_STEERED];
	int nmoved_during;   /* jl_irq_steer_check: steered IRQs whose mask changed during the run */
	int moved_during[JL_IRQ_MAX_REFUSED];
};

/* An IRQ balancer (irqbalance) running on this machine: its pid, or 0. It would re-steer IRQs onto the
 * shield during a run. */
pid_t jl_irq_balancer_running(void);

/* After the run, before the undo: which steered IRQs no longer have the mask the steering wrote (someone
 * moved them during the run). Fills nmoved_during/moved_during; returns how many. */
int jl_irq_steer_check(struct jl_irq_steer *st);

/* Move every IRQ under PROC_IRQ (NULL = /proc/irq) to HK (intersecting its current affinity with HK
 * when that is not empty). Refusals are counted, not errors. 0, or -1 with ERR (journal or read failure;
 * what was done is journalled). */
int jl_irq_steer_apply(struct jl_irq_steer *st, const char *proc_irq, const cpu_set_t *hk, struct jl_journal *j,
		       char *err, size_t errlen);

/* Fill OBJ with moved, kept, refused: [irq numbers]. */
void jl_irq_steer_describe(const struct jl_irq_steer *st, json_object *obj);

/* Format SET as the kernel's hex cpu mask ("3", "ff,00000000"). */
/* Each IRQ of PROC_IRQ (NULL: /proc/irq) with its handlers' names (the action directories, joined by ", ")
 * to FN. The IRQs named, or -1 when PROC_IRQ cannot be read. */
int jl_irq_names(const char *proc_irq, void (*fn)(void *ctx, int irq, const char *name), void *ctx);
char *jl_irq_format_mask(const cpu_set_t *set, char *buf, size_t len);

#endif
