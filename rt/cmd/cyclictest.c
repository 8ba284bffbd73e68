/* cyclictest: `jitterlab cyclictest SCENARIO`: cyclictest (rt-tests) in place of each measured periodic
 * thread (same period, policy, priority, CPUs, measured duration, mlock, dma latency) under the same
 * neighbours and shield, then jitterlab's own loop in the same conditions, interleaved when --runs > 1;
 * one side-by-side table (min/avg/p50/p99/max, ratio jitterlab/cyclictest) and cyclictest.json (--json:
 * that document on stdout instead of the table). Both columns follow cyclictest's rule (whole us
 * truncated, 1 us buckets, nearest rank): jitterlab's cycles are put through it from samples.csv, its
 * exact ns figures shown beside them; the document says so in "method".
 * Each side is a fresh `jitterlab run` child (the cyclictest side runs a modified scenario in which the
 * measured thread became an `exec = cyclictest ...` neighbour). cyclictest's JSON is read with json-c;
 * its file is created by the output writer before cyclictest (root) opens it (never a name in /tmp).
 * Never runs cyclictest outside the harness (the harness owns placement, shield and cleanup). */
#include "cyclictest.h"
#include "../base/samples_read.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "../../affinity/cpulist.h"
#include "commands.h"
#include "lifecycle.h"
#include "../base/stats.h"
#include "../base/stop.h"
#include "../base/output.h"
#include "../base/documents.h"
#include "../engine/results.h"
#include "sweep_child.h"
#include "rtla.h"
#include "../trace/io/noise.h"
#include "../summary/table.h"
#include "../base/units.h"
#include "../base/welch.h"
#include "../base/summary_keys.h"

#define MAX_SETS 64
#define MAX_MEASURED 8
#define MAX_RUNS 50

/* ---- cyclictest's JSON ---- */

/* cyclictest writes some keys with a trailing colon ("cmdline:", "rt_test_version:"): accept both. */
static json_object *ct_get(json_object *o, const char *key)
{
	json_object *v = NULL;
	char k2[64];

	if (!o)
		return NULL;
	if (json_object_object_get_ex(o, key, &v))
		return v;
	snprintf(k2, sizeof(k2), "%s:", key);
	return json_object_object_get_ex(o, k2, &v) ? v : NULL;
}

/* ---- cyclictest's rule: whole microseconds, 1 us buckets, nearest rank ---- */

/* p50/p99/p99.9 of R from the JL_CYCLICTEST_HIST_US buckets CNT and R->overflows, in ns (bucket floor x 1000). */
static void hist_percentiles(struct jl_cyclictest_result *r, const uint64_t *cnt)
{
	static const double qs[3] = { 50, 99, 99.9 };
	int64_t *out[3] = { &r->p50_ns, &r->p99_ns, &r->p999_ns };

	for (int q = 0; q < 3; q++) {
		int64_t b = jl_buckets_percentile(cnt, JL_CYCLICTEST_HIST_US, r->overflows, qs[q]);

		*out[q] = b < 0 ? -1 : b * 1000;
	}
}

int jl_cyclictest_parse(json_object *doc, struct jl_cyclictest_result *r, char *err, size_t errlen)
{
	json_object *th = ct_get(ct_get(doc, "thread"), "0"), *hist, *v;
	uint64_t *cnt = NULL, inhist = 0;

	memset(r, 0, sizeof(*r));
	if (!th) {
		snprintf(err, errlen, "cyclictest JSON has no thread \"0\" (did cyclictest start?)");
		return -1;
	}
	if ((v = ct_get(doc, "resolution_in_ns")) && json_object_get_int(v)) {
		snprintf(err, errlen, "cyclictest JSON is in ns (-N): its histogram is not the 1 us one this reads");
		return -1;
	}
	r->cycles = (uint64_t)json_object_get_int64(ct_get(th, "cycles"));
	r->min_ns = json_object_get_int64(ct_get(th, "min")) * 1000;
	r->max_ns = json_object_get_int64(ct_get(th, "max")) * 1000;
	r->avg_ns = json_object_get_double(ct_get(th, "avg")) * 1000;
	r->cpu = (v = ct_get(th, "cpu")) ? json_object_get_int(v) : -1;
	r->p50_ns = r->p99_ns = r->p999_ns = -1;
	hist = ct_get(th, "histogram");
	if (!hist || !json_object_is_type(hist, json_type_object)) {
		snprintf(err, errlen, "cyclictest JSON has no histogram (was -h given?)");
		return -1;
	}
	cnt = calloc(JL_CYCLICTEST_HIST_US, sizeof(*cnt));
	if (!cnt) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	json_object_object_foreach(hist, key, val)
	{
		char *end;
		long b = strtol(key, &end, 10);

		if (end == key || (*end && *end != ':') || b < 0 || b >= JL_CYCLICTEST_HIST_US || json_object_get_int64(val) < 0) {
			snprintf(err, errlen, "cyclictest JSON: histogram bucket \"%s\" is not one of 0..%d us (was -h %d given?)",
				 key, JL_CYCLICTEST_HIST_US - 1, JL_CYCLICTEST_HIST_US);
			free(cnt);
			return -1;
		}
		cnt[b] += (uint64_t)json_object_get_int64(val);
		inhist += (uint64_t)json_object_get_int64(val);
	}
	if (inhist > r->cycles) {
		snprintf(err, errlen, "cyclictest JSON: %llu cycles in the histogram, more than its %llu cycles",
			 (unsigned long long)inhist, (unsigned long long)r->cycles);
		free(cnt);
		return -1;
	}
	/* cyclictest's JSON lists the buckets, not its overflow count: the cycles the buckets miss are the
	 * ones at or beyond JL_CYCLICTEST_HIST_US us */
	r->overflows = r->cycles - inhist;
	if (r->cycles)
		hist_percentiles(r, cnt);
	free(cnt);
	return 0;
}

/* One of jitterlab's cycles through cyclictest's rule (contract columns release_ns, wake_ns). */
static int bucket_row(void *ctx, const struct jl_sample_row *row)
{
	jl_us_hist_add(ctx, jl_cyclictest_latency_us(row->release, row->wake), (uint64_t)row->cycle);
	return 0;
}

int jl_cyclictest_bucket_samples(const char *run_dir, const char *thread, struct jl_cyclictest_result *r, char *err, size_t errlen)
{
	struct jl_us_hist *h;

	memset(r, 0, sizeof(*r));
	r->p50_ns = r->p99_ns = r->p999_ns = -1;
	r->cpu = -1;
	h = calloc(1, sizeof(*h));
	if (!h) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (jl_samples_read(run_dir, thread, bucket_row, h, err, errlen)) {
		free(h);
		return -1;
	}
	r->cycles = h->cycles;
	r->overflows = h->overflows;
	if (r->cycles) {
		r->min_ns = h->min * 1000;
		r->max_ns = h->max * 1000;
		r->avg_ns = (double)h->sum / (double)r->cycles * 1000;
		hist_percentiles(r, h->count);
	}
	free(h);
	if (!r->cycles) {
		snprintf(err, errlen, "%s/samples.csv: no cycle of '%s'", run_dir, thread);
		return -1;
	}
	return 0;
}

int jl_cyclictest_parse_file(const char *path, struct jl_cyclictest_result *r, char *err, size_t errlen)
{
	json_object *doc = json_object_from_file(path);
	int rc;

	if (!doc) {
		snprintf(err, errlen, "%s: missing or not JSON (%s)", path, json_util_get_last_err());
		return -1;
	}
	rc = jl_cyclictest_parse(doc, r, err, errlen);
	json_object_put(doc);
	return rc;
}

int jl_cyclictest_cmdline(const struct jl_scenario *sc, const struct jl_thread_spec *t, const cpu_set_t *main_cpus,
			  const char *json_path, char *buf, size_t len, char *err, size_t errlen)
{
	const char *pol;
	int prio = 0;
	long long interval_us = (t->beh.period_ns + 500) / 1000;
	long long secs = (sc->run.duration_ns + JL_NSEC_PER_SEC - 1) / JL_NSEC_PER_SEC + 2;
	char cpus[256] = "", mains[256] = "";
	size_t n;

	switch (t->place.policy) {
	case JL_POLICY_FIFO: pol = "fifo"; prio = t->place.priority; break;
	case JL_POLICY_RR: pol = "rr"; prio = t->place.priority; break;
	case JL_POLICY_OTHER: pol = "other"; break;
	case JL_POLICY_BATCH: pol = "batch"; break;
	case JL_POLICY_IDLE: pol = "idle"; break;
	default:
		snprintf(err, errlen, "thread '%s': cyclictest has no %s policy", t->name, jl_policy_name(t->place.policy));
		return -1;
	}
	if (t->place.count > 1) {
		snprintf(err, errlen, "thread '%s': count = %u: compare one copy (set count = 1)", t->name, t->place.count);
		return -1;
	}
	if (interval_us < 1) {
		snprintf(err, errlen, "thread '%s': period below 1 us", t->name);
		return -1;
	}
	if (t->place.cpus_set)
		jl_cpulist_format(&t->place.cpus, cpus, sizeof(cpus));
	/* with -a, cyclictest keeps its main thread on the measured CPUs, where it wakes every 10 ms and
	 * keeps the CPU out of idle now and then (lower minima on an idle CPU: the floor bench measured it);
	 * jitterlab's own threads stay on the housekeeping CPUs, and so does cyclictest's main thread here */
	if (cpus[0] && main_cpus && CPU_COUNT(main_cpus))
		jl_cpulist_format(main_cpus, mains, sizeof(mains));
	/* -D is a bound only: the harness ends the neighbour with SIGINT when the measured phase ends,
	 * and cyclictest writes its JSON on SIGINT */
	n = (size_t)snprintf(buf, len, "cyclictest -q -m -t 1 --policy=%s -p %d -i %lld -D %lld -h %d --json=%s%s%s%s%s%s",
			     pol, prio, interval_us, secs, JL_CYCLICTEST_HIST_US, json_path, cpus[0] ? " -a " : "", cpus,
			     mains[0] ? " --mainaffinity=" : "", mains, sc->run.cpu_dma_latency_ns < 0 ? " --laptop" : "");
	if (n >= len) {
		snprintf(err, errlen, "cyclictest command line too long");
		return -1;
	}
	return 0;
}

/* ---- the comparison document and table ---- */

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

static int cmp_d(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;

	return x < y ? -1 : x > y;
}

/* Median over RUNS[i][key]: absent values are ignored, -1 (a percentile beyond the histogram) counts as
 * above every other value. NAN when there is none; INFINITY when the median lies beyond the histogram. */
static double median_of(json_object *runs, const char *key)
{
	double v[MAX_RUNS];
	int n = 0;

	for (size_t i = 0; runs && i < json_object_array_length(runs) && n < MAX_RUNS; i++) {
		json_object *x = jget(json_object_array_get_idx(runs, i), key);

		if (x)
			v[n++] = json_object_get_double(x) < 0 ? INFINITY : json_object_get_double(x);
	}
	if (!n)
		return NAN;
	qsort(v, (size_t)n, sizeof(double), cmp_d);
	return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

static const char *const stat_keys[] = { "min_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns" };
static const char *const stat_names[] = { "min", "avg", "p50", "p99", "max" };
/* the columns of a comparison: those measured by cyclictest's rule (whole us, 1 us buckets), then
 * jitterlab's exact figures; the timerlat columns only where rtla timerlat ran */
enum { SIDE_CT, SIDE_JL, SIDE_JL_EXACT, SIDE_TL_THREAD, SIDE_TL_IRQ, NSIDES };
static const char *const sides[NSIDES] = { "cyclictest", "jitterlab", "jitterlab_exact", "timerlat_thread",
					   "timerlat_irq" };

#define CT_METHOD                                                                                              \
	"like with like: the cyclictest and jitterlab columns both follow cyclictest's rule (latency = wake - "   \
	"intended expiry on CLOCK_MONOTONIC, truncated to whole us as rt-tests' calcdiff does; percentiles "      \
	"nearest-rank over 1 us buckets; cycles beyond the histogram counted, never dropped), jitterlab's "      \
	"computed from its samples.csv, and the ratio is of these two; 'jitterlab exact' is the same cycles in "  \
	"ns from summary.json (about 0.5 us higher by the truncation alone)"

/* Add each side's medians (null when none; the stats whose median lies beyond the histogram are listed
 * in beyond_histogram) and the ratio jitterlab / cyclictest to each thread entry of DOC. */
static void finish_doc(json_object *doc)
{
	json_object *threads = jget(doc, "threads");

	for (size_t i = 0; threads && i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *ratio = json_object_new_object();
		json_object *ratio_tl = json_object_new_object();
		double med[NSIDES][5];

		for (int s = 0; s < NSIDES; s++) {
			json_object *side = jget(t, sides[s]), *runs = jget(side, "runs"), *beyond;
			double c = median_of(runs, "cycles"), o = median_of(runs, "overflows");

			for (int k = 0; k < 5; k++)
				med[s][k] = NAN;
			if (!side)
				continue;
			beyond = json_object_new_array();
			for (int k = 0; k < 5; k++) {
				med[s][k] = median_of(runs, stat_keys[k]);
				json_object_object_add(side, stat_keys[k], isfinite(med[s][k]) ? json_object_new_double(med[s][k]) : NULL);
				if (isinf(med[s][k]))
					json_object_array_add(beyond, json_object_new_string(stat_names[k]));
			}
			json_object_object_add(side, "cycles", isfinite(c) ? json_object_new_double(c) : NULL);
			if (s != SIDE_JL_EXACT) {
				json_object_object_add(side, "overflows", isfinite(o) ? json_object_new_double(o) : NULL);
				json_object_object_add(side, "beyond_histogram", beyond);
			} else {
				json_object_put(beyond);
			}
		}
		for (int k = 0; k < 5; k++) {
			double a = med[SIDE_CT][k], b = med[SIDE_JL][k], c = med[SIDE_TL_THREAD][k];

			json_object_object_add(ratio, stat_names[k], isfinite(a) && isfinite(b) && a > 0 ? json_object_new_double(b / a) : NULL);
			json_object_object_add(ratio_tl, stat_names[k], isfinite(a) && isfinite(c) && a > 0 ? json_object_new_double(c / a) : NULL);
		}
		json_object_object_add(t, "ratio", ratio);
		if (jget(t, sides[SIDE_TL_THREAD]))
			json_object_object_add(t, "ratio_timerlat", ratio_tl);
		else
			json_object_put(ratio_tl);
	}
}

static bool in_array(json_object *arr, const char *s)
{
	for (size_t i = 0; arr && i < json_object_array_length(arr); i++)
		if (!strcmp(json_object_get_string(json_object_array_get_idx(arr, i)), s))
			return true;
	return false;
}

/* SIDE[KEY] for the table: the value, ">= RANGE" when beyond the histogram, or "-". */
static const char *cell(json_object *side, int k, double range_ns, char *buf, size_t len)
{
	json_object *x = jget(side, stat_keys[k]);
	char v[48];

	if (x)
		return jl_value_format(json_object_get_double(x), JL_UNIT_NS, false, buf, len);
	if (in_array(jget(side, "beyond_histogram"), stat_names[k])) {
		snprintf(buf, len, ">= %s", jl_value_format(range_ns, JL_UNIT_NS, false, v, sizeof(v)));
		return buf;
	}
	return "-";
}

static const char *count_cell(json_object *side, const char *key, char *buf, size_t len)
{
	json_object *x = jget(side, key);
	double v = x ? json_object_get_double(x) : median_of(jget(side, "runs"), key); /* older documents */

	if (!isfinite(v))
		return "-";
	snprintf(buf, len, "%.0f", v);
	return buf;
}

/* One worst cycle of the document (a side's "worst"): its explanation, and for timerlat's the kernel's
 * accounting beside it. */
static void print_worst(FILE *out, const char *who, json_object *w)
{
	json_object *agree = jget(w, "agreement");

	if (!w)
		return;
	fprintf(out, "  %s (run %d, %s, CPU %d): %s\n", who, json_object_get_int(jget(w, "run")),
		json_object_get_string(jget(w, "series")), json_object_get_int(jget(w, "cpu")),
		json_object_get_string(jget(w, "text")));
	if (jget(w, "kernel_text"))
		fprintf(out, "    the kernel's accounting (osnoise) in the same window: %s\n",
			json_object_get_string(jget(w, "kernel_text")));
	for (size_t i = 0; agree && i < json_object_array_length(agree); i++)
		fprintf(out, "    %s\n", json_object_get_string(json_object_array_get_idx(agree, i)));
}

void jl_cyclictest_print(FILE *out, json_object *doc)
{
	json_object *threads = jget(doc, "threads"), *method = jget(doc, "method"), *tl = jget(doc, "timerlat");
	int hist_us = jget(doc, "histogram_us") ? json_object_get_int(jget(doc, "histogram_us")) : JL_CYCLICTEST_HIST_US;
	bool has_tl = tl && json_object_get_boolean(jget(tl, "available"));

	fprintf(out, "%s: %s, %d run(s) each, interleaved%s (medians over runs)\n",
		has_tl ? "cyclictest vs rtla timerlat vs jitterlab" : "cyclictest vs jitterlab",
		json_object_get_string(jget(doc, "scenario")), json_object_get_int(jget(doc, "runs")),
		json_object_get_boolean(jget(doc, "interrupted")) ? ", interrupted" : "");
	if (method)
		fprintf(out, "method: %s\n", json_object_get_string(method));
	else /* a comparison written before the like-with-like rule */
		fprintf(out, "method: not recorded (an older comparison): its jitterlab column is exact ns, its cyclictest "
			     "column whole us truncated, about 0.5 us lower by that alone\n");
	if (tl && has_tl)
		fprintf(out, "timerlat: %s (%s)\n", json_object_get_string(jget(tl, "method")),
			json_object_get_string(jget(tl, "command")));
	else if (tl)
		fprintf(out, "timerlat: not run: %s\n", json_object_get_string(jget(tl, "why")));
	for (size_t i = 0; threads && i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i), *ct = jget(t, "cyclictest"), *jl = jget(t, "jitterlab");
		json_object *ex = jget(t, "jitterlab_exact"), *ratio = jget(t, "ratio"), *rtl = jget(t, "ratio_timerlat");
		json_object *tt = jget(t, "timerlat_thread"), *ti = jget(t, "timerlat_irq");
		char a[48], b[48], c[48], d[48], e[48];

		fprintf(out, "\n%s: period %s, %s, cpus %s\n", json_object_get_string(jget(t, "name")),
			jl_value_format(json_object_get_double(jget(t, "period_ns")), JL_UNIT_NS, false, a, sizeof(a)),
			json_object_get_string(jget(t, "policy")), json_object_get_string(jget(t, "cpus")));
		if (has_tl)
			fprintf(out, "  %-8s %12s %13s %12s %12s %8s %8s %16s\n", "latency", "cyclictest", "timerlat thr",
				"timerlat irq", "jitterlab", "jl/ct", "tl/ct", "jitterlab exact");
		else
			fprintf(out, "  %-10s %14s %14s %22s %16s\n", "latency", "cyclictest", "jitterlab", "jitterlab/cyclictest",
				"jitterlab exact");
		for (int k = 0; k < 5; k++) {
			json_object *r = jget(ratio, stat_names[k]), *r2 = jget(rtl, stat_names[k]);
			char rr[32], r2s[32];

			snprintf(rr, sizeof(rr), r ? "%.2f" : "-", r ? json_object_get_double(r) : 0.0);
			snprintf(r2s, sizeof(r2s), r2 ? "%.2f" : "-", r2 ? json_object_get_double(r2) : 0.0);
			if (has_tl)
				fprintf(out, "  %-8s %12s %13s %12s %12s %8s %8s %16s\n", stat_names[k],
					cell(ct, k, hist_us * 1e3, a, sizeof(a)), cell(tt, k, hist_us * 1e3, d, sizeof(d)),
					cell(ti, k, hist_us * 1e3, e, sizeof(e)), cell(jl, k, hist_us * 1e3, b, sizeof(b)), rr, r2s,
					cell(ex, k, hist_us * 1e3, c, sizeof(c)));
			else
				fprintf(out, "  %-10s %14s %14s %22s %16s\n", stat_names[k], cell(ct, k, hist_us * 1e3, a, sizeof(a)),
					cell(jl, k, hist_us * 1e3, b, sizeof(b)), rr, cell(ex, k, hist_us * 1e3, c, sizeof(c)));
		}
		if (has_tl) {
			fprintf(out, "  %-8s %12s %13s %12s %12s\n", "cycles", count_cell(ct, "cycles", a, sizeof(a)),
				count_cell(tt, "cycles", d, sizeof(d)), count_cell(ti, "cycles", e, sizeof(e)),
				count_cell(jl, "cycles", b, sizeof(b)));
			fprintf(out, "  beyond the %d us histogram: cyclictest %s, timerlat %s, jitterlab %s cycles per run (median)\n",
				hist_us, count_cell(ct, "overflows", a, sizeof(a)), count_cell(tt, "overflows", d, sizeof(d)),
				count_cell(jl, "overflows", b, sizeof(b)));
		} else {
			fprintf(out, "  %-10s %14s %14s\n", "cycles", count_cell(ct, "cycles", a, sizeof(a)),
				count_cell(jl, "cycles", b, sizeof(b)));
			fprintf(out, "  beyond the %d us histogram: cyclictest %s, jitterlab %s cycles per run (median)\n", hist_us,
				count_cell(ct, "overflows", a, sizeof(a)), count_cell(jl, "overflows", b, sizeof(b)));
		}
		if (jget(tt, "worst") || jget(jl, "worst"))
			fprintf(out, "  the worst wakeups, explained from jitterlab's trace of each run:\n");
		print_worst(out, "timerlat's worst", jget(tt, "worst"));
		print_worst(out, "jitterlab's loop's worst", jget(jl, "worst"));
	}
}

/* ---- the command ---- */

/* Where cyclictest writes its JSON: in the comparison directory (DIRECT), unless that path holds
 * characters the exec line cannot carry (exec splits like a shell, without quotes) or makes the line
 * longer than a scenario line can be (ct_direct): then in /tmp first. */
static bool path_is_plain(const char *p)
{
	return !strpbrk(p, " \t\"'\\");
}

/* The JSON of THREAD's run REP in DIR, and the private directory in /tmp it may go to first. */
static void ct_json_name(const char *dir, const char *thread, int rep, char *buf, size_t len)
{
	snprintf(buf, len, "%s/cyclictest-%s-r%d.json", dir, thread, rep);
}

static void ct_priv_dir(char *buf, size_t len)
{
	snprintf(buf, len, "/tmp/jitterlab-ct-%d", (int)getpid());
}

static void ct_json_path(const char *dir, bool direct, const char *thread, int rep, char *buf, size_t len)
{
	char abs[PATH_MAX];

	/* absolute: the exec line in the run's scenario.ini must not depend on the working directory */
	if (realpath(dir, abs))
		dir = abs;
	if (direct) {
		ct_json_name(dir, thread, rep, buf, len);
	} else {
		/* cyclictest (root) opens the name itself: a private directory (0700, ours, no symlink), never a
		 * name in /tmp that another user could plant; when it is not ours, a path that cannot be written */
		char priv[64];
		struct stat st;

		ct_priv_dir(priv, sizeof(priv));
		if ((mkdir(priv, 0700) && errno != EEXIST) || lstat(priv, &st) || !S_ISDIR(st.st_mode) ||
		    st.st_uid != geteuid() || (st.st_mode & 077))
			snprintf(priv, sizeof(priv), "/nonexistent");
		ct_json_name(priv, thread, rep, buf, len);
	}
}

/* Whether cyclictest's JSON can go straight into DIR: a plain path, and every exec line (the last run's
 * number, the longest) within a scenario line. */
static bool ct_direct(const char *dir, const struct jl_scenario *sc, const int *measured, int nm, int runs,
		      const cpu_set_t *main_cpus)
{
	char abs[PATH_MAX], path[PATH_MAX + 64], line[1024], err[JL_ERR_MAX];

	if (!realpath(dir, abs) || !path_is_plain(abs))
		return false;
	for (int k = 0; k < nm; k++) {
		const struct jl_thread_spec *t = &sc->threads[measured[k]];

		ct_json_path(abs, true, t->name, runs, path, sizeof(path));
		if (jl_cyclictest_cmdline(sc, t, main_cpus, path, line, sizeof(line), err, sizeof(err)) ||
		    strlen("exec=") + strlen(line) > JL_INI_LINE_MAX)
			return false;
	}
	return true;
}

/* Whether every exec line fits a scenario line with the JSON in the private /tmp directory (the shortest
 * place it can go): else ERR names the thread. */
static bool ct_lines_fit(const struct jl_scenario *sc, const int *measured, int nm, int runs, const cpu_set_t *main_cpus,
			 char *err, size_t errlen)
{
	char priv[64], path[192], line[1024];

	for (int k = 0; k < nm; k++) {
		const struct jl_thread_spec *t = &sc->threads[measured[k]];

		ct_priv_dir(priv, sizeof(priv));
		ct_json_name(priv, t->name, runs, path, sizeof(path));
		if (jl_cyclictest_cmdline(sc, t, main_cpus, path, line, sizeof(line), err, errlen))
			return false;
		if (strlen("exec=") + strlen(line) > JL_INI_LINE_MAX) {
			snprintf(err, errlen, "%s: thread '%s': cyclictest's command line would be %zu characters, longer "
				 "than a scenario line holds (%d): shorten the thread's name", sc->path, t->name,
				 strlen(line), JL_INI_LINE_MAX - (int)strlen("exec="));
			return false;
		}
	}
	return true;
}

/* Create PATH in the comparison directory through the output writer (O_EXCL, no symlink, the sudo
 * user's) before cyclictest, which runs as root, opens it by name. */
static void ct_json_create(bool direct, const char *path)
{
	int fd;

	if (!direct)
		return;
	fd = jl_output_create_path(path);
	if (fd >= 0)
		close(fd);
}

/* Move a /tmp JSON into the comparison directory (a copy through json-c, then unlink). PATH becomes the
 * kept file's path. */
static void ct_json_keep(const char *dir, bool direct, const char *thread, int rep, char *path, size_t len)
{
	json_object *doc;
	char dst[PATH_MAX + 64];

	if (direct)
		return;
	ct_json_name(dir, thread, rep, dst, sizeof(dst));
	doc = json_object_from_file(path);
	if (doc && jl_output_write_json_path(dst, doc) == 0) {
		char *slash;

		unlink(path);
		slash = strrchr(path, '/');
		if (slash) { /* the private directory, once its last file is gone */
			*slash = '\0';
			rmdir(path);
		}
		snprintf(path, len, "%s", dst);
	}
	json_object_put(doc);
}

const struct jl_cli jl_cli_cyclictest = { "cyclictest", "SCENARIO",
					  "run cyclictest in place of each measured thread, under the same load, side by side",
					  jl_repeat_cli_opts };

/* One run of a side measured by cyclictest's rule; FROM_KEY ("json": cyclictest's file, "dir": the
 * jitterlab run) says where it came from. */
static void add_ct_run(json_object *runs, const struct jl_cyclictest_result *r, const char *from_key, const char *from, int rep)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "run", json_object_new_int(rep));
	json_object_object_add(o, from_key, json_object_new_string(from));
	json_object_object_add(o, "cycles", json_object_new_int64((int64_t)r->cycles));
	json_object_object_add(o, "min_ns", json_object_new_int64(r->min_ns));
	json_object_object_add(o, "avg_ns", json_object_new_double(r->avg_ns));
	json_object_object_add(o, "p50_ns", json_object_new_int64(r->p50_ns));
	json_object_object_add(o, "p99_ns", json_object_new_int64(r->p99_ns));
	json_object_object_add(o, "p999_ns", json_object_new_int64(r->p999_ns));
	json_object_object_add(o, "max_ns", json_object_new_int64(r->max_ns));
	json_object_object_add(o, "overflows", json_object_new_int64((int64_t)r->overflows));
	if (r->cpu >= 0)
		json_object_object_add(o, "cpu", json_object_new_int(r->cpu));
	json_object_array_add(runs, o);
}

/* jitterlab's exact figures of one run (summary.json, ns). */
static void add_jl_run(json_object *runs, json_object *thread, const char *dir, int rep)
{
	json_object *o = json_object_new_object(), *lat = jget(thread, JL_K(latency_ns));
	static const char *const from[] = { "min", "mean", "p50", "p99", "max" };

	json_object_object_add(o, "run", json_object_new_int(rep));
	json_object_object_add(o, "dir", json_object_new_string(dir));
	json_object_object_add(o, "cycles", json_object_new_int64(json_object_get_int64(jget(thread, "cycles"))));
	for (int k = 0; k < 5; k++)
		json_object_object_add(o, stat_keys[k], json_object_new_double(json_object_get_double(jget(lat, from[k]))));
	json_object_object_add(o, "p999_ns", json_object_new_double(json_object_get_double(jget(lat, JL_K(p999)))));
	json_object_array_add(runs, o);
}

/* What one repetition runs, in this order: cyclictest in the loops' place, rtla timerlat in their place
 * (where it can run), jitterlab's loops. */
enum ct_kind { KIND_CT, KIND_TL, KIND_JL };

struct ct {
	struct jl_repeat_opts o;
	struct jl_rtla_probe rtla;
	bool tl;                         /* the timerlat column runs */
	char tl_why[512], tl_cmd[512];   /* why it does not; rtla's command line */
	enum ct_kind order[3];
	int nkinds;
	struct jl_scenario *base, *ct;   /* the scenario (jitterlab's side); the cyclictest side's (scratch) */
	int measured[MAX_MEASURED], nm;  /* the loops cyclictest takes the place of */
	cpu_set_t main_cpus;             /* cyclictest's main thread and jitterlab's own threads */
	char dir[PATH_MAX], jlini[PATH_MAX + 64];
	bool direct;                     /* cyclictest writes its JSON into the directory itself */
	bool aborted;                    /* a run could not be set up: nothing to write */
	json_object *doc, *threads;
	int status;
};

static int ct_plan(void *ctx, int argc, char **argv)
{
	struct ct *s = ctx;
	char err[JL_ERR_MAX + 256];

	switch (jl_repeat_opts_parse(&jl_cli_cyclictest, argc, argv, MAX_RUNS, &s->o)) {
	case 1:
		return JL_EXIT_OK;
	case 0:
		if (!s->o.runs)
			s->o.runs = 1;
		break;
	default:
		return JL_EXIT_USAGE;
	}
	if (access("/usr/bin/cyclictest", X_OK) && access("/usr/local/bin/cyclictest", X_OK)) {
		fprintf(stderr, "jitterlab cyclictest: cyclictest is not installed (apt-get install rt-tests)\n");
		return JL_EXIT_RUNTIME;
	}
	s->base = malloc(sizeof(*s->base));
	s->ct = malloc(sizeof(*s->ct));
	if (!s->base || !s->ct) {
		fprintf(stderr, "jitterlab cyclictest: out of memory\n");
		return JL_EXIT_RUNTIME;
	}
	if (jl_scenario_load(s->o.scenario, s->o.sets, s->o.nsets, s->base, err, sizeof(err)))
		goto bad;
	s->base->sweep.present = false;
	for (int i = 0; i < s->base->nthreads && s->nm < MAX_MEASURED; i++)
		if ((jl_thread_measured(&s->base->threads[i]) || s->base->threads[i].beh.measure == JL_MEASURE_PROBE) &&
		    s->base->threads[i].beh.period_ns > 0) /* a probed program with a period is a loop too */
			s->measured[s->nm++] = i;
	if (!s->nm) {
		snprintf(err, sizeof(err), "%s: no measured periodic thread to put cyclictest in place of", s->base->path);
		goto bad;
	}
	/* cyclictest's main thread goes where jitterlab's own threads go: [run] housekeeping, or what auto
	 * means for this scenario (none: where it likes) */
	if (s->base->run.housekeeping_set)
		s->main_cpus = s->base->run.housekeeping;
	else
		jl_scenario_auto_housekeeping(s->base, &s->main_cpus);
	if (!ct_lines_fit(s->base, s->measured, s->nm, s->o.runs, &s->main_cpus, err, sizeof(err)))
		goto bad;
	/* the kernel's instrument: where rtla timerlat can run, and in which mode */
	jl_rtla_probe(&s->rtla, true);
	if (s->rtla.why_timerlat[0])
		snprintf(s->tl_why, sizeof(s->tl_why), "%s", s->rtla.why_timerlat);
	else if (jl_rtla_timerlat_cmdline(s->base, s->measured, s->nm, s->rtla.user_threads, s->tl_cmd, sizeof(s->tl_cmd),
					  s->tl_why, sizeof(s->tl_why)) == 0)
		s->tl = true;
	s->order[s->nkinds++] = KIND_CT;
	if (s->tl)
		s->order[s->nkinds++] = KIND_TL;
	s->order[s->nkinds++] = KIND_JL;
	if (!s->tl && !s->o.quiet)
		fprintf(stderr, "cyclictest: no timerlat column: %s\n", s->tl_why);
	return JL_LIFE_GO;
bad:
	fprintf(stderr, "jitterlab cyclictest: %s\n", err);
	return JL_EXIT_USAGE;
}

/* What each column measures, in words (cyclictest.json's "method" of each side). */
static const char *side_method(const struct ct *s, int side)
{
	switch (side) {
	case SIDE_CT:
		return "cyclictest -t 1 in the loop's place (clock_nanosleep, TIMER_ABSTIME): its wakeup in user space, "
		       "whole us truncated (rt-tests' calcdiff)";
	case SIDE_JL:
		return "jitterlab's loop, its samples.csv by cyclictest's rule: whole us truncated, 1 us buckets";
	case SIDE_JL_EXACT:
		return "jitterlab's loop, summary.json: the same cycles in exact ns";
	case SIDE_TL_THREAD:
		return s->rtla.user_threads
			       ? "rtla timerlat hist -u, the Usr columns: timer expiry to the user-space thread's return from "
				 "read(timerlat_fd), rtla's whole us (truncated), 1 us buckets"
			       : "rtla timerlat hist, the Thr columns: timer expiry to the kernel thread timerlat/N running "
				 "(no return to user space: this rtla has no -u), rtla's whole us (truncated), 1 us buckets";
	default:
		return "rtla timerlat hist, the IRQ columns: timer expiry to timerlat's hrtimer handler, whole us";
	}
}

/* cyclictest.json's "timerlat": whether the column ran, why not, how. */
static void ct_doc_timerlat(struct ct *s)
{
	json_object *o = json_object_new_object();
	char ver[32];

	json_object_object_add(o, "available", json_object_new_boolean(s->tl));
	json_object_object_add(o, "why", s->tl ? NULL : json_object_new_string(s->tl_why));
	snprintf(ver, sizeof(ver), "%d.%d", s->rtla.major, s->rtla.minor);
	json_object_object_add(o, "rtla_version", s->rtla.major ? json_object_new_string(ver) : NULL);
	json_object_object_add(o, "mode", !s->tl ? NULL
					  : json_object_new_string(s->rtla.user_threads ? "user threads (-u)"
											: "kernel threads (rtla < 6.6 has no -u)"));
	json_object_object_add(o, "auto_analysis", json_object_new_boolean(s->rtla.auto_analysis));
	json_object_object_add(o, "command", s->tl ? json_object_new_string(s->tl_cmd) : NULL);
	json_object_object_add(o, "method", json_object_new_string(side_method(s, SIDE_TL_THREAD)));
	json_object_object_add(o, "window", json_object_new_string(
		"rtla starts with the warm-up (its setup, seconds under emulation, would else come out of the measured "
		"phase) and ends with the measured phase: its histogram also holds what it sampled of the warm-up"));
	json_object_object_add(o, "agreement_rule", json_object_new_string(
		"timerlat's worst wakeup that the tracer sampled, window [sched_waking, switch-in] on its CPU: the "
		"osnoise events' time in the window per class (irq: IRQs; softirq; thread: other tasks) against "
		"jitterlab's parts (irq + timer + ipi; softirq; task + unpreempted); agree within 5 us or 25%"));
	json_object_object_add(s->doc, "timerlat", o);
}

/* cyclictest.json's skeleton: the comparison, and per loop its runs on each side (filled as they come). */
static void ct_doc_new(struct ct *s)
{
	char policy[64];

	s->doc = json_object_new_object();
	json_object_object_add(s->doc, "tool", json_object_new_string("jitterlab"));
	json_object_object_add(s->doc, "version", json_object_new_string(JL_VERSION));
	json_object_object_add(s->doc, "kind", json_object_new_string("cyclictest"));
	json_object_object_add(s->doc, "scenario", json_object_new_string(s->base->run.name));
	json_object_object_add(s->doc, "file", json_object_new_string(s->base->path));
	json_object_object_add(s->doc, "dir", json_object_new_string(s->dir));
	json_object_object_add(s->doc, "runs", json_object_new_int(s->o.runs));
	json_object_object_add(s->doc, "method", json_object_new_string(CT_METHOD));
	json_object_object_add(s->doc, "histogram_us", json_object_new_int(JL_CYCLICTEST_HIST_US));
	ct_doc_timerlat(s);
	s->threads = json_object_new_array();
	json_object_object_add(s->doc, "threads", s->threads);
	for (int k = 0; k < s->nm; k++) {
		const struct jl_thread_spec *t = &s->base->threads[s->measured[k]];
		json_object *to = json_object_new_object();
		char cpus[256] = "all";

		if (t->place.cpus_set)
			jl_cpulist_format(&t->place.cpus, cpus, sizeof(cpus));
		json_object_object_add(to, "name", json_object_new_string(t->name));
		json_object_object_add(to, "period_ns", json_object_new_int64(t->beh.period_ns));
		snprintf(policy, sizeof(policy), jl_policy_is_rt(t->place.policy) ? "%s %d" : "%s",
			 jl_policy_name(t->place.policy), t->place.priority);
		json_object_object_add(to, "policy", json_object_new_string(policy));
		json_object_object_add(to, "cpus", json_object_new_string(cpus));
		for (int side = 0; side < NSIDES; side++) {
			json_object *x;

			if ((side == SIDE_TL_THREAD || side == SIDE_TL_IRQ) && !s->tl)
				continue;
			x = json_object_new_object();
			json_object_object_add(x, "method", json_object_new_string(side_method(s, side)));
			json_object_object_add(x, "runs", json_object_new_array());
			json_object_object_add(to, sides[side], x);
		}
		json_object_array_add(s->threads, to);
	}
}

static int ct_open(void *ctx)
{
	struct ct *s = ctx;
	char err[JL_ERR_MAX + 256];

	if (jl_output_make_dir_latest(s->o.out, s->base->run.name, s->dir, sizeof(s->dir), err, sizeof(err))) {
		int status = errno == EPERM ? JL_EXIT_USAGE : JL_EXIT_RUNTIME; /* a refused --out: nothing touched */

		fprintf(stderr, "jitterlab cyclictest: %s\n", err);
		return status;
	}
	s->direct = ct_direct(s->dir, s->base, s->measured, s->nm, s->o.runs, &s->main_cpus);
	/* both sides keep jitterlab's own threads where the loop's run keeps them: on the cyclictest side no
	 * thread is measured, and "auto" would let them wake on the loop's CPUs */
	if (CPU_COUNT(&s->main_cpus) && !s->base->run.housekeeping_set) {
		s->base->run.housekeeping_set = true;
		s->base->run.housekeeping = s->main_cpus;
		s->base->run.housekeeping_text[0] = '\0';
	}
	snprintf(s->jlini, sizeof(s->jlini), "%s/jitterlab.ini", s->dir);
	if (jl_scenario_write_file(s->jlini, s->base)) {
		fprintf(stderr, "jitterlab cyclictest: cannot write %s: %s\n", s->jlini, strerror(errno));
		return JL_EXIT_RUNTIME;
	}
	ct_doc_new(s);
	return JL_LIFE_GO;
}

static int ct_nruns(const void *ctx)
{
	return ((const struct ct *)ctx)->o.runs * ((const struct ct *)ctx)->nkinds;
}

/* The side of repetition REP that KIND runs in the loops' place, into INI: for cyclictest, each measured
 * thread becomes an exec neighbour running cyclictest; for timerlat, the first one runs rtla timerlat on
 * every loop's CPUs (rtla runs one tracer for all), the others' places sleep. On the timerlat side a traced
 * scenario also records the osnoise group, and the kernel threads timerlat/N are measured from the trace
 * (measure = wakeups, threads = kthread:timerlat/N; rtla -u's user threads are rtla's own: timerlatu/N).
 * JL_LIFE_GO, or the exit status (said). */
static int ct_side_scenario(struct ct *s, enum ct_kind kind, int rep, char *ini, size_t len)
{
	char err[JL_ERR_MAX + 256], path[PATH_MAX + 64], cmdline[1024];

	memcpy(s->ct, s->base, sizeof(*s->ct));
	s->ct->nexpect = 0;
	if (kind == KIND_TL && s->ct->run.trace_groups)
		s->ct->run.trace_groups |= JL_TRACE_OSNOISE;
	for (int k = 0; k < s->nm; k++) {
		struct jl_thread_spec *t = &s->ct->threads[s->measured[k]];

		if (kind == KIND_TL) {
			snprintf(cmdline, sizeof(cmdline), "%s", k ? "sleep infinity" : s->tl_cmd);
		} else {
			ct_json_path(s->dir, s->direct, t->name, rep, path, sizeof(path));
			ct_json_create(s->direct, path);
			if (jl_cyclictest_cmdline(s->base, &s->base->threads[s->measured[k]], &s->main_cpus, path, cmdline,
						  sizeof(cmdline), err, sizeof(err))) {
				fprintf(stderr, "jitterlab cyclictest: %s\n", err);
				return JL_EXIT_USAGE;
			}
		}
		snprintf(t->beh.exec, sizeof(t->beh.exec), "%s", cmdline);
		t->beh.period_ns = 0;
		t->beh.period_from_rate = false;
		t->beh.deadline_ns = 0;
		t->beh.work.kind = JL_WORK_NONE;
		t->beh.work.arg = 0;
		t->beh.measure = -1;
		t->place.policy = JL_POLICY_OTHER; /* cyclictest sets its measurement thread's policy itself */
		t->place.priority = 0;
		t->place.nice = 0;
		t->beh.start_ns = 1;             /* start with the measured phase, not the warm-up */
		memset(t->key_line, 0, sizeof(t->key_line));
		t->key_line[JL_THREAD_KEY_EXEC] = t->line;
		if (kind == KIND_TL) {
			/* rtla from the warm-up on: its setup takes time (seconds under emulation) that would else
			 * come out of the measured phase */
			t->beh.start_ns = 0;
			/* rtla itself (and the sleepers) where jitterlab's own threads go: its threads are the kernel's
			 * (or its -u threads, which it pins itself). A traced run measures rtla's unit from the trace,
			 * and a measured unit may not share the housekeeping CPUs: there rtla goes where it likes. */
			t->place.cpus_set = CPU_COUNT(&s->main_cpus) > 0 && !(!k && s->ct->run.trace_groups);
			if (t->place.cpus_set)
				t->place.cpus = s->main_cpus;
			if (!k && s->ct->run.trace_groups) {
				t->beh.measure = JL_MEASURE_WAKEUPS;
				snprintf(t->beh.threads, sizeof(t->beh.threads), "%s",
					 s->rtla.user_threads ? "timerlatu/*" : "kthread:timerlat/*");
			}
		}
	}
	if (jl_scenario_validate(s->ct, err, sizeof(err))) {
		fprintf(stderr, "jitterlab cyclictest: the %s scenario is not valid: %s\n", kind == KIND_TL ? "timerlat" : "cyclictest",
			err);
		return JL_EXIT_RUNTIME;
	}
	snprintf(ini, len, "%s/%s-r%d.ini", s->dir, kind == KIND_TL ? "timerlat" : "cyclictest", rep);
	jl_scenario_write_file(ini, s->ct);
	return JL_LIFE_GO;
}

/* The summary's entry for measured thread K: the loop itself, or a probed program's first probed thread
 * (TN.NAME); *SERIES its name. NULL: none. */
static json_object *ct_jl_thread(const struct ct *s, json_object *sum, int k, const char **series)
{
	const char *tn = s->base->threads[s->measured[k]].name;
	json_object *th = NULL;
	size_t n = strlen(tn);

	*series = tn;
	for (size_t i = 0; sum && i < json_object_array_length(jget(sum, JL_K(threads))); i++) {
		json_object *x = json_object_array_get_idx(jget(sum, JL_K(threads)), i);
		const char *xn = json_object_get_string(jget(x, JL_K(name)));

		if (!strcmp(xn, tn) ? s->base->threads[s->measured[k]].beh.measure != JL_MEASURE_PROBE
				    : !th && !strncmp(xn, tn, n) && xn[n] == '.' &&
				      !strcmp(json_object_get_string(jget(x, JL_K(kind))), "probe")) {
			th = x;
			*series = xn;
		}
	}
	return th;
}

/* The worst wakeup (window "wakeup") in summary SUM of the series NAME (PREFIX: the series NAME.*) on CPUS
 * (NULL: any) with a latency below BELOW: its trace.worst[] entry, or NULL. */
static json_object *worst_of(json_object *sum, const char *name, bool prefix, const cpu_set_t *cpus, int64_t below)
{
	json_object *w = jget(jget(sum, JL_K(trace)), JL_K(worst)), *best = NULL;
	size_t n = strlen(name);

	for (size_t i = 0; w && i < json_object_array_length(w); i++) {
		json_object *e = json_object_array_get_idx(w, i);
		const char *tn = json_object_get_string(jget(e, JL_K(thread)));
		int cpu = json_object_get_int(jget(e, JL_K(cpu)));

		if (!tn || (prefix ? strncmp(tn, name, n) || tn[n] != '.' : strcmp(tn, name)) ||
		    strcmp(json_object_get_string(jget(e, JL_K(window))), "wakeup") ||
		    (cpus && (cpu < 0 || cpu >= CPU_SETSIZE || !CPU_ISSET(cpu, cpus))) ||
		    json_object_get_int64(jget(e, JL_K(latency_ns))) >= below)
			continue;
		if (!best || json_object_get_int64(jget(e, JL_K(latency_ns))) > json_object_get_int64(jget(best, JL_K(latency_ns))))
			best = e;
	}
	return best;
}

#define AGREE_NS 5000 /* the kernel's accounting and jitterlab's parts agree within 5 us or 25% */

/* jitterlab's parts of a cycle (PARTS) summed into the kernel's classes of noise: irq (timer, ipi too), softirq,
 * thread (a task or an unpreempted section). */
static void parts_by_class(json_object *parts, int64_t *jns)
{
	for (size_t i = 0; parts && i < json_object_array_length(parts); i++) {
		json_object *p = json_object_array_get_idx(parts, i);
		const char *k = json_object_get_string(jget(p, JL_K(kind)));
		int64_t d = json_object_get_int64(jget(p, JL_K(duration_ns)));

		if (!strcmp(k, "irq") || !strcmp(k, "timer") || !strcmp(k, "ipi"))
			jns[JL_NOISE_IRQ] += d;
		else if (!strcmp(k, "softirq"))
			jns[JL_NOISE_SOFTIRQ] += d;
		else if (!strcmp(k, "task") || !strcmp(k, "unpreempted"))
			jns[JL_NOISE_THREAD] += d;
	}
}

/* The kernel's time per class (KNS) against jitterlab's (JNS), into KO and JO; a line into AGREE per class on
 * which they disagree (more than AGREE_NS and a quarter apart; NMI time jitterlab cannot see). True when
 * they agree on all. */
static bool compare_classes(const int64_t *kns, const int64_t *jns, json_object *ko, json_object *jo,
			    json_object *agree)
{
	static const char *const cls[] = { "irq", "softirq", "thread", "nmi" };
	bool all = true;

	for (int c = 0; c < JL_NOISE_N; c++) {
		int64_t hi = kns[c] > jns[c] ? kns[c] : jns[c], diff = llabs(kns[c] - jns[c]);
		char line[256], a[48], b[48];

		json_object_object_add(ko, cls[c], json_object_new_int64(kns[c]));
		json_object_object_add(jo, cls[c], json_object_new_int64(jns[c]));
		if (c == JL_NOISE_NMI || diff <= AGREE_NS || diff * 4 <= hi)
			continue;
		all = false;
		snprintf(line, sizeof(line), "disagree on %s: the kernel counts %s in the window, jitterlab's parts %s", cls[c],
			 jl_value_format((double)kns[c], JL_UNIT_NS, false, a, sizeof(a)),
			 jl_value_format((double)jns[c], JL_UNIT_NS, false, b, sizeof(b)));
		json_object_array_add(agree, json_object_new_string(line));
	}
	return all;
}

/* The kernel's accounting of E's window [waking, switch-in] (osnoise events on its CPU in RDIR's trace.dat)
 * set beside jitterlab's parts, into W: kernel (the events), kernel_ns and jitterlab_ns per class,
 * agreement (sentences), agrees. */
static bool kernel_beside(json_object *w, json_object *e, const char *rdir)
{
	struct jl_kernel_noise kn[64];
	int64_t from = json_object_get_int64(jget(e, JL_K(waking_ns))), to = json_object_get_int64(jget(e, JL_K(switch_in_ns)));
	int64_t kns[JL_NOISE_N] = { 0 }, jns[JL_NOISE_N] = { 0 };
	json_object *list = json_object_new_array(), *ko = json_object_new_object(), *jo = json_object_new_object();
	json_object *agree = json_object_new_array(), *parts = jget(e, JL_K(parts));
	char dat[PATH_MAX + 16], err[256], text[512] = "", a[48];
	bool all;
	int n = 0;
	size_t o = 0;
	int64_t first;

	snprintf(dat, sizeof(dat), "%s/trace.dat", rdir);
	if (jl_trace_kernel_noise(dat, json_object_get_int(jget(e, JL_K(cpu))), from, to, kn, 64, &n, &first, err, sizeof(err))) {
		json_object_object_add(w, "kernel_error", json_object_new_string(err));
		json_object_put(list), json_object_put(ko), json_object_put(jo), json_object_put(agree);
		return true;
	}
	if (from < first) { /* the tracer was not sampling the CPU yet (rtla sets up, then samples) */
		json_object_put(list), json_object_put(ko), json_object_put(jo), json_object_put(agree);
		return false;
	}
	for (int i = 0; i < n && i < 64; i++) {
		int64_t lo = kn[i].end - kn[i].duration > from ? kn[i].end - kn[i].duration : from;
		int64_t ov = (kn[i].end < to ? kn[i].end : to) - lo;
		json_object *x = json_object_new_object();

		if (ov <= 0)
			ov = 0;
		kns[kn[i].cls] += ov;
		json_object_object_add(x, "class", json_object_new_string(jl_noise_class_name(kn[i].cls)));
		json_object_object_add(x, "name", json_object_new_string(kn[i].name));
		json_object_object_add(x, "id", json_object_new_int(kn[i].id));
		json_object_object_add(x, "duration_ns", json_object_new_int64(kn[i].duration));
		json_object_object_add(x, "in_window_ns", json_object_new_int64(ov));
		json_object_array_add(list, x);
		if (ov >= 1000 && o < sizeof(text))
			o += (size_t)snprintf(text + o, sizeof(text) - o, "%s%s %s %s", o ? ", " : "", jl_noise_class_name(kn[i].cls),
					      kn[i].name[0] ? kn[i].name : "-", jl_value_format((double)ov, JL_UNIT_NS, false, a, sizeof(a)));
	}
	parts_by_class(parts, jns);
	all = compare_classes(kns, jns, ko, jo, agree);
	if (all)
		json_object_array_add(agree, json_object_new_string(
			n ? "agree: irq, softirq and thread time within 5 us or 25% of jitterlab's parts"
			  : "agree only by absence: no osnoise event in the window (the kernel counted no interference)"));
	if (kns[JL_NOISE_NMI])
		json_object_array_add(agree, json_object_new_string("the kernel counts NMI time, which jitterlab's trace cannot see"));
	json_object_object_add(w, "kernel", list);
	json_object_object_add(w, "kernel_events", json_object_new_int(n));
	json_object_object_add(w, "kernel_text", json_object_new_string(text[0] ? text : "no interference counted"));
	json_object_object_add(w, "kernel_ns", ko);
	json_object_object_add(w, "jitterlab_ns", jo);
	json_object_object_add(w, "agreement", agree);
	json_object_object_add(w, "agrees", json_object_new_boolean(all));
	return true;
}

/* Keep E (a trace.worst[] entry of run REP in RDIR) as SIDE's "worst" when it is worse than the one kept;
 * KERNEL: with the kernel's accounting beside it, and only if the tracer sampled its CPU by then (false:
 * it did not, E not kept). */
static bool keep_worst(json_object *side, json_object *e, int rep, const char *rdir, bool kernel)
{
	json_object *w = jget(side, "worst");
	static const char *const copy[] = { "cycle", "cpu", "latency_ns", "waking_ns", "switch_in_ns", "text", "parts",
					    "culprit", "advice" };

	if (!e || (w && json_object_get_int64(jget(w, "latency_ns")) >= json_object_get_int64(jget(e, JL_K(latency_ns)))))
		return true;
	w = json_object_new_object();
	json_object_object_add(w, "run", json_object_new_int(rep));
	json_object_object_add(w, "dir", json_object_new_string(rdir));
	json_object_object_add(w, "series", json_object_get(jget(e, JL_K(thread))));
	for (size_t i = 0; i < sizeof(copy) / sizeof(copy[0]); i++)
		json_object_object_add(w, copy[i], json_object_get(jget(e, copy[i])));
	if (kernel && !kernel_beside(w, e, rdir)) {
		json_object_put(w);
		return false;
	}
	json_object_object_add(side, "worst", w);
	return true;
}

/* What rtla timerlat printed in run REP (its log in RDIR: the first loop's place), per loop on its CPUs,
 * and timerlat's worst wakeup from jitterlab's trace of the run. */
static void ct_collect_tl(struct ct *s, int rep, const char *rdir, const char *log)
{
	char err[JL_ERR_MAX + 256], path[PATH_MAX + 64];
	const char *tln = s->base->threads[s->measured[0]].name;
	struct jl_rtla_hist h;
	json_object *sum, *aa;
	char *text;

	snprintf(path, sizeof(path), "%s/%s.log", rdir, tln);
	text = rdir[0] ? jl_rtla_read_file(path) : NULL;
	if (!text || jl_rtla_hist_parse(text, JL_CYCLICTEST_HIST_US, &h, err, sizeof(err))) {
		fprintf(stderr, "jitterlab cyclictest: rtla timerlat's output %s: %s (log: %s)\n", path,
			text ? err : strerror(errno), log);
		free(text);
		return;
	}
	aa = jl_rtla_auto_analysis_parse(text); /* rtla 6.3+ prints it where a threshold stopped the trace */
	free(text);
	sum = jl_child_read_summary(rdir, err, sizeof(err));
	for (int k = 0; k < s->nm; k++) {
		const struct jl_thread_spec *t = &s->base->threads[s->measured[k]];
		const cpu_set_t *cpus = t->place.cpus_set ? &t->place.cpus : NULL;
		json_object *to = json_object_array_get_idx(s->threads, (size_t)k);
		struct jl_cyclictest_result r;

		if (jl_rtla_hist_result(&h, s->rtla.user_threads ? "Usr" : "Thr", cpus, &r, err, sizeof(err)) == 0) {
			json_object *runs = jget(jget(to, sides[SIDE_TL_THREAD]), "runs");

			add_ct_run(runs, &r, "log", path, rep);
			if (aa)
				json_object_object_add(json_object_array_get_idx(runs, json_object_array_length(runs) - 1),
						       "auto_analysis", json_object_get(aa));
		} else
			fprintf(stderr, "jitterlab cyclictest: rtla timerlat's output for '%s': %s\n", t->name, err);
		if (jl_rtla_hist_result(&h, "IRQ", cpus, &r, err, sizeof(err)) == 0)
			add_ct_run(jget(jget(to, sides[SIDE_TL_IRQ]), "runs"), &r, "log", path, rep);
		/* timerlat's worst among the wakeups the tracer sampled (its thread wakes before rtla has set it
		 * up, and those first wakeups are no timerlat samples) */
		for (int64_t below = INT64_MAX;;) {
			json_object *e = worst_of(sum, tln, true, cpus, below);

			if (!e || keep_worst(jget(to, sides[SIDE_TL_THREAD]), e, rep, rdir, true))
				break;
			below = json_object_get_int64(jget(e, JL_K(latency_ns)));
		}
	}
	json_object_put(sum);
	json_object_put(aa);
	jl_rtla_hist_free(&h);
}

/* What one run of SIDE gave for each measured thread, into the document. */
static void ct_collect(struct ct *s, int rep, int side, const char *rdir, const char *log)
{
	char err[JL_ERR_MAX + 256], path[PATH_MAX + 64];

	for (int k = 0; k < s->nm; k++) {
		json_object *to = json_object_array_get_idx(s->threads, (size_t)k);
		const char *tn = s->base->threads[s->measured[k]].name, *sn;
		struct jl_cyclictest_result r;

		if (!side) {
			ct_json_path(s->dir, s->direct, tn, rep, path, sizeof(path));
			if (jl_cyclictest_parse_file(path, &r, err, sizeof(err))) {
				fprintf(stderr, "jitterlab cyclictest: %s (log: %s)\n", err, log);
			} else {
				ct_json_keep(s->dir, s->direct, tn, rep, path, sizeof(path));
				add_ct_run(jget(jget(to, "cyclictest"), "runs"), &r, "json", path, rep);
			}
			continue;
		}
		json_object *sum = rdir[0] ? jl_child_read_summary(rdir, err, sizeof(err)) : NULL;
		json_object *th = ct_jl_thread(s, sum, k, &sn);

		if (th) {
			keep_worst(jget(to, "jitterlab"), worst_of(sum, sn, false, NULL, INT64_MAX), rep, rdir, false);
			add_jl_run(jget(jget(to, "jitterlab_exact"), "runs"), th, rdir, rep);
			if (jl_cyclictest_bucket_samples(rdir, sn, &r, err, sizeof(err)))
				fprintf(stderr, "jitterlab cyclictest: %s\n", err);
			else
				add_ct_run(jget(jget(to, "jitterlab"), "runs"), &r, "dir", rdir, rep);
		} else
			fprintf(stderr, "jitterlab cyclictest: no result for '%s' in the jitterlab run (log: %s)\n", tn, log);
		json_object_put(sum);
	}
}

/* Run I: repetition I / 2 + 1, cyclictest in the loops' place (even I), then jitterlab's loops (odd I). */
static int ct_run(void *ctx, int i, const sigset_t *child_mask)
{
	struct ct *s = ctx;
	struct jl_child_run cr = { 0 };
	char err[JL_ERR_MAX + 256], ctini[PATH_MAX + 64], name[32], out[PATH_MAX + 32], log[PATH_MAX + 64];
	char rdir[PATH_MAX];
	enum ct_kind kind = s->order[i % s->nkinds];
	static const char *const kind_dir[] = { "cyclictest", "timerlat", "jitterlab" };
	static const char *const kind_what[] = { "cyclictest in its place", "rtla timerlat in its place", "jitterlab's loop" };
	int rep = i / s->nkinds + 1, side = kind == KIND_JL;
	int rc = kind == KIND_JL ? JL_LIFE_GO : ct_side_scenario(s, kind, rep, ctini, sizeof(ctini));
	bool intr = false;

	if (rc != JL_LIFE_GO) {
		s->status = rc;
		s->aborted = true;
		return JL_LIFE_STOP;
	}
	snprintf(name, sizeof(name), "r%d", rep);
	snprintf(out, sizeof(out), "%s/%s", s->dir, kind_dir[kind]);
	snprintf(log, sizeof(log), "%s/%s-r%d.log", s->dir, kind_dir[kind], rep);
	cr.scenario = side ? s->jlini : ctini;
	cr.out_dir = out;
	cr.name = name;
	cr.log_path = log;
	cr.timeout_ns = s->base->run.warmup_ns + s->base->run.duration_ns + 60 * JL_NSEC_PER_SEC;
	if (!s->o.quiet)
		fprintf(stderr, "cyclictest: run %d of %d: %s\n", i + 1, s->o.runs * s->nkinds, kind_what[kind]);
	rc = jl_child_run_exec(&cr, child_mask, &intr, rdir, sizeof(rdir), err, sizeof(err));
	if (rc < 0) {
		fprintf(stderr, "jitterlab cyclictest: %s\n", err);
		s->status = JL_EXIT_RUNTIME;
		return JL_LIFE_STOP;
	}
	if (intr || rc == JL_EXIT_INTERRUPTED)
		return JL_LIFE_STOP;
	if (rc != JL_EXIT_OK && rc != JL_EXIT_EXPECT)
		fprintf(stderr, "jitterlab cyclictest: the %s run exited %d; its log: %s\n", kind_dir[kind], rc, log);
	if (kind == KIND_TL)
		ct_collect_tl(s, rep, rdir, log);
	else
		ct_collect(s, rep, side, rdir, log);
	return JL_LIFE_NEXT;
}

static void ct_close(void *ctx, bool interrupted)
{
	struct ct *s = ctx;
	char path[PATH_MAX + 64];

	(void)interrupted;
	if (s->aborted)
		return;
	json_object_object_add(s->doc, "interrupted", json_object_new_boolean(jl_stopping()));
	finish_doc(s->doc);
	snprintf(path, sizeof(path), "%s/%s", s->dir, jl_document_file(JL_DOC_CYCLICTEST));
	if (jl_output_write_json_path(path, s->doc))
		fprintf(stderr, "jitterlab cyclictest: cannot write %s: %s\n", path, strerror(errno));
	if (s->o.json) {
		jl_json_print(stdout, s->doc);
		fprintf(stderr, "cyclictest.json and both sides' runs in %s\n", s->dir);
	} else {
		jl_cyclictest_print(stdout, s->doc);
		printf("\ncyclictest.json and both sides' runs in %s\n", s->dir);
	}
}

static int ct_verdict(void *ctx, bool interrupted)
{
	struct ct *s = ctx;

	if (s->aborted)
		return s->status;
	for (int k = 0; k < s->nm && s->status == JL_EXIT_OK; k++) {
		json_object *to = json_object_array_get_idx(s->threads, (size_t)k);

		if (!json_object_array_length(jget(jget(to, "cyclictest"), "runs")) ||
		    !json_object_array_length(jget(jget(to, "jitterlab"), "runs")) ||
		    (s->tl && !json_object_array_length(jget(jget(to, sides[SIDE_TL_THREAD]), "runs"))))
			s->status = JL_EXIT_RUNTIME;
	}
	return interrupted || jl_stopping() ? JL_EXIT_INTERRUPTED : s->status;
}

static void ct_free(void *ctx)
{
	struct ct *s = ctx;

	json_object_put(s->doc);
	free(s->base);
	free(s->ct);
}

static const struct jl_lifecycle_ops ct_ops = {
	.name = "cyclictest", .ctx_size = sizeof(struct ct), .children = true, .plan = ct_plan, .open = ct_open,
	.nruns = ct_nruns, .run = ct_run, .close = ct_close, .verdict = ct_verdict, .free = ct_free,
};

int cmd_cyclictest(int argc, char **argv)
{
	return jl_lifecycle_main(&ct_ops, argc, argv);
}
