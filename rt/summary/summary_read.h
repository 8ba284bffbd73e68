/* summary_read: the one reader of a run's summary.json for the commands that read runs (report, analyze,
 * compare, baseline, sweep's children). A summary is a file users keep, copy and sometimes edit: before any
 * reader indexes it, the containers the readers walk and the scalars they compute with are checked to be of
 * their type, so that a hand-edited file gets a sentence naming the key and what was expected, never an
 * assertion deep in json-c. A key that is absent is not checked (older runs lack newer keys); null is a
 * figure's "none", never a container's. */
#ifndef JL_SUMMARY_READ_H
#define JL_SUMMARY_READ_H

#include <json-c/json.h>
#include <stddef.h>

/* RUN_DIR/summary.json, parsed and its shape checked: the document (the caller's), or NULL with ERR naming the
 * file and, where the shape is wrong, the key ("summary.json: threads: expected an array, found an object"). */
json_object *jl_summary_read(const char *run_dir, char *err, size_t errlen);
/* SUM's shape only (PATH names it in ERR): 0, or -1 with ERR. */
int jl_summary_check_shape(json_object *sum, const char *path, char *err, size_t errlen);

#endif
