/* baseline: sets of runs, baselines, comparisons and the budget document (baseline.h). */
#include "baseline.h"
#include "summary_read.h"
#include "../base/documents.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "../base/metrics.h"
#include "../base/summary_keys.h"
#include "../base/welch.h"
#include "expect.h"
#include "summary.h"

/* The host keys of a fingerprint, and whether a difference makes a comparison doubtful (another kernel,
 * preemption model, CPU, VM) or is only noted. */
static const struct {
	const char *key;
	bool doubtful;
	const char *why;
} fingerprint[] = {
	{ "kernel", true, "another kernel" },
	{ "preempt", true, "another preemption model" },
	{ "cpu_model", true, "another CPU" },
	{ "cpus_online", true, "other CPUs online" },
	{ "isolated", true, "other CPUs isolated" },
	{ "virtualized", true, "a VM on one side only" },
	{ "emulated", true, "an emulated CPU on one side only" },
	{ "clocksource", false, "another clocksource" },
	{ "sched_rt_runtime_us", false, "another RT throttling budget" },
	{ "hostname", false, "another host name" },
	/* the knobs of the machine the runs found (a run's own are in its scenario) */
	{ "boot_isolation", false, "other boot-time isolation (isolcpus, nohz_full, rcu_nocbs)" },
	{ "rt_bandwidth", false, "another RT bandwidth setting" },
	{ "fair_server", false, "another fair server setting" },
	{ "idle_states", false, "other CPU idle states" },
};
#define NFINGERPRINT (int)(sizeof(fingerprint) / sizeof(fingerprint[0]))

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

static const char *gets(json_object *o, const char *key)
{
	json_object *v = get(o, key);

	return v && json_object_is_type(v, json_type_string) ? json_object_get_string(v) : NULL;
}

/* A number, and a finite one: json-c reads NaN and Infinity, and a statistic of them means nothing. */
static bool is_num(json_object *v)
{
	return v && (json_object_is_type(v, json_type_int) ||
		     (json_object_is_type(v, json_type_double) && isfinite(json_object_get_double(v))));
}

static bool is_arr(json_object *v)
{
	return v && json_object_is_type(v, json_type_array);
}

static size_t alen(json_object *v)
{
	return is_arr(v) ? json_object_array_length(v) : 0;
}

static json_object *jnum(double v)
{
	return isfinite(v) ? json_object_new_double(v) : NULL;
}

static json_object *jstr(const char *s)
{
	return s ? json_object_new_string(s) : NULL;
}

/* ---- reading runs ---- */

static json_object *host_fingerprint(json_object *summary)
{
	json_object *h = get(summary, JL_K(host)), *fp = json_object_new_object();

	for (int i = 0; i < NFINGERPRINT; i++) {
		json_object *v = get(h, fingerprint[i].key);

		json_object_object_add(fp, fingerprint[i].key, v ? json_object_get(v) : NULL);
	}
	return fp;
}

/* Every series name a summary has (threads, syncs, locks, sources), once, into NAMES. */
static void series_names(json_object *summary, json_object *names)
{
	static const char *const arrays[] = { "threads", "syncs", "locks", "sources" };

	for (size_t a = 0; a < sizeof(arrays) / sizeof(arrays[0]); a++) {
		json_object *arr = get(summary, arrays[a]);
		size_t n = arr && json_object_is_type(arr, json_type_array) ? json_object_array_length(arr) : 0;

		for (size_t i = 0; i < n; i++) {
			const char *nm = gets(json_object_array_get_idx(arr, i), JL_K(name));

			if (nm && !get(names, nm))
				json_object_object_add(names, nm, json_object_new_boolean(true));
		}
	}
}

/* The run's neighbours (threads that are not measured): "hog: other, cpus 1". */
static json_object *load_of(json_object *summary)
{
	json_object *arr = json_object_new_array(), *threads = get(summary, JL_K(threads));

	for (size_t i = 0; i < alen(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *m = get(t, JL_K(measured));
		char line[256];

		if (!m || json_object_get_boolean(m))
			continue;
		snprintf(line, sizeof(line), "%s: %s, cpus %s", gets(t, JL_K(name)) ? gets(t, JL_K(name)) : "?",
			 gets(t, JL_K(policy)) ? gets(t, JL_K(policy)) : "?", gets(t, JL_K(cpus)) ? gets(t, JL_K(cpus)) : "all");
		json_object_array_add(arr, json_object_new_string(line));
	}
	return arr;
}

/* One condition of a set from the summaries SUMS[0..N) of its runs (DIRS: where each is). */
/* Run R's budget stages (its summary's budget B) into BUDGET: one entry per stage, one value per run each (a
 * run whose stage has no value, the callback never having run, keeps its place with null). */
static void budget_of_run(json_object *budget, json_object *b, int r)
{
	for (size_t i = 0; b && json_object_is_type(b, json_type_array) && i < json_object_array_length(b); i++) {
		json_object *e = json_object_array_get_idx(b, i), *st = NULL;
		const char *stage = gets(e, JL_K(stage));

		if (!stage)
			continue;
		for (size_t k = 0; k < json_object_array_length(budget); k++)
			if (!strcmp(gets(json_object_array_get_idx(budget, k), "stage"), stage))
				st = json_object_array_get_idx(budget, k);
		if (!st) {
			st = json_object_new_object();
			json_object_object_add(st, "stage", json_object_new_string(stage));
			json_object_object_add(st, "budget_ns", get(e, JL_K(budget_ns)) ? json_object_get(get(e, JL_K(budget_ns))) : NULL);
			json_object_object_add(st, "p99_ns", json_object_new_array());
			json_object_object_add(st, "max_ns", json_object_new_array());
			json_object_array_add(budget, st);
		}
		while ((int)json_object_array_length(get(st, "p99_ns")) < r)
			json_object_array_add(get(st, "p99_ns"), NULL), json_object_array_add(get(st, "max_ns"), NULL);
		json_object_array_add(get(st, "p99_ns"), is_num(get(e, JL_K(p99_ns))) ? json_object_get(get(e, JL_K(p99_ns))) : NULL);
		json_object_array_add(get(st, "max_ns"), is_num(get(e, JL_K(max_ns))) ? json_object_get(get(e, JL_K(max_ns))) : NULL);
	}
}

/* Series NM's metrics over the runs SUMS[0..N): per metric one finite value (or null) per run; the metrics no
 * run has are left out. NULL when none is left. */
static json_object *series_metrics(const char *nm, json_object *const *sums, int n)
{
	json_object *mo = json_object_new_object();

	for (int m = 0; m < jl_nmetrics; m++) {
		json_object *vals = json_object_new_array();
		bool any = false;

		for (int r = 0; r < n; r++) {
			double v;

			if (jl_metric_value(sums[r], nm, jl_metrics[m].name, &v) && isfinite(v))
				json_object_array_add(vals, json_object_new_double(v)), any = true;
			else
				json_object_array_add(vals, NULL);
		}
		if (any)
			json_object_object_add(mo, jl_metrics[m].name, vals);
		else
			json_object_put(vals);
	}
	if (json_object_object_length(mo))
		return mo;
	json_object_put(mo);
	return NULL;
}

static json_object *condition_of(const char *label, json_object *const *sums, const char *const *dirs, int n)
{
	json_object *c = json_object_new_object(), *runs = json_object_new_array(), *series = json_object_new_object();
	json_object *names = json_object_new_object(), *budget = json_object_new_array();

	json_object_object_add(c, "label", json_object_new_string(label));
	json_object_object_add(c, "load", n ? load_of(sums[0]) : json_object_new_array());
	for (int r = 0; r < n; r++) {
		json_object *ro = json_object_new_object();

		json_object_object_add(ro, "dir", json_object_new_string(dirs[r]));
		json_object_object_add(ro, "started", jstr(gets(sums[r], JL_K(started))));
		json_object_object_add(ro, "duration_ns", get(sums[r], JL_K(duration_ns)) ? json_object_get(get(sums[r], JL_K(duration_ns))) : NULL);
		json_object_object_add(ro, "exit_status", get(sums[r], JL_K(exit_status)) ? json_object_get(get(sums[r], JL_K(exit_status))) : NULL);
		json_object_object_add(ro, "host", host_fingerprint(sums[r]));
		json_object_array_add(runs, ro);
		series_names(sums[r], names);
		budget_of_run(budget, get(sums[r], JL_K(budget)), r);
	}
	for (size_t k = 0; k < json_object_array_length(budget); k++) {
		json_object *st = json_object_array_get_idx(budget, k);

		while ((int)json_object_array_length(get(st, "p99_ns")) < n)
			json_object_array_add(get(st, "p99_ns"), NULL), json_object_array_add(get(st, "max_ns"), NULL);
	}
	json_object_object_foreach(names, nm, unused)
	{
		json_object *mo = series_metrics(nm, sums, n);

		(void)unused;
		if (mo)
			json_object_object_add(series, nm, mo);
	}
	json_object_put(names);
	json_object_object_add(c, "runs", runs);
	json_object_object_add(c, "series", series);
	json_object_object_add(c, "budget", budget);
	return c;
}

static json_object *read_json(const char *path, char *err, size_t errlen)
{
	json_object *o = json_object_from_file(path);

	if (!o)
		snprintf(err, errlen, "%s: %s", path, access(path, R_OK) ? strerror(errno) : "not a JSON document (corrupted?)");
	else if (!json_object_is_type(o, json_type_object)) {
		snprintf(err, errlen, "%s: not a JSON object (corrupted?)", path);
		json_object_put(o);
		o = NULL;
	}
	return o;
}

static json_object *set_new(const char *kind, const char *scenario, const char *path)
{
	json_object *s = json_object_new_object(), *src = json_object_new_array();

	json_object_object_add(s, "tool", json_object_new_string("jitterlab"));
	json_object_object_add(s, "version", json_object_new_string(JL_VERSION));
	json_object_object_add(s, "kind", json_object_new_string(kind));
	json_object_object_add(s, "format", json_object_new_int(JL_BASELINE_FORMAT));
	json_object_object_add(s, "scenario", jstr(scenario));
	json_object_array_add(src, json_object_new_string(path));
	json_object_object_add(s, "sources", src);
	return s;
}

/* A scenario.ini as run, when DIR has one. */
static json_object *scenario_ini_of(const char *dir)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/scenario.ini", dir);
	return access(p, R_OK) ? NULL : json_object_new_string(p);
}

/* A jitterlab run's summary: a scenario name and a threads array (what the reading needs), the scenario
 * SCENARIO's when given. */
static int check_summary(json_object *sum, const char *path, const char *scenario, char *err, size_t errlen)
{
	if (!gets(sum, JL_K(scenario)) || !is_arr(get(sum, JL_K(threads)))) {
		snprintf(err, errlen, "%s: no scenario or threads: not a jitterlab run's summary", path);
		return -1;
	}
	if (scenario && strcmp(gets(sum, JL_K(scenario)), scenario)) {
		snprintf(err, errlen, "%s: a run of scenario '%s' in a sweep of '%s'", path, gets(sum, JL_K(scenario)), scenario);
		return -1;
	}
	return 0;
}

static json_object *read_run(const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX + 16];
	json_object *sum, *set;
	const char *dirs[1] = { dir };

	snprintf(p, sizeof(p), "%s/summary.json", dir);
	if (!(sum = jl_summary_read(dir, err, errlen)))
		return NULL;
	if (check_summary(sum, p, NULL, err, errlen)) {
		json_object_put(sum);
		return NULL;
	}
	set = set_new("run", gets(sum, JL_K(scenario)), dir);
	json_object_object_add(set, "scenario_ini", scenario_ini_of(dir));
	json_object_object_add(set, "host", host_fingerprint(sum));
	{
		json_object *conds = json_object_new_array();

		json_object_array_add(conds, condition_of("run", &sum, dirs, 1));
		json_object_object_add(set, "conditions", conds);
	}
	json_object_put(sum);
	return set;
}

/* A run of a sweep that was moved (copied off the machine, an artifact of CI): sweep.json names its runs by
 * the path they had, inside the sweep's directory SWEEP_WAS; when RD is not there, the same path under DIR. */
static const char *moved(const char *dir, const char *sweep_was, const char *rd, char *buf, size_t len)
{
	const char *leaf;
	char pat[PATH_MAX + 2];
	const char *at;

	if (!access(rd, F_OK) || !sweep_was || !*sweep_was)
		return rd;
	leaf = strrchr(sweep_was, '/') ? strrchr(sweep_was, '/') + 1 : sweep_was;
	snprintf(pat, sizeof(pat), "/%s/", leaf);
	if (!(at = strstr(rd, pat)))
		return rd;
	snprintf(buf, len, "%s/%s", dir, at + strlen(pat));
	return buf;
}

static json_object *read_sweep(const char *dir, char *err, size_t errlen)
{
	char moved_buf[PATH_MAX + 16];
	char p[PATH_MAX + 16];
	json_object *sw = NULL, *set = NULL, *conds, *out = json_object_new_array();
	json_object **sums = NULL;
	const char **dirs = NULL;

	snprintf(p, sizeof(p), "%s/%s", dir, jl_document_file(JL_DOC_SWEEP));
	if (!(sw = jl_document_read(JL_DOC_SWEEP, dir, err, errlen)))
		goto fail;
	conds = get(sw, "conditions");
	if (!gets(sw, "scenario") || !is_arr(conds)) {
		snprintf(err, errlen, "%s: no scenario or conditions: not a jitterlab sweep", p);
		goto fail;
	}
	set = set_new("sweep", gets(sw, "scenario"), dir);
	for (size_t c = 0; c < json_object_array_length(conds); c++) {
		json_object *co = json_object_array_get_idx(conds, c), *runs = get(co, "runs");
		size_t nr = alen(runs);
		int n = 0;

		sums = calloc(nr + 1, sizeof(*sums));
		dirs = calloc(nr + 1, sizeof(*dirs));
		if (!sums || !dirs) {
			snprintf(err, errlen, "out of memory");
			goto fail;
		}
		for (size_t r = 0; r < nr; r++) {
			json_object *ro = json_object_array_get_idx(runs, r), *u = get(ro, "usable");
			const char *rd = gets(ro, "dir");
			char sp[PATH_MAX + 16];

			if (!rd || !*rd || (u && !json_object_get_boolean(u)))
				continue; /* an interrupted or failed run: sweep.json says so; it is not a sample */
			rd = moved(dir, gets(sw, "dir"), rd, moved_buf, sizeof(moved_buf));
			snprintf(sp, sizeof(sp), "%s/summary.json", rd);
			if (!(sums[n] = jl_summary_read(rd, err, errlen)) || check_summary(sums[n], sp, NULL, err, errlen)) {
				size_t l = strlen(err);

				snprintf(err + l, errlen - l, " (a run of sweep %s)", dir);
				if (sums[n])
					json_object_put(sums[n]), sums[n] = NULL;
				goto fail;
			}
			dirs[n++] = strdup(rd);
			if (!get(set, "scenario_ini"))
				json_object_object_add(set, "scenario_ini", scenario_ini_of(rd));
			if (!get(set, "host"))
				json_object_object_add(set, "host", host_fingerprint(sums[0]));
		}
		json_object_array_add(out, condition_of(gets(co, "label") ? gets(co, "label") : "?", sums, dirs, n));
		for (int i = 0; i < n; i++)
			json_object_put(sums[i]), free((char *)dirs[i]);
		free(sums), free(dirs);
		sums = NULL, dirs = NULL;
	}
	if (!get(set, "host"))
		json_object_object_add(set, "host", NULL);
	if (!get(set, "scenario_ini"))
		json_object_object_add(set, "scenario_ini", NULL);
	json_object_object_add(set, "conditions", out);
	json_object_put(sw);
	return set;
fail:
	if (sums)
		for (size_t i = 0; sums[i]; i++)
			json_object_put(sums[i]), free((char *)dirs[i]);
	free(sums), free(dirs);
	json_object_put(sw), json_object_put(set), json_object_put(out);
	return NULL;
}

static void bad(char *err, size_t errlen, const char *file, const char *fmt, ...) __attribute__((format(printf, 4, 5)));
static void bad(char *err, size_t errlen, const char *file, const char *fmt, ...)
{
	va_list ap;
	int n = snprintf(err, errlen, "%s: corrupted baseline: ", file);

	va_start(ap, fmt);
	if (n >= 0 && (size_t)n < errlen)
		vsnprintf(err + n, errlen - (size_t)n, fmt, ap);
	va_end(ap);
}

/* A baseline.json is checked whole before it is used: a corrupted one is refused, never half read. */
#define BAD(fmt, ...) do { bad(err, errlen, file, fmt, ##__VA_ARGS__); return -1; } while (0)

/* Condition CO's runs: objects with a dir each, none twice. */
static int check_runs(json_object *co, json_object *runs, const char *file, char *err, size_t errlen)
{
	for (size_t r = 0; r < json_object_array_length(runs); r++) {
		json_object *ro = json_object_array_get_idx(runs, r);

		if (!ro || !json_object_is_type(ro, json_type_object) || !gets(ro, "dir"))
			BAD("condition '%s': run %zu is not an object with a dir", gets(co, "label"), r + 1);
		for (size_t k = 0; k < r; k++)
			if (!strcmp(gets(json_object_array_get_idx(runs, k), "dir"), gets(ro, "dir")))
				BAD("condition '%s': run %s is there twice", gets(co, "label"), gets(ro, "dir"));
	}
	return 0;
}

/* Condition CO's budget stages: a stage and budget_ns each, and p99_ns and max_ns with a finite number (or
 * null) per run of its NR. */
static int check_budgets(json_object *co, json_object *budget, size_t nr, const char *file, char *err, size_t errlen)
{
	static const char *const arrays[] = { "p99_ns", "max_ns" };

	if (budget && !is_arr(budget))
		BAD("condition '%s': budget is not an array", gets(co, "label"));
	for (size_t i = 0; i < alen(budget); i++) {
		json_object *st = json_object_array_get_idx(budget, i);

		if (!st || !json_object_is_type(st, json_type_object) || !gets(st, "stage") || !is_num(get(st, "budget_ns")))
			BAD("condition '%s': budget %zu has no stage or budget_ns", gets(co, "label"), i + 1);
		for (int a = 0; a < 2; a++) {
			json_object *v = get(st, arrays[a]);

			if (!is_arr(v) || json_object_array_length(v) != nr)
				BAD("budget %s of condition '%s': %s does not hold one value per run (%zu runs)", gets(st, "stage"),
				    gets(co, "label"), arrays[a], nr);
			for (size_t k = 0; k < nr; k++)
				if (json_object_array_get_idx(v, k) && !is_num(json_object_array_get_idx(v, k)))
					BAD("budget %s of condition '%s': run %zu's %s is not a finite number", gets(st, "stage"),
					    gets(co, "label"), k + 1, arrays[a]);
		}
	}
	return 0;
}

/* Condition CO's series: per series an object of metrics, each a finite number (or null) per run of NR. */
static int check_series(json_object *co, json_object *series, size_t nr, const char *file, char *err, size_t errlen)
{
	json_object_object_foreach(series, sn, mo)
	{
		if (!json_object_is_type(mo, json_type_object))
			BAD("series '%s' of condition '%s' is not an object", sn, gets(co, "label"));
		json_object_object_foreach(mo, mn, vals)
		{
			if (!jl_metric_get(mn))
				BAD("series '%s': '%s' is not a metric", sn, mn);
			if (!is_arr(vals) || json_object_array_length(vals) != nr)
				BAD("%s.%s of condition '%s' does not hold one value per run (%zu runs)", sn, mn, gets(co, "label"), nr);
			for (size_t i = 0; i < nr; i++) {
				json_object *v = json_object_array_get_idx(vals, i);

				if (v && !is_num(v))
					BAD("%s.%s of condition '%s': run %zu's value is not a finite number", sn, mn, gets(co, "label"), i + 1);
			}
		}
	}
	return 0;
}

static int check_baseline(json_object *b, const char *file, char *err, size_t errlen)
{
	json_object *conds = get(b, "conditions"), *fmt = get(b, "format");

	if (!gets(b, "tool") || strcmp(gets(b, "tool"), "jitterlab") || !gets(b, "kind") || strcmp(gets(b, "kind"), "baseline"))
		BAD("tool is not \"jitterlab\" or kind not \"baseline\"");
	if (!fmt || !json_object_is_type(fmt, json_type_int))
		BAD("no format number");
	if (json_object_get_int(fmt) != JL_BASELINE_FORMAT)
		BAD("format %d, this jitterlab reads format %d", json_object_get_int(fmt), JL_BASELINE_FORMAT);
	if (!gets(b, "scenario"))
		BAD("no scenario name");
	if (!conds || !json_object_is_type(conds, json_type_array) || !json_object_array_length(conds))
		BAD("no conditions");
	if (get(b, "host") && !json_object_is_type(get(b, "host"), json_type_object))
		BAD("host is not an object");
	for (size_t c = 0; c < json_object_array_length(conds); c++) {
		json_object *co = json_object_array_get_idx(conds, c), *runs = get(co, "runs"), *series = get(co, "series");
		json_object *load = get(co, "load");
		size_t nr;

		if (!gets(co, "label") || !is_arr(runs) || !series || !json_object_is_type(series, json_type_object))
			BAD("condition %zu has no label, runs or series", c + 1);
		nr = json_object_array_length(runs);
		if (check_runs(co, runs, file, err, errlen))
			return -1;
		if (load && !is_arr(load))
			BAD("condition '%s': load is not an array", gets(co, "label"));
		for (size_t i = 0; i < alen(load); i++)
			if (!json_object_is_type(json_object_array_get_idx(load, i), json_type_string))
				BAD("condition '%s': load %zu is not a string", gets(co, "label"), i + 1);
		if (check_budgets(co, get(co, "budget"), nr, file, err, errlen) ||
		    check_series(co, series, nr, file, err, errlen))
			return -1;
	}
	return 0;
}
#undef BAD

static json_object *read_baseline(const char *dir, char *err, size_t errlen)
{
	char p[PATH_MAX + 16];
	json_object *b;

	snprintf(p, sizeof(p), "%s/baseline.json", dir);
	if (!(b = read_json(p, err, errlen)))
		return NULL;
	if (check_baseline(b, p, err, errlen)) {
		json_object_put(b);
		return NULL;
	}
	json_object_object_add(b, "scenario_ini", scenario_ini_of(dir));
	return b;
}

static bool has(const char *dir, const char *file)
{
	char p[PATH_MAX + 16];

	snprintf(p, sizeof(p), "%s/%s", dir, file);
	return access(p, F_OK) == 0;
}

json_object *jl_runset_read(const char *path, char *err, size_t errlen)
{
	struct stat st;

	if (stat(path, &st) || !S_ISDIR(st.st_mode)) {
		snprintf(err, errlen, "%s: %s (expected a run, sweep or baseline directory)", path,
			 errno && stat(path, &st) ? strerror(errno) : "not a directory");
		return NULL;
	}
	if (has(path, jl_document_file(JL_DOC_BASELINE)))
		return read_baseline(path, err, errlen);
	if (has(path, jl_document_file(JL_DOC_SWEEP)))
		return read_sweep(path, err, errlen);
	if (has(path, jl_document_file(JL_DOC_RUN)))
		return read_run(path, err, errlen);
	snprintf(err, errlen, "%s: no baseline.json, sweep.json or summary.json (expected a run, sweep or baseline directory)", path);
	return NULL;
}

/* ---- a baseline from sets ---- */

/* Append condition FROM's runs and values to INTO (same label): series or metrics one side lacks get
 * nulls for the other side's runs. */
static void merge_condition(json_object *into, json_object *from)
{
	json_object *ri = get(into, "runs"), *rf = get(from, "runs"), *si = get(into, "series"), *sf = get(from, "series");
	size_t ni = json_object_array_length(ri), nf = json_object_array_length(rf);

	json_object_object_foreach(sf, sn, mf)
	{
		json_object *mi = get(si, sn);

		if (!mi) {
			mi = json_object_new_object();
			json_object_object_add(si, sn, mi);
		}
		json_object_object_foreach(mf, mn, vf)
		{
			json_object *vi = get(mi, mn);

			if (!vi) {
				vi = json_object_new_array();
				for (size_t i = 0; i < ni; i++)
					json_object_array_add(vi, NULL);
				json_object_object_add(mi, mn, vi);
			}
			for (size_t i = 0; i < nf; i++)
				json_object_array_add(vi, json_object_get(json_object_array_get_idx(vf, i)));
		}
	}
	/* what INTO has and FROM lacks: nulls for FROM's runs */
	json_object_object_foreach(si, sn2, mi2)
	{
		json_object_object_foreach(mi2, mn2, vi2)
		{
			(void)mn2, (void)sn2;
			while (json_object_array_length(vi2) < ni + nf)
				json_object_array_add(vi2, NULL);
		}
	}
	for (size_t i = 0; i < nf; i++)
		json_object_array_add(ri, json_object_get(json_object_array_get_idx(rf, i)));
	/* budgets: the stages of both, each with one value per run */
	{
		json_object *bi = get(into, "budget"), *bf = get(from, "budget");

		for (size_t k = 0; k < alen(bf); k++) {
			json_object *sf2 = json_object_array_get_idx(bf, k), *st = NULL;

			for (size_t j = 0; j < json_object_array_length(bi); j++)
				if (!strcmp(gets(json_object_array_get_idx(bi, j), "stage"), gets(sf2, "stage")))
					st = json_object_array_get_idx(bi, j);
			if (!st) {
				st = json_object_new_object();
				json_object_object_add(st, "stage", json_object_new_string(gets(sf2, "stage")));
				json_object_object_add(st, "budget_ns", json_object_get(get(sf2, "budget_ns")));
				json_object_object_add(st, "p99_ns", json_object_new_array());
				json_object_object_add(st, "max_ns", json_object_new_array());
				for (size_t i = 0; i < ni; i++)
					json_object_array_add(get(st, "p99_ns"), NULL), json_object_array_add(get(st, "max_ns"), NULL);
				json_object_array_add(bi, st);
			}
			for (size_t i = 0; i < nf; i++) {
				json_object_array_add(get(st, "p99_ns"), json_object_get(json_object_array_get_idx(get(sf2, "p99_ns"), i)));
				json_object_array_add(get(st, "max_ns"), json_object_get(json_object_array_get_idx(get(sf2, "max_ns"), i)));
			}
		}
		for (size_t j = 0; j < json_object_array_length(bi); j++) {
			json_object *st = json_object_array_get_idx(bi, j);

			while (json_object_array_length(get(st, "p99_ns")) < ni + nf)
				json_object_array_add(get(st, "p99_ns"), NULL), json_object_array_add(get(st, "max_ns"), NULL);
		}
	}
}

json_object *jl_baseline_build(json_object *const *sets, int n, const char *name, const char *created, char *err,
			       size_t errlen)
{
	json_object *b, *conds = json_object_new_array(), *src = json_object_new_array();
	const char *scen = gets(sets[0], "scenario");

	for (int i = 1; i < n; i++)
		if (strcmp(gets(sets[i], "scenario"), scen)) {
			snprintf(err, errlen, "%s is of scenario '%s', %s of '%s': a baseline holds runs of one scenario",
				 json_object_get_string(json_object_array_get_idx(get(sets[0], "sources"), 0)), scen,
				 json_object_get_string(json_object_array_get_idx(get(sets[i], "sources"), 0)), gets(sets[i], "scenario"));
			json_object_put(conds), json_object_put(src);
			return NULL;
		}
	/* one run counted twice would narrow every interval computed from the baseline */
	for (int i = 0; i < n; i++)
		for (size_t c = 0; c < alen(get(sets[i], "conditions")); c++) {
			json_object *runs = get(json_object_array_get_idx(get(sets[i], "conditions"), c), "runs");

			for (size_t r = 0; r < alen(runs); r++) {
				const char *d = gets(json_object_array_get_idx(runs, r), "dir");

				for (int j = 0; d && j <= i; j++)
					for (size_t c2 = 0; c2 < alen(get(sets[j], "conditions")); c2++) {
						json_object *r2 = get(json_object_array_get_idx(get(sets[j], "conditions"), c2), "runs");

						for (size_t k = 0; k < alen(r2); k++) {
							const char *d2 = gets(json_object_array_get_idx(r2, k), "dir");

							if ((j < i || c2 < c || (c2 == c && k < r)) && d2 && !strcmp(d, d2)) {
								snprintf(err, errlen, "run %s is given twice: a baseline counts each run once", d);
								json_object_put(conds), json_object_put(src);
								return NULL;
							}
						}
					}
			}
		}
	b = set_new("baseline", scen, "");
	json_object_object_add(b, "name", json_object_new_string(name));
	json_object_object_add(b, "created", json_object_new_string(created));
	for (int i = 0; i < n; i++) {
		json_object *cs = get(sets[i], "conditions"), *ss = get(sets[i], "sources");

		for (size_t k = 0; k < alen(ss); k++)
			json_object_array_add(src, json_object_get(json_object_array_get_idx(ss, k)));
		for (size_t c = 0; c < alen(cs); c++) {
			json_object *co = json_object_array_get_idx(cs, c), *into = NULL, *copy = NULL;

			for (size_t k = 0; k < json_object_array_length(conds); k++)
				if (!strcmp(gets(json_object_array_get_idx(conds, k), "label"), gets(co, "label")))
					into = json_object_array_get_idx(conds, k);
			if (into) {
				merge_condition(into, co);
				continue;
			}
			/* a copy: the sets stay as they were read */
			if (json_object_deep_copy(co, &copy, NULL) || !copy) {
				snprintf(err, errlen, "out of memory");
				json_object_put(conds), json_object_put(src), json_object_put(b);
				return NULL;
			}
			if (!is_arr(get(copy, "budget")))
				json_object_object_add(copy, "budget", json_object_new_array());
			if (!is_arr(get(copy, "load")))
				json_object_object_add(copy, "load", json_object_new_array());
			json_object_array_add(conds, copy);
		}
	}
	json_object_object_add(b, "sources", src);
	json_object_object_add(b, "host", get(sets[0], "host") ? json_object_get(get(sets[0], "host")) : NULL);
	json_object_object_add(b, "conditions", conds);
	return b;
}

/* ---- comparing ---- */

/* The numbers of VALS (nulls skipped) into V; their count. */
static int values(json_object *vals, double *v, int max)
{
	int n = 0;

	for (size_t i = 0; vals && i < json_object_array_length(vals) && n < max; i++) {
		json_object *x = json_object_array_get_idx(vals, i);

		if (is_num(x))
			v[n++] = json_object_get_double(x);
	}
	return n;
}

static const char *better_name(enum jl_metric_better b)
{
	return b == JL_BETTER_LOWER ? "lower" : b == JL_BETTER_HIGHER ? "higher" : "neither";
}

static const char *unit_name(enum jl_metric_unit u)
{
	return u == JL_UNIT_NS ? "ns" : u == JL_UNIT_HZ ? "Hz" : u == JL_UNIT_FRACTION ? "fraction" : "count";
}

struct change {
	int na, nb;
	struct jl_runstats a, b;
	struct jl_welch w;
	struct jl_ranksum rank;
	bool rank_ok;
	const char *verdict;
	json_object *va, *vb;   /* each run's value, each side (borrowed from the sets) */
};

static void change_of(json_object *va, json_object *vb, const struct jl_metric_desc *m, struct change *c)
{
	size_t la = va ? json_object_array_length(va) : 0, lb = vb ? json_object_array_length(vb) : 0;
	double *a = calloc(la + 1, sizeof(double)), *b = calloc(lb + 1, sizeof(double));
	double *scratch = calloc(jl_ranksum_scratch((int)la + 1, (int)lb + 1), sizeof(double));

	memset(c, 0, sizeof(*c));
	c->verdict = "no verdict";
	c->va = va;
	c->vb = vb;
	if (!a || !b || !scratch)
		goto out;
	c->na = values(va, a, (int)la);
	c->nb = values(vb, b, (int)lb);
	if (c->na)
		jl_runstats_compute(a, c->na, &c->a);
	if (c->nb)
		jl_runstats_compute(b, c->nb, &c->b);
	jl_welch_test(&c->a, &c->b, 0.95, &c->w);
	c->rank_ok = c->na && c->nb && !jl_ranksum_test(b, c->nb, a, c->na, scratch, &c->rank);
	if (c->na < JL_COMPARE_MIN_RUNS || c->nb < JL_COMPARE_MIN_RUNS)
		c->verdict = "no verdict";
	else if (!c->w.significant)
		c->verdict = "no measurable change";
	else if (m->better == JL_BETTER_NEITHER)
		c->verdict = "changed";
	else
		c->verdict = (c->w.diff > 0) == (m->better == JL_BETTER_LOWER) ? "regressed" : "improved";
out:
	free(a), free(b), free(scratch);
}

/* The change's words: "regressed: +412 us (+38%), 95% CI [+120 us, +704 us], p = 0.012 (Welch, 3 vs 3 runs)". */
static void change_text(const struct change *c, const struct jl_metric_desc *m, char *buf, size_t len)
{
	char d[48], lo[48], hi[48], rel[48] = "";

	jl_value_format(c->w.diff, m->unit, true, d, sizeof(d));
	if (c->a.mean != 0 && c->na)
		snprintf(rel, sizeof(rel), " (%+.1f%%)", 100 * c->w.diff / fabs(c->a.mean));
	if (!c->na || !c->nb) {
		snprintf(buf, len, "no verdict: no value on the %s side", c->na ? "new" : "baseline");
	} else if (c->na < JL_COMPARE_MIN_RUNS || c->nb < JL_COMPARE_MIN_RUNS) {
		snprintf(buf, len, "no verdict: %d vs %d run(s) (a verdict needs %d a side; one run's cycles are not "
				   "independent samples): the change is %s%s", c->na, c->nb, JL_COMPARE_MIN_RUNS, d, rel);
	} else {
		char p[32];

		if (c->w.p < 0.001)
			snprintf(p, sizeof(p), "p < 0.001");
		else
			snprintf(p, sizeof(p), "p = %.3f", c->w.p);
		snprintf(buf, len, "%s: %s%s, 95%% CI [%s, %s], %s (Welch, %d vs %d runs)", c->verdict, d, rel,
			 jl_value_format(c->w.ci_lo, m->unit, true, lo, sizeof(lo)),
			 jl_value_format(c->w.ci_hi, m->unit, true, hi, sizeof(hi)), p, c->na, c->nb);
	}
}

/* Each run's value of VALS (numbers; a run without one is left out, as from the means) */
static json_object *run_values(json_object *vals)
{
	json_object *o = json_object_new_array();

	for (size_t i = 0; vals && json_object_is_type(vals, json_type_array) && i < json_object_array_length(vals); i++)
		if (is_num(json_object_array_get_idx(vals, i)))
			json_object_array_add(o, jnum(json_object_get_double(json_object_array_get_idx(vals, i))));
	return o;
}

static json_object *change_json(const char *series, const struct jl_metric_desc *m, const struct change *c)
{
	json_object *o = json_object_new_object(), *ci = json_object_new_array(), *rk;
	char text[512];
	bool judged = c->na >= 2 && c->nb >= 2;

	json_object_object_add(o, "series", json_object_new_string(series));
	json_object_object_add(o, "metric", json_object_new_string(m->name));
	json_object_object_add(o, "unit", json_object_new_string(unit_name(m->unit)));
	json_object_object_add(o, "better", json_object_new_string(better_name(m->better)));
	json_object_object_add(o, "n_baseline", json_object_new_int(c->na));
	json_object_object_add(o, "n_new", json_object_new_int(c->nb));
	json_object_object_add(o, "values_baseline", run_values(c->va));
	json_object_object_add(o, "values_new", run_values(c->vb));
	json_object_object_add(o, "mean_baseline", c->na ? jnum(c->a.mean) : NULL);
	json_object_object_add(o, "mean_new", c->nb ? jnum(c->b.mean) : NULL);
	json_object_object_add(o, "sd_baseline", c->na > 1 ? jnum(c->a.sd) : NULL);
	json_object_object_add(o, "sd_new", c->nb > 1 ? jnum(c->b.sd) : NULL);
	json_object_object_add(o, "change", c->na && c->nb ? jnum(c->w.diff) : NULL);
	json_object_object_add(o, "change_relative", c->na && c->nb && c->a.mean != 0 ? jnum(c->w.diff / fabs(c->a.mean)) : NULL);
	json_object_array_add(ci, judged ? jnum(c->w.ci_lo) : NULL);
	json_object_array_add(ci, judged ? jnum(c->w.ci_hi) : NULL);
	json_object_object_add(o, "ci95", ci);
	json_object_object_add(o, "t", judged ? jnum(c->w.t) : NULL);
	json_object_object_add(o, "df", judged ? jnum(c->w.df) : NULL);
	json_object_object_add(o, "p", judged ? jnum(c->w.p) : NULL);
	rk = json_object_new_object();
	json_object_object_add(rk, "u", c->rank_ok ? jnum(c->rank.u) : NULL);
	json_object_object_add(rk, "p", c->rank_ok ? jnum(c->rank.p) : NULL);
	json_object_object_add(rk, "method", c->rank_ok ? json_object_new_string(c->rank.exact ? "exact" : "normal approximation") : NULL);
	json_object_object_add(o, "rank_test", rk);
	json_object_object_add(o, "verdict", json_object_new_string(c->verdict));
	change_text(c, m, text, sizeof(text));
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

static json_object *side_json(json_object *set, const char *path)
{
	json_object *o = json_object_new_object();
	json_object *conds = get(set, "conditions");
	int runs = 0;

	for (size_t c = 0; c < json_object_array_length(conds); c++)
		runs += (int)json_object_array_length(get(json_object_array_get_idx(conds, c), "runs"));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "kind", jstr(gets(set, "kind")));
	json_object_object_add(o, "name", get(set, "name") ? json_object_get(get(set, "name")) : NULL);
	json_object_object_add(o, "scenario", jstr(gets(set, "scenario")));
	json_object_object_add(o, "runs", json_object_new_int(runs));
	json_object_object_add(o, "host", get(set, "host") ? json_object_get(get(set, "host")) : NULL);
	return o;
}

static json_object *host_differences(json_object *ha, json_object *hb)
{
	json_object *arr = json_object_new_array();

	for (int i = 0; i < NFINGERPRINT; i++) {
		json_object *a = get(ha, fingerprint[i].key), *b = get(hb, fingerprint[i].key), *o;
		const char *sa = a ? json_object_get_string(a) : "(unknown)", *sb = b ? json_object_get_string(b) : "(unknown)";

		if (!strcmp(sa, sb))
			continue;
		o = json_object_new_object();
		json_object_object_add(o, "key", json_object_new_string(fingerprint[i].key));
		json_object_object_add(o, "baseline", a ? json_object_get(a) : NULL);
		json_object_object_add(o, "new", b ? json_object_get(b) : NULL);
		json_object_object_add(o, "doubtful", json_object_new_boolean(fingerprint[i].doubtful));
		json_object_object_add(o, "text", json_object_new_string(fingerprint[i].why));
		json_object_array_add(arr, o);
	}
	return arr;
}

static void gate_allowance_text(const struct jl_gate *g, const struct jl_metric_desc *m, char *buf, size_t len)
{
	char v[48];

	if (g->kind == JL_GATE_NO_WORSE)
		snprintf(buf, len, "no worse (%s is better)", better_name(m->better));
	else if (g->relative)
		snprintf(buf, len, "%s baseline %+.1f%%", g->kind == JL_GATE_LE ? "<=" : ">=", 100 * g->amount);
	else
		snprintf(buf, len, "%s baseline %s", g->kind == JL_GATE_LE ? "<=" : ">=", jl_value_format(g->amount, m->unit, true, v, sizeof(v)));
}

static json_object *gate_json(const struct jl_gate *g, const char *cond, const struct change *c, bool *failed)
{
	const struct jl_metric_desc *m = jl_metric_get(g->metric);
	json_object *o = json_object_new_object(), *ci = json_object_new_array();
	char allow[96], text[640], lo[48], hi[48], lim[48];
	const char *status;
	double limit = 0;

	gate_allowance_text(g, m, allow, sizeof(allow));
	if (c->na < JL_COMPARE_MIN_RUNS || c->nb < JL_COMPARE_MIN_RUNS) {
		status = "no verdict";
		snprintf(text, sizeof(text), "not judged: %d vs %d run(s), a gate needs %d a side (it fails: a gate that "
					     "cannot be checked does not pass)", c->na, c->nb, JL_COMPARE_MIN_RUNS);
	} else {
		bool fail;

		if (g->kind == JL_GATE_NO_WORSE) {
			fail = m->better == JL_BETTER_LOWER ? c->w.ci_lo > 0 : c->w.ci_hi < 0;
		} else {
			limit = g->relative ? g->amount * fabs(c->a.mean) : g->amount;
			fail = g->kind == JL_GATE_LE ? c->w.ci_lo > limit : c->w.ci_hi < limit;
		}
		status = fail ? "fail" : "pass";
		jl_value_format(c->w.ci_lo, m->unit, true, lo, sizeof(lo));
		jl_value_format(c->w.ci_hi, m->unit, true, hi, sizeof(hi));
		jl_value_format(limit, m->unit, true, lim, sizeof(lim));
		if (g->kind == JL_GATE_NO_WORSE)
			snprintf(text, sizeof(text), "%s: the change's 95%% CI [%s, %s] %s", fail ? "FAIL" : "pass", lo, hi,
				 fail ? "lies wholly on the worse side" : "reaches no-change or better");
		else
			snprintf(text, sizeof(text), "%s: the change's 95%% CI [%s, %s]; allowed %s %s%s", fail ? "FAIL" : "pass", lo,
				 hi, g->kind == JL_GATE_LE ? "up to" : "down to", lim,
				 fail ? (g->kind == JL_GATE_LE ? " (its lower bound is above it)" : " (its upper bound is below it)") : "");
	}
	*failed = strcmp(status, "pass") != 0;
	json_object_object_add(o, "label", json_object_new_string(g->label));
	json_object_object_add(o, "check", json_object_new_string(g->text));
	json_object_object_add(o, "series", json_object_new_string(g->thread));
	json_object_object_add(o, "metric", json_object_new_string(g->metric));
	json_object_object_add(o, "condition", json_object_new_string(cond));
	json_object_object_add(o, "allowance", json_object_new_string(allow));
	json_object_object_add(o, "limit", c->na >= JL_COMPARE_MIN_RUNS && c->nb >= JL_COMPARE_MIN_RUNS && g->kind != JL_GATE_NO_WORSE ? jnum(limit) : NULL);
	json_object_array_add(ci, c->na >= 2 && c->nb >= 2 ? jnum(c->w.ci_lo) : NULL);
	json_object_array_add(ci, c->na >= 2 && c->nb >= 2 ? jnum(c->w.ci_hi) : NULL);
	json_object_object_add(o, "ci95", ci);
	json_object_object_add(o, "n_baseline", json_object_new_int(c->na));
	json_object_object_add(o, "n_new", json_object_new_int(c->nb));
	json_object_object_add(o, "status", json_object_new_string(status));
	json_object_object_add(o, "text", json_object_new_string(text));
	return o;
}

/* The metric's values of SERIES in condition CO, or NULL. */
static json_object *metric_vals(json_object *co, const char *series, const char *metric)
{
	return get(get(get(co, "series"), series), metric);
}

static bool any_value(json_object *vals)
{
	for (size_t i = 0; vals && i < json_object_array_length(vals); i++)
		if (is_num(json_object_array_get_idx(vals, i)))
			return true;
	return false;
}

/* Which of BASE's conditions CA each of NEW's LABELS[0..N) is compared with: the only one of each side, or
 * the one of the same label. The number of pairs, or -1 with ERR when there is none. */
static int pair_conditions(json_object *ca, const char *const *labels, int n, int pairs[64][2], const char *base_path,
			   const char *new_path, char *err, size_t errlen)
{
	size_t nca = alen(ca);
	int np = 0;

	if (nca == 1 && n == 1) {
		pairs[0][0] = 0, pairs[0][1] = 0;
		return 1;
	}
	for (size_t i = 0; i < nca && np < 64; i++)
		for (int j = 0; j < n && np < 64; j++)
			if (!strcmp(gets(json_object_array_get_idx(ca, i), "label"), labels[j]))
				pairs[np][0] = (int)i, pairs[np][1] = j, np++;
	if (!np)
		snprintf(err, errlen, "%s and %s have no condition in common (conditions are matched by their label)", base_path,
			 new_path);
	return np ? np : -1;
}

/* Every gate's metric has a value in BASE's side of every pair. */
static int gates_measured(json_object *ca, int pairs[64][2], int np, const struct jl_gate *gates, int ngates,
			  const char *base_path, char *err, size_t errlen)
{
	for (int g = 0; g < ngates; g++)
		for (int p = 0; p < np; p++) {
			json_object *a = json_object_array_get_idx(ca, (size_t)pairs[p][0]);

			if (!any_value(metric_vals(a, gates[g].thread, gates[g].metric))) {
				snprintf(err, errlen, "[gate] %s: %s has no %s.%s (condition '%s'): a gate's metric must be measured "
						      "on both sides", gates[g].label, base_path, gates[g].thread, gates[g].metric,
					 gets(a, "label"));
				return -1;
			}
		}
	return 0;
}

int jl_compare_precheck(json_object *base, const char *base_path, const char *scenario, const char *const *labels,
			int nlabels, const struct jl_gate *gates, int ngates, char *err, size_t errlen)
{
	int pairs[64][2], np;

	if (strcmp(gets(base, "scenario"), scenario)) {
		snprintf(err, errlen, "%s is of scenario '%s', this one is '%s': a baseline of another scenario cannot judge it",
			 base_path, gets(base, "scenario"), scenario);
		return -1;
	}
	np = pair_conditions(get(base, "conditions"), labels, nlabels < 64 ? nlabels : 64, pairs, base_path, "this sweep",
			     err, errlen);
	return np < 0 ? -1 : gates_measured(get(base, "conditions"), pairs, np, gates, ngates, base_path, err, errlen);
}

/* Conditions A (baseline) and B (new), series by series, metric by metric: each change into MS, the counts
 * compared and differing, the series of one side only into ONLY_A and ONLY_B. */
static void compare_series(json_object *a, json_object *b, json_object *ms, json_object *only_a, json_object *only_b,
			   int *compared, int *differ)
{
	json_object_object_foreach(get(a, "series"), sn, mo)
	{
		if (!get(get(b, "series"), sn)) {
			json_object_array_add(only_a, json_object_new_string(sn));
			continue;
		}
		for (int m = 0; m < jl_nmetrics; m++) {
			json_object *va = get(mo, jl_metrics[m].name), *vb = metric_vals(b, sn, jl_metrics[m].name);
			struct change c;

			if (!any_value(va) || !any_value(vb))
				continue;
			change_of(va, vb, &jl_metrics[m], &c);
			json_object_array_add(ms, change_json(sn, &jl_metrics[m], &c));
			(*compared)++;
			*differ += strcmp(c.verdict, "no measurable change") && strcmp(c.verdict, "no verdict");
		}
	}
	json_object_object_foreach(get(b, "series"), sn2, mo2)
	{
		(void)mo2;
		if (!get(get(a, "series"), sn2))
			json_object_array_add(only_b, json_object_new_string(sn2));
	}
}

/* The budgets side by side: each of B's stages' p99 and max over runs against A's, into BU. */
static void compare_budgets(json_object *a, json_object *b, json_object *bu)
{
	for (size_t k = 0; get(b, "budget") && k < json_object_array_length(get(b, "budget")); k++) {
		json_object *sb = json_object_array_get_idx(get(b, "budget"), k), *sa = NULL, *o = json_object_new_object();
		struct change c99, cmax;
		static const struct jl_metric_desc ns = { .name = "budget", .unit = JL_UNIT_NS, .better = JL_BETTER_LOWER };

		for (size_t j = 0; get(a, "budget") && j < json_object_array_length(get(a, "budget")); j++)
			if (!strcmp(gets(json_object_array_get_idx(get(a, "budget"), j), "stage"), gets(sb, "stage")))
				sa = json_object_array_get_idx(get(a, "budget"), j);
		change_of(get(sa, "p99_ns"), get(sb, "p99_ns"), &ns, &c99);
		change_of(get(sa, "max_ns"), get(sb, "max_ns"), &ns, &cmax);
		json_object_object_add(o, "stage", json_object_new_string(gets(sb, "stage")));
		json_object_object_add(o, "budget_ns", get(sb, "budget_ns") ? json_object_get(get(sb, "budget_ns")) : NULL);
		json_object_object_add(o, "p99", change_json(gets(sb, "stage"), &ns, &c99));
		json_object_object_add(o, "max", change_json(gets(sb, "stage"), &ns, &cmax));
		json_object_array_add(bu, o);
	}
}

json_object *jl_compare_build(json_object *base, json_object *new, const char *base_path, const char *new_path,
			      const struct jl_gate *gates, int ngates, int *gates_failed, char *err, size_t errlen)
{
	json_object *ca = get(base, "conditions"), *cb = get(new, "conditions");
	json_object *root, *conds, *garr, *only_a, *only_b;
	size_t ncb = json_object_array_length(cb);
	int pairs[64][2], np = 0;
	const char *labels[64];

	*gates_failed = 0;
	if (strcmp(gets(base, "scenario"), gets(new, "scenario"))) {
		snprintf(err, errlen, "%s is of scenario '%s', %s of '%s': compare runs of one scenario (a baseline of "
				      "another scenario cannot judge this one)", base_path, gets(base, "scenario"), new_path,
			 gets(new, "scenario"));
		return NULL;
	}
	for (size_t j = 0; j < ncb && j < 64; j++)
		labels[j] = gets(json_object_array_get_idx(cb, j), "label");
	if ((np = pair_conditions(ca, labels, (int)(ncb < 64 ? ncb : 64), pairs, base_path, new_path, err, errlen)) < 0 ||
	    gates_measured(ca, pairs, np, gates, ngates, base_path, err, errlen))
		return NULL;
	/* NEW's side of every gate, before anything is judged */
	for (int g = 0; g < ngates; g++)
		for (int p = 0; p < np; p++) {
			json_object *b = json_object_array_get_idx(cb, (size_t)pairs[p][1]);

			if (!any_value(metric_vals(b, gates[g].thread, gates[g].metric))) {
				snprintf(err, errlen, "[gate] %s: %s has no %s.%s (condition '%s'): a gate's metric must be measured "
						      "on both sides", gates[g].label, new_path, gates[g].thread, gates[g].metric,
					 gets(b, "label"));
				return NULL;
			}
		}
	root = json_object_new_object();
	conds = json_object_new_array(), garr = json_object_new_array(), only_a = json_object_new_array();
	only_b = json_object_new_array();
	json_object_object_add(root, "tool", json_object_new_string("jitterlab"));
	json_object_object_add(root, "version", json_object_new_string(JL_VERSION));
	json_object_object_add(root, "kind", json_object_new_string("compare"));
	json_object_object_add(root, "scenario", json_object_new_string(gets(new, "scenario")));
	json_object_object_add(root, "baseline", side_json(base, base_path));
	json_object_object_add(root, "new", side_json(new, new_path));
	json_object_object_add(root, "confidence", json_object_new_double_s(0.95, "0.95"));
	json_object_object_add(root, "min_runs", json_object_new_int(JL_COMPARE_MIN_RUNS));
	json_object_object_add(root, "host_differences", host_differences(get(base, "host"), get(new, "host")));
	for (int p = 0; p < np; p++) {
		json_object *a = json_object_array_get_idx(ca, (size_t)pairs[p][0]), *b = json_object_array_get_idx(cb, (size_t)pairs[p][1]);
		json_object *co = json_object_new_object(), *ms = json_object_new_array(), *bu = json_object_new_array();
		int compared = 0, differ = 0;

		json_object_object_add(co, "baseline_label", json_object_new_string(gets(a, "label")));
		json_object_object_add(co, "new_label", json_object_new_string(gets(b, "label")));
		json_object_object_add(co, "runs_baseline", json_object_new_int((int)json_object_array_length(get(a, "runs"))));
		json_object_object_add(co, "runs_new", json_object_new_int((int)json_object_array_length(get(b, "runs"))));
		compare_series(a, b, ms, only_a, only_b, &compared, &differ);
		json_object_object_add(co, "metrics", ms);
		json_object_object_add(co, "compared", json_object_new_int(compared));
		json_object_object_add(co, "differ", json_object_new_int(differ));
		for (int g = 0; g < ngates; g++) {
			struct change c;
			bool failed;

			change_of(metric_vals(a, gates[g].thread, gates[g].metric), metric_vals(b, gates[g].thread, gates[g].metric),
				  jl_metric_get(gates[g].metric), &c);
			json_object_array_add(garr, gate_json(&gates[g], gets(b, "label"), &c, &failed));
			*gates_failed += failed;
		}
		compare_budgets(a, b, bu);
		json_object_object_add(co, "budget", bu);
		json_object_array_add(conds, co);
	}
	json_object_object_add(root, "conditions", conds);
	json_object_object_add(root, "only_in_baseline", only_a);
	json_object_object_add(root, "only_in_new", only_b);
	json_object_object_add(root, "gates", garr);
	json_object_object_add(root, "gates_failed", json_object_new_int(*gates_failed));
	return root;
}

/* ---- the table ---- */

static bool headline(const char *metric)
{
	static const char *const names[] = { "rate_hz", "latency.p50", "latency.p99", "latency.max", "period.p99",
					     "period.max", "misses", "work.mean", "response.p99", "e2e.p99",
					     "reaction.p99", "wait.p99", "client_latency.p99" };

	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(names[i], metric))
			return true;
	return false;
}

static bool gated(json_object *cmp, const char *series, const char *metric)
{
	json_object *g = get(cmp, "gates");

	for (size_t i = 0; g && i < json_object_array_length(g); i++) {
		json_object *o = json_object_array_get_idx(g, i);

		if (!strcmp(gets(o, "series"), series) && !strcmp(gets(o, "metric"), metric))
			return true;
	}
	return false;
}

static const char *fmtv(json_object *v, enum jl_metric_unit u, bool is_signed, char *buf, size_t len)
{
	if (!is_num(v))
		return "-";
	return jl_value_format(json_object_get_double(v), u, is_signed, buf, len);
}

static enum jl_metric_unit unit_of(const char *s)
{
	return !strcmp(s, "ns") ? JL_UNIT_NS : !strcmp(s, "Hz") ? JL_UNIT_HZ : !strcmp(s, "fraction") ? JL_UNIT_FRACTION : JL_UNIT_COUNT;
}

/* The hosts' differences, each a note or doubtful. */
static void print_host_differences(FILE *out, json_object *hd, bool md)
{
	for (size_t i = 0; hd && i < json_object_array_length(hd); i++) {
		json_object *d = json_object_array_get_idx(hd, i);
		bool doubtful = json_object_get_boolean(get(d, "doubtful"));

		json_object *va = get(d, "baseline"), *vb = get(d, "new");
		bool simple = (!va || !json_object_is_type(va, json_type_object)) && (!vb || !json_object_is_type(vb, json_type_object));

		if (simple)
			fprintf(out, md ? "- **%s**: %s (%s: `%s` vs `%s`)\n" : "  %s: %s (%s: %s vs %s)\n",
				doubtful ? "doubtful" : "note", gets(d, "text"), gets(d, "key"), va ? json_object_get_string(va) : "?",
				vb ? json_object_get_string(vb) : "?");
		else
			fprintf(out, md ? "- **%s**: %s (%s: the two in compare.json)\n" : "  %s: %s (%s: the two in compare.json)\n",
				doubtful ? "doubtful" : "note", gets(d, "text"), gets(d, "key"));
	}
}

/* One metric's row: the means, the change (and relative), its CI, the p-values, the verdict; left out, unless
 * ALL, when it is no headline, no gate's and shows no change. */
static void print_metric(FILE *out, json_object *cmp, json_object *m, bool md, bool all)
{
	json_object *ci = get(m, "ci95"), *rel = get(m, "change_relative");
	const char *s = gets(m, "series"), *mn = gets(m, "metric"), *v = gets(m, "verdict");
	enum jl_metric_unit u = unit_of(gets(m, "unit"));
	char a[48], b[48], d[48], lo[48], hi[48], ch[80], cis[120], p[24], pr[24], sm[160];

	if (!all && !headline(mn) && !gated(cmp, s, mn) && (!strcmp(v, "no measurable change") || !strcmp(v, "no verdict")))
		return;
	snprintf(ch, sizeof(ch), "%s", fmtv(get(m, "change"), u, true, d, sizeof(d)));
	if (is_num(rel))
		snprintf(ch + strlen(ch), sizeof(ch) - strlen(ch), fabs(json_object_get_double(rel)) < 0.1 ? " (%+.1f%%)" : " (%+.0f%%)",
			 100 * json_object_get_double(rel));
	if (is_num(json_object_array_get_idx(ci, 0)))
		snprintf(cis, sizeof(cis), "[%s, %s]", fmtv(json_object_array_get_idx(ci, 0), u, true, lo, sizeof(lo)),
			 fmtv(json_object_array_get_idx(ci, 1), u, true, hi, sizeof(hi)));
	else
		snprintf(cis, sizeof(cis), "-");
	if (is_num(get(m, "p")))
		snprintf(p, sizeof(p), json_object_get_double(get(m, "p")) < 0.001 ? "<0.001" : "%.3f",
			 json_object_get_double(get(m, "p")));
	else
		snprintf(p, sizeof(p), "-");
	if (is_num(get(get(m, "rank_test"), "p")))
		snprintf(pr, sizeof(pr), json_object_get_double(get(get(m, "rank_test"), "p")) < 0.001 ? "<0.001" : "%.3f",
			 json_object_get_double(get(get(m, "rank_test"), "p")));
	else
		snprintf(pr, sizeof(pr), "-");
	snprintf(sm, sizeof(sm), "%s.%s", s, mn);
	fmtv(get(m, "mean_baseline"), u, false, a, sizeof(a));
	fmtv(get(m, "mean_new"), u, false, b, sizeof(b));
	if (md)
		fprintf(out, "| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n", s, mn, a, b, ch, cis, p, pr, v);
	else
		fprintf(out, "  %-22s %12s %12s %22s %-30s %9s  %s\n", sm, a, b, ch, cis, p,
			!strcmp(v, "no verdict") ? "no verdict (fewer than 3 runs a side)" : v);
}

/* A condition's budget stages: the budget, p99 and max means on both sides, the p99's verdict. */
static void print_budget_means(FILE *out, json_object *co, bool md)
{
	for (size_t k = 0; get(co, "budget") && k < json_object_array_length(get(co, "budget")); k++) {
		json_object *b = json_object_array_get_idx(get(co, "budget"), k);
		char bud[48], x[48], y[48], x2[48], y2[48];

		if (!k)
			fprintf(out, md ? "\n| budget stage | budget | p99 baseline | p99 new | max baseline | max new | p99 change |\n|---|---|---|---|---|---|---|\n"
					: "  budgets (means over runs):\n    %-24s %10s %12s %12s %12s %12s  %s\n",
				"stage", "budget", "p99 base", "p99 new", "max base", "max new", "p99 change");
		fmtv(get(b, "budget_ns"), JL_UNIT_NS, false, bud, sizeof(bud));
		fmtv(get(get(b, "p99"), "mean_baseline"), JL_UNIT_NS, false, x, sizeof(x));
		fmtv(get(get(b, "p99"), "mean_new"), JL_UNIT_NS, false, y, sizeof(y));
		fmtv(get(get(b, "max"), "mean_baseline"), JL_UNIT_NS, false, x2, sizeof(x2));
		fmtv(get(get(b, "max"), "mean_new"), JL_UNIT_NS, false, y2, sizeof(y2));
		fprintf(out, md ? "| %s | %s | %s | %s | %s | %s | %s |\n" : "    %-24s %10s %12s %12s %12s %12s  %s\n",
			gets(b, "stage"), bud, x, y, x2, y2, gets(get(b, "p99"), "verdict"));
	}
}

/* The gates and how many failed. */
static void print_gates(FILE *out, json_object *cmp, bool md)
{
	json_object *gates = get(cmp, "gates");

	if (gates && json_object_array_length(gates)) {
		fprintf(out, md ? "\n## Gates\n\n| gate | check | condition | result |\n|---|---|---|---|\n" : "\ngates:\n");
		for (size_t i = 0; i < json_object_array_length(gates); i++) {
			json_object *g = json_object_array_get_idx(gates, i);

			fprintf(out, md ? "| %s | `%s` | %s | %s |\n" : "  %-12s %-40s [%s] %s\n", gets(g, "label"), gets(g, "check"),
				gets(g, "condition"), gets(g, "text"));
		}
		fprintf(out, md ? "\n%d gate(s) failed.\n" : "  %d gate(s) failed\n", json_object_get_int(get(cmp, "gates_failed")));
	}
}

void jl_compare_print(FILE *out, json_object *cmp, bool md, bool all)
{
	json_object *conds = get(cmp, "conditions"), *hd = get(cmp, "host_differences");
	json_object *ba = get(cmp, "baseline"), *nb = get(cmp, "new");

	if (md)
		fprintf(out, "# Compare: %s\n\n- baseline: `%s` (%s, %d runs)\n- new: `%s` (%s, %d runs)\n", gets(cmp, "scenario"),
			gets(ba, "path"), gets(ba, "kind"), json_object_get_int(get(ba, "runs")), gets(nb, "path"), gets(nb, "kind"),
			json_object_get_int(get(nb, "runs")));
	else
		fprintf(out, "compare %s: baseline %s (%s, %d runs) vs new %s (%s, %d runs)\n", gets(cmp, "scenario"), gets(ba, "path"),
			gets(ba, "kind"), json_object_get_int(get(ba, "runs")), gets(nb, "path"), gets(nb, "kind"),
			json_object_get_int(get(nb, "runs")));
	print_host_differences(out, hd, md);
	for (size_t c = 0; conds && c < json_object_array_length(conds); c++) {
		json_object *co = json_object_array_get_idx(conds, c), *ms = get(co, "metrics");

		if (md)
			fprintf(out, "\n## Condition %s (baseline %s)\n\n| series | metric | baseline | new | change | 95%% CI | p (Welch) | p (rank) | verdict |\n|---|---|---|---|---|---|---|---|---|\n",
				gets(co, "new_label"), gets(co, "baseline_label"));
		else
			fprintf(out, "\ncondition %s (baseline %s): means over runs, change = new - baseline\n  %-22s %12s %12s %22s %-30s %9s  %s\n",
				gets(co, "new_label"), gets(co, "baseline_label"), "series.metric", "baseline", "new", "change", "95% CI",
				"p", "verdict");
		for (size_t i = 0; ms && i < json_object_array_length(ms); i++)
			print_metric(out, cmp, json_object_array_get_idx(ms, i), md, all);
		fprintf(out, md ? "\n%d metric(s) compared, %d differ at p < 0.05: at 5%% each, about one in twenty differs "
				  "by chance alone. Gates name the ones that matter.\n"
				: "  %d metric(s) compared, %d differ at p < 0.05 (at 5%% each, about one in twenty by chance alone: "
				  "gates name the ones that matter)\n",
			json_object_get_int(get(co, "compared")), json_object_get_int(get(co, "differ")));
		print_budget_means(out, co, md);
	}
	if (json_object_array_length(get(cmp, "only_in_baseline")) || json_object_array_length(get(cmp, "only_in_new"))) {
		fprintf(out, md ? "\nSeries on one side only:" : "\n  series on one side only:");
		for (size_t i = 0; i < json_object_array_length(get(cmp, "only_in_baseline")); i++)
			fprintf(out, " %s (baseline)", json_object_get_string(json_object_array_get_idx(get(cmp, "only_in_baseline"), i)));
		for (size_t i = 0; i < json_object_array_length(get(cmp, "only_in_new")); i++)
			fprintf(out, " %s (new)", json_object_get_string(json_object_array_get_idx(get(cmp, "only_in_new"), i)));
		fprintf(out, "\n");
	}
	print_gates(out, cmp, md);
}

/* ---- the budget document ---- */

static void ci_text(json_object *vals, char *buf, size_t len)
{
	size_t l = vals ? json_object_array_length(vals) : 0;
	double *v = calloc(l + 1, sizeof(double));
	int n = v ? values(vals, v, (int)l) : 0;
	struct jl_runstats s;
	char m[48], h[48];

	if (!n) {
		snprintf(buf, len, "-");
	} else if (n == 1) {
		snprintf(buf, len, "%s", jl_value_format(v[0], JL_UNIT_NS, false, m, sizeof(m)));
	} else {
		struct jl_runstats zero = { 0 };
		struct jl_welch w;

		jl_runstats_compute(v, n, &s);
		/* the CI of the mean: Welch's against a constant side with the same runs count gives t(n-1) * sd/sqrt(n) */
		zero.n = n;
		jl_welch_test(&zero, &s, 0.95, &w);
		snprintf(buf, len, "%s ± %s (%d runs)", jl_value_format(s.mean, JL_UNIT_NS, false, m, sizeof(m)),
			 jl_value_format((w.ci_hi - w.ci_lo) / 2, JL_UNIT_NS, false, h, sizeof(h)), n);
	}
	free(v);
}

static double mean_of(json_object *vals, int *n)
{
	size_t l = vals ? json_object_array_length(vals) : 0;
	double *v = calloc(l + 1, sizeof(double)), sum = 0;

	*n = v ? values(vals, v, (int)l) : 0;
	for (int i = 0; i < *n; i++)
		sum += v[i];
	free(v);
	return *n ? sum / *n : NAN;
}

bool jl_budget_markdown(FILE *out, json_object *set)
{
	json_object *conds = get(set, "conditions"), *h = get(set, "host");
	bool any = false;

	for (size_t c = 0; conds && c < json_object_array_length(conds); c++)
		any |= get(json_object_array_get_idx(conds, c), "budget") &&
		       json_object_array_length(get(json_object_array_get_idx(conds, c), "budget")) > 0;
	if (!any)
		return false;
	fprintf(out, "# Latency budget: %s\n\nPer stage: its target, what was measured (p99 and max: one run's value, or "
		     "the mean over runs ± the half-width of its 95%% CI) and the margin left (target - mean p99; "
		     "negative: over budget).\n\n",
		gets(set, "scenario"));
	fprintf(out, "**Host**:");
	for (int i = 0; i < NFINGERPRINT; i++) {
		json_object *v = get(h, fingerprint[i].key);

		if (v)
			fprintf(out, " %s `%s`;", fingerprint[i].key, json_object_get_string(v));
	}
	fprintf(out, "\n");
	for (size_t c = 0; c < json_object_array_length(conds); c++) {
		json_object *co = json_object_array_get_idx(conds, c), *b = get(co, "budget"), *runs = get(co, "runs");
		json_object *d0 = get(json_object_array_get_idx(runs, 0), "duration_ns");
		char dur[48];

		if (!b || !json_object_array_length(b))
			continue;
		fprintf(out, "\n## Condition %s\n\n%zu run(s) of %s each. Load:", gets(co, "label"), json_object_array_length(runs),
			is_num(d0) ? jl_value_format(json_object_get_double(d0), JL_UNIT_NS, false, dur, sizeof(dur)) : "?");
		for (size_t i = 0; get(co, "load") && i < json_object_array_length(get(co, "load")); i++)
			fprintf(out, "%s %s", i ? ";" : "", json_object_get_string(json_object_array_get_idx(get(co, "load"), i)));
		fprintf(out, "%s\n\n| stage | target | p99 | max | margin | verdict |\n|---|---|---|---|---|---|\n",
			get(co, "load") && json_object_array_length(get(co, "load")) ? "" : " none (no unmeasured thread)");
		for (size_t k = 0; k < json_object_array_length(b); k++) {
			json_object *st = json_object_array_get_idx(b, k);
			char p99[96], mx[96], tgt[48], mg[48];
			double target = is_num(get(st, "budget_ns")) ? json_object_get_double(get(st, "budget_ns")) : NAN, mean;
			int n;

			ci_text(get(st, "p99_ns"), p99, sizeof(p99));
			ci_text(get(st, "max_ns"), mx, sizeof(mx));
			mean = mean_of(get(st, "p99_ns"), &n);
			fprintf(out, "| %s | %s | %s | %s | %s | %s |\n", gets(st, "stage"), jl_value_format(target, JL_UNIT_NS, false, tgt, sizeof(tgt)),
				p99, mx, n ? jl_value_format(target - mean, JL_UNIT_NS, true, mg, sizeof(mg)) : "-",
				!n ? "no value (the callback never ran)" : mean <= target ? "within" : "EXCEEDED");
		}
		fprintf(out, "\nRuns:\n");
		for (size_t r = 0; r < json_object_array_length(runs); r++)
			fprintf(out, "- `%s`\n", gets(json_object_array_get_idx(runs, r), "dir") ? gets(json_object_array_get_idx(runs, r), "dir") : "?");
	}
	return true;
}
