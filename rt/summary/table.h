/* table: the human summary of a run — the terminal table and report.md — rendered from the
 * summary.json document (so `jitterlab report` can print the same table from a run directory), and
 * the --json form of a command's table: the document itself, printed as JSON. */
#ifndef JL_TABLE_H
#define JL_TABLE_H

#include <json-c/json.h>
#include <stdio.h>

enum jl_table_style { JL_TABLE_TEXT, JL_TABLE_MARKDOWN };

/* Loops (measured series) as columns with one metric per row, then neighbours; then, where the summary
 * has them, one table per executor (callbacks per pool thread), the subscribers' messages (one column
 * each), the syncs and one block per chain end; then [expect] and [budget]. */
void jl_table_print(FILE *out, json_object *summary, enum jl_table_style style);

/* `--json`: DOC (the document a table is rendered from) as pretty JSON, one document, then a newline. */
void jl_json_print(FILE *out, json_object *doc);

#endif
