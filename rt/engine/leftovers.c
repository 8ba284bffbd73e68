/* leftovers: the processes and /dev/shm entries a run's neighbours leave behind (see leftovers.h for what
 * counts as the run's and why). Main thread only: never called on a measured thread's path. It never
 * signals a process it has not recorded as the run's by (pid, start time), never by name, and never
 * deletes through a symlink. */
#include "leftovers.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/pidfd.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/sysmacros.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "engine.h"

/* ---- small growable arrays ---- */

void jl_vec_init(struct jl_vec *v, size_t size)
{
	*v = (struct jl_vec){ .size = size };
}

void *jl_vec_push(struct jl_vec *v)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 16;
		void *nv = realloc(v->v, (size_t)cap * v->size);

		if (!nv)
			return NULL;
		v->v = nv;
		v->cap = cap;
	}
	memset((char *)v->v + (size_t)v->n * v->size, 0, v->size);
	return (char *)v->v + (size_t)v->n++ * v->size;
}

void *jl_vec_at(const struct jl_vec *v, int i)
{
	return (char *)v->v + (size_t)i * v->size;
}

void jl_vec_free(struct jl_vec *v)
{
	free(v->v);
	v->v = NULL;
	v->n = v->cap = 0;
}

static int64_t mono_ns(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000000000LL + ts.tv_nsec;
}

/* ---- pure parts ---- */

int jl_leftovers_parse_stat(const char *text, struct jl_proc_rec *rec)
{
	const char *open = strchr(text, '('), *close = strrchr(text, ')');
	size_t n;
	int pid, ppid, pgid, sid;
	char state;
	unsigned long long start;

	if (!open || !close || close < open || sscanf(text, "%d", &pid) != 1)
		return -1;
	n = (size_t)(close - open - 1);
	if (n >= sizeof(rec->comm))
		n = sizeof(rec->comm) - 1;
	/* after the comm: state ppid pgrp session tty_nr tpgid flags minflt cminflt majflt cmajflt utime
	 * stime cutime cstime priority nice num_threads itrealvalue starttime */
	if (sscanf(close + 1, " %c %d %d %d %*d %*d %*u %*u %*u %*u %*u %*u %*u %*d %*d %*d %*d %*d %*d %llu", &state,
		   &ppid, &pgid, &sid, &start) != 5)
		return -1;
	memcpy(rec->comm, open + 1, n);
	rec->comm[n] = '\0';
	rec->pid = pid;
	rec->ppid = ppid;
	rec->pgid = pgid;
	rec->sid = sid;
	rec->state = state;
	rec->start = start;
	return 0;
}

static int find_pid(const struct jl_proc_rec *p, int n, pid_t pid)
{
	for (int i = 0; i < n; i++)
		if (p[i].pid == pid)
			return i;
	return -1;
}

int jl_leftovers_mark_tree(struct jl_proc_rec *p, int n, pid_t self, bool subreaper, const pid_t *roots, int nroots,
			 const struct jl_proc_rec *known, int nknown)
{
	int ours = 0;
	bool changed = true;

	for (int i = 0; i < n; i++) {
		p[i].ours = false;
		p[i].root = -1;
		p[i].reparented = false;
		if (p[i].pid == self)
			continue;
		for (int k = 0; k < nroots; k++)
			if (roots[k] == p[i].pid && p[i].ppid == self) {
				p[i].ours = true;
				p[i].root = k;
			}
		if (!p[i].ours)
			for (int k = 0; k < nknown; k++)
				if (known[k].ours && known[k].pid == p[i].pid && known[k].start == p[i].start) {
					p[i].ours = true;
					p[i].root = known[k].root;
					p[i].reparented = known[k].reparented;
					break;
				}
		if (!p[i].ours && subreaper && p[i].ppid == self) {
			/* not a child jitterlab forked, yet its child: an orphan of the tree reparented to the
			 * subreaper (jitterlab forks nothing else while the flag is up) */
			p[i].ours = true;
			p[i].reparented = true;
		}
	}
	/* then down the parent links, until nothing changes (a parent may come after its child) */
	while (changed) {
		changed = false;
		for (int i = 0; i < n; i++) {
			int q;

			if (p[i].ours || p[i].pid == self)
				continue;
			q = find_pid(p, n, p[i].ppid);
			if (q < 0 || !p[q].ours || p[q].start > p[i].start)
				continue;
			p[i].ours = true;
			p[i].root = p[q].root;
			p[i].reparented = false; /* its parent is the one reparented, if any */
			changed = true;
		}
	}
	for (int i = 0; i < n; i++)
		ours += p[i].ours;
	return ours;
}

bool jl_leftovers_parse_maps_line(const char *line, const char *dir, char *name, size_t len, dev_t *dev, ino_t *ino)
{
	unsigned maj, min;
	unsigned long long inode;
	int off = 0;
	const char *path, *rest;
	size_t dl = strlen(dir), pl;

	if (sscanf(line, "%*s %*s %*s %x:%x %llu %n", &maj, &min, &inode, &off) != 3 || off == 0 || inode == 0)
		return false;
	path = line + off;
	pl = strcspn(path, "\n");
	if (pl > 10 && !strncmp(path + pl - 10, " (deleted)", 10))
		return false;
	if (strncmp(path, dir, dl) || path[dl] != '/')
		return false;
	rest = path + dl + 1;
	pl -= dl + 1;
	if (pl == 0 || memchr(rest, '/', pl) || pl >= len)
		return false;
	memcpy(name, rest, pl);
	name[pl] = '\0';
	*dev = makedev(maj, min);
	*ino = (ino_t)inode;
	return true;
}

/* Device, inode and birth time (-1: the filesystem does not say) of NAME in DIRFD; FLAGS:
 * AT_SYMLINK_NOFOLLOW, or 0 to follow a /proc/PID/fd link to the open file. 0, or -1 with errno. */
static int file_id(int dirfd, const char *name, int flags, dev_t *dev, ino_t *ino, int64_t *btime)
{
	struct statx stx;

	if (statx(dirfd, name, flags, STATX_INO | STATX_BTIME, &stx))
		return -1;
	*dev = makedev(stx.stx_dev_major, stx.stx_dev_minor);
	*ino = (ino_t)stx.stx_ino;
	*btime = stx.stx_mask & STATX_BTIME ? stx.stx_btime.tv_sec * 1000000000LL + stx.stx_btime.tv_nsec : -1;
	return 0;
}

/* Two birth times name the same file unless both are known and differ. */
static bool same_birth(int64_t a, int64_t b)
{
	return a < 0 || b < 0 || a == b;
}

static void fill_entry(struct jl_shm_entry *e, const char *name, const struct stat *st)
{
	snprintf(e->name, sizeof(e->name), "%s", name);
	e->dev = st->st_dev;
	e->ino = st->st_ino;
	e->mode = st->st_mode;
	e->uid = st->st_uid;
	e->gid = st->st_gid;
	e->size = st->st_size;
	e->mtime_ns = st->st_mtim.tv_sec * 1000000000LL + st->st_mtim.tv_nsec;
	e->ctime_ns = st->st_ctim.tv_sec * 1000000000LL + st->st_ctim.tv_nsec;
}

int jl_leftovers_list_dir(const char *dir, struct jl_vec *out)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	DIR *d;
	struct dirent *de;

	if (fd < 0)
		return -1;
	d = fdopendir(fd);
	if (!d) {
		close(fd);
		return -1;
	}
	while ((de = readdir(d))) {
		struct stat st;
		struct jl_shm_entry *e;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW))
			continue; /* gone meanwhile */
		e = jl_vec_push(out);
		if (!e) {
			closedir(d);
			errno = ENOMEM;
			return -1;
		}
		fill_entry(e, de->d_name, &st);
		{
			dev_t dev;
			ino_t ino;

			if (file_id(dirfd(d), de->d_name, AT_SYMLINK_NOFOLLOW, &dev, &ino, &e->btime_ns) ||
			    dev != st.st_dev || ino != st.st_ino)
				e->btime_ns = -1;
		}
	}
	closedir(d);
	return 0;
}

void jl_leftovers_shm_diff(const struct jl_vec *before, const struct jl_vec *now, const struct jl_vec *evidence,
			 struct jl_vec *ours, struct jl_vec *other)
{
	for (int i = 0; i < now->n; i++) {
		const struct jl_shm_entry *e = jl_vec_at(now, i);
		bool old = false, proven = false;
		struct jl_shm_entry *dst;

		for (int k = 0; k < before->n && !old; k++) {
			const struct jl_shm_entry *b = jl_vec_at(before, k);

			old = b->ino == e->ino && b->dev == e->dev && !strcmp(b->name, e->name) &&
			      same_birth(b->btime_ns, e->btime_ns);
		}
		if (old)
			continue;
		for (int k = 0; k < evidence->n && !proven; k++) {
			const struct jl_shm_evidence *ev = jl_vec_at(evidence, k);

			proven = ev->ino == e->ino && ev->dev == e->dev && same_birth(ev->btime_ns, e->btime_ns);
		}
		dst = jl_vec_push(proven ? ours : other);
		if (dst)
			*dst = *e;
	}
}

int jl_leftovers_unlink(const char *dir, const char *name, dev_t dev, ino_t ino)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	struct stat st;
	int rc = -1, e;

	if (fd < 0)
		return -1;
	if (strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		errno = EINVAL;
	} else if (fstatat(fd, name, &st, AT_SYMLINK_NOFOLLOW) == 0) {
		if (!S_ISREG(st.st_mode) || st.st_dev != dev || st.st_ino != ino)
			errno = ESTALE; /* a symlink, a directory, or another file under that name now */
		else
			rc = unlinkat(fd, name, 0); /* removes the name itself: a symlink is never followed */
	}
	e = errno;
	close(fd);
	errno = e;
	return rc;
}

/* ---- scanning /proc ---- */

static int read_small(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	close(fd);
	if (n < 0)
		return -1;
	buf[n] = '\0';
	return (int)n;
}

static int read_proc(pid_t pid, struct jl_proc_rec *rec)
{
	char path[64], buf[1024];

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (read_small(path, buf, sizeof(buf)) < 0)
		return -1;
	return jl_leftovers_parse_stat(buf, rec);
}

static void read_cmdline(struct jl_proc_rec *rec)
{
	char path[64];
	int n;

	snprintf(path, sizeof(path), "/proc/%d/cmdline", (int)rec->pid);
	n = read_small(path, rec->cmdline, sizeof(rec->cmdline));
	if (n <= 0) {
		rec->cmdline[0] = '\0';
		return;
	}
	while (n > 0 && rec->cmdline[n - 1] == '\0')
		n--;
	for (int i = 0; i < n; i++)
		if (rec->cmdline[i] == '\0' || rec->cmdline[i] == '\n')
			rec->cmdline[i] = ' ';
	rec->cmdline[n] = '\0';
}

static int list_procs(struct jl_vec *out)
{
	DIR *d = opendir("/proc");
	struct dirent *de;

	if (!d)
		return -1;
	while ((de = readdir(d))) {
		struct jl_proc_rec rec = { 0 }, *p;
		char *end;
		long pid = strtol(de->d_name, &end, 10);

		if (*end || pid <= 0 || read_proc((pid_t)pid, &rec))
			continue;
		p = jl_vec_push(out);
		if (!p)
			break;
		*p = rec;
	}
	closedir(d);
	return 0;
}

static void add_evidence(struct jl_leftovers *r, const struct jl_proc_rec *p, const char *name, dev_t dev, ino_t ino,
			 int64_t btime, bool mapped)
{
	struct jl_shm_evidence *ev;

	for (int k = 0; k < r->evidence.n; k++) {
		ev = jl_vec_at(&r->evidence, k);
		if (ev->dev == dev && ev->ino == ino && ev->btime_ns == btime) {
			ev->open |= !mapped; /* one proof is enough: only how it was seen is added */
			ev->mapped |= mapped;
			return;
		}
	}
	ev = jl_vec_push(&r->evidence);
	if (!ev)
		return;
	ev->dev = dev;
	ev->ino = ino;
	ev->btime_ns = btime;
	snprintf(ev->name, sizeof(ev->name), "%s", name);
	ev->pid = p->pid;
	snprintf(ev->comm, sizeof(ev->comm), "%s", p->comm);
	ev->open = !mapped;
	ev->mapped = mapped;
}

/* The files in the shm directory that process P has open or mapped. */
static void scan_files(struct jl_leftovers *r, const struct jl_proc_rec *p)
{
	char path[64], line[1024], target[512];
	size_t dl = strlen(r->shm_dir);
	DIR *d;
	FILE *f;
	struct dirent *de;

	snprintf(path, sizeof(path), "/proc/%d/fd", (int)p->pid);
	if ((d = opendir(path))) {
		while ((de = readdir(d))) {
			ssize_t n = readlinkat(dirfd(d), de->d_name, target, sizeof(target) - 1);
			dev_t dev;
			ino_t ino;
			int64_t bt;

			if (n <= 0)
				continue;
			target[n] = '\0';
			if (strncmp(target, r->shm_dir, dl) || target[dl] != '/' || strchr(target + dl + 1, '/') ||
			    (n > 10 && !strcmp(target + n - 10, " (deleted)")))
				continue;
			if (file_id(dirfd(d), de->d_name, 0, &dev, &ino, &bt) == 0) /* the open file itself */
				add_evidence(r, p, target + dl + 1, dev, ino, bt, false);
		}
		closedir(d);
	}
	snprintf(path, sizeof(path), "/proc/%d/maps", (int)p->pid);
	if ((f = fopen(path, "re"))) {
		while (fgets(line, sizeof(line), f)) {
			char name[256];
			dev_t dev;
			ino_t ino;

			if (jl_leftovers_parse_maps_line(line, r->shm_dir, name, sizeof(name), &dev, &ino)) {
				/* the birth time of the file under that name now, if it still is that file */
				dev_t ndev;
				ino_t nino;
				char fpath[512];
				int64_t bt;

				snprintf(fpath, sizeof(fpath), "%s/%s", r->shm_dir, name);
				if (file_id(AT_FDCWD, fpath, AT_SYMLINK_NOFOLLOW, &ndev, &nino, &bt) || ndev != dev || nino != ino)
					bt = -1;
				add_evidence(r, p, name, dev, ino, bt, true);
			}
		}
		fclose(f);
	}
}

static void set_roots(struct jl_leftovers *r, const struct jl_engine *eng)
{
	r->nroots = 0;
	for (int i = 0; i < eng->nthreads && r->nroots < JL_MAX_THREADS; i++) {
		const struct jl_thread *th = &eng->threads[i];

		if (!th->is_exec || th->attached || th->tid <= 0) /* an attached program is not the run's */
			continue;
		r->roots[r->nroots] = th->tid;
		snprintf(r->root_names[r->nroots], sizeof(r->root_names[0]), "%s", th->name);
		r->nroots++;
	}
}

/* One scan: the tree now (in NOW, marked), recorded into r->procs, and its files into r->evidence. */
static void scan(struct jl_leftovers *r, const struct jl_engine *eng, struct jl_vec *now)
{
	int64_t t0 = mono_ns(), took;

	if (eng)
		set_roots(r, eng);
	if (list_procs(now))
		return;
	jl_leftovers_mark_tree(now->v, now->n, r->self, r->subreaper, r->roots, r->nroots, r->procs.v, r->procs.n);
	for (int i = 0; i < now->n; i++) {
		struct jl_proc_rec *p = jl_vec_at(now, i), *known = NULL;

		if (!p->ours)
			continue;
		for (int k = 0; k < r->procs.n && !known; k++) {
			struct jl_proc_rec *q = jl_vec_at(&r->procs, k);

			if (q->pid == p->pid && q->start == p->start)
				known = q;
		}
		if (!known || p->state != 'Z')
			read_cmdline(p); /* a zombie has none: keep what the live process had */
		else
			snprintf(p->cmdline, sizeof(p->cmdline), "%s", known->cmdline);
		if (!known)
			known = jl_vec_push(&r->procs);
		if (known)
			*known = *p;
		if (p->state != 'Z')
			scan_files(r, p);
	}
	took = mono_ns() - t0;
	r->scans++;
	r->scan_total_ns += took;
	if (took > r->scan_max_ns)
		r->scan_max_ns = took;
}

int jl_leftovers_begin(struct jl_leftovers *r, enum jl_cleanup cleanup, const char *shm_dir)
{
	memset(r, 0, sizeof(*r));
	r->cleanup = cleanup;
	snprintf(r->shm_dir, sizeof(r->shm_dir), "%s", shm_dir ? shm_dir : JL_LEFTOVERS_SHM_DIR);
	r->self = getpid();
	jl_vec_init(&r->snapshot, sizeof(struct jl_shm_entry));
	jl_vec_init(&r->procs, sizeof(struct jl_proc_rec));
	jl_vec_init(&r->evidence, sizeof(struct jl_shm_evidence));
	jl_vec_init(&r->alive, sizeof(struct jl_proc_rec));
	jl_vec_init(&r->shm_ours, sizeof(struct jl_shm_entry));
	jl_vec_init(&r->shm_other, sizeof(struct jl_shm_entry));
	r->begun = true;
	if (jl_leftovers_list_dir(r->shm_dir, &r->snapshot) == 0)
		r->snapshot_ok = true;
	else
		snprintf(r->snapshot_error, sizeof(r->snapshot_error), "%s: %s", r->shm_dir, strerror(errno));
	if (prctl(PR_GET_CHILD_SUBREAPER, &r->subreaper_prev) || prctl(PR_SET_CHILD_SUBREAPER, 1))
		return -1;
	r->subreaper = true;
	return 0;
}

void jl_leftovers_scan(struct jl_leftovers *r, const struct jl_engine *eng)
{
	struct jl_vec now;

	if (!r->begun || r->collected)
		return;
	jl_vec_init(&now, sizeof(struct jl_proc_rec));
	scan(r, eng, &now);
	jl_vec_free(&now);
}

/* Reap the tree's zombies that are jitterlab's children now (reparented to the subreaper): only pids
 * recorded as ours, and never a child jitterlab forked itself (child.c reaps those). */
static void reap_ours(struct jl_leftovers *r, const struct jl_vec *now)
{
	for (int i = 0; i < now->n; i++) {
		const struct jl_proc_rec *p = jl_vec_at(now, i);
		bool root = false;

		if (!p->ours || p->ppid != r->self || p->state != 'Z')
			continue;
		for (int k = 0; k < r->nroots; k++)
			root |= r->roots[k] == p->pid;
		if (!root)
			waitpid(p->pid, NULL, WNOHANG);
	}
}

/* SIGKILL the process P through a pidfd, once its start time is checked through that pidfd's pid:
 * the pidfd then refers to this very process, so a reused pid is never signalled. Returns the pidfd
 * (to wait on) or -1 (it is gone, or not ours any more). */
static int kill_ours(const struct jl_proc_rec *p)
{
	struct jl_proc_rec now = { 0 };
	int fd = pidfd_open(p->pid, 0);

	if (fd < 0)
		return -1;
	if (read_proc(p->pid, &now) || now.start != p->start || pidfd_send_signal(fd, SIGKILL, NULL, 0)) {
		close(fd);
		return -1;
	}
	return fd;
}

static void end_processes(struct jl_leftovers *r)
{
	int n = r->alive.n;
	int *fds = calloc(n > 0 ? (size_t)n : 1, sizeof(int));
	int64_t deadline = mono_ns() + 2000000000LL;
	struct jl_vec now;

	if (!fds)
		return;
	for (int i = 0; i < n; i++)
		fds[i] = kill_ours(jl_vec_at(&r->alive, i));
	/* wait until each has exited (a pidfd is readable then), reaping what reparents to us meanwhile */
	jl_vec_init(&now, sizeof(struct jl_proc_rec));
	for (;;) {
		bool all = true;

		for (int i = 0; i < n; i++) {
			struct pollfd pfd = { .fd = fds[i], .events = POLLIN };

			if (fds[i] >= 0 && poll(&pfd, 1, 0) != 1)
				all = false;
		}
		now.n = 0;
		if (list_procs(&now) == 0) {
			jl_leftovers_mark_tree(now.v, now.n, r->self, r->subreaper, r->roots, r->nroots, r->procs.v, r->procs.n);
			reap_ours(r, &now);
		}
		if (all || mono_ns() > deadline)
			break;
		nanosleep(&(struct timespec){ 0, 20 * 1000000L }, NULL);
	}
	/* a last reap, then: is each one gone (or a zombie of a parent that is not ours to reap)? */
	now.n = 0;
	if (list_procs(&now) == 0) {
		jl_leftovers_mark_tree(now.v, now.n, r->self, r->subreaper, r->roots, r->nroots, r->procs.v, r->procs.n);
		reap_ours(r, &now);
	}
	for (int i = 0; i < n; i++) {
		const struct jl_proc_rec *p = jl_vec_at(&r->alive, i);
		struct jl_proc_rec cur = { 0 };

		r->proc_ended[i] = read_proc(p->pid, &cur) || cur.start != p->start || cur.state == 'Z';
		r->nended += r->proc_ended[i];
		if (fds[i] >= 0)
			close(fds[i]);
	}
	jl_vec_free(&now);
	free(fds);
}

void jl_leftovers_collect(struct jl_leftovers *r, const struct jl_engine *eng)
{
	struct jl_vec now, dir;

	if (!r->begun || r->collected)
		return;
	jl_vec_init(&now, sizeof(struct jl_proc_rec));
	jl_vec_init(&dir, sizeof(struct jl_shm_entry));
	scan(r, eng, &now);
	reap_ours(r, &now);
	for (int i = 0; i < now.n; i++) {
		const struct jl_proc_rec *p = jl_vec_at(&now, i);
		struct jl_proc_rec *a;

		if (!p->ours || p->state == 'Z' || p->state == 'X')
			continue;
		a = jl_vec_push(&r->alive);
		if (a)
			*a = *p;
	}
	if (r->snapshot_ok && jl_leftovers_list_dir(r->shm_dir, &dir) == 0)
		jl_leftovers_shm_diff(&r->snapshot, &dir, &r->evidence, &r->shm_ours, &r->shm_other);
	r->proc_ended = calloc((size_t)r->alive.n + 1, sizeof(bool));
	r->shm_removed = calloc((size_t)r->shm_ours.n + 1, sizeof(bool));
	r->shm_remove_error = calloc((size_t)r->shm_ours.n + 1, sizeof(char *));
	if (r->cleanup == JL_CLEANUP_REMOVE && r->proc_ended && r->shm_removed && r->shm_remove_error) {
		/* the processes first: one that is still running could recreate what is removed */
		if (r->alive.n)
			end_processes(r);
		for (int i = 0; i < r->shm_ours.n; i++) {
			const struct jl_shm_entry *e = jl_vec_at(&r->shm_ours, i);

			if (jl_leftovers_unlink(r->shm_dir, e->name, e->dev, e->ino) == 0) {
				r->shm_removed[i] = true;
				r->nremoved++;
			} else {
				r->shm_remove_error[i] = strdup(errno == ESTALE ? "another file under that name now"
										 : strerror(errno));
			}
		}
	}
	if (r->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, r->subreaper_prev);
	r->subreaper = false;
	r->collected = true;
	jl_vec_free(&now);
	jl_vec_free(&dir);
}

void jl_leftovers_free(struct jl_leftovers *r)
{
	if (!r->begun)
		return;
	if (r->subreaper)
		prctl(PR_SET_CHILD_SUBREAPER, r->subreaper_prev);
	r->subreaper = false;
	jl_vec_free(&r->snapshot);
	jl_vec_free(&r->procs);
	jl_vec_free(&r->evidence);
	for (int i = 0; r->shm_remove_error && i < r->shm_ours.n; i++)
		free(r->shm_remove_error[i]);
	jl_vec_free(&r->alive);
	jl_vec_free(&r->shm_ours);
	jl_vec_free(&r->shm_other);
	free(r->shm_remove_error);
	free(r->proc_ended);
	free(r->shm_removed);
	r->begun = false;
}
