/* analyze: `jitterlab analyze RUN_DIR|TRACE.dat [--json] [--kernelshark] [--thread T] [--cycle N]`, the wakeup
 * analysis offline.
 * A RUN_DIR gives the threads (names, tids, policies) from summary.json and the cycles from samples.csv,
 * so its worst cycles are explained as the run explained them; a bare trace.dat (ours, or one recorded by
 * trace-cmd, v6 or v7) is read through libtracecmd and its RT tasks' wakeups are analysed instead.
 * --thread/--cycle explain any cycle of the trace. It only reads, except with --kernelshark: then it (re)writes
 * KernelShark sessions (a RUN_DIR's kernelshark.json and kernelshark/, e.g. after the run was moved; with
 * --thread/--cycle that cycle's alone; beside a bare NAME.dat, NAME.kernelshark*.json).
 * It never touches tracefs. */
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <json-c/json.h>

#include "commands.h"
#include "../../affinity/cli.h"
#include "../base/output.h"
#include "../base/samples_read.h"
#include "../scenario/scenario.h"
#include "../summary/summary_read.h"
#include "../summary/table.h"
#include "../trace/analysis/advice.h"
#include "../trace/analysis/analysis.h"
#include "../trace/analysis/parts.h"
#include "../trace/analysis/prune.h"
#include "../trace/analysis/summarize.h"
#include "../trace/analysis/worst.h"
#include "../trace/io/kshark.h"
#include "../trace/io/read.h"
#include "../trace/io/syms.h"
#include "../base/summary_keys.h"

#define MAX_BARE_THREADS 8

struct input {
	char dat[PATH_MAX];
	struct jl_analysis_thread *threads;
	int nthreads;
	struct jl_analysis_sample *samples;
	size_t nsamples;
	int64_t from;
	struct jl_analysis_budget budget; /* from summary.json's host block, when there is one */
	bool have_budget;
	struct jl_trace_advice_in advice; /* the host facts the advice reads (unknown without a summary) */
	char chosen_thread[JL_ANALYSIS_NAME_MAX]; /* the run's kernelshark.json cycle (trace.kernelshark_cycle) */
	int64_t chosen_cycle;                    /* -1: none */
	int64_t tail_ns;                         /* the run's [run] tail (summary.json trace.tail): -1 off, 0 p99 */
};

static void input_free(struct input *in)
{
	free(in->threads);
	free(in->samples);
}

static int thread_index(const struct input *in, const char *name)
{
	for (int i = 0; i < in->nthreads; i++)
		if (!strcmp(in->threads[i].name, name))
			return i;
	return -1;
}

/* threads[] of summary.json: name, tid, policy, priority, nice, measured. */
/* The [run] tail the run counted with, from its trace.tail (-1: off; 0: p99 or not said; else the threshold) */
static int64_t run_tail(json_object *root)
{
	json_object *trace, *tails, *v;

	if (!json_object_object_get_ex(root, JL_K(trace), &trace) || !json_object_object_get_ex(trace, JL_K(tail), &tails) ||
	    !json_object_is_type(tails, json_type_object))
		return 0;
	json_object_object_foreach(tails, name, t) {
		(void)name;
		if (json_object_object_get_ex(t, JL_K(why), &v) && !strcmp(json_object_get_string(v), "[run] tail = off"))
			return -1;
		if (json_object_object_get_ex(t, JL_K(threshold_from), &v) && !strcmp(json_object_get_string(v), "tail") &&
		    json_object_object_get_ex(t, JL_K(threshold_ns), &v))
			return json_object_get_int64(v); /* its bucket's top: the same bucket again */
	}
	return 0;
}

static int load_summary(const char *dir, struct input *in, char *err, size_t errlen)
{
	char path[PATH_MAX];
	json_object *root, *threads;
	int n;

	snprintf(path, sizeof(path), "%s/summary.json", dir);
	root = jl_summary_read(dir, err, errlen);
	if (!root)
		return -1;
	if (!json_object_object_get_ex(root, JL_K(threads), &threads) || !json_object_is_type(threads, json_type_array)) {
		snprintf(err, errlen, "analyze: %s has no threads[]", path);
		json_object_put(root);
		return -1;
	}
	n = (int)json_object_array_length(threads);
	in->threads = calloc(n ? n : 1, sizeof(*in->threads));
	if (!in->threads) {
		json_object_put(root);
		snprintf(err, errlen, "analyze: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		json_object *t = json_object_array_get_idx(threads, i), *v;
		struct jl_analysis_thread *th = &in->threads[in->nthreads];
		const char *pol = "";
		int prio = 0, nice = 0;

		if (!json_object_object_get_ex(t, JL_K(name), &v))
			continue;
		snprintf(th->name, sizeof(th->name), "%s", json_object_get_string(v));
		if (!json_object_object_get_ex(t, JL_K(tid), &v) || json_object_get_int(v) <= 0)
			continue; /* a summary without tids: nothing to pair */
		th->pid = json_object_get_int(v);
		th->measured = json_object_object_get_ex(t, JL_K(measured), &v) && json_object_get_boolean(v);
		if (json_object_object_get_ex(t, JL_K(policy), &v))
			pol = json_object_get_string(v);
		if (json_object_object_get_ex(t, JL_K(priority), &v))
			prio = json_object_get_int(v);
		if (json_object_object_get_ex(t, JL_K(nice), &v))
			nice = json_object_get_int(v);
		if (jl_policy_from_name(pol) != JL_POLICY_N)
			jl_policy_format(jl_policy_from_name(pol), prio, nice, true, th->policy, sizeof(th->policy));
		in->nthreads++;
	}
	{
		json_object *host, *smp, *v;

		/* samples.csv holds only the kept cycles of the loops' rings (samples = worst: a long run): the
		 * analysis is pruned to them; with every row (samples = all) it is the whole analysis, whose
		 * figures the run's live analysis gives too */
		if (json_object_object_get_ex(root, JL_K(samples), &smp) && json_object_object_get_ex(smp, JL_K(storage), &v) &&
		    !strcmp(json_object_get_string(v), "ring") && json_object_object_get_ex(smp, JL_K(mode), &v) &&
		    strcmp(json_object_get_string(v), "all"))
			for (int i = 0; i < in->nthreads; i++)
				in->threads[i].partial = true;
		if (json_object_object_get_ex(root, JL_K(trace), &v) && v &&
		    json_object_object_get_ex(v, JL_K(kernelshark_cycle), &v) && v) {
			json_object *name = json_object_object_get(v, JL_K(thread));

			snprintf(in->chosen_thread, sizeof(in->chosen_thread), "%s", name ? json_object_get_string(name) : "");
			in->chosen_cycle = json_object_get_int64(json_object_object_get(v, JL_K(cycle)));
		}
		if (json_object_object_get_ex(root, JL_K(host), &host)) {
			jl_analysis_budget_defaults(&in->budget); /* then what the run's host block says */
			jl_trace_budget_from_host(host, &in->budget);
			in->have_budget = true;
			jl_trace_advice_from_host(host, &in->advice);
		}
		in->tail_ns = run_tail(root);
	}
	json_object_put(root);
	return 0;
}

/* One samples.csv row, kept with its thread's index (rows of threads the summary does not name are
 * dropped). */
struct row {
	int thread;
	struct jl_analysis_sample s;
};

struct rows_ctx {
	const struct input *in;
	struct row *rows;
	size_t n, cap;
};

static int keep_row(void *ctx, const struct jl_sample_row *r)
{
	struct rows_ctx *c = ctx;
	struct row x = { .thread = thread_index(c->in, r->thread),
			 .s = { .release = r->release, .wake = r->wake, .end = r->end, .miss = r->miss, .cycle = r->cycle } };

	if (x.thread < 0)
		return 0;
	if (c->n == c->cap) {
		struct row *nr = realloc(c->rows, (c->cap = c->cap ? c->cap * 2 : 4096) * sizeof(*nr));

		if (!nr)
			return 1; /* stop: out of memory */
		c->rows = nr;
	}
	c->rows[c->n++] = x;
	return 0;
}

/* samples.csv (samples_read.c: the header names the columns), grouped per thread. */
static int load_samples(const char *dir, struct input *in, char *err, size_t errlen)
{
	struct rows_ctx c = { .in = in };
	struct row *rows;
	size_t nrows;
	int rc = jl_samples_read(dir, NULL, keep_row, &c, err, errlen);

	if (rc < 0 && errno == ENOENT)
		return 0; /* no samples: wakeups only */
	if (rc) {
		free(c.rows);
		if (rc > 0)
			snprintf(err, errlen, "analyze: out of memory");
		return -1;
	}
	rows = c.rows;
	nrows = c.n;
	in->samples = calloc(nrows ? nrows : 1, sizeof(*in->samples));
	if (!in->samples) {
		free(rows);
		snprintf(err, errlen, "analyze: out of memory");
		return -1;
	}
	in->from = 0;
	for (int t = 0; t < in->nthreads; t++) {
		in->threads[t].samples = in->samples + in->nsamples;
		for (size_t i = 0; i < nrows; i++) {
			if (rows[i].thread != t)
				continue;
			in->samples[in->nsamples++] = rows[i].s;
			in->threads[t].nsamples++;
			if (!in->from || rows[i].s.release < in->from)
				in->from = rows[i].s.release;
		}
		if (!in->threads[t].nsamples)
			in->threads[t].samples = NULL;
		in->threads[t].sampled = in->threads[t].nsamples > 0;
	}
	free(rows);
	return 0;
}

static int load_bare(const char *dat, struct input *in, char *err, size_t errlen)
{
	int32_t pids[MAX_BARE_THREADS];
	char names[MAX_BARE_THREADS][JL_EVENT_COMM];
	int n = 0;

	if (jl_trace_discover(dat, pids, names, MAX_BARE_THREADS, &n, err, errlen) < 0)
		return -1;
	in->threads = calloc(n ? n : 1, sizeof(*in->threads));
	if (!in->threads) {
		snprintf(err, errlen, "analyze: out of memory");
		return -1;
	}
	for (int i = 0; i < n; i++) {
		snprintf(in->threads[i].name, sizeof(in->threads[i].name), "%s-%d", names[i], (int)pids[i]);
		in->threads[i].pid = pids[i];
		in->threads[i].measured = true;
	}
	in->nthreads = n;
	return 0;
}

static void print_text(const struct jl_analysis *an, json_object *block, const char *text, const char *dat,
		       double secs)
{
	json_object *wk, *v;

	printf("trace: %s\n", dat);
	printf("  events %lld, lost %lld, analysed in %.3f s (%.0f events/s)\n",
	       (long long)json_object_get_int64(json_object_object_get(block, JL_K(events))),
	       (long long)json_object_get_int64(json_object_object_get(block, JL_K(lost_events))), secs,
	       secs > 0 ? (double)json_object_get_int64(json_object_object_get(block, JL_K(events))) / secs : 0.0);
	if (json_object_object_get_ex(block, JL_K(wakeup_ns), &wk)) {
		printf("  wakeup latency (sched_waking -> switch-in), us:\n");
		printf("    %-20s %8s %10s %10s %10s\n", "thread", "count", "p50", "p99", "max");
		json_object_object_foreach(wk, name, o) {
			printf("    %-20s %8lld %10.1f %10.1f %10.1f\n", name,
			       (long long)json_object_get_int64(json_object_object_get(o, JL_K(count))),
			       json_object_get_int64(json_object_object_get(o, JL_K(p50))) / 1e3,
			       json_object_get_int64(json_object_object_get(o, JL_K(p99))) / 1e3,
			       json_object_get_int64(json_object_object_get(o, JL_K(max))) / 1e3);
		}
	}
	if (json_object_object_get_ex(block, JL_K(measured_cycles), &v) && json_object_get_int64(v) > 0)
		printf("  cycles matched to a traced wakeup: %lld of %lld (%.1f%%)\n",
		       (long long)json_object_get_int64(json_object_object_get(block, JL_K(matched_cycles))),
		       (long long)json_object_get_int64(v),
		       100.0 * json_object_get_double(json_object_object_get(block, JL_K(matched_fraction))));
	(void)an;
	printf("\nworst %s:\n%s", an->nthreads && an->threads[0].samples ? "cycles" : "wakeups",
	       text && text[0] ? text : "  (none: no wakeup of an analysed thread in the trace)\n");
}

enum { A_JSON = 1, A_KSHARK, A_THREAD, A_CYCLE };

static const struct jl_cli_opt analyze_opts[] = {
	{ "json", 'j', NULL, "print the trace block (as in summary.json) on stdout instead of the text", A_JSON },
	{ "kernelshark", 0, NULL,
	  "write KernelShark sessions next to the trace: a RUN_DIR's kernelshark.json (on the cycle the run chose) and "
	  "one per explained cycle in kernelshark/; with --thread/--cycle, that cycle's alone", A_KSHARK },
	{ "thread", 't', "T", "explain a cycle of loop T (its name, as in summary.json; a bare trace's: COMM-PID)",
	  A_THREAD },
	{ "cycle", 'c', "N", "explain cycle N (as in samples.csv; a bare trace's: the Nth wakeup, from 0); default: "
	  "the thread's worst explained cycle", A_CYCLE },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_analyze = { "analyze", "RUN_DIR|TRACE.dat",
				       "wakeup-latency analysis and worst-case attribution of a trace", analyze_opts };

static void usage(void)
{
	jl_cli_help(stderr, &jl_cli_analyze);
}

/* What `analyze` was asked. */
struct analyze_args {
	const char *arg; /* RUN_DIR or TRACE.dat */
	bool json, kshark;
	const char *thread; /* --thread */
	int64_t cycle;      /* --cycle, -1: none */
};

/* ARGV into A: 0, 1 when --help was printed, or -1 after saying what is wrong (exit 2). */
static int parse_args(struct analyze_args *a, int argc, char **argv)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;
	char *end;
	int c;

	a->cycle = -1;
	while ((c = jl_cli_next(&jl_cli_analyze, argc, argv, &w, &v)) != JL_CLI_END) {
		if (c == A_JSON) {
			a->json = true;
		} else if (c == A_KSHARK) {
			a->kshark = true;
		} else if (c == A_THREAD) {
			a->thread = v;
		} else if (c == A_CYCLE) {
			errno = 0;
			a->cycle = strtoll(v, &end, 10);
			if (errno || end == v || *end || a->cycle < 0) {
				fprintf(stderr, "jitterlab analyze: --cycle: '%s' is not a cycle number (0 or more)\n", v);
				return -1;
			}
		} else if (c == JL_CLI_HELP) {
			jl_cli_help(stdout, &jl_cli_analyze);
			return 1;
		} else if (c == JL_CLI_OPERAND && !a->arg) {
			a->arg = v;
		} else {
			usage();
			return -1;
		}
	}
	if (!a->arg) {
		usage();
		return -1;
	}
	return 0;
}

/* One analysis: its input, the trace being read, and what the analysis found. */
struct analysis_run {
	struct input in;
	struct jl_analysis an;
	struct jl_trace_reading *reading; /* until jl_trace_read_finish takes it */
	struct jl_cycle worst[JL_TRACE_WORST + JL_TRACE_MISSES];
	int nworst;
	json_object *block; /* the trace block, as in summary.json */
	char *text;         /* the worst cycles (or wakeups) explained */
	char err[1024];
};

static void analysis_run_free(struct analysis_run *r)
{
	jl_trace_read_cancel(r->reading);
	if (r->block)
		json_object_put(r->block);
	free(r->text);
	jl_analysis_free(&r->an);
	input_free(&r->in);
}

/* The threads to analyse, from R->in.dat: a RUN_DIR's from its summary.json with their cycles from samples.csv
 * (the trace converting meanwhile), a bare trace's RT tasks from the trace itself. 0, or -1 with R->err set. */
static int load_input(struct analysis_run *r, const char *arg, bool dir)
{
	if (!dir)
		return load_bare(r->in.dat, &r->in, r->err, sizeof(r->err));
	r->reading = jl_trace_read_start(r->in.dat, NULL); /* converting ahead while the run's files are read */
	if (load_summary(arg, &r->in, r->err, sizeof(r->err)) < 0)
		return -1;
	return load_samples(arg, &r->in, r->err, sizeof(r->err));
}

/* The trace read into the analysis of R's threads, summarized into R->block, R->text and R->worst. 0, or -1
 * with R->err set. */
static int analyse_trace(struct analysis_run *r, bool dir)
{
	struct jl_trace_summary_in sin = { 0 };
	struct jl_trace_readinfo info;
	int rc;

	if (jl_analysis_init(&r->an, r->in.threads, r->in.nthreads, 1) < 0) {
		snprintf(r->err, sizeof(r->err), "analyze: out of memory");
		return -1;
	}
	if (r->in.have_budget)
		r->an.budget = r->in.budget;
	if (jl_analysis_prune(&r->an, r->in.from, 0) < 0) { /* a long run's: keep only what its kept cycles need */
		snprintf(r->err, sizeof(r->err), "analyze: out of memory");
		return -1;
	}
	if (!dir)
		r->reading = jl_trace_read_start(r->in.dat, NULL);
	rc = jl_trace_read_finish(r->reading, &r->an, &info, r->err, sizeof(r->err));
	r->reading = NULL;
	if (rc < 0)
		return -1;
	sin.file = r->in.dat;
	sin.advice = r->in.advice; /* the run's host; [run] irq_affinity is not in summary.json: unknown */
	sin.events = info.records;
	sin.lost_events = info.lost_events;
	sin.lost_gaps = info.lost_gaps;
	sin.from = r->in.from;
	sin.tail_ns = r->in.tail_ns;
	if (jl_trace_summarize(&r->an, &sin, &r->block, &r->text, r->worst, &r->nworst) < 0) {
		snprintf(r->err, sizeof(r->err), "analyze: out of memory");
		return -1;
	}
	return 0;
}

/* The names of R's measured loops, ", " between, into BUF. */
static const char *loop_names(const struct analysis_run *r, char *buf, size_t len)
{
	size_t o = 0;

	buf[0] = '\0';
	for (int i = 0; i < r->an.nthreads && o < len; i++)
		if (r->an.threads[i].measured && !r->an.threads[i].pool)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? ", " : "", r->an.threads[i].name);
	return buf;
}

/* The cycle --thread and --cycle name, decomposed into *OUT (no --cycle: the thread's worst explained; no
 * --thread: the trace's one loop). 0, or the exit status after saying why not. */
static int select_cycle(const struct analyze_args *a, struct analysis_run *r, struct jl_cycle *out)
{
	char names[512];
	int ti = -1, n = 0, why;
	int64_t cycle = a->cycle;

	for (int i = 0; i < r->an.nthreads; i++)
		if (r->an.threads[i].measured && !r->an.threads[i].pool && (!a->thread || !strcmp(r->an.threads[i].name, a->thread))) {
			ti = i;
			n++;
		}
	if (n != 1) {
		fprintf(stderr, a->thread ? "jitterlab analyze: --thread: no measured loop '%s' in %s (its loops: %s)\n"
					  : "jitterlab analyze: --cycle needs --thread: %s%s has several loops (%s)\n",
			a->thread ? a->thread : "", r->in.dat, loop_names(r, names, sizeof(names)));
		return JL_EXIT_USAGE;
	}
	for (int k = 0; k < r->nworst && cycle < 0; k++)
		if (r->worst[k].thread == ti)
			cycle = (int64_t)r->worst[k].cycle;
	if (cycle < 0) {
		fprintf(stderr, "jitterlab analyze: %s has no explained cycle: name one with --cycle\n", r->an.threads[ti].name);
		return JL_EXIT_USAGE;
	}
	why = jl_analysis_cycle(&r->an, ti, (uint64_t)cycle, out);
	if (why == JL_CYCLE_NONE)
		fprintf(stderr, "jitterlab analyze: %s has no cycle %lld in %s\n", r->an.threads[ti].name, (long long)cycle,
			r->in.dat);
	else if (why == JL_CYCLE_NOT_KEPT)
		fprintf(stderr, "jitterlab analyze: cycle %lld of %s was not kept whole: a long run keeps the windows of its "
			"worst cycles only (samples = worst, trace_keep = worst)\n", (long long)cycle, r->an.threads[ti].name);
	else if (why == JL_CYCLE_UNMATCHED)
		fprintf(stderr, "jitterlab analyze: cycle %lld of %s has no traced wakeup matched to its release (events "
			"lost there, or the trace began after it)\n", (long long)cycle, r->an.threads[ti].name);
	return why == 0 ? 0 : why == JL_CYCLE_NONE ? JL_EXIT_USAGE : JL_EXIT_RUNTIME;
}

/* C's session (--thread/--cycle): RUN_DIR/kernelshark/THREAD-CYCLE.json, or NAME.kernelshark-THREAD-CYCLE.json
 * beside a bare NAME.dat, into PATH. 0, or -1 after saying why. */
static int write_selected(const char *arg, bool dir, const struct analysis_run *r, const struct jl_cycle *c, char *path,
			  size_t len)
{
	char name[128], sub[PATH_MAX], err[512], *hint;
	size_t l = strlen(r->in.dat);

	jl_kshark_session_name(r->an.threads[c->thread].name, c->cycle, name, sizeof(name));
	if (dir) {
		if (jl_output_make_subdir(arg, JL_KSHARK_DIR, sub, sizeof(sub), err, sizeof(err)) < 0) {
			fprintf(stderr, "jitterlab analyze: %s\n", err);
			return -1;
		}
		snprintf(path, len, "%s/%s", arg, name);
	} else {
		if (l > 4 && !strcmp(r->in.dat + l - 4, ".dat"))
			l -= 4;
		name[strlen(JL_KSHARK_DIR)] = '-'; /* "kernelshark/T-N.json" -> "kernelshark-T-N.json" */
		snprintf(path, len, "%.*s.%s", (int)l, r->in.dat, name);
	}
	if (jl_trace_kshark_for(&r->an, c, r->in.dat, path, NULL, &hint, err, sizeof(err)) < 0) {
		fprintf(stderr, "jitterlab analyze: %s\n", err);
		return -1;
	}
	if (hint)
		fprintf(stderr, "open cycle %llu of %s: %s\n", (unsigned long long)c->cycle, r->an.threads[c->thread].name, hint);
	free(hint);
	return 0;
}

/* --kernelshark alone: a RUN_DIR's session on every explained cycle (kernelshark/) and kernelshark.json on the
 * cycle the run chose (summary.json trace.kernelshark_cycle; else the worst), e.g. after the run directory
 * moved; a bare trace's NAME.kernelshark.json on its worst wakeup. 0, or -1 after saying why. */
static int write_sessions(const char *arg, bool dir, struct analysis_run *r)
{
	char session[PATH_MAX + 32], err[512], *hint = NULL;
	struct jl_cycle chosen;
	const struct jl_cycle *w = r->nworst > 0 ? &r->worst[0] : NULL;
	json_object *e;
	size_t len;

	if (!w) {
		fprintf(stderr, "jitterlab analyze: no wakeup to open in KernelShark\n");
		return -1;
	}
	if (dir) {
		jl_trace_kshark_cycles(&r->an, r->worst, r->nworst, r->in.dat, NULL, r->block);
		if (json_object_object_get_ex(r->block, JL_K(kernelshark_error), &e)) {
			fprintf(stderr, "jitterlab analyze: %s\n", json_object_get_string(e));
			return -1;
		}
		for (int i = 0; i < r->an.nthreads && r->in.chosen_thread[0]; i++)
			if (!strcmp(r->an.threads[i].name, r->in.chosen_thread) &&
			    jl_analysis_cycle(&r->an, i, (uint64_t)r->in.chosen_cycle, &chosen) == 0)
				w = &chosen;
		snprintf(session, sizeof(session), "%s/kernelshark.json", arg);
	} else {
		len = strlen(r->in.dat);
		if (len > 4 && !strcmp(r->in.dat + len - 4, ".dat"))
			len -= 4;
		snprintf(session, sizeof(session), "%.*s.kernelshark.json", (int)len, r->in.dat);
	}
	if (jl_trace_kshark_for(&r->an, w, r->in.dat, session, NULL, &hint, err, sizeof(err)) < 0) {
		fprintf(stderr, "jitterlab analyze: %s\n", err);
		return -1;
	}
	json_object_object_add(r->block, JL_K(kernelshark), json_object_new_string(session));
	if (hint)
		fprintf(stderr, "open cycle %llu of %s: %s\n", (unsigned long long)w->cycle, r->an.threads[w->thread].name, hint);
	free(hint);
	return 0;
}

/* The selected cycle explained: on stdout after the text, or as "selected" in the JSON. */
static void print_selected(struct analysis_run *r, const struct jl_cycle *c, const char *session, bool json)
{
	char line[2048], advice[512];
	const char *rule = jl_trace_advice(&r->an, c, &r->in.advice, advice, sizeof(advice));
	const char *name = r->an.threads[c->thread].name;

	jl_cycle_format(c, name, line, sizeof(line));
	if (json) {
		json_object *o = json_object_new_object();

		json_object_object_add(o, JL_K(thread), json_object_new_string(name));
		json_object_object_add(o, JL_K(cycle), json_object_new_int64((int64_t)c->cycle));
		json_object_object_add(o, JL_K(window), json_object_new_string(c->window == JL_WINDOW_RESPONSE ? "response"
													 : "wakeup"));
		json_object_object_add(o, JL_K(text), json_object_new_string(line));
		json_object_object_add(o, JL_K(advice), rule ? json_object_new_string(advice) : NULL);
		json_object_object_add(o, JL_K(kernelshark), session[0] ? json_object_new_string(session) : NULL);
		json_object_object_add(r->block, "selected", o);
		return;
	}
	printf("\ncycle %llu of %s:\n  %s\n", (unsigned long long)c->cycle, name, line);
	if (rule)
		printf("  advice: %s\n", advice);
}

int cmd_analyze(int argc, char **argv)
{
	struct analyze_args a = { 0 };
	struct analysis_run r = { 0 };
	struct jl_cycle sel;
	char session[PATH_MAX + 160] = "";
	struct stat st;
	struct timespec t0, t1;
	double secs;
	bool dir;
	int rc;

	jl_trace_advice_from_host(NULL, &r.in.advice); /* nothing known until a summary says */
	rc = parse_args(&a, argc, argv);
	if (rc)
		return rc > 0 ? JL_EXIT_OK : JL_EXIT_USAGE;
	if (stat(a.arg, &st) < 0) {
		fprintf(stderr, "jitterlab analyze: %s: %s\n", a.arg, strerror(errno));
		return JL_EXIT_USAGE;
	}
	dir = S_ISDIR(st.st_mode);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	if (dir) {
		snprintf(r.in.dat, sizeof(r.in.dat), "%s/trace.dat", a.arg);
		if (access(r.in.dat, R_OK) < 0) {
			fprintf(stderr, "jitterlab analyze: %s has no trace.dat (was the run traced?)\n", a.arg);
			return JL_EXIT_USAGE;
		}
	} else {
		snprintf(r.in.dat, sizeof(r.in.dat), "%s", a.arg);
	}
	rc = JL_EXIT_RUNTIME;
	if (load_input(&r, a.arg, dir) < 0 || analyse_trace(&r, dir) < 0)
		goto fail;
	clock_gettime(CLOCK_MONOTONIC, &t1);
	if ((a.thread || a.cycle >= 0) && (rc = select_cycle(&a, &r, &sel)) != 0)
		goto out;
	rc = JL_EXIT_RUNTIME;
	if (a.kshark && (a.thread || a.cycle >= 0 ? write_selected(a.arg, dir, &r, &sel, session, sizeof(session))
						 : write_sessions(a.arg, dir, &r)) < 0)
		goto out;
	secs = (double)(t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9;
	json_object_object_add(r.block, "analysis_s", json_object_new_double(secs));
	if (a.json && (a.thread || a.cycle >= 0))
		print_selected(&r, &sel, session, true);
	if (a.json)
		jl_json_print(stdout, r.block);
	else
		print_text(&r.an, r.block, r.text, r.in.dat, secs);
	if (!a.json && (a.thread || a.cycle >= 0))
		print_selected(&r, &sel, session, false);
	rc = JL_EXIT_OK;
	goto out;
fail:
	fprintf(stderr, "jitterlab %s\n", r.err);
out:
	analysis_run_free(&r);
	return rc;
}
