/* stale_runs: what dead jitterlab runs left on this machine: stale journals (knobs still changed,
 * children maybe still running), `jitterlab-*` tracing instances and cpusets whose run is gone.
 * Scanning touches nothing; cleaning is what `jitterlab restore` does. Runs that are still alive
 * (pid AND start time match, or a live jitterlab process for instances) are never touched. */
#ifndef JL_STALE_RUNS_H
#define JL_STALE_RUNS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>

#include "journal.h"

#define JL_LEFTOVER_MAX 64

struct jl_stale_runs {
	int njournals;                 /* stale journals with something to undo, or empty ones, newest first */
	struct jl_journal_info *journals;  /* malloc'ed: jl_stale_runs_free */
	int nlive;                     /* journals of runs still running (not leftovers) */
	pid_t *live;
	int ninstances;
	char instances[JL_LEFTOVER_MAX][256];  /* instance names */
	char tracing_dir[256];         /* "" when tracefs is not mounted */
	int ncpusets;
	char cpusets[JL_LEFTOVER_MAX][600];    /* directories */
	char cpuset_root[256];
};

/* Could PID still own an instance or cpuset: any live process with that pid (a run may be named "exe"
 * when started through /proc/self/exe); a reused pid only delays a cleanup. */
bool jl_stale_pid_alive(pid_t pid);

/* Scan STATE_DIR (NULL = jl_journal_default_dir()), the mounted tracefs and the v1 cpuset root.
 * 0, or -1 with errno when the journal directory cannot be read. */
int jl_stale_runs_scan(struct jl_stale_runs *lo, const char *state_dir);

/* Free what a scan allocated (LO itself is the caller's). */
void jl_stale_runs_free(struct jl_stale_runs *lo);

/* Anything to restore? Stale journals with entries, instances and cpusets count; STRICT also counts
 * empty journals (a killed run that had changed nothing: only the file is left). */
bool jl_stale_runs_any(const struct jl_stale_runs *lo, bool strict);

/* Undo every stale journal (newest first), destroy stale instances, remove stale cpusets. Prints one line per action
 * to OUT (may be NULL); NOTES (a json array, or NULL) receives what the kernel has not put back yet
 * (jl_journal_replay). Returns how many could not be cleaned (0 = all clean). */
int jl_stale_runs_clean(struct jl_stale_runs *lo, FILE *out, json_object *notes);

/* {"journals":[{"path","pid","entries"}], "instances":[...], "cpusets":[...], "live_runs":[pids]} */
json_object *jl_stale_runs_to_json(const struct jl_stale_runs *lo);

#endif
