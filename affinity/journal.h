/* journal: the on-disk record of every machine knob a run changes, written and fsynced BEFORE the knob
 * changes, so that the run itself (every exit path) or `jitterlab restore` (after a SIGKILL or power loss)
 * can put each knob back, newest first. One file per run: DIR/run-PID.journal, one JSON object per line
 * (json-c), the first line naming the owner (pid + process start time, so a reused pid is never taken
 * for the owner). Must never change a knob itself except when replaying; the caller changes the knob
 * after jl_journal_record_* returned 0. The directory is injectable (tests use a temp dir). */
#ifndef JL_JOURNAL_H
#define JL_JOURNAL_H

#include <json-c/json.h>
#include <sched.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#define JL_JOURNAL_DIR "/run/jitterlab"

struct jl_journal;

/* The journal directory: $JITTERLAB_STATE_DIR if set (tests), else /run/jitterlab. */
const char *jl_journal_default_dir(void);

/* Is DIR safe to hold journals and the lock: a real directory (not a symlink) owned by root (or, for an
 * unprivileged user, by that user), not writable by group or others? 0, or -1 with errno (EPERM when
 * unsafe). */
int jl_journal_dir_check(const char *dir);

/* Create DIR (0755) and DIR/run-<getpid()>.journal (O_EXCL, O_NOFOLLOW) with the owner line, fsynced
 * (file and directory). Refuses an unsafe DIR (jl_journal_dir_check). 0, or -1 with errno. */
int jl_journal_open(struct jl_journal **out, const char *dir);

/* Path of the journal file (for messages). */
const char *jl_journal_path(const struct jl_journal *j);

/* Record, before changing it, that the file PATH held OLD (trailing newline stripped). Undo writes OLD
 * back unless the file already reads OLD. 0 or -1 with errno. */
int jl_journal_record_write(struct jl_journal *j, const char *path, const char *old);

/* As jl_journal_record_write, for a debugfs file (DEBUGFS true): the undo mounts debugfs around the write
 * when it is not mounted (fair_server.c). */
int jl_journal_record_debugfs_write(struct jl_journal *j, const char *path, const char *old, bool debugfs);

/* Record, before changing it, an IRQ's affinity: PATH (/proc/irq/N/smp_affinity_list) held OLD and the
 * IRQ was delivered to EFFECTIVE (its effective_affinity_list; "" when the kernel does not say).
 * Rewriting the mask alone does not bring the effective CPU back (x86 keeps the current vector while its
 * CPU lies inside the new mask, and applies a move only at the IRQ's next interrupt), so the undo first
 * writes EFFECTIVE and waits (up to 1 s for all IRQs of a replay together) until the IRQ is delivered
 * there, then writes OLD. An effective CPU that did not come back is a note in the report, not a
 * failure. 0 or -1 with errno. */
int jl_journal_record_irq(struct jl_journal *j, const char *path, const char *old, const char *effective);

/* Record, before creating it, a cgroup v1/v2 directory DIR. Undo moves every task left in DIR/TASKS_NAME
 * (e.g. "tasks") to PARENT_TASKS, then removes DIR. */
int jl_journal_record_cgroup(struct jl_journal *j, const char *dir, const char *tasks_name, const char *parent_tasks);

/* Record, before enabling it, that CONTROLLER was not in PATH (a cgroup v2 cgroup.subtree_control). Undo
 * writes "-CONTROLLER" (after the cgroups made later are gone: newest first). */
int jl_journal_record_subtree(struct jl_journal *j, const char *path, const char *controller);

/* Record, before moving it, that process PID (with its start time) was in the cgroup whose cgroup.procs is
 * PROCS. Undo moves it back there while it is still that process. */
int jl_journal_record_move(struct jl_journal *j, pid_t pid, const char *procs);

/* One task's CPU mask, as jl_journal_record_masks keeps it. */
struct jl_task_mask {
	pid_t tid;
	unsigned long long start; /* jl_proc_start_time of TID: a reused tid is never taken for it */
	cpu_set_t cpus;
};

/* Record, before a cgroup change that resets them, the CPU masks of the N tasks in T (one entry). Before
 * Linux 6.2 creating or removing a v2 partition resets the mask of every task of the root cgroup to the
 * root's effective CPUs, masks set with sched_setaffinity included. Undo (after the cgroups recorded later
 * are gone: newest first) sets each mask back while the task is still that task and its mask differs.
 * 0 or -1 with errno. */
int jl_journal_record_masks(struct jl_journal *j, const struct jl_task_mask *t, int n);

/* Record, before a cpuset change or an IRQ move, every IRQ thread's CPU mask (and its IRQ's effective CPU)
 * in one entry; a second call on the same journal records nothing (the first, oldest entry is undone
 * last, after every cgroup and IRQ change). A cpuset change resets an IRQ thread's mask, and an IRQ move
 * makes the thread follow; the kernel re-derives the mask only at the IRQ's next interrupt after an
 * affinity write flagged it (Linux 6.9+: at once). Undo writes every threaded IRQ's smp_affinity_list with
 * its own value (the flag), then puts each journalled thread's mask back where it differs and
 * sched_setaffinity leaves nothing behind (irq_threads.h); a thread left to the kernel is a note. 0 or -1
 * with errno. */
int jl_journal_record_irq_threads(struct jl_journal *j);

struct jl_irq_thread_mask;
/* The same entry from T[N] (tests: threads that are not this machine's). */
int jl_journal_record_irq_thread_masks(struct jl_journal *j, const struct jl_irq_thread_mask *t, int n);

/* Record a child process (pid and its start time) so a replay can end it if it is still that process. */
int jl_journal_record_child(struct jl_journal *j, pid_t pid);

/* Undo every entry, newest first; then remove the journal file. 0, or -1 when some entry could not be
 * undone (the file is then kept, REPORT says what failed). Frees J in both cases. NULL is fine. NOTES
 * (a json array, or NULL) receives what the kernel did not put back yet (see jl_journal_replay). */
int jl_journal_finish(struct jl_journal *j, char *report, size_t reportlen, json_object *notes);

/* Print one note of a replay (see jl_journal_replay) as a line: PREFIX, then e.g. "IRQ 31 virtio0-stats
 * stays on CPU 0 (was 1): no interrupt came ...". */
void jl_journal_note_print(FILE *f, const char *prefix, json_object *note);

/* Free J without undoing anything (the file stays: a later replay finds it). */
void jl_journal_abandon(struct jl_journal *j);

/* Replay the journal file PATH (as jl_journal_finish does) and remove it when everything was undone.
 * Returns the number of entries undone (>= 0; REPORT may then hold notes, e.g. an IRQ that is gone), or
 * -1 with REPORT saying what failed. Only the last line may be torn: an unparseable line elsewhere, or
 * an entry naming a path jitterlab never changes (anything but /proc/irq/, sched_rt_runtime_us, the fair
 * server's /sys/kernel/debug/sched/fair_server/cpuN/runtime and the
 * v1 cpuset/cpu cgroup mounts), fails the replay as "journal corrupted at line N" (the entries that
 * parsed are still undone; the file is kept). A write whose target vanished (/proc/irq/N gone, a cgroup
 * directory removed) counts as undone. Does not check the owner: the caller decides whether the
 * journal is stale. After the undo, NOTES (a json array, or NULL) receives one object per thing the
 * kernel has not put back yet: {"kind":"irq", "irq", "name", "effective_before", "effective_after",
 * "why"} for an IRQ still delivered elsewhere, {"kind":"irq_thread", "irq", "name", "thread", "pid",
 * "mask", "effective", "why"} for an IRQ thread not back on its journalled mask (or, one the journal does
 * not name, not on its IRQ's effective CPUs): left to the kernel on Linux 6.2+ (irq_threads.h), or following
 * its IRQ whose move back waits for the IRQ's next interrupt. */
int jl_journal_replay(const char *path, char *report, size_t reportlen, json_object *notes);

/* One journal found in a directory. */
struct jl_journal_info {
	char path[512];
	pid_t pid;
	unsigned long long start;   /* owner's start time in clock ticks since boot */
	long long time;             /* owner line's time (seconds since the epoch), 0 if unknown */
	bool alive;                 /* the owner still runs (same pid AND same start time) */
	int entries;                /* entries after the owner line */
};

/* List the journals in DIR, live and stale, newest first (owner's start time, then time): the order in
 * which several stale journals must be replayed. *OUT is malloc'ed (free it). Returns how many, or -1
 * with errno (a missing directory is 0 journals; an unsafe one is EPERM). A journal whose owner line is
 * unreadable counts as live only while it holds no entry and its pid lives (or it is younger than 10 s). */
int jl_journal_list_all(const char *dir, struct jl_journal_info **out);

/* As jl_journal_list_all, into OUT (the newest MAX). */
int jl_journal_list(const char *dir, struct jl_journal_info *out, int max);

/* Also allow undo writes and cgroup removals under PREFIX (unit tests with fake knob files; never set
 * by the tool itself). NULL clears it. */
void jl_journal_allow_prefix(const char *prefix);

/* May a journal entry name PATH (see jl_journal_replay)? */
bool jl_journal_path_allowed(const char *path);

/* Take DIR/machine.lock (flock, exclusive), waiting up to TIMEOUT_MS. Returns the fd to keep open while
 * the run holds machine knobs, or -1 with errno (EWOULDBLOCK: another run holds it). */
int jl_journal_lock(const char *dir, int timeout_ms);

#endif
