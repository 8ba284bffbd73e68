/* cgroupfs: removing a cgroup jitterlab made (cgroupfs.h). */
#include "cgroupfs.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

/* Move every task listed in TASKS to PARENT (one write per task, as cgroup files want). */
static void move_all(const char *tasks, const char *parent)
{
	FILE *f = fopen(tasks, "re");
	int out;
	char line[32];

	if (!f)
		return;
	out = open(parent, O_WRONLY | O_CLOEXEC);
	if (out < 0) {
		fclose(f);
		return;
	}
	while (fgets(line, sizeof(line), f)) {
		size_t n = strcspn(line, "\n");

		if (n && write(out, line, n) < 0) {
			/* ESRCH: gone; EINVAL: cannot move, nothing else to do */
		}
	}
	close(out);
	fclose(f);
}

static int count_tasks(const char *tasks)
{
	FILE *f = fopen(tasks, "re");
	char line[32];
	int n = 0;

	while (f && fgets(line, sizeof(line), f))
		n++;
	if (f)
		fclose(f);
	return n;
}

static int remove_tree(const char *dir, const char *tasks_name, const char *parent_tasks, char *why, size_t whylen,
		       int depth)
{
	char tpath[4200];
	struct stat st;
	DIR *d;
	int e;

	if (lstat(dir, &st))
		return errno == ENOENT ? 0 : -1; /* never created (crash right after the entry) or gone */
	if (!S_ISDIR(st.st_mode)) {
		snprintf(why, whylen, "%s is not a directory", dir);
		errno = ENOTDIR;
		return -1;
	}
	/* child cgroups first (someone made one inside ours): depth-first, their tasks to PARENT_TASKS */
	if (depth < 16 && (d = opendir(dir))) {
		struct dirent *ent;

		while ((ent = readdir(d))) {
			char child[4200];

			if (ent->d_name[0] == '.' || (ent->d_type != DT_DIR && ent->d_type != DT_UNKNOWN))
				continue;
			snprintf(child, sizeof(child), "%s/%s", dir, ent->d_name);
			if (lstat(child, &st) || !S_ISDIR(st.st_mode))
				continue;
			if (remove_tree(child, tasks_name, parent_tasks, why, whylen, depth + 1)) {
				e = errno;
				closedir(d);
				errno = e;
				return -1;
			}
		}
		closedir(d);
	}
	/* a v2 partition dissolved now, synchronously: rmdir would leave it to the cgroup's asynchronous
	 * offline, which gives the CPUs back (and, before 6.2, resets the root's tasks' masks) after the
	 * undo of older entries already ran (the masks journalled before the partition was made) */
	snprintf(tpath, sizeof(tpath), "%s/cpuset.cpus.partition", dir);
	{
		char state[128];

		if (jl_knob_read(tpath, state, sizeof(state)) == 0 && strcmp(state, "member"))
			jl_knob_write(tpath, "member");
	}
	snprintf(tpath, sizeof(tpath), "%s/%s", dir, tasks_name);
	for (int attempt = 0; attempt < 50; attempt++) {
		move_all(tpath, parent_tasks);
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			break;
		/* a task forked into it meanwhile, or the kernel is still migrating: try again */
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	e = errno;
	{
		int left = count_tasks(tpath);

		snprintf(why, whylen, "%s: %s (%d task%s left in it)", dir, strerror(e), left, left == 1 ? "" : "s");
	}
	errno = e;
	return -1;
}

int jl_cgroup_remove(const char *dir, const char *tasks_name, const char *parent_tasks, char *why, size_t whylen)
{
	char dummy[8];

	if (!why || !whylen)
		why = dummy, whylen = sizeof(dummy);
	why[0] = '\0';
	return remove_tree(dir, tasks_name, parent_tasks, why, whylen, 0);
}
