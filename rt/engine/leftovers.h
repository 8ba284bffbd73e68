/* leftovers: what a run's own processes leave behind when the run ends: processes of its process tree
 * still alive after the neighbours were ended (a child that left its process group: setsid, a
 * daemonizing launcher), and /dev/shm entries they created and left there (Fast DDS segments, POSIX
 * semaphores and shared memory). Reported in summary.json's "leftovers"; removed with
 * `[run] cleanup = remove`.
 *
 * Not to be confused with affinity/stale_runs.c: that one is about what a dead *jitterlab run* left
 * (cpusets, tracing instances, journal); this one is about what a live run's *neighbours* left.
 *
 * How "ours" is established, never guessed, never by name:
 * - processes: jitterlab is a child subreaper for the run (PR_SET_CHILD_SUBREAPER, the old value put
 *   back at the end), so an orphan of the tree reparents to jitterlab instead of init; each scan of
 *   /proc records every process whose parent chain leads to a neighbour jitterlab started (or to
 *   jitterlab itself, for a reparented orphan), by (pid, start time): that pair is the identity, so a
 *   reused pid is never taken for ours. A process is killed only through a pidfd opened while its
 *   start time still matched the record.
 * - /dev/shm: a snapshot (name, inode, device, owner, times) before the first child starts; an entry is
 *   the run's if it is new (not in the snapshot by name and inode) AND a process of the run's tree had it
 *   open (/proc/PID/fd) or mapped (/proc/PID/maps) at one of the scans (same device, inode and birth time). New
 *   entries without that evidence are reported apart and always kept. Removal is unlinkat() on the
 *   directory's fd, only of a regular file with the recorded device and inode, never through a symlink.
 *
 * Scans run in the main thread only (the watchdog, never a measured thread): every ~500 ms while it
 * waits when it is pinned to housekeeping CPUs, once before the neighbours are ended, once after. */
#ifndef JL_LEFTOVERS_H
#define JL_LEFTOVERS_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <sys/types.h>

#include "../scenario/scenario.h"

#define JL_LEFTOVERS_SHM_DIR "/dev/shm"

/* One process seen in a scan. (pid, start) is its identity. */
struct jl_proc_rec {
	pid_t pid, ppid, pgid, sid;
	unsigned long long start;   /* starttime (clock ticks since boot), /proc/PID/stat field 22 */
	char state;                 /* R, S, D, Z, ... at the last scan that saw it */
	char comm[32];
	char cmdline[160];          /* NULs as spaces, truncated */
	/* set by jl_leftovers_mark_tree */
	bool ours;
	int root;                   /* index of the neighbour it descends from, -1 = unknown (reparented) */
	bool reparented;            /* seen with jitterlab (the subreaper) as its parent, not its own child */
};

/* One /dev/shm entry (a snapshot's or the directory's now). */
struct jl_shm_entry {
	char name[256];
	dev_t dev;
	ino_t ino;
	mode_t mode;
	uid_t uid;
	gid_t gid;
	off_t size;
	int64_t mtime_ns, ctime_ns;
	int64_t btime_ns;           /* birth time (statx), -1 unknown: tells a new file from an old one whose
				     * inode number was reused */
};

/* A process of the run's tree had this file open or mapped. */
struct jl_shm_evidence {
	dev_t dev;
	ino_t ino;
	int64_t btime_ns;           /* its birth time, -1 unknown */
	char name[256];             /* its name then (it may have been renamed since) */
	pid_t pid;
	char comm[32];
	bool open, mapped;          /* seen as an open fd (/proc/PID/fd), as a mapping (/proc/PID/maps) */
};

/* A growable array of records (the main thread only; never on a measured path). */
struct jl_vec {
	void *v;
	int n, cap;
	size_t size;
};

struct jl_leftovers {
	enum jl_cleanup cleanup;
	char shm_dir[256];
	pid_t self;
	bool subreaper;             /* we set PR_SET_CHILD_SUBREAPER */
	int subreaper_prev;
	bool begun, collected;
	struct jl_vec snapshot;     /* struct jl_shm_entry: the directory before the children started */
	bool snapshot_ok;
	char snapshot_error[128];
	struct jl_vec procs;        /* struct jl_proc_rec: every process of the tree ever seen */
	struct jl_vec evidence;     /* struct jl_shm_evidence */
	/* the neighbours: pids of the children jitterlab forked and their names (filled by jl_leftovers_scan) */
	int nroots;
	pid_t roots[JL_MAX_THREADS];
	char root_names[JL_MAX_THREADS][JL_NAME_MAX];
	int scans;
	int64_t scan_max_ns, scan_total_ns;
	/* after jl_leftovers_collect */
	struct jl_vec alive;        /* struct jl_proc_rec: ours, still alive after the neighbours ended */
	struct jl_vec shm_ours;     /* struct jl_shm_entry: new and proven the run's */
	struct jl_vec shm_other;    /* struct jl_shm_entry: new, not proven: kept */
	bool *proc_ended;           /* cleanup = remove: per alive entry, it is gone now */
	bool *shm_removed;          /* per shm_ours entry */
	char **shm_remove_error;    /* per shm_ours entry: why it could not be removed (NULL: none) */
	int nended, nremoved;
};

struct jl_engine;

/* Before any child starts: snapshot SHM_DIR (NULL = /dev/shm), become a child subreaper. 0, or -1 with
 * errno if the subreaper flag could not be set (the run goes on; reparented orphans are then invisible). */
int jl_leftovers_begin(struct jl_leftovers *r, enum jl_cleanup cleanup, const char *shm_dir);
/* One scan of the run's tree (the engine's exec neighbours are the roots): record its processes and the
 * /dev/shm files they hold. Main thread only. */
void jl_leftovers_scan(struct jl_leftovers *r, const struct jl_engine *eng);
/* After the neighbours were ended (jl_engine_stop): a last scan, then what is still alive and which
 * new /dev/shm entries are the run's; with cleanup = remove, end those processes (SIGKILL through a
 * pidfd, reaped) and unlink those entries. Reaps the tree's zombies that were reparented to jitterlab.
 * Puts the subreaper flag back. */
void jl_leftovers_collect(struct jl_leftovers *r, const struct jl_engine *eng);
/* summary.json's "leftovers" object (a new reference); this and the warning are in leftovers_report.c. */
json_object *jl_leftovers_json(const struct jl_leftovers *r);
/* The warning line for stderr ("" when nothing was left), into BUF. */
const char *jl_leftovers_warning(const struct jl_leftovers *r, char *buf, size_t len);
/* Put the subreaper flag back (if begun and not yet collected) and free everything. */
void jl_leftovers_free(struct jl_leftovers *r);

/* ---- the pure parts (tests/unit/test_leftovers.c) ---- */

/* Parse /proc/PID/stat text into REC (pid, comm, state, ppid, pgid, sid, start). 0 or -1. */
int jl_leftovers_parse_stat(const char *text, struct jl_proc_rec *rec);
/* Mark which of the N processes P (one scan) are the run's: a root (pid in ROOTS with SELF as parent),
 * one already in KNOWN (same pid and start, ours), a child of SELF when SELF is a subreaper
 * (REPARENTED), or a process whose parent is ours and started no later than it. Sets ours, root,
 * reparented. Returns how many are ours. */
int jl_leftovers_mark_tree(struct jl_proc_rec *p, int n, pid_t self, bool subreaper, const pid_t *roots, int nroots,
			 const struct jl_proc_rec *known, int nknown);
/* A /proc/PID/maps line: if it maps a file directly in DIR (DIR/NAME, not deleted), fill NAME (len
 * bytes), DEV and INO and return true. */
bool jl_leftovers_parse_maps_line(const char *line, const char *dir, char *name, size_t len, dev_t *dev, ino_t *ino);
/* Read the entries of DIR (no recursion; lstat: a symlink is an entry of its own). 0, or -1 with errno. */
int jl_leftovers_list_dir(const char *dir, struct jl_vec *out);
/* The entries of NOW that are not in BEFORE (by name, device, inode and birth time where known), split
 * into those an EVIDENCE record proves the run's (same device, inode and birth time where both know it)
 * and the others. */
void jl_leftovers_shm_diff(const struct jl_vec *before, const struct jl_vec *now, const struct jl_vec *evidence,
			 struct jl_vec *ours, struct jl_vec *other);
/* Unlink NAME in DIR if it is still a regular file with DEV and INO (never through a symlink).
 * 0, or -1 with errno (ESTALE: it is another file now). */
int jl_leftovers_unlink(const char *dir, const char *name, dev_t dev, ino_t ino);

void jl_vec_init(struct jl_vec *v, size_t size);
void *jl_vec_push(struct jl_vec *v);
void *jl_vec_at(const struct jl_vec *v, int i);
void jl_vec_free(struct jl_vec *v);

#endif
