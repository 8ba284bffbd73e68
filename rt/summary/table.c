/* table: render summary.json as an aligned text table or markdown, or any table's document as JSON
 * (--json). Reads only the document. */
#include "table.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../base/metrics.h"
#include "summary.h"
#include "../base/units.h"

#define MAXCOLS 16

struct table {
	enum jl_table_style style;
	int ncols;
	json_object *cols[MAXCOLS];
};

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_string(v) : "";
}

static double num(json_object *o, const char *path)
{
	double v = 0;

	jl_json_get_double(o, path, &v);
	return v;
}

static void us(char *buf, size_t len, double ns)
{
	if (ns >= 1e9)
		snprintf(buf, len, "%.3f s", ns / 1e9);
	else if (ns >= 1e7)
		snprintf(buf, len, "%.1f ms", ns / 1e6);
	else
		snprintf(buf, len, "%.1f", ns / 1e3);
}

typedef void (*cell_fn)(json_object *t, char *buf, size_t len);

static void c_policy(json_object *t, char *b, size_t l)
{
	const char *p = str(t, "policy");

	if (jl_policy_from_name(p) != JL_POLICY_N)
		jl_policy_format(jl_policy_from_name(p), (int)num(t, "priority"), (int)num(t, "nice"), false, b, l);
	else
		snprintf(b, l, "%s", p);
}
static void c_cpus(json_object *t, char *b, size_t l)
{
	snprintf(b, l, "%s (ran on %s)", str(t, "cpus"), str(t, "cpus_used"));
}
static void c_cycles(json_object *t, char *b, size_t l)
{
	snprintf(b, l, "%lld", (long long)num(t, "cycles"));
}
static void c_rate(json_object *t, char *b, size_t l)
{
	snprintf(b, l, "%.2f / %.2f", num(t, "rate_hz"), num(t, "nominal_hz"));
}
#define LAT(name, path)                                             \
	static void name(json_object *t, char *b, size_t l)         \
	{                                                           \
		us(b, l, num(t, path));                             \
	}
LAT(c_lmin, "latency_ns.min")
LAT(c_lmean, "latency_ns.mean")
LAT(c_l50, "latency_ns.p50")
LAT(c_l90, "latency_ns.p90")
LAT(c_l99, "latency_ns.p99")
LAT(c_l999, "latency_ns.p999")
LAT(c_p99, "period_ns_stats.p99")
LAT(c_pmax, "period_ns_stats.max")
LAT(c_pstd, "period_ns_stats.stddev")
LAT(c_r99, "response_ns.p99")
LAT(c_rmax, "response_ns.max")
static void c_lmax(json_object *t, char *b, size_t l)
{
	char v[32];

	us(v, sizeof(v), num(t, "latency_ns.max"));
	snprintf(b, l, "%s @%lld", v, (long long)num(t, "latency_ns.max_cycle"));
}
static void c_miss(json_object *t, char *b, size_t l)
{
	long long owed = (long long)num(t, "not_started");

	snprintf(b, l, owed ? "%lld / %lld +%lld not started" : "%lld / %lld", (long long)num(t, "misses"),
		 (long long)num(t, "skipped"), owed);
}
static void c_work(json_object *t, char *b, size_t l)
{
	char m[32], x[32];

	us(m, sizeof(m), num(t, "work.mean_ns"));
	us(x, sizeof(x), num(t, "work.max_ns"));
	snprintf(b, l, "%s / %s", m, x);
}
static void c_cs(json_object *t, char *b, size_t l)
{
	snprintf(b, l, "%lld / %lld", (long long)num(t, "ctx_switches.involuntary"), (long long)num(t, "ctx_switches.voluntary"));
}

static const struct {
	const char *label;
	cell_fn fn;
} loop_rows[] = {
	{ "policy", c_policy },
	{ "cpus", c_cpus },
	{ "cycles", c_cycles },
	{ "rate Hz (achieved / nominal)", c_rate },
	{ "latency min (us)", c_lmin },
	{ "latency mean", c_lmean },
	{ "latency p50", c_l50 },
	{ "latency p90", c_l90 },
	{ "latency p99", c_l99 },
	{ "latency p99.9", c_l999 },
	{ "latency max @cycle", c_lmax },
	{ "period p99", c_p99 },
	{ "period max", c_pmax },
	{ "period stddev (jitter)", c_pstd },
	{ "response p99", c_r99 },
	{ "response max", c_rmax },
	{ "misses / skipped", c_miss },
	{ "work mean / max", c_work },
	{ "ctx switches invol / vol", c_cs },
};

static void print_row(FILE *out, const struct table *tb, const char *label, char cells[][96], int width)
{
	if (tb->style == JL_TABLE_MARKDOWN) {
		fprintf(out, "| %s |", label);
		for (int c = 0; c < tb->ncols; c++)
			fprintf(out, " %s |", cells[c]);
		fputc('\n', out);
		return;
	}
	fprintf(out, "  %-29s", label);
	for (int c = 0; c < tb->ncols; c++)
		fprintf(out, " %*s", width, cells[c]);
	fputc('\n', out);
}

static void print_loops(FILE *out, struct table *tb)
{
	char cells[MAXCOLS][96];
	int width = 14;

	for (int c = 0; c < tb->ncols; c++) {
		int w = (int)strlen(str(tb->cols[c], "name"));

		for (size_t r = 0; r < sizeof(loop_rows) / sizeof(loop_rows[0]); r++) {
			char b[96];

			loop_rows[r].fn(tb->cols[c], b, sizeof(b));
			if ((int)strlen(b) > w)
				w = (int)strlen(b);
		}
		if (w > width)
			width = w;
	}
	for (int c = 0; c < tb->ncols; c++)
		snprintf(cells[c], sizeof(cells[c]), "%s", str(tb->cols[c], "name"));
	print_row(out, tb, tb->style == JL_TABLE_MARKDOWN ? "loop" : "loop", cells, width);
	if (tb->style == JL_TABLE_MARKDOWN) {
		fprintf(out, "|---|");
		for (int c = 0; c < tb->ncols; c++)
			fprintf(out, "---:|");
		fputc('\n', out);
	}
	for (size_t r = 0; r < sizeof(loop_rows) / sizeof(loop_rows[0]); r++) {
		for (int c = 0; c < tb->ncols; c++)
			loop_rows[r].fn(tb->cols[c], cells[c], sizeof(cells[c]));
		print_row(out, tb, loop_rows[r].label, cells, width);
	}
}

static void print_neighbours(FILE *out, json_object *threads, enum jl_table_style style)
{
	bool any = false;

	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i);
		char pol[64], cpus[96], m[32], x[32], cpu[32];
		const char *kind = str(t, "kind");

		if (json_object_get_boolean(json_object_object_get(t, "measured")))
			continue;
		if (!any) {
			if (style == JL_TABLE_MARKDOWN)
				fprintf(out, "\n| neighbour | policy | cpus | does | work calls | work mean / max | CPU time | invol cs |\n"
					     "|---|---|---|---|---:|---:|---:|---:|\n");
			else
				fprintf(out, "\n  %-16s %-14s %-18s %-26s %10s %22s %10s %9s\n", "neighbour", "policy", "cpus", "does",
					"work calls", "work mean / max (us)", "CPU time", "invol cs");
			any = true;
		}
		c_policy(t, pol, sizeof(pol));
		c_cpus(t, cpus, sizeof(cpus));
		us(m, sizeof(m), num(t, "work.mean_ns"));
		us(x, sizeof(x), num(t, "work.max_ns"));
		snprintf(cpu, sizeof(cpu), "%.3f s", num(t, "cpu_time_ns") / 1e9);
		{
			char does[80], wm[80];

			snprintf(does, sizeof(does), "%s%.60s", !strcmp(kind, "exec") ? "exec " : "",
				 !strcmp(kind, "exec") ? str(t, "exec") : str(t, "work_kind"));
			snprintf(wm, sizeof(wm), "%s / %s", m, x);
			if (style == JL_TABLE_MARKDOWN)
				fprintf(out, "| %s | %s | %s | %s | %lld | %s | %s | %lld |\n", str(t, "name"), pol, cpus, does,
					(long long)num(t, "work.calls"), wm, cpu, (long long)num(t, "ctx_switches.involuntary"));
			else
				fprintf(out, "  %-16s %-14s %-18s %-26s %10lld %22s %10s %9lld\n", str(t, "name"), pol, cpus, does,
					(long long)num(t, "work.calls"), wm, !strcmp(kind, "exec") ? "-" : cpu,
					(long long)num(t, "ctx_switches.involuntary"));
		}
	}
}

static void print_expect(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *arr;

	if (!json_object_object_get_ex(summary, "expect", &arr) || !json_object_array_length(arr))
		return;
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\n### Expectations\n\n" : "\n  expectations:\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *v;
		bool ok = json_object_get_boolean(json_object_object_get(e, "ok"));
		char val[64] = "no value";

		v = json_object_object_get(e, "value");
		if (v) {
			int m = jl_metric_find(str(e, "metric"));

			if (m >= 0 && jl_metrics[m].unit == JL_UNIT_NS)
				jl_format_duration_human((int64_t)json_object_get_double(v), val, sizeof(val));
			else
				snprintf(val, sizeof(val), "%.6g", json_object_get_double(v));
		}
		fprintf(out, style == JL_TABLE_MARKDOWN ? "- **%s** %s: `%s` (%s, value %s)\n" : "    %-4s %s: %s (%s, value %s)\n",
			ok ? "ok" : "FAIL", str(e, "label"), str(e, "check"), str(e, "thread"), val);
	}
}

/* The [budget] table: stage, budget, measured p99, margin, verdict. */
static void print_budget(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *arr;

	if (!json_object_object_get_ex(summary, "budget", &arr) || !json_object_array_length(arr))
		return;
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\n### Budgets\n\n| stage | budget | p99 | margin | verdict |\n|---|---|---|---|---|\n"
					       : "\n  budgets:\n    %-24s %12s %12s %12s  verdict\n", "stage", "budget", "p99", "margin");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *b = json_object_array_get_idx(arr, i), *p = json_object_object_get(b, "p99_ns");
		char bud[32], p99[32] = "no value", mar[32] = "-";
		bool ok = json_object_get_boolean(json_object_object_get(b, "ok"));

		jl_format_duration_human(json_object_get_int64(json_object_object_get(b, "budget_ns")), bud, sizeof(bud));
		if (p) {
			int64_t m = json_object_get_int64(json_object_object_get(b, "margin_ns"));

			jl_format_duration_human(json_object_get_int64(p), p99, sizeof(p99));
			jl_format_duration_human(m < 0 ? -m : m, mar + 1, sizeof(mar) - 1);
			mar[0] = m < 0 ? '-' : '+';
		}
		fprintf(out, style == JL_TABLE_MARKDOWN ? "| %s | %s | %s | %s | %s |\n" : "    %-24s %12s %12s %12s  %s\n",
			str(b, "stage"), bud, p99, mar, ok ? "ok" : "EXCEEDED");
	}
}

/* "RT bandwidth 950000 of 1000000 us, RT group scheduling on, fair server ...; steal CPU 1 3.2 ms" (steal and
 * SMIs named only where non-zero); nothing when the summary has no rt_bandwidth (an older run). */
static void print_host_rt(FILE *out, json_object *host)
{
	json_object *rb, *fs, *st, *smi, *v;
	bool first = true;

	if (!json_object_object_get_ex(host, "rt_bandwidth", &rb) || !rb)
		return;
	if (json_object_object_get_ex(rb, "runtime_us", &v) && json_object_get_int64(v) < 0)
		fprintf(out, "RT bandwidth unlimited");
	else
		fprintf(out, "RT bandwidth %s of %s us", str(rb, "runtime_us"), str(rb, "period_us"));
	if (json_object_object_get_ex(rb, "group_sched", &v) && v)
		fprintf(out, ", RT group scheduling %s", json_object_get_boolean(v) ? "on" : "off");
	if (json_object_object_get_ex(host, "fair_server", &fs) && fs) {
		if (json_object_get_boolean(json_object_object_get(fs, "readable"))) {
			json_object_object_foreach(json_object_object_get(fs, "cpus"), cpu, one) {
				fprintf(out, ", fair server %.1f ms / %.1f s (CPU %s)", num(one, "runtime_ns") / 1e6,
					num(one, "period_ns") / 1e9, cpu);
				break;
			}
		} else {
			fprintf(out, ", fair server (%s)", str(fs, "note"));
		}
	}
	if (json_object_object_get_ex(host, "steal_ns", &st) && st) {
		json_object_object_foreach(st, cpu, ns) {
			char buf[32];

			if (json_object_get_int64(ns) <= 0)
				continue;
			us(buf, sizeof(buf), (double)json_object_get_int64(ns));
			fprintf(out, "%s CPU %s %s", first ? "; steal" : ",", cpu, buf);
			first = false;
		}
	}
	first = true;
	if (json_object_object_get_ex(host, "smi", &smi) && smi) {
		json_object_object_foreach(smi, cpu, n) {
			if (json_object_get_int64(n) <= 0)
				continue;
			fprintf(out, "%s CPU %s %lld", first ? "; SMIs" : ",", cpu, (long long)json_object_get_int64(n));
			first = false;
		}
	}
	fprintf(out, "\n");
}

void jl_table_print(FILE *out, json_object *summary, enum jl_table_style style)
{
	struct table tb = { .style = style };
	json_object *threads, *host;
	size_t n;

	if (!json_object_object_get_ex(summary, "threads", &threads))
		return;
	json_object_object_get_ex(summary, "host", &host);
	if (style == JL_TABLE_MARKDOWN)
		fprintf(out, "# jitterlab run: %s\n\n", str(summary, "scenario"));
	fprintf(out, style == JL_TABLE_MARKDOWN ? "%s %s, started %s, %.3f s measured after %.3f s warm-up%s\n"
						: "%s %s · %s · %.3f s measured after %.3f s warm-up%s\n",
		str(summary, "tool"), str(summary, "version"), str(summary, "started"), num(summary, "duration_ns") / 1e9,
		num(summary, "warmup_ns") / 1e9,
		json_object_get_boolean(json_object_object_get(summary, "interrupted")) ? " · INTERRUPTED" : "");
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\nhost: Linux %s, preempt %s, CPUs %s (isolated: %s), %s, clocksource %s\n"
						: "host: Linux %s, preempt %s, CPUs %s (isolated: %s), %s, clocksource %s\n",
		str(host, "kernel"), str(host, "preempt"), str(host, "cpus_online"),
		str(host, "isolated")[0] ? str(host, "isolated") : "none",
		json_object_get_boolean(json_object_object_get(host, "virtualized")) ? "virtual machine" : "bare metal",
		str(host, "clocksource"));
	if (style == JL_TABLE_MARKDOWN && json_object_object_get_ex(host, "rt_bandwidth", NULL))
		fprintf(out, "\n");
	print_host_rt(out, host);
	fprintf(out, "\n");
	n = json_object_array_length(threads);
	for (size_t i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(threads, i);

		if (!json_object_get_boolean(json_object_object_get(t, "measured")))
			continue;
		tb.cols[tb.ncols++] = t;
		if (tb.ncols == MAXCOLS) {
			print_loops(out, &tb);
			tb.ncols = 0;
		}
	}
	if (tb.ncols)
		print_loops(out, &tb);
	print_neighbours(out, threads, style);
	print_expect(out, summary, style);
	print_budget(out, summary, style);
}

void jl_json_print(FILE *out, json_object *doc)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
									   JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(out);
}
