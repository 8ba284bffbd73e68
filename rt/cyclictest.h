/* cyclictest: the bridge to rt-tests' cyclictest: the command line that puts cyclictest in place of a
 * measured thread, the parser of its JSON output (json-c; it has quirks such as keys with a trailing
 * colon, "cmdline:"), percentiles from its 1 us histogram, and the side-by-side comparison document.
 * Pure except jl_cyclictest_parse_file (reads one file); runs nothing itself (cmd_cyclictest does). */
#ifndef JL_CYCLICTEST_H
#define JL_CYCLICTEST_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "scenario.h"

#define JL_CT_HIST_US 20000 /* histogram buckets (1 us each); later values are overflows */

/* One cyclictest measurement thread's figures, in ns (cyclictest measures in us). */
struct jl_ct_result {
	uint64_t cycles;
	int64_t min_ns, max_ns;
	double avg_ns;
	int64_t p50_ns, p99_ns, p999_ns; /* from the histogram (bucket upper edge); -1 when in the overflow */
	uint64_t overflows;              /* cycles beyond the histogram */
	int cpu;
};

/* cyclictest's argv for thread T (period, policy, priority, cpu, duration, mlock, dma latency) writing
 * its JSON to JSON_PATH, as one exec line (no shell quoting needed: paths without spaces). */
int jl_cyclictest_cmdline(const struct jl_scenario *sc, const struct jl_thread_spec *t, const char *json_path,
			  char *buf, size_t len, char *err, size_t errlen);

/* Parse a cyclictest --json document (thread "0"). Returns 0, or -1 with ERR. */
int jl_cyclictest_parse(json_object *doc, struct jl_ct_result *r, char *err, size_t errlen);
int jl_cyclictest_parse_file(const char *path, struct jl_ct_result *r, char *err, size_t errlen);

/* Print the side-by-side table of a cyclictest.json comparison document. */
void jl_cyclictest_print(FILE *out, json_object *doc);

#endif
