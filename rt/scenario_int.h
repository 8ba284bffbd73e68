/* scenario_int: what the scenario files (scenario.c, scenario_keys.c, scenario_check.c,
 * scenario_write.c) share and nobody else uses. */
#ifndef JL_SCENARIO_INT_H
#define JL_SCENARIO_INT_H

#include <stddef.h>

#include "scenario.h"

/* The longest line libinih hands us: INI_MAX_LINE (200) less the terminating NUL. */
#define JL_INI_LINE_MAX 199

extern const char *const jl_policy_names[JL_POLICY_N];
extern const char *const jl_tkey_names[JL_TKEY_N];
extern const char *const jl_rkey_names[JL_RKEY_N];

/* One key of a section: parse VALUE into the model; LINE is recorded in key_line (<= 0: --set).
 * 0, or -1 with a reason (naming what was expected) in WHY. */
int jl_scenario_run_key(struct jl_run_spec *r, int line, const char *key, const char *value, char *why, size_t wl);
int jl_scenario_thread_key(struct jl_thread_spec *t, int line, const char *key, const char *value, char *why,
			   size_t wl);
int jl_scenario_expect_parse(const char *label, const char *value, struct jl_expect *e, char *why, size_t wl);
int jl_scenario_sweep_key(struct jl_sweep_spec *sw, int line, const char *key, const char *value, char *why,
			  size_t wl);

#endif
