/* sweep_child: run one `jitterlab run` as a fresh child process of this same binary (/proc/self/exe),
 * for sweeps and the cyclictest comparison: every run sets up and tears down everything itself, and a
 * crash in one run cannot take the sweep with it. SIGINT/SIGTERM sent to the parent are forwarded to the
 * child (which then restores the machine and exits 130) and raise the stop flag.
 * Never runs a child through a shell; never leaves a child behind (timeout: SIGINT, then SIGKILL). */
#ifndef JL_SWEEP_CHILD_H
#define JL_SWEEP_CHILD_H

#include "../../affinity/cli.h"

#include <json-c/json.h>
#include <signal.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#define JL_CHILD_MAX_SETS 128

struct jl_child_run {
	const char *scenario;       /* scenario file given to `run` */
	const char *out_dir;        /* --out */
	const char *name;           /* --set run.name=NAME (the run directory is OUT/NAME/<stamp>) */
	const char *sets[JL_CHILD_MAX_SETS]; /* --set values, in order */
	int nsets;
	const char *log_path;       /* child's stdout and stderr go here (NULL: inherited) */
	int64_t timeout_ns;         /* SIGINT after this long, SIGKILL 10 s later */
};

/* Block SIGINT, SIGTERM and SIGCHLD in the calling process (saving the old mask in OLD) so that
 * jl_child_run_exec() can forward them. Call once before the first run; restore with sigprocmask. */
int jl_child_signals_block(sigset_t *old);

/* Consume pending SIGINT/SIGTERM/SIGCHLD before the mask is restored (a pending SIGINT would otherwise
 * kill the process before it writes its results). Returns true when SIGINT or SIGTERM was pending (the
 * stop flag is then raised). */
bool jl_child_signals_drain(void);

/* Run the child and wait. Returns its exit status (0-255; 128+N if it died of signal N), or -1 with ERR
 * when it could not be started. *INTERRUPTED is set when SIGINT/SIGTERM arrived meanwhile (the stop
 * flag is raised too). RUN_DIR receives the resolved OUT/NAME/latest (empty when missing). */
int jl_child_run_exec(const struct jl_child_run *cr, const sigset_t *child_mask, bool *interrupted,
		      char *run_dir, size_t dirlen, char *err, size_t errlen);

/* Read RUN_DIR/summary.json (json-c). NULL with ERR when missing or not JSON. */
json_object *jl_child_read_summary(const char *run_dir, char *err, size_t errlen);

/* The options of the commands that repeat runs of a scenario (sweep, cyclictest), parsed once. */
#define JL_REPEAT_MAX_SETS 64

struct jl_repeat_opts {
	const char *scenario, *out;
	int runs;                     /* 0 = the command's default */
	const char *sets[JL_REPEAT_MAX_SETS];
	int nsets;
	bool quiet, json;
	const char *baseline;         /* sweep --baseline */
	char setbuf[3][160];          /* --duration, --warmup as run.duration=..., run.warmup=... */
};

extern const struct jl_cli_opt jl_repeat_cli_opts[], jl_sweep_cli_opts[];

/* Parse ARGV with CLI (whose opts are jl_repeat_cli_opts) into O; --runs in 1..MAX_RUNS. 0, 1 when --help
 * was printed, or -1 after saying what is wrong (exit 2). */
int jl_repeat_opts_parse(const struct jl_cli *cli, int argc, char **argv, int max_runs, struct jl_repeat_opts *o);

#endif
