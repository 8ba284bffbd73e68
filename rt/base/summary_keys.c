/* summary_keys: the tables of summary.json's keys and maps (summary_keys.h). */
#include "summary_keys.h"

const struct jl_summary_key_info jl_summary_keys[JL_NKEYS] = {
#define JL_SUMMARY_KEY_ROW(k, places, meaning) [JL_KEY_##k] = { #k, places, meaning },
	JL_SUMMARY_KEYS(JL_SUMMARY_KEY_ROW)
#undef JL_SUMMARY_KEY_ROW
};

const struct jl_summary_key_info jl_summary_maps[] = {
#define JL_SUMMARY_MAP_ROW(place, names) { "*", place, names },
	JL_SUMMARY_MAPS(JL_SUMMARY_MAP_ROW)
#undef JL_SUMMARY_MAP_ROW
};
const int jl_summary_nmaps = (int)(sizeof(jl_summary_maps) / sizeof(jl_summary_maps[0]));
