/* scenario_int: what the scenario files (scenario.c, scenario_keys.c, scenario_thread_keys.c,
 * scenario_sections.c, scenario_check.c, scenario_write.c, scenario_doc.c) share and nobody else uses. */
#ifndef JL_SCENARIO_INT_H
#define JL_SCENARIO_INT_H

#include <stdbool.h>
#include <stddef.h>

#include "scenario.h"

/* A name of the scenario format (threads, executors, callbacks, topics, [run] name): [a-z][a-z0-9_-]*,
 * never empty. The one rule: every section and key that takes a name calls it. */
bool jl_scenario_name_ok(const char *s);
/* A NAME value of a key into OUT (SIZE): 0, or -1 with WHY ("'x' is not WHAT (expected ...)"). */
int jl_scenario_name_value(const char *value, char *out, size_t size, const char *what, char *why, size_t wl);

extern const char *const jl_policy_names[JL_POLICY_N];

/* VALUE ("THREAD.METRIC OP VALUE") of expectation LABEL into E. 0, or -1 with a reason in WHY. */
int jl_scenario_expect_parse(const char *label, const char *value, struct jl_expect *e, char *why, size_t wl);

/* VALUE ("SERIES.METRIC <= baseline + 10%", "SERIES.METRIC no worse") of gate LABEL into G. 0, or -1 with
 * WHY. */
int jl_scenario_gate_parse(const char *label, const char *value, struct jl_gate *g, char *why, size_t wl);

/* A cpu list key (cpus, isolate): parse VALUE into SET and TEXT (JL_CPUS_TEXT_MAX: the list as written
 * when it names CPUs, else ""); format it back; the comment line the writer puts before a list that
 * names CPUs (NULL for numbers). */
int jl_scenario_cpus_parse(const char *value, cpu_set_t *set, char *text, char *why, size_t wl);
const char *jl_scenario_cpus_format(const cpu_set_t *set, const char *text, char *buf, size_t len);
const char *jl_scenario_cpus_note(const char *key, const cpu_set_t *set, const char *text, char *buf, size_t len);

/* scenario_check.c: the [thread] keys an attach section takes (what it measures: attach, measure, threads,
 * cpus), by slot; validate_attach refuses the others, the writer leaves them out. */
bool jl_attach_key_allowed(int slot);

#endif
