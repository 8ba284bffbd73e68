/* plot: SVG plots with gnuplot: per run, a latency histogram with log counts (the OSADL convention),
 * latency over cycle index (shows transients) and a tick timeline (one mark per completed cycle over
 * 0.6 s, one row per thread); per sweep, strip plots of every run's value per condition with the mean
 * and per thread a tick timeline with one row per condition (its first usable run).
 * Data and scripts go to a private temporary directory, removed afterwards; each SVG is written to a
 * temporary name and renamed. Without gnuplot: a note, never a failure. Never runs during a measurement. */
#include "plot.h"

#include <errno.h>
#include <fcntl.h>
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

#include "sweep.h"
#include "output.h"
#include "sweep_child.h"

#define TICK_WINDOW_NS 600000000LL

struct series {
	char name[64];
	size_t n, cap;
	int64_t *cycle, *release, *end, *latency;
};

static bool have_gnuplot(void)
{
	const char *path = getenv("PATH");
	char buf[4096], *save = NULL, exe[PATH_MAX];

	snprintf(buf, sizeof(buf), "%s", path ? path : "/usr/bin:/bin");
	for (char *d = strtok_r(buf, ":", &save); d; d = strtok_r(NULL, ":", &save)) {
		snprintf(exe, sizeof(exe), "%s/gnuplot", d);
		if (!access(exe, X_OK))
			return true;
	}
	return false;
}

/* Run gnuplot on SCRIPT (30 s at most). 0, or -1. */
static int run_gnuplot(const char *script)
{
	pid_t pid;
	int status = 0;
	time_t start = time(NULL);

	fflush(NULL);
	pid = fork();
	if (pid < 0)
		return -1;
	if (pid == 0) {
		int fd = open("/dev/null", O_WRONLY);
		sigset_t none;

		sigemptyset(&none);
		sigprocmask(SIG_SETMASK, &none, NULL);
		if (fd >= 0) {
			dup2(fd, 1);
			dup2(fd, 2);
		}
		execlp("gnuplot", "gnuplot", script, (char *)NULL);
		_exit(127);
	}
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

/* Rename DIR/NAME.tmp to DIR/NAME if gnuplot made it. Returns 1 when the plot exists, else 0. */
static int commit_svg(const char *dir, const char *name)
{
	char tmp[PATH_MAX + 80], path[PATH_MAX + 80];
	struct stat st;

	snprintf(tmp, sizeof(tmp), "%s/%s.tmp", dir, name);
	snprintf(path, sizeof(path), "%s/%s", dir, name);
	if (stat(tmp, &st) || st.st_size == 0 || rename(tmp, path)) {
		unlink(tmp);
		return 0;
	}
	jl_output_chown(path);
	return 1;
}

static void rm_tmpdir(const char *dir, const char *const *files, int n)
{
	char p[PATH_MAX + 64];

	for (int i = 0; i < n; i++) {
		snprintf(p, sizeof(p), "%s/%s", dir, files[i]);
		unlink(p);
	}
	rmdir(dir);
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

/* Read samples.csv into one series per thread. Returns the thread count, or -1. */
static int read_samples(const char *run_dir, struct series *ser, int max)
{
	char path[PATH_MAX + 32], line[512];
	int n = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/samples.csv", run_dir);
	f = fopen(path, "re");
	if (!f)
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *comma = strchr(line, ',');
		long long cyc, rel, wake, end, lat;
		int k;

		if (!comma || line[0] == 't') /* header */
			continue;
		*comma = '\0';
		if (sscanf(comma + 1, "%lld,%lld,%lld,%lld,%lld", &cyc, &rel, &wake, &end, &lat) != 5)
			continue;
		for (k = 0; k < n && strcmp(ser[k].name, line); k++)
			;
		if (k == n) {
			if (n == max)
				continue;
			memset(&ser[n], 0, sizeof(ser[n]));
			snprintf(ser[n++].name, sizeof(ser[0].name), "%s", line);
		}
		if (series_push(&ser[k], cyc, rel, end, lat)) {
			fclose(f);
			return -1;
		}
	}
	fclose(f);
	return n;
}

/* A 1-2-5 bin width (ns) so that MAX spreads over at most ~200 bins, 1 us at least. */
static int64_t bin_width(int64_t max)
{
	static const int64_t steps[] = { 1, 2, 5 };

	for (int64_t dec = 1000;; dec *= 10)
		for (int i = 0; i < 3; i++)
			if (max / (steps[i] * dec) <= 200)
				return steps[i] * dec;
}

#define MAX_SERIES 32
#define MAX_POINTS 3000

int jl_plot_run(const char *run_dir, char *err, size_t errlen)
{
	static const char *const files[] = { "hist.dat", "cycle.dat", "ticks.dat", "plot.gp" };
	struct series *ser = NULL;
	char tmpdir[] = "/tmp/jitterlab-plot-XXXXXX", p[PATH_MAX + 64];
	int n, made = 0;
	int64_t ws = 0;
	size_t max_group = 1;
	FILE *f;

	err[0] = '\0';
	if (!have_gnuplot()) {
		snprintf(err, errlen, "gnuplot is not installed: no plots (apt-get install gnuplot-nox)");
		return 0;
	}
	ser = calloc(MAX_SERIES, sizeof(*ser));
	if (!ser) {
		snprintf(err, errlen, "plots: out of memory");
		return -1;
	}
	n = read_samples(run_dir, ser, MAX_SERIES);
	if (n <= 0) {
		snprintf(err, errlen, "plots: no samples in %s/samples.csv", run_dir);
		made = n < 0 ? -1 : 0;
		goto out;
	}
	if (!mkdtemp(tmpdir)) {
		snprintf(err, errlen, "plots: cannot make a temporary directory: %s", strerror(errno));
		made = -1;
		goto out;
	}
	/* histogram: one index per thread, "bin_us count" */
	snprintf(p, sizeof(p), "%s/hist.dat", tmpdir);
	if ((f = fopen(p, "we"))) {
		for (int k = 0; k < n; k++) {
			int64_t max = 0, w;
			uint64_t *cnt;

			for (size_t i = 0; i < ser[k].n; i++)
				if (ser[k].latency[i] > max)
					max = ser[k].latency[i];
			w = bin_width(max);
			cnt = calloc((size_t)(max / w) + 2, sizeof(*cnt));
			if (!cnt)
				break;
			for (size_t i = 0; i < ser[k].n; i++)
				cnt[(ser[k].latency[i] < 0 ? 0 : ser[k].latency[i]) / w]++;
			fprintf(f, "# %s\n", ser[k].name);
			for (int64_t b = 0; b <= max / w; b++)
				if (cnt[b])
					fprintf(f, "%.3f %llu %.3f\n", (double)(b * w + w / 2) / 1e3, (unsigned long long)cnt[b],
						(double)w / 1e3);
			fprintf(f, "\n\n");
			free(cnt);
		}
		fclose(f);
	}
	/* latency over cycle index */
	snprintf(p, sizeof(p), "%s/cycle.dat", tmpdir);
	if ((f = fopen(p, "we"))) {
		/* a long run would make an SVG of one circle per cycle (megabytes): beyond MAX_POINTS
		 * cycles, plot the maximum of each group of consecutive cycles instead (the max is what
		 * shows a transient) */
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
		fclose(f);
	}
	/* tick timeline: a 0.6 s window around the first thread's worst cycle */
	{
		size_t worst = 0;
		int64_t lo = INT64_MAX, hi = INT64_MIN;

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
		if (ws < lo)
			ws = lo;
	}
	snprintf(p, sizeof(p), "%s/ticks.dat", tmpdir);
	if ((f = fopen(p, "we"))) {
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
		fclose(f);
	}
	snprintf(p, sizeof(p), "%s/plot.gp", tmpdir);
	if (!(f = fopen(p, "we"))) {
		snprintf(err, errlen, "plots: %s: %s", p, strerror(errno));
		made = -1;
		rm_tmpdir(tmpdir, files, 4);
		goto out;
	}
	fprintf(f, "set terminal svg size 900,500 noenhanced font 'sans,11' background '#ffffff'\nset grid\nset key top right\n");
	fprintf(f, "set output '%s/latency-hist.svg.tmp'\nset title 'wakeup latency histogram (log counts)'\n"
		   "set xlabel 'latency (us)'\nset ylabel 'cycles'\nset logscale y\nset yrange [0.8:*]\n", run_dir);
	fprintf(f, "plot ");
	for (int k = 0; k < n; k++)
		fprintf(f, "%s'%s/hist.dat' index %d using 1:2:3 with boxes fs transparent solid 0.45 noborder title '%s'",
			k ? ", " : "", tmpdir, k, ser[k].name);
	fprintf(f, "\nunset logscale y\nset yrange [*:*]\n");
	if (max_group > 1)
		fprintf(f, "set output '%s/latency-cycle.svg.tmp'\nset title 'wakeup latency over the run (max of every %zu cycles)'\n"
			   "set xlabel 'cycle'\nset ylabel 'latency (us)'\nplot ", run_dir, max_group);
	else
		fprintf(f, "set output '%s/latency-cycle.svg.tmp'\nset title 'wakeup latency over the run'\n"
			   "set xlabel 'cycle'\nset ylabel 'latency (us)'\nplot ", run_dir);
	for (int k = 0; k < n; k++)
		fprintf(f, "%s'%s/cycle.dat' index %d using 1:2 with points pt 7 ps 0.3 title '%s'", k ? ", " : "", tmpdir, k, ser[k].name);
	fprintf(f, "\nset output '%s/ticks.svg.tmp'\nset title 'completed cycles, one mark each (0.6 s window)'\n"
		   "set xlabel 'ms'\nunset ylabel\nset xrange [0:600]\nset yrange [-0.6:%d.6]\nunset key\nset ytics (", run_dir, n - 1);
	for (int k = 0; k < n; k++)
		fprintf(f, "%s'%s' %d", k ? ", " : "", ser[k].name, k);
	fprintf(f, ")\nplot ");
	for (int k = 0; k < n; k++)
		fprintf(f, "%s'%s/ticks.dat' index %d using 1:($2-0.35):(0):(0.7) with vectors nohead lw 1.5", k ? ", " : "", tmpdir, k);
	fprintf(f, "\n");
	fclose(f);
	if (run_gnuplot(p))
		snprintf(err, errlen, "plots: gnuplot failed on %s", run_dir);
	made = commit_svg(run_dir, "latency-hist.svg") + commit_svg(run_dir, "latency-cycle.svg") + commit_svg(run_dir, "ticks.svg");
	rm_tmpdir(tmpdir, files, 4);
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

/* Print S as a gnuplot single-quoted string ('' stands for a quote inside). */
static void gp_str(FILE *f, const char *s)
{
	fputc('\'', f);
	for (; *s; s++) {
		if (*s == '\'')
			fputc('\'', f);
		fputc(*s, f);
	}
	fputc('\'', f);
}

/* The start of RUN_DIR's measured phase: t_measure_ns from its summary.json, else the earliest release
 * in its samples.csv (which holds the measured cycles only). -1 when neither is there. */
static int64_t measure_start(const char *run_dir)
{
	char path[PATH_MAX + 32], line[512];
	json_object *s, *v;
	int64_t ws = -1;
	FILE *f;

	snprintf(path, sizeof(path), "%s/summary.json", run_dir);
	s = json_object_from_file(path);
	v = jget(s, "t_measure_ns");
	if (v && json_object_is_type(v, json_type_int))
		ws = json_object_get_int64(v);
	json_object_put(s);
	if (ws >= 0)
		return ws;
	snprintf(path, sizeof(path), "%s/samples.csv", run_dir);
	if (!(f = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), f)) {
		char *comma = strchr(line, ',');
		long long cyc, rel;

		if (comma && line[0] != 't' && sscanf(comma + 1, "%lld,%lld", &cyc, &rel) == 2 && (ws < 0 || rel < ws))
			ws = rel;
	}
	fclose(f);
	return ws;
}

/* Write to F, as "ms row" lines, the end times of thread TN's cycles that complete within the first
 * TICK_WINDOW_NS of RUN_DIR's measured phase. Returns the number of ticks, or -1 when samples.csv is
 * missing. */
static long write_ticks(FILE *f, const char *run_dir, const char *tn, int row)
{
	char path[PATH_MAX + 32], line[512];
	size_t nlen = strlen(tn);
	int64_t ws = measure_start(run_dir);
	long m = 0;
	FILE *in;

	snprintf(path, sizeof(path), "%s/samples.csv", run_dir);
	if (ws < 0 || !(in = fopen(path, "re")))
		return -1;
	while (fgets(line, sizeof(line), in)) {
		long long cyc, rel, wake, end;

		if (strncmp(line, tn, nlen) || line[nlen] != ',')
			continue;
		if (sscanf(line + nlen + 1, "%lld,%lld,%lld,%lld", &cyc, &rel, &wake, &end) != 4)
			continue;
		if (end >= ws && end <= ws + TICK_WINDOW_NS) {
			fprintf(f, "%.3f %d\n", (double)(end - ws) / 1e6, row);
			m++;
		}
	}
	fclose(in);
	return m;
}

/* The tick timeline of thread TN across a sweep's conditions: SWEEP_DIR/ticks-TN.svg, one row per
 * condition (the first at the top), each the completed cycles (end times, as in a run's ticks.svg) of
 * the first 0.6 s of the measured phase of that condition's first usable run, labelled with the
 * condition, the run and its achieved rate. Returns 1 when the plot was written, else 0 (ERR set when
 * gnuplot failed), or -1 with ERR. */
static int sweep_ticks(const char *sweep_dir, json_object *conds, const char *tn, char *err, size_t errlen)
{
	static const char *const files[] = { "ticks.dat", "ticks.gp" };
	size_t nc = conds ? json_object_array_length(conds) : 0;
	char tmpdir[] = "/tmp/jitterlab-plot-XXXXXX", p[PATH_MAX + 64], name[128];
	FILE *fd, *g;
	int made;

	if (!nc)
		return 0;
	if (!mkdtemp(tmpdir)) {
		snprintf(err, errlen, "plots: cannot make a temporary directory: %s", strerror(errno));
		return -1;
	}
	snprintf(p, sizeof(p), "%s/ticks.dat", tmpdir);
	fd = fopen(p, "we");
	snprintf(p, sizeof(p), "%s/ticks.gp", tmpdir);
	g = fopen(p, "we");
	if (!fd || !g) {
		if (fd)
			fclose(fd);
		if (g)
			fclose(g);
		rm_tmpdir(tmpdir, files, 2);
		snprintf(err, errlen, "plots: cannot write in %s", tmpdir);
		return -1;
	}
	snprintf(name, sizeof(name), "ticks-%s.svg", tn);
	fprintf(g, "set terminal svg size 1000,%zu noenhanced font 'sans,11' background '#ffffff'\n"
		   "set output '%s/%s.tmp'\nset title ",
		120 + 45 * (nc < 3 ? 3 : nc), sweep_dir, name);
	snprintf(p, sizeof(p), "%s: completed cycles (end times), first 0.6 s of the measured phase, first run of each condition", tn);
	gp_str(g, p);
	fprintf(g, "\nset grid xtics\nset xlabel 'ms after the start of the measured phase'\nunset ylabel\nunset key\n"
		   "set xrange [0:600]\nset yrange [-0.6:%zu.6]\nset ytics (", nc - 1);
	for (size_t c = 0; c < nc; c++) {
		json_object *co = json_object_array_get_idx(conds, c), *runs = jget(co, "runs"), *run = NULL;
		const char *label = json_object_get_string(jget(co, "label"));
		int row = (int)(nc - 1 - c);
		long m = -1;
		char text[256];

		for (size_t k = 0; runs && k < json_object_array_length(runs) && !run; k++) {
			json_object *r = json_object_array_get_idx(runs, k), *u = jget(r, "usable");

			if (u && json_object_get_boolean(u) && jget(r, "dir"))
				run = r;
		}
		if (run) {
			json_object *rate = jget(jget(jget(run, "metrics"), tn), "rate_hz");

			m = write_ticks(fd, json_object_get_string(jget(run, "dir")), tn, row);
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
			fprintf(fd, "-1 %d\n", row); /* keep the index (outside the x range) */
		fprintf(fd, "\n\n");
		fprintf(g, "%s", c ? ", " : "");
		gp_str(g, text);
		fprintf(g, " %d", row);
	}
	fprintf(g, ")\nplot ");
	for (size_t c = 0; c < nc; c++)
		fprintf(g, "%s'%s/ticks.dat' index %zu using 1:($2-0.35):(0):(0.7) with vectors nohead lw 1.5", c ? ", " : "",
			tmpdir, c);
	fprintf(g, "\n");
	fclose(fd);
	fclose(g);
	snprintf(p, sizeof(p), "%s/ticks.gp", tmpdir);
	if (run_gnuplot(p))
		snprintf(err, errlen, "plots: gnuplot failed on the tick timeline of %s", tn);
	made = commit_svg(sweep_dir, name);
	rm_tmpdir(tmpdir, files, 2);
	return made;
}

int jl_plot_sweep(const char *sweep_dir, json_object *sweep, char *err, size_t errlen)
{
	static const char *const files[] = { "strip.dat", "mean.dat", "strip.gp" };
	json_object *threads = jget(sweep, "threads"), *conds = jget(sweep, "conditions"), *metrics = jget(sweep, "metrics");
	size_t nt = threads ? json_object_array_length(threads) : 0, nc = conds ? json_object_array_length(conds) : 0;
	size_t nm = metrics ? json_object_array_length(metrics) : 0;
	char tick_err[512];
	int made = 0, nk;

	err[0] = '\0';
	if (!have_gnuplot()) {
		snprintf(err, errlen, "gnuplot is not installed: no strip plots or tick timelines (apt-get install gnuplot-nox)");
		return 0;
	}
	for (size_t t = 0; t < nt; t++) {
		const char *tn = json_object_get_string(json_object_array_get_idx(threads, t));
		char tmpdir[] = "/tmp/jitterlab-plot-XXXXXX", p[PATH_MAX + 64], name[128];
		FILE *fs, *fm, *g;

		if (!mkdtemp(tmpdir)) {
			snprintf(err, errlen, "plots: cannot make a temporary directory: %s", strerror(errno));
			return -1;
		}
		snprintf(p, sizeof(p), "%s/strip.dat", tmpdir);
		fs = fopen(p, "we");
		snprintf(p, sizeof(p), "%s/mean.dat", tmpdir);
		fm = fopen(p, "we");
		snprintf(p, sizeof(p), "%s/strip.gp", tmpdir);
		g = fopen(p, "we");
		if (!fs || !fm || !g) {
			if (fs)
				fclose(fs);
			if (fm)
				fclose(fm);
			if (g)
				fclose(g);
			rm_tmpdir(tmpdir, files, 3);
			snprintf(err, errlen, "plots: cannot write in %s", tmpdir);
			return -1;
		}
		snprintf(name, sizeof(name), "strip-%s.svg", tn);
		fprintf(g, "set terminal svg size %d,700 noenhanced font 'sans,10' background '#ffffff'\n"
			   "set output '%s/%s.tmp'\nset multiplot layout 2,%d title 'thread %s: every run per condition, mean marked'\n"
			   "set grid ytics\nunset key\nset xrange [0.5:%zu.5]\nset xtics rotate by -30 (",
			nc > 4 ? 1800 : 1400, sweep_dir, name, (int)(nm + 1) / 2, tn, nc);
		for (size_t c = 0; c < nc; c++)
			fprintf(g, "%s'%s' %zu", c ? ", " : "", json_object_get_string(jget(json_object_array_get_idx(conds, c), "label")), c + 1);
		fprintf(g, ")\n");
		for (size_t m = 0; m < nm; m++) {
			json_object *mo = json_object_array_get_idx(metrics, m);
			const char *mn = json_object_get_string(jget(mo, "name")), *unit = json_object_get_string(jget(mo, "unit"));
			double scale = 1, lo = INFINITY, hi = -INFINITY;
			const char *ylabel = unit;

			/* the unit that suits the largest value; a log axis when the runs span two decades */
			for (size_t c = 0; c < nc; c++) {
				json_object *vals = jget(jget(jget(jget(json_object_array_get_idx(conds, c), "stats"), tn), mn), "values");

				for (size_t k = 0; vals && k < json_object_array_length(vals); k++) {
					double x = json_object_get_double(json_object_array_get_idx(vals, k));

					lo = x < lo ? x : lo;
					hi = x > hi ? x : hi;
				}
			}
			if (!strcmp(unit, "ns")) {
				scale = hi >= 1e9 ? 1e9 : hi >= 1e6 ? 1e6 : 1e3;
				ylabel = hi >= 1e9 ? "s" : hi >= 1e6 ? "ms" : "us";
			}
			for (size_t c = 0; c < nc; c++) {
				json_object *st = jget(jget(jget(json_object_array_get_idx(conds, c), "stats"), tn), mn);
				json_object *vals = jget(st, "values"), *mean = jget(st, "mean");
				size_t nv = vals ? json_object_array_length(vals) : 0;

				for (size_t k = 0; k < nv; k++)
					fprintf(fs, "%.3f %.6g\n", (double)(c + 1) + ((double)(k % 5) - 2) * 0.06,
						json_object_get_double(json_object_array_get_idx(vals, k)) / scale);
				if (mean)
					fprintf(fm, "%zu %.6g\n", c + 1, json_object_get_double(mean) / scale);
			}
			fprintf(fs, "-10 1\n\n\n"); /* never empty: keep the index (outside the x range) */
			fprintf(fm, "-10 1\n\n\n");
			fprintf(g, "%s\n", lo > 0 && hi / lo > 100 ? "set logscale y" : "unset logscale y");
			fprintf(g, "set title '%s'\nset ylabel '%s'\nplot '%s/strip.dat' index %zu using 1:2 with points pt 7 ps 0.7 lc rgb '#1f77b4', "
				   "'%s/mean.dat' index %zu using 1:2:(0.25) with xerrorbars pt 0 lw 2 lc rgb '#d62728'\n",
				mn, ylabel, tmpdir, m, tmpdir, m);
		}
		fprintf(g, "unset multiplot\n");
		fclose(fs);
		fclose(fm);
		fclose(g);
		snprintf(p, sizeof(p), "%s/strip.gp", tmpdir);
		if (run_gnuplot(p))
			snprintf(err, errlen, "plots: gnuplot failed on the strip plot of %s", tn);
		made += commit_svg(sweep_dir, name);
		rm_tmpdir(tmpdir, files, 3);
		/* the tick timeline: its failure never hides a strip plot's (ERR keeps the first note) */
		tick_err[0] = '\0';
		nk = sweep_ticks(sweep_dir, conds, tn, tick_err, sizeof(tick_err));
		if (nk > 0)
			made += nk;
		else if (tick_err[0] && !err[0])
			snprintf(err, errlen, "%s", tick_err);
	}
	return made;
}
