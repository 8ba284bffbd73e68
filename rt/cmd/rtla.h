/* rtla: the bridge to the kernel's own latency tools (Linux tools/tracing/rtla): whether rtla timerlat and
 * osnoise can run here and why not, their command lines, and parsers of what they print (rtla has no
 * machine-readable output: rteval and Linaro's test definitions scrape the same text). Pure except
 * jl_rtla_probe (reads tracefs, mounting it if asked, and runs `rtla --version`) and jl_rtla_read_file.
 *
 * Formats, as rtla 6.1 (Debian bookworm) prints them, recorded in the PREEMPT_RT guest
 * (tests/unit/fixtures/rtla/): `timerlat hist` a commented header, an "Index IRQ-NNN Thr-NNN ..." line (6.6+
 * adds Usr-NNN columns with -u), one row per non-empty bucket, then over/count/min/avg/max rows (6.6+ adds an
 * "ALL:" block, ignored); `osnoise top -q` one row per CPU after an ANSI-coloured header; the timerlat
 * auto-analysis (6.3+) as rtla's timerlat_aa.c prints it. */
#ifndef JL_RTLA_H
#define JL_RTLA_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cyclictest.h"

/* What this machine can run. */
struct jl_rtla_probe {
	bool rtla;              /* rtla is installed */
	int major, minor;       /* its version (0.0: unknown) */
	bool timerlat, osnoise; /* the kernel has the tracer (available_tracers) */
	bool user_threads;      /* rtla 6.6+: timerlat -u (user-space threads through timerlat_fd) */
	bool auto_analysis;     /* rtla 6.3+: -a prints the auto-analysis */
	char why_timerlat[256]; /* "" when rtla timerlat can run, else why not */
	char why_osnoise[256];
};
/* MAY_MOUNT: look where libtracefs mounts tracefs when it is not mounted (a command about to trace);
 * else only where it is mounted (doctor changes nothing). */
void jl_rtla_probe(struct jl_rtla_probe *p, bool may_mount);

/* Whether rtla VERSION (as `rtla --version` prints it: "rtla version 6.1", or "rtla version 6.8.0-...")
 * parses: *MAJOR, *MINOR. */
bool jl_rtla_parse_version(const char *text, int *major, int *minor);

/* One column of a histogram: KIND ("IRQ", "Thr", "Usr", or osnoise's "CPU") of CPU, its buckets
 * cnt[0..nbuckets) (whole units as printed: us, or ns with -n), and rtla's summary rows. */
struct jl_rtla_col {
	char kind[8];
	int cpu;
	uint64_t *cnt;
	uint64_t over, count;
	int64_t min, max;   /* -1: not printed */
	double avg;         /* rtla prints it truncated to a whole unit */
};
struct jl_rtla_hist {
	int ncols, nbuckets, bucket_size; /* bucket_size: 1 unless the document says otherwise (-b) */
	bool ns;                          /* "Time unit is nanoseconds" (-n) */
	struct jl_rtla_col *cols;
};
/* Parse a `timerlat hist` / `osnoise hist` document (NBUCKETS: the -E it ran with; rows beyond are counted
 * as over). 0, or -1 with ERR naming the line. */
int jl_rtla_hist_parse(const char *text, int nbuckets, struct jl_rtla_hist *h, char *err, size_t errlen);
void jl_rtla_hist_free(struct jl_rtla_hist *h);

/* The figures of the KIND columns of the CPUs in CPUS (NULL: every column of KIND) summed, by cyclictest's
 * rule (the buckets are whole us: jl_buckets_percentile over the summed buckets; min and max
 * rtla's, over the CPUs; avg over the buckets when nothing overflowed, else rtla's count-weighted avg).
 * r->cpu is the CPU when one column was summed, else -1. 0, or -1 with ERR (no such column). */
int jl_rtla_hist_result(const struct jl_rtla_hist *h, const char *kind, const cpu_set_t *cpus,
			struct jl_cyclictest_result *r, char *err, size_t errlen);

/* One CPU of `osnoise top`: runtime and noise in us, the CPU left to tasks (%), the largest noise in one
 * period and the largest single noise (us), and how many interferences of each kind. */
struct jl_rtla_noise {
	int cpu;
	uint64_t periods, runtime_us, noise_us, max_noise_us, max_single_us;
	double avail_pct;
	uint64_t hw, nmi, irq, softirq, thread;
};
/* Parse `osnoise top [-q]` output (ANSI colours and the repeated screens of a non-quiet run allowed: the
 * last row of each CPU wins) into OUT[0..MAX): *N rows. 0, or -1 with ERR when no row parses. */
int jl_rtla_noise_parse(const char *text, struct jl_rtla_noise *out, int max, int *n, char *err, size_t errlen);
json_object *jl_rtla_noise_json(const struct jl_rtla_noise *r);

/* The timerlat auto-analysis (rtla 6.3+, `-a` or `--aa-only`) in TEXT as JSON: an array with one object
 * per "## CPU N hit stop tracing" block (cpu, stopped_by "irq"|"thread", the parts in us with their share,
 * the blocking thread, the IRQ/softirq/thread interference lists, the stack), plus max_irq_from_idle
 * {us, cpu} when printed as a last object with "cpu": null. NULL when TEXT has no analysis. */
json_object *jl_rtla_auto_analysis_parse(const char *text);

/* TEXT of PATH (malloc'd, at most 16 MiB), or NULL with errno. */
char *jl_rtla_read_file(const char *path);

#endif

/* rtla timerlat hist's command line in place of the loops SC->threads[MEASURED[0..NM)] (the same period,
 * policy and priority on every CPU they are pinned to; rtla has one of each per run), started with the
 * warm-up (-d warm-up + duration + 2 s: a bound; the harness ends rtla with SIGINT when the measured phase
 * ends, on which it prints its histogram), 1 us buckets up to JL_CYCLICTEST_HIST_US (-E), user-space threads (-u) when USER. 0, or -1
 * with ERR saying why the loops cannot be measured so. */
int jl_rtla_timerlat_cmdline(const struct jl_scenario *sc, const int *measured, int nm, bool user, char *buf, size_t len,
			     char *err, size_t errlen);

/* Run ARGV (no shell) with its stdout and stderr into *OUT (malloc'd text, at most 1 MiB kept), ended with
 * SIGINT after TIMEOUT_S seconds (then SIGKILL 5 s later) and with this process (PR_SET_PDEATHSIG). Its
 * exit status (128 + signal when killed), or -1 with errno (fork, pipe). */
int jl_rtla_run(char *const argv[], int timeout_s, char **out);

/* `rtla osnoise top -q -c CPUS -d SECONDS` run now, into OUT[0..MAX) (*N rows). 0, or -1 with ERR. The
 * caller holds the machine lock: the tracer's workload never runs beside a measured run. */
int jl_rtla_noise_measure(const cpu_set_t *cpus, int seconds, struct jl_rtla_noise *out, int max, int *n, char *cmd,
			  size_t cmdlen, char *err, size_t errlen);
