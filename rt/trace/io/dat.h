/* dat: write a trace-cmd v6 file, events as the top buffer (dat.c). */
#ifndef JL_TRACE_DAT_H
#define JL_TRACE_DAT_H

#include <stddef.h>
#include <stdint.h>

struct jl_tracedat_src {
	int ncpus;
	int page_size;
	const int *cpu_fd;           /* raw pages of each CPU, from offset 0 */
	const uint64_t *cpu_bytes;
	unsigned groups;             /* systems whose formats are stored (JL_TRACE_* bits) */
	const char *clock;           /* trace_clock text, the current one in brackets */
	const char *extra_cmdlines;  /* "pid comm\n" lines that override saved_cmdlines (may be NULL) */
	const char *kallsyms;        /* "addr t name\n" lines for the kallsyms section (may be NULL) */
};
int jl_tracedat_write(const char *path, const struct jl_tracedat_src *src, char *err, size_t errlen);

#endif
