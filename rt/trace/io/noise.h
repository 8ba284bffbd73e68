/* noise: the kernel's own interference accounting read back from a trace.dat: the osnoise:* events
 * (irq_noise, softirq_noise, thread_noise, nmi_noise) that the osnoise and timerlat tracers emit on the CPUs
 * they sample (the `osnoise` trace group records them beside jitterlab's events). Each is one interference,
 * written when it ends, with its duration net of the interference nested in it. */
#ifndef JL_TRACE_NOISE_H
#define JL_TRACE_NOISE_H

#include <stddef.h>
#include <stdint.h>

#include "../analysis/event.h"

enum jl_noise_class { JL_NOISE_IRQ, JL_NOISE_SOFTIRQ, JL_NOISE_THREAD, JL_NOISE_NMI, JL_NOISE_N };

struct jl_kernel_noise {
	enum jl_noise_class cls;
	char name[JL_EVENT_COMM]; /* the IRQ's description, the softirq's name, the thread's comm; "" for NMI */
	int32_t id;               /* IRQ vector, softirq number, pid */
	int64_t end;              /* the record's time (the trace's clock) */
	int64_t duration;         /* ns, net of nested noise */
};

const char *jl_noise_class_name(enum jl_noise_class c);

/* The noise on CPU whose time [end - duration, end] meets [FROM, TO], from trace.dat DAT, into
 * OUT[0..MAX) in time order; *N how many there were in all (more than MAX: the rest not kept); *FIRST the
 * time of the CPU's first noise record in the whole trace (INT64_MAX: none): before it the tracer was not
 * sampling the CPU, and no noise there means nothing. 0 (none is a valid answer: a trace without the group,
 * or nothing there), or -1 with ERR (the file unreadable). */
int jl_trace_kernel_noise(const char *dat, int cpu, int64_t from, int64_t to, struct jl_kernel_noise *out, int max,
			  int *n, int64_t *first, char *err, size_t errlen);

#endif
