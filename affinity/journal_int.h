/* journal_int: what journal.c and journal_replay.c share (not for other modules). */
#ifndef JL_JOURNAL_INT_H
#define JL_JOURNAL_INT_H

/* An open journal: written by journal.c, replayed and freed by jl_journal_finish (journal_replay.c). */
struct jl_journal {
	int fd;
	char dir[256];
	char path[512];
};

#endif
