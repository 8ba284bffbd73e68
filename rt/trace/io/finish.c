/* finish: the end of a traced run. Stops the capture, writes RUN_DIR/trace.dat (v6, top buffer),
 * reads it back through libtracecmd (so the analysis sees exactly what the user's tools see), matches the
 * engine's measured samples to wakeups, explains the worst cycles, writes a KernelShark session on each
 * (RUN_DIR/kernelshark/THREAD-CYCLE.json) and fills the run's result. Runs after the threads have ended: never on a cycle path. */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <event-parse.h>

#include "capture.h"
#include "dat.h"
#include "kshark.h"
#include "live.h"
#include "probe_ring.h"
#include "read.h"
#include "recorder.h"
#include "syms.h"
#include "trace.h"
#include "../analysis/advice.h"
#include "../analysis/analysis.h"
#include "../analysis/parts.h"
#include "../analysis/prune.h"
#include "../analysis/summarize.h"
#include "../analysis/trace_series.h"
#include "../../base/output.h"
#include "../../base/summary_keys.h"

void jl_trace_result_free(struct jl_trace_result *res)
{
	if (!res)
		return;
	if (res->block)
		json_object_put(res->block);
	free(res->text);
	res->block = NULL;
	res->text = NULL;
}



static char *engine_cmdlines(const struct jl_engine *eng)
{
	size_t cap = 64 + (size_t)eng->nthreads * (JL_NAME_MAX + 16), o = 0;
	char *s = malloc(cap);

	if (!s)
		return NULL;
	s[0] = 0;
	for (int i = 0; i < eng->nthreads; i++)
		if (eng->threads[i].tid > 0)
			o += snprintf(s + o, cap - o, "%d %.15s\n", (int)eng->threads[i].tid, eng->threads[i].name);
	return s;
}

/* The view of cycle W: markers A (waking, or the release of a callback that waited for its executor only)
 * and B (switch-in), the range around them and around its response's end, its CPU, the loop and its culprit. */
static void view_of(const struct jl_analysis *an, const struct jl_cycle *w, struct jl_kshark_view *v)
{
	int culprit = jl_cycle_culprit(w);
	const int64_t a = w->waking ? w->waking : w->release, b = w->switch_in ? w->switch_in : w->wake;
	int64_t start = w->release > 0 && w->release < a ? w->release : a;
	int64_t end = w->wake > b ? w->wake : b;
	int32_t pid = w->tid ? w->tid : an->threads[w->thread].pid;

	if (w->end > end)
		end = w->end;
	v->mark_a = a;
	v->mark_b = b;
	v->from = start - 2000000;
	v->to = end + 1000000;
	v->cpu = w->cpu;
	v->ntasks = 0;
	v->task_pids[v->ntasks++] = pid;
	if (culprit >= 0 && w->parts[culprit].pid != pid)
		v->task_pids[v->ntasks++] = w->parts[culprit].pid;
}

/* "kernelshark -s ABS(SESSION)", malloc'd; NULL when SESSION cannot be resolved. */
char *jl_trace_kshark_hint(const char *session)
{
	char abs[PATH_MAX], *hint;

	if (!realpath(session, abs))
		return NULL;
	hint = malloc(strlen(abs) + 32);
	if (hint)
		snprintf(hint, strlen(abs) + 32, "kernelshark -s %s", abs);
	return hint;
}

/* Session on cycle W, and the command that opens it. */
int jl_trace_kshark_for(const struct jl_analysis *an, const struct jl_cycle *w, const char *dat, const char *session,
			const struct jl_trace_pages *pages, char **hint, char *err, size_t errlen)
{
	struct jl_kshark_view v = { .pages = pages };

	view_of(an, w, &v);
	if (jl_kshark_write(session, dat, &v, err, errlen) < 0)
		return -1;
	if (hint)
		*hint = jl_trace_kshark_hint(session);
	return 0;
}

int jl_trace_kshark_many(const struct jl_analysis *an, const struct jl_cycle *w, int n, const char *dat,
			 char (*sessions)[4096], const struct jl_trace_pages *pages, char *err, size_t errlen)
{
	int64_t *ts = calloc((size_t)(n > 0 ? 2 * n : 1), sizeof(*ts));
	long *rows = calloc((size_t)(n > 0 ? 2 * n : 1), sizeof(*rows));
	struct jl_kshark_view *v = calloc((size_t)(n > 0 ? n : 1), sizeof(*v));
	int rc = -1;

	if (!ts || !rows || !v) {
		snprintf(err, errlen, "trace: out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		view_of(an, &w[i], &v[i]);
		ts[2 * i] = v[i].mark_a;
		ts[2 * i + 1] = v[i].mark_b;
	}
	if ((pages ? jl_trace_rows_pages(pages, ts, rows, 2 * n, err, errlen)
		   : jl_trace_rows(dat, ts, rows, 2 * n, err, errlen)) < 0)
		goto out;
	for (int i = 0; i < n; i++) {
		v[i].rows_known = true;
		v[i].rows[0] = rows[2 * i];
		v[i].rows[1] = rows[2 * i + 1];
		if (jl_kshark_write(sessions[i], dat, &v[i], err, errlen) < 0)
			goto out;
	}
	rc = 0;
out:
	free(ts);
	free(rows);
	free(v);
	return rc;
}

void jl_trace_kshark_cycles(const struct jl_analysis *an, const struct jl_cycle *worst, int nworst, const char *dat,
			    const struct jl_trace_pages *pages, json_object *block)
{
	char run_dir[PATH_MAX], dir[PATH_MAX], err[512], (*paths)[4096] = calloc((size_t)nworst, sizeof(*paths));
	char (*names)[96] = calloc((size_t)nworst, sizeof(*names));
	json_object *arr = json_object_object_get(block, JL_K(worst));
	const char *slash = strrchr(dat, '/');

	if (!paths || !names || !slash) {
		free(paths);
		free(names);
		return;
	}
	snprintf(run_dir, sizeof(run_dir), "%.*s", (int)(slash - dat), dat);
	if (jl_output_make_subdir(run_dir, JL_KSHARK_DIR, dir, sizeof(dir), err, sizeof(err)) < 0) {
		json_object_object_add(block, JL_K(kernelshark_error), json_object_new_string(err));
		goto out;
	}
	for (int i = 0; i < nworst; i++) {
		jl_kshark_session_name(an->threads[worst[i].thread].name, worst[i].cycle, names[i], sizeof(names[i]));
		snprintf(paths[i], sizeof(paths[i]), "%s/%s", run_dir, names[i]);
	}
	if (jl_trace_kshark_many(an, worst, nworst, dat, paths, pages, err, sizeof(err)) < 0) {
		json_object_object_add(block, JL_K(kernelshark_error), json_object_new_string(err));
		goto out;
	}
	for (int i = 0; i < nworst && arr && i < (int)json_object_array_length(arr); i++)
		json_object_object_add(json_object_array_get_idx(arr, i), JL_K(kernelshark), json_object_new_string(names[i]));
out:
	free(paths);
	free(names);
}

static bool covered(const void *ctx, int64_t a, int64_t b)
{
	return jl_recorder_covered(ctx, a, b);
}

/* Does any unit of ENG measure a program through the probe? */
static bool has_probe_units(const struct jl_engine *eng)
{
	for (int u = 0; u < eng->nunits; u++)
		if (JL_MEASURE_FROM_TRACE(eng->units[u].spec->beh.measure))
			return true;
	return false;
}

/* A first pass over DAT for the probe records and births only, turned into the engine's probe series. */
static int add_probe_series(struct jl_engine *eng, const struct jl_trace_pages *pages, char *err, size_t errlen)
{
	struct jl_trace_readinfo info;
	struct jl_analysis an;
	int rc;

	if (jl_analysis_init(&an, NULL, 0, pages->ncpus) < 0) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	rc = jl_trace_read_pages(pages, &an, NULL, &info, err, errlen);
	if (rc == 0)
		rc = jl_trace_probe_series(eng, &an, err, errlen);
	if (rc == 0)
		rc = jl_trace_wakeup_series(eng, &an, err, errlen);
	jl_analysis_free(&an);
	return rc < 0 ? -1 : 0;
}

/* Write DAT again with the kernel symbols INFO's records used (the callbacks the analysis named). */
static int write_named(const char *dat, struct jl_tracedat_src *src, const struct jl_trace_readinfo *info, char *err,
		       size_t errlen)
{
	char *syms = malloc((size_t)info->nused * 96 + 1);
	size_t o = 0;
	int rc;

	if (!syms) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	syms[0] = 0;
	for (int i = 0; i < info->nused; i++)
		o += snprintf(syms + o, (size_t)info->nused * 96 + 1 - o, "%016llx t %s\n",
			      (unsigned long long)info->used[i].addr, info->used[i].name);
	src->kallsyms = syms;
	rc = jl_tracedat_write(dat, src, err, errlen);
	src->kallsyms = NULL;
	free(syms);
	return rc;
}

/* The analysis' figures into RES (summary.json's trace block, the terminal's text), the KernelShark
 * session on each explained cycle, what was recorded. */
static int finish_analysis(struct jl_trace *t, struct jl_engine *eng, struct jl_analysis *an,
			   const struct jl_trace_readinfo *rinfo, const char *dat,
			   const struct jl_trace_pages *pages, struct jl_trace_result *res, char *err, size_t errlen)
{
	struct jl_cycle worst[JL_TRACE_WORST + JL_TRACE_MISSES];
	struct jl_trace_summary_in in = { 0 };
	struct jl_trace_readinfo info = *rinfo;
	int nworst = 0;

	in.file = "trace.dat";
	in.events = info.records;
	in.lost_events = t->lost_events > info.lost_events ? t->lost_events : info.lost_events;
	in.lost_gaps = info.lost_gaps - (t->rec ? jl_recorder_gaps(t->rec) : 0); /* the recorder's are said in kept */
	in.from = eng->t_measure;
	in.to = jl_engine_window_end(eng);
	in.kshark = NULL;
	in.pages_dropped = t->rec != NULL;
	in.tail_ns = eng->sc ? eng->sc->run.tail_ns : 0;
	if (t->advice)
		in.advice = *t->advice;
	else
		jl_trace_advice_from_host(NULL, &in.advice);
	if (jl_trace_summarize(an, &in, &res->block, &res->text, worst, &nworst) < 0) {
		snprintf(err, errlen, "trace: out of memory while summarising");
		return -1;
	}
	if (t->probe_served) { /* the probe server: programs that got the marker, connections refused */
		json_object *pb = json_object_new_object();

		json_object_object_add(pb, JL_K(connections), json_object_new_int64((int64_t)atomic_load(&t->probe_clients)));
		json_object_object_add(pb, JL_K(refused), json_object_new_int64((int64_t)atomic_load(&t->probe_refused)));
		if (t->rings) { /* the rings: threads that had one, their records, and those not kept */
			struct jl_probe_rings_stats st;
			json_object *rb = json_object_new_object();

			jl_probe_rings_count(t->rings, &st);
			json_object_object_add(rb, JL_K(threads), json_object_new_int64(st.rings));
			json_object_object_add(rb, JL_K(records), json_object_new_int64((int64_t)st.records));
			json_object_object_add(rb, JL_K(lost), json_object_new_int64((int64_t)st.lost));
			json_object_object_add(rb, JL_K(bad), json_object_new_int64((int64_t)st.bad));
			json_object_object_add(rb, JL_K(refused), json_object_new_int64((int64_t)st.refused));
			json_object_object_add(pb, JL_K(rings), rb);
			if (st.lost || st.bad)
				fprintf(stderr, "jitterlab: warning: probe: %llu records lost to a full ring, %llu not kept "
					"(bad or out of order): those cycles are not measured\n",
					(unsigned long long)st.lost, (unsigned long long)st.bad);
		}
		json_object_object_add(res->block, JL_K(probe), pb);
	}
	if (nworst == 0) { /* nothing to explain: no heading on the terminal or in report.md */
		free(res->text);
		res->text = NULL;
	}
	if (nworst > 0) /* kernelshark.json, on the cycle that matters, is the run's choice (jl_run_kshark_pick) */
		jl_trace_kshark_cycles(an, worst, nworst, dat, pages, res->block);
	jl_trace_describe_recording(t, res->block); /* what was recorded, and where */
	if (t->rec)
		jl_recorder_describe(t->rec, res->block); /* what the flight recorder kept */
	return 0;
}

/* The end of a run whose analysis went along with it (live.c): the entries' final samples, their
 * windows, the events not fed yet, then trace.dat written once (with the symbols the analysis used). */
static int finish_live(struct jl_trace *t, struct jl_engine *eng, const char *dat,
		       struct jl_tracedat_src *src, struct jl_trace_result *res, char *err, size_t errlen)
{
	struct jl_analysis *an = jl_trace_live_analysis(t);
	struct jl_trace_stream *st = jl_trace_live_stream(t);
	struct jl_trace_pages *pages = jl_trace_live_pages(t);
	uint64_t *bytes = (uint64_t *)pages->cpu_bytes, before;
	struct jl_analysis_sample *samples = NULL;
	struct jl_analysis_thread *threads;
	struct jl_trace_readinfo info;
	int n = 0, rc = -1;
	bool written = false;
	struct timespec a, b, fed;

	clock_gettime(CLOCK_MONOTONIC, &a);
	threads = jl_trace_engine_series(eng, &samples, &n, false);
	if (!threads || n != an->nthreads) {
		snprintf(err, errlen, "trace: %s", threads ? "the run's series changed" : "out of memory");
		goto out;
	}
	for (int i = 0; i < n; i++) {
		an->threads[i].samples = threads[i].samples;
		an->threads[i].nsamples = threads[i].nsamples;
	}
	for (int c = 0; c < t->ncpus; c++)
		bytes[c] = t->cpu[c].bytes; /* the reader has stopped: the files are complete */
	before = jl_trace_stream_info(st)->records;
	if (jl_analysis_prune_settle(an, jl_engine_window_end(eng)) < 0 || jl_trace_stream_feed(st, INT64_MAX) < 0) {
		snprintf(err, errlen, "trace: the analysis failed: %s", strerror(errno ? errno : ENOMEM));
		goto out;
	}
	jl_analysis_end(an);
	clock_gettime(CLOCK_MONOTONIC, &fed);
	info = *jl_trace_stream_info(st);
	an->clocks.stepped = t->clocks.stepped; /* known at the stop, after the feed placed the timers */
	if (jl_trace_wakeup_fill(eng, an, err, errlen) < 0)
		goto out;
	written = true;
	if ((info.nused > 0 ? write_named(dat, src, &info, err, errlen) : jl_tracedat_write(dat, src, err, errlen)) < 0)
		goto out;
	rc = finish_analysis(t, eng, an, &info, dat, pages, res, err, errlen);
	clock_gettime(CLOCK_MONOTONIC, &b);
	if (rc == 0 && res->block)
		jl_trace_live_describe(t, res->block,
				       (double)(fed.tv_sec - a.tv_sec) + (double)(fed.tv_nsec - a.tv_nsec) / 1e9,
				       (double)(b.tv_sec - a.tv_sec) + (double)(b.tv_nsec - a.tv_nsec) / 1e9,
				       info.records - before);
out:
	if (!written) { /* the analysis failed: the trace is still the run's */
		char werr[256];

		if (jl_tracedat_write(dat, src, werr, sizeof(werr)) < 0)
			fprintf(stderr, "jitterlab: %s\n", werr);
	}
	for (int i = 0; an && i < an->nthreads; i++) { /* the samples were lent */
		an->threads[i].samples = NULL;
		an->threads[i].nsamples = 0;
	}
	free(threads);
	free(samples);
	return rc;
}

/* The probe's rings' records into the CPUs' pages (probe_ring.c): FDS and BYTES then name the files
 * written anew, which the capture closes with its own. */
static int merge_rings(struct jl_trace *t, int *fds, uint64_t *bytes, char *err, size_t errlen)
{
	struct tep_handle *tep;

	if (t->ncpus < 1 || (!t->merged_fd && !(t->merged_fd = calloc((size_t)t->ncpus, sizeof(*t->merged_fd))))) {
		snprintf(err, errlen, "trace: out of memory");
		return -1;
	}
	for (int c = 0; c < t->ncpus; c++)
		t->merged_fd[c] = -1;
	tep = jl_trace_tep(t, err, errlen);
	if (!tep)
		return -1;
	return jl_probe_rings_merge(t->rings, tep, t->ncpus, t->page_size, fds, bytes, t->merged_fd, err, errlen);
}

/* The engine's series as the analysis takes them (malloc'd; the caller frees both arrays). */
struct series_in {
	struct jl_analysis_thread *threads;
	struct jl_analysis_sample *samples;
	int n;
};

/* FDS and BYTES: each CPU's recorded pages, with the probe's ring records merged in where they can be
 * (else the kernel's pages alone, and a warning). */
static void cpu_pages(struct jl_trace *t, int *fds, uint64_t *bytes, char *err, size_t errlen)
{
	for (int c = 0; c < t->ncpus; c++) {
		fds[c] = t->cpu[c].fd;
		bytes[c] = t->cpu[c].bytes;
	}
	if (!t->rings || merge_rings(t, fds, bytes, err, errlen) == 0)
		return;
	fprintf(stderr, "jitterlab: warning: %s: the probe's ring records are not in trace.dat\n", err);
	err[0] = '\0';
	for (int c = 0; c < t->ncpus; c++) {
		if (t->merged_fd && t->merged_fd[c] >= 0) {
			close(t->merged_fd[c]);
			t->merged_fd[c] = -1;
		}
		fds[c] = t->cpu[c].fd;
		bytes[c] = t->cpu[c].bytes;
	}
}

/* The whole trace analysed after the run: trace.dat written, the probe's series added, the analysis read
 * from the recorded pages (pruned to what a long run kept), then finished into RES. 0, or -1 with ERR. */
static int finish_after(struct jl_trace *t, struct jl_engine *eng, json_object *host, const char *dat,
			struct jl_tracedat_src *src, struct series_in *si, struct jl_trace_result *res, char *err,
			size_t errlen)
{
	struct jl_trace_readinfo info;
	struct jl_analysis an = { 0 };
	/* the analysis reads the pages trace.dat is written from, one page per CPU at a time (reading
	 * trace.dat through libtracecmd would map it whole: its size in RSS) */
	struct jl_trace_pages pages = { .ncpus = t->ncpus, .page_size = t->page_size, .cpu_fd = src->cpu_fd,
					.cpu_bytes = src->cpu_bytes };
	int rc = -1;

	if (jl_tracedat_write(dat, src, err, errlen) < 0 || !(pages.tep = jl_trace_tep(t, err, errlen)))
		return -1;
	if (has_probe_units(eng)) {
		free(si->threads);
		free(si->samples);
		si->threads = NULL;
		si->samples = NULL;
		if (add_probe_series(eng, &pages, err, errlen) < 0)
			return -1;
		si->threads = jl_trace_engine_series(eng, &si->samples, &si->n, t->rec != NULL);
		if (!si->threads) {
			snprintf(err, errlen, "trace: out of memory");
			return -1;
		}
	}
	if (jl_analysis_init(&an, si->threads, si->n, t->ncpus) < 0) {
		snprintf(err, errlen, "trace: out of memory");
		goto out;
	}
	jl_trace_budget_from_host(host, &an.budget);
	jl_trace_irq_names(&an);
	an.clocks = t->clocks;
	/* a long run (its loops' rings kept some cycles): keep of the trace only what they need */
	if (jl_analysis_prune(&an, eng->t_measure, jl_engine_window_end(eng)) < 0) {
		snprintf(err, errlen, "trace: out of memory");
		goto out;
	}
	if (t->rec) /* the flight recorder dropped pages: explain only what it kept whole */
		jl_analysis_prune_cover(&an, covered, t->rec);
	/* hrtimer callbacks (timer) and IPI callbacks (irq) are function addresses; measure = wakeups: its
	 * samples are the pairs; the callbacks the analysis named are named in trace.dat too */
	if (jl_trace_read_pages(&pages, &an, jl_trace_ksyms(t), &info, err, errlen) < 0 ||
	    jl_trace_wakeup_fill(eng, &an, err, errlen) < 0 ||
	    (info.nused > 0 && write_named(dat, src, &info, err, errlen) < 0) ||
	    finish_analysis(t, eng, &an, &info, dat, &pages, res, err, errlen) < 0)
		goto out;
	rc = 0;
out:
	jl_analysis_free(&an);
	return rc;
}

int jl_trace_finish(struct jl_trace *t, struct jl_engine *eng, const char *run_dir, json_object *host,
		    struct jl_trace_result *res, char *err, size_t errlen)
{
	char dat[PATH_MAX], *cmdlines = NULL;
	struct jl_trace_advice_in advice;
	struct series_in si = { 0 };
	struct jl_tracedat_src src;
	int *fds = NULL, rc = -1;
	uint64_t *bytes = NULL;

	memset(res, 0, sizeof(*res));
	if (!t) {
		snprintf(err, errlen, "trace: no capture to finish");
		return -1;
	}
	jl_trace_probe_unserve(t);
	jl_trace_live_stop(t); /* the live analysis' thread: what it did not feed yet is fed below */
	if (jl_trace_stop(t, err, errlen) < 0)
		return -1;
	jl_trace_advice_from_host(host, &advice);
	advice.irq_steered = eng->sc && eng->sc->run.irq_affinity == JL_IRQ_HOUSEKEEPING;
	t->advice = &advice; /* for finish_analysis; cleared at the end */
	snprintf(dat, sizeof(dat), "%s/trace.dat", run_dir);
	fds = calloc(t->ncpus, sizeof(*fds));
	bytes = calloc(t->ncpus, sizeof(*bytes));
	cmdlines = engine_cmdlines(eng);
	si.threads = jl_trace_engine_series(eng, &si.samples, &si.n, t->rec != NULL);
	if (!fds || !bytes || !cmdlines || !si.threads) {
		snprintf(err, errlen, "trace: out of memory");
	} else {
		cpu_pages(t, fds, bytes, err, errlen);
		src = (struct jl_tracedat_src){ .ncpus = t->ncpus, .page_size = t->page_size, .cpu_fd = fds,
						.cpu_bytes = bytes, .groups = t->groups, .clock = t->clock,
						.extra_cmdlines = cmdlines };
		/* the analysis went along with the run (only the rest to feed), or it is made now */
		rc = jl_trace_live_analysis(t) ? finish_live(t, eng, dat, &src, res, err, errlen)
					       : finish_after(t, eng, host, dat, &src, &si, res, err, errlen);
	}
	t->advice = NULL;
	free(fds);
	free(bytes);
	free(cmdlines);
	free(si.threads);
	free(si.samples);
	if (rc < 0)
		jl_trace_result_free(res);
	return rc;
}
