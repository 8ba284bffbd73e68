/* run_outputs: the registry of a run directory's files and the writers of those the run's end writes
 * (run_outputs.h). Each file goes through the one atomic, root-safe writer (rt/base/output.c). */
#include "run_outputs.h"
#include "compare.h"
#include "report_html.h"

#include <fcntl.h>
#include <stdio.h>
#include <unistd.h>

#include "../base/documents.h"
#include "../base/output.h"
#include "../base/summary_keys.h"
#include "../summary/table.h"
#include "../summary/verdict.h"

static int write_samples(const struct jl_run_out *o)
{
	/* none: not kept; all with rings: the collector wrote every cycle while the run went */
	if (o->samples == JL_SAMPLES_NONE || (o->eng->rings && o->samples == JL_SAMPLES_ALL))
		return 0;
	return jl_results_write_samples(o->dir, o->res, o->nseries);
}

static int write_histogram(const struct jl_run_out *o)
{
	return jl_results_write_histfile(o->dir, o->res, o->nseries, o->eng->sc ? o->eng->sc->run.histogram_us : 0);
}

static int write_callbacks(const struct jl_run_out *o)
{
	return jl_results_write_callbacks(o->dir, o->eng, o->res, o->nseries);
}

static int write_locks(const struct jl_run_out *o)
{
	return jl_results_write_locks(o->dir, o->eng);
}

static int write_requests(const struct jl_run_out *o)
{
	return jl_results_write_requests(o->dir, o->eng);
}

static json_object *get(json_object *o, const char *key)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, key, &v) ? v : NULL;
}

/* parts.csv: the explained cycles of summary.json's trace.worst, a row per part. */
static int write_parts(const struct jl_run_out *o)
{
	json_object *worst = get(get(o->summary, "trace"), "worst");
	struct jl_outfile of;

	if (!worst || !json_object_is_type(worst, json_type_array) || !json_object_array_length(worst))
		return 0;
	if (jl_output_open(&of, o->dir, "parts.csv"))
		return -1;
	fputs("thread,tid,cycle,window,latency_ns,response_ns,miss,part,kind,name,pid,prio,duration_ns\n", of.fp);
	for (size_t i = 0; i < json_object_array_length(worst); i++) {
		json_object *c = json_object_array_get_idx(worst, i), *parts = get(c, "parts");

		for (size_t k = 0; parts && k < json_object_array_length(parts); k++) {
			json_object *p = json_object_array_get_idx(parts, k);

			jl_output_csv_field(of.fp, json_object_get_string(get(c, "thread")));
			fprintf(of.fp, ",%d,%lld,", json_object_get_int(get(c, "tid")),
				(long long)json_object_get_int64(get(c, "cycle")));
			jl_output_csv_field(of.fp, json_object_get_string(get(c, "window")));
			fprintf(of.fp, ",%lld,%lld,%d,%zu,", (long long)json_object_get_int64(get(c, "latency_ns")),
				(long long)json_object_get_int64(get(c, "response_ns")), json_object_get_boolean(get(c, "miss")),
				k);
			jl_output_csv_field(of.fp, json_object_get_string(get(p, "kind")));
			fputc(',', of.fp);
			jl_output_csv_field(of.fp, json_object_get_string(get(p, "name")));
			fprintf(of.fp, ",%d,%d,%lld\n", json_object_get_int(get(p, "pid")), json_object_get_int(get(p, "prio")),
				(long long)json_object_get_int64(get(p, "duration_ns")));
		}
	}
	return jl_output_commit(&of);
}

static int write_summary(const struct jl_run_out *o)
{
	return jl_output_write_json(o->dir, jl_document_file(JL_DOC_RUN), o->summary);
}

static int write_report_html(const struct jl_run_out *o)
{
	char err[512];

	/* a page that cannot be written is said; the run's figures and its exit status stand (summary.json and
	 * report.md are written) */
	if (jl_report_html_run(o->dir, o->summary, err, sizeof(err)) < 0)
		fprintf(stderr, "jitterlab: %s\n", err);
	return 0;
}

static int write_budget_md(const struct jl_run_out *o)
{
	return o->eng->sc->nbudgets ? jl_budget_write(o->dir) : 0;
}

/* kernelshark.json: the session on the cycle that matters (jl_verdict_session), a copy of that cycle's own in
 * kernelshark/, named in summary.json (trace.kernelshark, trace.kernelshark_cycle). Before summary.json. */
static int write_kshark(const struct jl_run_out *o)
{
	json_object *trace = get(o->summary, JL_K(trace)), *pick = jl_verdict_session(o->summary), *doc, *c;
	const char *name = pick ? json_object_get_string(get(pick, JL_K(kernelshark))) : NULL;
	char path[4200];
	int fd, rc;

	if (!trace || !name)
		return 0;
	snprintf(path, sizeof(path), "%s/%s", o->dir, name);
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	doc = fd >= 0 ? json_object_from_fd(fd) : NULL;
	if (fd >= 0)
		close(fd);
	if (!doc) {
		json_object_object_add(trace, JL_K(kernelshark_error),
				       json_object_new_string("the chosen cycle's session is unreadable"));
		return 0;
	}
	rc = jl_output_write_json(o->dir, "kernelshark.json", doc);
	json_object_put(doc);
	if (rc)
		return -1;
	c = json_object_new_object();
	json_object_object_add(c, JL_K(thread), json_object_get(get(pick, JL_K(thread))));
	json_object_object_add(c, JL_K(cycle), json_object_get(get(pick, JL_K(cycle))));
	json_object_object_add(c, JL_K(window), json_object_get(get(pick, JL_K(window))));
	json_object_object_add(c, JL_K(session), json_object_new_string(name));
	json_object_object_add(trace, JL_K(kernelshark), json_object_new_string("kernelshark.json"));
	json_object_object_add(trace, JL_K(kernelshark_cycle), c);
	return 0;
}

static int write_report(const struct jl_run_out *o)
{
	const struct jl_trace_result *tr = o->trace;
	struct jl_outfile of;

	if (jl_output_open(&of, o->dir, "report.md"))
		return -1;
	jl_table_print(of.fp, o->summary, JL_TABLE_MARKDOWN);
	jl_verdict_line(of.fp, o->summary);
	if (tr && tr->text)
		fprintf(of.fp, "\n## Worst cycles, explained\n\n```\n%s```\n", tr->text);
	if (tr && tr->text && get(get(o->summary, JL_K(trace)), JL_K(kernelshark_cycle))) {
		fprintf(of.fp, "\n");
		jl_verdict_kshark(of.fp, o->summary, o->dir, true);
		fprintf(of.fp, "\nEvery explained cycle has its own session in `kernelshark/` (`kernelshark -s "
			       "kernelshark/THREAD-CYCLE.json`; summary.json trace.worst[].kernelshark).\n");
	}
	if (o->plots)
		fprintf(of.fp, "\n## Plots\n\n![latency histogram](latency-hist.svg)\n![latency over cycles](latency-cycle.svg)\n"
			       "![tick timeline around the worst cycle](ticks.svg)\n");
	fprintf(of.fp, "\nFiles: `summary.json`, `samples.csv` (one row per measured cycle, ns), `scenario.ini` "
		       "(the scenario as run)%s.\n",
		tr && tr->block ? ", `trace.dat`, `kernelshark.json`" : "");
	return jl_output_commit(&of);
}

const struct jl_run_output jl_run_outputs[] = {
	{ "scenario.ini", "ini", "every run",
	  "the scenario as run, every --set applied and every default written out (jitterlab-scenario(5))",
	  "the run, before its threads start", NULL },
	{ "THREAD.log", "log", "a thread with exec",
	  "the program's standard output and error", "the engine, when it starts the program (rt/engine/child.c)", NULL },
	{ "samples.csv", "csv", "[run] samples = all or worst",
	  "one row per measured cycle (all), or the worst, the first misses and the last cycles of each loop "
	  "(worst), times in ns on CLOCK_MONOTONIC",
	  "the run's end; a run in rings writes it as it goes (rt/engine/collector.c)", write_samples },
	{ "histogram.txt", "text", "a measured periodic loop with cycles",
	  "the loops' latency histograms in cyclictest's --histfile format (1 us buckets)", "the run's end",
	  write_histogram },
	{ "callbacks.csv", "csv", "a measured [callback]",
	  "one row per callback run: its executor, thread, release, start and end", "the run's end", write_callbacks },
	{ "locks.csv", "csv", "a [lock]", "one row per acquisition: who asked, got and released it when",
	  "the run's end", write_locks },
	{ "requests.csv", "csv", "a request pool ([queue], [source])",
	  "one row per request: its queue, source, parent, server, status, creation, deadline, start, end, when "
	  "its caller gave up and the work wasted after that", "the run's end",
	  write_requests },
	{ "parts.csv", "csv", "a traced run with a cycle explained",
	  "one row per part of each explained cycle (summary.json trace.worst, in its order): the cycle, its window, "
	  "latency, response and miss, the part's place in it, kind, name, pid, priority and duration",
	  "the run's end", write_parts },
	{ "kernelshark.json", "json", "a traced run with a cycle explained",
	  "the session on the cycle that matters (summary.json trace.kernelshark_cycle): the largest explained cycle "
	  "of the first loop whose [expect] failed, or else of the highest-priority loop; the command that opens it "
	  "ends the terminal's output", "the run's end, before summary.json", write_kshark },
	{ "summary.json", "json", "every run", "everything the run measured, machine-readable (docs/outputs.md)",
	  "the run's end", write_summary },
	{ "report.md", "markdown", "every run", "the human summary, with the worst cycles explained",
	  "the run's end", write_report },
	{ "report.html", "html", "every run",
	  "one page to look at, offline and self-contained: the verdict, the machine, the loops' table, the latency "
	  "histogram (log counts), latency over time with the misses and explained cycles marked, the period "
	  "distribution, each explained cycle's parts on a time axis, the tail's causes, every summary key; a watch's "
	  "also its spikes on the wall clock",
	  "the run's end, after summary.json and samples.csv (rt/cmd/report_html.c)", write_report_html },
	{ "budget.md", "markdown", "a scenario with a [budget]",
	  "the budget document: per stage its target, the measured p99 and max, the margin left, the conditions "
	  "(host, load, duration) and the run (a sweep's: means over runs with their 95% CI)",
	  "the run's end, after summary.json (rt/summary/baseline.c); a sweep's at its end", write_budget_md },
	{ "trace.dat", "trace.dat", "[run] trace other than off",
	  "the ftrace recording (trace-cmd's format), for trace-cmd report and KernelShark",
	  "the trace's finish, before the analysis (rt/trace/io/finish.c)", NULL },
	{ "kernelshark/THREAD-CYCLE.json", "json", "a traced run with a cycle explained",
	  "a KernelShark session on each explained cycle (summary.json trace.worst[].kernelshark): markers A and B on "
	  "its waking and switch-in, the range around its window, its CPU, its loop and its culprit",
	  "the trace's finish (rt/trace/io/finish.c)", NULL },
	{ "latency-hist.svg", "svg", "gnuplot installed, not --quiet", "the loops' latency histogram",
	  "the plots, after the run's files (rt/summary/plot.c)", NULL },
	{ "latency-cycle.svg", "svg", "gnuplot installed, not --quiet", "each loop's latency over its cycles",
	  "the plots", NULL },
	{ "latency-intervals.svg", "svg", "gnuplot installed, not --quiet, [run] interval",
	  "each loop's worst latency per interval of the run, log scale", "the plots", NULL },
	{ "tail.svg", "svg", "gnuplot installed, not --quiet, a traced run whose tail was counted",
	  "per loop one bar: its latency tail's excess over p50 by cause (summary.json trace.tail)", "the plots", NULL },
	{ "ticks.svg", "svg", "gnuplot installed, not --quiet",
	  "each loop's completed cycles around the worst one, one mark each (0.6 s window)", "the plots", NULL },
};
const int jl_nrun_outputs = (int)(sizeof(jl_run_outputs) / sizeof(jl_run_outputs[0]));

int jl_run_outputs_write(const struct jl_run_out *o)
{
	for (int i = 0; i < jl_nrun_outputs; i++)
		if (jl_run_outputs[i].write && jl_run_outputs[i].write(o))
			return -1;
	return 0;
}
