/* cmdline: the kernel command line (/proc/cmdline), one reader for every module that asks what the machine
 * was booted with (boot isolation, the preempt mode, lockdown, RT group scheduling). The parser is pure and
 * follows the kernel's own rules (lib/cmdline.c next_arg): words split on spaces, double quotes group a
 * value with spaces, everything after a lone "--" belongs to init, not the kernel, and '-' and '_' in a
 * parameter's name are the same. The last occurrence of a parameter wins. */
#ifndef JL_CMDLINE_H
#define JL_CMDLINE_H

#include <stdbool.h>
#include <stddef.h>

/* Read /proc/cmdline into BUF (newline stripped). 0, or -1 with errno (BUF = ""). */
int jl_cmdline_read(char *buf, size_t len);

/* Is parameter KEY (e.g. "isolcpus") on the kernel's part of CMDLINE? Its value (quotes removed; "" for a
 * bare "KEY" or "KEY=") goes to VAL (may be NULL) when found. */
bool jl_cmdline_arg(const char *cmdline, const char *key, char *val, size_t len);

#endif
