/* cyclictest: the bridge to rt-tests' cyclictest: the command line that puts cyclictest in place of a
 * measured thread, the parser of its JSON output (json-c; it has quirks such as keys with a trailing
 * colon, "cmdline:"), percentiles from its 1 us histogram, the same rule applied to jitterlab's own
 * samples (so both sides are compared like with like: see docs/design-notes.md), and the side-by-side
 * comparison document. Pure except jl_cyclictest_parse_file and jl_cyclictest_bucket_samples (each reads one
 * file); runs nothing itself (cmd_cyclictest does). */
#ifndef JL_CYCLICTEST_H
#define JL_CYCLICTEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "../scenario/scenario.h"
#include "../base/series.h" /* jl_cyclictest_latency_us, JL_CYCLICTEST_HIST_US */


/* One measurement thread's figures by cyclictest's rule, in ns (whole us x 1000): latency = wake -
 * intended expiry truncated to us (jl_cyclictest_latency_us), min/avg/max over every cycle, percentiles
 * nearest-rank (jl_buckets_percentile, stats.h) over the 1 us buckets. */
struct jl_cyclictest_result {
	uint64_t cycles;
	int64_t min_ns, max_ns;
	double avg_ns;
	int64_t p50_ns, p99_ns, p999_ns; /* bucket floor x 1000; -1 when the rank lies beyond the histogram */
	uint64_t overflows;              /* cycles at or beyond JL_CYCLICTEST_HIST_US us (none is dropped) */
	int cpu;
};

/* cyclictest's rule applied to thread THREAD of jitterlab run RUN_DIR (its samples.csv). 0, or -1 with ERR. */
int jl_cyclictest_bucket_samples(const char *run_dir, const char *thread, struct jl_cyclictest_result *r, char *err, size_t errlen);

/* cyclictest's argv for thread T (period, policy, priority, cpu, duration, mlock, dma latency) writing
 * its JSON to JSON_PATH, as one exec line (no shell quoting needed: paths without spaces). MAIN_CPUS
 * (NULL or empty: not set) is where its main thread goes (--mainaffinity) when T is pinned. */
int jl_cyclictest_cmdline(const struct jl_scenario *sc, const struct jl_thread_spec *t, const cpu_set_t *main_cpus,
			  const char *json_path, char *buf, size_t len, char *err, size_t errlen);

/* Parse a cyclictest --json document (thread "0"). Returns 0, or -1 with ERR. */
int jl_cyclictest_parse(json_object *doc, struct jl_cyclictest_result *r, char *err, size_t errlen);
int jl_cyclictest_parse_file(const char *path, struct jl_cyclictest_result *r, char *err, size_t errlen);

/* Print the side-by-side table of a cyclictest.json comparison document. */
void jl_cyclictest_print(FILE *out, json_object *doc);

#endif
