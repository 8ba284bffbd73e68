/* cli: the one command-line option parser and help printer of every jitterlab command. A command is a
 * table of options (long name, short letter, its value's name, what it means, its default or range);
 * the parser walks argv with it (options and operands in any order, `--name VALUE`, `--name=VALUE`,
 * `-x VALUE`, `-xVALUE` as cyclictest's -p80, `--` ends options) and the help is printed from the same
 * table, so the two cannot drift. -h is --help, unless the command gives -h a meaning of its own (run:
 * cyclictest's histogram); then -h without a value is still the help.
 * It lives in the lowest layer because every command (rt/ and affinity/) parses with it. */
#ifndef JL_CLI_H
#define JL_CLI_H

#include <stdbool.h>
#include <stdio.h>

struct jl_cli_opt {
	const char *name;      /* long name without "--" */
	char shrt;             /* short letter, 0 = none */
	const char *value;     /* the value's name ("D", "DIR"), NULL for a flag; in brackets ("[NUM]") when it may
				* be left out (cyclictest's -t [NUM], -a [CPUSET]): then given attached (-t4,
				* --threads=4) or as the next argument when that starts with a digit */
	const char *help;      /* what it means, with its default or range */
	int id;                /* returned for it (> 0) */
};

struct jl_cli {
	const char *command;   /* "run" */
	const char *operands;  /* "SCENARIO", "RUN_DIR...", "" */
	const char *about;     /* one line */
	const struct jl_cli_opt *opts; /* ends with { NULL } */
};

enum { JL_CLI_END = 0, JL_CLI_OPERAND = -1, JL_CLI_ERROR = -2, JL_CLI_HELP = -3 };

/* Where a walk over argv is: start with JL_CLI_START. */
struct jl_cli_walk {
	int i;
	bool ended;            /* past "--": everything is an operand */
};
#define JL_CLI_START { .i = 1, .ended = false }

/* The next item of ARGV: an option's id (its value in *VALUE), JL_CLI_OPERAND (in *VALUE), JL_CLI_HELP
 * (--help, -h), JL_CLI_END, or JL_CLI_ERROR after printing what is wrong (an unknown option, a missing
 * value) to stderr. */
int jl_cli_next(const struct jl_cli *c, int argc, char **argv, struct jl_cli_walk *w, const char **value);

/* The usage line and every option with what it means. */
void jl_cli_help(FILE *out, const struct jl_cli *c);
/* The same as a roff subsection of jitterlab(8): the command line, what it does, every option. */
void jl_cli_man(FILE *out, const struct jl_cli *c);

/* TEXT as roff input text, safe whatever it holds: '\' written as \e, '-' as \- (so that options
 * render as ASCII hyphens), and every line that would start with '.' or '\'' (a request) prefixed with
 * \&. FONT: NULL, or "B"/"I" to set it in bold/italic. Every text a man page generator emits goes
 * through here. */
void jl_roff_text(FILE *out, const char *text, const char *font);

#endif
