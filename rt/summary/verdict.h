/* verdict: how a run's terminal output ends, made from summary.json alone (so `report` could print the
 * same): the worst cycles grouped per loop, real-time loops first, a few each (report.md keeps them all), a
 * cycle explained both as a wakeup and as a missed deadline shown once (over its response window), each
 * advice once with the cycles it covers; then where the files are; then one verdict line: the exit
 * status and what decided it, and per measured loop its p99, max and misses. */
#ifndef JL_VERDICT_H
#define JL_VERDICT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

/* Cycles shown per loop on the terminal. */
#define JL_VERDICT_CYCLES 3

/* The worst cycles of SUMMARY's trace block, grouped (nothing when it has none). */
void jl_verdict_cycles(FILE *out, json_object *summary);

/* The trace.worst[] entry of SUMMARY whose KernelShark session the run puts in kernelshark.json: the largest
 * explained cycle of the first loop whose [expect] failed, or else of the highest-priority loop (as the
 * worst cycles are listed); NULL when none is explained. */
json_object *jl_verdict_session(json_object *summary);

/* "open LOOP cycle N in KernelShark: kernelshark -s ABS" for SUMMARY's trace.kernelshark(_cycle) in DIR
 * (nothing when it has none), and how to install it when not INSTALLED. */
void jl_verdict_kshark(FILE *out, json_object *summary, const char *dir, bool installed);

/* The largest causes of a tail table (summary.json trace.tail.X.excess or .response, or a sweep's pooled
 * one), at most MAX, each " NAME NN%" after a comma, those under 0.5% left out; the count printed. */
int jl_verdict_tail_causes(FILE *out, json_object *table, int max);

/* "verdict: ..." for SUMMARY, one line. */
void jl_verdict_line(FILE *out, json_object *summary);

/* Where a run's files are: report.md and the plots found in DIR (one line; nothing when DIR has neither). */
void jl_verdict_files(FILE *out, const char *dir);

#endif
