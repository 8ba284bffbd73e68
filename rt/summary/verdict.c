/* verdict: see verdict.h. Reads summary.json's keys (docs/outputs.md) and nothing else of the run. */
#include "verdict.h"

#include <dirent.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "../base/summary_keys.h"

static const char *str(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string) ? json_object_get_string(v)
												   : "";
}

static int64_t num(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && v ? json_object_get_int64(v) : 0;
}

/* A latency in its own unit: us below a millisecond, ms from there. */
static const char *dur(int64_t ns, char *buf, size_t len)
{
	if (ns < 1000000)
		snprintf(buf, len, "%.1f us", ns / 1e3);
	else
		snprintf(buf, len, "%.2f ms", ns / 1e6);
	return buf;
}

/* The threads[] entry named NAME, or NULL (a callback's or a probed program's series has none). */
static json_object *thread_of(json_object *summary, const char *name)
{
	json_object *threads;

	if (!json_object_object_get_ex(summary, JL_K(threads), &threads))
		return NULL;
	for (size_t i = 0; i < json_object_array_length(threads); i++) {
		json_object *t = json_object_array_get_idx(threads, i);

		if (!strcmp(str(t, JL_K(name)), name))
			return t;
	}
	return NULL;
}

/* Real-time loops first: deadline, then fifo and rr by priority, then the rest. */
static int rank(json_object *summary, const char *name)
{
	json_object *t = thread_of(summary, name);
	const char *p = t ? str(t, JL_K(policy)) : "";

	if (!strcmp(p, "deadline"))
		return 200;
	if (!strcmp(p, "fifo") || !strcmp(p, "rr"))
		return 100 + (int)num(t, JL_K(priority));
	return 0;
}

struct entry {
	json_object *w;
	const char *thread;
	int64_t cycle, size; /* size: the latency of a wakeup window, the response of a response window */
	int rank, group;     /* group: the loops in the order the analysis first listed each */
};

/* Real-time loops first, a loop's cycles together, the largest first. */
static int by_loop(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	if (x->rank != y->rank)
		return y->rank - x->rank;
	if (x->group != y->group)
		return x->group - y->group;
	return x->size < y->size ? 1 : x->size > y->size ? -1 : 0;
}

/* Is W a wakeup window whose cycle WORST also explains over its response window? */
static bool explained_as_miss(json_object *worst, json_object *w)
{
	if (strcmp(str(w, JL_K(window)), "wakeup"))
		return false;
	for (size_t i = 0; i < json_object_array_length(worst); i++) {
		json_object *o = json_object_array_get_idx(worst, i);

		if (!strcmp(str(o, JL_K(window)), "response") && !strcmp(str(o, JL_K(thread)), str(w, JL_K(thread))) &&
		    num(o, JL_K(cycle)) == num(w, JL_K(cycle)))
			return true;
	}
	return false;
}

/* The key advice is grouped by: its rule ("fair-share"), or its text where it names no rule. */
static const char *advice_key(json_object *w)
{
	const char *rule = str(w, JL_K(advice_rule));

	return rule[0] ? rule : str(w, JL_K(advice));
}

/* Each rule's advice of the loop's entries E[0..N) once, in the words of its first cycle (later ones differ
 * at most in the names they cite: "hog.1" for "hog.0"), with every cycle it covers. */
static void advice_lines(FILE *out, const struct entry *e, int n)
{
	for (int i = 0; i < n; i++) {
		const char *key = advice_key(e[i].w), *sep = " (cycle";
		int covers = 0;
		bool first = true;

		if (!str(e[i].w, JL_K(advice))[0])
			continue;
		for (int k = 0; k < i && first; k++)
			first = strcmp(advice_key(e[k].w), key) != 0 || !str(e[k].w, JL_K(advice))[0];
		if (!first)
			continue;
		for (int k = i; k < n; k++)
			covers += !strcmp(advice_key(e[k].w), key);
		fprintf(out, "    advice: %s", str(e[i].w, JL_K(advice)));
		for (int k = i; k < n; k++) {
			if (strcmp(advice_key(e[k].w), key))
				continue;
			fprintf(out, "%s%s %lld", sep, sep[0] == ' ' && covers > 1 ? "s" : "", (long long)e[k].cycle);
			sep = ",";
		}
		fprintf(out, ")\n");
	}
}

/* SUMMARY's explained cycles into *E (malloc'd, *N of them), each once (a wakeup explained as a miss as well
 * is left out), real-time loops first, a loop's together, largest first. 0, or -1 when there are none. */
static int entries(json_object *summary, struct entry **e, int *n)
{
	json_object *trace, *worst;
	int total;

	*e = NULL;
	*n = 0;
	if (!json_object_object_get_ex(summary, JL_K(trace), &trace) || !trace ||
	    !json_object_object_get_ex(trace, JL_K(worst), &worst) || !json_object_is_type(worst, json_type_array) ||
	    !(total = (int)json_object_array_length(worst)) || !(*e = calloc((size_t)total, sizeof(**e))))
		return -1;
	for (int i = 0; i < total; i++) {
		json_object *w = json_object_array_get_idx(worst, i);

		if (explained_as_miss(worst, w))
			continue;
		(*e)[*n] = (struct entry){ w, str(w, JL_K(thread)), num(w, JL_K(cycle)),
					   num(w, strcmp(str(w, JL_K(window)), "response") ? JL_K(latency_ns) : JL_K(response_ns)),
					   rank(summary, str(w, JL_K(thread))), -1 };
		(*n)++;
	}
	for (int i = 0, groups = 0; i < *n; i++) {
		for (int k = 0; k < i && (*e)[i].group < 0; k++)
			if (!strcmp((*e)[k].thread, (*e)[i].thread))
				(*e)[i].group = (*e)[k].group;
		if ((*e)[i].group < 0)
			(*e)[i].group = groups++;
	}
	qsort(*e, (size_t)*n, sizeof(**e), by_loop);
	return 0;
}

int jl_verdict_tail_causes(FILE *out, json_object *table, int max)
{
	json_object *causes = NULL;
	int shown = 0;

	if (!table || !json_object_object_get_ex(table, JL_K(causes), &causes) || !json_object_is_type(causes, json_type_array))
		return 0;
	for (size_t k = 0; k < json_object_array_length(causes) && shown < max; k++) {
		json_object *c = json_object_array_get_idx(causes, k), *sh = NULL;
		double share = json_object_object_get_ex(c, JL_K(share), &sh) ? json_object_get_double(sh) : 0;

		if (share < 0.005)
			continue;
		fprintf(out, "%s %s %.0f%%", shown ? "," : "", str(c, JL_K(cause)), 100 * share);
		shown++;
	}
	return shown;
}

/* Loop THREAD's tail in one line, from trace.tail: the causes of its excess over p50, largest first, and
 * where it missed, of the misses' responses (where every cycle misses, p50 is late too: the excess says
 * little, the responses why). */
static void tail_line(FILE *out, json_object *summary, const char *thread)
{
	json_object *trace = NULL, *tails = NULL, *t = NULL, *ex = NULL, *resp = NULL;
	double total;
	long long misses;

	if (!json_object_object_get_ex(summary, JL_K(trace), &trace) || !json_object_object_get_ex(trace, JL_K(tail), &tails) ||
	    !json_object_object_get_ex(tails, thread, &t) || !json_object_object_get_ex(t, JL_K(excess), &ex) ||
	    !num(t, JL_K(cycles)))
		return;
	json_object_object_get_ex(t, JL_K(response), &resp);
	total = (double)num(ex, JL_K(total_ns));
	misses = (long long)num(t, JL_K(misses));
	fprintf(out, "    tail (%lld cycles: %lld above %.0f us, %s bucket", (long long)num(t, JL_K(cycles)),
		(long long)num(t, JL_K(above)), (double)num(t, JL_K(threshold_ns)) / 1e3,
		strcmp(str(t, JL_K(threshold_from)), "tail") ? "p99's" : "[run] tail's");
	if (misses)
		fprintf(out, ", %lld missed", misses);
	fprintf(out, "; %.*f %s over p50 in all):", total >= 1e9 ? 2 : 1, total >= 1e9 ? total / 1e9 : total / 1e6,
		total >= 1e9 ? "s" : "ms");
	if (!jl_verdict_tail_causes(out, ex, 3))
		fprintf(out, " none over p50");
	if (misses) {
		fprintf(out, "; the misses' responses:");
		jl_verdict_tail_causes(out, resp, 2);
	}
	fprintf(out, "\n");
}

void jl_verdict_cycles(FILE *out, json_object *summary)
{
	struct entry *e;
	int n;

	if (entries(summary, &e, &n) < 0)
		return;
	fprintf(out, "\nworst cycles (%d explained, real-time loops first; report.md has every one):\n", n);
	for (int i = 0; i < n;) {
		int end = i, shown = 0;
		json_object *t = thread_of(summary, e[i].thread);

		while (end < n && !strcmp(e[end].thread, e[i].thread))
			end++;
		if (t && num(t, JL_K(priority)))
			fprintf(out, "  %s (%s %lld):\n", e[i].thread, str(t, JL_K(policy)), (long long)num(t, JL_K(priority)));
		else
			fprintf(out, "  %s%s%s%s:\n", e[i].thread, t ? " (" : "", t ? str(t, JL_K(policy)) : "", t ? ")" : "");
		for (int k = i; k < end && shown < JL_VERDICT_CYCLES; k++, shown++)
			fprintf(out, "    %s\n", str(e[k].w, JL_K(text)));
		if (end - i > shown)
			fprintf(out, "    (%d more in report.md)\n", end - i - shown);
		advice_lines(out, e + i, end - i);
		tail_line(out, summary, e[i].thread);
		i = end;
	}
	free(e);
}

json_object *jl_verdict_session(json_object *summary)
{
	json_object *arr, *v, *pick = NULL;
	struct entry *e;
	int n;

	if (entries(summary, &e, &n) < 0)
		return NULL;
	/* the loop whose expectation failed, in the order of [expect]: its largest explained cycle */
	if (json_object_object_get_ex(summary, JL_K(expect), &arr) && json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr) && !pick; i++) {
			json_object *x = json_object_array_get_idx(arr, i);

			if (!json_object_object_get_ex(x, JL_K(ok), &v) || json_object_get_boolean(v))
				continue;
			for (int k = 0; k < n && !pick; k++)
				if (!strcmp(e[k].thread, str(x, JL_K(thread))))
					pick = e[k].w;
		}
	if (!pick && n) /* else the highest-priority loop's (the first group: real-time loops first) */
		pick = e[0].w;
	free(e);
	return pick;
}

void jl_verdict_kshark(FILE *out, json_object *summary, const char *dir, bool installed)
{
	json_object *trace, *c;
	char path[4200], abs[PATH_MAX];

	if (!json_object_object_get_ex(summary, JL_K(trace), &trace) || !trace ||
	    !json_object_object_get_ex(trace, JL_K(kernelshark_cycle), &c) || !c || !dir)
		return;
	snprintf(path, sizeof(path), "%s/%s", dir, str(trace, JL_K(kernelshark)));
	if (!realpath(path, abs))
		return;
	fprintf(out, "open %s cycle %lld in KernelShark: kernelshark -s %s\n", str(c, JL_K(thread)),
		(long long)num(c, JL_K(cycle)), abs);
	if (!installed)
		fprintf(out, "  (KernelShark is not installed: sudo apt-get install kernelshark)\n");
}

/* What decided a non-zero status: the failed expectations, budgets, stop_at; "" when none is known. */
static void decided_by(json_object *summary, char *buf, size_t len)
{
	json_object *arr, *st, *v;
	size_t o = 0;

	buf[0] = '\0';
	if (json_object_object_get_ex(summary, JL_K(expect), &arr) && json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr) && o < len; i++) {
			json_object *x = json_object_array_get_idx(arr, i);

			if (json_object_object_get_ex(x, JL_K(ok), &v) && !json_object_get_boolean(v))
				o += (size_t)snprintf(buf + o, len - o, "%s[expect] %s", o ? ", " : "", str(x, JL_K(label)));
		}
	if (json_object_object_get_ex(summary, JL_K(budget), &arr) && json_object_is_type(arr, json_type_array))
		for (size_t i = 0; i < json_object_array_length(arr) && o < len; i++) {
			json_object *x = json_object_array_get_idx(arr, i);

			if (json_object_object_get_ex(x, JL_K(ok), &v) && !json_object_get_boolean(v))
				o += (size_t)snprintf(buf + o, len - o, "%s[budget] %s", o ? ", " : "", str(x, JL_K(stage)));
		}
	if (o < len && json_object_object_get_ex(summary, JL_K(stop_at), &st) && st &&
	    json_object_object_get_ex(st, JL_K(fired), &v) && json_object_get_boolean(v))
		snprintf(buf + o, len - o, "%s[run] stop_at: %s.%s crossed its threshold", o ? ", " : "", str(st, JL_K(series)),
			 str(st, JL_K(metric)));
}

/* How many expectations SUMMARY has, and how many held. */
static void expectations(json_object *summary, int *all, int *held)
{
	json_object *arr, *v;

	*all = *held = 0;
	if (!json_object_object_get_ex(summary, JL_K(expect), &arr) || !json_object_is_type(arr, json_type_array))
		return;
	*all = (int)json_object_array_length(arr);
	for (int i = 0; i < *all; i++)
		*held += json_object_object_get_ex(json_object_array_get_idx(arr, i), JL_K(ok), &v) &&
			 json_object_get_boolean(v);
}

void jl_verdict_line(FILE *out, json_object *summary)
{
	json_object *threads, *v;
	int status = (int)num(summary, JL_K(exit_status)), all, held, listed = 0, more = 0;
	char why[1024];

	expectations(summary, &all, &held);
	decided_by(summary, why, sizeof(why));
	fprintf(out, "\nverdict: exit %d, ", status);
	if (status == 0)
		fprintf(out, all ? "every expectation held (%d of %d)" : "ran (no [expect] to judge)", held, all);
	else if (status == 3)
		fprintf(out, "failed: %s", why[0] ? why : "an expectation, a budget or stop_at");
	else if (status == 130)
		fprintf(out, "interrupted, everything put back");
	else
		fprintf(out, "the run failed (see the errors above)");
	if (json_object_object_get_ex(summary, JL_K(threads), &threads) && json_object_is_type(threads, json_type_array))
		for (size_t i = 0; i < json_object_array_length(threads); i++) {
			json_object *t = json_object_array_get_idx(threads, i), *lat;
			int64_t cycles = num(t, JL_K(cycles)), misses = num(t, JL_K(misses));
			char p99[32], max[32];

			if (!json_object_object_get_ex(t, JL_K(measured), &v) || !json_object_get_boolean(v) || cycles <= 0 ||
			    !json_object_object_get_ex(t, JL_K(latency_ns), &lat) || !lat)
				continue;
			if (listed == 6) {
				more++;
				continue;
			}
			listed++;
			fprintf(out, " · %s p99 %s, max %s, %lld miss%s (%.1f%%)", str(t, JL_K(name)),
				dur(num(lat, JL_K(p99)), p99, sizeof(p99)), dur(num(lat, JL_K(max)), max, sizeof(max)),
				(long long)misses, misses == 1 ? "" : "es", 100.0 * (double)misses / (double)cycles);
		}
	if (more)
		fprintf(out, " · %d more loops in report.md", more);
	fputc('\n', out);
}

static int by_name(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

void jl_verdict_files(FILE *out, const char *dir)
{
	char path[4200], *svg[32];
	struct stat st;
	struct dirent *d;
	DIR *dp;
	int n = 0;

	if (!dir)
		return;
	dp = opendir(dir);
	while (dp && (d = readdir(dp)) && n < 32) {
		size_t l = strlen(d->d_name);

		if (l > 4 && !strcmp(d->d_name + l - 4, ".svg") && d->d_name[0] != '.')
			svg[n++] = strdup(d->d_name);
	}
	if (dp)
		closedir(dp);
	snprintf(path, sizeof(path), "%s/report.md", dir);
	if (stat(path, &st) == 0)
		fprintf(out, "report: %s (the table and every explained cycle)\n", path);
	snprintf(path, sizeof(path), "%s/report.html", dir);
	if (stat(path, &st) == 0)
		fprintf(out, "page: %s (one page to look at, offline: open it in a browser)\n", path);
	if (n) {
		qsort(svg, (size_t)n, sizeof(*svg), by_name);
		fprintf(out, "plots:");
		for (int i = 0; i < n; i++) {
			fprintf(out, "%s %s", i ? "," : "", svg[i] ? svg[i] : "");
			free(svg[i]);
		}
		fprintf(out, " (in the run directory)\n");
	}
}
