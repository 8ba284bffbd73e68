/* cli: the one option parser (see cli.h). Must never: accept an option the table does not name, or take
 * the next argument as a flag's value. */
#include "cli.h"

#include <stdbool.h>
#include <string.h>

static const struct jl_cli_opt *find_long(const struct jl_cli *c, const char *name, size_t len)
{
	for (const struct jl_cli_opt *o = c->opts; o->name; o++)
		if (strlen(o->name) == len && !strncmp(o->name, name, len))
			return o;
	return NULL;
}

static const struct jl_cli_opt *find_short(const struct jl_cli *c, char ch)
{
	for (const struct jl_cli_opt *o = c->opts; o->name; o++)
		if (o->shrt && o->shrt == ch)
			return o;
	return NULL;
}

/* May O's value be left out ("[NUM]")? */
static bool optional(const struct jl_cli_opt *o)
{
	return o->value && o->value[0] == '[';
}

/* An optional value given as the next argument: one that starts with a digit (cyclictest's rule). */
static bool next_is_value(int argc, char **argv, const struct jl_cli_walk *w)
{
	return w->i < argc && argv[w->i][0] >= '0' && argv[w->i][0] <= '9';
}

int jl_cli_next(const struct jl_cli *c, int argc, char **argv, struct jl_cli_walk *w, const char **value)
{
	const struct jl_cli_opt *o = NULL;
	const char *a, *eq = NULL, *attached = NULL;

	*value = NULL;
	if (w->i >= argc)
		return JL_CLI_END;
	a = argv[w->i++];
	if (w->ended || a[0] != '-' || !a[1]) {
		*value = a;
		return JL_CLI_OPERAND;
	}
	if (!strcmp(a, "--")) {
		w->ended = true;
		return jl_cli_next(c, argc, argv, w, value);
	}
	if (!strcmp(a, "--help") || (!strcmp(a, "-h") && !find_short(c, 'h')))
		return JL_CLI_HELP;
	if (a[1] == '-') {
		eq = strchr(a + 2, '=');
		o = find_long(c, a + 2, eq ? (size_t)(eq - a - 2) : strlen(a + 2));
	} else {
		o = find_short(c, a[1]);
		if (o && a[2] && o->value)
			attached = a + 2; /* -p80 */
		else if (a[2])
			o = NULL;
	}
	if (!o) {
		fprintf(stderr, "jitterlab %s: unknown option '%s' (jitterlab %s --help lists them)\n", c->command, a,
			c->command);
		return JL_CLI_ERROR;
	}
	if (!o->value) {
		if (eq) {
			fprintf(stderr, "jitterlab %s: --%s takes no value\n", c->command, o->name);
			return JL_CLI_ERROR;
		}
		return o->id;
	}
	if (eq) {
		*value = eq + 1;
	} else if (attached) {
		*value = attached;
	} else if (optional(o)) {
		if (next_is_value(argc, argv, w))
			*value = argv[w->i++];
		else if (o->shrt == 'h' && a[1] != '-')
			return JL_CLI_HELP; /* -h alone: the help, as everywhere */
	} else if (w->i < argc) {
		*value = argv[w->i++];
	} else {
		fprintf(stderr, "jitterlab %s: --%s needs a value (%s)\n", c->command, o->name, o->value);
		return JL_CLI_ERROR;
	}
	return o->id;
}

/* "-x, --name VALUE", "-x, --name [VALUE]" or "    --name VALUE" */
static void left_column(const struct jl_cli_opt *o, char *buf, size_t len)
{
	char shrt[8] = "    ";

	if (o->shrt)
		snprintf(shrt, sizeof(shrt), "-%c, ", o->shrt);
	snprintf(buf, len, "%s--%s%s%s", shrt, o->name, o->value ? " " : "", o->value ? o->value : "");
}

void jl_cli_help(FILE *out, const struct jl_cli *c)
{
	fprintf(out, "usage: jitterlab %s%s%s [OPTIONS]\n  %s\n\noptions:\n", c->command, c->operands[0] ? " " : "",
		c->operands, c->about);
	for (const struct jl_cli_opt *o = c->opts; o->name; o++) {
		char left[64];

		left_column(o, left, sizeof(left));
		fprintf(out, "  %-24s %s\n", left, o->help);
	}
	if (find_short(c, 'h'))
		fprintf(out, "  %-24s %s\n", "    --help", "this help (and -h without a value)");
	else
		fprintf(out, "  %-24s %s\n", "-h, --help", "this help");
}

void jl_roff_text(FILE *out, const char *text, const char *font)
{
	/* the caller may be at the start of a line: \& before a '.' or '\'' there is harmless elsewhere */
	bool bol = !font;

	if (font)
		fprintf(out, "\\f%s", font);
	for (const char *p = text; *p; p++) {
		if (bol && (*p == '.' || *p == '\''))
			fputs("\\&", out);
		bol = *p == '\n';
		if (*p == '\\')
			fputs("\\e", out);
		else if (*p == '-')
			fputs("\\-", out);
		else
			fputc(*p, out);
	}
	if (font)
		fputs("\\fR", out);
}

void jl_cli_man(FILE *out, const struct jl_cli *c)
{
	fputs(".SS\n", out);
	jl_roff_text(out, "jitterlab ", "B");
	jl_roff_text(out, c->command, "B");
	if (c->operands[0]) {
		fputc(' ', out);
		jl_roff_text(out, c->operands, "I");
	}
	fputs(" [\\fIOPTIONS\\fR]\n", out);
	jl_roff_text(out, c->about, NULL);
	fputs(".\n", out);
	for (const struct jl_cli_opt *o = c->opts; o->name; o++) {
		char lng[64];

		fputs(".TP\n", out);
		if (o->shrt) {
			char s[3] = { '-', o->shrt, '\0' };

			jl_roff_text(out, s, "B");
			fputs(", ", out);
		}
		snprintf(lng, sizeof(lng), "--%s", o->name);
		jl_roff_text(out, lng, "B");
		if (o->value) {
			fputc(' ', out);
			jl_roff_text(out, o->value, "I");
		}
		fputc('\n', out);
		jl_roff_text(out, o->help, NULL);
		fputc('\n', out);
	}
	fputs(".TP\n", out);
	if (!find_short(c, 'h')) {
		jl_roff_text(out, "-h", "B");
		fputs(", ", out);
	}
	jl_roff_text(out, "--help", "B");
	fputs(find_short(c, 'h') ? "\nthis help (and \\fB\\-h\\fR without a value)\n" : "\nthis help\n", out);
}
