/* compare: `jitterlab baseline save` keeps a set of runs as a baseline (a directory to keep in git), and
 * `jitterlab compare BASELINE NEW` judges runs against it (baseline.h: Welch over runs, the rank test, the
 * gates of the scenario's [gate], the hosts' differences). `sweep --baseline` calls jl_compare_run after its
 * runs. Nothing here touches the machine: it reads run, sweep and baseline directories and writes only what
 * it is asked to (the baseline's directory, --out). */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <ini.h>

#include "commands.h"
#include "compare.h"
#include "report_html.h"
#include "lifecycle.h"
#include "../base/output.h"
#include "../base/documents.h"
#include "../summary/baseline.h"

enum { B_AS = 1, B_DIR, B_FORCE };

static const struct jl_cli_opt baseline_opts[] = {
	{ "as", 0, "NAME", "the baseline's name (letters, digits, '_', '-', '.'): it is written to DIR/NAME", B_AS },
	{ "dir", 0, "DIR", "where baselines are kept (default: baselines, in the current directory)", B_DIR },
	{ "force", 0, NULL, "replace a baseline of that name (default: refuse)", B_FORCE },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_baseline = { "baseline", "save RUN_OR_SWEEP_DIR... --as NAME",
					"keep runs as a baseline: per run each series' metrics, the conditions, the host's "
					"fingerprint and the scenario's text (baseline.json, scenario.ini, budget.md)",
					baseline_opts };

enum { C_JSON = 1, C_OUT, C_ALL, C_GATE };

static const struct jl_cli_opt compare_opts[] = {
	{ "out", 0, "DIR", "also write compare.json, compare.md and report.html (its page) into DIR (created)", C_OUT },
	{ "json", 0, NULL, "print compare.json on stdout instead of the table", C_JSON },
	{ "all", 0, NULL, "every metric in the table (default: the headline ones, the changed ones and the gated ones)", C_ALL },
	{ "gate", 0, "CHECK", "a gate in [gate]'s form (SERIES.METRIC <= baseline + 10%, SERIES.METRIC no worse), "
			      "added to NEW's scenario's; may be repeated", C_GATE },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_compare = { "compare", "BASELINE NEW",
				       "judge runs against a baseline (run, sweep or baseline directories): per metric the "
				       "change, its 95% CI and p by Welch over runs (at least 3 a side for a verdict), the "
				       "[gate]s (exit 3 when one fails), the hosts' differences",
				       compare_opts };

/* A baseline given by name: DIR/NAME under ./baselines when PATH is not a directory itself. */
static void resolve(const char *path, char *out, size_t len)
{
	struct stat st;

	if (!stat(path, &st) || strchr(path, '/'))
		snprintf(out, len, "%s", path);
	else
		snprintf(out, len, "baselines/%s", path);
}

static bool name_ok(const char *s)
{
	return *s && strlen(s) < 128 && !s[strspn(s, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_.-")] &&
	       strcmp(s, ".") && strcmp(s, "..");
}

/* The text of a file (the scenario as run), malloc'd; NULL with ERR. */
static char *read_text(const char *path, char *err, size_t errlen)
{
	FILE *f = fopen(path, "re");
	char *buf = NULL;
	size_t len = 0, cap = 0;

	if (!f) {
		snprintf(err, errlen, "%s: %s", path, strerror(errno));
		return NULL;
	}
	for (;;) {
		size_t n;

		if (len + 4096 + 1 > cap) {
			char *nb = realloc(buf, cap = cap * 2 + 4096 + 1);

			if (!nb) {
				free(buf), fclose(f);
				snprintf(err, errlen, "out of memory");
				return NULL;
			}
			buf = nb;
		}
		n = fread(buf + len, 1, cap - len - 1, f);
		len += n;
		if (n == 0)
			break;
	}
	buf[len] = '\0';
	fclose(f);
	return buf;
}

static int write_text(const char *dir, const char *file, const char *text)
{
	struct jl_outfile of;

	if (jl_output_open(&of, dir, file))
		return -1;
	fputs(text, of.fp);
	return jl_output_commit(&of);
}

/* The budget document of SET, in memory (malloc'd; NULL when SET has no budget). */
static char *budget_text(json_object *set)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	bool any;

	if (!f)
		return NULL;
	any = jl_budget_markdown(f, set);
	fclose(f);
	if (!any) {
		free(buf);
		return NULL;
	}
	return buf;
}

static int write_budget(const char *dir, json_object *set)
{
	char *text = budget_text(set);
	int rc = text ? write_text(dir, "budget.md", text) : 0;

	free(text);
	return rc;
}

int jl_budget_write(const char *dir)
{
	char err[PATH_MAX + 256];
	json_object *set = jl_runset_read(dir, err, sizeof(err));
	int rc;

	if (!set) {
		fprintf(stderr, "jitterlab: budget.md: %s\n", err);
		return -1;
	}
	rc = write_budget(dir, set);
	json_object_put(set);
	return rc;
}

/* Baseline B, its scenario's TEXT and its BUDGET document (NULL: none) into PARENT/NAME (into DIR), with no
 * stale scenario.ini or budget.md of an earlier one left there. 0, or -1 after saying why. */
static int write_baseline(const char *parent, const char *name, json_object *b, const char *text, const char *budget,
			  char *dir, size_t dirlen)
{
	char err[PATH_MAX + 512];

	if (jl_output_make_subdir(parent, name, dir, dirlen, err, sizeof(err))) {
		fprintf(stderr, "jitterlab baseline save: %s\n", err);
		return -1;
	}
	if (jl_output_write_json(dir, jl_document_file(JL_DOC_BASELINE), b) || (text && write_text(dir, "scenario.ini", text)) ||
	    (budget && write_text(dir, "budget.md", budget))) {
		fprintf(stderr, "jitterlab baseline save: writing into %s: %s\n", dir, strerror(errno));
		return -1;
	}
	/* --force over a baseline that had them: no stale scenario (its gates) or budget left behind */
	{
		static const char *const files[] = { "scenario.ini", "budget.md" };
		const char *made[] = { text, budget };

		for (int i = 0; i < 2; i++) {
			char p[PATH_MAX + 32];

			snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
			if (!made[i] && unlink(p) && errno != ENOENT)
				fprintf(stderr, "jitterlab baseline save: %s: %s\n", p, strerror(errno));
		}
	}
	return 0;
}

/* What was saved: runs and conditions, and a word when a comparison against it can give no verdict. */
static void print_saved(json_object *b, const char *name, const char *dir)
{
	json_object *conds = NULL;
	int runs = 0;

	json_object_object_get_ex(b, "conditions", &conds);
	for (size_t c = 0; c < json_object_array_length(conds); c++) {
		json_object *r = NULL;

		json_object_object_get_ex(json_object_array_get_idx(conds, c), "runs", &r);
		runs += (int)json_object_array_length(r);
	}
	printf("baseline %s: %d run(s) in %zu condition(s) of scenario %s, in %s\n", name, runs,
	       json_object_array_length(conds), json_object_get_string(json_object_object_get(b, "scenario")), dir);
	if (runs < 3 * (int)json_object_array_length(conds))
		printf("  fewer than 3 runs a condition: a comparison against it gives the change, never a verdict\n");
}

/* `baseline save DIR... --as NAME [--dir PARENT] [--force]` into its parts (OPS[0] is "save"). JL_LIFE_GO, or
 * the exit status after saying what is wrong. */
static int baseline_args(int argc, char **argv, const char **name, const char **parent, bool *force, const char **ops,
			 int *nops)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v = NULL;

	for (int c = jl_cli_next(&jl_cli_baseline, argc, argv, &w, &v); c != JL_CLI_END;
	     c = jl_cli_next(&jl_cli_baseline, argc, argv, &w, &v)) {
		if (c == JL_CLI_HELP) {
			jl_cli_help(stdout, &jl_cli_baseline);
			return JL_EXIT_OK;
		}
		if (c == JL_CLI_ERROR)
			return JL_EXIT_USAGE;
		if (c == B_AS)
			*name = v;
		else if (c == B_DIR)
			*parent = v;
		else if (c == B_FORCE)
			*force = true;
		else if (c == JL_CLI_OPERAND) {
			if (*nops >= 64) {
				fprintf(stderr, "jitterlab baseline: at most 63 directories\n");
				return JL_EXIT_USAGE;
			}
			ops[(*nops)++] = v;
		}
	}
	if (!*nops || strcmp(ops[0], "save")) {
		fprintf(stderr, "jitterlab baseline: expected 'save' (jitterlab baseline save RUN_OR_SWEEP_DIR... --as NAME)\n");
		return JL_EXIT_USAGE;
	}
	if (*nops < 2) {
		fprintf(stderr, "jitterlab baseline save: no run or sweep directory given\n");
		return JL_EXIT_USAGE;
	}
	if (!*name || !name_ok(*name)) {
		fprintf(stderr, "jitterlab baseline save: %s (expected --as NAME of letters, digits, '_', '-', '.')\n",
			*name ? "the name is not valid" : "no --as NAME");
		return JL_EXIT_USAGE;
	}
	return JL_LIFE_GO;
}

int cmd_baseline(int argc, char **argv)
{
	const char *name = NULL, *parent = "baselines", *ops[64];
	int nops = 0, rc = JL_EXIT_USAGE;
	bool force = false;
	json_object *sets[64] = { 0 }, *b = NULL;
	char err[PATH_MAX + 512], dir[PATH_MAX], created[32], bjson[PATH_MAX + 32];
	char *text = NULL, *budget = NULL;
	time_t now = time(NULL);
	struct tm tm;

	if ((rc = baseline_args(argc, argv, &name, &parent, &force, ops, &nops)) != JL_LIFE_GO)
		return rc;
	rc = JL_EXIT_USAGE;
	/* read and check everything before anything is written */
	for (int i = 1; i < nops; i++)
		if (!(sets[i - 1] = jl_runset_read(ops[i], err, sizeof(err)))) {
			fprintf(stderr, "jitterlab baseline save: %s\n", err);
			goto out;
		}
	strftime(created, sizeof(created), "%Y-%m-%dT%H:%M:%SZ", gmtime_r(&now, &tm));
	if (!(b = jl_baseline_build(sets, nops - 1, name, created, err, sizeof(err)))) {
		fprintf(stderr, "jitterlab baseline save: %s\n", err);
		goto out;
	}
	{
		json_object *ini = NULL;

		if (json_object_object_get_ex(sets[0], "scenario_ini", &ini) && ini &&
		    !(text = read_text(json_object_get_string(ini), err, sizeof(err)))) {
			fprintf(stderr, "jitterlab baseline save: %s\n", err);
			goto out;
		}
	}
	budget = budget_text(b); /* everything is made before anything is written */
	snprintf(bjson, sizeof(bjson), "%s/%s/baseline.json", parent, name);
	if (!access(bjson, F_OK) && !force) {
		fprintf(stderr, "jitterlab baseline save: %s exists (--force replaces it)\n", bjson);
		goto out;
	}
	rc = JL_EXIT_RUNTIME;
	if (write_baseline(parent, name, b, text, budget, dir, sizeof(dir)))
		goto out;
	print_saved(b, name, dir);
	rc = JL_EXIT_OK;
out:
	for (int i = 0; i < 64; i++)
		json_object_put(sets[i]);
	json_object_put(b);
	free(text), free(budget);
	return rc;
}

struct gate_read {
	struct jl_gate *g;
	int max, n;
	char why[600];
	bool failed;
};

/* inih's handler: the [gate] section's lines, each through the one gate parser; the other sections are
 * another machine's business (a scenario.ini from a bigger machine names CPUs this one lacks, and the
 * comparison needs only its gates). */
static int gate_line(void *user, const char *section, const char *name, const char *value)
{
	struct gate_read *r = user;
	char why[512];

	if (r->failed || strcmp(section, "gate"))
		return 1;
	if (r->n >= r->max) {
		snprintf(r->why, sizeof(r->why), "[gate]: too many gates (at most %d)", r->max);
		r->failed = true;
		return 0;
	}
	if (jl_scenario_gate_check(name, value, &r->g[r->n], why, sizeof(why))) {
		snprintf(r->why, sizeof(r->why), "[gate] %.64s: %s", name, why);
		r->failed = true;
		return 0;
	}
	r->n++;
	return 1;
}

/* The gates of the scenario as run at INI (NULL: none) plus the --gate lines EXTRA[0..NEXTRA), into G. */
static int gates_of(const char *ini, const char *const *extra, int nextra, struct jl_gate *g, int max, int *n, char *err,
		    size_t errlen)
{
	struct gate_read r = { .g = g, .max = max };

	if (ini) {
		int rc = ini_parse(ini, gate_line, &r); /* the line of the first error */

		if (r.failed) {
			snprintf(err, errlen, "%s:%d: %s", ini, rc, r.why);
			return -1;
		}
		if (rc) {
			snprintf(err, errlen, "%s: %s", ini, rc < 0 ? "cannot read the file" : "not a scenario (a syntax error)");
			return -1;
		}
	}
	for (int i = 0; i < nextra; i++) {
		char why[512];

		if (r.n >= max) {
			snprintf(err, errlen, "--gate: too many gates (at most %d)", max);
			return -1;
		}
		if (jl_scenario_gate_check("cli", extra[i], &g[r.n], why, sizeof(why))) {
			snprintf(err, errlen, "--gate '%s': %s", extra[i], why);
			return -1;
		}
		r.n++;
	}
	*n = r.n;
	return 0;
}

/* Whether DIR holds a run's, a cyclictest comparison's or a baseline's document (said): its report.html and
 * what `report` takes it for are theirs (a sweep's takes its comparison in: sweep --baseline) */
static bool taken(const char *dir)
{
	char p[PATH_MAX + 32];

	for (int d = 0; d < JL_NDOCUMENTS; d++) {
		if (d == JL_DOC_SWEEP || d == JL_DOC_COMPARE)
			continue;
		snprintf(p, sizeof(p), "%s/%s", dir, jl_document_file(d));
		if (!access(p, F_OK)) {
			fprintf(stderr, "jitterlab compare: --out %s holds %s: give another directory\n", dir, jl_document_file(d));
			return true;
		}
	}
	return false;
}

int jl_compare_run(const char *base_arg, const char *new_path, const char *out_dir, const char *const *extra, int nextra,
		   bool json, bool all, bool quiet_table)
{
	char err[PATH_MAX * 2 + 512], base_path[PATH_MAX];
	json_object *a = NULL, *b = NULL, *cmp = NULL, *ini = NULL;
	struct jl_gate gates[JL_MAX_GATES + 16];
	int ngates = 0, failed = 0, rc = JL_EXIT_USAGE;

	if (out_dir && taken(out_dir))
		return JL_EXIT_USAGE;
	resolve(base_arg, base_path, sizeof(base_path));
	if (!(a = jl_runset_read(base_path, err, sizeof(err))) || !(b = jl_runset_read(new_path, err, sizeof(err)))) {
		fprintf(stderr, "jitterlab compare: %s\n", err);
		goto out;
	}
	json_object_object_get_ex(b, "scenario_ini", &ini);
	if (!ini)
		fprintf(stderr, "jitterlab compare: %s has no scenario.ini: its [gate]s are unknown, only --gate lines are "
				"judged\n", new_path);
	if (gates_of(ini ? json_object_get_string(ini) : NULL, extra, nextra, gates, (int)(sizeof(gates) / sizeof(gates[0])),
		     &ngates, err, sizeof(err))) {
		fprintf(stderr, "jitterlab compare: %s\n", err);
		goto out;
	}
	if (!(cmp = jl_compare_build(a, b, base_path, new_path, gates, ngates, &failed, err, sizeof(err)))) {
		fprintf(stderr, "jitterlab compare: %s\n", err);
		goto out;
	}
	rc = JL_EXIT_RUNTIME;
	if (out_dir) {
		char dir[PATH_MAX];
		struct jl_outfile of;

		if (jl_output_make_dir(out_dir, dir, sizeof(dir), err, sizeof(err))) {
			fprintf(stderr, "jitterlab compare: %s\n", err);
			goto out;
		}
		out_dir = dir;
		if (jl_output_write_json(out_dir, jl_document_file(JL_DOC_COMPARE), cmp) || jl_output_open(&of, out_dir, "compare.md")) {
			fprintf(stderr, "jitterlab compare: writing into %s: %s\n", out_dir, strerror(errno));
			goto out;
		}
		jl_compare_print(of.fp, cmp, true, true);
		if (jl_output_commit(&of)) {
			fprintf(stderr, "jitterlab compare: writing into %s: %s\n", out_dir, strerror(errno));
			goto out;
		}
		if (jl_report_html_compare(out_dir, cmp, err, sizeof(err)) < 0) /* the page is a view: said, not fatal */
			fprintf(stderr, "jitterlab compare: %s\n", err);
	}
	if (json)
		printf("%s\n", json_object_to_json_string_ext(cmp, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
	else if (!quiet_table)
		jl_compare_print(stdout, cmp, false, all);
	rc = failed ? JL_EXIT_EXPECT : JL_EXIT_OK;
out:
	json_object_put(a), json_object_put(b), json_object_put(cmp);
	return rc;
}

int cmd_compare(int argc, char **argv)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v = NULL, *ops[2] = { 0 }, *out = NULL, *extra[16];
	int nops = 0, nextra = 0;
	bool json = false, all = false;

	for (int c = jl_cli_next(&jl_cli_compare, argc, argv, &w, &v); c != JL_CLI_END;
	     c = jl_cli_next(&jl_cli_compare, argc, argv, &w, &v)) {
		if (c == JL_CLI_HELP) {
			jl_cli_help(stdout, &jl_cli_compare);
			return JL_EXIT_OK;
		}
		if (c == JL_CLI_ERROR)
			return JL_EXIT_USAGE;
		if (c == C_JSON)
			json = true;
		else if (c == C_ALL)
			all = true;
		else if (c == C_OUT)
			out = v;
		else if (c == C_GATE) {
			if (nextra >= 16) {
				fprintf(stderr, "jitterlab compare: at most 16 --gate\n");
				return JL_EXIT_USAGE;
			}
			extra[nextra++] = v;
		} else if (c == JL_CLI_OPERAND) {
			if (nops >= 2) {
				fprintf(stderr, "jitterlab compare: expected two directories: BASELINE NEW\n");
				return JL_EXIT_USAGE;
			}
			ops[nops++] = v;
		}
	}
	if (nops != 2) {
		fprintf(stderr, "jitterlab compare: expected two directories: BASELINE NEW\n");
		return JL_EXIT_USAGE;
	}
	return jl_compare_run(ops[0], ops[1], out, extra, nextra, json, all, false);
}
