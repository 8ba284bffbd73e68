/* rtla: what rtla timerlat / osnoise can do here, and their text read back (rtla.h). */
#include "rtla.h"

#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <tracefs.h>

#include "../../affinity/cpulist.h"
#include "../base/stats.h"
#include "../base/units.h"

/* ---- what can run ---- */

bool jl_rtla_parse_version(const char *text, int *major, int *minor)
{
	const char *p = text ? strstr(text, "rtla version ") : NULL;

	return p && sscanf(p + strlen("rtla version "), "%d.%d", major, minor) == 2;
}

/* Whether TRACER is in the kernel's available_tracers: tracefs where it is mounted, or (MAY_MOUNT) where
 * libtracefs mounts it, as a traced run would. */
static int has_tracer(const char *tracer, bool may_mount, bool *mounted)
{
	static const char *const at[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };
	const char *dirs[3] = { at[0], at[1], may_mount ? tracefs_tracing_dir() : NULL };
	char buf[1024], path[512];

	*mounted = false;
	for (size_t i = 0; i < 3; i++) {
		FILE *f;
		size_t n;

		if (!dirs[i])
			continue;
		snprintf(path, sizeof(path), "%s/available_tracers", dirs[i]);
		if (!(f = fopen(path, "re")))
			continue;
		n = fread(buf, 1, sizeof(buf) - 1, f);
		fclose(f);
		buf[n] = '\0';
		*mounted = true;
		for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
			if (!strcmp(tok, tracer))
				return 1;
		return 0;
	}
	return 0;
}

void jl_rtla_probe(struct jl_rtla_probe *p, bool may_mount)
{
	char line[256];
	bool mounted;
	FILE *f;

	memset(p, 0, sizeof(*p));
	p->timerlat = has_tracer("timerlat", may_mount, &mounted);
	p->osnoise = has_tracer("osnoise", may_mount, &mounted);
	/* a fixed command line: nothing of the user's reaches the shell */
	f = popen("command -v rtla >/dev/null 2>&1 && timeout 5 rtla --version 2>&1", "re");
	while (f && fgets(line, sizeof(line), f)) {
		p->rtla = true;
		if (!p->major)
			jl_rtla_parse_version(line, &p->major, &p->minor);
	}
	if (f)
		pclose(f);
	p->user_threads = p->major > 6 || (p->major == 6 && p->minor >= 6);
	p->auto_analysis = p->major > 6 || (p->major == 6 && p->minor >= 3);
	for (int k = 0; k < 2; k++) {
		char *why = k ? p->why_osnoise : p->why_timerlat;
		const char *tracer = k ? "osnoise" : "timerlat";
		bool has = k ? p->osnoise : p->timerlat;

		if (!mounted)
			snprintf(why, sizeof(p->why_timerlat), "tracefs is not mounted (mount -t tracefs nodev /sys/kernel/tracing)");
		else if (!has)
			snprintf(why, sizeof(p->why_timerlat),
				 "the kernel has no %s tracer (CONFIG_%s_TRACER; Debian's linux-image-rt-amd64 "
				 "has it)", tracer, k ? "OSNOISE" : "TIMERLAT");
		else if (!p->rtla)
			snprintf(why, sizeof(p->why_timerlat), "rtla is not installed (apt-get install rtla)");
	}
}

/* ---- histograms ---- */

void jl_rtla_hist_free(struct jl_rtla_hist *h)
{
	for (int c = 0; h->cols && c < h->ncols; c++)
		free(h->cols[c].cnt);
	free(h->cols);
	memset(h, 0, sizeof(*h));
}

/* The whitespace-separated tokens of LINE (modified) into TOK[0..MAX): how many. */
static int tokens(char *line, char **tok, int max)
{
	int n = 0;

	for (char *s = strtok(line, " \t\r\n"); s && n < max; s = strtok(NULL, " \t\r\n"))
		tok[n++] = s;
	return n;
}

static bool whole(const char *s, long long *v)
{
	char *end;

	errno = 0;
	*v = strtoll(s, &end, 10);
	return !errno && end != s && !*end;
}

#define MAX_TOKENS 2050 /* Index + up to 1024 CPUs' two columns, and a little */

/* The Index line's columns (KIND-CPU each, TOK[1..N)) into H, each with NBUCKETS buckets. 0, or -1 with ERR. */
static int hist_columns(struct jl_rtla_hist *h, char **tok, int n, int nbuckets, int lineno, char *err, size_t errlen)
{
	if (h->ncols) {
		snprintf(err, errlen, "line %d: a second Index line", lineno);
		return -1;
	}
	h->cols = calloc((size_t)(n - 1 > 0 ? n - 1 : 1), sizeof(*h->cols));
	if (!h->cols) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (int c = 1; c < n; c++) {
		struct jl_rtla_col *col = &h->cols[h->ncols];
		char *dash = strchr(tok[c], '-');
		long long cpu;

		if (!dash || dash == tok[c] || (size_t)(dash - tok[c]) >= sizeof(col->kind) || !whole(dash + 1, &cpu)) {
			snprintf(err, errlen, "line %d: column '%s' is not KIND-CPU (IRQ-000, Thr-001, ...)", lineno, tok[c]);
			return -1;
		}
		memcpy(col->kind, tok[c], (size_t)(dash - tok[c]));
		col->cpu = (int)cpu;
		col->min = col->max = -1;
		col->cnt = calloc((size_t)nbuckets, sizeof(*col->cnt));
		if (!col->cnt) {
			snprintf(err, errlen, "out of memory");
			return -1;
		}
		h->ncols++;
	}
	return 0;
}

/* One row's values TOK[1..] into H's columns: summary row S (0 over, 1 count, 2 min, 3 avg, 4 max; "-" where a
 * column has no sample) or, with S < 0, bucket LABEL (one at or beyond NBUCKETS counts as an overflow). 0, or
 * -1 with ERR. */
static int hist_values(struct jl_rtla_hist *h, char **tok, int s, long long label, int nbuckets, int lineno, char *err,
		       size_t errlen)
{
	for (int c = 0; c < h->ncols; c++) {
		struct jl_rtla_col *col = &h->cols[c];
		long long v;
		char *end;
		double d;

		if (s == 3 || s == 2 || s == 4) {
			if (!strcmp(tok[c + 1], "-"))
				continue;
			d = strtod(tok[c + 1], &end);
			if (end == tok[c + 1] || *end) {
				snprintf(err, errlen, "line %d: '%s' is not a number", lineno, tok[c + 1]);
				return -1;
			}
			if (s == 3)
				col->avg = d;
			else if (s == 2)
				col->min = (int64_t)d;
			else
				col->max = (int64_t)d;
			continue;
		}
		if (!whole(tok[c + 1], &v) || v < 0) {
			snprintf(err, errlen, "line %d: '%s' is not a count", lineno, tok[c + 1]);
			return -1;
		}
		if (s == 0)
			col->over += (uint64_t)v;
		else if (s == 1)
			col->count = (uint64_t)v;
		else if (label >= 0 && label < nbuckets)
			col->cnt[label] += (uint64_t)v;
		else if (label >= nbuckets) /* beyond the entries asked for: an overflow by our rule */
			col->over += (uint64_t)v;
	}
	return 0;
}

int jl_rtla_hist_parse(const char *text, int nbuckets, struct jl_rtla_hist *h, char *err, size_t errlen)
{
	char **tok = malloc(MAX_TOKENS * sizeof(*tok)), *copy = strdup(text ? text : ""), *save = NULL;
	int lineno = 0, rc = -1;
	bool summary = false;

	memset(h, 0, sizeof(*h));
	h->nbuckets = nbuckets;
	if (!tok || !copy || nbuckets <= 0) {
		snprintf(err, errlen, "out of memory");
		goto out;
	}
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		int n;

		lineno++;
		if (line[0] == '#') {
			h->ns |= strstr(line, "nanoseconds") != NULL;
			continue;
		}
		n = tokens(line, tok, MAX_TOKENS);
		if (!n)
			continue;
		if (!strcmp(tok[0], "Index")) {
			if (hist_columns(h, tok, n, nbuckets, lineno, err, errlen))
				goto out;
			continue;
		}
		if (!strcmp(tok[0], "ALL:")) /* rtla 6.6+: the all-CPU block after the per-CPU summary */
			break;
		if (!h->ncols)
			continue; /* before the header: rtla's own messages */
		long long label;
		bool is_row = whole(tok[0], &label);
		const char *const sums[] = { "over:", "count:", "min:", "avg:", "max:" };
		int s = -1;

		for (int k = 0; k < 5 && !is_row; k++)
			if (!strcmp(tok[0], sums[k]))
				s = k;
		if (!is_row && s < 0)
			continue; /* e.g. "rtla timerlat hit stop tracing" */
		if (is_row && summary) {
			snprintf(err, errlen, "line %d: a bucket row after the summary rows", lineno);
			goto out;
		}
		if (n != h->ncols + 1) {
			snprintf(err, errlen, "line %d: %d values for %d columns", lineno, n - 1, h->ncols);
			goto out;
		}
		summary |= !is_row;
		if (hist_values(h, tok, s, is_row ? label : -1, nbuckets, lineno, err, errlen))
			goto out;
	}
	if (!h->ncols) {
		snprintf(err, errlen, "no histogram (no Index line)");
		goto out;
	}
	if (!summary) {
		snprintf(err, errlen, "the histogram has no summary rows (over/count/min/avg/max): rtla did not finish");
		goto out;
	}
	rc = 0;
out:
	if (rc)
		jl_rtla_hist_free(h);
	free(tok);
	free(copy);
	return rc;
}

int jl_rtla_hist_result(const struct jl_rtla_hist *h, const char *kind, const cpu_set_t *cpus,
			struct jl_cyclictest_result *r, char *err, size_t errlen)
{
	uint64_t *cnt = calloc((size_t)h->nbuckets, sizeof(*cnt)), count = 0, sum = 0;
	double wavg = 0;
	int ncols = 0;
	static const double qs[3] = { 50, 99, 99.9 };

	memset(r, 0, sizeof(*r));
	r->min_ns = r->max_ns = -1;
	r->cpu = -1;
	if (!cnt) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (h->ns) {
		free(cnt);
		snprintf(err, errlen, "the histogram is in ns (-n): cyclictest's rule needs whole us");
		return -1;
	}
	for (int c = 0; c < h->ncols; c++) {
		const struct jl_rtla_col *col = &h->cols[c];

		if (strcmp(col->kind, kind) || (cpus && (col->cpu >= CPU_SETSIZE || !CPU_ISSET(col->cpu, cpus))))
			continue;
		ncols++;
		r->cpu = ncols == 1 ? col->cpu : -1;
		for (int b = 0; b < h->nbuckets; b++) {
			cnt[b] += col->cnt[b];
			sum += col->cnt[b] * (uint64_t)b;
		}
		r->overflows += col->over;
		count += col->count;
		wavg += col->avg * (double)col->count;
		if (col->count && col->min >= 0 && (r->min_ns < 0 || col->min * 1000 < r->min_ns))
			r->min_ns = col->min * 1000;
		if (col->count && col->max * 1000 > r->max_ns)
			r->max_ns = col->max * 1000;
	}
	if (!ncols) {
		free(cnt);
		snprintf(err, errlen, "no %s column for the CPUs asked for", kind);
		return -1;
	}
	r->cycles = count;
	r->avg_ns = !count ? 0 : r->overflows ? wavg / (double)count * 1000 : (double)sum / (double)count * 1000;
	for (int q = 0; q < 3; q++) {
		int64_t b = jl_buckets_percentile(cnt, h->nbuckets, r->overflows, qs[q]);

		*(q == 0 ? &r->p50_ns : q == 1 ? &r->p99_ns : &r->p999_ns) = b < 0 ? -1 : b * 1000;
	}
	free(cnt);
	return 0;
}

/* ---- osnoise top ---- */

/* LINE without ANSI escape sequences (ESC [ ... letter), in place. */
static void strip_ansi(char *line)
{
	char *w = line;

	for (char *r = line; *r;) {
		if (r[0] == '\033' && r[1] == '[') {
			r += 2;
			while (*r && !isalpha((unsigned char)*r))
				r++;
			if (*r)
				r++;
			continue;
		}
		*w++ = *r++;
	}
	*w = '\0';
}

int jl_rtla_noise_parse(const char *text, struct jl_rtla_noise *out, int max, int *n, char *err, size_t errlen)
{
	char *copy = strdup(text ? text : ""), *save = NULL;

	*n = 0;
	if (!copy) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		struct jl_rtla_noise x = { 0 };
		unsigned long long v[10];
		int used = 0, k;

		strip_ansi(line);
		if (sscanf(line, " %d #%llu %llu %llu %lf %llu %llu %llu %llu %llu %llu %llu%n", &x.cpu, &v[0], &v[1], &v[2],
			   &x.avail_pct, &v[3], &v[4], &v[5], &v[6], &v[7], &v[8], &v[9], &used) != 12 || line[used + strspn(line + used, " \t\r")])
			continue;
		x.periods = v[0];
		x.runtime_us = v[1];
		x.noise_us = v[2];
		x.max_noise_us = v[3];
		x.max_single_us = v[4];
		x.hw = v[5];
		x.nmi = v[6];
		x.irq = v[7];
		x.softirq = v[8];
		x.thread = v[9];
		for (k = 0; k < *n && out[k].cpu != x.cpu; k++)
			;
		if (k == *n && *n == max)
			continue;
		out[k] = x;
		if (k == *n)
			(*n)++;
	}
	free(copy);
	if (!*n) {
		snprintf(err, errlen, "no CPU row in rtla osnoise's output");
		return -1;
	}
	return 0;
}

json_object *jl_rtla_noise_json(const struct jl_rtla_noise *r)
{
	json_object *o = json_object_new_object(), *c = json_object_new_object();

	json_object_object_add(o, "cpu", json_object_new_int(r->cpu));
	json_object_object_add(o, "periods", json_object_new_int64((int64_t)r->periods));
	json_object_object_add(o, "runtime_ns", json_object_new_int64((int64_t)r->runtime_us * 1000));
	json_object_object_add(o, "noise_ns", json_object_new_int64((int64_t)r->noise_us * 1000));
	json_object_object_add(o, "available_pct", json_object_new_double(r->avail_pct));
	json_object_object_add(o, "max_noise_ns", json_object_new_int64((int64_t)r->max_noise_us * 1000));
	json_object_object_add(o, "max_single_noise_ns", json_object_new_int64((int64_t)r->max_single_us * 1000));
	json_object_object_add(c, "hw", json_object_new_int64((int64_t)r->hw));
	json_object_object_add(c, "nmi", json_object_new_int64((int64_t)r->nmi));
	json_object_object_add(c, "irq", json_object_new_int64((int64_t)r->irq));
	json_object_object_add(c, "softirq", json_object_new_int64((int64_t)r->softirq));
	json_object_object_add(c, "thread", json_object_new_int64((int64_t)r->thread));
	json_object_object_add(o, "interference", c);
	return o;
}

/* ---- the timerlat auto-analysis ---- */

/* The "X us" value of LINE after LABEL (and its "(P %)" share), into O as KEY: {us, share_pct}. */
static bool aa_value(json_object *o, const char *key, const char *line)
{
	const char *p = line + strcspn(line, "0123456789");
	double us, pct;
	json_object *v;

	if (!*p || sscanf(p, "%lf us", &us) != 1)
		return false;
	v = json_object_new_object();
	json_object_object_add(v, "us", json_object_new_double(us));
	p = strchr(p, '(');
	if (p && sscanf(p, "(%lf", &pct) == 1)
		json_object_object_add(v, "share_pct", json_object_new_double(pct));
	json_object_object_add(o, key, v);
	return true;
}

/* "NAME:ID ... X us" (a blocking or interfering task, an IRQ "desc:vector"): {name, id, us}; NULL if not one. */
static json_object *aa_item(const char *line)
{
	char buf[256], *colon, *end;
	double us = -1;
	size_t n;
	json_object *o;
	long id;

	snprintf(buf, sizeof(buf), "%s", line);
	n = strlen(buf);
	while (n && isspace((unsigned char)buf[n - 1]))
		buf[--n] = '\0';
	if (n > 3 && !strcmp(buf + n - 3, " us")) { /* its time, the last number */
		char *num;

		buf[n - 3] = '\0';
		num = strrchr(buf, ' ');
		if (!num || sscanf(num, "%lf", &us) != 1)
			return NULL;
		*num = '\0';
	}
	colon = strrchr(buf, ':');
	if (!colon)
		return NULL;
	id = strtol(colon + 1, &end, 10);
	if (end == colon + 1)
		return NULL;
	*colon = '\0';
	{
		char *name = buf + strspn(buf, " \t");

		o = json_object_new_object();
		json_object_object_add(o, "name", json_object_new_string(name));
		json_object_object_add(o, "id", json_object_new_int64(id));
		if (us >= 0)
			json_object_object_add(o, "us", json_object_new_double(us));
	}
	return o;
}

/* The parts of an auto-analysis report: the line's label, its key, and the key of the list that follows it. */
static const struct {
	const char *label, *key, *list;
} aa_labels[] = {
	{ "Previous IRQ interference", "previous_irq_interference", NULL },
	{ "IRQ handler delay", "irq_handler_delay", NULL },
	{ "Timerlat IRQ duration", "timerlat_irq_duration", NULL },
	{ "Blocking thread", "blocking_thread", "blocking_task" },
	{ "NMI interference", "nmi_interference", NULL },
	{ "IRQ interference", "irq_interference", "irqs" },
	{ "Softirq interference", "softirq_interference", "softirqs" },
	{ "Thread interference", "thread_interference", "threads" },
};

/* Line T as a part of CUR: its value, and the list that follows it into *LIST (NULL: none follows). False
 * when T is no part's line ("Blocking thread stacktrace" heads the stack, not a part). */
static bool aa_part(json_object *cur, const char *t, json_object **list)
{
	for (size_t k = 0; k < sizeof(aa_labels) / sizeof(aa_labels[0]); k++) {
		const char *after = t + strlen(aa_labels[k].label);

		if (strncmp(t, aa_labels[k].label, strlen(aa_labels[k].label)) || isalpha((unsigned char)after[strspn(after, " \t")]))
			continue;
		aa_value(cur, aa_labels[k].key, after);
		if (!strcmp(aa_labels[k].key, "irq_handler_delay") && strstr(t, "(exit from idle)"))
			json_object_object_add(cur, "exit_from_idle", json_object_new_boolean(true));
		*list = NULL;
		if (aa_labels[k].list) {
			*list = json_object_new_array();
			json_object_object_add(cur, aa_labels[k].list, *list);
		}
		return true;
	}
	return false;
}

/* A stack frame FRAME of CUR's stack. */
static void aa_stack(json_object *cur, const char *frame)
{
	json_object *st;

	if (!json_object_object_get_ex(cur, "stack", &st)) {
		st = json_object_new_array();
		json_object_object_add(cur, "stack", st);
	}
	json_object_array_add(st, json_object_new_string(frame));
}

json_object *jl_rtla_auto_analysis_parse(const char *text)
{
	char *copy = strdup(text ? text : ""), *save = NULL;
	json_object *arr = json_object_new_array(), *cur = NULL, *list = NULL;
	bool after_dashes = false;

	if (!copy)
		return arr;
	for (char *line = strtok_r(copy, "\n", &save); line; line = strtok_r(NULL, "\n", &save)) {
		char *t = line + strspn(line, " \t");
		json_object *item;
		int cpu;
		double us;

		strip_ansi(t);
		if (sscanf(t, "## CPU %d hit stop tracing", &cpu) == 1) {
			cur = json_object_new_object();
			json_object_object_add(cur, "cpu", json_object_new_int(cpu));
			json_object_array_add(arr, cur);
			list = NULL;
			after_dashes = false;
			continue;
		}
		if (sscanf(t, "Max timerlat IRQ latency from idle: %lf us in cpu %d", &us, &cpu) == 2) {
			json_object *o = json_object_new_object(), *v = json_object_new_object();

			json_object_object_add(o, "cpu", NULL);
			json_object_object_add(v, "us", json_object_new_double(us));
			json_object_object_add(v, "cpu", json_object_new_int(cpu));
			json_object_object_add(o, "max_irq_latency_from_idle", v);
			json_object_array_add(arr, o);
			cur = NULL;
			continue;
		}
		if (!cur)
			continue;
		if (!strncmp(t, "----", 4)) {
			after_dashes = true;
			list = NULL;
			continue;
		}
		if (!strncmp(t, "->", 2)) { /* a stack frame */
			aa_stack(cur, t + 2 + strspn(t + 2, " "));
			continue;
		}
		if (after_dashes) { /* "Thread latency: X us (100%)" or "IRQ latency: ..." */
			bool irq = !strncmp(t, "IRQ latency", 11);

			if ((irq || !strncmp(t, "Thread latency", 14)) && aa_value(cur, "total", t))
				json_object_object_add(cur, "stopped_by", json_object_new_string(irq ? "irq" : "thread"));
			continue;
		}
		if (!strncmp(t, "IRQ latency", 11)) {
			aa_value(cur, "irq_latency", t);
			list = NULL;
			continue;
		}
		if (aa_part(cur, t, &list))
			continue;
		if (list && (item = aa_item(t)))
			json_object_array_add(list, item);
	}
	free(copy);
	/* the blocking thread is one task, not a list */
	for (size_t i = 0; i < json_object_array_length(arr); i++) {
		json_object *o = json_object_array_get_idx(arr, i), *b;

		if (json_object_object_get_ex(o, "blocking_task", &b)) {
			json_object *first = json_object_array_length(b) ? json_object_get(json_object_array_get_idx(b, 0)) : NULL;

			json_object_object_add(o, "blocking_task", first);
		}
	}
	if (!json_object_array_length(arr)) {
		json_object_put(arr);
		return NULL;
	}
	return arr;
}

char *jl_rtla_read_file(const char *path)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NOFOLLOW);
	struct stat st;
	char *buf;
	ssize_t n;
	size_t got = 0;

	if (fd < 0)
		return NULL;
	if (fstat(fd, &st) || !S_ISREG(st.st_mode) || st.st_size > (16 << 20)) {
		close(fd);
		errno = EFBIG;
		return NULL;
	}
	buf = malloc((size_t)st.st_size + 1);
	while (buf && (n = read(fd, buf + got, (size_t)st.st_size - got)) > 0)
		got += (size_t)n;
	close(fd);
	if (buf)
		buf[got] = '\0';
	return buf;
}

/* ---- the command line ---- */

int jl_rtla_timerlat_cmdline(const struct jl_scenario *sc, const int *measured, int nm, bool user, char *buf, size_t len,
			     char *err, size_t errlen)
{
	const struct jl_thread_spec *t0 = &sc->threads[measured[0]];
	long long period_us = (t0->beh.period_ns + 500) / 1000;
	long long secs = (sc->run.warmup_ns + sc->run.duration_ns + JL_NSEC_PER_SEC - 1) / JL_NSEC_PER_SEC + 2;
	char prio[32], cpus[256] = "";
	cpu_set_t all;
	bool pinned = true;
	size_t n;

	CPU_ZERO(&all);
	for (int k = 0; k < nm; k++) {
		const struct jl_thread_spec *t = &sc->threads[measured[k]];

		if (t->beh.period_ns != t0->beh.period_ns || t->place.policy != t0->place.policy ||
		    t->place.priority != t0->place.priority || t->place.nice != t0->place.nice) {
			snprintf(err, errlen, "rtla timerlat runs one period and one priority on all its CPUs, and loops '%s' "
				 "and '%s' differ", t0->name, t->name);
			return -1;
		}
		if (t->place.count > 1) {
			snprintf(err, errlen, "thread '%s': count = %u: compare one copy (set count = 1)", t->name, t->place.count);
			return -1;
		}
		if (!t->place.cpus_set)
			pinned = false;
		else
			CPU_OR(&all, &all, &t->place.cpus);
	}
	switch (t0->place.policy) {
	case JL_POLICY_FIFO: snprintf(prio, sizeof(prio), "f:%d", t0->place.priority); break;
	case JL_POLICY_RR: snprintf(prio, sizeof(prio), "r:%d", t0->place.priority); break;
	case JL_POLICY_OTHER: snprintf(prio, sizeof(prio), "o:%d", t0->place.nice); break;
	default:
		snprintf(err, errlen, "thread '%s': rtla timerlat has no %s policy to run its threads with", t0->name,
			 jl_policy_name(t0->place.policy));
		return -1;
	}
	if (period_us < 1) {
		snprintf(err, errlen, "thread '%s': period below 1 us", t0->name);
		return -1;
	}
	if (pinned)
		jl_cpulist_format(&all, cpus, sizeof(cpus));
	n = (size_t)snprintf(buf, len, "rtla timerlat hist%s%s -p %lld -P %s -d %lld -E %d%s", cpus[0] ? " -c " : "", cpus,
			     period_us, prio, secs, JL_CYCLICTEST_HIST_US, user ? " -u" : "");
	if (n >= len) {
		snprintf(err, errlen, "rtla's command line too long");
		return -1;
	}
	return 0;
}

/* ---- running rtla ---- */

int jl_rtla_run(char *const argv[], int timeout_s, char **out)
{
	int fd[2], status = 0;
	size_t cap = 1 << 20, len = 0;
	char *buf = malloc(cap + 1);
	struct timespec t0, now;
	bool sent_int = false;
	pid_t pid;

	*out = NULL;
	if (!buf || pipe2(fd, O_CLOEXEC)) {
		free(buf);
		return -1;
	}
	pid = fork();
	if (pid < 0) {
		close(fd[0]), close(fd[1]), free(buf);
		return -1;
	}
	if (pid == 0) {
		prctl(PR_SET_PDEATHSIG, SIGINT); /* rtla cleans up its instance on SIGINT */
		dup2(fd[1], 1);
		dup2(fd[1], 2);
		execvp(argv[0], argv);
		_exit(127);
	}
	close(fd[1]);
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct pollfd p = { .fd = fd[0], .events = POLLIN };
		char drain[4096]; /* past the kept megabyte: read and dropped, so rtla never blocks */
		double el;
		ssize_t r;

		clock_gettime(CLOCK_MONOTONIC, &now);
		el = (double)(now.tv_sec - t0.tv_sec) + (double)(now.tv_nsec - t0.tv_nsec) / 1e9;
		if (el > timeout_s + (sent_int ? 5 : 0)) {
			kill(pid, sent_int ? SIGKILL : SIGINT);
			if (sent_int)
				break;
			sent_int = true;
		}
		if (poll(&p, 1, 200) <= 0)
			continue;
		r = read(fd[0], len < cap ? buf + len : drain, len < cap ? cap - len : sizeof(drain));
		if (r <= 0)
			break;
		if (len < cap)
			len += (size_t)r;
	}
	close(fd[0]);
	while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
		;
	buf[len] = '\0';
	*out = buf;
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
}

int jl_rtla_noise_measure(const cpu_set_t *cpus, int seconds, struct jl_rtla_noise *out, int max, int *n, char *cmd,
			  size_t cmdlen, char *err, size_t errlen)
{
	char list[256], secs[32], *text = NULL;
	char *argv[] = { "rtla", "osnoise", "top", "-q", "-c", list, "-d", secs, NULL };
	int rc;

	jl_cpulist_format(cpus, list, sizeof(list));
	snprintf(secs, sizeof(secs), "%ds", seconds);
	snprintf(cmd, cmdlen, "rtla osnoise top -q -c %s -d %s", list, secs);
	rc = jl_rtla_run(argv, seconds + 30, &text);
	if (rc < 0) {
		snprintf(err, errlen, "cannot run rtla: %s", strerror(errno));
		return -1;
	}
	if (jl_rtla_noise_parse(text, out, max, n, err, errlen)) {
		char first[160];

		snprintf(first, sizeof(first), "%s", text);
		first[strcspn(first, "\n")] = '\0';
		snprintf(err, errlen, "rtla osnoise exited %d without a result%s%s", rc, first[0] ? ": " : "", first);
		free(text);
		return -1;
	}
	free(text);
	return 0;
}
