/* plot: SVG plots with gnuplot: per run, a latency histogram with log counts (the OSADL convention),
 * latency over cycle index (shows transients) and a tick timeline (one mark per completed cycle over
 * 0.6 s, one row per thread); per sweep, strip plots of every run's value per condition with the mean
 * and per thread a tick timeline with one row per condition (its first usable run).
 * One gnuplot per SVG: its script (numeric data inline as `$name << EOD` blocks) comes on stdin from an
 * unlinked temporary file, its SVG goes to stdout, which is the output writer's temporary file
 * (output.h), committed when not empty. Must never paste a path, file name or scenario text into a
 * script: every string is a gnuplot single-quoted literal with '' for a quote and no control
 * characters (gp_str), and gnuplot (which has system()) runs with a clean environment, no inherited
 * fds beyond 0-2 and, under sudo, as the invoking user. Without gnuplot: a note, never a failure.
 * Never runs during a measurement. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
#include <grp.h>
#include <limits.h>
#include <math.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../base/output.h"
#include "../base/path.h"
#include "../base/samples_read.h"
#include "../base/series.h"
#include "../base/stats.h"
#include "summary_read.h"
#include "../base/summary_keys.h"

#define TICK_WINDOW_NS 600000000LL

struct series {
	char name[64];
	size_t n, cap;
	int64_t *cycle, *release, *end, *latency;
};

/* Print S as a gnuplot single-quoted string: '' stands for a quote inside; a control character (which
 * could end the command line) becomes '?'. Nothing else is special in single quotes. */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;

		if (c == '\'')
			fputc('\'', f);
		fputc(c < 0x20 || c == 0x7f ? '?' : c, f);
	}
	fputc('\'', f);
}

/* A new script: an unlinked temporary file that starts with the SVG terminal, output to stdout. */
static FILE *script_new(int width, int height, int font)
{
	FILE *f = tmpfile();

	if (f)
		fprintf(f, "set terminal svg size %d,%d noenhanced font 'sans,%d' background '#ffffff'\nset output\n", width, height,
			font);
	return f;
}

/* Run gnuplot EXE on SCRIPT (stdin) with its stdout on OUT_FD, 30 s at most: a clean environment, no
 * other fd, and under sudo the invoking user without supplementary groups. 0, or -1. */
static int run_gnuplot(const char *exe, FILE *script, int out_fd)
{
	static char *const envp[] = { "PATH=/usr/bin:/bin", "HOME=/nonexistent", "LANG=C", NULL };
	char *const argv[] = { "gnuplot", NULL };
	int status = 0, null_fd;
	time_t start = time(NULL);
	uid_t uid;
	gid_t gid;
	bool drop = jl_output_sudo_user(&uid, &gid);
	pid_t pid;

	if (fflush(script) || fseek(script, 0, SEEK_SET))
		return -1;
	null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
	if (null_fd < 0)
		return -1;
	fflush(NULL);
	pid = fork();
	if (pid < 0) {
		close(null_fd);
		return -1;
	}
	if (pid == 0) {
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (dup2(fileno(script), 0) < 0 || dup2(out_fd, 1) < 0 || dup2(null_fd, 2) < 0)
			_exit(126);
		if (close_range(3, ~0U, 0))
			for (int fd = 3; fd < 4096; fd++)
				close(fd);
		if (drop && (setgroups(0, NULL) || setgid(gid) || setuid(uid) || getuid() != uid || geteuid() != uid))
			_exit(126);
		if (chdir("/"))
			_exit(126);
		execve(exe, argv, envp);
		_exit(127);
	}
	close(null_fd);
	for (;;) {
		pid_t w = waitpid(pid, &status, WNOHANG);

		if (w == pid)
			break;
		if (w < 0 && errno != EINTR)
			return -1;
		if (time(NULL) - start > 30) {
			kill(pid, SIGKILL);
			waitpid(pid, &status, 0);
			return -1;
		}
		usleep(20000);
	}
	return WIFEXITED(status) && WEXITSTATUS(status) == 0 ? 0 : -1;
}

/* Render SCRIPT (closed here) into DIR/NAME through the output writer; committed only when gnuplot
 * exited 0 and wrote something. Returns 1 when the plot was written, else 0 (*FAILED set when gnuplot
 * failed or the file could not be written). */
static int render(const char *exe, FILE *script, const char *dir, const char *name, bool *failed)
{
	struct jl_outfile of;
	struct stat st;
	int made = 0;

	if (!script) {
		*failed = true;
		return 0;
	}
	if (jl_output_open(&of, dir, name)) {
		*failed = true;
		fclose(script);
		return 0;
	}
	if (run_gnuplot(exe, script, of.fd)) {
		*failed = true;
		jl_output_abort(&of); /* never half a plot */
	} else if (fstat(of.fd, &st) == 0 && st.st_size > 0 && jl_output_commit(&of) == 0) {
		made = 1;
	} else if (of.dirfd >= 0) {
		jl_output_abort(&of);
	}
	fclose(script);
	return made;
}

static int series_push(struct series *s, int64_t cycle, int64_t rel, int64_t end, int64_t lat)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 1024;
		int64_t *a = realloc(s->cycle, cap * sizeof(int64_t)), *b, *c, *d;

		if (!a)
			return -1;
		s->cycle = a;
		if (!(b = realloc(s->release, cap * sizeof(int64_t))))
			return -1;
		s->release = b;
		if (!(c = realloc(s->end, cap * sizeof(int64_t))))
			return -1;
		s->end = c;
		if (!(d = realloc(s->latency, cap * sizeof(int64_t))))
			return -1;
		s->latency = d;
		s->cap = cap;
	}
	s->cycle[s->n] = cycle;
	s->release[s->n] = rel;
	s->end[s->n] = end;
	s->latency[s->n++] = lat;
	return 0;
}

struct read_ctx {
	struct series *ser;
	int n, max;
};

static int read_row(void *ctx, const struct jl_sample_row *r)
{
	struct read_ctx *c = ctx;
	int k;

	for (k = 0; k < c->n && strcmp(c->ser[k].name, r->thread); k++)
		;
	if (k == c->n) {
		if (c->n == c->max)
			return 0;
		memset(&c->ser[c->n], 0, sizeof(c->ser[c->n]));
		snprintf(c->ser[c->n++].name, sizeof(c->ser[0].name), "%s", r->thread);
	}
	return series_push(&c->ser[k], (int64_t)r->cycle, r->release, r->end, jl_latency_ns(r->release, r->wake));
}

/* Read samples.csv into one series per thread. Returns the thread count, or -1. */
static int read_samples(const char *run_dir, struct series *ser, int max)
{
	struct read_ctx c = { ser, 0, max };
	char err[256];

	return jl_samples_read(run_dir, NULL, read_row, &c, err, sizeof(err)) ? -1 : c.n;
}

/* A 1-2-5 bin width (ns) so that MAX spreads over at most ~200 bins, 1 us at least. */
#define MAX_SERIES 32
#define MAX_POINTS 3000

static int plot_intervals(const char *exe, const char *run_dir, bool *failed);
static int plot_tail(const char *exe, const char *run_dir, bool *failed);

/* The latency histogram's script: one index per series, "bin_us count width_us", log counts. NULL when it
 * cannot be made. */
static FILE *hist_script(const struct series *ser, int n)
{
	FILE *f = script_new(900, 500, 11);

	if (!f)
		return NULL;
	fprintf(f, "$hist << EOD\n");
	for (int k = 0; k < n; k++) {
		int64_t max = 0, w;
		uint64_t *cnt;

		for (size_t i = 0; i < ser[k].n; i++)
			if (ser[k].latency[i] > max)
				max = ser[k].latency[i];
		w = jl_bin_width(max, 1000, 200);
		cnt = calloc((size_t)(max / w) + 2, sizeof(*cnt));
		if (!cnt)
			break;
		for (size_t i = 0; i < ser[k].n; i++)
			cnt[(ser[k].latency[i] < 0 ? 0 : ser[k].latency[i]) / w]++;
		for (int64_t b = 0; b <= max / w; b++)
			if (cnt[b])
				fprintf(f, "%.3f %llu %.3f\n", (double)(b * w + w / 2) / 1e3, (unsigned long long)cnt[b],
					(double)w / 1e3);
		fprintf(f, "\n\n");
		free(cnt);
	}
	fprintf(f, "EOD\nset grid\nset key top right\nset title 'wakeup latency histogram (log counts)'\n"
		   "set xlabel 'latency (us)'\nset ylabel 'cycles'\nset logscale y\nset yrange [0.8:*]\nplot ");
	for (int k = 0; k < n; k++) {
		fprintf(f, "%s$hist index %d using 1:2:3 with boxes fs transparent solid 0.45 noborder title ", k ? ", " : "", k);
		gp_str(f, ser[k].name);
	}
	fprintf(f, "\n");
	return f;
}

/* Latency over the cycles: a long run would make an SVG of one circle per cycle (megabytes): beyond MAX_POINTS
 * cycles, the maximum of each group of consecutive cycles instead (the max is what shows a transient). */
static FILE *cycle_script(const struct series *ser, int n)
{
	FILE *f = script_new(900, 500, 11);
	size_t max_group = 1;

	if (!f)
		return NULL;
	fprintf(f, "$cycle << EOD\n");
	for (int k = 0; k < n; k++) {
		size_t group = ser[k].n > MAX_POINTS ? (ser[k].n + MAX_POINTS - 1) / MAX_POINTS : 1;

		if (group > max_group)
			max_group = group;
		for (size_t i = 0; i < ser[k].n; i += group) {
			int64_t m = ser[k].latency[i];

			for (size_t g = i + 1; g < i + group && g < ser[k].n; g++)
				m = ser[k].latency[g] > m ? ser[k].latency[g] : m;
			fprintf(f, "%lld %.3f\n", (long long)ser[k].cycle[i], (double)m / 1e3);
		}
		fprintf(f, "\n\n");
	}
	fprintf(f, "EOD\nset grid\nset key top right\n");
	if (max_group > 1)
		fprintf(f, "set title 'wakeup latency over the run (max of every %zu cycles)'\n", max_group);
	else
		fprintf(f, "set title 'wakeup latency over the run'\n");
	fprintf(f, "set xlabel 'cycle'\nset ylabel 'latency (us)'\nplot ");
	for (int k = 0; k < n; k++) {
		fprintf(f, "%s$cycle index %d using 1:2 with points pt 7 ps 0.3 title ", k ? ", " : "", k);
		gp_str(f, ser[k].name);
	}
	fprintf(f, "\n");
	return f;
}

/* Where the tick timeline's window starts: 0.6 s around the first series' worst cycle, inside the run. */
static int64_t ticks_window(const struct series *ser, int n)
{
	size_t worst = 0;
	int64_t lo = INT64_MAX, hi = INT64_MIN, ws;

	for (size_t i = 0; i < ser[0].n; i++)
		if (ser[0].latency[i] > ser[0].latency[worst])
			worst = i;
	for (int k = 0; k < n; k++)
		for (size_t i = 0; i < ser[k].n; i++) {
			lo = ser[k].release[i] < lo ? ser[k].release[i] : lo;
			hi = ser[k].end[i] > hi ? ser[k].end[i] : hi;
		}
	ws = ser[0].release[worst] - TICK_WINDOW_NS / 2;
	if (ws + TICK_WINDOW_NS > hi)
		ws = hi - TICK_WINDOW_NS;
	return ws < lo ? lo : ws;
}

/* The tick timeline's script: each series' completed cycles in the window, one mark each. */
static FILE *ticks_script(const struct series *ser, int n)
{
	FILE *f = script_new(900, 500, 11);
	int64_t ws = ticks_window(ser, n);

	if (!f)
		return NULL;
	fprintf(f, "$ticks << EOD\n");
	for (int k = 0; k < n; k++) {
		int m = 0;

		for (size_t i = 0; i < ser[k].n; i++)
			if (ser[k].end[i] >= ws && ser[k].end[i] <= ws + TICK_WINDOW_NS) {
				fprintf(f, "%.3f %d\n", (double)(ser[k].end[i] - ws) / 1e6, k);
				m++;
			}
		if (!m)
			fprintf(f, "-1 %d\n", k); /* keep the index (outside the x range) */
		fprintf(f, "\n\n");
	}
	fprintf(f, "EOD\nset grid\nset title 'completed cycles, one mark each (0.6 s window)'\n"
		   "set xlabel 'ms'\nunset ylabel\nset xrange [0:600]\nset yrange [-0.6:%d.6]\nunset key\nset ytics (", n - 1);
	for (int k = 0; k < n; k++) {
		fprintf(f, "%s", k ? ", " : "");
		gp_str(f, ser[k].name);
		fprintf(f, " %d", k);
	}
	fprintf(f, ")\nplot ");
	for (int k = 0; k < n; k++)
		fprintf(f, "%s$ticks index %d using 1:($2-0.35):(0):(0.7) with vectors nohead lw 1.5", k ? ", " : "", k);
	fprintf(f, "\n");
	return f;
}

int jl_plot_run(const char *run_dir, char *err, size_t errlen)
{
	struct series *ser = NULL;
	char exe[PATH_MAX];
	int n, made = 0;
	bool failed = false;

	err[0] = '\0';
	if (!jl_find_program("gnuplot", exe, sizeof(exe))) {
		snprintf(err, errlen, "gnuplot is not installed: no plots (apt-get install gnuplot-nox)");
		return 0;
	}
	ser = calloc(MAX_SERIES, sizeof(*ser));
	if (!ser) {
		snprintf(err, errlen, "plots: out of memory");
		return -1;
	}
	made += plot_intervals(exe, run_dir, &failed); /* from summary.json: whatever samples.csv holds */
	made += plot_tail(exe, run_dir, &failed);
	n = read_samples(run_dir, ser, MAX_SERIES);
	if (n <= 0) {
		snprintf(err, errlen, "plots: no samples in %s/samples.csv", run_dir);
		made = n < 0 ? -1 : 0;
		goto out;
	}
	made += render(exe, hist_script(ser, n), run_dir, "latency-hist.svg", &failed);
	made += render(exe, cycle_script(ser, n), run_dir, "latency-cycle.svg", &failed);
	made += render(exe, ticks_script(ser, n), run_dir, "ticks.svg", &failed);
	if (failed)
		snprintf(err, errlen, "plots: gnuplot failed on %s, or its plots could not be written there", run_dir);
out:
	for (int k = 0; k < MAX_SERIES; k++) {
		free(ser[k].cycle);
		free(ser[k].release);
		free(ser[k].end);
		free(ser[k].latency);
	}
	free(ser);
	return made;
}

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;

	return o && json_object_object_get_ex(o, k, &v) ? v : NULL;
}

/* The start of RUN_DIR's measured phase: t_measure_ns from its summary.json, else the earliest release
 * in its samples.csv (which holds the measured cycles only). -1 when neither is there. */
static int earliest_row(void *ctx, const struct jl_sample_row *r)
{
	int64_t *ws = ctx;

	if (*ws < 0 || r->release < *ws)
		*ws = r->release;
	return 0;
}

static int64_t measure_start(const char *run_dir)
{
	char err[PATH_MAX + 256];
	json_object *s, *v;
	int64_t ws = -1;

	s = jl_summary_read(run_dir, err, sizeof(err));
	v = jget(s, JL_K(t_measure_ns));
	if (v && json_object_is_type(v, json_type_int))
		ws = json_object_get_int64(v);
	json_object_put(s);
	if (ws >= 0)
		return ws;
	if (jl_samples_read(run_dir, NULL, earliest_row, &ws, err, sizeof(err)))
		return -1;
	return ws;
}

/* Write to F, as "ms row" lines, the end times of thread TN's cycles that complete within the first
 * TICK_WINDOW_NS of RUN_DIR's measured phase. Returns the number of ticks, or -1 when samples.csv is
 * missing. */
struct ticks_ctx {
	FILE *f;
	int64_t ws;
	int row;
	long m;
};

static int tick_row(void *ctx, const struct jl_sample_row *r)
{
	struct ticks_ctx *t = ctx;

	if (r->end >= t->ws && r->end <= t->ws + TICK_WINDOW_NS) {
		fprintf(t->f, "%.3f %d\n", (double)(r->end - t->ws) / 1e6, t->row);
		t->m++;
	}
	return 0;
}

static long write_ticks(FILE *f, const char *run_dir, const char *tn, int row)
{
	struct ticks_ctx t = { f, measure_start(run_dir), row, 0 };
	char err[256];

	if (t.ws < 0 || jl_samples_read(run_dir, tn, tick_row, &t, err, sizeof(err)))
		return -1;
	return t.m;
}

/* A thread name usable in a file name (strip-NAME.svg): [a-z][a-z0-9_-]* with copies' ".N". */
static bool name_ok(const char *s)
{
	if (!s || *s < 'a' || *s > 'z' || strlen(s) >= 64)
		return false;
	return !s[strspn(s, "abcdefghijklmnopqrstuvwxyz0123456789_-.")];
}

/* The tick timeline of thread TN across a sweep's conditions: SWEEP_DIR/ticks-TN.svg, one row per
 * condition (the first at the top), each the completed cycles (end times, as in a run's ticks.svg) of
 * the first 0.6 s of the measured phase of that condition's first usable run, labelled with the
 * condition, the run and its achieved rate. Returns 1 when the plot was written, else 0 (ERR set when
 * gnuplot failed), or -1 with ERR. */
static int sweep_ticks(const char *exe, const char *sweep_dir, json_object *conds, const char *tn, char *err,
		       size_t errlen)
{
	size_t nc = conds ? json_object_array_length(conds) : 0;
	char p[PATH_MAX + 64], name[128], *labels = NULL;
	size_t llen = 0;
	FILE *g, *lab;
	bool failed = false;
	int made;

	if (!nc)
		return 0;
	g = script_new(1000, (int)(120 + 45 * (nc < 3 ? 3 : nc)), 11);
	lab = open_memstream(&labels, &llen);
	if (!g || !lab) {
		if (g)
			fclose(g);
		if (lab)
			fclose(lab);
		free(labels);
		snprintf(err, errlen, "plots: cannot make a temporary file: %s", strerror(errno));
		return -1;
	}
	snprintf(name, sizeof(name), "ticks-%s.svg", tn);
	fprintf(g, "$ticks << EOD\n");
	for (size_t c = 0; c < nc; c++) {
		json_object *co = json_object_array_get_idx(conds, c), *runs = jget(co, "runs"), *run = NULL;
		const char *label = json_object_get_string(jget(co, "label"));
		int row = (int)(nc - 1 - c);
		long m = -1;
		char text[256];

		if (!label)
			label = "?";
		for (size_t k = 0; runs && k < json_object_array_length(runs) && !run; k++) {
			json_object *r = json_object_array_get_idx(runs, k), *u = jget(r, "usable");

			if (u && json_object_get_boolean(u) && jget(r, "dir"))
				run = r;
		}
		if (run) {
			json_object *rate = jget(jget(jget(run, "metrics"), tn), "rate_hz");

			m = write_ticks(g, json_object_get_string(jget(run, "dir")), tn, row);
			if (m < 0)
				snprintf(text, sizeof(text), "%s r%d: no samples", label, json_object_get_int(jget(run, "run")));
			else if (!rate)
				snprintf(text, sizeof(text), "%s r%d: no %s", label, json_object_get_int(jget(run, "run")), tn);
			else
				snprintf(text, sizeof(text), "%s r%d: %.1f Hz", label, json_object_get_int(jget(run, "run")),
					 json_object_get_double(rate));
		} else {
			snprintf(text, sizeof(text), "%s: no usable run", label);
		}
		if (m <= 0)
			fprintf(g, "-1 %d\n", row); /* keep the index (outside the x range) */
		fprintf(g, "\n\n");
		fprintf(lab, "%s", c ? ", " : "");
		gp_str(lab, text);
		fprintf(lab, " %d", row);
	}
	fclose(lab);
	fprintf(g, "EOD\nset title ");
	snprintf(p, sizeof(p), "%s: completed cycles (end times), first 0.6 s of the measured phase, first run of each condition", tn);
	gp_str(g, p);
	fprintf(g, "\nset grid xtics\nset xlabel 'ms after the start of the measured phase'\nunset ylabel\nunset key\n"
		   "set xrange [0:600]\nset yrange [-0.6:%zu.6]\nset ytics (%s)\nplot ", nc - 1, labels ? labels : "");
	free(labels);
	for (size_t c = 0; c < nc; c++)
		fprintf(g, "%s$ticks index %zu using 1:($2-0.35):(0):(0.7) with vectors nohead lw 1.5", c ? ", " : "", c);
	fprintf(g, "\n");
	made = render(exe, g, sweep_dir, name, &failed);
	if (failed)
		snprintf(err, errlen, "plots: gnuplot failed on the tick timeline of %s", tn);
	return made;
}

/* Thread TN's strip data: $strip (every run's value per condition, spread a little) into G and $mean (each
 * condition's mean) into FM, one index per metric, ns in the unit that suits the largest value. */
static void strip_data(FILE *g, FILE *fm, json_object *conds, json_object *metrics, const char *tn)
{
	size_t nc = conds ? json_object_array_length(conds) : 0, nm = metrics ? json_object_array_length(metrics) : 0;

	fprintf(g, "$strip << EOD\n");
	for (size_t m = 0; m < nm; m++) {
		json_object *mo = json_object_array_get_idx(metrics, m);
		const char *mn = json_object_get_string(jget(mo, "name")), *unit = json_object_get_string(jget(mo, "unit"));
		double scale = 1, hi = -INFINITY;

		for (size_t c = 0; c < nc; c++) {
			json_object *vals = jget(jget(jget(jget(json_object_array_get_idx(conds, c), "stats"), tn), mn), "values");

			for (size_t k = 0; vals && k < json_object_array_length(vals); k++) {
				double x = json_object_get_double(json_object_array_get_idx(vals, k));

				hi = x > hi ? x : hi;
			}
		}
		if (unit && !strcmp(unit, "ns"))
			scale = hi >= 1e9 ? 1e9 : hi >= 1e6 ? 1e6 : 1e3;
		for (size_t c = 0; c < nc; c++) {
			json_object *st = jget(jget(jget(json_object_array_get_idx(conds, c), "stats"), tn), mn);
			json_object *vals = jget(st, "values"), *mo2 = jget(st, "mean");
			size_t nv = vals ? json_object_array_length(vals) : 0;

			for (size_t k = 0; k < nv; k++)
				fprintf(g, "%.3f %.6g\n", (double)(c + 1) + ((double)(k % 5) - 2) * 0.06,
					json_object_get_double(json_object_array_get_idx(vals, k)) / scale);
			if (mo2)
				fprintf(fm, "%zu %.6g\n", c + 1, json_object_get_double(mo2) / scale);
		}
		fprintf(g, "-10 1\n\n\n"); /* never empty: keep the index (outside the x range) */
		fprintf(fm, "-10 1\n\n\n");
	}
}

/* Thread TN's panel of metric MO (index M of the data): its unit, a log axis when the runs span two decades. */
static void strip_panel(FILE *g, json_object *conds, json_object *mo, const char *tn, size_t m)
{
	size_t nc = conds ? json_object_array_length(conds) : 0;
	const char *mn = json_object_get_string(jget(mo, "name")), *unit = json_object_get_string(jget(mo, "unit"));
	double lo = INFINITY, hi = -INFINITY;
	const char *ylabel = unit ? unit : "";

	/* the unit that suits the largest value; a log axis when the runs span two decades */
	for (size_t c = 0; c < nc; c++) {
		json_object *vals = jget(jget(jget(jget(json_object_array_get_idx(conds, c), "stats"), tn), mn), "values");

		for (size_t k = 0; vals && k < json_object_array_length(vals); k++) {
			double x = json_object_get_double(json_object_array_get_idx(vals, k));

			lo = x < lo ? x : lo;
			hi = x > hi ? x : hi;
		}
	}
	if (unit && !strcmp(unit, "ns"))
		ylabel = hi >= 1e9 ? "s" : hi >= 1e6 ? "ms" : "us";
	fprintf(g, "%s\nset title ", lo > 0 && hi / lo > 100 ? "set logscale y" : "unset logscale y");
	gp_str(g, mn ? mn : "?");
	fprintf(g, "\nset ylabel ");
	gp_str(g, ylabel);
	fprintf(g, "\nplot $strip index %zu using 1:2 with points pt 7 ps 0.7 lc rgb '#1f77b4', "
		   "$mean index %zu using 1:2:(0.25) with xerrorbars pt 0 lw 2 lc rgb '#d62728'\n", m, m);
}

int jl_plot_sweep(const char *sweep_dir, json_object *sweep, char *err, size_t errlen)
{
	json_object *threads = jget(sweep, "threads"), *conds = jget(sweep, "conditions"), *metrics = jget(sweep, "metrics");
	size_t nt = threads ? json_object_array_length(threads) : 0, nc = conds ? json_object_array_length(conds) : 0;
	size_t nm = metrics ? json_object_array_length(metrics) : 0;
	char tick_err[512], exe[PATH_MAX];
	int made = 0, nk;

	err[0] = '\0';
	if (!jl_find_program("gnuplot", exe, sizeof(exe))) {
		snprintf(err, errlen, "gnuplot is not installed: no strip plots or tick timelines (apt-get install gnuplot-nox)");
		return 0;
	}
	for (size_t t = 0; t < nt; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, t));
		char name[128], title[160];
		char *mean = NULL;
		size_t meanlen = 0;
		FILE *g, *fm;
		bool failed = false;

		if (!name_ok(tn)) {
			if (!err[0])
				snprintf(err, errlen, "plots: thread name '%.64s' in %s/sweep.json is not valid: not plotted", tn ? tn : "",
					 sweep_dir);
			continue;
		}
		g = script_new(nc > 4 ? 1800 : 1400, 700, 10);
		fm = open_memstream(&mean, &meanlen);
		if (!g || !fm) {
			if (g)
				fclose(g);
			if (fm)
				fclose(fm);
			free(mean);
			snprintf(err, errlen, "plots: cannot make a temporary file: %s", strerror(errno));
			return -1;
		}
		snprintf(name, sizeof(name), "strip-%s.svg", tn);
		strip_data(g, fm, conds, metrics, tn);
		fclose(fm);
		fprintf(g, "EOD\n$mean << EOD\n%sEOD\n", mean ? mean : "");
		free(mean);
		snprintf(title, sizeof(title), "thread %s: every run per condition, mean marked", tn);
		fprintf(g, "set multiplot layout 2,%d title ", (int)(nm + 1) / 2);
		gp_str(g, title);
		fprintf(g, "\nset grid ytics\nunset key\nset xrange [0.5:%zu.5]\nset xtics rotate by -30 (", nc);
		for (size_t c = 0; c < nc; c++) {
			const char *label = json_object_get_string(jget(json_object_array_get_idx(conds, c), "label"));

			fprintf(g, "%s", c ? ", " : "");
			gp_str(g, label ? label : "?");
			fprintf(g, " %zu", c + 1);
		}
		fprintf(g, ")\n");
		for (size_t m = 0; m < nm; m++)
			strip_panel(g, conds, json_object_array_get_idx(metrics, m), tn, m);
		fprintf(g, "unset multiplot\n");
		made += render(exe, g, sweep_dir, name, &failed);
		if (failed && !err[0])
			snprintf(err, errlen, "plots: gnuplot failed on the strip plot of %s", tn);
		/* the tick timeline: its failure never hides a strip plot's (ERR keeps the first note) */
		tick_err[0] = '\0';
		nk = sweep_ticks(exe, sweep_dir, conds, tn, tick_err, sizeof(tick_err));
		if (nk > 0)
			made += nk;
		else if (tick_err[0] && !err[0])
			snprintf(err, errlen, "%s", tick_err);
	}
	return made;
}

/* latency-intervals.svg: each loop's worst latency per interval of the run (summary.json intervals: the
 * OSADL farm's "maximum per 5 minutes" plot), log scale, over the time since the measured phase began */
static int plot_intervals(const char *exe, const char *run_dir, bool *failed)
{
	char path[PATH_MAX];
	json_object *doc, *iv, *ser;
	double step, unit;
	const char *uname;
	int k = 0, made = 0;
	FILE *f;

	doc = jl_summary_read(run_dir, path, sizeof(path)); /* a summary of another shape: no plot */
	iv = jget(doc, JL_K(intervals));
	ser = jget(iv, JL_K(series));
	if (!ser || json_object_get_int64(jget(iv, JL_K(count))) < 2 || !(f = script_new(900, 500, 11))) {
		json_object_put(doc);
		return 0;
	}
	step = (double)json_object_get_int64(jget(iv, JL_K(interval_ns)));
	unit = step >= 60e9 ? 60e9 : 1e9;
	uname = step >= 60e9 ? "min" : "s";
	fprintf(f, "$iv << EOD\n");
	json_object_object_foreach(ser, name, x) {
		json_object *mx = jget(x, JL_K(max_latency_ns));

		if (!name_ok(name))
			continue;
		for (size_t i = 0; mx && i < json_object_array_length(mx); i++) {
			int64_t v = json_object_get_int64(json_object_array_get_idx(mx, i));

			if (v >= 0)
				fprintf(f, "%.3f %.3f\n", (double)(i + 1) * step / unit, (double)v / 1e3);
		}
		fprintf(f, "-1 1\n\n\n"); /* never empty: keep the index (outside the x range) */
	}
	fprintf(f, "EOD\nset grid\nset key top right\nset title 'worst latency per interval (%.0f %s)'\n"
		   "set xlabel 'time since the measured phase began (%s)'\nset ylabel 'max latency (us)'\n"
		   "set logscale y\nset xrange [0:*]\nplot ", step / unit, uname, uname);
	json_object_object_foreach(ser, name2, x2) {
		(void)x2;
		if (!name_ok(name2))
			continue;
		fprintf(f, "%s$iv index %d using 1:2 with linespoints pt 7 ps 0.5 title ", k ? ", " : "", k);
		gp_str(f, name2);
		k++;
	}
	fprintf(f, "\n");
	if (k)
		made = render(exe, f, run_dir, "latency-intervals.svg", failed);
	else
		fclose(f);
	json_object_put(doc);
	return made;
}

#define TAIL_CAUSES 7 /* named in the key; the rest of each loop's excess is one segment */

/* The loops whose tail has an excess (summary.json trace.tail.NAME), at most MAX_SERIES: names in L */
static int tail_loops(json_object *tails, const char **l)
{
	int n = 0;

	json_object_object_foreach(tails, name, t) {
		if (n < MAX_SERIES && name_ok(name) && json_object_get_boolean(jget(t, JL_K(computed))) &&
		    json_object_get_int64(jget(jget(t, JL_K(excess)), JL_K(total_ns))) > 0)
			l[n++] = name;
	}
	return n;
}

/* The causes to name: the largest by their summed share over the loops, at most TAIL_CAUSES, into C */
static int tail_causes(json_object *tails, const char **l, int nl, const char **c)
{
	const char *name[64];
	double share[64];
	int n = 0, k = 0;

	for (int i = 0; i < nl; i++) {
		json_object *cs = jget(jget(jget(tails, l[i]), JL_K(excess)), JL_K(causes));

		for (size_t j = 0; json_object_is_type(cs, json_type_array) && j < json_object_array_length(cs); j++) {
			json_object *x = json_object_array_get_idx(cs, j);
			const char *cn = json_object_get_string(jget(x, JL_K(cause)));
			int at = 0;

			if (!cn)
				continue;
			while (at < n && strcmp(name[at], cn))
				at++;
			if (at == n && n < 64)
				name[n] = cn, share[n++] = 0;
			if (at < n)
				share[at] += json_object_get_double(jget(x, JL_K(share)));
		}
	}
	for (; k < TAIL_CAUSES && k < n; k++) { /* selection of the largest */
		int best = k;

		for (int j = k + 1; j < n; j++)
			if (share[j] > share[best])
				best = j;
		c[k] = name[best], name[best] = name[k], share[best] = share[k];
	}
	return k;
}

/* CAUSE's share of loop T's tail excess (0: not among its causes) */
static double tail_share(json_object *t, const char *cause)
{
	json_object *cs = jget(jget(t, JL_K(excess)), JL_K(causes));

	for (size_t j = 0; json_object_is_type(cs, json_type_array) && j < json_object_array_length(cs); j++)
		if (!strcmp(json_object_get_string(jget(json_object_array_get_idx(cs, j), JL_K(cause))) ?: "", cause))
			return json_object_get_double(jget(json_object_array_get_idx(cs, j), JL_K(share)));
	return 0;
}

/* tail.svg: per loop one horizontal bar, its tail's excess over p50 split by cause (summary.json trace.tail),
 * the largest causes over all loops named in the key, each loop's rest one grey segment. */
static int plot_tail(const char *exe, const char *run_dir, bool *failed)
{
	char path[PATH_MAX];
	const char *loops[MAX_SERIES], *causes[TAIL_CAUSES];
	json_object *doc, *tails;
	int nl, nc;
	FILE *f;

	doc = jl_summary_read(run_dir, path, sizeof(path)); /* a summary of another shape: no plot */
	tails = jget(jget(doc, JL_K(trace)), JL_K(tail));
	if (!tails || !(nl = tail_loops(tails, loops)) || !(f = script_new(900, 160 + 60 * nl, 11))) {
		json_object_put(doc);
		return 0;
	}
	nc = tail_causes(tails, loops, nl, causes);
	fprintf(f, "$t << EOD\n");
	for (int k = 0; k <= nc; k++) { /* index k: cause k's segment of each loop (nc: the rest) */
		for (int i = 0; i < nl; i++) {
			json_object *t = jget(tails, loops[i]);
			double from = 0, w = 0;

			for (int j = 0; j < k && j < nc; j++)
				from += tail_share(t, causes[j]);
			if (k < nc)
				w = tail_share(t, causes[k]);
			else
				w = from < 1 ? 1 - from : 0;
			fprintf(f, "%.3f %d %.3f 0.3\n", 100 * (from + w / 2), i, 100 * w / 2);
		}
		fprintf(f, "\n\n");
	}
	fprintf(f, "EOD\nset title 'what each loop''s latency tail is made of: its cycles above p99 (or [run] tail) and its misses, their "
		   "latency over p50 by cause'\nset xlabel 'share of the tail''s excess over p50 (%%)'\nset xrange [0:100]\n"
		   "set yrange [-0.6:%d.6]\nset key outside bottom center horizontal maxrows 3 noenhanced\nset ytics (", nl - 1);
	for (int i = 0; i < nl; i++) {
		fprintf(f, "%s", i ? ", " : "");
		gp_str(f, loops[i]);
		fprintf(f, " %d", i);
	}
	fprintf(f, ") noenhanced\nset style fill solid 0.85 border -1\nplot ");
	for (int k = 0; k <= nc; k++) {
		fprintf(f, "%s$t index %d using 1:2:3:4 with boxxyerror ", k ? ", " : "", k);
		if (k < nc)
			fprintf(f, "lc %d title ", k + 1);
		else
			fprintf(f, "lc rgb '#bbbbbb' title ");
		gp_str(f, k < nc ? causes[k] : "the rest");
	}
	fprintf(f, "\n");
	json_object_put(doc);
	return render(exe, f, run_dir, "tail.svg", failed);
}
