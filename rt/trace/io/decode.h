/* decode: a tracefs record as the analysis' event (decode.c): the events the analysis understands and the
 * fields it reads of each, looked up once per file; what each reader (read.c, pages.c, discover.c) holds. */
#ifndef JL_TRACE_DECODE_H
#define JL_TRACE_DECODE_H

#include <stdbool.h>
#include <stdint.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "../analysis/analysis.h"
#include "../analysis/event.h"
#include "read.h"
#include "syms.h"

enum { F_PREV_PID, F_PREV_PRIO, F_PREV_STATE, F_PREV_COMM, F_NEXT_PID, F_NEXT_PRIO, F_NEXT_COMM, F_PID, F_PRIO,
       F_COMM, F_TARGET, F_DEST, F_IRQ, F_NAME, F_VEC, F_FUNC, F_ID, F_BUF, F_OLDPRIO, F_NEWPRIO, F_PARENT_PID,
       F_PARENT_COMM, F_CHILD_PID, F_CHILD_COMM, F_OLDCOMM, F_NEWCOMM, F_CLONE_FLAGS, F_GROUP_DEAD, F_CPU,
       F_CPUMASK, F_CALLSITE, F_CALLBACK, F_HRTIMER, F_NOW, F_EXPIRES, F_SOFTEXPIRES, F_MODE, F_N };

#define JL_DECODER_EVENTS 29 /* the rows of decode.c's evdefs[] */

struct jl_decoder_event {
	int id;
	int def;
	int kind;
	struct tep_format_field *f[F_N];
	/* each field's place, for the records at least NEED bytes long in the host's byte order (nearly all):
	 * read without a check per field; SIZE 0: the event has no such field */
	struct { uint16_t off; uint8_t size; bool sign; } at[F_N];
	int need;
};

struct jl_decoder {
	struct tep_handle *tep;
	struct jl_decoder_event known[JL_DECODER_EVENTS];
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
	int failed;
};

/* Called for each record of a reader, in time order (H: the trace.dat's handle, NULL for recorded pages);
 * 0 to go on, -1 to stop. */
typedef int (*jl_record_fn)(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data);

/* Look up the events and fields of R->tep (set it first). */
void jl_decoder_setup(struct jl_decoder *r);
/* REC (of CPU) as an event, into EV (0). */
int jl_decoder_convert(struct jl_decoder *r, struct tep_record *rec, int cpu, struct jl_event *ev);
/* REC as the events it stands for, into EV (room for 2): a gap of lost events first when REC is the first
 * record after one, then REC itself. Counts it in R->info. The number of events. */
int jl_decoder_events(struct jl_decoder *r, struct tep_record *rec, int cpu, struct jl_event *ev);
/* A jl_record_fn feeding DATA's (a struct jl_decoder) analysis. */
int jl_decoder_feed(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data);

#endif
