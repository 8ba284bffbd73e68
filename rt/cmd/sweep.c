/* sweep: `jitterlab sweep SCENARIO`: conditions x runs, in rounds (each round runs every condition once, in
 * an order shuffled per round from a recorded seed, or as written with order = fixed), each run a fresh `jitterlab run` child (threads, shield, knobs and tracing set up and torn down per
 * run); then statistics across runs (sweep_stats.c), sweep.json, report.md, strip plots and tick timelines;
 * the comparison table on stdout (--json: the sweep.json document instead).
 * Every condition is validated before the first run starts (exit 2 with file:line). Never runs two
 * runs at once; never leaves a child behind (SIGINT is forwarded, then the sweep exits 130). */
#include "../summary/sweep.h"

#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <sys/stat.h>
#include <time.h>

#include <gsl/gsl_randist.h>
#include <gsl/gsl_rng.h>
#include <unistd.h>

#include "commands.h"
#include "lifecycle.h"
#include "../summary/plot.h"
#include "../scenario/scenario.h"
#include "../base/stop.h"
#include "../base/output.h"
#include "../base/documents.h"
#include "sweep_child.h"
#include "compare.h"
#include "report_html.h"
#include "../summary/baseline.h"
#include "../summary/table.h"
#include "../base/units.h"

#define MAX_SETS 64

const struct jl_cli jl_cli_sweep = { "sweep", "SCENARIO",
				     "repeat conditions in rounds and say how much each factor matters and which differences are real",
				     jl_sweep_cli_opts };

static char *trim(char *s)
{
	char *e;

	while (isspace((unsigned char)*s))
		s++;
	e = s + strlen(s);
	while (e > s && isspace((unsigned char)e[-1]))
		*--e = '\0';
	return s;
}

/* Apply one condition's overrides to SC, each as --set does: a condition that switches a thread's policy
 * drops the keys the new policy does not take (the policy key's after_set in the registry), so
 * `condition.other = control.policy=other` just works. */
static int apply_overrides(struct jl_scenario *sc, const char *overrides, char *err, size_t errlen)
{
	char buf[2048], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", overrides);
	for (char *tok = strtok_r(buf, ";", &save); tok; tok = strtok_r(NULL, ";", &save)) {
		char *a = trim(tok);

		if (*a && jl_scenario_set(sc, a, err, errlen))
			return -1;
	}
	return 0;
}

/* A label part from a value: [a-z0-9] kept, anything else becomes '_' ("spin 40ms" -> "spin_40ms"). */
static void label_part(const char *v, char *out, size_t len)
{
	size_t n = 0;

	for (; *v && n + 1 < len; v++)
		out[n++] = isalnum((unsigned char)*v) ? (char)tolower((unsigned char)*v) : *v == '-' ? '-' : '_';
	out[n] = '\0';
}

/* The design's factors: the named conditions (one factor), then each vary line with its values. */
static void build_factors(const struct jl_scenario *sc, char vals[][32][256], const int *nvals, struct jl_sweep_data *d)
{
	const struct jl_sweep_spec *sw = &sc->sweep;

	d->nfactors = 0;
	if (sw->nconditions) {
		struct jl_sweep_factor *f = &d->factors[d->nfactors++];

		snprintf(f->name, sizeof(f->name), "condition");
		f->nlevels = sw->nconditions;
		for (int b = 0; b < sw->nconditions; b++)
			snprintf(f->level[b], sizeof(f->level[b]), "%s", sw->conditions[b].label);
	}
	for (int k = 0; k < sw->nvary; k++) {
		struct jl_sweep_factor *f = &d->factors[d->nfactors++];

		snprintf(f->name, sizeof(f->name), "%s", sw->vary[k].key);
		f->nlevels = nvals[k];
		for (int v = 0; v < nvals[k]; v++)
			snprintf(f->level[v], sizeof(f->level[v]), "%.127s", vals[k][v]);
	}
}

/* Each vary line's values into VALS (NVALS each); -1 with ERR when one has none or too many, or the
 * conditions would be more than MAX. */
static int vary_values(const struct jl_scenario *sc, char vals[][32][256], int *nvals, int total, int max, char *err,
		       size_t errlen)
{
	const struct jl_sweep_spec *sw = &sc->sweep;

	for (int k = 0; k < sw->nvary; k++) {
		char buf[512], *save = NULL;

		nvals[k] = 0;
		snprintf(buf, sizeof(buf), "%s", sw->vary[k].values);
		for (char *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
			if (nvals[k] >= 32) {
				snprintf(err, errlen, "%s:%d: [sweep] vary.%s: more than 32 values", sc->path, sw->vary[k].line, sw->vary[k].key);
				return -1;
			}
			snprintf(vals[k][nvals[k]++], 256, "%s", trim(tok));
		}
		if (!nvals[k]) {
			snprintf(err, errlen, "%s:%d: [sweep] vary.%s: no values (expected v1, v2, ...)", sc->path, sw->vary[k].line, sw->vary[k].key);
			return -1;
		}
		total *= nvals[k];
		if (total > max) {
			snprintf(err, errlen, "%s:%d: [sweep] the vary lines make more than %d conditions", sc->path, sw->vary[k].line, max);
			return -1;
		}
	}
	return 0;
}

/* Named conditions, times the cartesian product of the vary lines (each condition's level of each factor
 * in it, the factors in D). Returns the count, or -1 with ERR. */
static int build_conditions(const struct jl_scenario *sc, struct jl_sweep_data *d, int max, char *err, size_t errlen)
{
	struct jl_sweep_cond *out = d->conds;
	const struct jl_sweep_spec *sw = &sc->sweep;
	char vals[JL_MAX_VARY][32][256];
	int nvals[JL_MAX_VARY], n = 0, nbase = sw->nconditions ? sw->nconditions : 1;

	if (vary_values(sc, vals, nvals, nbase, max, err, errlen) < 0)
		return -1;
	for (int b = 0; b < nbase; b++) {
		int idx[JL_MAX_VARY] = { 0 };

		for (;;) {
			struct jl_sweep_cond *c = &out[n++];
			size_t ll = 0, ol = 0;

			memset(c, 0, sizeof(*c));
			if (sw->nconditions) {
				ll = (size_t)snprintf(c->label, sizeof(c->label), "%s", sw->conditions[b].label);
				ol = (size_t)snprintf(c->overrides, sizeof(c->overrides), "%s", sw->conditions[b].overrides);
				c->line = sw->conditions[b].line;
			}
			for (int k = 0; k < sw->nvary; k++) {
				char part[64];

				label_part(vals[k][idx[k]], part, sizeof(part));
				if (ll < sizeof(c->label))
					ll += (size_t)snprintf(c->label + ll, sizeof(c->label) - ll, "%s%s", ll ? "-" : "", part);
				if (ol < sizeof(c->overrides))
					ol += (size_t)snprintf(c->overrides + ol, sizeof(c->overrides) - ol, "%s%s=%s", ol ? "; " : "",
							       sw->vary[k].key, vals[k][idx[k]]);
				if (!c->line)
					c->line = sw->vary[k].line;
			}
			if (!c->label[0])
				snprintf(c->label, sizeof(c->label), "base");
			{
				int nf = 0;

				if (sw->nconditions)
					c->level[nf++] = b;
				for (int v = 0; v < sw->nvary; v++)
					c->level[nf++] = idx[v];
			}
			/* next combination */
			int k = sw->nvary - 1;

			while (k >= 0 && ++idx[k] == nvals[k])
				idx[k--] = 0;
			if (k < 0)
				break;
		}
	}
	for (int i = 0; i < n; i++)
		for (int j = 0; j < i; j++)
			if (!strcmp(out[i].label, out[j].label)) {
				snprintf(err, errlen, "%s:%d: [sweep] two conditions are both labelled '%s'", sc->path, out[i].line, out[i].label);
				return -1;
			}
	build_factors(sc, vals, nvals, d);
	return n;
}

static int find_cond(const struct jl_sweep_cond *c, int n, const char *label)
{
	for (int i = 0; i < n; i++)
		if (!strcmp(c[i].label, label))
			return i;
	return -1;
}

/* The compare line, or every pair. Returns the count, or -1 with ERR. */
static int build_pairs(const struct jl_scenario *sc, const struct jl_sweep_cond *c, int n, int (**pairs)[2], char *err, size_t errlen)
{
	int np = 0, cap = n * (n - 1) / 2 + 64;

	*pairs = calloc((size_t)cap, sizeof(**pairs));
	if (!*pairs) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	if (!sc->sweep.compare[0]) {
		for (int i = 0; i < n; i++)
			for (int j = i + 1; j < n; j++) {
				(*pairs)[np][0] = i;
				(*pairs)[np++][1] = j;
			}
		return np;
	}
	char buf[1024], *save = NULL;

	snprintf(buf, sizeof(buf), "%s", sc->sweep.compare);
	for (char *tok = strtok_r(buf, ",", &save); tok && np < cap; tok = strtok_r(NULL, ",", &save)) {
		char *p = trim(tok), *colon = strchr(p, ':');
		int a, b;

		if (!colon) {
			snprintf(err, errlen, "%s: [sweep] compare: '%s' is not LABEL_A:LABEL_B", sc->path, p);
			return -1;
		}
		*colon = '\0';
		a = find_cond(c, n, trim(p));
		b = find_cond(c, n, trim(colon + 1));
		if (a < 0 || b < 0) {
			snprintf(err, errlen, "%s: [sweep] compare: no condition '%s'", sc->path, a < 0 ? trim(p) : trim(colon + 1));
			return -1;
		}
		(*pairs)[np][0] = a;
		(*pairs)[np++][1] = b;
	}
	return np;
}

/* What the end of the sweep prints on stdout: the comparison table, or (--json) the sweep.json document. */
enum sweep_print { PRINT_NONE, PRINT_TABLE, PRINT_JSON };

static void save_results(struct jl_sweep_data *d, bool final, enum sweep_print print)
{
	json_object *j;

	d->final = final;
	j = jl_sweep_build_json(d);
	char path[PATH_MAX + 32];

	if (!j)
		return;
	snprintf(path, sizeof(path), "%s/%s", d->dir, jl_document_file(JL_DOC_SWEEP));
	if (jl_output_write_json_path(path, j))
		fprintf(stderr, "jitterlab sweep: cannot write %s: %s\n", path, strerror(errno));
	if (final) {
		struct jl_outfile of;

		snprintf(path, sizeof(path), "%s/report.md", d->dir);
		if (jl_output_open(&of, d->dir, "report.md") == 0) {
			FILE *f = of.fp;
			char err[512] = "";
			int np = jl_plot_sweep(d->dir, j, err, sizeof(err));

			jl_sweep_print(f, j, true);
			if (np > 0) {
				json_object *th = NULL;

				fprintf(f, "\n## plots\n\n");
				if (json_object_object_get_ex(j, "threads", &th))
					for (size_t k = 0; k < json_object_array_length(th); k++) {
						const char *tn = json_object_get_string(json_object_array_get_idx(th, k));
						char tick[PATH_MAX + 96];

						fprintf(f, "![strip plot of %s](strip-%s.svg)\n", tn, tn);
						snprintf(tick, sizeof(tick), "%s/ticks-%s.svg", d->dir, tn);
						if (!access(tick, F_OK))
							fprintf(f, "![tick timeline of %s](ticks-%s.svg)\n", tn, tn);
					}
			} else if (err[0])
				fprintf(stderr, "jitterlab sweep: %s\n", err);
			if (jl_output_commit(&of))
				fprintf(stderr, "jitterlab sweep: cannot write %s: %s\n", path, strerror(errno));
		} else {
			fprintf(stderr, "jitterlab sweep: cannot write %s: %s\n", path, strerror(errno));
		}
		{
			char err[512];

			if (jl_report_html_sweep(d->dir, j, err, sizeof(err)) < 0)
				fprintf(stderr, "jitterlab sweep: %s\n", err);
		}
		if (print == PRINT_JSON)
			jl_json_print(stdout, j);
		else if (print == PRINT_TABLE)
			jl_sweep_print(stdout, j, false);
		fprintf(print == PRINT_JSON ? stderr : stdout, "%ssweep.json, report.md, report.html and plots in %s\n",
			print == PRINT_JSON ? "" : "\n", d->dir);
	}
	json_object_put(j);
}

static void progress(const struct jl_sweep_data *d, int i, int total, const struct jl_sweep_run *r, double per_run_s,
		     double elapsed_s)
{
	double eta = i ? elapsed_s / i * (total - i) : per_run_s * total;

	fprintf(stderr, "sweep: run %d of %d: condition '%s' (run %d of %d), ETA %d:%02d\n", i + 1, total,
		d->conds[r->cond].label, r->rep, d->runs_per_cond, (int)eta / 60, (int)eta % 60);
}

/* The last non-empty line of a run's log, for the message that says why it failed. */
static const char *last_line(const char *path, char *buf, size_t len)
{
	char line[512];
	FILE *f = fopen(path, "re");

	snprintf(buf, len, "(no message)");
	if (!f)
		return buf;
	while (fgets(line, sizeof(line), f)) {
		size_t n = strlen(line);

		while (n && (line[n - 1] == '\n' || line[n - 1] == ' '))
			line[--n] = '\0';
		if (n)
			snprintf(buf, len, "%s", line);
	}
	fclose(f);
	return buf;
}

static double now_s(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

/* Fill the per-condition facts the transient check needs from the condition's model. */
static void cond_facts(struct jl_sweep_cond *c, const struct jl_scenario *sc)
{
	c->duration_ns = sc->run.duration_ns;
	c->warmup_ns = sc->run.warmup_ns;
	for (int i = 0; i < sc->nthreads && c->nneigh < JL_SWEEP_MAX_NEIGH; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (t->beh.period_ns > c->period_max_ns)
			c->period_max_ns = t->beh.period_ns;
		if (t->beh.start_ns > 0) {
			c->neigh_start_ns[c->nneigh] = t->beh.start_ns;
			snprintf(c->neigh_name[c->nneigh++], sizeof(c->neigh_name[0]), "%s", t->name);
		}
	}
}

struct sweep {
	struct jl_repeat_opts o;
	struct jl_scenario *base, *sc; /* the scenario; a condition's (scratch) */
	struct jl_sweep_data d;
	char stamp[64];
	int status, total, usable;
	int compare_status;            /* --baseline: jl_compare_run's exit status */
	double t_start, per_run_s;
};

/* Every condition applied to the scenario and validated before anything starts (file:line, exit 2). */
static int validate_conditions(struct sweep *s, char *err, size_t errlen)
{
	for (int c = 0; c < s->d.nconds; c++) {
		char e2[JL_ERR_MAX];

		memcpy(s->sc, s->base, sizeof(*s->sc));
		if (apply_overrides(s->sc, s->d.conds[c].overrides, e2, sizeof(e2)) ||
		    jl_scenario_validate(s->sc, e2, sizeof(e2))) {
			size_t pl = strlen(s->base->path);
			const char *why = !strncmp(e2, s->base->path, pl) && e2[pl] == ':' ? e2 + pl + 1 : e2;

			while (*why == ' ')
				why++;
			snprintf(err, errlen, "%s:%d: [sweep] condition '%s' (%s): %s", s->base->path, s->d.conds[c].line,
				 s->d.conds[c].label, s->d.conds[c].overrides, why);
			return -1;
		}
		cond_facts(&s->d.conds[c], s->sc);
	}
	return 0;
}

/* --baseline: readable, of this scenario, with a condition for each of the sweep's and every gate's metric,
 * before the first run (exit 2, nothing started). */
static int check_baseline(struct sweep *s, char *err, size_t errlen)
{
	char path[PATH_MAX], e2[PATH_MAX + 512];
	const char *labels[JL_MAX_CONDITIONS];
	struct stat st;
	json_object *b;
	int rc;

	snprintf(path, sizeof(path), "%s", s->o.baseline);
	if (stat(path, &st) && !strchr(path, '/'))
		snprintf(path, sizeof(path), "baselines/%s", s->o.baseline);
	if (!(b = jl_runset_read(path, e2, sizeof(e2)))) {
		snprintf(err, errlen, "--baseline: %s", e2);
		return -1;
	}
	for (int c = 0; c < s->d.nconds; c++)
		labels[c] = s->d.conds[c].label;
	rc = jl_compare_precheck(b, path, s->base->run.name, labels, s->d.nconds, s->base->gates, s->base->ngates, e2,
				 sizeof(e2));
	if (rc)
		snprintf(err, errlen, "--baseline: %s", e2);
	json_object_put(b);
	return rc;
}

static int sweep_plan(void *ctx, int argc, char **argv)
{
	struct sweep *s = ctx;
	char err[JL_ERR_MAX + 256];

	switch (jl_repeat_opts_parse(&jl_cli_sweep, argc, argv, 1000, &s->o)) {
	case 1:
		return JL_EXIT_OK;
	case 0:
		break;
	default:
		return JL_EXIT_USAGE;
	}
	s->base = malloc(sizeof(*s->base));
	s->sc = malloc(sizeof(*s->sc));
	s->d.conds = calloc(JL_MAX_CONDITIONS, sizeof(*s->d.conds));
	if (!s->base || !s->sc || !s->d.conds) {
		fprintf(stderr, "jitterlab sweep: out of memory\n");
		return JL_EXIT_RUNTIME;
	}
	if (jl_scenario_load(s->o.scenario, s->o.sets, s->o.nsets, s->base, err, sizeof(err)))
		goto bad;
	if (s->o.runs)
		s->base->sweep.runs = s->o.runs;
	s->d.runs_per_cond = s->base->sweep.present || s->o.runs ? s->base->sweep.runs : 5;
	s->d.nconds = build_conditions(s->base, &s->d, JL_MAX_CONDITIONS, err, sizeof(err));
	if (s->d.nconds < 0 || validate_conditions(s, err, sizeof(err)))
		goto bad;
	s->d.npairs = build_pairs(s->base, s->d.conds, s->d.nconds, &s->d.pairs, err, sizeof(err));
	if (s->d.npairs < 0)
		goto bad;
	if (s->o.baseline && check_baseline(s, err, sizeof(err)))
		goto bad;
	return JL_LIFE_GO;
bad:
	fprintf(stderr, "jitterlab sweep: %s\n", err);
	return JL_EXIT_USAGE;
}

/* Each round's order: the conditions shuffled anew per round from the seed ([sweep] seed, else a fresh
 * one), or (order = fixed) as written. The seed goes in sweep.json, so that an order can be repeated. */
static int plan_order(struct sweep *s)
{
	const struct jl_sweep_spec *sw = &s->base->sweep;
	gsl_rng *rng = NULL;

	s->d.plan = calloc((size_t)s->total, sizeof(*s->d.plan));
	if (!s->d.plan)
		return -1;
	s->d.shuffled = !sw->fixed_order;
	if (s->d.shuffled) {
		unsigned int fresh = 0;

		if (getrandom(&fresh, sizeof(fresh), 0) != sizeof(fresh))
			fresh = (unsigned int)time(NULL) ^ (unsigned int)getpid();
		s->d.seed = sw->seed_set ? sw->seed : fresh;
		rng = gsl_rng_alloc(gsl_rng_mt19937);
		if (!rng)
			return -1;
		gsl_rng_set(rng, s->d.seed);
	}
	for (int r = 0; r < s->d.runs_per_cond; r++) {
		int *round = s->d.plan + (size_t)r * (size_t)s->d.nconds;

		for (int c = 0; c < s->d.nconds; c++)
			round[c] = c;
		if (rng)
			gsl_ran_shuffle(rng, round, (size_t)s->d.nconds, sizeof(*round));
	}
	gsl_rng_free(rng);
	return 0;
}

/* The sweep's directory: the scenario, and a directory per condition with its scenario. */
static int sweep_open(void *ctx)
{
	struct sweep *s = ctx;
	char err[JL_ERR_MAX + 256], cdir[PATH_MAX + 256], spath[PATH_MAX + 300], order[64];
	time_t now = time(NULL);
	struct tm tm;

	if (jl_output_make_dir_latest(s->o.out, s->base->run.name, s->d.dir, sizeof(s->d.dir), err, sizeof(err))) {
		int status = errno == EPERM ? JL_EXIT_USAGE : JL_EXIT_RUNTIME; /* a refused --out: nothing touched */

		fprintf(stderr, "jitterlab sweep: %s\n", err);
		return status;
	}
	snprintf(spath, sizeof(spath), "%s/scenario.ini", s->d.dir);
	jl_scenario_write_file(spath, s->base);
	for (int c = 0; c < s->d.nconds; c++) {
		memcpy(s->sc, s->base, sizeof(*s->sc));
		apply_overrides(s->sc, s->d.conds[c].overrides, err, sizeof(err));
		snprintf(cdir, sizeof(cdir), "%s/%s", s->d.dir, s->d.conds[c].label);
		snprintf(spath, sizeof(spath), "%s/scenario.ini", cdir);
		if (jl_output_make_subdir(s->d.dir, s->d.conds[c].label, cdir, sizeof(cdir), err, sizeof(err))) {
			fprintf(stderr, "jitterlab sweep: %s\n", err);
			return JL_EXIT_RUNTIME;
		}
		if (jl_scenario_write_file(spath, s->sc)) {
			fprintf(stderr, "jitterlab sweep: cannot write %s: %s\n", spath, strerror(errno));
			return JL_EXIT_RUNTIME;
		}
	}
	localtime_r(&now, &tm);
	strftime(s->stamp, sizeof(s->stamp), "%Y-%m-%dT%H:%M:%S%z", &tm);
	s->d.started = s->stamp;
	s->d.scenario_name = s->base->run.name;
	s->d.scenario_path = s->base->path;
	s->total = s->d.nconds * s->d.runs_per_cond;
	s->d.runs = calloc((size_t)s->total, sizeof(*s->d.runs));
	if (!s->d.runs || plan_order(s) < 0)
		return JL_EXIT_RUNTIME;
	s->per_run_s = (double)(s->base->run.warmup_ns + s->base->run.duration_ns) / 1e9 + 2;
	if (s->d.shuffled)
		snprintf(order, sizeof(order), "each shuffled, seed %lu", s->d.seed);
	else
		snprintf(order, sizeof(order), "each in the written order");
	fprintf(s->o.json ? stderr : stdout, "sweep %s: %d condition(s) x %d run(s), in rounds (%s), about %.0f s each; in %s\n",
		s->base->run.name, s->d.nconds, s->d.runs_per_cond, order, s->per_run_s, s->d.dir);
	fflush(stdout);
	s->t_start = now_s();
	return JL_LIFE_GO;
}

static int sweep_nruns(const void *ctx)
{
	return ((const struct sweep *)ctx)->total;
}

/* What run R of the sweep gave: its summary, or why it has none. JL_LIFE_NEXT or JL_LIFE_STOP. */
static int sweep_collect(struct sweep *s, int i, struct jl_sweep_run *r, int rc, const char *log, char *err,
			 size_t errlen)
{
	if (r->dir[0])
		r->summary = jl_child_read_summary(r->dir, err, errlen);
	if (rc == JL_EXIT_INTERRUPTED) {
		s->d.interrupted = true;
		jl_stop_request(JL_STOP_SIGNAL);
		return JL_LIFE_STOP;
	}
	if (rc != JL_EXIT_OK && rc != JL_EXIT_EXPECT) {
		char why[320];

		fprintf(stderr, "jitterlab sweep: run %d ('%s' run %d) exited %d: %s\n  (its log: %s)\n", i + 1,
			s->d.conds[r->cond].label, r->rep, rc, last_line(log, why, sizeof(why)), log);
	}
	if (!r->summary) {
		if (rc == JL_EXIT_USAGE && i < s->d.nconds) {
			fprintf(stderr, "jitterlab sweep: the run refused the scenario (exit 2): stopping the sweep\n");
			s->status = JL_EXIT_USAGE;
			return JL_LIFE_STOP;
		}
		return JL_LIFE_NEXT;
	}
	r->transients = jl_sweep_run_transients(r, &s->d.conds[r->cond]);
	if (jl_sweep_run_usable(r))
		s->usable++;
	save_results(&s->d, false, PRINT_NONE);
	return JL_LIFE_NEXT;
}

/* Run I: condition I mod n, its repetition I / n + 1, a child `jitterlab run`. */
static int sweep_run(void *ctx, int i, const sigset_t *child_mask)
{
	struct sweep *s = ctx;
	struct jl_sweep_run *r = &s->d.runs[i];
	struct jl_child_run cr = { 0 };
	char err[JL_ERR_MAX + 256], cdir[PATH_MAX + 256], spath[PATH_MAX + 300], name[32], log[PATH_MAX + 300];
	bool intr = false;
	int rc;

	if (i == s->d.nconds && !s->usable) {
		fprintf(stderr, "jitterlab sweep: every run of the first round failed: stopping the sweep\n");
		s->status = JL_EXIT_RUNTIME;
		return JL_LIFE_STOP;
	}
	r->cond = s->d.plan[i];
	r->rep = i / s->d.nconds + 1;
	r->order = i + 1;
	snprintf(cdir, sizeof(cdir), "%s/%s", s->d.dir, s->d.conds[r->cond].label);
	snprintf(spath, sizeof(spath), "%s/scenario.ini", cdir);
	snprintf(name, sizeof(name), "r%d", r->rep);
	snprintf(log, sizeof(log), "%s/r%d.log", cdir, r->rep);
	cr.scenario = spath;
	cr.out_dir = cdir;
	cr.name = name;
	cr.log_path = log;
	cr.timeout_ns = s->d.conds[r->cond].warmup_ns + s->d.conds[r->cond].duration_ns + 60 * JL_NSEC_PER_SEC;
	if (!s->o.quiet)
		progress(&s->d, i, s->total, r, s->per_run_s, now_s() - s->t_start);
	rc = jl_child_run_exec(&cr, child_mask, &intr, r->dir, sizeof(r->dir), err, sizeof(err));
	s->d.nruns = i + 1;
	r->exit_status = rc;
	if (rc < 0) {
		fprintf(stderr, "jitterlab sweep: %s\n", err);
		s->status = JL_EXIT_RUNTIME;
		return JL_LIFE_STOP;
	}
	return sweep_collect(s, i, r, intr ? JL_EXIT_INTERRUPTED : rc, log, err, sizeof(err));
}

static void sweep_close(void *ctx, bool interrupted)
{
	struct sweep *s = ctx;

	if (interrupted)
		s->d.interrupted = true;
	save_results(&s->d, true, s->o.json ? PRINT_JSON : PRINT_TABLE);
	if (jl_budget_write(s->d.dir))
		fprintf(stderr, "jitterlab sweep: cannot write %s/budget.md\n", s->d.dir);
	if (s->o.baseline && !s->d.interrupted) {
		FILE *say = s->o.json ? stderr : stdout; /* --json: stdout holds sweep.json alone */

		fprintf(say, "\nagainst baseline %s:\n", s->o.baseline);
		fflush(say);
		s->compare_status = jl_compare_run(s->o.baseline, s->d.dir, s->d.dir, NULL, 0, false, false, s->o.json);
		if (s->compare_status == JL_EXIT_OK || s->compare_status == JL_EXIT_EXPECT)
			fprintf(say, "compare.json and compare.md in %s (its report.html shows the comparison)\n", s->d.dir);
	}
}

static int sweep_verdict(void *ctx, bool interrupted)
{
	struct sweep *s = ctx;

	if (interrupted || s->d.interrupted) {
		fprintf(stderr, "jitterlab sweep: interrupted after %d of %d runs\n", s->d.nruns, s->total);
		return JL_EXIT_INTERRUPTED;
	}
	if (s->status == JL_EXIT_OK && !s->usable) {
		fprintf(stderr, "jitterlab sweep: no run produced a usable summary\n");
		return JL_EXIT_RUNTIME;
	}
	if (s->status == JL_EXIT_OK && s->compare_status)
		return s->compare_status;
	return s->status;
}

static void sweep_free(void *ctx)
{
	struct sweep *s = ctx;

	for (int i = 0; i < s->d.nruns; i++) {
		json_object_put(s->d.runs[i].summary);
		json_object_put(s->d.runs[i].transients);
	}
	free(s->d.runs);
	free(s->d.plan);
	free(s->d.pairs);
	free(s->d.conds);
	free(s->base);
	free(s->sc);
}

static const struct jl_lifecycle_ops sweep_ops = {
	.name = "sweep", .ctx_size = sizeof(struct sweep), .children = true, .plan = sweep_plan, .open = sweep_open,
	.nruns = sweep_nruns, .run = sweep_run, .close = sweep_close, .verdict = sweep_verdict, .free = sweep_free,
};

int cmd_sweep(int argc, char **argv)
{
	return jl_lifecycle_main(&sweep_ops, argc, argv);
}
