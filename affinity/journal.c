/* journal: write-ahead record of machine knobs (see journal.h) and its replay.
 * Must never: change a knob outside a replay, keep entries only in memory (every entry is fsynced
 * before the caller touches the knob), or end a process that is not the recorded child (pid AND start
 * time must match). */
#include "journal.h"
#include "cpulist.h"
#include "journal_int.h"
#include "irq_threads.h"
#include "procfs.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

const char *jl_journal_default_dir(void)
{
	const char *d = getenv("JITTERLAB_STATE_DIR");

	return d && *d ? d : JL_JOURNAL_DIR;
}

static int fsync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	int rc;

	if (fd < 0)
		return -1;
	rc = fsync(fd);
	close(fd);
	return rc;
}

/* Append one entry as a JSON line and fsync it. Takes ownership of OBJ. */
static int append(struct jl_journal *j, json_object *obj)
{
	const char *text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PLAIN);
	size_t len = strlen(text);
	char *line = malloc(len + 2);
	int rc = -1;

	if (!line) {
		json_object_put(obj);
		return -1;
	}
	memcpy(line, text, len);
	line[len] = '\n';
	if (write(j->fd, line, len + 1) == (ssize_t)(len + 1) && fdatasync(j->fd) == 0)
		rc = 0;
	else if (errno == 0)
		errno = EIO;
	free(line);
	json_object_put(obj);
	return rc;
}

int jl_journal_dir_check(const char *dir)
{
	struct stat st;

	if (lstat(dir, &st))
		return -1;
	if (!S_ISDIR(st.st_mode) || (st.st_uid != 0 && st.st_uid != geteuid()) || (st.st_mode & 022)) {
		errno = EPERM;
		return -1;
	}
	return 0;
}

/* Create PATH exclusively. A file already there names this pid, so it was left by a dead process that
 * had the same pid: an empty one (no entry after the owner) is removed, one with entries is kept for
 * `restore` (EEXIST). */
static int create_exclusive(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
	int lines = 0, c;
	FILE *f;

	if (fd >= 0 || errno != EEXIST)
		return fd;
	fd = open(path, O_RDONLY | O_NOFOLLOW | O_CLOEXEC);
	if (fd < 0 || !(f = fdopen(fd, "re"))) {
		if (fd >= 0)
			close(fd);
		errno = EEXIST;
		return -1;
	}
	while ((c = fgetc(f)) != EOF)
		lines += c == '\n';
	fclose(f);
	if (lines > 1 || unlink(path)) {
		errno = EEXIST;
		return -1;
	}
	return open(path, O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_NOFOLLOW | O_CLOEXEC, 0600);
}

int jl_journal_open(struct jl_journal **out, const char *dir)
{
	struct jl_journal *j = calloc(1, sizeof(*j));
	unsigned long long start = 0;
	json_object *o;
	int e;

	if (!j)
		return -1;
	snprintf(j->dir, sizeof(j->dir), "%s", dir);
	snprintf(j->path, sizeof(j->path), "%s/run-%d.journal", dir, (int)getpid());
	if ((mkdir(dir, 0755) && errno != EEXIST) || jl_journal_dir_check(dir))
		goto error;
	j->fd = create_exclusive(j->path);
	if (j->fd < 0)
		goto error;
	if (jl_proc_start_time(getpid(), &start))
		goto error_file;
	o = json_object_new_object();
	json_object_object_add(o, "op", json_object_new_string("owner"));
	json_object_object_add(o, "pid", json_object_new_int(getpid()));
	json_object_object_add(o, "start", json_object_new_uint64(start));
	json_object_object_add(o, "time", json_object_new_int64((int64_t)time(NULL)));
	if (append(j, o) || fsync_dir(dir))
		goto error_file;
	*out = j;
	return 0;
error_file:
	e = errno;
	close(j->fd);
	unlink(j->path);
	errno = e;
error:
	e = errno;
	free(j);
	errno = e;
	return -1;
}

const char *jl_journal_path(const struct jl_journal *j)
{
	return j ? j->path : "";
}

int jl_journal_record_write(struct jl_journal *j, const char *path, const char *old)
{
	return jl_journal_record_debugfs_write(j, path, old, false);
}

int jl_journal_record_debugfs_write(struct jl_journal *j, const char *path, const char *old, bool debugfs)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("write"));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "old", json_object_new_string(old));
	if (debugfs)
		json_object_object_add(o, "debugfs", json_object_new_boolean(1));
	return append(j, o);
}

int jl_journal_record_irq(struct jl_journal *j, const char *path, const char *old, const char *effective)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("irq"));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "old", json_object_new_string(old));
	json_object_object_add(o, "effective", json_object_new_string(effective ? effective : ""));
	return append(j, o);
}

int jl_journal_record_cgroup(struct jl_journal *j, const char *dir, const char *tasks_name, const char *parent_tasks)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("cgroup"));
	json_object_object_add(o, "path", json_object_new_string(dir));
	json_object_object_add(o, "tasks", json_object_new_string(tasks_name));
	json_object_object_add(o, "parent_tasks", json_object_new_string(parent_tasks));
	return append(j, o);
}

int jl_journal_record_subtree(struct jl_journal *j, const char *path, const char *controller)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("subtree"));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "controller", json_object_new_string(controller));
	return append(j, o);
}

int jl_journal_record_move(struct jl_journal *j, pid_t pid, const char *procs)
{
	unsigned long long start;
	json_object *o;

	if (jl_proc_start_time(pid, &start))
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "op", json_object_new_string("move"));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "start", json_object_new_uint64(start));
	json_object_object_add(o, "path", json_object_new_string(procs));
	return append(j, o);
}

/* One task of a masks or irqthreads entry: which task (tid and start time) and its CPU mask. */
static json_object *task_json(pid_t tid, unsigned long long start, const cpu_set_t *cpus)
{
	json_object *e = json_object_new_object();
	char list[4096];

	json_object_object_add(e, "tid", json_object_new_int(tid));
	json_object_object_add(e, "start", json_object_new_uint64(start));
	json_object_object_add(e, "cpus", json_object_new_string(jl_cpulist_format(cpus, list, sizeof(list))));
	return e;
}

int jl_journal_record_masks(struct jl_journal *j, const struct jl_task_mask *t, int n)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	for (int i = 0; i < n; i++)
		json_object_array_add(arr, task_json(t[i].tid, t[i].start, &t[i].cpus));
	json_object_object_add(o, "op", json_object_new_string("masks"));
	json_object_object_add(o, "tasks", arr);
	return append(j, o);
}

int jl_journal_record_irq_thread_masks(struct jl_journal *j, const struct jl_irq_thread_mask *t, int n)
{
	json_object *o = json_object_new_object(), *arr = json_object_new_array();

	for (int i = 0; i < n; i++) {
		json_object *e = task_json(t[i].tid, t[i].start, &t[i].cpus);

		json_object_object_add(e, "irq", json_object_new_int(t[i].irq));
		json_object_object_add(e, "effective", json_object_new_string(t[i].effective));
		json_object_array_add(arr, e);
	}
	json_object_object_add(o, "op", json_object_new_string("irqthreads"));
	json_object_object_add(o, "threads", arr);
	if (append(j, o))
		return -1;
	j->irq_threads = true;
	return 0;
}

int jl_journal_record_irq_threads(struct jl_journal *j)
{
	struct jl_irq_thread_mask *t;
	int n, rc;

	if (j->irq_threads)
		return 0; /* the first one is the oldest, undone last: after every cgroup and IRQ change */
	n = jl_irq_threads_scan(&t);
	if (n < 0)
		return -1;
	rc = jl_journal_record_irq_thread_masks(j, t, n);
	free(t);
	return rc;
}

int jl_journal_record_child(struct jl_journal *j, pid_t pid)
{
	unsigned long long start;
	json_object *o;

	if (jl_proc_start_time(pid, &start))
		return -1;
	o = json_object_new_object();
	json_object_object_add(o, "op", json_object_new_string("child"));
	json_object_object_add(o, "pid", json_object_new_int(pid));
	json_object_object_add(o, "start", json_object_new_uint64(start));
	return append(j, o);
}

void jl_journal_abandon(struct jl_journal *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j);
}

int jl_journal_lock(const char *dir, int timeout_ms)
{
	char path[512];
	int fd;

	if ((mkdir(dir, 0755) && errno != EEXIST) || jl_journal_dir_check(dir))
		return -1;
	snprintf(path, sizeof(path), "%s/machine.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_NOFOLLOW | O_CLOEXEC, 0600);
	if (fd < 0)
		return -1;
	/* 0600: anyone who can open it can flock it and block every shielded run (an older one was 0644) */
	{
		struct stat st;

		if (fstat(fd, &st) == 0 && (st.st_mode & 077) && fchmod(fd, 0600)) {
			close(fd);
			return -1;
		}
	}
	for (int waited = 0;; waited += 50) {
		if (flock(fd, LOCK_EX | LOCK_NB) == 0)
			return fd;
		if (errno != EWOULDBLOCK || waited >= timeout_ms)
			break;
		nanosleep(&(struct timespec){ .tv_nsec = 50 * 1000 * 1000 }, NULL);
	}
	int e = errno;

	close(fd);
	errno = e;
	return -1;
}
