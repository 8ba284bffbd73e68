/* exit_status: what each exit status means, the one table (commands.h) that --help, jitterlab(8), the
 * README, `jitterlab list` and report.html read. A leaf: it calls nothing. */
#include "commands.h"

const struct jl_exit_status jl_exit_statuses[] = {
	{ JL_EXIT_OK, "ran, and every [expect] and [budget] held (compare and sweep --baseline: every [gate] held)" },
	{ JL_EXIT_RUNTIME, "runtime failure: a policy could not be set, a thread died, tracing failed where it was "
			   "required, a file could not be written" },
	{ JL_EXIT_USAGE, "usage or scenario error: nothing was started or changed" },
	{ JL_EXIT_EXPECT, "ran, but an [expect] or a [budget] failed, a [gate] failed (compare, sweep --baseline), or "
			  "the run ended at its [run] stop_at threshold" },
	{ JL_EXIT_INTERRUPTED, "interrupted by SIGINT or SIGTERM, after everything was put back" },
};
const int jl_exit_nstatuses = (int)(sizeof(jl_exit_statuses) / sizeof(jl_exit_statuses[0]));
