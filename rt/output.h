/* output: the run directory (<out>/<name>/<YYYYmmdd-HHMMSS>/ + a `latest` link), files written to a
 * temporary name and renamed (a crash never leaves a half file under its real name), chowned to the
 * sudo user. Never called from a measured thread. */
#ifndef JL_OUTPUT_H
#define JL_OUTPUT_H

#include <json-c/json.h>
#include <stdio.h>

#include "results.h"
#include "scenario.h"

struct jl_outfile {
	FILE *fp;
	char tmp[4096];
	char path[4096];
};

/* Create OUT_ROOT/NAME/STAMP (STAMP from the local time; "-2", "-3"... when taken) into DIR. */
int jl_output_make_run_dir(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* Point OUT_ROOT/NAME/latest at DIR (atomically). */
int jl_output_link_latest(const char *dir);
/* Both: a directory that is `latest` from the start (sweeps, comparisons). */
int jl_output_make_dir_latest(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* Open DIR/FILE for writing under a temporary name. */
int jl_output_open(struct jl_outfile *of, const char *dir, const char *file);
/* Flush, fsync, close and rename to the real name; chown to the sudo user. 0 or -1 with errno. */
int jl_output_commit(struct jl_outfile *of);
/* Close and remove the temporary file. */
void jl_output_abort(struct jl_outfile *of);
/* Write a JSON document (json-c, pretty) atomically. */
int jl_output_write_json(const char *dir, const char *file, json_object *obj);
/* The same at a full PATH. */
int jl_output_write_json_path(const char *path, json_object *obj);
/* Write the effective scenario (jl_scenario_write) atomically to PATH. */
int jl_output_write_scenario(const char *path, const struct jl_scenario *sc);
/* Write samples.csv (contract columns) for the measured threads. */
int jl_output_write_samples(const char *dir, const struct jl_thread_result *res, int n);
/* chown PATH to SUDO_UID/SUDO_GID when set (no-op otherwise). */
void jl_output_chown(const char *path);

#endif
