/* summary_read: the one reader of the documents jitterlab's directories hold (rt/base/documents.h): a run's
 * summary.json for every command that reads runs (report and its plots, analyze, compare, baseline, sweep's
 * children), and sweep.json and compare.json for report. These are files users keep, copy and sometimes edit:
 * before any reader indexes one, the containers the readers walk and the scalars they compute with are
 * checked to be of their type, so that a hand-edited file gets a sentence naming the key and what was
 * expected, never an assertion deep in json-c. A key that is absent is not checked (older runs lack newer keys); null is a
 * figure's "none", never a container's. */
#ifndef JL_SUMMARY_READ_H
#define JL_SUMMARY_READ_H

#include <json-c/json.h>
#include <stddef.h>

#include "../base/documents.h"

/* RUN_DIR/summary.json, parsed and its shape checked: the document (the caller's), or NULL with ERR naming the
 * file and, where the shape is wrong, the key ("summary.json: threads: expected an array, found an object"). */
json_object *jl_summary_read(const char *run_dir, char *err, size_t errlen);
/* DIR's document of KIND, parsed and its shape checked: as jl_summary_read. */
json_object *jl_document_read(enum jl_document_kind kind, const char *dir, char *err, size_t errlen);
/* DOC's shape as a document of KIND (PATH names it in ERR): 0, or -1 with ERR. A kind without a table of its
 * own is checked to be an object. */
int jl_document_check_shape(enum jl_document_kind kind, json_object *doc, const char *path, char *err, size_t errlen);

#endif
