/* restore: `jitterlab restore [--dry-run] [--json]` puts back what dead runs left: replays stale
 * journals (knobs, cpusets, children, newest change first), destroys stale `jitterlab-*` tracing
 * instances, removes stale jitterlab cpusets. Exit 0 when nothing is left (or nothing was there), 1 when
 * something could not be restored. Must never touch what a live run holds (affinity/stale_runs.c decides). */
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "../../affinity/cli.h"
#include "commands.h"
#include "../../affinity/stale_runs.h"

#define RESTORE_LOCK_WAIT_MS 10000 /* as long as a run waits for another */

static int restore_scanned(struct jl_stale_runs *lop, bool dry, bool json);

static void usage(FILE *out);


static const struct jl_cli_opt restore_opts[] = {
	{ "dry-run", 'n', NULL, "only list what is left; change nothing", 1 },
	{ "json", 'j', NULL, "print the leftovers found (and what remains after restoring) as JSON", 2 },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_restore = { "restore", "",
				       "put back every knob a crashed run left changed (journals in /run/jitterlab), end its "
				       "children, remove its cpusets and tracing instances",
				       restore_opts };

static void usage(FILE *out)
{
	jl_cli_help(out, &jl_cli_restore);
}

int cmd_restore(int argc, char **argv)
{
	bool dry = false, json = false;
	struct jl_stale_runs lo;
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;
	int c, rc, lock_fd = -1;

	while ((c = jl_cli_next(&jl_cli_restore, argc, argv, &w, &v)) != JL_CLI_END) {
		switch (c) {
		case 1:
			dry = true;
			break;
		case 2:
			json = true;
			break;
		case JL_CLI_HELP:
			usage(stdout);
			return JL_EXIT_OK;
		default:
			if (c == JL_CLI_OPERAND)
				fprintf(stderr, "jitterlab restore: unexpected argument '%s'\n", v);
			usage(stderr);
			return JL_EXIT_USAGE;
		}
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
	if (jl_stale_runs_scan(&lo, NULL)) {
		fprintf(stderr, "jitterlab restore: cannot read %s: %m%s\n", jl_journal_default_dir(),
			errno == EPERM ? " (the state directory must be root's and not writable by others)" : "");
		if (lock_fd >= 0)
			close(lock_fd);
		return JL_EXIT_RUNTIME;
	}
	rc = restore_scanned(&lo, dry, json);
	jl_stale_runs_free(&lo);
	if (lock_fd >= 0)
		close(lock_fd);
	return rc;
}

static int restore_scanned(struct jl_stale_runs *lop, bool dry, bool json)
{
	struct jl_stale_runs lo = *lop;
	json_object *notes;
	int failed;

	if (!dry && jl_stale_runs_any(&lo, true) && geteuid() != 0) {
		fprintf(stderr, "jitterlab restore: leftovers found; restoring them needs root (sudo jitterlab restore)\n");
		return JL_EXIT_RUNTIME;
	}
	for (int i = 0; i < lo.nlive && !json; i++)
		printf("restore: run pid %d is still running; its settings are left to it\n", (int)lo.live[i]);
	if (!lo.tracing_dir[0] && !json)
		printf("restore: tracefs is not mounted; tracing instances not checked\n");
	if (!jl_stale_runs_any(&lo, true)) {
		if (json) {
			json_object *o = json_object_new_object();

			json_object_object_add(o, "found", jl_stale_runs_to_json(&lo));
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

			json_object_object_add(o, "found", jl_stale_runs_to_json(&lo));
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
	notes = json_object_new_array();
	failed = jl_stale_runs_clean(&lo, json ? NULL : stdout, notes);
	if (json) {
		json_object *o = json_object_new_object();
		struct jl_stale_runs after;

		if (jl_stale_runs_scan(&after, NULL))
			memset(&after, 0, sizeof(after));

		json_object_object_add(o, "found", jl_stale_runs_to_json(&lo));
		json_object_object_add(o, "left", jl_stale_runs_to_json(&after));
		jl_stale_runs_free(&after);
		json_object_object_add(o, "clean", json_object_new_boolean(failed == 0));
		json_object_object_add(o, "pending", json_object_get(notes));
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY));
		json_object_put(o);
	} else if (failed) {
		fprintf(stderr, "jitterlab restore: %d leftover%s could not be restored (see above); the journals are kept, "
				"run restore again after fixing the cause\n", failed, failed == 1 ? "" : "s");
	} else if (json_object_array_length(notes)) {
		printf("restore: every setting is back; the kernel applies what the notes above name at an IRQ's next "
		       "interrupt\n");
	} else {
		printf("restore: the machine is back as it was\n");
	}
	json_object_put(notes);
	return failed ? JL_EXIT_RUNTIME : JL_EXIT_OK;
}
