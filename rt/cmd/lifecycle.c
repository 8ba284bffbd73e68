/* lifecycle: the steps of a command that runs a scenario, in order, with the unwinding in one place
 * (lifecycle.h). */
#include <stdio.h>
#include <stdlib.h>

#include "../base/stop.h"
#include "commands.h"
#include "lifecycle.h"
#include "sweep_child.h"

/* The runs, then close. A command of child runs holds SIGINT/SIGTERM from the first run until close has
 * written what they gave (each child gets them forwarded); one that came meanwhile stops the runs, and
 * one that comes during close still ends the command with 130. */
static int run_and_close(const struct jl_lifecycle_ops *ops, void *ctx)
{
	sigset_t old;
	bool interrupted;
	int n = ops->nruns(ctx);

	if (ops->children)
		jl_child_signals_block(&old);
	else
		sigprocmask(SIG_SETMASK, NULL, &old);
	for (int i = 0; i < n && !jl_stopping(); i++)
		if (ops->run(ctx, i, &old) == JL_LIFE_STOP)
			break;
	interrupted = ops->children && jl_child_signals_drain();
	ops->close(ctx, interrupted);
	if (ops->children) {
		interrupted |= jl_child_signals_drain();
		sigprocmask(SIG_SETMASK, &old, NULL);
	}
	return ops->verdict(ctx, interrupted);
}

int jl_lifecycle_main(const struct jl_lifecycle_ops *ops, int argc, char **argv)
{
	void *ctx = calloc(1, ops->ctx_size);
	int status;

	if (!ctx) {
		fprintf(stderr, "jitterlab %s: out of memory\n", ops->name);
		return JL_EXIT_RUNTIME;
	}
	status = ops->plan(ctx, argc, argv);
	if (status != JL_LIFE_GO)
		goto out;
	if (ops->open) {
		status = ops->open(ctx);
		if (status != JL_LIFE_GO)
			goto out;
	}
	status = run_and_close(ops, ctx);
out:
	if (ops->free)
		ops->free(ctx);
	free(ctx);
	return status;
}
