/* commands: the jitterlab subcommands, one table in main.c. Each returns the process exit status
 * (jl_exit_statuses says what each means). */
#ifndef JL_COMMANDS_H
#define JL_COMMANDS_H

#include "../../affinity/cli.h"

enum jl_exit { JL_EXIT_OK = 0, JL_EXIT_RUNTIME = 1, JL_EXIT_USAGE = 2, JL_EXIT_EXPECT = 3, JL_EXIT_INTERRUPTED = 130 };

/* What each exit status means: the one table that `jitterlab --help`, jitterlab(8)'s EXIT STATUS and
 * `jitterlab list --exit-status` (README.md and docs/outputs.md, written by scripts/docs.sh) print. */
struct jl_exit_status {
	int code;
	const char *text;
};
extern const struct jl_exit_status jl_exit_statuses[];
extern const int jl_exit_nstatuses;

int cmd_run(int argc, char **argv);        /* rt/cmd/cmd_run.c */
int cmd_watch(int argc, char **argv);      /* rt/cmd/cmd_watch.c */
int cmd_sweep(int argc, char **argv);      /* rt/cmd/sweep.c */
int cmd_cyclictest(int argc, char **argv); /* rt/cmd/cyclictest.c */
int cmd_analyze(int argc, char **argv);    /* rt/cmd/analyze.c */
int cmd_report(int argc, char **argv);     /* rt/cmd/report.c */
int cmd_doctor(int argc, char **argv);     /* rt/cmd/doctor.c */
int cmd_restore(int argc, char **argv);    /* rt/cmd/restore.c */
int cmd_list(int argc, char **argv);       /* rt/cmd/cmd_list.c */
int cmd_baseline(int argc, char **argv);   /* rt/cmd/compare.c */
int cmd_compare(int argc, char **argv);    /* rt/cmd/compare.c */

/* Each command's options (affinity/cli.h), from which its parser, its --help and its part of
 * jitterlab(8) come; all of them, for the top-level help, the man page and the tests. */
extern const struct jl_cli jl_cli_run, jl_cli_watch, jl_cli_sweep, jl_cli_cyclictest, jl_cli_analyze, jl_cli_report, jl_cli_doctor,
	jl_cli_restore, jl_cli_list, jl_cli_baseline, jl_cli_compare;
extern const struct jl_cli *const jl_cli_all[];
extern const int jl_cli_nall;

#endif
