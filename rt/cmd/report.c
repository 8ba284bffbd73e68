/* report: `jitterlab report DIR...`: the tables of one run (the run's own table, plots refreshed), of
 * several runs side by side (one column per run, one block per measured thread), of a sweep (its
 * comparison table from sweep.json) or of a cyclictest comparison (cyclictest.json); with --json, the
 * documents those tables are rendered from instead; with --markdown, a run's or a sweep's table as its
 * report.md begins. Reads the files a run wrote; writes nothing but the SVG plots; never starts a run. */
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "report_html.h"
#include "../../affinity/cli.h"
#include "commands.h"
#include "cyclictest.h"
#include "../base/output.h"
#include "../base/documents.h"
#include "../summary/baseline.h"
#include "../summary/plot.h"
#include "../summary/summary_read.h"
#include "../summary/sweep.h"
#include "../summary/table.h"
#include "../base/welch.h"
#include "../base/summary_keys.h"

#define MAX_DIRS 16

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static bool has_file(const char *dir, const char *file)
{
	char p[PATH_MAX + 64];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, R_OK) == 0;
}

struct report_args;

/* The documents a directory other than a run's is made of, one row each, in the order they are looked for (a
 * sweep judged against a baseline holds compare.json too: it is a sweep's). A run's is summary.json. */
struct doc_kind {
	enum jl_document_kind doc;
	/* its table on stdout (markdown: --markdown), its plots refreshed unless --no-plots */
	void (*print)(const struct report_args *a, const char *dir, json_object *doc);
	/* its report.html; NULL: it has none of its own */
	int (*html)(const char *dir, json_object *doc, char *err, size_t errlen);
};

static void print_sweep(const struct report_args *a, const char *dir, json_object *doc);
static void print_compare(const struct report_args *a, const char *dir, json_object *doc);
static void print_cyclictest(const struct report_args *a, const char *dir, json_object *doc);

static const struct doc_kind doc_kinds[] = {
	{ JL_DOC_SWEEP, print_sweep, jl_report_html_sweep },
	{ JL_DOC_COMPARE, print_compare, jl_report_html_compare },
	{ JL_DOC_CYCLICTEST, print_cyclictest, NULL },
};

/* The kind of document DIR holds, or NULL (a run's directory, or none): a run's summary.json decides */
static const struct doc_kind *kind_of(const char *dir)
{
	if (has_file(dir, jl_document_file(JL_DOC_RUN)))
		return NULL;
	for (size_t k = 0; k < sizeof(doc_kinds) / sizeof(doc_kinds[0]); k++)
		if (has_file(dir, jl_document_file(doc_kinds[k].doc)))
			return &doc_kinds[k];
	return NULL;
}

/* DIR itself, or DIR/latest when DIR is a run's parent (<out>/<name>). Returns a malloc'd real path. */
static char *resolve(const char *dir)
{
	char p[PATH_MAX + 16];

	if (!has_file(dir, jl_document_file(JL_DOC_RUN)) && !kind_of(dir)) {
		snprintf(p, sizeof(p), "%s/latest", dir);
		if (access(p, F_OK) == 0)
			return realpath(p, NULL);
	}
	return realpath(dir, NULL);
}

struct row {
	const char *label;
	const char *obj, *key; /* value at thread[obj][key] (obj NULL: thread[key]) */
	enum jl_metric_unit unit;
};

static const struct row rows[] = {
	{ "cycles", NULL, "cycles", JL_UNIT_COUNT },
	{ "rate Hz", NULL, "rate_hz", JL_UNIT_HZ },
	{ "latency min", "latency_ns", "min", JL_UNIT_NS },
	{ "latency mean", "latency_ns", "mean", JL_UNIT_NS },
	{ "latency p50", "latency_ns", "p50", JL_UNIT_NS },
	{ "latency p90", "latency_ns", "p90", JL_UNIT_NS },
	{ "latency p99", "latency_ns", "p99", JL_UNIT_NS },
	{ "latency p99.9", "latency_ns", "p999", JL_UNIT_NS },
	{ "latency max", "latency_ns", "max", JL_UNIT_NS },
	{ "period p99", "period_ns_stats", "p99", JL_UNIT_NS },
	{ "period max", "period_ns_stats", "max", JL_UNIT_NS },
	{ "period stddev", "period_ns_stats", "stddev", JL_UNIT_NS },
	{ "response p99", "response_ns", "p99", JL_UNIT_NS },
	{ "response max", "response_ns", "max", JL_UNIT_NS },
	{ "misses", NULL, "misses", JL_UNIT_COUNT },
	{ "skipped", NULL, "skipped", JL_UNIT_COUNT },
	{ "work mean", "work", "mean_ns", JL_UNIT_NS },
};

static json_object *find_thread(json_object *summary, const char *name)
{
	json_object *th = jget(summary, JL_K(threads));

	for (size_t i = 0; th && i < json_object_array_length(th); i++) {
		json_object *t = json_object_array_get_idx(th, i);

		if (!strcmp(json_object_get_string(jget(t, JL_K(name))), name))
			return t;
	}
	return NULL;
}

/* Column labels: each path after the directory the paths have in common. */
static void labels(char **dirs, int n, const char **lab)
{
	size_t common = 0;

	if (n > 1) {
		for (;; common++) {
			char c = dirs[0][common];
			bool same = c != '\0';

			for (int i = 1; i < n && same; i++)
				same = dirs[i][common] == c;
			if (!same)
				break;
		}
		while (common > 0 && dirs[0][common - 1] != '/')
			common--;
	}
	for (int i = 0; i < n; i++) {
		lab[i] = dirs[i] + common;
		if (!*lab[i])
			lab[i] = strrchr(dirs[i], '/') ? strrchr(dirs[i], '/') + 1 : dirs[i];
	}
}

static void side_by_side(json_object **sum, char **dirs, int n)
{
	const char *lab[MAX_DIRS];
	char seen[64][64];
	int nseen = 0, width = 16;

	labels(dirs, n, lab);
	for (int i = 0; i < n; i++) {
		int w = (int)strlen(lab[i]) + 2;

		width = w > width ? (w < 40 ? w : 40) : width;
		printf("run %d: %s\n", i + 1, dirs[i]);
	}
	for (int i = 0; i < n; i++) {
		json_object *th = jget(sum[i], JL_K(threads));

		for (size_t k = 0; th && k < json_object_array_length(th); k++) {
			json_object *t = json_object_array_get_idx(th, k), *m = jget(t, JL_K(measured));
			const char *name = json_object_get_string(jget(t, JL_K(name)));
			bool dup = false;

			if (!name || !m || !json_object_get_boolean(m))
				continue;
			for (int s = 0; s < nseen; s++)
				dup |= !strcmp(seen[s], name);
			if (dup || nseen == 64)
				continue;
			snprintf(seen[nseen++], sizeof(seen[0]), "%s", name);
		}
	}
	for (int s = 0; s < nseen; s++) {
		printf("\n%-16s", seen[s]);
		for (int i = 0; i < n; i++)
			printf(" %*.*s", width, width, lab[i]);
		printf("\n%-16s", "policy");
		for (int i = 0; i < n; i++) {
			json_object *t = find_thread(sum[i], seen[s]);
			char b[64];

			if (t && jget(t, JL_K(priority)) && json_object_get_int(jget(t, JL_K(priority))) > 0)
				snprintf(b, sizeof(b), "%s %d", json_object_get_string(jget(t, JL_K(policy))), json_object_get_int(jget(t, JL_K(priority))));
			else
				snprintf(b, sizeof(b), "%s", t ? json_object_get_string(jget(t, JL_K(policy))) : "-");
			printf(" %*s", width, b);
		}
		printf("\n%-16s", "cpus");
		for (int i = 0; i < n; i++) {
			json_object *t = find_thread(sum[i], seen[s]);

			printf(" %*s", width, t && jget(t, JL_K(cpus)) ? json_object_get_string(jget(t, JL_K(cpus))) : "-");
		}
		printf("\n");
		for (size_t r = 0; r < sizeof(rows) / sizeof(rows[0]); r++) {
			printf("%-16s", rows[r].label);
			for (int i = 0; i < n; i++) {
				json_object *t = find_thread(sum[i], seen[s]);
				json_object *o = t ? (rows[r].obj ? jget(t, rows[r].obj) : t) : NULL, *v = jget(o, rows[r].key);
				char b[48];

				if (v)
					jl_value_format(json_object_get_double(v), rows[r].unit, false, b, sizeof(b));
				else
					snprintf(b, sizeof(b), "-");
				printf(" %*s", width, b);
			}
			printf("\n");
		}
	}
}

/* The plots `report` refreshes for a run, as written by jl_plot_run. */
static const char *const run_plots[] = { "latency-hist.svg", "latency-cycle.svg", "ticks.svg" };

enum { P_NO_PLOTS = 1, P_JSON, P_MARKDOWN, P_HTML, P_OUT };

static const struct jl_cli_opt report_opts[] = {
	{ "no-plots", 0, NULL, "do not refresh the SVG plots", P_NO_PLOTS },
	{ "json", 'j', NULL, "print the documents the tables come from instead: one RUN_DIR, its summary.json "
			     "(plus kind, dir, plots), sweep.json, compare.json or cyclictest.json; several, "
			     "{\"kind\": \"report\", \"runs\": [...]} in argument order", P_JSON },
	{ "markdown", 0, NULL, "print a run's or a sweep's table in markdown, as its report.md begins (several runs "
			       "side by side and cyclictest comparisons stay text)", P_MARKDOWN },
	{ "html", 0, NULL, "write each directory's report.html again (one self-contained page: a run's tables, plots, "
			   "explained cycles and every summary key; a sweep's or a comparison's) and say where", P_HTML },
	{ "out", 0, "DIR", "with --html: also put every run named on one page, DIR/report.html (DIR created)", P_OUT },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_report = { "report", "RUN_DIR...", "tables (and plots) for one run or several runs compared",
				      report_opts };

static void usage(FILE *out)
{
	jl_cli_help(out, &jl_cli_report);
}

/* What `report` was asked: its switches, and its directories resolved (malloc'd real paths), in argument order. */
struct report_args {
	char *dirs[MAX_DIRS];
	int n;
	bool no_plots, json, markdown, html;
	const char *out;  /* --out: the runs' page together */
};

/* ARGV into A, each directory resolved as it comes: 0, 1 when --help was printed, or -1 after saying what is
 * wrong (exit 2). A's directories are the caller's to free, whichever it returns. */
static int parse_args(struct report_args *a, int argc, char **argv)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v = NULL;

	for (int c = jl_cli_next(&jl_cli_report, argc, argv, &w, &v); c != JL_CLI_END;
	     c = jl_cli_next(&jl_cli_report, argc, argv, &w, &v)) {
		if (c == P_NO_PLOTS) {
			a->no_plots = true;
			continue;
		}
		if (c == P_JSON) {
			a->json = true;
			continue;
		}
		if (c == P_MARKDOWN) {
			a->markdown = true;
			continue;
		}
		if (c == P_HTML) {
			a->html = true;
			continue;
		}
		if (c == P_OUT) {
			a->out = v;
			continue;
		}
		if (c == JL_CLI_HELP) {
			usage(stdout);
			return 1;
		}
		if (c != JL_CLI_OPERAND || a->n == MAX_DIRS) {
			if (a->n == MAX_DIRS)
				fprintf(stderr, "jitterlab report: too many directories at '%s'\n", v);
			usage(stderr);
			return -1;
		}
		a->dirs[a->n] = resolve(v);
		if (!a->dirs[a->n]) {
			fprintf(stderr, "jitterlab report: %s: no such directory\n", v);
			return -1;
		}
		a->n++;
	}
	if (!a->n || (a->json && a->markdown) || (a->out && !a->html)) {
		if (a->json && a->markdown)
			fprintf(stderr, "jitterlab report: --json and --markdown exclude each other\n");
		if (a->out && !a->html)
			fprintf(stderr, "jitterlab report: --out DIR is where --html puts the runs' page: give --html\n");
		usage(stderr);
		return -1;
	}
	return 0;
}

static void print_sweep(const struct report_args *a, const char *dir, json_object *doc)
{
	char err[PATH_MAX + 512] = "";

	jl_sweep_print(stdout, doc, a->markdown);
	if (!a->no_plots && jl_plot_sweep(dir, doc, err, sizeof(err)) <= 0 && err[0])
		fprintf(stderr, "jitterlab report: %s\n", err);
}

static void print_compare(const struct report_args *a, const char *dir, json_object *doc)
{
	(void)dir;
	jl_compare_print(stdout, doc, a->markdown, false);
}

static void print_cyclictest(const struct report_args *a, const char *dir, json_object *doc)
{
	(void)a, (void)dir;
	jl_cyclictest_print(stdout, doc);
}

/* Each directory's document into DOCS (a sweep's, a cyclictest comparison's) or SUM (a run's summary.json).
 * Sweeps and cyclictest comparisons are printed one by one as they are read, so that they come in argument
 * order; runs wait, as several are printed side by side. With --json nothing is printed here: every document
 * is kept, in argument order, and printed at the end. Returns the exit status so far. */
static int load_dirs(const struct report_args *a, json_object **sum, json_object **docs)
{
	int status = JL_EXIT_OK;

	for (int i = 0; i < a->n; i++) {
		const struct doc_kind *k = kind_of(a->dirs[i]);
		char err[PATH_MAX + 512] = "";

		if (k) {
			docs[i] = jl_document_read(k->doc, a->dirs[i], err, sizeof(err));
			if (!docs[i]) {
				fprintf(stderr, "jitterlab report: %s\n", err);
				status = JL_EXIT_USAGE;
			} else if (!a->json) {
				k->print(a, a->dirs[i], docs[i]);
			}
			continue;
		}
		if (!has_file(a->dirs[i], jl_document_file(JL_DOC_RUN))) {
			fprintf(stderr, "jitterlab report: %s: no summary.json, sweep.json, compare.json or cyclictest.json here\n",
				a->dirs[i]);
			status = JL_EXIT_USAGE;
		} else if (!(sum[i] = jl_summary_read(a->dirs[i], err, sizeof(err)))) {
			fprintf(stderr, "jitterlab report: %s\n", err);
			status = JL_EXIT_USAGE;
		}
	}
	return status;
}

/* The runs' tables (one run's own, or several side by side; none with --json), then their plots refreshed. */
static void print_runs(const struct report_args *a, json_object **sum)
{
	json_object *s2[MAX_DIRS];
	char *d2[MAX_DIRS];
	int m = 0;

	for (int i = 0; i < a->n; i++)
		if (sum[i]) {
			s2[m] = sum[i];
			d2[m++] = a->dirs[i];
		}
	if (a->json) {
		/* nothing */
	} else if (m == 1 && a->markdown) {
		jl_table_print(stdout, s2[0], JL_TABLE_MARKDOWN);
	} else if (m == 1) {
		printf("run directory: %s\n", d2[0]);
		jl_table_print(stdout, s2[0], JL_TABLE_TEXT);
	} else if (m > 1) {
		side_by_side(s2, d2, m);
	}
	for (int i = 0; i < m && !a->no_plots; i++) {
		char err[512] = "";
		int np = jl_plot_run(d2[i], err, sizeof(err));

		if (np > 0 && !a->json && !a->markdown)
			printf("plots: %s/{latency-hist,latency-cycle,ticks}.svg\n", d2[i]);
		else if (np <= 0 && err[0])
			fprintf(stderr, "jitterlab report: %s\n", err);
	}
}

/* --json: one directory's document as it is, several (or none readable) in a "report" document. A run's
 * summary gets where it is and the plots report refreshed, and is then held in DOCS as well. */
static void print_json(const struct report_args *a, json_object **sum, json_object **docs)
{
	json_object *list = json_object_new_array(), *top;
	int nd = 0;

	for (int i = 0; i < a->n; i++) {
		if (sum[i]) { /* a run: its summary, and where it is and what report refreshed */
			json_object *plots = json_object_new_array();

			for (size_t k = 0; k < sizeof(run_plots) / sizeof(run_plots[0]); k++)
				if (has_file(a->dirs[i], run_plots[k]))
					json_object_array_add(plots, json_object_new_string(run_plots[k]));
			if (!jget(sum[i], "kind"))
				json_object_object_add(sum[i], "kind", json_object_new_string("run"));
			json_object_object_add(sum[i], "dir", json_object_new_string(a->dirs[i]));
			json_object_object_add(sum[i], "plots", plots);
			docs[i] = json_object_get(sum[i]);
		}
		if (docs[i]) {
			json_object_array_add(list, json_object_get(docs[i]));
			nd++;
		}
	}
	if (a->n == 1 && nd == 1) {
		jl_json_print(stdout, json_object_array_get_idx(list, 0));
	} else {
		top = json_object_new_object();
		json_object_object_add(top, "tool", json_object_new_string("jitterlab"));
		json_object_object_add(top, "version", json_object_new_string(JL_VERSION));
		json_object_object_add(top, "kind", json_object_new_string("report"));
		json_object_object_add(top, "runs", json_object_get(list));
		if (nd)
			jl_json_print(stdout, top);
		json_object_put(top);
	}
	json_object_put(list);
}

/* --html: each directory's page (a run's, a sweep's, a comparison's), then with --out every run's on one page.
 * 0, or -1 when a page could not be written (said). */
static int write_pages(const struct report_args *a, json_object **sum, json_object **docs)
{
	char err[PATH_MAX + 512], *d2[MAX_DIRS];
	json_object *s2[MAX_DIRS];
	int rc = 0, m = 0;

	for (int i = 0; i < a->n; i++) {
		const struct doc_kind *k = docs[i] ? kind_of(a->dirs[i]) : NULL;
		int r;

		if (sum[i]) {
			r = jl_report_html_run(a->dirs[i], sum[i], err, sizeof(err));
			s2[m] = sum[i];
			d2[m++] = a->dirs[i];
		} else if (k && k->html) {
			r = k->html(a->dirs[i], docs[i], err, sizeof(err));
		} else {
			if (k)
				fprintf(stderr, "jitterlab report: %s: --html writes a run's, a sweep's or a comparison's page; "
					"a cyclictest comparison has none of its own (each of its runs has its page)\n",
					a->dirs[i]);
			continue;
		}
		if (r < 0) {
			fprintf(stderr, "jitterlab %s\n", err);
			rc = -1;
		} else if (!a->json) {
			printf("report: %s/report.html\n", a->dirs[i]);
		}
	}
	if (a->out) {
		char dir[PATH_MAX];

		if (!m) {
			fprintf(stderr, "jitterlab report: --out: no run among the directories named\n");
			return -1;
		}
		if (jl_output_make_dir(a->out, dir, sizeof(dir), err, sizeof(err)) < 0 ||
		    jl_report_html_runs(dir, d2, s2, m, err, sizeof(err)) < 0) {
			fprintf(stderr, "jitterlab report: %s\n", err);
			return -1;
		}
		if (!a->json)
			printf("report: %s/report.html (%d runs)\n", dir, m);
	}
	return rc;
}

int cmd_report(int argc, char **argv)
{
	json_object *sum[MAX_DIRS] = { 0 }, *docs[MAX_DIRS] = { 0 };
	struct report_args a = { 0 };
	int status;

	status = parse_args(&a, argc, argv);
	if (status) {
		status = status > 0 ? JL_EXIT_OK : JL_EXIT_USAGE;
		goto out;
	}
	status = load_dirs(&a, sum, docs);
	print_runs(&a, sum);
	if (a.html && write_pages(&a, sum, docs) < 0)
		status = JL_EXIT_RUNTIME;
	if (a.json)
		print_json(&a, sum, docs);
out:
	for (int i = 0; i < MAX_DIRS; i++) {
		json_object_put(sum[i]);
		json_object_put(docs[i]);
		free(a.dirs[i]);
	}
	return status;
}
