/* table: render summary.json as an aligned text table or markdown, or any table's document as JSON
 * (--json). Reads only the document: the loops, the neighbours, then the executor layer (executors'
 * pool threads, subscribers' messages, syncs, chains), each section only where the summary has it, then
 * [expect] and [budget]. */
#include "table.h"

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

#include "../base/metrics.h"
#include "../base/summary_keys.h"
#include "summary.h"
#include "../base/units.h"

#define MAXCOLS 16

struct table {
	enum jl_table_style style;
	int ncols;
	json_object *cols[MAXCOLS];
};

/* O's member at PATH ("a.b.c"), or NULL (absent, or JSON null). */
static json_object *at(json_object *o, const char *path)
{
	char buf[128], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", path);
	for (char *k = strtok_r(buf, ".", &save); k && o; k = strtok_r(NULL, ".", &save))
		if (!json_object_object_get_ex(o, k, &o))
			o = NULL;
	return o;
}

static const char *str(json_object *o, const char *path)
{
	json_object *v = at(o, path);

	return v ? json_object_get_string(v) : "";
}

/* The length of O's array at KEY; 0 when there is none. */
static size_t alen(json_object *o, const char *key)
{
	json_object *a = at(o, key);

	return json_object_is_type(a, json_type_array) ? json_object_array_length(a) : 0;
}

/* Element K of O's array at KEY as a string ("" when it is none). */
static const char *elem(json_object *o, const char *key, size_t k)
{
	const char *s = json_object_get_string(json_object_array_get_idx(at(o, key), k));

	return s ? s : "";
}

static double num(json_object *o, const char *path)
{
	double v = 0;

	jl_json_get_double(o, path, &v);
	return v;
}

/* One unit for a column of times (every cell of it in that unit, and the header names it): us below
 * 10 ms, ms below 10 s, s from there, chosen by the column's largest value. */
struct unit {
	double div;
	const char *name;
	int prec;
};

static struct unit unit_for(double max_ns)
{
	if (max_ns >= 1e10)
		return (struct unit){ 1e9, "s", 3 };
	if (max_ns >= 1e7)
		return (struct unit){ 1e6, "ms", 2 };
	return (struct unit){ 1e3, "us", 1 };
}

/* The larger of M and O's value at PATH (an absent one counts 0). */
static double max_at(double m, json_object *o, const char *path)
{
	double v = num(o, path);

	return v > m ? v : m;
}

/* NS in unit U, the number alone. */
static void in_unit(char *buf, size_t len, double ns, struct unit u)
{
	snprintf(buf, len, "%.*f", u.prec, ns / u.div);
}

/* "X / Y", both in U. */
static void unit_pair(char *buf, size_t len, double x, double y, struct unit u)
{
	char a[32], b[32];

	in_unit(a, sizeof(a), x, u);
	in_unit(b, sizeof(b), y, u);
	snprintf(buf, len, "%s / %s", a, b);
}

/* A distribution cell: O's {mean, p99, max} at PATH as "mean / p99 / max" in U; "-" when absent. */
static void dist_cell(char *buf, size_t len, json_object *o, const char *path, struct unit u)
{
	json_object *d = at(o, path);
	char m[32], pair[64];

	if (!d) {
		snprintf(buf, len, "-");
		return;
	}
	in_unit(m, sizeof(m), num(d, JL_K(mean)), u);
	unit_pair(pair, sizeof(pair), num(d, JL_K(p99)), num(d, JL_K(max)), u);
	snprintf(buf, len, "%s / %s", m, pair);
}

/* "LABEL (UNIT)" into BUF ("latency max (us) @cycle": before what follows an '@'). */
static const char *with_unit(char *buf, size_t len, const char *label, struct unit u)
{
	const char *at_ = strstr(label, " @");

	if (at_)
		snprintf(buf, len, "%.*s (%s)%s", (int)(at_ - label), label, u.name, at_);
	else
		snprintf(buf, len, "%s (%s)", label, u.name);
	return buf;
}

/* A fraction as a percentage: "26.6%". */
static void pct(char *buf, size_t len, double frac)
{
	snprintf(buf, len, "%.1f%%", frac * 100);
}

/* A cell of series T, its times in U (a row without times ignores U). */
typedef void (*cell_fn)(json_object *t, struct unit u, char *buf, size_t len);

static void c_policy(json_object *t, struct unit u, char *b, size_t l)
{
	const char *p = str(t, JL_K(policy));

	(void)u;
	if (jl_policy_from_name(p) != JL_POLICY_N)
		jl_policy_format(jl_policy_from_name(p), (int)num(t, JL_K(priority)), (int)num(t, JL_K(nice)), false, b, l);
	else
		snprintf(b, l, "%s", p);
}
static void c_cpus(json_object *t, struct unit u, char *b, size_t l)
{
	(void)u;
	snprintf(b, l, "%s (ran on %s)", str(t, JL_K(cpus)), str(t, JL_K(cpus_used)));
}
static void c_rate(json_object *t, struct unit u, char *b, size_t l)
{
	(void)u;
	snprintf(b, l, "%.2f / %.2f", num(t, JL_K(rate_hz)), num(t, JL_K(nominal_hz)));
}
#define LAT(name, path)                                                   \
	static void name(json_object *t, struct unit u, char *b, size_t l) \
	{                                                                 \
		in_unit(b, l, num(t, path), u);                           \
	}
LAT(c_lmin, JL_K2(latency_ns, min))
LAT(c_lmean, JL_K2(latency_ns, mean))
LAT(c_l50, JL_K2(latency_ns, p50))
LAT(c_l90, JL_K2(latency_ns, p90))
LAT(c_l99, JL_K2(latency_ns, p99))
LAT(c_l999, JL_K2(latency_ns, p999))
LAT(c_p99, JL_K2(period_ns_stats, p99))
LAT(c_pmax, JL_K2(period_ns_stats, max))
LAT(c_pstd, JL_K2(period_ns_stats, stddev))
LAT(c_r99, JL_K2(response_ns, p99))
LAT(c_rmax, JL_K2(response_ns, max))
#define COUNT(name, path)                                                 \
	static void name(json_object *t, struct unit u, char *b, size_t l) \
	{                                                                 \
		(void)u;                                                  \
		snprintf(b, l, "%lld", (long long)num(t, path));          \
	}
COUNT(c_cycles, JL_K(cycles))
COUNT(c_published, JL_K2(messages, published))
COUNT(c_consumed, JL_K2(messages, consumed))
COUNT(c_dropped, JL_K2(messages, dropped))
COUNT(c_rereads, JL_K2(messages, rereads))
COUNT(c_never, JL_K2(messages, never_consumed))
COUNT(c_limit, JL_K2(messages, limit_errors))
#define TEXT(name, path)                                                  \
	static void name(json_object *t, struct unit u, char *b, size_t l) \
	{                                                                 \
		(void)u;                                                  \
		snprintf(b, l, "%s", at(t, path) ? str(t, path) : "-");   \
	}
TEXT(c_topic, JL_K2(messages, topic))
TEXT(c_mode, JL_K2(messages, mode))
#define DIST(name, path)                                                  \
	static void name(json_object *t, struct unit u, char *b, size_t l) \
	{                                                                 \
		dist_cell(b, l, t, path, u);                              \
	}
DIST(c_age, JL_K(age_ns))
DIST(c_e2e, JL_K(e2e_ns))
static void c_lmax(json_object *t, struct unit u, char *b, size_t l)
{
	char v[32];

	in_unit(v, sizeof(v), num(t, JL_K2(latency_ns, max)), u);
	snprintf(b, l, "%s @%lld", v, (long long)num(t, JL_K2(latency_ns, max_cycle)));
}
static void c_miss(json_object *t, struct unit u, char *b, size_t l)
{
	long long owed = (long long)num(t, JL_K(not_started));

	(void)u;
	snprintf(b, l, owed ? "%lld / %lld +%lld not started" : "%lld / %lld", (long long)num(t, JL_K(misses)),
		 (long long)num(t, JL_K(skipped)), owed);
}
static void c_work(json_object *t, struct unit u, char *b, size_t l)
{
	unit_pair(b, l, num(t, JL_K2(work, mean_ns)), num(t, JL_K2(work, max_ns)), u);
}
static void c_cs(json_object *t, struct unit u, char *b, size_t l)
{
	(void)u;
	snprintf(b, l, "%lld / %lld", (long long)num(t, JL_K2(ctx_switches, involuntary)), (long long)num(t, JL_K2(ctx_switches, voluntary)));
}

static void c_fraction(json_object *t, struct unit u, char *b, size_t l)
{
	(void)u;
	snprintf(b, l, at(t, JL_K2(messages, consumed_fraction)) ? "%.3f" : "-", num(t, JL_K2(messages, consumed_fraction)));
}
/* A poller's model (poll_model): the publisher and both periods, then measured beside expected. */
static void c_poll_periods(json_object *t, struct unit u, char *b, size_t l)
{
	char p[80];

	unit_pair(p, sizeof(p), num(t, JL_K2(poll_model, publisher_period_ns)), num(t, JL_K2(poll_model, poll_period_ns)), u);
	snprintf(b, l, at(t, JL_K(poll_model)) ? "%.40s, %s" : "-", str(t, JL_K2(poll_model, publisher)), p);
}
/* Measured / expected, and with harmonic periods the age the locked phase gives: "15.00 / 7.50,
 * phase-locked 15.00". */
static void c_poll_age(json_object *t, struct unit u, char *b, size_t l)
{
	char e[32];
	int o;

	if (!at(t, JL_K(poll_model))) {
		snprintf(b, l, "-");
		return;
	}
	unit_pair(b, l, num(t, JL_K3(poll_model, added_age_ns, measured)), num(t, JL_K3(poll_model, added_age_ns, expected)), u);
	o = (int)strlen(b);
	if (at(t, JL_K3(poll_model, added_age_ns, expected_phase_locked)) && (size_t)o < l) {
		in_unit(e, sizeof(e), num(t, JL_K3(poll_model, added_age_ns, expected_phase_locked)), u);
		snprintf(b + o, l - (size_t)o, ", phase-locked %s", e);
	}
}
static void c_poll_fraction(json_object *t, struct unit u, char *b, size_t l)
{
	(void)u;
	snprintf(b, l, at(t, JL_K(poll_model)) ? "%.3f / %.3f" : "-", num(t, JL_K3(poll_model, consumed_fraction, measured)),
		 num(t, JL_K3(poll_model, consumed_fraction, expected)));
}

/* One row of a table with one column per series: its label, its cells, the member (path) a row needs (a
 * row no column has is left out; NULL: always printed), and where its cells are times, the members whose
 * largest value over the columns picks the row's unit (the label then names it). */
struct col_row {
	const char *label;
	cell_fn fn;
	const char *need;
	const char *times[3];
};

static const struct col_row loop_rows[] = {
	{ "policy", c_policy, NULL, { NULL } },
	{ "cpus", c_cpus, NULL, { NULL } },
	{ "cycles", c_cycles, NULL, { NULL } },
	{ "rate Hz (achieved / nominal)", c_rate, NULL, { NULL } },
	{ "latency min", c_lmin, NULL, { JL_K2(latency_ns, min) } },
	{ "latency mean", c_lmean, NULL, { JL_K2(latency_ns, mean) } },
	{ "latency p50", c_l50, NULL, { JL_K2(latency_ns, p50) } },
	{ "latency p90", c_l90, NULL, { JL_K2(latency_ns, p90) } },
	{ "latency p99", c_l99, NULL, { JL_K2(latency_ns, p99) } },
	{ "latency p99.9", c_l999, NULL, { JL_K2(latency_ns, p999) } },
	{ "latency max @cycle", c_lmax, NULL, { JL_K2(latency_ns, max) } },
	{ "period p99", c_p99, NULL, { JL_K2(period_ns_stats, p99) } },
	{ "period max", c_pmax, NULL, { JL_K2(period_ns_stats, max) } },
	{ "period stddev, jitter", c_pstd, NULL, { JL_K2(period_ns_stats, stddev) } },
	{ "response p99", c_r99, NULL, { JL_K2(response_ns, p99) } },
	{ "response max", c_rmax, NULL, { JL_K2(response_ns, max) } },
	{ "misses / skipped", c_miss, NULL, { NULL } },
	{ "work mean / max", c_work, NULL, { JL_K2(work, mean_ns), JL_K2(work, max_ns) } },
	{ "ctx switches invol / vol", c_cs, NULL, { NULL } },
};

/* The subscribers' messages: counts, then the data's age, then a poller's model beside its measurement. */
static const struct col_row message_rows[] = {
	{ "topic", c_topic, JL_K2(messages, topic), { NULL } },
	{ "mode", c_mode, JL_K2(messages, mode), { NULL } },
	{ "published", c_published, NULL, { NULL } },
	{ "consumed", c_consumed, NULL, { NULL } },
	{ "dropped", c_dropped, NULL, { NULL } },
	{ "rereads", c_rereads, NULL, { NULL } },
	{ "never consumed", c_never, NULL, { NULL } },
	{ "limit errors", c_limit, NULL, { NULL } },
	{ "consumed fraction", c_fraction, JL_K2(messages, consumed_fraction), { NULL } },
	{ "age mean / p99 / max", c_age, JL_K(age_ns), { JL_K2(age_ns, max) } },
	{ "e2e mean / p99 / max", c_e2e, JL_K(e2e_ns), { JL_K2(e2e_ns, max) } },
	{ "polls publisher, Tp / Tq", c_poll_periods, JL_K(poll_model),
	  { JL_K2(poll_model, publisher_period_ns), JL_K2(poll_model, poll_period_ns) } },
	{ "added age measured / expected", c_poll_age, JL_K(poll_model),
	  { JL_K3(poll_model, added_age_ns, measured), JL_K3(poll_model, added_age_ns, expected),
	    JL_K3(poll_model, added_age_ns, expected_phase_locked) } },
	{ "consumed measured / expected", c_poll_fraction, JL_K(poll_model), { NULL } },
};

static void print_row(FILE *out, const struct table *tb, const char *label, int lw, char cells[][96], int width)
{
	if (tb->style == JL_TABLE_MARKDOWN) {
		fprintf(out, "| %s |", label);
		for (int c = 0; c < tb->ncols; c++)
			fprintf(out, " %s |", cells[c]);
		fputc('\n', out);
		return;
	}
	fprintf(out, "  %-*s", lw, label);
	for (int c = 0; c < tb->ncols; c++)
		fprintf(out, " %*s", width, cells[c]);
	fputc('\n', out);
}

static bool row_shown(const struct table *tb, const struct col_row *row)
{
	for (int c = 0; c < tb->ncols && row->need; c++)
		if (at(tb->cols[c], row->need))
			return true;
	return !row->need;
}

/* ROW's unit over TB's columns, and its label with the unit named when its cells are times. */
static struct unit row_unit(const struct table *tb, const struct col_row *row, char *label, size_t len)
{
	double m = 0;
	struct unit u;

	for (int c = 0; c < tb->ncols; c++)
		for (int k = 0; k < 3 && row->times[k]; k++)
			m = max_at(m, tb->cols[c], row->times[k]);
	u = unit_for(m);
	if (row->times[0])
		with_unit(label, len, row->label, u);
	else
		snprintf(label, len, "%s", row->label);
	return u;
}

/* TB's columns (series) under HEAD, one row per entry of ROWS that some column has. */
static void print_columns(FILE *out, const struct table *tb, const char *head, const struct col_row *rows, size_t nrows)
{
	char cells[MAXCOLS][96], label[96];
	int width = 14, lw = 29;

	for (size_t r = 0; r < nrows; r++) {
		struct unit u = row_unit(tb, &rows[r], label, sizeof(label));

		if (!row_shown(tb, &rows[r]))
			continue;
		if ((int)strlen(label) > lw)
			lw = (int)strlen(label);
		for (int c = 0; c < tb->ncols; c++) {
			char b[96];

			rows[r].fn(tb->cols[c], u, b, sizeof(b));
			if ((int)strlen(b) > width)
				width = (int)strlen(b);
		}
	}
	for (int c = 0; c < tb->ncols; c++) {
		snprintf(cells[c], sizeof(cells[c]), "%s", str(tb->cols[c], JL_K(name)));
		if ((int)strlen(cells[c]) > width)
			width = (int)strlen(cells[c]);
	}
	print_row(out, tb, head, lw, cells, width);
	if (tb->style == JL_TABLE_MARKDOWN) {
		fprintf(out, "|---|");
		for (int c = 0; c < tb->ncols; c++)
			fprintf(out, "---:|");
		fputc('\n', out);
	}
	for (size_t r = 0; r < nrows; r++) {
		struct unit u = row_unit(tb, &rows[r], label, sizeof(label));

		if (!row_shown(tb, &rows[r]))
			continue;
		for (int c = 0; c < tb->ncols; c++)
			rows[r].fn(tb->cols[c], u, cells[c], sizeof(cells[c]));
		print_row(out, tb, label, lw, cells, width);
	}
}

/* The series of THREADS that PICK takes, as columns of at most MAXCOLS, TITLE (may be NULL) before the
 * first: nothing at all when PICK takes none. */
static void print_series(FILE *out, json_object *threads, enum jl_table_style style, bool (*pick)(json_object *t),
			 const char *title, const char *head, const struct col_row *rows, size_t nrows)
{
	struct table tb = { .style = style };
	size_t n = json_object_array_length(threads), i = 0;

	for (bool first = true;; first = false) {
		for (tb.ncols = 0; i < n && tb.ncols < MAXCOLS; i++)
			if (pick(json_object_array_get_idx(threads, i)))
				tb.cols[tb.ncols++] = json_object_array_get_idx(threads, i);
		if (!tb.ncols)
			return;
		if (first && title)
			fputs(title, out);
		print_columns(out, &tb, head, rows, nrows);
	}
}

static bool is_measured(json_object *t)
{
	return json_object_get_boolean(json_object_object_get(t, JL_K(measured)));
}

static bool has_messages(json_object *t)
{
	return at(t, JL_K(messages)) != NULL;
}

/* How each trace-only series' (measure = wakeups) cycles were released, a line each: from its timer's
 * requested expiry (what cyclictest measures from), or from the waking, and why. */
static void print_releases(FILE *out, json_object *threads, enum jl_table_style style)
{
	const char *bullet = style == JL_TABLE_MARKDOWN ? "- " : "  ";
	bool first = true;

	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *r = at(t, JL_K(release));
		long long timer = (long long)num(r, JL_K(from_timer)), waking = (long long)num(r, JL_K(from_waking));
		long long unarmed = (long long)num(r, JL_K(timer_unarmed)), clock = (long long)num(r, JL_K(timer_clock));

		if (!r || timer + waking == 0)
			continue;
		fputs(first ? "\n" : "", out);
		first = false;
		if (!json_object_get_boolean(at(r, JL_K(timer_recorded)))) {
			fprintf(out, "%s%s: every cycle from its waking: the timer group is not recorded (trace = sched,timer "
				     "measures from the timer's requested expiry, as cyclictest)\n", bullet, str(t, JL_K(name)));
			continue;
		}
		fprintf(out, "%s%s: %lld of %lld cycles from its timer's requested expiry", bullet, str(t, JL_K(name)), timer,
			timer + waking);
		if (waking)
			fprintf(out, ", %lld from the waking (%lld not woken by a timer of its own%s%.0lld%s%s%.0lld%s)", waking,
				waking - unarmed - clock, unarmed ? ", " : "", unarmed, unarmed ? " by one whose arming the trace lacks" : "",
				clock ? ", " : "", clock, clock ? " by one on a clock not placed" : "");
		if (num(r, JL_K(relative)) * 2 > timer)
			fputs("; its timer is armed relative (nanosleep, time.sleep): each cycle against what its sleep asked for, "
			      "not a period grid", out);
		fputs("\n", out);
	}
}

static void print_neighbours(FILE *out, json_object *threads, enum jl_table_style style)
{
	bool any = false;
	double m = 0;
	struct unit u;
	char wh[64];

	for (size_t i = 0; i < json_object_array_length(threads); i++)
		if (!is_measured(json_object_array_get_idx(threads, i)))
			m = max_at(max_at(m, json_object_array_get_idx(threads, i), JL_K2(work, max_ns)),
				   json_object_array_get_idx(threads, i), JL_K2(work, mean_ns));
	u = unit_for(m);
	with_unit(wh, sizeof(wh), "work mean / max", u);
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i);
		char pol[64], cpus[96], cpu[32];
		const char *kind = str(t, JL_K(kind));

		if (is_measured(t) || at(t, JL_K(attach))) /* an attach section: its threads are the measured series */
			continue;
		if (!any) {
			if (style == JL_TABLE_MARKDOWN)
				fprintf(out, "\n| neighbour | policy | cpus | does | work calls | %s | CPU time (s) | invol cs |\n"
					     "|---|---|---|---|---:|---:|---:|---:|\n", wh);
			else
				fprintf(out, "\n  %-16s %-14s %-18s %-26s %10s %22s %12s %9s\n", "neighbour", "policy", "cpus", "does",
					"work calls", wh, "CPU time (s)", "invol cs");
			any = true;
		}
		c_policy(t, u, pol, sizeof(pol));
		c_cpus(t, u, cpus, sizeof(cpus));
		snprintf(cpu, sizeof(cpu), "%.3f", num(t, JL_K(cpu_time_ns)) / 1e9);
		{
			char does[80], wm[80];

			snprintf(does, sizeof(does), "%s%.60s", !strcmp(kind, "exec") ? "exec " : "",
				 !strcmp(kind, "exec") ? str(t, JL_K(exec)) : str(t, JL_K(work_kind)));
			c_work(t, u, wm, sizeof(wm));
			if (style == JL_TABLE_MARKDOWN)
				fprintf(out, "| %s | %s | %s | %s | %lld | %s | %s | %lld |\n", str(t, JL_K(name)), pol, cpus, does,
					(long long)num(t, JL_K2(work, calls)), wm, cpu, (long long)num(t, JL_K2(ctx_switches, involuntary)));
			else
				fprintf(out, "  %-16s %-14s %-18s %-26s %10lld %22s %12s %9lld\n", str(t, JL_K(name)), pol, cpus, does,
					(long long)num(t, JL_K2(work, calls)), wm, !strcmp(kind, "exec") ? "-" : cpu,
					(long long)num(t, JL_K2(ctx_switches, involuntary)));
		}
	}
}

/* The unit of the times at PATH (a member of each element of SUMMARY's array KEY; "x.max" for a
 * distribution): the largest picks it. */
static struct unit array_unit(json_object *summary, const char *key, const char *path)
{
	double m = 0;

	for (size_t i = 0; i < alen(summary, key); i++)
		m = max_at(m, json_object_array_get_idx(at(summary, key), i), path);
	return unit_for(m);
}

/* One table per executor: the callbacks each pool thread ran and its share of the executor's total. */
static void print_executors(FILE *out, json_object *summary, enum jl_table_style style)
{
	const bool md = style == JL_TABLE_MARKDOWN;
	const char *row = md ? "| %s | %s | %lld | %s |\n" : "    %-16s %8s %14lld %7s\n";

	for (size_t e = 0; e < alen(summary, JL_K(executors)); e++) {
		json_object *ex = json_object_array_get_idx(at(summary, JL_K(executors)), e), *ths = at(ex, JL_K(threads));
		long long total = 0;
		char share[32] = "-", all[32] = "-";

		for (size_t i = 0; i < alen(ex, JL_K(threads)); i++)
			total += (long long)num(json_object_array_get_idx(ths, i), JL_K(callbacks_run));
		fprintf(out, md ? "\n### Executor %s (%s dispatch)\n\n| thread | tid | callbacks run | share |\n|---|---:|---:|---:|\n"
				: "\n  executor %s (%s dispatch):\n    %-16s %8s %14s %7s\n",
			str(ex, JL_K(name)), str(ex, JL_K(dispatch)), "thread", "tid", "callbacks run", "share");
		for (size_t i = 0; i < alen(ex, JL_K(threads)); i++) {
			json_object *th = json_object_array_get_idx(ths, i);

			if (total)
				pct(share, sizeof(share), num(th, JL_K(callbacks_run)) / (double)total);
			fprintf(out, row, str(th, JL_K(name)), str(th, JL_K(tid)), (long long)num(th, JL_K(callbacks_run)), share);
		}
		if (total)
			pct(all, sizeof(all), 1.0);
		fprintf(out, row, "total", "", total, all);
	}
}

/* A sync's inputs: "lidar 40 / 40 (100.0%), camera 40 / 120 (33.3%)" (used / messages, the fraction used). */
static void sync_inputs(char *buf, size_t len, json_object *sync)
{
	size_t off = 0;

	buf[0] = '\0';
	for (size_t k = 0; k < alen(sync, JL_K(inputs)) && off < len; k++) {
		json_object *in = json_object_array_get_idx(at(sync, JL_K(inputs)), k);
		char used[32];

		pct(used, sizeof(used), num(in, JL_K(used_fraction)));
		off += (size_t)snprintf(buf + off, len - off, "%s%.40s %lld / %lld (%s)", k ? ", " : "", str(in, JL_K(topic)),
					(long long)num(in, JL_K(used)), (long long)num(in, JL_K(messages)), used);
	}
}

/* The [sync] table: sets out and their rate, the pairs' stamp difference, each input's fraction used. */
static void print_syncs(FILE *out, json_object *summary, enum jl_table_style style)
{
	const bool md = style == JL_TABLE_MARKDOWN;
	struct unit u = array_unit(summary, JL_K(syncs), JL_K(pair_diff_max_ns));
	char dh[64];

	if (!alen(summary, JL_K(syncs)))
		return;
	with_unit(dh, sizeof(dh), "pair diff mean / max", u);
	fprintf(out, md ? "\n### Syncs\n\n| %s | %s | %s | %s | %s | %s |\n|---|---|---:|---:|---:|---|\n"
			: "\n  syncs:\n    %-16s %-12s %8s %9s %28s  %s\n",
		"sync", "algorithm", "sets", "rate Hz", dh, "inputs: used / messages");
	for (size_t i = 0; i < alen(summary, JL_K(syncs)); i++) {
		json_object *sy = json_object_array_get_idx(at(summary, JL_K(syncs)), i);
		char diff[64], inputs[256];

		unit_pair(diff, sizeof(diff), num(sy, JL_K(pair_diff_mean_ns)), num(sy, JL_K(pair_diff_max_ns)), u);
		sync_inputs(inputs, sizeof(inputs), sy);
		fprintf(out, md ? "| %s | %s | %lld | %.2f | %s | %s |\n" : "    %-16s %-12s %8lld %9.2f %28s  %s\n", str(sy, JL_K(name)),
			str(sy, JL_K(algorithm)), (long long)num(sy, JL_K(sets)), num(sy, JL_K(rate_hz)), diff, inputs);
	}
}

/* The [source]s' requests as their clients saw them: status counts, the latency (to the reply, or to
 * the deadline when the client gave up), and the work the servers did after the client had given up */
static void print_sources(FILE *out, json_object *summary, enum jl_table_style style)
{
	const bool md = style == JL_TABLE_MARKDOWN;
	struct unit u = array_unit(summary, JL_K(sources), JL_K2(client_latency_ns, max)),
		    uw = array_unit(summary, JL_K(sources), JL_K(wasted_ns));
	char lh[80], wh[32];

	if (!alen(summary, JL_K(sources)))
		return;
	with_unit(lh, sizeof(lh), "client latency mean / p99 / max", u);
	with_unit(wh, sizeof(wh), "wasted", uw);
	fprintf(out, md ? "\n### Requests\n\n| %s | %s | %s | %s | %s | %s | %s | %s | %s |\n"
			  "|---|---|---:|---:|---:|---:|---:|---:|---:|\n"
			: "\n  requests:\n    %-12s %-12s %8s %6s %9s %8s %8s %37s %12s\n",
		"source", "queue", "requests", "ok", md ? "deadline exceeded" : "deadline", "dropped", "pending", lh, wh);
	for (size_t i = 0; i < alen(summary, JL_K(sources)); i++) {
		json_object *s = json_object_array_get_idx(at(summary, JL_K(sources)), i);
		char lat[96], wasted[32];

		dist_cell(lat, sizeof(lat), s, JL_K(client_latency_ns), u);
		in_unit(wasted, sizeof(wasted), num(s, JL_K(wasted_ns)), uw);
		fprintf(out, md ? "| %s | %s | %lld | %lld | %lld | %lld | %lld | %s | %s |\n"
				: "    %-12s %-12s %8lld %6lld %9lld %8lld %8lld %37s %12s\n",
			str(s, JL_K(name)), str(s, JL_K(queue)), (long long)num(s, JL_K(requests)), (long long)num(s, JL_K2(status, ok)),
			(long long)num(s, JL_K2(status, deadline_exceeded)), (long long)num(s, JL_K2(status, dropped)),
			(long long)num(s, JL_K2(status, pending)), lat, wasted);
	}
}

/* The [lock]s: kind, acquisitions, wait and hold (mean / p99 / max), the boosts the trace saw, and per
 * thread that took it its longest wait (the waiter a protocol is judged by) */
static void print_locks(FILE *out, json_object *summary, enum jl_table_style style)
{
	const bool md = style == JL_TABLE_MARKDOWN;
	struct unit uw = array_unit(summary, JL_K(locks), JL_K2(wait_ns, max)),
		    uh = array_unit(summary, JL_K(locks), JL_K2(hold_ns, max));
	char wh[64], hh[64], ph[64];

	if (!alen(summary, JL_K(locks)))
		return;
	with_unit(wh, sizeof(wh), "wait mean / p99 / max", uw);
	with_unit(hh, sizeof(hh), "hold mean / p99 / max", uh);
	with_unit(ph, sizeof(ph), "longest wait per thread", uw);
	fprintf(out, md ? "\n### Locks\n\n| %s | %s | %s | %s | %s | %s | %s |\n|---|---|---:|---:|---:|---:|---|\n"
			: "\n  locks:\n    %-12s %-11s %7s %30s %30s %7s  %s\n",
		"lock", "kind", "taken", wh, hh, "boosts", ph);
	for (size_t i = 0; i < alen(summary, JL_K(locks)); i++) {
		json_object *l = json_object_array_get_idx(at(summary, JL_K(locks)), i), *by = at(l, JL_K(threads));
		char kind[32], wait[96], hold[96], boosts[24], per[256];
		size_t used = 0;

		snprintf(kind, sizeof(kind), at(l, JL_K(ceiling)) ? "%s %d" : "%s", str(l, JL_K(kind)), (int)num(l, JL_K(ceiling)));
		dist_cell(wait, sizeof(wait), l, JL_K(wait_ns), uw);
		dist_cell(hold, sizeof(hold), l, JL_K(hold_ns), uh);
		snprintf(boosts, sizeof(boosts), at(l, JL_K(boosts)) ? "%lld" : "-", (long long)num(l, JL_K(boosts)));
		per[0] = '\0';
		if (by) {
			json_object_object_foreach(by, name, v) {
				char w[32];

				in_unit(w, sizeof(w), num(v, JL_K2(wait_ns, max)), uw);
				used += (size_t)snprintf(per + used, used < sizeof(per) ? sizeof(per) - used : 0, "%s%s %s",
							 used ? ", " : "", name, w);
				if (used >= sizeof(per))
					break;
			}
		}
		fprintf(out, md ? "| %s | %s | %lld | %s | %s | %s | %s |\n" : "    %-12s %-11s %7lld %30s %30s %7s  %s\n",
			str(l, JL_K(name)), kind, (long long)num(l, JL_K(acquisitions)), wait, hold, boosts, per);
	}
}

/* A chain's end: a callback with a chain that no other callback's chain passes through (the shorter
 * chains are the longer ones' prefixes). */
static bool chain_end(json_object *threads, json_object *t)
{
	if (!at(t, JL_K(chain)))
		return false;
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *o = json_object_array_get_idx(threads, i);
		size_t n = alen(o, JL_K2(chain, path));

		for (size_t k = 0; o != t && k + 1 < n; k++)
			if (!strcmp(elem(o, JL_K2(chain, path), k), str(t, JL_K(name))))
				return false;
	}
	return true;
}

/* "sensor -> filter -> control (hops: scan, sync fused)" */
static void print_path(FILE *out, json_object *c)
{
	for (size_t k = 0; k < alen(c, JL_K(path)); k++)
		fprintf(out, "%s%s", k ? " -> " : "", elem(c, JL_K(path), k));
	for (size_t k = 0; k < alen(c, JL_K(hops)); k++)
		fprintf(out, "%s%s", k ? ", " : " (hops: ", elem(c, JL_K(hops), k));
	if (alen(c, JL_K(hops)))
		fputc(')', out);
}

/* NS in U, with its unit: "12.3 us". */
static void in_unit_named(char *buf, size_t len, double ns, struct unit u)
{
	char v[32];

	in_unit(v, sizeof(v), ns, u);
	snprintf(buf, len, "%s %s", v, u.name);
}

/* The worst output's parts, each stage's wait and run, and their sum beside its e2e (one unit: the e2e's). */
static void print_worst(FILE *out, json_object *c, bool md)
{
	json_object *st = at(c, JL_K2(worst, stages));
	double sum = 0;
	struct unit u = unit_for(num(c, JL_K2(worst, e2e_ns)));
	char v[48];

	if (!at(c, JL_K(worst)))
		return;
	fprintf(out, "%sworst output, ended at %.6f s:", md ? "\n" : "    ", num(c, JL_K2(worst, end_ns)) / 1e9);
	for (size_t k = 0; k < alen(c, JL_K2(worst, stages)); k++) {
		json_object *s = json_object_array_get_idx(st, k);

		in_unit_named(v, sizeof(v), num(s, JL_K(wait_ns)), u);
		fprintf(out, "%s %s wait %s", k ? " +" : "", str(s, JL_K(callback)), v);
		in_unit_named(v, sizeof(v), num(s, JL_K(run_ns)), u);
		fprintf(out, " + run %s", v);
		sum += num(s, JL_K(wait_ns)) + num(s, JL_K(run_ns));
	}
	in_unit_named(v, sizeof(v), sum, u);
	fprintf(out, " = %s", v);
	in_unit_named(v, sizeof(v), num(c, JL_K2(worst, e2e_ns)), u);
	fprintf(out, " (e2e %s%s)\n", v, sum == num(c, JL_K2(worst, e2e_ns)) ? "" : ": they differ");
}

/* A chain's data age and reaction time (mean / p99 / max), the analytic bound beside the data age. */
static void print_chain_times(FILE *out, json_object *c, bool md)
{
	char age[96], react[96], bound[32] = "none", th[64], bh[32];
	struct unit u = unit_for(max_at(max_at(num(c, JL_K2(data_age_ns, max)), c, JL_K2(reaction_ns, max)), c, JL_K(bound_ns)));

	if (num(c, JL_K(bound_ns)) > 0)
		in_unit(bound, sizeof(bound), num(c, JL_K(bound_ns)), u);
	dist_cell(age, sizeof(age), c, JL_K(data_age_ns), u);
	dist_cell(react, sizeof(react), c, JL_K(reaction_ns), u);
	with_unit(th, sizeof(th), "mean / p99 / max", u);
	with_unit(bh, sizeof(bh), "bound", u);
	fprintf(out, md ? "| %s | %s | %s |\n|---|---:|---:|\n| data age | %s | %s |\n| reaction | %s | |\n"
			: "    %-16s %28s %10s\n    data age         %28s %10s\n    reaction         %28s\n",
		"time", th, bh, age, bound, react);
}

/* Each stage of a chain: the wait before its callback ran and the run (mean / p99 / max). */
static void print_chain_stages(FILE *out, json_object *c, bool md)
{
	const char *row = md ? "| %s | %s | %s |\n" : "    %-16s %28s %28s\n";
	struct unit uw = array_unit(c, JL_K(stages), JL_K2(wait_ns, max)), ur = array_unit(c, JL_K(stages), JL_K2(run_ns, max));
	char wh[64], rh[64];

	if (!alen(c, JL_K(stages)))
		return;
	fputs(md ? "\n" : "", out);
	fprintf(out, row, "stage", with_unit(wh, sizeof(wh), "wait mean / p99 / max", uw),
		with_unit(rh, sizeof(rh), "run mean / p99 / max", ur));
	if (md)
		fprintf(out, "|---|---:|---:|\n");
	for (size_t k = 0; k < alen(c, JL_K(stages)); k++) {
		json_object *st = json_object_array_get_idx(at(c, JL_K(stages)), k);
		char wait[96], run[96];

		dist_cell(wait, sizeof(wait), st, JL_K(wait_ns), uw);
		dist_cell(run, sizeof(run), st, JL_K(run_ns), ur);
		fprintf(out, row, str(st, JL_K(callback)), wait, run);
	}
}

/* One chain end's block: its path, its counts, its times, its stages, the worst output's parts. */
static void print_chain(FILE *out, json_object *t, enum jl_table_style style)
{
	const bool md = style == JL_TABLE_MARKDOWN;
	json_object *c = at(t, JL_K(chain));

	fprintf(out, md ? "\n### Chain %s\n\n`" : "\n  chain %s: ", str(t, JL_K(name)));
	print_path(out, c);
	fprintf(out, md ? "`\n\n%lld outputs (%lld by other paths), %lld inputs (%lld unused)\n\n"
			: "\n    %lld outputs (%lld by other paths), %lld inputs (%lld unused)\n",
		(long long)num(c, JL_K(outputs)), (long long)num(c, JL_K(other_paths)), (long long)num(c, JL_K(inputs)),
		(long long)num(c, JL_K(unused_inputs)));
	print_chain_times(out, c, md);
	print_chain_stages(out, c, md);
	print_worst(out, c, md);
}

static void print_chains(FILE *out, json_object *threads, enum jl_table_style style)
{
	for (size_t i = 0; i < json_object_array_length(threads); i++)
		if (chain_end(threads, json_object_array_get_idx(threads, i)))
			print_chain(out, json_object_array_get_idx(threads, i), style);
}

static void print_expect(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *arr;

	if (!json_object_object_get_ex(summary, JL_K(expect), &arr) || !json_object_array_length(arr))
		return;
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\n### Expectations\n\n" : "\n  expectations:\n");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *e = json_object_array_get_idx(arr, i), *v;
		bool ok = json_object_get_boolean(json_object_object_get(e, JL_K(ok)));
		char val[64] = "no value";

		v = json_object_object_get(e, JL_K(value));
		if (v) {
			int m = jl_metric_find(str(e, JL_K(metric)));

			if (m >= 0 && jl_metrics[m].unit == JL_UNIT_NS)
				jl_format_duration_human((int64_t)json_object_get_double(v), val, sizeof(val));
			else
				snprintf(val, sizeof(val), "%.6g", json_object_get_double(v));
		}
		fprintf(out, style == JL_TABLE_MARKDOWN ? "- **%s** %s: `%s` (%s, value %s)\n" : "    %-4s %s: %s (%s, value %s)\n",
			ok ? "ok" : "FAIL", str(e, JL_K(label)), str(e, JL_K(check)), str(e, JL_K(thread)), val);
	}
}

/* The [budget] table: stage, budget, measured p99, margin, verdict. */
static void print_budget(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *arr;

	if (!json_object_object_get_ex(summary, JL_K(budget), &arr) || !json_object_array_length(arr))
		return;
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\n### Budgets\n\n| stage | budget | p99 | margin | verdict |\n|---|---|---|---|---|\n"
					       : "\n  budgets:\n    %-24s %12s %12s %12s  verdict\n", "stage", "budget", "p99", "margin");
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *b = json_object_array_get_idx(arr, i), *p = json_object_object_get(b, JL_K(p99_ns));
		char bud[32], p99[32] = "no value", mar[32] = "-";
		bool ok = json_object_get_boolean(json_object_object_get(b, JL_K(ok)));

		jl_format_duration_human(json_object_get_int64(json_object_object_get(b, JL_K(budget_ns))), bud, sizeof(bud));
		if (p) {
			int64_t m = json_object_get_int64(json_object_object_get(b, JL_K(margin_ns)));

			jl_format_duration_human(json_object_get_int64(p), p99, sizeof(p99));
			jl_format_duration_human(m < 0 ? -m : m, mar + 1, sizeof(mar) - 1);
			mar[0] = m < 0 ? '-' : '+';
		}
		fprintf(out, style == JL_TABLE_MARKDOWN ? "| %s | %s | %s | %s | %s |\n" : "    %-24s %12s %12s %12s  %s\n",
			str(b, JL_K(stage)), bud, p99, mar, ok ? "ok" : "EXCEEDED");
	}
}

/* "RT bandwidth 950000 of 1000000 us, RT group scheduling on, fair server ...; steal CPU 1 3.2 ms" (steal and
 * SMIs named only where non-zero); nothing when the summary has no rt_bandwidth (an older run). */
static void print_host_rt(FILE *out, json_object *host)
{
	json_object *rb, *fs, *st, *smi, *v;
	bool first = true;

	if (!json_object_object_get_ex(host, JL_K(rt_bandwidth), &rb) || !rb)
		return;
	if (json_object_object_get_ex(rb, JL_K(runtime_us), &v) && json_object_get_int64(v) < 0)
		fprintf(out, "RT bandwidth unlimited");
	else
		fprintf(out, "RT bandwidth %s of %s us", str(rb, JL_K(runtime_us)), str(rb, JL_K(period_us)));
	if (json_object_object_get_ex(rb, JL_K(group_sched), &v) && v)
		fprintf(out, ", RT group scheduling %s", json_object_get_boolean(v) ? "on" : "off");
	if (json_object_object_get_ex(host, JL_K(fair_server), &fs) && fs) {
		if (json_object_get_boolean(json_object_object_get(fs, JL_K(readable)))) {
			json_object_object_foreach(json_object_object_get(fs, JL_K(cpus)), cpu, one) {
				fprintf(out, ", fair server %.1f ms / %.1f s (CPU %s)", num(one, JL_K(runtime_ns)) / 1e6,
					num(one, JL_K(period_ns)) / 1e9, cpu);
				break;
			}
		} else {
			fprintf(out, ", fair server (%s)", str(fs, JL_K(note)));
		}
	}
	if (json_object_object_get_ex(host, JL_K(steal_ns), &st) && st) {
		json_object_object_foreach(st, cpu, ns) {
			char buf[32];

			if (json_object_get_int64(ns) <= 0)
				continue;
			jl_format_duration_human(json_object_get_int64(ns), buf, sizeof(buf));
			fprintf(out, "%s CPU %s %s", first ? "; steal" : ",", cpu, buf);
			first = false;
		}
	}
	first = true;
	if (json_object_object_get_ex(host, JL_K(smi), &smi) && smi) {
		json_object_object_foreach(smi, cpu, n) {
			if (json_object_get_int64(n) <= 0)
				continue;
			fprintf(out, "%s CPU %s %lld", first ? "; SMIs" : ",", cpu, (long long)json_object_get_int64(n));
			first = false;
		}
	}
	fprintf(out, "\n");
}

/* A checkpoint (a run that had not finished when it was written), what samples.csv holds when it is not
 * every cycle, how the percentiles were found when not exactly, and a stop_at that ended the run */
static void print_long_run(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *cp, *smp, *st, *threads, *p;
	const char *nl = style == JL_TABLE_MARKDOWN ? "\n" : "";

	if (json_object_object_get_ex(summary, JL_K(checkpoint), &cp))
		fprintf(out, "%sCHECKPOINT %lld: the run had not finished when this was written (%.3f s of %.3f s "
			     "measured); the figures are those so far\n", nl,
			(long long)num(cp, JL_K(number)), num(summary, JL_K(duration_ns)) / 1e9,
			num(summary, JL_K(planned_duration_ns)) / 1e9);
	if (json_object_object_get_ex(summary, JL_K(samples), &smp) && strcmp(str(smp, JL_K(mode)), "all"))
		fprintf(out, "%ssamples.csv: %s (%s storage)\n", nl,
			!strcmp(str(smp, JL_K(mode)), "none") ? "not written" : "the worst cycles, the first misses and the last "
									"cycles of each loop", str(smp, JL_K(storage)));
	if (json_object_object_get_ex(summary, JL_K(threads), &threads) && json_object_array_length(threads) &&
	    json_object_object_get_ex(json_object_array_get_idx(threads, 0), JL_K(percentiles), &p) &&
	    json_object_is_type(p, json_type_object))
		fprintf(out, "%spercentiles: from histograms, at most %.2f%% above the exact value\n", nl,
			num(p, JL_K(relative_error)) * 100.0);
	if (json_object_object_get_ex(summary, JL_K(stop_at), &st) && json_object_get_boolean(json_object_object_get(st, JL_K(fired))))
		fprintf(out, "%sstop_at: %s.%s was %.1f us (over %.1f us) at cycle %lld: the run ended there\n", nl,
			str(st, JL_K(series)), str(st, JL_K(metric)), num(st, JL_K(value_ns)) / 1e3, num(st, JL_K(threshold_ns)) / 1e3,
			(long long)num(st, JL_K(cycle)));
}

void jl_table_print(FILE *out, json_object *summary, enum jl_table_style style)
{
	json_object *threads, *host;

	if (!json_object_object_get_ex(summary, JL_K(threads), &threads))
		return;
	json_object_object_get_ex(summary, JL_K(host), &host);
	if (style == JL_TABLE_MARKDOWN)
		fprintf(out, "# jitterlab run: %s\n\n", str(summary, JL_K(scenario)));
	fprintf(out, style == JL_TABLE_MARKDOWN ? "%s %s, started %s, %.3f s measured after %.3f s warm-up%s\n"
						: "%s %s · %s · %.3f s measured after %.3f s warm-up%s\n",
		str(summary, JL_K(tool)), str(summary, JL_K(version)), str(summary, JL_K(started)), num(summary, JL_K(duration_ns)) / 1e9,
		num(summary, JL_K(warmup_ns)) / 1e9,
		json_object_get_boolean(json_object_object_get(summary, JL_K(interrupted))) ? " · INTERRUPTED" : "");
	fprintf(out, style == JL_TABLE_MARKDOWN ? "\nhost: Linux %s, preempt %s, CPUs %s (isolated: %s), %s, clocksource %s\n"
						: "host: Linux %s, preempt %s, CPUs %s (isolated: %s), %s, clocksource %s\n",
		str(host, JL_K(kernel)), str(host, JL_K(preempt)), str(host, JL_K(cpus_online)),
		str(host, JL_K(isolated))[0] ? str(host, JL_K(isolated)) : "none",
		json_object_get_boolean(json_object_object_get(host, JL_K(virtualized))) ? "virtual machine" : "bare metal",
		str(host, JL_K(clocksource)));
	if (style == JL_TABLE_MARKDOWN && json_object_object_get_ex(host, JL_K(rt_bandwidth), NULL))
		fprintf(out, "\n");
	print_host_rt(out, host);
	print_long_run(out, summary, style);
	fprintf(out, "\n");
	print_series(out, threads, style, is_measured, NULL, "loop", loop_rows, sizeof(loop_rows) / sizeof(loop_rows[0]));
	print_releases(out, threads, style);
	print_neighbours(out, threads, style);
	print_executors(out, summary, style);
	print_series(out, threads, style, has_messages, style == JL_TABLE_MARKDOWN ? "\n### Messages\n\n" : "\n", "messages",
		     message_rows, sizeof(message_rows) / sizeof(message_rows[0]));
	print_syncs(out, summary, style);
	print_locks(out, summary, style);
	print_sources(out, summary, style);
	print_chains(out, threads, style);
	print_expect(out, summary, style);
	print_budget(out, summary, style);
}

void jl_json_print(FILE *out, json_object *doc)
{
	fprintf(out, "%s\n", json_object_to_json_string_ext(doc, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
									   JSON_C_TO_STRING_NOSLASHESCAPE));
	fflush(out);
}
