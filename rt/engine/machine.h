/* machine: every machine knob a run changes (shield cpusets, IRQ affinity, cpu_dma_latency, RT
 * throttling), journalled on disk (/run/jitterlab/run-PID.journal, see journal.h) before it changes and
 * restored in reverse order on every exit path. `jitterlab restore` replays the journal after the tool
 * was killed (stale_runs.h lists what dead runs left). */
#ifndef JL_MACHINE_H
#define JL_MACHINE_H

#include <json-c/json.h>
#include <stdbool.h>
#include <sys/types.h>

#include "../scenario/scenario.h"

struct jl_machine;

/* Refuse to start over a stale journal (a run that died without restoring, with changes recorded) or a
 * stale jitterlab cpuset. 0 = clean, -1 = ERR says what is left and to run `jitterlab restore` (the
 * run then exits 1). Chosen over restoring silently: the user learns that a run died and what it left.
 * Touches nothing. */
int jl_machine_check_stale(char *err, size_t errlen);

/* True when this process sits in another (live or dead) jitterlab run's cpuset (its shield moved us to
 * housekeeping): jl_machine_apply() then waits for that run, or refuses and points at restore. */
bool jl_machine_confined_by_other_run(void);

/* Pure checks of the scenario's machine settings against this machine (e.g. a measured thread's cpus
 * outside the shield, cgroup support missing for isolate, rt_runtime = unlimited without UNSAFE).
 * Touches nothing. 0, or -1 with ERR naming the file, line and key (the run then exits 2). */
int jl_machine_validate(const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen);

/* Apply the scenario's machine settings, journalling each old value first. On failure everything
 * applied so far is restored and -1 is returned with ERR set. */
int jl_machine_apply(struct jl_machine **out, const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen);

/* Put a started thread where it belongs (measured threads into the shield, neighbours where their
 * cpus say). Engine hook; 0 or -1 with errno. */
int jl_machine_place_thread(struct jl_machine *m, pid_t tid, bool measured);
/* Every thread is placed: seal the shield (cgroup v2: make it an isolated partition, read it back, let it
 * settle). 0, or -1 with ERR (the run must not start). */
int jl_machine_seal(struct jl_machine *m, char *err, size_t errlen);

/* Record a child process (pid + start time) so `restore` can end it after a crash. */
int jl_machine_register_child(struct jl_machine *m, pid_t pid);

/* Add what was applied to summary.json's host object (the run's fingerprint), and what changed behind
 * the run's back (IRQs re-steered during it): call it before jl_machine_restore. */
void jl_machine_describe(struct jl_machine *m, json_object *host);

/* Undo everything in reverse order, remove the journal, free M. Safe on NULL. Returns 0, or -1 when
 * something could not be restored (the journal is then kept and the failure printed). What the kernel
 * has not put back yet (an IRQ moved at its next interrupt, an IRQ thread's mask) is printed as notes
 * and, when HOST is not NULL, added to it as "restore": {"complete", "pending": [notes]} (see
 * jl_journal_replay): said after the undo, so it says what the undo achieved. */
int jl_machine_restore(struct jl_machine *m, json_object *host);

#endif
