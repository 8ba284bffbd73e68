/* trace_read: read a trace.dat (ours, or one trace-cmd wrote, v6 or v7) through libtracecmd's public read
 * API, merged across CPUs by timestamp (tracecmd_iterate_events), and turn each record into the pure
 * event model of trace_events.h (sched, irq, timer, task, ipi events and our markers; others are OTHER).
 * A plain v6 file's pages (its header says so, and libtracecmd's first record of each CPU is where the
 * page says) are read directly with kbuffer, like a run's recorded pages (dat_pages): the only part of
 * the layout read here, the documented header fields and CPU order. It never writes files. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/stat.h>

#include <event-parse.h>
#include <kbuffer.h>
#include <trace-cmd.h>
#include <tracefs.h>

#include "../base/housekeeping_thread.h"
#include "trace_int.h"
#include "../../include/jitterlab/probe.h"

enum { F_PREV_PID, F_PREV_PRIO, F_PREV_STATE, F_PREV_COMM, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM, F_PID, F_PRIO,
       F_COMM, F_TARGET, F_DEST, F_IRQ, F_NAME, F_VEC, F_FUNC, F_ID, F_BUF, F_OLDPRIO, F_NEWPRIO, F_PARENT_PID,
       F_PARENT_COMM, F_CHILD_PID, F_CHILD_COMM, F_OLDCOMM, F_NEWCOMM, F_CLONE_FLAGS, F_GROUP_DEAD, F_CPU,
       F_CPUMASK, F_CALLSITE, F_CALLBACK, F_HRTIMER, F_NOW, F_EXPIRES, F_SOFTEXPIRES, F_N };

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
	{ "irq", "softirq_entry", JL_EVENT_SOFTIRQ_ENTRY, { [F_VEC] = "vec" } },
	{ "irq", "softirq_exit", JL_EVENT_SOFTIRQ_EXIT, { [F_VEC] = "vec" } },
	{ "timer", "hrtimer_expire_entry", JL_EVENT_TIMER_ENTRY,
	  { [F_FUNC] = "function", [F_HRTIMER] = "hrtimer", [F_NOW] = "now" } },
	{ "timer", "hrtimer_start", JL_EVENT_TIMER_START,
	  { [F_FUNC] = "function", [F_HRTIMER] = "hrtimer", [F_EXPIRES] = "expires", [F_SOFTEXPIRES] = "softexpires" } },
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

struct known {
	int id;
	int def;
	int kind;
	struct tep_format_field *f[F_N];
	/* each field's place, for the records at least NEED bytes long in the host's byte order (nearly all):
	 * read without a check per field; SIZE 0: the event has no such field */
	struct { uint16_t off; uint8_t size; bool sign; } at[F_N];
	int need;
};

struct reader {
	struct tep_handle *tep;
	struct known known[NDEFS];
	int nknown;
	uint8_t by_id[4096];          /* event id -> index in known + 1 (ids below 4096; others: a search) */
	struct tep_format_field *common_type, *common_pid, *common_flags;
	bool swap;                    /* the records' byte order is not the host's: read through libtraceevent */
	struct jl_analysis *an;
	const struct jl_ksyms *live;
	bool pages;                  /* reading recorded pages with this kernel's tep (jl_trace_read_pages) */
	struct jl_trace_readinfo *info;
	/* the names of the function addresses seen last (a timer event names its callback: a search of the
	 * symbols and a format each time otherwise); direct-mapped on the address */
	struct fn_cached {
		unsigned long long addr;
		bool inside, used;
		char name[JL_EVENT_COMM];
	} fncache[64];
	/* rows mode */
	const int64_t *ts;
	long *rows;
	int nts;
	int failed;
};

/* Fields that are signed and 32 bits wide are sign-extended (the pids, prios and CPUs). */
static inline bool sign_extends(const struct tep_format_field *fld)
{
	return (fld->flags & TEP_FIELD_IS_SIGNED) && fld->size == 4;
}

static void setup(struct reader *r)
{
	/* an old trace without sched_waking: its sched_wakeup is the start of the wakeup */
	bool no_waking = !tep_find_event_by_name(r->tep, "sched", "sched_waking");

	r->nknown = 0;
	for (int i = 0; i < NDEFS; i++) {
		struct tep_event *ev = tep_find_event_by_name(r->tep, evdefs[i].system, evdefs[i].name);
		struct known *k;

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

static inline bool field_u(const struct reader *r, const struct tep_format_field *fld, const void *data,
			   unsigned long long *v)
{
	if (!r->swap && in_place((const char *)data + fld->offset, fld->size, v))
		return true;
	return tep_read_number_field((struct tep_format_field *)fld, data, v) == 0;
}

/* A common field's value (0 when it cannot be read). */
static inline unsigned long long common_u(const struct reader *r, const struct tep_format_field *fld, const void *data)
{
	unsigned long long v = 0;

	return fld && field_u(r, fld, data, &v) ? v : 0;
}

static inline long long num(const struct reader *r, const struct known *k, int f, const struct tep_record *rec,
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
static void str(const struct known *k, int f, const struct tep_record *rec, char *out, size_t len)
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

static const struct known *lookup(const struct reader *r, int id)
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
static void fn_name(struct reader *r, unsigned long long addr, bool inside, char *out, size_t len)
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
	if (fn && r->pages) /* the live tep knows it, the file written from the pages does not yet */
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
static uint64_t cpumask64(const struct known *k, int f, const struct tep_record *rec)
{
	const struct tep_format_field *fld = k->f[f];
	uint64_t mask = 0;
	int off, size;

	if (!fld || !(fld->flags & TEP_FIELD_IS_DYNAMIC) || !field_bytes(fld, rec, &off, &size))
		return 0;
	memcpy(&mask, (const char *)rec->data + off, size < 8 ? (size_t)size : 8);
	return mask;
}

static int convert(struct reader *r, struct tep_record *rec, int cpu, struct jl_event *ev)
{
	const struct known *k;
	unsigned long long addr;

	memset(ev, 0, sizeof(*ev));
	ev->ts = (int64_t)rec->ts;
	ev->cpu = cpu;
	ev->kind = JL_EVENT_OTHER;
	ev->has_cur = true;
	if (r->swap) {
		int fl = tep_data_flags(r->tep, rec); /* common_flags: in which context the record was written */

		k = lookup(r, tep_data_type(r->tep, rec));
		ev->cur = tep_data_pid(r->tep, rec);
		ev->flags = fl > 0 ? (uint8_t)(fl & (JL_EVENT_F_HARDIRQ | JL_EVENT_F_SOFTIRQ)) : 0;
	} else {
		k = lookup(r, (int)common_u(r, r->common_type, rec->data));
		ev->cur = (int32_t)common_u(r, r->common_pid, rec->data);
		ev->flags = (uint8_t)(common_u(r, r->common_flags, rec->data) & (JL_EVENT_F_HARDIRQ | JL_EVENT_F_SOFTIRQ));
	}
	if (!k)
		return 0;
	ev->kind = k->kind;
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
	case JL_EVENT_IRQ_ENTRY:
	case JL_EVENT_IRQ_EXIT:
		ev->pid = (int32_t)num(r, k, F_IRQ, rec, -1);
		str(k, F_NAME, rec, ev->comm, sizeof(ev->comm));
		if (!k->f[F_IRQ]) { /* an IPI handler: named by its event */
			const char *n = evdefs[k->def].name;

			ev->pid = !strncmp(n, "reschedule", 10) ? -2 : !strncmp(n, "call_function_single", 20) ? -4 : -3;
			snprintf(ev->comm, sizeof(ev->comm), "IPI %s", ev->pid == -2 ? "reschedule" : ev->pid == -4
				 ? "call function single" : "call function");
		}
		break;
	case JL_EVENT_SOFTIRQ_ENTRY:
	case JL_EVENT_SOFTIRQ_EXIT:
		ev->pid = (int32_t)num(r, k, F_VEC, rec, -1);
		break;
	case JL_EVENT_TIMER_ENTRY:
	case JL_EVENT_TIMER_START:
		addr = (unsigned long long)num(r, k, F_FUNC, rec, 0);
		fn_name(r, addr, false, ev->comm, sizeof(ev->comm));
		if (!addr)
			snprintf(ev->comm, sizeof(ev->comm), "0");
		ev->arg = (uint64_t)num(r, k, F_HRTIMER, rec, 0);
		if (ev->kind == JL_EVENT_TIMER_ENTRY) {
			ev->expires = num(r, k, F_NOW, rec, 0);
		} else {
			ev->expires = num(r, k, F_EXPIRES, rec, 0);
			ev->softexpires = num(r, k, F_SOFTEXPIRES, rec, 0);
		}
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
	case JL_EVENT_IPI:
		if (k->f[F_CPU]) {
			ev->target_cpu = (int32_t)num(r, k, F_CPU, rec, -1);
			ev->arg = ev->target_cpu >= 0 && ev->target_cpu < 64 ? 1ull << ev->target_cpu : 0;
		} else {
			ev->arg = cpumask64(k, F_CPUMASK, rec);
			ev->target_cpu = __builtin_popcountll(ev->arg) == 1 ? __builtin_ctzll(ev->arg) : -1;
		}
		fn_name(r, (unsigned long long)num(r, k, F_CALLBACK, rec, 0), false, ev->comm, sizeof(ev->comm));
		fn_name(r, (unsigned long long)num(r, k, F_CALLSITE, rec, 0), true, ev->prev_comm, sizeof(ev->prev_comm));
		break;
	case JL_EVENT_MARK:
		if ((uint32_t)num(r, k, F_ID, rec, 0) == JL_PROBE_ID && k->f[F_BUF] &&
		    k->f[F_BUF]->offset + (int)(offsetof(struct jl_probe_rec, name) - 4) <= rec->size) {
			/* a probed program's record (include/jitterlab/probe.h): the id, then the rest */
			struct jl_probe_rec p = { 0 };
			int have = rec->size - k->f[F_BUF]->offset;

			if (have > (int)sizeof(p) - 4)
				have = (int)sizeof(p) - 4;
			memcpy((char *)&p + 4, (const char *)rec->data + k->f[F_BUF]->offset, (size_t)have);
			ev->kind = JL_EVENT_PROBE;
			ev->mark_thread = (int32_t)p.kind;
			ev->expires = p.release_ns;
			p.name[sizeof(p.name) - 1] = '\0';
			snprintf(ev->comm, sizeof(ev->comm), "%s", p.kind == JL_PROBE_NAME ? p.name : "");
			break;
		}
		if ((uint32_t)num(r, k, F_ID, rec, 0) != JL_TRACE_MARK_ID || !k->f[F_BUF] ||
		    k->f[F_BUF]->offset + (int)(sizeof(struct jl_trace_mark_rec) - 4) > rec->size) {
			ev->kind = JL_EVENT_OTHER;
			break;
		}
		{
			struct jl_trace_mark_rec m;

			memcpy((char *)&m + 4, (const char *)rec->data + k->f[F_BUF]->offset, sizeof(m) - 4);
			ev->mark_thread = m.thread;
			ev->mark_cycle = m.cycle;
		}
		break;
	default:
		break;
	}
	return 0;
}

typedef int (*rec_fn)(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data);

/* REC as the events it stands for, into EV (room for 2): a gap of lost events first when REC is the first
 * record after one, then REC itself. Counts it in R->info. The number of events. */
static int record_events(struct reader *r, struct tep_record *rec, int cpu, struct jl_event *ev)
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
	convert(r, rec, cpu, &ev[n++]);
	return n;
}

static int on_record(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;
	struct jl_event ev[2];
	int n = record_events(r, rec, cpu, ev);

	(void)h;
	for (int i = 0; i < n; i++)
		if (jl_analysis_feed(r->an, &ev[i]) < 0) {
			r->failed = errno ? errno : ENOMEM;
			return -1;
		}
	return 0;
}

static int dat_iterate(struct tracecmd_input *h, const char *path, rec_fn fn, void *data);

static struct tracecmd_input *open_dat(const char *path, char *err, size_t errlen)
{
	struct tracecmd_input *h;

	tracecmd_set_loglevel(TEP_LOG_CRITICAL);
	h = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);
	if (!h)
		snprintf(err, errlen, "trace: cannot read %s as a trace-cmd file: %s", path,
			 errno ? strerror(errno) : "bad format");
	return h;
}

/* ---- a run's recorded pages, read like trace.dat (jl_trace_pages) ---- */

#define PAGES_PER_READ 16 /* pages read at once from a CPU's file */

struct pcpu {
	char *buf;              /* PAGES_PER_READ pages of the CPU's file, from buf_off */
	uint64_t buf_off, buf_len;
	struct kbuffer *kb;
	uint64_t off;           /* the next page's offset in the CPU's pages */
	bool loaded;            /* a page is in kb */
	bool fresh;             /* its first record not read yet (the only one with missed events) */
	bool taken;             /* rec was handed on: the next peek moves past it */
	struct tep_record rec;  /* the CPU's next record (rec.data NULL: none left) */
};

/* The next record of CPU C into P->rec (its data in P's buffer, valid until the CPU moves on). 1, 0 when
 * the CPU has no more, -1 on a read error or a page larger than the page size. */
static int pcpu_peek(const struct jl_trace_pages *src, int c, struct pcpu *p)
{
	uint64_t base = src->cpu_off ? src->cpu_off[c] : 0, psz = (uint64_t)src->page_size;
	unsigned long long ts;

	p->rec.data = NULL;
	for (;;) {
		void *data = !p->loaded ? NULL : p->taken ? kbuffer_next_event(p->kb, &ts) : kbuffer_read_event(p->kb, &ts);

		p->taken = false;
		if (data) {
			p->rec.ts = ts;
			p->rec.cpu = c;
			p->rec.data = data;
			p->rec.size = kbuffer_event_size(p->kb);
			p->rec.missed_events = p->fresh ? kbuffer_missed_events(p->kb) : 0; /* the page's first only */
			p->fresh = false;
			return 1;
		}
		if (p->off + psz > src->cpu_bytes[c])
			return 0;
		if (p->off < p->buf_off || p->off + psz > p->buf_off + p->buf_len) {
			uint64_t want = src->cpu_bytes[c] - p->off;
			ssize_t got;

			want = want > PAGES_PER_READ * psz ? PAGES_PER_READ * psz : want - want % psz;
			got = pread(src->cpu_fd[c], p->buf, (size_t)want, (off_t)(base + p->off));
			if (got < (ssize_t)psz) {
				if (got >= 0)
					errno = EIO; /* a file shorter than it said */
				return -1;
			}
			p->buf_off = p->off;
			p->buf_len = (uint64_t)got - (uint64_t)got % psz;
		}
		p->loaded = kbuffer_load_subbuffer(p->kb, p->buf + (p->off - p->buf_off)) == 0;
		p->fresh = true;
		p->off += psz;
		if (p->loaded && kbuffer_subbuffer_size(p->kb) > src->page_size) {
			errno = EINVAL;
			return -1;
		}
	}
}

/* A merge over SRC's CPUs in time order that can stop and go on: the pages a CPU's file holds can grow
 * between two runs (the live analysis reads the files the reader thread appends to). */
struct pages_it {
	const struct jl_trace_pages *src;
	struct pcpu *p;
	bool failed;
};

static int pages_it_init(struct pages_it *it, const struct jl_trace_pages *src)
{
	memset(it, 0, sizeof(*it));
	it->src = src;
	it->p = calloc((size_t)(src->ncpus > 0 ? src->ncpus : 1), sizeof(*it->p));
	if (!it->p)
		return -1;
	for (int c = 0; c < src->ncpus; c++) {
		it->p[c].buf = malloc((size_t)src->page_size * PAGES_PER_READ);
		it->p[c].kb = tep_kbuffer(src->tep);
		if (!it->p[c].buf || !it->p[c].kb)
			return -1;
	}
	return 0;
}

static void pages_it_free(struct pages_it *it)
{
	for (int c = 0; it->p && c < it->src->ncpus; c++) {
		free(it->p[c].buf);
		if (it->p[c].kb)
			kbuffer_free(it->p[c].kb);
	}
	free(it->p);
	it->p = NULL;
}

/* FN over the records of the pages SRC->cpu_bytes says are there, in time order (the lower CPU first on a
 * tie, as tracecmd_iterate_events), up to the first at or after LIMIT. The caller vouches that a CPU with
 * nothing more yet will have nothing before LIMIT (INT64_MAX: the files are complete). 0, or -1 (a read
 * error, or FN's). */
static int pages_it_run(struct pages_it *it, int64_t limit, rec_fn fn, void *data)
{
	const struct jl_trace_pages *src = it->src;
	struct pcpu *p = it->p;

	if (it->failed)
		return -1;
	for (int c = 0; c < src->ncpus; c++)
		if (!p[c].rec.data && pcpu_peek(src, c, &p[c]) < 0)
			goto fail;
	for (;;) {
		int next = -1;

		for (int c = 0; c < src->ncpus; c++)
			if (p[c].rec.data && (next < 0 || p[c].rec.ts < p[next].rec.ts))
				next = c;
		if (next < 0 || (int64_t)p[next].rec.ts >= limit)
			return 0;
		if (fn(NULL, &p[next].rec, next, data) < 0)
			goto fail;
		p[next].taken = true;
		if (pcpu_peek(src, next, &p[next]) < 0)
			goto fail;
	}
fail:
	it->failed = true;
	return -1;
}

/* FN over every record of SRC in time order. 0, or -1. */
static int pages_iterate(const struct jl_trace_pages *src, rec_fn fn, void *data)
{
	struct pages_it it;
	int rc = pages_it_init(&it, src) < 0 ? -1 : pages_it_run(&it, INT64_MAX, fn, data);

	pages_it_free(&it);
	return rc;
}

/* ---- trace.dat's pages, read the same way ---- */

/* Whether the page at OFF of FD starts with record REC (the same timestamp and bytes): the check that a
 * file's CPU data lies as plain pages where libtracecmd reads it (not compressed, no timestamp offsets). */
static bool page_holds(struct tep_handle *tep, int fd, uint64_t off, int page_size, const struct tep_record *rec)
{
	struct kbuffer *kb = tep_kbuffer(tep);
	char *page = malloc((size_t)page_size);
	unsigned long long ts = 0;
	bool ok = false;
	void *d;

	if (kb && page && pread(fd, page, (size_t)page_size, (off_t)off) == page_size &&
	    kbuffer_load_subbuffer(kb, page) == 0 && kbuffer_subbuffer_size(kb) <= page_size &&
	    (d = kbuffer_read_event(kb, &ts)))
		ok = ts == rec->ts && kbuffer_event_size(kb) == rec->size && !memcmp(d, rec->data, (size_t)rec->size);
	free(page);
	if (kb)
		kbuffer_free(kb);
	return ok;
}

/* Where each CPU's pages of the open trace.dat H (file descriptor FD) lie. Only for a v6 file of one
 * buffer, whose CPUs' data are its last section, each CPU's pages whole, page-aligned and in CPU order
 * (trace-cmd.dat.v6(5)): a CPU's pages run from the page of its first record to where the next CPU's
 * start, the last CPU's to the end of the file. The first page of each must hold the record libtracecmd
 * reads there (so no compression, no timestamp offsets). False otherwise: then read record by record. */
static bool dat_pages(struct tracecmd_input *h, int fd, struct jl_trace_pages *src, int *fds, uint64_t *off,
		      uint64_t *bytes, int max)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	int ncpus = tep ? tep_get_cpus(tep) : 0, psz;
	unsigned char head[18];
	uint32_t page;
	struct stat st;

	/* the header: "\027\010\104tracing", "6", endianness (0 little, 1 big), long size, page size (u32) */
	if (ncpus <= 0 || ncpus > max || tracecmd_buffer_instances(h) ||
	    pread(fd, head, sizeof(head), 0) != (ssize_t)sizeof(head) || memcmp(head, "\027\010\104tracing6", 12) ||
	    head[12] != (__BYTE_ORDER__ == __ORDER_BIG_ENDIAN__) || fstat(fd, &st))
		return false;
	memcpy(&page, head + 14, sizeof(page));
	psz = (int)page;
	if (psz <= 0 || (psz & (psz - 1)) || st.st_size % psz)
		return false;
	for (int c = 0; c < ncpus; c++) {
		struct tep_record *a = tracecmd_read_cpu_first(h, c);
		bool ok = !a || page_holds(tep, fd, a->offset & ~(uint64_t)(psz - 1), psz, a);

		fds[c] = fd;
		off[c] = a ? a->offset & ~(uint64_t)(psz - 1) : 0;
		bytes[c] = a ? 1 : 0; /* set below */
		tracecmd_free_record(a);
		if (!ok)
			return false;
	}
	for (int c = 0; c < ncpus; c++) {
		uint64_t end = (uint64_t)st.st_size;

		if (!bytes[c])
			continue;
		for (int o = c + 1; o < ncpus; o++) /* CPU order: the next CPU with records starts after C */
			if (bytes[o]) {
				if (off[o] <= off[c])
					return false;
				end = off[o];
				break;
			}
		bytes[c] = end - off[c];
	}
	*src = (struct jl_trace_pages){ .tep = tep, .ncpus = ncpus, .page_size = psz, .cpu_fd = fds,
					.cpu_off = off, .cpu_bytes = bytes };
	return true;
}

/* FN over every record of trace.dat H in time order: its pages read directly where they are plain
 * (dat_pages: several times faster than libtracecmd's record by record), else tracecmd_iterate_events
 * on a fresh handle of PATH (the checks moved H's CPU iterators). Records of either are read with H's tep:
 * the same file's formats. */
static int dat_iterate(struct tracecmd_input *h, const char *path, rec_fn fn, void *data)
{
	struct tep_handle *tep = tracecmd_get_tep(h);
	int ncpus = tep && tep_get_cpus(tep) > 0 ? tep_get_cpus(tep) : 1;
	int *fds = calloc((size_t)ncpus, sizeof(*fds)), fd = open(path, O_RDONLY | O_CLOEXEC);
	uint64_t *off = calloc((size_t)ncpus, sizeof(*off)), *bytes = calloc((size_t)ncpus, sizeof(*bytes));
	struct jl_trace_pages src;
	int rc = -1;

	if (fds && off && bytes && fd >= 0 && dat_pages(h, fd, &src, fds, off, bytes, ncpus)) {
		rc = pages_iterate(&src, fn, data);
	} else {
		struct tracecmd_input *fresh = tracecmd_open(path, TRACECMD_FL_LOAD_NO_PLUGINS);

		if (fresh) {
			rc = tracecmd_iterate_events(fresh, NULL, 0, fn, data);
			tracecmd_close(fresh);
		}
	}
	if (fd >= 0)
		close(fd);
	free(fds);
	free(off);
	free(bytes);
	return rc;
}

/* ---- a whole trace read in two threads (jl_trace_read_start) ----
 * Opening the file, reading its pages and turning records into events is about 40% of the work, the
 * analysis the rest, and each goes through the events in order: with a second CPU, a thread reads and
 * converts while the caller's thread feeds the analysis, the events handed over in batches through a ring
 * of PIPE_SLOTS (the reader waits when it is full). The reader starts before the analysis exists: it opens
 * the file (libtracecmd reads its headers and kallsyms: about 10 ms) while the caller reads the run's
 * summary and samples. The analysis sees the same events in the same order as on_record gives them. */
#define PIPE_BATCH 512
#define PIPE_SLOTS 8 /* 600 KB of events; a longer lead measured no faster (its memory is cold) */

struct pipe_batch {
	int n;
	struct jl_event ev[PIPE_BATCH];
};

/* The reader thread writes r's counters (info) on every record and reads r for every field: r and info
 * are on cache lines of their own, which the analysis thread touches only to set r.an before it begins
 * and to read the counters after the join (a flag it read on every event, on info's line, once cost the
 * reader a fifth of its time). */
struct jl_trace_reading {
	struct reader r __attribute__((aligned(64)));
	struct jl_trace_readinfo info;
	char pad_ __attribute__((aligned(64)));
	char *path;                           /* a trace.dat, or */
	const struct jl_trace_pages *src;     /* a run's recorded pages */
	bool threaded;
	pthread_t thread;
	pthread_mutex_t mu;
	pthread_cond_t cv;
	struct pipe_batch *b[PIPE_SLOTS];     /* allocated as the reader first needs them */
	unsigned head, tail;                  /* batches handed over, batches fed */
	bool done, stop;                      /* the reader finished (rc says how); the analysis stopped */
	int rc, rerr;                         /* the reading's result, its errno when it failed */
	int failed;                           /* the analysis' errno when it failed (read after the join) */
	char err[1024];                       /* the reader's failure to open the file */
};

/* The batch the reader fills: b[head % PIPE_SLOTS], made on first use. NULL without memory. */
static struct pipe_batch *pipe_fill(struct jl_trace_reading *p)
{
	struct pipe_batch **b = &p->b[p->head % PIPE_SLOTS];

	if (!*b && (*b = malloc(sizeof(**b))))
		(*b)->n = 0;
	return *b;
}

/* Hand the batch being filled over, then wait for room. False when the analysis stopped. */
static bool pipe_push(struct jl_trace_reading *p)
{
	bool go;

	pthread_mutex_lock(&p->mu);
	__atomic_store_n(&p->head, p->head + 1, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->cv);
	while (p->head - p->tail == PIPE_SLOTS && !p->stop)
		pthread_cond_wait(&p->cv, &p->mu);
	go = !p->stop;
	pthread_mutex_unlock(&p->mu);
	return go;
}

static int on_pipe(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct jl_trace_reading *p = data;
	struct pipe_batch *b = pipe_fill(p);

	(void)h;
	if (b && b->n + 2 > PIPE_BATCH) {
		if (!pipe_push(p))
			return -1;
		b = pipe_fill(p);
	}
	if (!b) {
		errno = ENOMEM;
		return -1;
	}
	b->n += record_events(&p->r, rec, cpu, &b->ev[b->n]);
	return 0;
}

/* The records of P's trace.dat or pages, in time order, to FN: opening the file (with its tep) first. */
static int iterate(struct jl_trace_reading *p, rec_fn fn, void *data)
{
	struct tracecmd_input *h;
	int rc;

	if (p->src) {
		p->r.tep = p->src->tep;
		p->r.pages = true;
		setup(&p->r);
		return pages_iterate(p->src, fn, data);
	}
	if (!(h = open_dat(p->path, p->err, sizeof(p->err))))
		return -1;
	p->r.tep = tracecmd_get_tep(h);
	setup(&p->r);
	rc = dat_iterate(h, p->path, fn, data);
	tracecmd_close(h);
	p->r.tep = NULL;
	return rc;
}

static void *pipe_reader(void *arg)
{
	struct jl_trace_reading *p = arg;
	int rc = iterate(p, on_pipe, p), e = errno;

	pthread_mutex_lock(&p->mu);
	p->rerr = rc < 0 ? (e ? e : EIO) : 0;
	if (p->b[p->head % PIPE_SLOTS] && p->b[p->head % PIPE_SLOTS]->n && !p->stop)
		__atomic_store_n(&p->head, p->head + 1, __ATOMIC_RELEASE);
	p->rc = rc;
	__atomic_store_n(&p->done, true, __ATOMIC_RELEASE);
	pthread_cond_broadcast(&p->cv);
	pthread_mutex_unlock(&p->mu);
	return NULL;
}

/* The CPUs this thread may run on. */
static int cpus_allowed(void)
{
	cpu_set_t set;

	return sched_getaffinity(0, sizeof(set), &set) == 0 ? CPU_COUNT(&set) : 1;
}

static struct jl_trace_reading *reading_new(const char *path, const struct jl_trace_pages *src,
					    const struct jl_ksyms *live)
{
	struct jl_trace_reading *p = aligned_alloc(64, sizeof(*p)); /* its cache lines as laid out */

	if (!p)
		return NULL;
	memset(p, 0, sizeof(*p));
	if (path && !(p->path = strdup(path))) {
		free(p);
		return NULL;
	}
	p->src = src;
	p->r.live = live;
	p->r.info = &p->info;
	pthread_mutex_init(&p->mu, NULL);
	pthread_cond_init(&p->cv, NULL);
	if (cpus_allowed() >= 2) {
		/* the reader away from this thread's CPU: a new thread starts beside its creator, and on a short
		 * trace the balancer moved it too late (measured: half the runs took twice as long, serialised) */
		cpu_set_t other;
		int me = sched_getcpu();

		CPU_ZERO(&other);
		if (sched_getaffinity(0, sizeof(other), &other) == 0 && me >= 0 && me < CPU_SETSIZE)
			CPU_CLR(me, &other);
		p->threaded = jl_housekeeping_thread_start(&p->thread, CPU_COUNT(&other) ? &other : NULL, "jl-read", pipe_reader,
						 p) == 0;
	}
	return p;
}

struct jl_trace_reading *jl_trace_read_start(const char *path, const struct jl_ksyms *live)
{
	return reading_new(path, NULL, live);
}

/* Stop P's reader (the analysis failed or will not come) and free P. */
static void reading_free(struct jl_trace_reading *p)
{
	if (!p)
		return;
	if (p->threaded) {
		pthread_mutex_lock(&p->mu);
		p->stop = true;
		pthread_cond_broadcast(&p->cv);
		pthread_mutex_unlock(&p->mu);
		pthread_join(p->thread, NULL);
	}
	for (int i = 0; i < PIPE_SLOTS; i++)
		free(p->b[i]);
	pthread_mutex_destroy(&p->mu);
	pthread_cond_destroy(&p->cv);
	free(p->path);
	free(p);
}

void jl_trace_read_cancel(struct jl_trace_reading *p)
{
	reading_free(p);
}

/* A spinning thread's hint to the CPU (a hyperthread sibling gets the core meanwhile). */
static inline void cpu_pause(void)
{
#if defined(__x86_64__) || defined(__i386__)
	__builtin_ia32_pause();
#elif defined(__aarch64__)
	__asm__ volatile("yield");
#endif
}

/* The analysis caught up with the reader: wait for the next batch spinning, up to PIPE_SPIN_NS, before
 * sleeping (a sleep and its wakeup cost tens of microseconds on a VM, a batch takes about a hundred to
 * read; sleeping on every catch-up was a fifth of the run time). */
#define PIPE_SPIN_NS 2000000
static void pipe_spin(const struct jl_trace_reading *p)
{
	struct timespec t0, t;

	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (unsigned k = 1; __atomic_load_n(&p->head, __ATOMIC_ACQUIRE) == p->tail &&
			     !__atomic_load_n(&p->done, __ATOMIC_ACQUIRE); k++) {
		cpu_pause();
		if (!(k % 256)) {
			clock_gettime(CLOCK_MONOTONIC, &t);
			if ((t.tv_sec - t0.tv_sec) * 1000000000LL + (t.tv_nsec - t0.tv_nsec) > PIPE_SPIN_NS)
				return;
		}
	}
}

/* Feed P's events to AN, in this thread: from the reader's batches, or reading them here. */
static int reading_feed(struct jl_trace_reading *p, struct jl_analysis *an)
{
	p->r.an = an;
	if (!p->threaded) {
		errno = 0;
		p->rc = iterate(p, on_record, &p->r);
		p->rerr = p->rc < 0 ? (errno ? errno : EIO) : 0;
		return p->rc;
	}
	pthread_mutex_lock(&p->mu);
	for (;;) {
		struct pipe_batch *b;
		int failed = 0;

		if (p->tail == p->head && !p->done) {
			pthread_mutex_unlock(&p->mu);
			pipe_spin(p);
			pthread_mutex_lock(&p->mu);
		}
		while (p->tail == p->head && !p->done)
			pthread_cond_wait(&p->cv, &p->mu);
		if (p->tail == p->head)
			break;
		pthread_mutex_unlock(&p->mu);
		b = p->b[p->tail % PIPE_SLOTS];
		for (int i = 0; i < b->n && !failed; i++)
			if (jl_analysis_feed(an, &b->ev[i]) < 0)
				failed = errno ? errno : ENOMEM;
		b->n = 0;
		pthread_mutex_lock(&p->mu);
		p->tail++;
		if (failed)
			p->stop = true;
		pthread_cond_broadcast(&p->cv);
		if (failed) {
			p->failed = failed;
			break;
		}
	}
	pthread_mutex_unlock(&p->mu);
	pthread_join(p->thread, NULL);
	p->threaded = false;
	if (p->failed)
		p->r.failed = p->failed;
	return p->rc;
}

int jl_trace_read_finish(struct jl_trace_reading *p, struct jl_analysis *an, struct jl_trace_readinfo *info, char *err,
			 size_t errlen)
{
	int rc;

	memset(info, 0, sizeof(*info));
	if (!p) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	rc = reading_feed(p, an);
	if (!p->err[0]) /* the file was opened: the analysis ends (nothing of it otherwise) */
		jl_analysis_end(an);
	*info = p->info;
	if (p->err[0]) {
		snprintf(err, errlen, "%s", p->err);
		rc = -1;
	} else if (rc < 0 || p->r.failed) {
		/* the analysis' errno; a read's (a short page read says EIO), else EIO: libtracecmd's
		 * iteration sets none of its own */
		int e = p->r.failed ? p->r.failed : p->src && p->rerr ? p->rerr : EIO;

		if (p->src)
			snprintf(err, errlen, "trace: reading the recorded pages failed: %s", strerror(e));
		else
			snprintf(err, errlen, "trace: reading %s failed: %s", p->path, strerror(e));
		rc = -1;
	}
	reading_free(p);
	return rc;
}

int jl_trace_read(const char *path, struct jl_analysis *an, const struct jl_ksyms *live, struct jl_trace_readinfo *info,
		  char *err, size_t errlen)
{
	return jl_trace_read_finish(jl_trace_read_start(path, live), an, info, err, errlen);
}

struct tep_handle *jl_trace_pages_tep(unsigned groups, char *err, size_t errlen)
{
	const char *sys[20];
	int n = jl_trace_systems(groups, sys, 18);
	struct tep_handle *tep;

	sys[n++] = "ftrace"; /* raw_data: the markers and the probes' records */
	sys[n] = NULL;
	tep = tracefs_local_events_system(NULL, sys);
	if (!tep)
		snprintf(err, errlen, "trace: cannot read this kernel's event formats: %s", strerror(errno ? errno : EIO));
	return tep;
}

int jl_trace_read_pages(const struct jl_trace_pages *src, struct jl_analysis *an, const struct jl_ksyms *live,
			struct jl_trace_readinfo *info, char *err, size_t errlen)
{
	return jl_trace_read_finish(reading_new(NULL, src, live), an, info, err, errlen);
}

/* ---- the recorded pages read as they grow (the live analysis) ---- */

struct jl_trace_stream {
	struct reader r;
	struct pages_it it;
	struct jl_trace_pages src;
	struct jl_trace_readinfo info;
};

struct jl_trace_stream *jl_trace_stream_open(const struct jl_trace_pages *src, struct jl_analysis *an,
					     const struct jl_ksyms *live)
{
	struct jl_trace_stream *s = calloc(1, sizeof(*s));

	if (!s)
		return NULL;
	s->src = *src;
	s->r.tep = src->tep;
	s->r.an = an;
	s->r.live = live;
	s->r.pages = true;
	s->r.info = &s->info;
	setup(&s->r);
	if (pages_it_init(&s->it, &s->src) < 0) {
		jl_trace_stream_close(s);
		return NULL;
	}
	return s;
}

int jl_trace_stream_feed(struct jl_trace_stream *s, int64_t limit)
{
	if (pages_it_run(&s->it, limit, on_record, &s->r) < 0 || s->r.failed) {
		errno = s->r.failed ? s->r.failed : errno ? errno : EIO;
		return -1;
	}
	return 0;
}

const struct jl_trace_readinfo *jl_trace_stream_info(const struct jl_trace_stream *s)
{
	return &s->info;
}

void jl_trace_stream_close(struct jl_trace_stream *s)
{
	if (!s)
		return;
	pages_it_free(&s->it);
	free(s);
}

static int on_row(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct reader *r = data;

	(void)h, (void)cpu;
	for (int i = 0; i < r->nts; i++) {
		if ((int64_t)rec->ts < r->ts[i])
			r->rows[i] += rec->missed_events ? 2 : 1; /* KernelShark adds a "missed events" entry */
	}
	return 0;
}

int jl_trace_rows(const char *path, const int64_t *ts, long *rows, int n, char *err, size_t errlen)
{
	struct reader r = { .ts = ts, .rows = rows, .nts = n };
	struct tracecmd_input *h = open_dat(path, err, errlen);
	int rc;

	if (!h)
		return -1;
	for (int i = 0; i < n; i++)
		rows[i] = 0;
	rc = dat_iterate(h, path, on_row, &r);
	tracecmd_close(h);
	if (rc < 0) {
		snprintf(err, errlen, "trace: reading %s failed", path);
		return -1;
	}
	return 0;
}

int jl_trace_rows_pages(const struct jl_trace_pages *src, const int64_t *ts, long *rows, int n, char *err,
			size_t errlen)
{
	struct reader r = { .ts = ts, .rows = rows, .nts = n };

	for (int i = 0; i < n; i++)
		rows[i] = 0;
	if (pages_iterate(src, on_row, &r) < 0) {
		snprintf(err, errlen, "trace: reading the recorded pages failed");
		return -1;
	}
	return 0;
}

struct discover {
	struct reader r;
	struct { int32_t pid; size_t n; char comm[JL_EVENT_COMM]; } *t;
	size_t nt, cap;
};

static int on_discover(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct discover *d = data;
	struct jl_event ev;
	size_t i;

	(void)h;
	convert(&d->r, rec, cpu, &ev);
	if (ev.kind != JL_EVENT_WAKING || ev.pid <= 0 || ev.prio < 0 || ev.prio >= 99)
		return 0;
	for (i = 0; i < d->nt && d->t[i].pid != ev.pid; i++)
		;
	if (i == d->nt) {
		if (d->nt == d->cap) {
			void *n = realloc(d->t, (d->cap = d->cap ? d->cap * 2 : 64) * sizeof(*d->t));

			if (!n)
				return -1;
			d->t = n;
		}
		const char *known = tep_data_comm_from_pid(d->r.tep, ev.pid); /* the file's cmdlines first */

		d->t[d->nt].pid = ev.pid;
		d->t[d->nt].n = 0;
		snprintf(d->t[d->nt].comm, sizeof(d->t[d->nt].comm), "%s",
			 known && known[0] && known[0] != '<' ? known : ev.comm);
		d->nt++;
	}
	d->t[i].n++;
	return 0;
}

int jl_trace_discover(const char *path, int32_t *pids, char (*names)[JL_EVENT_COMM], int max, int *n, char *err,
		      size_t errlen)
{
	struct discover d = { 0 };
	struct jl_trace_readinfo info = { 0 };
	struct tracecmd_input *h = open_dat(path, err, errlen);
	int rc;

	*n = 0;
	if (!h)
		return -1;
	d.r.tep = tracecmd_get_tep(h);
	d.r.info = &info;
	setup(&d.r);
	rc = dat_iterate(h, path, on_discover, &d);
	tracecmd_close(h);
	if (rc < 0) {
		free(d.t);
		snprintf(err, errlen, "trace: reading %s failed", path);
		return -1;
	}
	while (*n < max) {
		size_t best = d.nt;

		for (size_t i = 0; i < d.nt; i++)
			if (d.t[i].n >= 2 && (best == d.nt || d.t[i].n > d.t[best].n))
				best = i;
		if (best == d.nt)
			break;
		pids[*n] = d.t[best].pid;
		snprintf(names[*n], JL_EVENT_COMM, "%s", d.t[best].comm);
		d.t[best].n = 0;
		(*n)++;
	}
	free(d.t);
	return 0;
}
