/* test_cli: affinity/cli.c and every command's option table (rt/cmd/commands.h jl_cli_all): each command's
 * --help names every option its parser accepts, the parser accepts each of them in every form (--name
 * VALUE, --name=VALUE, -x VALUE) and returns its id, and refuses what the table does not name. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/cmd/commands.h"

/* The help of C as one string (malloc'd). */
static char *help_of(const struct jl_cli *c)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	jl_cli_help(f, c);
	fclose(f);
	return buf;
}

static int parse_one(const struct jl_cli *c, char **argv, int argc, const char **value)
{
	struct jl_cli_walk w = JL_CLI_START;

	return jl_cli_next(c, argc, argv, &w, value);
}

static void test_help_names_every_option(void **state)
{
	(void)state;
	assert_true(jl_cli_nall >= 7);
	for (int k = 0; k < jl_cli_nall; k++) {
		const struct jl_cli *c = jl_cli_all[k];
		char *help = help_of(c);

		assert_non_null(strstr(help, c->command));
		assert_non_null(strstr(help, "--help"));
		for (const struct jl_cli_opt *o = c->opts; o->name; o++) {
			char want[80];

			snprintf(want, sizeof(want), "--%s%s%s", o->name, o->value ? " " : "", o->value ? o->value : "");
			if (!strstr(help, want)) {
				print_error("jitterlab %s --help does not name %s\n%s", c->command, want, help);
				fail();
			}
			assert_true(o->help && o->help[0]);
			assert_true(o->id > 0);
		}
		free(help);
	}
}

static void test_parser_accepts_every_option(void **state)
{
	(void)state;
	for (int k = 0; k < jl_cli_nall; k++) {
		const struct jl_cli *c = jl_cli_all[k];

		for (const struct jl_cli_opt *o = c->opts; o->name; o++) {
			char lng[80], eq[96], shrt[4];
			const char *v;

			snprintf(lng, sizeof(lng), "--%s", o->name);
			snprintf(eq, sizeof(eq), "--%s=7", o->name);
			if (o->value) {
				char *a[] = { "x", lng, "7" };
				char *b[] = { "x", eq };

				assert_int_equal(parse_one(c, a, 3, &v), o->id);
				assert_string_equal(v, "7");
				assert_int_equal(parse_one(c, b, 2, &v), o->id);
				assert_string_equal(v, "7");
				{
					char *m[] = { "x", lng }; /* no value: an error, unless it may be left out ("[NUM]") */

					assert_int_equal(parse_one(c, m, 2, &v), o->value[0] == '[' ? o->id : JL_CLI_ERROR);
				}
			} else {
				char *a[] = { "x", lng, "next" };
				struct jl_cli_walk w = JL_CLI_START;

				assert_int_equal(jl_cli_next(c, 3, a, &w, &v), o->id);
				/* a flag never takes the next argument: it is an operand */
				assert_int_equal(jl_cli_next(c, 3, a, &w, &v), JL_CLI_OPERAND);
				assert_string_equal(v, "next");
				{
					char *b[] = { "x", eq };

					assert_int_equal(parse_one(c, b, 2, &v), JL_CLI_ERROR);
				}
			}
			if (o->shrt) {
				char attached[8];

				snprintf(shrt, sizeof(shrt), "-%c", o->shrt);
				char *s[] = { "x", shrt, "7" };

				assert_int_equal(parse_one(c, s, 3, &v), o->id);
				if (o->value) { /* cyclictest's -p80: the value attached */
					snprintf(attached, sizeof(attached), "-%c80", o->shrt);
					char *t[] = { "x", attached };

					assert_int_equal(parse_one(c, t, 2, &v), o->id);
					assert_string_equal(v, "80");
				}
			}
		}
	}
}

static void test_parser_refuses_and_separates(void **state)
{
	const struct jl_cli *c = &jl_cli_run;
	char *bogus[] = { "run", "--bogus" }, *help[] = { "run", "-h" }, *dash[] = { "run", "--", "--json" };
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;

	(void)state;
	assert_int_equal(parse_one(c, bogus, 2, &v), JL_CLI_ERROR);
	assert_int_equal(parse_one(c, help, 2, &v), JL_CLI_HELP);
	assert_int_equal(jl_cli_next(c, 3, dash, &w, &v), JL_CLI_OPERAND); /* after --, an operand */
	assert_string_equal(v, "--json");
	assert_int_equal(jl_cli_next(c, 3, dash, &w, &v), JL_CLI_END);
}

/* run's cyclictest options: a value that may be left out (-t [NUM], -a [CPUSET]) is the next argument only
 * when that starts with a digit; -h US is the histogram, -h alone the help; a flag never takes letters after
 * it as its value (-mq is not -m). */
static void test_optional_values(void **state)
{
	const struct jl_cli *c = &jl_cli_run;
	char *t_alone[] = { "run", "-t", "-a" }, *t_num[] = { "run", "-t", "4" }, *t_att[] = { "run", "-t4" };
	char *h_num[] = { "run", "-h", "100" }, *h_alone[] = { "run", "-h", "--json" }, *cluster[] = { "run", "-mq" };
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;
	int id_t, id_a, id_h;

	(void)state;
	id_t = jl_cli_next(c, 3, t_alone, &w, &v);
	assert_true(id_t > 0);
	assert_null(v);
	id_a = jl_cli_next(c, 3, t_alone, &w, &v); /* -a is the next option, not -t's value */
	assert_true(id_a > 0 && id_a != id_t);
	assert_null(v);
	assert_int_equal(parse_one(c, t_num, 3, &v), id_t);
	assert_string_equal(v, "4");
	assert_int_equal(parse_one(c, t_att, 2, &v), id_t);
	assert_string_equal(v, "4");
	id_h = parse_one(c, h_num, 3, &v);
	assert_true(id_h > 0);
	assert_string_equal(v, "100");
	assert_int_equal(parse_one(c, h_alone, 3, &v), JL_CLI_HELP);
	assert_int_equal(parse_one(c, cluster, 2, &v), JL_CLI_ERROR);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_help_names_every_option),
		cmocka_unit_test(test_parser_accepts_every_option),
		cmocka_unit_test(test_parser_refuses_and_separates),
		cmocka_unit_test(test_optional_values),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
