/* syms: the running kernel's text symbols (sorted), to name hrtimer callbacks of a live trace (syms.c). */
#ifndef JL_TRACE_SYMS_H
#define JL_TRACE_SYMS_H

#include <stddef.h>
#include <stdint.h>

struct jl_ksyms {
	void *syms;          /* sorted (address, name) pairs */
	size_t n;
	char *blob;          /* /proc/kallsyms as read; names point into it */
};
int jl_ksyms_load(struct jl_ksyms *k);
const char *jl_ksyms_find(const struct jl_ksyms *k, uint64_t addr);
/* The symbol ADDR lies in (the last at or below it; a call site inside a function), its address in *START. */
const char *jl_ksyms_find_near(const struct jl_ksyms *k, uint64_t addr, uint64_t *start);
void jl_ksyms_free(struct jl_ksyms *k);

#define JL_TRACE_MAX_USED_SYMS 256

#endif
