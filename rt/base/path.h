/* path: the one search of PATH for a program, as execvp(3) does it (the exec neighbours' check, gnuplot
 * for the plots, KernelShark for the line that opens a session). */
#ifndef JL_PATH_H
#define JL_PATH_H

#include <stdbool.h>
#include <stddef.h>

/* Whether PROG can be executed: a name with a '/' as it is, else the first executable PROG in a directory
 * of PATH (unset: the usual system directories; an empty entry or a relative one is skipped, so that a
 * root process never runs a program from the current directory). EXE (may be NULL) gets its path. */
bool jl_find_program(const char *prog, char *exe, size_t len);

#endif
