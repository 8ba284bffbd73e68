/* decode: a tracefs record as the pure event model of analysis/event.h (sched, irq, timer, task, ipi
 * events and our markers; others are OTHER): the fields of each event looked up once per file, read in
 * place where the records are in the host's byte order. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "../../../include/jitterlab/probe.h"
#include "capture.h"
#include "decode.h"
#include "syms.h"

struct evdef {
	const char *system, *name;
	int kind;
	const char *fields[F_N];
};

/* The events the analysis understands, and the fields it reads from each. */
static const struct evdef evdefs[] = {
	{ "sched", "sched_switch", JL_EVENT_SWITCH,
	  { [F_PREV_PID] = "prev_pid", [F_PREV_PRIO] = "prev_prio", [F_PREV_STATE] = "prev_state",
	    [F_PREV_COMM] = "prev_comm", [F_NEXT_PID] = "next_pid", [F_NEXT_PRIO] = "next_prio",
	    [F_NEXT_COMM] = "next_comm" } },
	{ "sched", "sched_waking", JL_EVENT_WAKING,
	  { [F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu" } },
	{ "sched", "sched_wakeup_new", JL_EVENT_WAKEUP_NEW,
	  { [F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu" } },
	{ "sched", "sched_wakeup", JL_EVENT_WAKEUP,
	  { [F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_TARGET] = "target_cpu" } },
	{ "sched", "sched_migrate_task", JL_EVENT_MIGRATE,
	  { [F_PID] = "pid", [F_PRIO] = "prio", [F_COMM] = "comm", [F_DEST] = "dest_cpu" } },
	{ "irq", "irq_handler_entry", JL_EVENT_IRQ_ENTRY, { [F_IRQ] = "irq", [F_NAME] = "name" } },
	{ "irq", "irq_handler_exit", JL_EVENT_IRQ_EXIT, { [F_IRQ] = "irq" } },
	/* x86 IPI handlers: IRQ pieces named by the vector (irq -2, -3, -4) */
	{ "irq_vectors", "reschedule_entry", JL_EVENT_IRQ_ENTRY, { 0 } },
	{ "irq_vectors", "reschedule_exit", JL_EVENT_IRQ_EXIT, { 0 } },
	{ "irq_vectors", "call_function_entry", JL_EVENT_IRQ_ENTRY, { 0 } },
	{ "irq_vectors", "call_function_exit", JL_EVENT_IRQ_EXIT, { 0 } },
	{ "irq_vectors", "call_function_single_entry", JL_EVENT_IRQ_ENTRY, { 0 } },
	{ "irq_vectors", "call_function_single_exit", JL_EVENT_IRQ_EXIT, { 0 } },
	/* x86's local APIC timer (LOC in /proc/interrupts): the hrtimers' hard interrupt, irq -5. The
	 * interrupt goes on after the waking it makes; without it that time looked like the task it
	 * interrupted (the kernel's osnoise accounting counts it as irq noise) */
	{ "irq_vectors", "local_timer_entry", JL_EVENT_IRQ_ENTRY, { 0 } },
	{ "irq_vectors", "local_timer_exit", JL_EVENT_IRQ_EXIT, { 0 } },
	{ "irq", "softirq_entry", JL_EVENT_SOFTIRQ_ENTRY, { [F_VEC] = "vec" } },
	{ "irq", "softirq_exit", JL_EVENT_SOFTIRQ_EXIT, { [F_VEC] = "vec" } },
	{ "irq", "softirq_raise", JL_EVENT_SOFTIRQ_RAISE, { [F_VEC] = "vec" } },
	{ "timer", "hrtimer_expire_entry", JL_EVENT_TIMER_ENTRY,
	  { [F_FUNC] = "function", [F_HRTIMER] = "hrtimer", [F_NOW] = "now" } },
	{ "timer", "hrtimer_start", JL_EVENT_TIMER_START,
	  { [F_FUNC] = "function", [F_HRTIMER] = "hrtimer", [F_EXPIRES] = "expires", [F_SOFTEXPIRES] = "softexpires",
	    [F_MODE] = "mode" } },
	{ "timer", "hrtimer_expire_exit", JL_EVENT_TIMER_EXIT, { 0 } },
	{ "ftrace", "raw_data", JL_EVENT_MARK, { [F_ID] = "id", [F_BUF] = "buf" } },
	{ "sched", "sched_pi_setprio", JL_EVENT_PI_SETPRIO,
	  { [F_PID] = "pid", [F_COMM] = "comm", [F_OLDPRIO] = "oldprio", [F_NEWPRIO] = "newprio" } },
	{ "task", "task_newtask", JL_EVENT_NEWTASK, { [F_PID] = "pid", [F_COMM] = "comm", [F_CLONE_FLAGS] = "clone_flags" } },
	{ "sched", "sched_process_fork", JL_EVENT_FORK,
	  { [F_PARENT_PID] = "parent_pid", [F_PARENT_COMM] = "parent_comm", [F_CHILD_PID] = "child_pid",
	    [F_CHILD_COMM] = "child_comm" } },
	{ "task", "task_rename", JL_EVENT_RENAME, { [F_PID] = "pid", [F_OLDCOMM] = "oldcomm", [F_NEWCOMM] = "newcomm" } },
	{ "sched", "sched_process_exit", JL_EVENT_EXIT,
	  { [F_PID] = "pid", [F_COMM] = "comm", [F_PRIO] = "prio", [F_GROUP_DEAD] = "group_dead" } },
	{ "ipi", "ipi_send_cpu", JL_EVENT_IPI, { [F_CPU] = "cpu", [F_CALLSITE] = "callsite", [F_CALLBACK] = "callback" } },
	{ "ipi", "ipi_send_cpumask", JL_EVENT_IPI,
	  { [F_CPUMASK] = "cpumask", [F_CALLSITE] = "callsite", [F_CALLBACK] = "callback" } },
};
#define NDEFS (int)(sizeof(evdefs) / sizeof(evdefs[0]))
_Static_assert(NDEFS == JL_DECODER_EVENTS, "decode.h counts the event definitions");

/* Fields that are signed and 32 bits wide are sign-extended (the pids, prios and CPUs). */
static inline bool sign_extends(const struct tep_format_field *fld)
{
	return (fld->flags & TEP_FIELD_IS_SIGNED) && fld->size == 4;
}

void jl_decoder_setup(struct jl_decoder *r)
{
	/* an old trace without sched_waking: its sched_wakeup is the start of the wakeup */
	bool no_waking = !tep_find_event_by_name(r->tep, "sched", "sched_waking");

	r->nknown = 0;
	for (int i = 0; i < NDEFS; i++) {
		struct tep_event *ev = tep_find_event_by_name(r->tep, evdefs[i].system, evdefs[i].name);
		struct jl_decoder_event *k;

		if (!ev)
			continue;
		k = &r->known[r->nknown++];
		k->id = ev->id;
		k->def = i;
		k->kind = evdefs[i].kind == JL_EVENT_WAKEUP && no_waking ? JL_EVENT_WAKING : evdefs[i].kind;
		k->need = 0;
		for (int f = 0; f < F_N; f++) {
			struct tep_format_field *fld = evdefs[i].fields[f] ? tep_find_field(ev, evdefs[i].fields[f]) : NULL;

			k->f[f] = fld;
			k->at[f].size = 0;
			if (fld && !(fld->flags & TEP_FIELD_IS_DYNAMIC) && fld->offset >= 0 && fld->offset < 65536 &&
			    (fld->size == 1 || fld->size == 2 || fld->size == 4 || fld->size == 8)) {
				k->at[f].off = (uint16_t)fld->offset;
				k->at[f].size = (uint8_t)fld->size;
				k->at[f].sign = sign_extends(fld);
				if (fld->offset + fld->size > k->need)
					k->need = fld->offset + fld->size;
			}
		}
		if (ev->id >= 0 && ev->id < (int)sizeof(r->by_id))
			r->by_id[ev->id] = (uint8_t)r->nknown;
		if (!r->common_type) { /* the common fields: one layout for every event of the file */
			r->common_type = tep_find_common_field(ev, "common_type");
			r->common_pid = tep_find_common_field(ev, "common_pid");
			r->common_flags = tep_find_common_field(ev, "common_flags");
		}
	}
	r->swap = tep_is_file_bigendian(r->tep) != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || !r->common_type ||
		  !r->common_pid;
}

/* FLD's value in DATA as an unsigned number of its size: read in place when the record is in the host's
 * byte order (the common case, and the reader's busiest line), else by libtraceevent. */
/* The unsigned number of SIZE bytes at P, in the host's byte order; false for a size other than 1, 2, 4, 8. */
static inline bool in_place(const char *p, int size, unsigned long long *v)
{
	switch (size) {
	case 1: *v = *(const uint8_t *)p; return true;
	case 2: { uint16_t x; memcpy(&x, p, 2); *v = x; return true; }
	case 4: { uint32_t x; memcpy(&x, p, 4); *v = x; return true; }
	case 8: { uint64_t x; memcpy(&x, p, 8); *v = x; return true; }
	default: return false;
	}
}

static inline bool field_u(const struct jl_decoder *r, const struct tep_format_field *fld, const void *data,
			   unsigned long long *v)
{
	if (!r->swap && in_place((const char *)data + fld->offset, fld->size, v))
		return true;
	return tep_read_number_field((struct tep_format_field *)fld, data, v) == 0;
}

/* A common field's value (0 when it cannot be read). */
static inline unsigned long long common_u(const struct jl_decoder *r, const struct tep_format_field *fld, const void *data)
{
	unsigned long long v = 0;

	return fld && field_u(r, fld, data, &v) ? v : 0;
}

static inline long long num(const struct jl_decoder *r, const struct jl_decoder_event *k, int f, const struct tep_record *rec,
		     long long dflt)
{
	unsigned long long v = 0;
	bool sign;

	if (k->at[f].size && !r->swap && rec->size >= k->need) { /* the common case: no check per field */
		in_place((const char *)rec->data + k->at[f].off, k->at[f].size, &v);
		sign = k->at[f].sign;
	} else if (!k->f[f] || k->f[f]->offset + k->f[f]->size > rec->size || !field_u(r, k->f[f], rec->data, &v)) {
		return dflt;
	} else {
		sign = sign_extends(k->f[f]);
	}
	return sign ? (long long)(int32_t)(uint32_t)v : (long long)v;
}

/* Where FLD's bytes lie in REC: a fixed field at its offset, a __data_loc (dynamic, maybe relative) one
 * where its location word says. False when they do not lie inside the record. */
static bool field_bytes(const struct tep_format_field *fld, const struct tep_record *rec, int *off, int *size)
{
	*off = fld->offset;
	*size = fld->size;
	if (fld->flags & TEP_FIELD_IS_DYNAMIC) {
		uint32_t loc;

		if (fld->offset + 4 > rec->size)
			return false;
		memcpy(&loc, (const char *)rec->data + fld->offset, 4);
		*off = loc & 0xffff;
		*size = loc >> 16;
		if (fld->flags & TEP_FIELD_IS_RELATIVE)
			*off += fld->offset + fld->size;
	}
	return *off >= 0 && *size > 0 && *off + *size <= rec->size;
}

/* A fixed char array or a __data_loc string. */
static void str(const struct jl_decoder_event *k, int f, const struct tep_record *rec, char *out, size_t len)
{
	const struct tep_format_field *fld = k->f[f];
	int off, size;

	out[0] = 0;
	if (!fld)
		return;
	if (!(fld->flags & TEP_FIELD_IS_DYNAMIC) && (size_t)fld->size < len && fld->offset + fld->size <= rec->size) {
		/* a fixed array (the comms): copied whole, cut at its first NUL by whoever reads it */
		memcpy(out, (const char *)rec->data + fld->offset, (size_t)fld->size);
		out[fld->size] = 0;
		return;
	}
	if (field_bytes(fld, rec, &off, &size))
		jl_event_copy(out, len, (const char *)rec->data + off, (size_t)size);
}

static const struct jl_decoder_event *lookup(const struct jl_decoder *r, int id)
{
	if (id >= 0 && id < (int)sizeof(r->by_id))
		return r->by_id[id] ? &r->known[r->by_id[id] - 1] : NULL;
	for (int i = 0; i < r->nknown; i++)
		if (r->known[i].id == id)
			return &r->known[i];
	return NULL;
}

static void note_used(struct jl_trace_readinfo *info, uint64_t addr, const char *name)
{
	for (int i = 0; i < info->nused; i++)
		if (info->used[i].addr == addr)
			return;
	if (info->nused < JL_TRACE_MAX_USED_SYMS) {
		info->used[info->nused].addr = addr;
		snprintf(info->used[info->nused].name, sizeof(info->used[info->nused].name), "%s", name);
		info->nused++;
	}
}

/* The name of a kernel function address: the file's kallsyms, else the running kernel's (noted, so that
 * trace.dat is written again with it), else the address in hex; "" for a NULL pointer. INSIDE: ADDR is a
 * call site, inside a function: named "function+0xoff" (the function's start is what is noted). */
static void fn_name(struct jl_decoder *r, unsigned long long addr, bool inside, char *out, size_t len)
{
	unsigned long long start = addr;
	uint64_t s0;
	const char *fn;

	struct fn_cached *c = &r->fncache[((addr >> 4) ^ (addr >> 12) ^ inside) & 63];

	out[0] = 0;
	if (!addr)
		return;
	if (c->used && c->addr == addr && c->inside == inside) { /* named before: and noted then */
		memcpy(out, c->name, len < sizeof(c->name) ? len : sizeof(c->name));
		out[len - 1] = 0;
		return;
	}
	fn = tep_find_function(r->tep, addr);
	if (fn && inside)
		start = tep_find_function_address(r->tep, addr);
	if (fn && r->pages) /* a parser that has the kernel's symbols (the run's own has none: syms.c below) */
		note_used(r->info, start, fn);
	if (!fn && r->live) {
		fn = inside ? jl_ksyms_find_near(r->live, addr, &s0) : jl_ksyms_find(r->live, addr);
		if (fn && inside)
			start = s0;
		if (fn)
			note_used(r->info, start, fn);
	}
	if (fn && start != addr)
		snprintf(out, len, "%s+0x%llx", fn, addr - start);
	else if (fn)
		snprintf(out, len, "%s", fn);
	else
		snprintf(out, len, "%llx", addr);
	c->addr = addr;
	c->inside = inside;
	c->used = true;
	snprintf(c->name, sizeof(c->name), "%s", out);
}

/* The first 64 bits of a __data_loc cpumask field (the kernel's bitmap of unsigned longs, as recorded). */
static uint64_t cpumask64(const struct jl_decoder_event *k, int f, const struct tep_record *rec)
{
	const struct tep_format_field *fld = k->f[f];
	uint64_t mask = 0;
	int off, size;

	if (!fld || !(fld->flags & TEP_FIELD_IS_DYNAMIC) || !field_bytes(fld, rec, &off, &size))
		return 0;
	memcpy(&mask, (const char *)rec->data + off, size < 8 ? (size_t)size : 8);
	return mask;
}

/* The fields every record has: its event (NULL: one the decoder does not read), the task it was written
 * in and the context (hard or soft interrupt). */
static const struct jl_decoder_event *common_fields(struct jl_decoder *r, struct tep_record *rec, int cpu,
						    struct jl_event *ev)
{
	memset(ev, 0, sizeof(*ev));
	ev->ts = (int64_t)rec->ts;
	ev->cpu = cpu;
	ev->kind = JL_EVENT_OTHER;
	ev->has_cur = true;
	if (r->swap) {
		int fl = tep_data_flags(r->tep, rec); /* common_flags: in which context the record was written */

		ev->cur = tep_data_pid(r->tep, rec);
		ev->flags = fl > 0 ? (uint8_t)(fl & (JL_EVENT_F_HARDIRQ | JL_EVENT_F_SOFTIRQ)) : 0;
		return lookup(r, tep_data_type(r->tep, rec));
	}
	ev->cur = (int32_t)common_u(r, r->common_pid, rec->data);
	ev->flags = (uint8_t)(common_u(r, r->common_flags, rec->data) & (JL_EVENT_F_HARDIRQ | JL_EVENT_F_SOFTIRQ));
	return lookup(r, (int)common_u(r, r->common_type, rec->data));
}

/* irq_handler_entry/exit, or an IPI's or the local timer's vector entry/exit (no irq field: named by its
 * event; the pid field holds the IRQ or a negative JL_EVENT_IRQ_* code). */
static void convert_irq(struct jl_decoder *r, const struct jl_decoder_event *k, struct tep_record *rec, struct jl_event *ev)
{
	const char *n = evdefs[k->def].name;

	ev->pid = (int32_t)num(r, k, F_IRQ, rec, -1);
	str(k, F_NAME, rec, ev->comm, sizeof(ev->comm));
	if (k->f[F_IRQ])
		return;
	ev->pid = !strncmp(n, "reschedule", 10)		  ? -2
		  : !strncmp(n, "call_function_single", 20) ? -4
		  : !strncmp(n, "local_timer", 11)	  ? JL_EVENT_IRQ_LOCAL_TIMER
							  : -3;
	if (ev->pid == JL_EVENT_IRQ_LOCAL_TIMER)
		snprintf(ev->comm, sizeof(ev->comm), "LOC local timer");
	else
		snprintf(ev->comm, sizeof(ev->comm), "IPI %s", ev->pid == -2 ? "reschedule" : ev->pid == -4
			 ? "call function single" : "call function");
}

/* hrtimer_expire_entry (its now) and hrtimer_start (its expires, softexpires and mode): the timer, its
 * function. */
static void convert_timer(struct jl_decoder *r, const struct jl_decoder_event *k, struct tep_record *rec, struct jl_event *ev)
{
	unsigned long long addr = (unsigned long long)num(r, k, F_FUNC, rec, 0);

	fn_name(r, addr, false, ev->comm, sizeof(ev->comm));
	if (!addr)
		snprintf(ev->comm, sizeof(ev->comm), "0");
	ev->arg = (uint64_t)num(r, k, F_HRTIMER, rec, 0);
	if (ev->kind == JL_EVENT_TIMER_ENTRY) {
		ev->expires = num(r, k, F_NOW, rec, 0);
	} else {
		ev->expires = num(r, k, F_EXPIRES, rec, 0);
		ev->softexpires = num(r, k, F_SOFTEXPIRES, rec, 0);
		ev->prev_state = num(r, k, F_MODE, rec, 0);
	}
}

/* An IPI sent: its target (one CPU, or a mask of the first 64), callback and call site. */
static void convert_ipi(struct jl_decoder *r, const struct jl_decoder_event *k, struct tep_record *rec, struct jl_event *ev)
{
	if (k->f[F_CPU]) {
		ev->target_cpu = (int32_t)num(r, k, F_CPU, rec, -1);
		ev->arg = ev->target_cpu >= 0 && ev->target_cpu < 64 ? 1ull << ev->target_cpu : 0;
	} else {
		ev->arg = cpumask64(k, F_CPUMASK, rec);
		ev->target_cpu = __builtin_popcountll(ev->arg) == 1 ? __builtin_ctzll(ev->arg) : -1;
	}
	fn_name(r, (unsigned long long)num(r, k, F_CALLBACK, rec, 0), false, ev->comm, sizeof(ev->comm));
	fn_name(r, (unsigned long long)num(r, k, F_CALLSITE, rec, 0), true, ev->prev_comm, sizeof(ev->prev_comm));
}

/* A trace_marker_raw record: a probed program's (include/jitterlab/probe.h), a measured thread's cycle
 * mark, or anything else (JL_EVENT_OTHER). */
static void convert_mark(struct jl_decoder *r, const struct jl_decoder_event *k, struct tep_record *rec, struct jl_event *ev)
{
	const uint32_t id = (uint32_t)num(r, k, F_ID, rec, 0);
	const struct tep_format_field *buf = k->f[F_BUF];

	if (id == JL_PROBE_ID && buf && buf->offset + (int)(offsetof(struct jl_probe_rec, name) - 4) <= rec->size) {
		/* the id, then the rest */
		struct jl_probe_rec p = { 0 };
		int have = rec->size - buf->offset;

		if (have > (int)sizeof(p) - 4)
			have = (int)sizeof(p) - 4;
		memcpy((char *)&p + 4, (const char *)rec->data + buf->offset, (size_t)have);
		ev->kind = JL_EVENT_PROBE;
		ev->mark_thread = (int32_t)p.kind;
		ev->expires = p.release_ns;
		p.name[sizeof(p.name) - 1] = '\0';
		snprintf(ev->comm, sizeof(ev->comm), "%s", jl_probe_kind_named(p.kind) ? p.name : "");
	} else if (id == JL_TRACE_MARK_ID && buf && buf->offset + (int)(sizeof(struct jl_trace_mark_rec) - 4) <= rec->size) {
		struct jl_trace_mark_rec m;

		memcpy((char *)&m + 4, (const char *)rec->data + buf->offset, sizeof(m) - 4);
		ev->mark_thread = m.thread;
		ev->mark_cycle = m.cycle;
	} else {
		ev->kind = JL_EVENT_OTHER;
	}
}

/* The task events: pid and comm of the task each is about, and what else its kind carries. */
static void convert_task(struct jl_decoder *r, const struct jl_decoder_event *k, struct tep_record *rec, struct jl_event *ev)
{
	switch (ev->kind) {
	case JL_EVENT_SWITCH:
		ev->prev_pid = (int32_t)num(r, k, F_PREV_PID, rec, -1);
		ev->prev_prio = (int32_t)num(r, k, F_PREV_PRIO, rec, 0);
		ev->prev_state = num(r, k, F_PREV_STATE, rec, 0);
		str(k, F_PREV_COMM, rec, ev->prev_comm, sizeof(ev->prev_comm));
		ev->pid = (int32_t)num(r, k, F_NEXT_PID, rec, -1);
		ev->prio = (int32_t)num(r, k, F_NEXT_PRIO, rec, 0);
		str(k, F_NEXT_COMM, rec, ev->comm, sizeof(ev->comm));
		break;
	case JL_EVENT_WAKING:
	case JL_EVENT_WAKEUP_NEW:
	case JL_EVENT_WAKEUP:
	case JL_EVENT_MIGRATE:
		ev->pid = (int32_t)num(r, k, F_PID, rec, -1);
		ev->prio = (int32_t)num(r, k, F_PRIO, rec, 0);
		str(k, F_COMM, rec, ev->comm, sizeof(ev->comm));
		ev->target_cpu = (int32_t)num(r, k, ev->kind == JL_EVENT_MIGRATE ? F_DEST : F_TARGET, rec, -1);
		break;
	case JL_EVENT_PI_SETPRIO:
		ev->pid = (int32_t)num(r, k, F_PID, rec, -1);
		str(k, F_COMM, rec, ev->comm, sizeof(ev->comm));
		ev->prev_prio = (int32_t)num(r, k, F_OLDPRIO, rec, 0);
		ev->prio = (int32_t)num(r, k, F_NEWPRIO, rec, 0);
		break;
	case JL_EVENT_NEWTASK:
		ev->pid = (int32_t)num(r, k, F_PID, rec, -1);
		str(k, F_COMM, rec, ev->comm, sizeof(ev->comm));
		ev->prev_pid = ev->cur; /* written by the task that cloned it */
		ev->arg = (uint64_t)num(r, k, F_CLONE_FLAGS, rec, 0);
		break;
	case JL_EVENT_FORK:
		ev->prev_pid = (int32_t)num(r, k, F_PARENT_PID, rec, -1);
		str(k, F_PARENT_COMM, rec, ev->prev_comm, sizeof(ev->prev_comm));
		ev->pid = (int32_t)num(r, k, F_CHILD_PID, rec, -1);
		str(k, F_CHILD_COMM, rec, ev->comm, sizeof(ev->comm));
		break;
	case JL_EVENT_RENAME:
		ev->pid = (int32_t)num(r, k, F_PID, rec, -1);
		str(k, F_OLDCOMM, rec, ev->prev_comm, sizeof(ev->prev_comm));
		str(k, F_NEWCOMM, rec, ev->comm, sizeof(ev->comm));
		break;
	case JL_EVENT_EXIT:
		ev->pid = (int32_t)num(r, k, F_PID, rec, -1);
		str(k, F_COMM, rec, ev->comm, sizeof(ev->comm));
		ev->prio = (int32_t)num(r, k, F_PRIO, rec, 0);
		ev->arg = (uint64_t)num(r, k, F_GROUP_DEAD, rec, 0) != 0;
		break;
	default:
		break;
	}
}

int jl_decoder_convert(struct jl_decoder *r, struct tep_record *rec, int cpu, struct jl_event *ev)
{
	const struct jl_decoder_event *k = common_fields(r, rec, cpu, ev);

	if (!k)
		return 0;
	ev->kind = k->kind;
	switch (ev->kind) {
	case JL_EVENT_IRQ_ENTRY:
	case JL_EVENT_IRQ_EXIT:
		convert_irq(r, k, rec, ev);
		break;
	case JL_EVENT_SOFTIRQ_ENTRY:
	case JL_EVENT_SOFTIRQ_EXIT:
	case JL_EVENT_SOFTIRQ_RAISE:
		ev->pid = (int32_t)num(r, k, F_VEC, rec, -1);
		break;
	case JL_EVENT_TIMER_ENTRY:
	case JL_EVENT_TIMER_START:
		convert_timer(r, k, rec, ev);
		break;
	case JL_EVENT_IPI:
		convert_ipi(r, k, rec, ev);
		break;
	case JL_EVENT_MARK:
		convert_mark(r, k, rec, ev);
		break;
	default:
		convert_task(r, k, rec, ev);
		break;
	}
	return 0;
}


/* REC as the events it stands for, into EV (room for 2): a gap of lost events first when REC is the first
 * record after one, then REC itself. Counts it in R->info. The number of events. */
int jl_decoder_events(struct jl_decoder *r, struct tep_record *rec, int cpu, struct jl_event *ev)
{
	int n = 0;

	r->info->records++;
	if (cpu + 1 > r->info->ncpus)
		r->info->ncpus = cpu + 1;
	if (rec->missed_events) {
		ev[n++] = (struct jl_event){ .ts = (int64_t)rec->ts, .cpu = cpu, .kind = JL_EVENT_LOST,
					   .prev_state = rec->missed_events > 0 ? rec->missed_events : 0 };
		r->info->lost_gaps++;
		if (rec->missed_events > 0)
			r->info->lost_events += (uint64_t)rec->missed_events;
	}
	jl_decoder_convert(r, rec, cpu, &ev[n++]);
	return n;
}

int jl_decoder_feed(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct jl_decoder *r = data;
	struct jl_event ev[2];
	int n = jl_decoder_events(r, rec, cpu, ev);

	(void)h;
	for (int i = 0; i < n; i++)
		if (jl_analysis_feed(r->an, &ev[i]) < 0) {
			r->failed = errno ? errno : ENOMEM;
			return -1;
		}
	return 0;
}
