/* fuzz_scenario: libFuzzer target for the scenario parser (rt/scenario/scenario.c and the value parsers under it).
 * Input: scenario text, optionally followed by a line "%%" and one --set assignment per line.
 * Checks: no crash/leak/hang (the sanitizers and libFuzzer), an error message that starts with the
 * file name, and for every scenario that parses: jl_scenario_write's output parses again to the same
 * model, and writing that again gives the same text (the writer is a fixed point).
 * Build and run with `make fuzz` (FUZZ_SECONDS=300). Never touches the machine. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "rt/scenario/scenario.h"
#include "tests/fuzz/scenario_same.h"

static struct jl_scenario first, second;

static char *write_text(const struct jl_scenario *sc, size_t *len)
{
	char *buf = NULL;
	FILE *f = open_memstream(&buf, len);

	if (!f)
		abort();
	if (jl_scenario_write(sc, f))
		abort();
	fclose(f);
	return buf;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[JL_ERR_MAX], why[256];
	char *text, *sets, *text1, *text2;
	size_t len1, len2;

	if (size > 64 * 1024)
		return 0;
	text = malloc(size + 1);
	if (!text)
		return 0;
	memcpy(text, data, size);
	text[size] = '\0';
	sets = strstr(text, "\n%%\n");
	if (sets) {
		*sets = '\0';
		sets += 4;
	}

	err[0] = '\0';
	if (jl_scenario_parse_string("fuzz.ini", text, &first, err, sizeof(err))) {
		if (strncmp(err, "fuzz.ini", 8)) { /* every error names the file */
			fprintf(stderr, "error without the file name: %s\n", err);
			abort();
		}
		free(text);
		return 0;
	}
	/* --set overrides, as `jitterlab run --set` applies them */
	for (char *line = sets, *next; line && *line; line = next) {
		next = strchr(line, '\n');
		if (next)
			*next++ = '\0';
		if (jl_scenario_set(&first, line, err, sizeof(err)) || jl_scenario_validate(&first, err, sizeof(err))) {
			free(text);
			return 0;
		}
	}

	text1 = write_text(&first, &len1);
	if (jl_scenario_parse_string("fuzz.ini", text1, &second, err, sizeof(err))) {
		fprintf(stderr, "the written scenario does not parse back: %s\n--- written:\n%s\n", err, text1);
		abort();
	}
	if (!jl_test_scenario_same(&first, &second, why, sizeof(why))) {
		fprintf(stderr, "round trip changed the scenario: %s\n--- written:\n%s\n", why, text1);
		abort();
	}
	text2 = write_text(&second, &len2);
	if (len1 != len2 || memcmp(text1, text2, len1)) {
		fprintf(stderr, "writing is not a fixed point:\n--- first:\n%s\n--- second:\n%s\n", text1, text2);
		abort();
	}
	free(text1);
	free(text2);
	free(text);
	return 0;
}
