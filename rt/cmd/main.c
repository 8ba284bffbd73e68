/* main: dispatch `jitterlab COMMAND ...` through one table of commands. */
#include <gsl/gsl_errno.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const struct jl_cli *cli;   /* its options and one line of help */
};

static const struct command commands[] = {
	{ "run", cmd_run, &jl_cli_run },
	{ "watch", cmd_watch, &jl_cli_watch },
	{ "sweep", cmd_sweep, &jl_cli_sweep },
	{ "cyclictest", cmd_cyclictest, &jl_cli_cyclictest },
	{ "analyze", cmd_analyze, &jl_cli_analyze },
	{ "report", cmd_report, &jl_cli_report },
	{ "doctor", cmd_doctor, &jl_cli_doctor },
	{ "restore", cmd_restore, &jl_cli_restore },
	{ "list", cmd_list, &jl_cli_list },
	{ "baseline", cmd_baseline, &jl_cli_baseline },
	{ "compare", cmd_compare, &jl_cli_compare },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: jitterlab COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].cli->about);
	fprintf(out, "\n  jitterlab COMMAND --help   for a command's options\n\nexit status:\n");
	for (int i = 0; i < jl_exit_nstatuses; i++)
		fprintf(out, "  %-4d %s\n", jl_exit_statuses[i].code, jl_exit_statuses[i].text);
}

int main(int argc, char **argv)
{
	/* a closed pipe (`| head`, a dead `tee`) must give EPIPE, never kill a run before it restores */
	signal(SIGPIPE, SIG_IGN);
	/* a statistic of odd input is an error to report (NaN out), never an abort() inside GSL */
	gsl_set_error_handler_off();
	if (argc < 2) {
		usage(stderr);
		return JL_EXIT_USAGE;
	}
	if (!strcmp(argv[1], "--help") || !strcmp(argv[1], "-h") || !strcmp(argv[1], "help")) {
		usage(stdout);
		return 0;
	}
	if (!strcmp(argv[1], "--version") || !strcmp(argv[1], "-V")) {
		printf("jitterlab %s\n", JL_VERSION);
		return 0;
	}
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++) {
		if (!strcmp(argv[1], commands[i].name)) {
			return commands[i].fn(argc - 1, argv + 1); /* each command prints its own --help */
		}
	}
	fprintf(stderr, "jitterlab: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return JL_EXIT_USAGE;
}
