/* main: dispatch `jitterlab COMMAND ...` through one table of commands. */
#include <signal.h>
#include <stdio.h>
#include <string.h>

#include "commands.h"

struct command {
	const char *name;
	int (*fn)(int argc, char **argv);
	const char *synopsis;
	const char *help;
};

static const struct command commands[] = {
	{ "run", cmd_run, "run SCENARIO [--duration D] [--warmup D] [--out DIR] [--no-trace] [--set S.K=V]... [--unsafe] [--quiet] [--json]",
	  "run a scenario once and explain its loops' jitter" },
	{ "sweep", cmd_sweep, "sweep SCENARIO [--runs N] [--out DIR] [--set S.K=V]... [--duration D] [--warmup D] [--no-trace] [--quiet] [--json]",
	  "repeat conditions round-robin and say which differences are real" },
	{ "cyclictest", cmd_cyclictest, "cyclictest SCENARIO [--runs N] [--out DIR] [--set S.K=V]... [--duration D] [--warmup D] [--no-trace] [--quiet] [--json]",
	  "run cyclictest in place of each measured thread, under the same load, side by side" },
	{ "analyze", cmd_analyze, "analyze RUN_DIR|TRACE.dat [--json] [--kernelshark]", "wakeup-latency analysis and worst-case attribution of a trace" },
	{ "report", cmd_report, "report [--no-plots] [--json] RUN_DIR...", "tables (and plots) for one run or several runs compared" },
	{ "doctor", cmd_doctor, "doctor [--json]", "real-time readiness of this machine" },
	{ "restore", cmd_restore, "restore [--dry-run] [--json]", "put back every knob a crashed run left changed" },
	{ "list", cmd_list, "list", "work kinds, policies, trace groups, metrics, cpu-list names, with one line each" },
};

static void usage(FILE *out)
{
	fprintf(out, "usage: jitterlab COMMAND [ARGS]\n\ncommands:\n");
	for (size_t i = 0; i < sizeof(commands) / sizeof(commands[0]); i++)
		fprintf(out, "  %-11s %s\n", commands[i].name, commands[i].help);
	fprintf(out, "\n  jitterlab COMMAND --help   for a command's options\n"
		     "exit status: 0 ok, 1 runtime failure, 2 usage or scenario error, 3 an [expect] failed, 130 interrupted\n");
}

int main(int argc, char **argv)
{
	/* a closed pipe (`| head`, a dead `tee`) must give EPIPE, never kill a run before it restores */
	signal(SIGPIPE, SIG_IGN);
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
			if (argc > 2 && (!strcmp(argv[2], "--help") || !strcmp(argv[2], "-h"))) {
				printf("usage: jitterlab %s\n  %s\n", commands[i].synopsis, commands[i].help);
				return 0;
			}
			return commands[i].fn(argc - 1, argv + 1);
		}
	}
	fprintf(stderr, "jitterlab: unknown command '%s'\n\n", argv[1]);
	usage(stderr);
	return JL_EXIT_USAGE;
}
