/* restore: `jitterlab restore [--dry-run] [--json]` puts back what dead runs left: replays stale
 * journals (knobs, cpusets, children, newest change first), destroys stale `jitterlab-*` tracing
 * instances, removes stale jitterlab cpusets. Exit 0 when nothing is left (or nothing was there), 1 when
 * something could not be restored. Must never touch what a live run holds (leftovers.c decides). */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../rt/commands.h"
#include "leftovers.h"

#define RESTORE_LOCK_WAIT_MS 10000 /* as long as a run waits for another */

static int restore_scanned(struct jl_leftovers *lop, bool dry, bool json);

static void usage(FILE *out)
{
	fprintf(out, "usage: jitterlab restore [--dry-run] [--json]\n"
		     "  put back every machine setting a killed run left changed (journals under %s),\n"
		     "  end its children, destroy stale jitterlab-* tracing instances and cpusets.\n"
		     "  --dry-run  only list what is left\n"
		     "  --json     print the leftovers found (and what remains after restoring) as JSON\n",
		     jl_journal_default_dir());
}

int cmd_restore(int argc, char **argv)
{
	static const struct option opts[] = {
		{ "dry-run", no_argument, NULL, 'n' },
		{ "json", no_argument, NULL, 'j' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	bool dry = false, json = false;
	struct jl_leftovers lo;
	int c, rc, lock_fd = -1;

	optind = 1;
	while ((c = getopt_long(argc, argv, "njh", opts, NULL)) != -1) {
		switch (c) {
		case 'n':
			dry = true;
			break;
		case 'j':
			json = true;
			break;
		case 'h':
			usage(stdout);
			return JL_EXIT_OK;
		default:
			usage(stderr);
			return JL_EXIT_USAGE;
		}
	}
	if (optind < argc) {
		fprintf(stderr, "jitterlab restore: unexpected argument '%s'\n", argv[optind]);
		usage(stderr);
		return JL_EXIT_USAGE;
	}
	if (!dry && geteuid() == 0) {
		/* A run holding the lock may be changing knobs right now (or be about to journal a dead run's
		 * leftovers as its old values): wait for it as a run would, never restore under it. */
		lock_fd = jl_journal_lock(jl_journal_default_dir(), RESTORE_LOCK_WAIT_MS);
		if (lock_fd < 0) {
			if (errno == EWOULDBLOCK)
				fprintf(stderr, "jitterlab restore: another jitterlab run holds %s/machine.lock (waited 10s); "
						"run restore after it ends\n", jl_journal_default_dir());
			else
				fprintf(stderr, "jitterlab restore: %s/machine.lock: %m%s\n", jl_journal_default_dir(),
					errno == EPERM ? " (the state directory must be root's and not writable by others)" : "");
			return JL_EXIT_RUNTIME;
		}
	}
	if (jl_leftovers_scan(&lo, NULL)) {
		fprintf(stderr, "jitterlab restore: cannot read %s: %m%s\n", jl_journal_default_dir(),
			errno == EPERM ? " (the state directory must be root's and not writable by others)" : "");
		if (lock_fd >= 0)
			close(lock_fd);
		return JL_EXIT_RUNTIME;
	}
	rc = restore_scanned(&lo, dry, json);
	jl_leftovers_free(&lo);
	if (lock_fd >= 0)
		close(lock_fd);
	return rc;
}

static int restore_scanned(struct jl_leftovers *lop, bool dry, bool json)
{
	struct jl_leftovers lo = *lop;
	int failed;

	if (!dry && jl_leftovers_any(&lo, true) && geteuid() != 0) {
		fprintf(stderr, "jitterlab restore: leftovers found; restoring them needs root (sudo jitterlab restore)\n");
		return JL_EXIT_RUNTIME;
	}
	for (int i = 0; i < lo.nlive && !json; i++)
		printf("restore: run pid %d is still running; its settings are left to it\n", (int)lo.live[i]);
	if (!lo.tracing_dir[0] && !json)
		printf("restore: tracefs is not mounted; tracing instances not checked\n");
	if (!jl_leftovers_any(&lo, true)) {
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "found", jl_leftovers_to_json(&lo));
			json_object_object_add(o, "clean", json_object_new_boolean(true));
			printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
			json_object_put(o);
		} else {
			printf("restore: nothing to restore\n");
		}
		return JL_EXIT_OK;
	}
	if (dry) {
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "found", jl_leftovers_to_json(&lo));
			json_object_object_add(o, "clean", json_object_new_boolean(false));
			printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
			json_object_put(o);
		} else {
			for (int i = 0; i < lo.njournals; i++)
				printf("restore: journal %s: run pid %d died with %d change%s not put back\n",
				       lo.journals[i].path, (int)lo.journals[i].pid, lo.journals[i].entries,
				       lo.journals[i].entries == 1 ? "" : "s");
			for (int i = 0; i < lo.ninstances; i++)
				printf("restore: stale tracing instance %s/instances/%s\n", lo.tracing_dir, lo.instances[i]);
			for (int i = 0; i < lo.ncpusets; i++)
				printf("restore: stale cpuset %s\n", lo.cpusets[i]);
		}
		return JL_EXIT_OK;
	}
	failed = jl_leftovers_clean(&lo, json ? NULL : stdout);
	if (json) {
		json_object *o = json_object_new_object();
		struct jl_leftovers after;

		if (jl_leftovers_scan(&after, NULL))
			memset(&after, 0, sizeof(after));

		json_object_object_add(o, "found", jl_leftovers_to_json(&lo));
		json_object_object_add(o, "left", jl_leftovers_to_json(&after));
		jl_leftovers_free(&after);
		json_object_object_add(o, "clean", json_object_new_boolean(failed == 0));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
	} else if (failed) {
		fprintf(stderr, "jitterlab restore: %d leftover%s could not be restored (see above); the journals are kept, "
				"run restore again after fixing the cause\n", failed, failed == 1 ? "" : "s");
	} else {
		printf("restore: the machine is back as it was\n");
	}
	return failed ? JL_EXIT_RUNTIME : JL_EXIT_OK;
}
