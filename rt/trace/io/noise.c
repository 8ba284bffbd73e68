/* noise: the osnoise:* events of a trace.dat in a window of one CPU (noise.h). */
#include "noise.h"

#include <stdio.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "read.h"

static const char *const class_names[JL_NOISE_N] = { "irq", "softirq", "thread", "nmi" };

const char *jl_noise_class_name(enum jl_noise_class c)
{
	return c < JL_NOISE_N ? class_names[c] : "?";
}

/* the kernel's softirq vectors (include/linux/interrupt.h), as /proc/softirqs names them */
static const char *const softirq_names[] = { "HI", "TIMER", "NET_TX", "NET_RX", "BLOCK", "IRQ_POLL", "TASKLET",
					     "SCHED", "HRTIMER", "RCU" };

struct noise_read {
	struct tep_handle *tep;
	int ids[JL_NOISE_N];
	int cpu;
	int64_t from, to, first;
	struct jl_kernel_noise *out;
	int max, n;
};

static void field_str(struct tep_handle *tep, struct tep_event *e, struct tep_record *rec, const char *name, char *buf,
		      size_t len)
{
	int n = 0;
	const char *v = tep_get_field_raw(NULL, e, name, rec, &n, 0);

	buf[0] = '\0';
	(void)tep;
	if (v && n > 0)
		snprintf(buf, len, "%.*s", (int)strnlen(v, (size_t)n), v);
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct noise_read *r = data;
	int type = tep_data_type(r->tep, rec), c;
	struct tep_event *e;
	struct jl_kernel_noise x = { 0 };
	unsigned long long v = 0;

	(void)h;
	if (cpu != r->cpu)
		return 0;
	for (c = 0; c < JL_NOISE_N && r->ids[c] != type; c++)
		;
	if (c == JL_NOISE_N || !(e = tep_find_event(r->tep, type)))
		return 0;
	if ((int64_t)rec->ts < r->first)
		r->first = (int64_t)rec->ts;
	if ((int64_t)rec->ts < r->from)
		return 0;
	x.cls = (enum jl_noise_class)c;
	x.end = (int64_t)rec->ts;
	if (tep_get_field_val(NULL, e, "duration", rec, &v, 0) == 0)
		x.duration = (int64_t)v;
	if (x.end - x.duration > r->to)
		return 0;
	if (x.cls == JL_NOISE_IRQ) {
		field_str(r->tep, e, rec, "desc", x.name, sizeof(x.name));
		if (tep_get_field_val(NULL, e, "vector", rec, &v, 0) == 0)
			x.id = (int32_t)v;
	} else if (x.cls == JL_NOISE_SOFTIRQ) {
		if (tep_get_field_val(NULL, e, "vector", rec, &v, 0) == 0)
			x.id = (int32_t)v;
		snprintf(x.name, sizeof(x.name), "%s",
			 x.id >= 0 && x.id < (int)(sizeof(softirq_names) / sizeof(softirq_names[0])) ? softirq_names[x.id] : "?");
	} else if (x.cls == JL_NOISE_THREAD) {
		field_str(r->tep, e, rec, "comm", x.name, sizeof(x.name));
		if (tep_get_field_val(NULL, e, "pid", rec, &v, 0) == 0)
			x.id = (int32_t)v;
	}
	if (r->n < r->max)
		r->out[r->n] = x;
	r->n++;
	return 0;
}

int jl_trace_kernel_noise(const char *dat, int cpu, int64_t from, int64_t to, struct jl_kernel_noise *out, int max,
			  int *n, int64_t *first, char *err, size_t errlen)
{
	static const char *const events[JL_NOISE_N] = { "irq_noise", "softirq_noise", "thread_noise", "nmi_noise" };
	struct tracecmd_input *h = jl_dat_open(dat, err, errlen);
	struct noise_read r = { .cpu = cpu, .from = from, .to = to, .first = INT64_MAX, .out = out, .max = max };
	bool any = false;
	int rc;

	*n = 0;
	*first = INT64_MAX;
	if (!h)
		return -1;
	r.tep = tracecmd_get_tep(h);
	for (int c = 0; c < JL_NOISE_N; c++) {
		struct tep_event *e = r.tep ? tep_find_event_by_name(r.tep, "osnoise", events[c]) : NULL;

		r.ids[c] = e ? e->id : -1;
		any |= e != NULL;
	}
	if (!any) { /* recorded without the osnoise group, or by a kernel without it */
		tracecmd_close(h);
		return 0;
	}
	rc = jl_dat_iterate(h, dat, on_record, &r);
	tracecmd_close(h);
	if (rc < 0) {
		snprintf(err, errlen, "trace: reading %s failed", dat);
		return -1;
	}
	*n = r.n;
	*first = r.first;
	return 0;
}
