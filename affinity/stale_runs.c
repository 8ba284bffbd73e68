/* stale_runs: find and clean what dead runs left (see stale_runs.h).
 * Must never: touch a live run's journal, instance or cpuset, kill a process whose start time differs
 * from the recorded one, or mount anything (an unmounted tracefs is reported, not mounted). */
#include "stale_runs.h"

#include <dirent.h>
#include <errno.h>
#include <mntent.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <tracefs.h>

#include "shield.h"
#include "runnames.h"

static void find_tracefs(char *dir, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *m;

	dir[0] = '\0';
	if (!f)
		return;
	while ((m = getmntent(f))) {
		if (!strcmp(m->mnt_type, "tracefs")) {
			snprintf(dir, len, "%s", m->mnt_dir);
			break;
		}
	}
	endmntent(f);
}

bool jl_stale_pid_alive(pid_t pid)
{
	return pid > 0 && (kill(pid, 0) == 0 || errno == EPERM);
}

static void add_cpuset(const char *dir, void *ctx)
{
	struct jl_stale_runs *lo = ctx;

	if (lo->ncpusets < JL_LEFTOVER_MAX)
		snprintf(lo->cpusets[lo->ncpusets++], sizeof(lo->cpusets[0]), "%s", dir);
}

int jl_stale_runs_scan(struct jl_stale_runs *lo, const char *state_dir)
{
	struct jl_journal_info *all;
	char instdir[300];
	DIR *d;
	int n;

	memset(lo, 0, sizeof(*lo));
	n = jl_journal_list_all(state_dir ? state_dir : jl_journal_default_dir(), &all);
	if (n < 0)
		return -1;
	lo->journals = calloc((size_t)n + 1, sizeof(*lo->journals));
	lo->live = calloc((size_t)n + 1, sizeof(*lo->live));
	if (!lo->journals || !lo->live) {
		free(all);
		jl_stale_runs_free(lo);
		errno = ENOMEM;
		return -1;
	}
	for (int i = 0; i < n; i++) { /* newest first, as listed */
		if (all[i].alive)
			lo->live[lo->nlive++] = all[i].pid;
		else
			lo->journals[lo->njournals++] = all[i];
	}
	free(all);

	find_tracefs(lo->tracing_dir, sizeof(lo->tracing_dir));
	snprintf(instdir, sizeof(instdir), "%s/instances", lo->tracing_dir);
	if (lo->tracing_dir[0] && (d = opendir(instdir))) {
		struct dirent *e;

		while ((e = readdir(d)) && lo->ninstances < JL_LEFTOVER_MAX) {
			pid_t pid = jl_stale_instance_pid(e->d_name);

			if (!pid || jl_stale_pid_alive(pid))
				continue;
			snprintf(lo->instances[lo->ninstances++], sizeof(lo->instances[0]), "%s", e->d_name);
		}
		closedir(d);
	}

	if (jl_shield_detect(lo->cpuset_root, sizeof(lo->cpuset_root)) != JL_SHIELD_NONE) { /* v1 or v2 */
		pid_t live[JL_LEFTOVER_MAX * 2];
		int nl = 0;

		/* a cpuset belongs to a live run when its pid has a live journal or is a live process */
		for (int i = 0; i < lo->nlive && nl < JL_LEFTOVER_MAX; i++)
			live[nl++] = lo->live[i];
		d = opendir(lo->cpuset_root);
		if (d) {
			struct dirent *e;

			while ((e = readdir(d)) && nl < JL_LEFTOVER_MAX * 2) {
				pid_t pid = jl_stale_cpuset_pid(e->d_name);

				if (pid && jl_stale_pid_alive(pid))
					live[nl++] = pid;
			}
			closedir(d);
		}
		jl_shield_list_stale(lo->cpuset_root, live, nl, add_cpuset, lo);
	} else {
		lo->cpuset_root[0] = '\0';
	}
	return 0;
}

void jl_stale_runs_free(struct jl_stale_runs *lo)
{
	free(lo->journals);
	free(lo->live);
	lo->journals = NULL;
	lo->live = NULL;
	lo->njournals = lo->nlive = 0;
}

bool jl_stale_runs_any(const struct jl_stale_runs *lo, bool strict)
{
	for (int i = 0; i < lo->njournals; i++)
		if (lo->journals[i].entries > 0 || strict)
			return true;
	return lo->ninstances || lo->ncpusets;
}

int jl_stale_runs_clean(struct jl_stale_runs *lo, FILE *out, json_object *notes)
{
	int failed = 0;

	for (int i = 0; i < lo->njournals; i++) {
		char report[1024];
		int rc = jl_journal_replay(lo->journals[i].path, report, sizeof(report), notes);

		if (rc < 0) {
			failed++;
			if (out)
				fprintf(out, "restore: journal %s (pid %d): NOT fully restored: %s\n", lo->journals[i].path,
					(int)lo->journals[i].pid, report);
		} else if (out) {
			fprintf(out, "restore: journal %s (pid %d): %d setting%s put back%s%s\n", lo->journals[i].path,
				(int)lo->journals[i].pid, rc, rc == 1 ? "" : "s", report[0] ? "; note: " : "", report);
		}
	}
	for (int i = 0; i < lo->ninstances; i++) {
		struct tracefs_instance *inst = tracefs_instance_alloc(lo->tracing_dir, lo->instances[i]);

		if (inst && (tracefs_instance_destroy(inst) == 0 || errno == ENOENT)) { /* ENOENT: gone meanwhile */
			if (out)
				fprintf(out, "restore: tracing instance %s destroyed\n", lo->instances[i]);
		} else {
			failed++;
			if (out)
				fprintf(out, "restore: tracing instance %s: cannot destroy it: %s\n", lo->instances[i],
					strerror(errno));
		}
		tracefs_instance_free(inst);
	}
	for (int i = 0; i < lo->ncpusets; i++) {
		char why[1024];

		if (jl_shield_remove_dir(lo->cpuset_root, lo->cpusets[i], why, sizeof(why)) == 0) {
			if (out)
				fprintf(out, "restore: cpuset %s removed (its tasks moved back to the root)\n", lo->cpusets[i]);
		} else {
			failed++;
			if (out)
				fprintf(out, "restore: cpuset %s: cannot remove it: %s\n", lo->cpusets[i], why);
		}
	}
	return failed;
}

json_object *jl_stale_runs_to_json(const struct jl_stale_runs *lo)
{
	json_object *o = json_object_new_object(), *a;

	a = json_object_new_array();
	for (int i = 0; i < lo->njournals; i++) {
		json_object *j = json_object_new_object();

		json_object_object_add(j, "path", json_object_new_string(lo->journals[i].path));
		json_object_object_add(j, "pid", json_object_new_int(lo->journals[i].pid));
		json_object_object_add(j, "entries", json_object_new_int(lo->journals[i].entries));
		json_object_array_add(a, j);
	}
	json_object_object_add(o, "journals", a);
	a = json_object_new_array();
	for (int i = 0; i < lo->ninstances; i++)
		json_object_array_add(a, json_object_new_string(lo->instances[i]));
	json_object_object_add(o, "instances", a);
	a = json_object_new_array();
	for (int i = 0; i < lo->ncpusets; i++)
		json_object_array_add(a, json_object_new_string(lo->cpusets[i]));
	json_object_object_add(o, "cpusets", a);
	a = json_object_new_array();
	for (int i = 0; i < lo->nlive; i++)
		json_object_array_add(a, json_object_new_int(lo->live[i]));
	json_object_object_add(o, "live_runs", a);
	return o;
}
