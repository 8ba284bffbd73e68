/* journal: write-ahead record of machine knobs (see journal.h) and its replay.
 * Must never: change a knob outside a replay, keep entries only in memory (every entry is fsynced
 * before the caller touches the knob), or end a process that is not the recorded child (pid AND start
 * time must match). */
#include "journal.h"

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

struct jl_journal {
	int fd;
	char dir[256];
	char path[512];
};

const char *jl_journal_default_dir(void)
{
	const char *d = getenv("JITTERLAB_STATE_DIR");

	return d && *d ? d : JL_JOURNAL_DIR;
}

int jl_knob_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int jl_knob_write(const char *path, const char *value)
{
	/* O_TRUNC as a shell's `>` does: sysfs/procfs ignore it, plain files (tests) need it */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

/* Numeric FIELD (1-based, as in proc(5), >= 3) of /proc/PID/stat. */
static int stat_field(pid_t pid, int field, unsigned long long *out)
{
	char path[64], buf[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (jl_knob_read(path, buf, sizeof(buf))) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	p = strrchr(buf, ')'); /* comm may contain spaces and parentheses */
	if (!p || field < 3) {
		errno = EINVAL;
		return -1;
	}
	p++; /* the space before field 3 */
	for (int f = 3; f < field; f++) {
		p = strchr(p + 1, ' ');
		if (!p) {
			errno = EINVAL;
			return -1;
		}
	}
	*out = strtoull(p + 1, NULL, 10);
	return 0;
}

int jl_proc_start_time(pid_t pid, unsigned long long *start)
{
	return stat_field(pid, 22, start);
}

bool jl_proc_is(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	return pid > 0 && jl_proc_start_time(pid, &now) == 0 && now == start;
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
	if (mkdir(dir, 0755) && errno != EEXIST)
		goto error;
	j->fd = open(j->path, O_WRONLY | O_CREAT | O_TRUNC | O_APPEND | O_CLOEXEC, 0644);
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
	json_object *o = json_object_new_object();

	json_object_object_add(o, "op", json_object_new_string("write"));
	json_object_object_add(o, "path", json_object_new_string(path));
	json_object_object_add(o, "old", json_object_new_string(old));
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

/* ---- replay ---------------------------------------------------------------------------------- */

static const char *str_field(json_object *o, const char *key)
{
	json_object *v;

	return json_object_object_get_ex(o, key, &v) && json_object_is_type(v, json_type_string)
		       ? json_object_get_string(v)
		       : NULL;
}

static void say(char *report, size_t len, const char *fmt, ...) __attribute__((format(printf, 3, 4)));
static void say(char *report, size_t len, const char *fmt, ...)
{
	size_t used = strlen(report);
	va_list ap;

	if (used + 1 >= len)
		return;
	if (used)
		report[used++] = ';', report[used] = '\0';
	if (used + 1 >= len)
		return;
	if (used)
		report[used++] = ' ', report[used] = '\0';
	va_start(ap, fmt);
	vsnprintf(report + used, len - used, fmt, ap);
	va_end(ap);
}

static int undo_write(json_object *o, char *report, size_t len)
{
	const char *path = str_field(o, "path"), *old = str_field(o, "old");
	char now[4096];

	if (!path || !old) {
		say(report, len, "malformed write entry");
		return -1;
	}
	if (jl_knob_read(path, now, sizeof(now)) == 0 && !strcmp(now, old))
		return 0;
	if (jl_knob_write(path, old)) {
		say(report, len, "could not write '%s' back to %s: %s", old, path, strerror(errno));
		return -1;
	}
	return 0;
}

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

int jl_cgroup_remove(const char *dir, const char *tasks_name, const char *parent_tasks)
{
	char tpath[600];
	struct stat st;

	if (stat(dir, &st) && errno == ENOENT)
		return 0; /* never created (crash right after the journal entry) or already gone */
	snprintf(tpath, sizeof(tpath), "%s/%s", dir, tasks_name);
	for (int attempt = 0; attempt < 50; attempt++) {
		move_all(tpath, parent_tasks);
		if (rmdir(dir) == 0 || errno == ENOENT)
			return 0;
		if (errno != EBUSY)
			return -1;
		/* a task forked into it meanwhile, or the kernel is still migrating: try again */
		nanosleep(&(struct timespec){ .tv_nsec = 20 * 1000 * 1000 }, NULL);
	}
	return -1;
}

static int undo_cgroup(json_object *o, char *report, size_t len)
{
	const char *dir = str_field(o, "path"), *tasks = str_field(o, "tasks"), *parent = str_field(o, "parent_tasks");

	if (!dir || !tasks || !parent) {
		say(report, len, "malformed cgroup entry");
		return -1;
	}
	if (jl_cgroup_remove(dir, tasks, parent) == 0)
		return 0;
	say(report, len, "could not remove cgroup %s: %s", dir, strerror(errno));
	return -1;
}

static void pause_ms(int ms)
{
	nanosleep(&(struct timespec){ .tv_sec = ms / 1000, .tv_nsec = (long)(ms % 1000) * 1000000L }, NULL);
}

/* Processes of the child's process group (the child made itself a group leader) that started no earlier
 * than the child: its descendants (e.g. stress-ng workers), left running when the child itself died.
 * A pid stays unused while it names a live process group, so a group found with the leader's pid and
 * no leader is still the child's group. Sends SIG to each; returns how many there were. */
static int signal_group(pid_t pgid, unsigned long long start, int sig)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int n = 0;

	while (d && (e = readdir(d))) {
		unsigned long long pg, st;
		pid_t pid = (pid_t)atoi(e->d_name);

		if (pid <= 0 || pid == getpid())
			continue;
		if (stat_field(pid, 5, &pg) || (pid_t)pg != pgid || stat_field(pid, 22, &st) || st < start)
			continue;
		kill(pid, sig);
		n++;
	}
	if (d)
		closedir(d);
	return n;
}

static bool zombie(pid_t pid)
{
	char path[64], buf[256];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	return jl_knob_read(path, buf, sizeof(buf)) == 0 && strstr(buf, ") Z ");
}

static int undo_child(json_object *o, char *report, size_t len)
{
	json_object *vp, *vs;
	pid_t pid;
	unsigned long long start;

	if (!json_object_object_get_ex(o, "pid", &vp) || !json_object_object_get_ex(o, "start", &vs)) {
		say(report, len, "malformed child entry");
		return -1;
	}
	pid = (pid_t)json_object_get_int(vp);
	start = (unsigned long long)json_object_get_uint64(vs);
	if (pid <= 0)
		return 0;
	if (jl_proc_is(pid, start)) {
		kill(pid, SIGTERM);
		signal_group(pid, start, SIGTERM);
		for (int i = 0; i < 50 && jl_proc_is(pid, start) && !zombie(pid); i++)
			pause_ms(20);
		if (jl_proc_is(pid, start) && !zombie(pid))
			kill(pid, SIGKILL);
	} else {
		unsigned long long other;

		/* the pid belongs to someone else now: never touch it or its group */
		if (jl_proc_start_time(pid, &other) == 0)
			return 0;
		if (!signal_group(pid, start, SIGTERM))
			return 0; /* ended, with its whole group */
	}
	for (int i = 0; i < 50 && signal_group(pid, start, 0); i++)
		pause_ms(20);
	signal_group(pid, start, SIGKILL);
	for (int i = 0; i < 50 && jl_proc_is(pid, start) && !zombie(pid); i++)
		pause_ms(20);
	if (jl_proc_is(pid, start) && !zombie(pid)) {
		say(report, len, "child %d does not end", (int)pid);
		return -1;
	}
	return 0;
}

/* The undo registry: one handler per entry kind. */
static const struct {
	const char *op;
	int (*undo)(json_object *o, char *report, size_t len);
} undo_ops[] = {
	{ "owner", NULL },
	{ "write", undo_write },
	{ "cgroup", undo_cgroup },
	{ "child", undo_child },
};

/* Read PATH into an array of parsed entries (a torn last line, from a crash mid-write, is skipped). */
static json_object *load(const char *path, char *report, size_t len)
{
	FILE *f = fopen(path, "re");
	json_object *arr;
	char *line = NULL;
	size_t cap = 0;
	ssize_t n;

	if (!f) {
		say(report, len, "cannot open %s: %s", path, strerror(errno));
		return NULL;
	}
	arr = json_object_new_array();
	while ((n = getline(&line, &cap, f)) >= 0) {
		json_object *o;

		if (n == 0 || line[0] == '\n')
			continue;
		o = json_tokener_parse(line);
		if (o && json_object_is_type(o, json_type_object))
			json_object_array_add(arr, o);
		else
			json_object_put(o); /* torn write: the knob was not changed yet either */
	}
	free(line);
	fclose(f);
	return arr;
}

int jl_journal_replay(const char *path, char *report, size_t reportlen)
{
	json_object *arr;
	int failed = 0, undone = 0;

	if (reportlen)
		report[0] = '\0';
	arr = load(path, report, reportlen);
	if (!arr)
		return -1;
	for (size_t i = json_object_array_length(arr); i-- > 0;) {
		json_object *o = json_object_array_get_idx(arr, i);
		const char *op = str_field(o, "op");
		size_t k;

		for (k = 0; k < sizeof(undo_ops) / sizeof(undo_ops[0]); k++)
			if (op && !strcmp(op, undo_ops[k].op))
				break;
		if (k == sizeof(undo_ops) / sizeof(undo_ops[0])) {
			say(report, reportlen, "unknown journal entry '%s'", op ? op : "?");
			failed++;
			continue;
		}
		if (!undo_ops[k].undo)
			continue;
		if (undo_ops[k].undo(o, report, reportlen))
			failed++;
		else
			undone++;
	}
	json_object_put(arr);
	if (failed)
		return -1;
	if (unlink(path) && errno != ENOENT) {
		say(report, reportlen, "cannot remove %s: %s", path, strerror(errno));
		return -1;
	}
	return undone;
}

int jl_journal_finish(struct jl_journal *j, char *report, size_t reportlen)
{
	int rc;

	if (reportlen)
		report[0] = '\0';
	if (!j)
		return 0;
	close(j->fd);
	rc = jl_journal_replay(j->path, report, reportlen);
	free(j);
	return rc < 0 ? -1 : 0;
}

void jl_journal_abandon(struct jl_journal *j)
{
	if (!j)
		return;
	close(j->fd);
	free(j);
}

static int read_owner(struct jl_journal_info *info)
{
	char report[256] = "";
	json_object *arr = load(info->path, report, sizeof(report));
	json_object *first, *v;
	int rc = -1;

	if (!arr)
		return -1;
	info->entries = (int)json_object_array_length(arr) - 1;
	first = json_object_array_get_idx(arr, 0);
	if (first && str_field(first, "op") && !strcmp(str_field(first, "op"), "owner") &&
	    json_object_object_get_ex(first, "pid", &v)) {
		info->pid = (pid_t)json_object_get_int(v);
		if (json_object_object_get_ex(first, "start", &v))
			info->start = (unsigned long long)json_object_get_uint64(v);
		info->alive = jl_proc_is(info->pid, info->start);
		rc = 0;
	}
	json_object_put(arr);
	return rc;
}

int jl_journal_list(const char *dir, struct jl_journal_info *out, int max)
{
	DIR *d = opendir(dir);
	struct dirent *e;
	int n = 0;

	if (!d)
		return errno == ENOENT ? 0 : -1;
	while ((e = readdir(d)) && n < max) {
		size_t l = strlen(e->d_name);

		if (strncmp(e->d_name, "run-", 4) || l < 12 || strcmp(e->d_name + l - 8, ".journal"))
			continue;
		memset(&out[n], 0, sizeof(out[n]));
		snprintf(out[n].path, sizeof(out[n].path), "%s/%s", dir, e->d_name);
		if (read_owner(&out[n])) {
			/* No readable owner line: a run is creating it right now, or one crashed while creating
			 * it (then nothing was changed yet). The pid in the name decides: a live process with
			 * that pid, or a file younger than 10 s, is left alone. */
			struct stat st;

			out[n].pid = (pid_t)atoi(e->d_name + 4);
			out[n].alive = kill(out[n].pid, 0) == 0 || errno == EPERM ||
				       (stat(out[n].path, &st) == 0 && time(NULL) - st.st_mtime < 10);
			out[n].entries = out[n].entries < 0 ? 0 : out[n].entries;
		}
		n++;
	}
	closedir(d);
	return n;
}

int jl_journal_lock(const char *dir, int timeout_ms)
{
	char path[512];
	int fd;

	if (mkdir(dir, 0755) && errno != EEXIST)
		return -1;
	snprintf(path, sizeof(path), "%s/machine.lock", dir);
	fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
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
