/* collector: the run's reader while it runs (collector.h). */
#include "collector.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "../../affinity/cpulist.h"
#include "../base/housekeeping_thread.h"
#include "../base/stop.h"
#include "../base/units.h"

#define COLLECT_TICK_NS (100 * 1000000LL)
#define PROGRESS_EVERY_NS (5 * JL_NSEC_PER_SEC)
#define MACHINE_EVERY_NS (5 * JL_NSEC_PER_SEC) /* a thermal zone's read may reach its package by IPI */

/* ---- the machine: thermal zones and CPU frequencies ---- */

static int open_ro(const char *path)
{
	return open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
}

static bool read_i64(int fd, int64_t *v)
{
	char buf[32];
	ssize_t n;

	if (fd < 0)
		return false;
	n = pread(fd, buf, sizeof(buf) - 1, 0);
	if (n <= 0)
		return false;
	buf[n] = '\0';
	*v = strtoll(buf, NULL, 10);
	return true;
}

static void machine_close_fds(struct jl_collector_machine *m)
{
	for (int z = 0; z < m->nzones; z++)
		if (m->zone_fd[z] >= 0)
			close(m->zone_fd[z]);
	for (int c = 0; c < m->ncpus && m->cpu_fd; c++)
		if (m->cpu_fd[c] >= 0)
			close(m->cpu_fd[c]);
	for (int z = 0; z < m->nzones; z++)
		m->zone_fd[z] = -1;
	for (int c = 0; c < m->ncpus && m->cpu_fd; c++)
		m->cpu_fd[c] = -1;
}

static void machine_open(struct jl_collector_machine *m, int nint)
{
	DIR *d = opendir("/sys/class/thermal");
	struct dirent *e;
	cpu_set_t online;
	char path[512];

	m->nzones = m->ncpus = 0;
	while (d && (e = readdir(d)) && m->nzones < JL_COLLECTOR_MAX_ZONES) {
		int fd, tfd;
		ssize_t n;

		if (strncmp(e->d_name, "thermal_zone", 12))
			continue;
		snprintf(path, sizeof(path), "/sys/class/thermal/%.200s/temp", e->d_name);
		if ((fd = open_ro(path)) < 0)
			continue;
		snprintf(path, sizeof(path), "/sys/class/thermal/%.200s/type", e->d_name);
		tfd = open_ro(path);
		n = tfd >= 0 ? read(tfd, m->zone[m->nzones], sizeof(m->zone[0]) - 1) : -1;
		if (tfd >= 0)
			close(tfd);
		if (n <= 0)
			snprintf(m->zone[m->nzones], sizeof(m->zone[0]), "%.31s", e->d_name);
		else
			m->zone[m->nzones][n] = '\0';
		m->zone[m->nzones][strcspn(m->zone[m->nzones], "\n")] = '\0';
		m->zone_fd[m->nzones++] = fd;
	}
	if (d)
		closedir(d);
	m->cpu_fd = calloc(sizeof(m->cpu) / sizeof(m->cpu[0]), sizeof(*m->cpu_fd));
	if (m->cpu_fd && !jl_cpulist_online(&online))
		for (int c = 0; c < (int)(sizeof(m->cpu) / sizeof(m->cpu[0])); c++) {
			int fd;

			if (!CPU_ISSET(c, &online))
				continue;
			snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_cur_freq", c);
			if ((fd = open_ro(path)) < 0)
				continue;
			m->cpu[m->ncpus] = c;
			m->cpu_fd[m->ncpus++] = fd;
		}
	m->temp = m->nzones ? malloc((size_t)nint * (size_t)m->nzones * sizeof(*m->temp)) : NULL;
	m->freq = m->ncpus ? malloc((size_t)nint * (size_t)m->ncpus * 3 * sizeof(*m->freq)) : NULL;
	m->nfreq = m->ncpus ? calloc((size_t)nint * (size_t)m->ncpus, sizeof(*m->nfreq)) : NULL;
	if ((m->nzones && !m->temp) || (m->ncpus && (!m->freq || !m->nfreq))) {
		machine_close_fds(m);
		m->nzones = m->ncpus = 0; /* nothing said rather than half */
		return;
	}
	for (size_t i = 0; i < (size_t)nint * (size_t)m->nzones; i++)
		m->temp[i] = -1;
	for (size_t i = 0; i < (size_t)nint * (size_t)m->ncpus; i++) {
		m->freq[3 * i] = m->freq[3 * i + 2] = -1;
		m->freq[3 * i + 1] = 0;
	}
}

static void machine_take(struct jl_collector_machine *m, int k)
{
	int64_t v;

	for (int z = 0; z < m->nzones; z++)
		if (read_i64(m->zone_fd[z], &v) && v > m->temp[(size_t)k * (size_t)m->nzones + (size_t)z])
			m->temp[(size_t)k * (size_t)m->nzones + (size_t)z] = v;
	for (int c = 0; c < m->ncpus; c++) {
		size_t i = (size_t)k * (size_t)m->ncpus + (size_t)c;
		int64_t *f = &m->freq[3 * i];

		if (m->cpu_fd[c] < 0 || !read_i64(m->cpu_fd[c], &v))
			continue;
		if (f[0] < 0 || v < f[0])
			f[0] = v;
		if (v > f[2])
			f[2] = v;
		f[1] += v;
		m->nfreq[i]++;
	}
}

static void machine_close(struct jl_collector_machine *m)
{
	machine_close_fds(m);
	free(m->cpu_fd);
	free(m->temp);
	free(m->freq);
	free(m->nfreq);
	memset(m, 0, sizeof(*m));
}

/* ---- the series ---- */

static int interval_of(const struct jl_collector *w, int64_t t)
{
	int64_t k = (t - w->t_first) / w->o.interval_ns;

	return k < 0 ? 0 : k >= w->nintervals ? w->nintervals - 1 : (int)k;
}

static void fire_stop(struct jl_collector *w, const struct jl_sample *x, int64_t v)
{
	w->stopped.cycle = x->cycle;
	w->stopped.value = v;
	w->stopped.at = x->end;
	/* the window ends with the crossing cycle: it counts (released before), nothing after it does */
	jl_engine_stop_window(w->eng, x->end + 1);
	atomic_store_explicit(&w->stop_fired, true, memory_order_release);
	jl_stop_request(JL_STOP_SIGNAL);
}

/* The samples series I gained since the last look, up to those released at FRONTIER (INT64_MAX: all).
 * A sample left for the next look stays where it is (a ring keeps its slot). */
static void drain(struct jl_collector *w, int i, int64_t frontier)
{
	struct jl_series *s = &w->eng->series[i];
	struct jl_series_accumulator *a = w->acc[i];
	size_t n = jl_series_count(s), k = w->cursor[i];
	const int64_t we = atomic_load(&w->eng->t_stopped);

	if (we && we < a->we)
		a->we = we; /* an early stop: nothing released after it counts */
	/* a ring more than half full is read whatever the frontier: its writer must never find it full */
	if (s->ring && n - k > s->cap / 2)
		frontier = INT64_MAX;
	for (; k < n; k++) {
		const struct jl_sample *x = jl_series_at(s, k);
		struct jl_collector_interval *iv;
		struct jl_cycle_figures f;
		int64_t v;

		if (x->release > frontier)
			break;
		if (!jl_series_accumulator_add(a, x, &f))
			continue;
		if (w->o.cycle)
			w->o.cycle(w->o.ctx, i, x, &f);
		iv = &w->intervals[(size_t)i * (size_t)w->nintervals + (size_t)interval_of(w, x->release)];
		if (!iv->cycles || f.latency > iv->max_latency) {
			iv->max_latency = f.latency;
			iv->max_cycle = x->cycle;
		}
		iv->cycles++;
		iv->misses += f.miss;
		if (w->rows_open && !w->rows_error && s->measured) { /* samples.csv: the measured series' rows */
			jl_results_sample_row(w->rows.fp, s->name, s, x, f.period);
			if (ferror(w->rows.fp))
				w->rows_error = errno ? errno : EIO;
		}
		v = w->stop_metric == JL_ACC_RESPONSE ? f.response : f.latency;
		if (i == w->stop_series && !jl_collector_stop_fired(w) && v > w->stop_threshold) {
			fire_stop(w, x, v);
			a->we = w->eng->t_stopped;
		}
	}
	w->cursor[i] = k;
	if (s->ring)
		jl_series_consumed(s, k);
}

/* Every series. With a stop_at, its series first, and the others only up to the releases it has been
 * checked to: a crossing found late must not leave cycles after it counted elsewhere (the window ends at
 * the crossing for every series). FINAL: the writers have ended, everything is read. */
static void drain_all(struct jl_collector *w, bool final)
{
	int64_t frontier = INT64_MAX;

	if (w->stop_series >= 0) {
		const struct jl_series *s = &w->eng->series[w->stop_series];

		drain(w, w->stop_series, INT64_MAX);
		if (!final && !jl_collector_stop_fired(w))
			frontier = w->cursor[w->stop_series] ? jl_series_at(s, w->cursor[w->stop_series] - 1)->release : INT64_MIN;
	}
	for (int i = 0; i < w->nseries; i++)
		if (w->acc[i] && i != w->stop_series)
			drain(w, i, frontier);
}

static void fmt_dur(int64_t ns, char *buf, size_t len)
{
	int64_t s = ns / JL_NSEC_PER_SEC;

	if (s >= 3600)
		snprintf(buf, len, "%" PRId64 "h%02" PRId64 "m%02" PRId64 "s", s / 3600, s / 60 % 60, s % 60);
	else
		snprintf(buf, len, "%" PRId64 "m%02" PRId64 "s", s / 60, s % 60);
}

/* One line, overwritten in place: elapsed and remaining, then per loop its worst latency and misses. */
static void progress(struct jl_collector *w, int64_t now)
{
	const struct jl_engine *eng = w->eng;
	char el[32], left[32], line[1024];
	size_t used;
	int shown = 0;

	fmt_dur(now > eng->t_measure ? now - eng->t_measure : 0, el, sizeof(el));
	fmt_dur(eng->t_end > now ? eng->t_end - now : 0, left, sizeof(left));
	used = (size_t)snprintf(line, sizeof(line), "jitterlab: %s%s, %s left", now < eng->t_measure ? "warm-up " : "",
				el, left);
	for (int i = 0; i < w->nseries && used < sizeof(line); i++) {
		const struct jl_series_accumulator *a = w->acc[i];

		if (!a)
			continue;
		if (shown++ == 4) {
			used += (size_t)snprintf(line + used, sizeof(line) - used, " | ...");
			break;
		}
		used += (size_t)snprintf(line + used, sizeof(line) - used, " | %s max %.1fus %" PRIu64 " miss%s",
					 eng->series[i].name, (double)a->latency.max / 1e3, a->misses,
					 eng->series[i].dropped ? " (ring full!)" : "");
	}
	if (w->o.lost && used < sizeof(line))
		snprintf(line + used, sizeof(line) - used, " | lost events %llu", (unsigned long long)w->o.lost(w->o.ctx));
	fprintf(stderr, "\r%.300s\033[K", line);
	fflush(stderr);
	w->progress_shown = true;
}

static void *collector_main(void *arg)
{
	struct jl_collector *w = arg;
	int64_t next_machine = 0;

	while (!atomic_load(&w->quit)) {
		int64_t now = jl_now_ns();
		struct timespec ts;
		int64_t t;

		drain_all(w, false);
		if (now >= next_machine && now >= w->t_first && (w->m.nzones || w->m.ncpus)) {
			machine_take(&w->m, interval_of(w, now));
			next_machine = now + MACHINE_EVERY_NS;
		}
		if (w->o.progress && now >= w->next_progress) {
			progress(w, now);
			w->next_progress = now + PROGRESS_EVERY_NS;
		}
		if (w->o.checkpoint && w->next_checkpoint && now >= w->next_checkpoint && now < w->eng->t_end) {
			w->o.checkpoint(w->o.ctx, w);
			w->checkpoints++;
			w->next_checkpoint = now + w->o.checkpoint_ns;
		}
		t = now + COLLECT_TICK_NS;
		ts.tv_sec = t / JL_NSEC_PER_SEC;
		ts.tv_nsec = t % JL_NSEC_PER_SEC;
		clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &ts, NULL);
	}
	return NULL;
}

/* ---- lifecycle ---- */

static int stop_series(const struct jl_engine *eng)
{
	const struct jl_stop_at *st = &eng->sc->run.stop_at;

	for (int i = 0; st->set && i < eng->nseries; i++)
		if (!strcmp(eng->series[i].name, st->series))
			return i;
	return -1;
}

int jl_collector_init(struct jl_collector *w, struct jl_engine *eng, const struct jl_collector_opts *o, char *err, size_t errlen)
{
	const struct jl_scenario *sc = eng->sc;
	int64_t span;

	memset(w, 0, sizeof(*w));
	w->eng = eng;
	w->o = *o;
	w->nseries = eng->nseries;
	w->stop_series = -1;
	w->t_first = eng->t_measure;
	span = eng->t_end - eng->t_measure;
	if (w->o.interval_ns <= 0)
		w->o.interval_ns = JL_NSEC_PER_SEC;
	w->nintervals = (int)((span + w->o.interval_ns - 1) / w->o.interval_ns);
	if (w->nintervals < 1)
		w->nintervals = 1;
	if (w->nintervals > JL_COLLECTOR_MAX_INTERVALS) {
		snprintf(err, errlen, "[run] interval: %d intervals in the run (at most %d): choose a longer interval",
			 w->nintervals, JL_COLLECTOR_MAX_INTERVALS);
		return -1;
	}
	w->acc = calloc((size_t)w->nseries + 1, sizeof(*w->acc));
	w->cursor = calloc((size_t)w->nseries + 1, sizeof(*w->cursor));
	w->intervals = calloc((size_t)(w->nseries + 1) * (size_t)w->nintervals, sizeof(*w->intervals));
	if (!w->acc || !w->cursor || !w->intervals)
		goto nomem;
	for (int i = 0; i < w->nseries; i++) {
		const struct jl_series *s = &eng->series[i];

		if (!s->samples || !(s->measured || s->ring))
			continue;
		w->acc[i] = malloc(sizeof(*w->acc[i]));
		/* a ring's accumulator is its figures after the run (its kept cycles too); every one has its
		 * histograms, for the checkpoints */
		if (!w->acc[i] || jl_series_accumulator_init(w->acc[i], eng, s, true, s->ring, s->ring && w->o.spill)) {
			free(w->acc[i]);
			w->acc[i] = NULL;
			goto nomem;
		}
	}
	if (sc->run.stop_at.set) {
		w->stop_series = stop_series(eng);
		w->stop_metric = sc->run.stop_at.metric == JL_STOP_AT_RESPONSE ? JL_ACC_RESPONSE : JL_ACC_LATENCY;
		w->stop_threshold = sc->run.stop_at.threshold_ns;
		if (w->stop_series < 0 || !w->acc[w->stop_series]) {
			snprintf(err, errlen, "[run] stop_at: '%s' is no measured series of this run", sc->run.stop_at.series);
			jl_collector_free(w);
			return -1;
		}
	}
	if (w->o.stream_rows) {
		if (jl_output_open(&w->rows, w->o.dir, "samples.csv")) {
			snprintf(err, errlen, "%s/samples.csv: %s", w->o.dir, strerror(errno));
			jl_collector_free(w);
			return -1;
		}
		fputs(JL_SAMPLES_HEADER, w->rows.fp);
		w->rows_open = true;
	}
	machine_open(&w->m, w->nintervals);
	w->next_checkpoint = w->o.checkpoint_ns ? jl_now_ns() + w->o.checkpoint_ns : 0;
	return 0;
nomem:
	snprintf(err, errlen, "out of memory for the run's collector");
	jl_collector_free(w);
	return -1;
}

int jl_collector_start(struct jl_collector *w, char *err, size_t errlen)
{
	int e;

	if (w->o.cpus)
		jl_cpulist_format(w->o.cpus, w->cpus, sizeof(w->cpus));
	e = jl_housekeeping_thread_start(&w->thread, w->o.cpus, "jl-collector", collector_main, w);
	if (e) {
		snprintf(err, errlen, "cannot start the run's collector: %s", strerror(e));
		return -1;
	}
	w->started = true;
	return 0;
}

int jl_collector_finish(struct jl_collector *w)
{
	int rc = 0;

	if (w->started) {
		atomic_store(&w->quit, true);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	if (w->progress_shown)
		fputs("\r\033[K", stderr);
	drain_all(w, true); /* what came after its last look: the writers have ended */
	machine_close_fds(&w->m); /* what they said is kept; the files are not needed any more */
	if (w->eng->stuck[0])
		goto rows; /* a writer the watchdog gave up on may still append: its ring stays where it is */
	for (int i = 0; i < w->nseries; i++) {
		struct jl_series *s = &w->eng->series[i];
		struct jl_kept *k;
		struct jl_sample *keep;
		size_t n;

		if (!w->acc[i] || !s->ring)
			continue;
		k = malloc(jl_series_accumulator_kept_max() * sizeof(*k));
		keep = malloc((jl_series_accumulator_kept_max() + 1) * sizeof(*keep));
		if (!k || !keep) {
			free(k);
			free(keep);
			errno = ENOMEM;
			return -1;
		}
		n = jl_series_accumulator_kept(w->acc[i], k);
		for (size_t j = 0; j < n; j++)
			keep[j] = k[j].s;
		free(k);
		jl_series_adopt(s, keep, n);
	}
rows:
	if (w->rows_open) {
		w->rows_open = false;
		if (w->rows_error) {
			jl_output_abort(&w->rows);
			errno = w->rows_error;
			rc = -1;
		} else if (jl_output_commit(&w->rows)) {
			rc = -1;
		}
	}
	return rc;
}

void jl_collector_free(struct jl_collector *w)
{
	if (w->started) {
		atomic_store(&w->quit, true);
		pthread_join(w->thread, NULL);
		w->started = false;
	}
	if (w->rows_open)
		jl_output_abort(&w->rows);
	w->rows_open = false;
	for (int i = 0; w->acc && i < w->nseries; i++)
		if (w->acc[i]) {
			jl_series_accumulator_free(w->acc[i]);
			free(w->acc[i]);
		}
	free(w->acc);
	free(w->cursor);
	free(w->intervals);
	machine_close(&w->m);
	w->acc = NULL;
	w->cursor = NULL;
	w->intervals = NULL;
}

struct jl_series_accumulator *const *jl_collector_accs(const struct jl_collector *w)
{
	return w->acc;
}
