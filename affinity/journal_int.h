/* journal_int: what journal.c and journal_replay.c share (not for other modules). */
#ifndef JL_JOURNAL_INT_H
#define JL_JOURNAL_INT_H

#include <stdbool.h>

/* An open journal: written by journal.c, replayed and freed by jl_journal_finish (journal_replay.c). */
struct jl_journal {
	int fd;
	char dir[256];
	char path[512];
	bool irq_threads; /* an "irqthreads" entry is in it (jl_journal_record_irq_threads records one) */
};

#endif
