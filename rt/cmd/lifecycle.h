/* lifecycle: the one shape of the commands that run a scenario (run, sweep, cyclictest), after rtla's
 * run_tool over a tool_ops table: each step an op of the command, the order and the unwinding in one
 * place (jl_lifecycle_main).
 *   plan   parse the command line, load and check the scenario: nothing touched yet (bad input: exit 2)
 *   open   the output directory and what the runs need in it before the first one
 *   run    one run, NRUNS times in order (a sweep's conditions in rounds, a comparison's sides):
 *          in this process (`run`) or as a child `jitterlab run` each (sweep, cyclictest: CHILDREN, and
 *          then SIGINT/SIGTERM are held and forwarded to the child while it runs)
 *   close  the document, the table
 *   verdict the command's exit status (after close: a ^C while it wrote still counts)
 *   free   always, whichever step stopped it
 * A ^C stops the loop before the next run; close still writes what the runs gave. */
#ifndef JL_LIFECYCLE_H
#define JL_LIFECYCLE_H

#include <signal.h>
#include <stdbool.h>
#include <stddef.h>

enum {
	JL_LIFE_GO = -1,   /* plan, open: go on (anything else is the exit status, e.g. 0 after --help) */
	JL_LIFE_NEXT = 0,  /* run: the next run */
	JL_LIFE_STOP = 1,  /* run: no more runs (the op keeps the status its verdict will give) */
};

struct jl_lifecycle_ops {
	const char *name;                     /* the command, for messages */
	size_t ctx_size;                      /* its state, zeroed before plan */
	bool children;                        /* its runs are child processes */
	int (*plan)(void *ctx, int argc, char **argv);
	int (*open)(void *ctx);               /* NULL: nothing to open */
	int (*nruns)(const void *ctx);
	/* run I of nruns; CHILD_MASK: the signal mask a child gets (the one before they were held) */
	int (*run)(void *ctx, int i, const sigset_t *child_mask);
	/* INTERRUPTED: a signal was pending when the runs ended (a run's own stop: the op's state, or the
	 * stop flag, jl_stopping) */
	void (*close)(void *ctx, bool interrupted);
	/* INTERRUPTED: a signal was pending when the runs ended or came before close did */
	int (*verdict)(void *ctx, bool interrupted);
	void (*free)(void *ctx);              /* NULL: nothing beyond the state itself */
};

/* The command OPS over ARGV; its exit status. */
int jl_lifecycle_main(const struct jl_lifecycle_ops *ops, int argc, char **argv);

#endif
