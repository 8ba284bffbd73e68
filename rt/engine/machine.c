/* machine: applies a scenario's machine settings for one run (shield, IRQ steering, cpu_dma_latency,
 * rt_runtime), each old value journalled on disk first (journal.c), and puts everything back in reverse
 * order on every exit path (jl_machine_restore = the journal's replay).
 *
 * A stale journal (a run killed without restoring) makes the next run refuse to start: the user runs
 * `jitterlab restore`, which replays it. We refuse rather than self-restore so that the machine is
 * never changed behind the user's back and the leftover is always named plainly.
 *
 * Concurrent runs: the shield, the IRQs and RT throttling are one machine-wide state, so a run that
 * changes them holds /run/jitterlab/machine.lock (waiting up to 10 s for another run to finish).
 * cpu_dma_latency needs no lock: the kernel takes the minimum over every open file.
 * Must never: change a knob before its journal entry is on disk, or leave the journal behind after a
 * successful restore. */
#include "../../affinity/boot_isolation.h"
#include "../../affinity/fair_server.h"
#include "machine.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <mntent.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "../../affinity/cpulist.h"
#include "../../affinity/irq.h"
#include "../../affinity/journal.h"
#include "../../affinity/stale_runs.h"
#include "../../affinity/shield.h"
#include "../../affinity/topology.h"
#include "../../affinity/procfs.h"
#include "../../affinity/runnames.h"
#include "../base/summary_keys.h"

#define RT_RUNTIME_PATH "/proc/sys/kernel/sched_rt_runtime_us"
#define RT_PERIOD_PATH "/proc/sys/kernel/sched_rt_period_us"
#define LOCK_WAIT_MS 10000

struct jl_machine {
	struct jl_journal *journal;
	int lock_fd;
	bool shielded;
	struct jl_shield shield;
	bool irqs_steered;
	struct jl_irq_steer irq;
	int dma_fd;
	int32_t dma_us;
	bool rt_changed;
	long long rt_runtime_us;    /* value in force during the run (as read or as set) */
	int64_t fair_server_ns;     /* set on every online CPU for the run, -1 = kept */
	int fair_server_cpus;       /* how many CPUs it changed on */
	int children;
	int place_failures;
	char smt_warning[256];
};

int jl_machine_check_stale(char *err, size_t errlen)
{
	struct jl_stale_runs lo;
	int rc = 0;

	if (jl_stale_runs_scan(&lo, NULL))
		return 0; /* no readable journal directory: nothing of ours can be stale */
	for (int i = 0; i < lo.njournals && !rc; i++) {
		if (lo.journals[i].entries <= 0)
			continue; /* nothing was changed by that run */
		snprintf(err, errlen,
			 "machine: a previous run (pid %d) ended without restoring the machine (%d change%s in %s); "
			 "run `sudo jitterlab restore` first",
			 (int)lo.journals[i].pid, lo.journals[i].entries, lo.journals[i].entries == 1 ? "" : "s",
			 lo.journals[i].path);
		rc = -1;
	}
	if (!rc && lo.ncpusets) {
		/* a dead run's exclusive cpusets would make this run's shield fail, or confine tasks */
		snprintf(err, errlen, "machine: a previous run left the cpuset %s%s; run `sudo jitterlab restore` first",
			 lo.cpusets[0], lo.ncpusets > 1 ? " (and more)" : "");
		rc = -1;
	}
	jl_stale_runs_free(&lo);
	return rc;
}

#define MFAIL(line, ...) return jl_scenario_fail(sc, (line), err, errlen, __VA_ARGS__)

static int tline(const struct jl_thread_spec *t, enum jl_thread_key k)
{
	return t->key_line[k] ? t->key_line[k] : t->line;
}

/* [run] isolate: online CPUs, one left for housekeeping, a way to shield them (cpusets, or the boot's own
 * isolation), root, and every pinned measured thread inside. 0, or -1 with ERR. */
static int validate_isolate(const struct jl_scenario *sc, const cpu_set_t *online, char *err, size_t errlen)
{
	const struct jl_run_spec *r = &sc->run;
	int line = r->key_line[JL_RUN_KEY_ISOLATE];
	cpu_set_t hk, extra, missing;
	char root[256], list[1024], list2[1024];
	struct jl_boot_isolation boot;
	enum jl_shield_method how;

	CPU_XOR(&extra, &r->isolate, online);
	CPU_AND(&extra, &extra, &r->isolate);
	if (CPU_COUNT(&extra))
		MFAIL(line, "[run] isolate: CPU %s is not online", jl_cpulist_format(&extra, list, sizeof(list)));
	CPU_XOR(&hk, &r->isolate, online);
	if (CPU_COUNT(&hk) == 0)
		MFAIL(line, "[run] isolate = %s shields every online CPU; leave at least one housekeeping CPU",
		      jl_cpulist_format(&r->isolate, list, sizeof(list)));
	how = jl_shield_detect(root, sizeof(root));
	if (jl_boot_isolation_read(&boot) == 0 && jl_boot_isolation_covers(&boot, &r->isolate, &missing))
		how = JL_SHIELD_BOOT; /* adopted as it is: no cpuset needed */
	if (how == JL_SHIELD_NONE)
		MFAIL(line, "[run] isolate needs cpusets, and this machine has no cpuset cgroup mounted "
			    "(mount -t cgroup -o cpuset cpuset /sys/fs/cgroup/cpuset)");
	if (geteuid() != 0)
		MFAIL(line, "[run] isolate changes cpusets and needs root (sudo)");
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];
		cpu_set_t outside;

		if (!jl_thread_measured(t) || !t->place.cpus_set)
			continue;
		CPU_XOR(&outside, &t->place.cpus, &r->isolate);
		CPU_AND(&outside, &outside, &t->place.cpus);
		if (CPU_COUNT(&outside))
			MFAIL(tline(t, JL_THREAD_KEY_CPUS),
			      "thread '%s': cpus = %s is outside isolate = %s (a measured thread runs in the shield)",
			      t->name, jl_cpulist_format(&t->place.cpus, list, sizeof(list)),
			      jl_cpulist_format(&r->isolate, list2, sizeof(list2)));
	}
	return 0;
}

/* [run] irq_affinity = housekeeping: a shield to keep IRQs off, root, and no irqbalance to undo it. */
static int validate_irq_affinity(const struct jl_scenario *sc, char *err, size_t errlen)
{
	const struct jl_run_spec *r = &sc->run;
	char list[1024];

	if (!r->isolate_set)
		MFAIL(r->key_line[JL_RUN_KEY_IRQ_AFFINITY],
		      "[run] irq_affinity = housekeeping needs isolate (which CPUs to keep IRQs off)");
	if (geteuid() != 0)
		MFAIL(r->key_line[JL_RUN_KEY_IRQ_AFFINITY], "[run] irq_affinity = housekeeping needs root (sudo)");
	if (jl_irq_balancer_running())
		MFAIL(r->key_line[JL_RUN_KEY_IRQ_AFFINITY],
		      "[run] irq_affinity = housekeeping: irqbalance (pid %d) is running and would move IRQs back "
		      "onto the shield during the run; stop it for the run (systemctl stop irqbalance, then start), "
		      "or ban the shield CPUs in it (IRQBALANCE_BANNED_CPULIST=%s in /etc/default/irqbalance) and "
		      "use irq_affinity = keep", (int)jl_irq_balancer_running(),
		      jl_cpulist_format(&r->isolate, list, sizeof(list)));
	return 0;
}

/* [run] rt_runtime and fair_server: within the RT period, root, the fair server settable here, and neither
 * turned off without --unsafe (UNSAFE). 0, or -1 with ERR. */
static int validate_bandwidth(const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen)
{
	const struct jl_run_spec *r = &sc->run;
	char period[64], why[512];

	if (r->rt_runtime_us != -2) {
		int line = r->key_line[JL_RUN_KEY_RT_RUNTIME];

		if (r->rt_runtime_us == -1 && !unsafe)
			MFAIL(line, "[run] rt_runtime = unlimited turns RT throttling off: a spinning RT thread can then "
				    "freeze a CPU for good; refused without --unsafe");
		if (r->rt_runtime_us >= 0 && jl_knob_read(RT_PERIOD_PATH, period, sizeof(period)) == 0 &&
		    r->rt_runtime_us > atoll(period))
			MFAIL(line, "[run] rt_runtime = %lldus is longer than the RT period (%sus)", (long long)r->rt_runtime_us,
			      period);
		if (geteuid() != 0)
			MFAIL(line, "[run] rt_runtime changes %s and needs root (sudo)", RT_RUNTIME_PATH);
	}
	if (r->fair_server_ns >= 0) {
		int line = r->key_line[JL_RUN_KEY_FAIR_SERVER];

		if (r->fair_server_ns == 0 && !unsafe)
			MFAIL(line, "[run] fair_server = 0 turns the fair server off: a spinning RT thread can then starve "
				    "CFS tasks on its CPU; refused without --unsafe");
		if (geteuid() != 0)
			MFAIL(line, "[run] fair_server changes %s/cpuN/runtime and needs root (sudo)", jl_fair_server_dir());
		if (jl_fair_server_probe(why, sizeof(why)))
			MFAIL(line, "[run] fair_server cannot be set on this machine: %s", why);
	}
	return 0;
}

int jl_machine_validate(const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen)
{
	const struct jl_run_spec *r = &sc->run;
	cpu_set_t online;

	if (jl_cpulist_online(&online)) {
		snprintf(err, errlen, "machine: cannot read the online CPUs: %s", strerror(errno));
		return -1;
	}
	if ((r->isolate_set && validate_isolate(sc, &online, err, errlen)) ||
	    (r->irq_affinity == JL_IRQ_HOUSEKEEPING && validate_irq_affinity(sc, err, errlen)) ||
	    validate_bandwidth(sc, unsafe, err, errlen))
		return -1;
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *t = &sc->threads[i];

		if (t->place.mem_node >= 0 && t->place.mem_node > jl_topo_numa_max_node())
			MFAIL(tline(t, JL_THREAD_KEY_MEM_NODE), "thread '%s': mem_node %d does not exist (nodes 0-%d)", t->name,
			      t->place.mem_node, jl_topo_numa_max_node());
	}
	return 0;
}

/* Warn (once, in the fingerprint and on stderr) when a measured thread's CPUs share a physical core
 * with a neighbour's CPUs through SMT. */
static void check_smt(struct jl_machine *m, const struct jl_scenario *sc)
{
	cpu_set_t online;

	if (jl_cpulist_online(&online))
		return;
	for (int i = 0; i < sc->nthreads; i++) {
		const struct jl_thread_spec *a = &sc->threads[i];
		cpu_set_t acpus = a->place.cpus_set ? a->place.cpus : (sc->run.isolate_set ? sc->run.isolate : online);

		if (!jl_thread_measured(a))
			continue;
		for (int k = 0; k < sc->nthreads; k++) {
			const struct jl_thread_spec *b = &sc->threads[k];
			cpu_set_t bcpus = b->place.cpus_set ? b->place.cpus : online;
			char which[64];

			if (k == i || jl_thread_measured(b))
				continue;
			if (jl_topo_smt_shared(NULL, &acpus, &bcpus, which, sizeof(which))) {
				snprintf(m->smt_warning, sizeof(m->smt_warning),
					 "measured thread '%s' shares a physical core with neighbour '%s' through SMT "
					 "siblings %s", a->name, b->name, which);
				fprintf(stderr, "jitterlab: warning: %s\n", m->smt_warning);
				return;
			}
		}
	}
}

/* The root RT group's runtime file (CONFIG_RT_GROUP_SCHED with the v1 cpu controller), or "". */
static void rt_group_file(char *path, size_t len)
{
	FILE *f = setmntent("/proc/self/mounts", "re");
	struct mntent *e;

	path[0] = '\0';
	while (f && (e = getmntent(f))) {
		char opts[512], *save = NULL;

		if (strcmp(e->mnt_type, "cgroup"))
			continue;
		snprintf(opts, sizeof(opts), "%s", e->mnt_opts);
		for (char *t = strtok_r(opts, ",", &save); t; t = strtok_r(NULL, ",", &save)) {
			if (!strcmp(t, "cpu")) {
				snprintf(path, len, "%s/cpu.rt_runtime_us", e->mnt_dir);
				if (access(path, W_OK))
					path[0] = '\0';
				break;
			}
		}
		if (path[0])
			break;
	}
	if (f)
		endmntent(f);
}

/* Journal PATH's old value and write VALUE (unless it already reads so). */
static int set_journalled(struct jl_machine *m, const char *path, long long value, char *err, size_t errlen)
{
	char old[64], want[64];

	if (jl_knob_read(path, old, sizeof(old))) {
		snprintf(err, errlen, "machine: cannot read %s: %s", path, strerror(errno));
		return -1;
	}
	snprintf(want, sizeof(want), "%lld", value);
	if (!strcmp(old, want))
		return 0;
	if (jl_journal_record_write(m->journal, path, old)) {
		snprintf(err, errlen, "machine: cannot write the journal: %s", strerror(errno));
		return -1;
	}
	if (jl_knob_write(path, want)) {
		snprintf(err, errlen, "machine: cannot set %s to %s: %s", path, want, strerror(errno));
		return -1;
	}
	return 0;
}

/* rt_runtime: sched_rt_runtime_us. With RT group scheduling the root group's cpu.rt_runtime_us may not
 * exceed the global value, so it moves too: lowered before the global value, raised after it (the
 * journal then undoes them in the right order as well). */
static int set_rt_runtime(struct jl_machine *m, long long value, char *err, size_t errlen)
{
	char group[512], now[64];
	long long old;
	bool lower;

	if (jl_knob_read(RT_RUNTIME_PATH, now, sizeof(now))) {
		snprintf(err, errlen, "machine: cannot read %s: %s", RT_RUNTIME_PATH, strerror(errno));
		return -1;
	}
	old = atoll(now);
	if (old == value)
		return 0;
	lower = old < 0 || (value >= 0 && value < old);
	rt_group_file(group, sizeof(group));
	if (lower && group[0] && jl_knob_read(group, now, sizeof(now)) == 0 &&
	    (atoll(now) < 0 || atoll(now) > value) && set_journalled(m, group, value, err, errlen))
		return -1;
	if (set_journalled(m, RT_RUNTIME_PATH, value, err, errlen))
		return -1;
	if (!lower && group[0] && jl_knob_read(group, now, sizeof(now)) == 0 && atoll(now) == old &&
	    set_journalled(m, group, value, err, errlen))
		return -1;
	m->rt_changed = true;
	m->rt_runtime_us = value;
	return 0;
}

/* Is this process inside another run's cpuset (/proc/self/cpuset is /jitterlab-PID-housekeeping or
 * -shield, or a cgroup below one, PID not ours)? A user's /jitterlab-foo is not a run's. */
bool jl_machine_confined_by_other_run(void)
{
	char cs[512], *slash, root[256];
	pid_t pid;

	/* cgroup v2: another live run's isolated partition takes its CPUs from us wherever we are */
	if (jl_shield_detect(root, sizeof(root)) == JL_SHIELD_CGROUP_V2) {
		DIR *d = opendir(root);
		struct dirent *e;
		bool other = false;

		while (d && !other && (e = readdir(d))) {
			pid_t p = jl_stale_cpuset_pid(e->d_name);

			other = p && p != getpid() && jl_stale_pid_alive(p);
		}
		if (d)
			closedir(d);
		if (other)
			return true;
	}
	if (jl_knob_read("/proc/self/cpuset", cs, sizeof(cs)) || cs[0] != '/')
		return false;
	slash = strchr(cs + 1, '/');
	if (slash)
		*slash = '\0';
	pid = jl_stale_cpuset_pid(cs + 1);
	return pid && pid != getpid();
}

/* The machine's lock for a run that changes knobs (KNOBS), and its journal (a run that changes none goes on
 * without one, e.g. not root); a run confined by another run's shield first waits for that run's end. 0, or
 * -1 with ERR. */
static int take_lock(struct jl_machine *m, bool knobs, const char *dir, char *err, size_t errlen)
{
	if (!knobs && jl_machine_confined_by_other_run()) {
		/* Started while another run shields CPUs: this process sits in that run's housekeeping set
		 * and could not reach the shield CPUs. That run holds the lock until it has moved every task
		 * back, so waiting for the lock waits for the end of its shield. */
		int fd = jl_journal_lock(dir, LOCK_WAIT_MS);

		if (fd < 0 || jl_machine_confined_by_other_run()) {
			if (fd >= 0)
				close(fd);
			snprintf(err, errlen, "machine: another jitterlab run shields CPUs and this process is confined to its "
					      "housekeeping CPUs (waited 10s); start this run after it ends");
			return -1;
		}
		/* that run may have been killed while we waited: never start over what it left */
		if (jl_machine_check_stale(err, errlen)) {
			close(fd);
			return -1;
		}
		close(fd);
	}
	if (knobs) {
		m->lock_fd = jl_journal_lock(dir, LOCK_WAIT_MS);
		if (m->lock_fd < 0) {
			snprintf(err, errlen, "machine: %s/machine.lock: %s", dir,
				 errno == EWOULDBLOCK ? "another jitterlab run holds the shield/IRQ/RT settings (waited 10s)"
						      : strerror(errno));
			return -1;
		}
		/* The stale check before the lock saw the run we waited for alive; if it was killed meanwhile,
		 * its leftovers are on the machine now and would be journalled as our "old" values. */
		if (jl_machine_check_stale(err, errlen))
			return -1;
	}
	/* Every run keeps a journal when it can (it also records exec children for `restore`); a run that
	 * changes no knob goes on without one (e.g. not root). */
	if (jl_journal_open(&m->journal, dir)) {
		if (knobs) {
			snprintf(err, errlen, "machine: cannot create the journal in %s: %s", dir, strerror(errno));
			return -1;
		}
		m->journal = NULL;
	}
	return 0;
}

/* [run] isolate: the shield, adopting CPUs isolated at boot (isolcpus=). 0, or -1 with ERR. */
static int apply_shield(struct jl_machine *m, const struct jl_run_spec *r, char *err, size_t errlen)
{
	struct jl_shield_config cfg = { .shield = r->isolate };
	struct jl_boot_isolation boot;
	cpu_set_t missing;

	/* CPUs isolated at boot (isolcpus=) are adopted: the shield is already there */
	cfg.isolated_at_boot = jl_boot_isolation_read(&boot) == 0 &&
			       jl_boot_isolation_covers(&boot, &r->isolate, &missing);
	if (jl_cpulist_online(&cfg.online)) {
		snprintf(err, errlen, "machine: cannot read the online CPUs: %s", strerror(errno));
		return -1;
	}
	m->shielded = true;
	if (jl_shield_apply(&m->shield, &cfg, m->journal, err, errlen))
		return -1;
	if (m->shield.method == JL_SHIELD_CGROUP_V2 && m->shield.tasks_pinned)
		fprintf(stderr, "jitterlab: note: %d task(s) pinned to the shield CPUs by their owners run on the "
				"housekeeping CPUs while the isolated partition lasts (cgroup v2); their masks come back "
				"afterwards\n", m->shield.tasks_pinned);
	return 0;
}

int jl_machine_apply(struct jl_machine **out, const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen)
{
	const struct jl_run_spec *r = &sc->run;
	bool knobs = r->isolate_set || r->irq_affinity == JL_IRQ_HOUSEKEEPING || r->rt_runtime_us != -2 ||
		     r->fair_server_ns >= 0;
	struct jl_machine *m = calloc(1, sizeof(*m));
	const char *dir = jl_journal_default_dir();
	char now[64];

	(void)unsafe; /* checked by jl_machine_validate */
	*out = NULL;
	if (!m) {
		snprintf(err, errlen, "machine: out of memory");
		return -1;
	}
	m->lock_fd = -1;
	m->dma_fd = -1;
	m->dma_us = -1;
	m->fair_server_ns = -1;
	m->rt_runtime_us = jl_knob_read(RT_RUNTIME_PATH, now, sizeof(now)) == 0 ? atoll(now) : 0;
	if (take_lock(m, knobs, dir, err, errlen))
		goto error;
	check_smt(m, sc);
	if (r->isolate_set && apply_shield(m, r, err, errlen))
		goto error;
	if (r->irq_affinity == JL_IRQ_HOUSEKEEPING) {
		m->irqs_steered = true;
		if (jl_irq_steer_apply(&m->irq, NULL, &m->shield.hk, m->journal, err, errlen))
			goto error;
	}
	if (r->rt_runtime_us != -2 && set_rt_runtime(m, r->rt_runtime_us, err, errlen))
		goto error;
	if (r->fair_server_ns >= 0) {
		cpu_set_t online;

		if (jl_cpulist_online(&online) ||
		    jl_fair_server_apply(m->journal, &online, r->fair_server_ns, &m->fair_server_cpus, err, errlen))
			goto error;
		m->fair_server_ns = r->fair_server_ns;
	}
	if (r->cpu_dma_latency_ns >= 0) {
		int32_t us = (int32_t)(r->cpu_dma_latency_ns / 1000);

		/* held open for the run; the kernel drops the request when the file closes (even on SIGKILL) */
		m->dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		if (m->dma_fd >= 0 && write(m->dma_fd, &us, sizeof(us)) == (ssize_t)sizeof(us))
			m->dma_us = us;
	}
	*out = m;
	return 0;
error:
	{
		char save[JL_ERR_MAX];

		snprintf(save, sizeof(save), "%s", err);
		if (jl_machine_restore(m, NULL))
			snprintf(err, errlen, "%s (and the machine could not be fully restored: run `sudo jitterlab restore`)",
				 save);
	}
	return -1;
}

int jl_machine_seal(struct jl_machine *m, char *err, size_t errlen)
{
	if (!m || !m->shielded)
		return 0;
	return jl_shield_seal(&m->shield, err, errlen);
}

int jl_machine_place_thread(struct jl_machine *m, pid_t tid, bool measured)
{
	if (!m || !m->shielded)
		return 0;
	if (jl_shield_place(&m->shield, tid, measured)) {
		m->place_failures++;
		return -1;
	}
	return 0;
}

int jl_machine_register_child(struct jl_machine *m, pid_t pid)
{
	if (!m || !m->journal)
		return 0;
	if (jl_journal_record_child(m->journal, pid))
		return -1;
	m->children++;
	return 0;
}

void jl_machine_describe(struct jl_machine *m, json_object *host)
{
	if (!m)
		return;
	if (m->shielded) {
		json_object *s = json_object_new_object();

		const char *type = jl_topo_core_type(NULL, jl_cpulist_first(&m->shield.shield));

		jl_shield_describe(&m->shield, s);
		if (type) /* hybrid parts: which kind of core was shielded */
			json_object_object_add(s, JL_K(core_type), json_object_new_string(type));
		json_object_object_add(host, JL_K(shield), s);
	}
	if (m->irqs_steered) {
		json_object *i = json_object_new_object();

		jl_irq_steer_check(&m->irq); /* before the undo: IRQs someone moved during the run */
		jl_irq_steer_describe(&m->irq, i);
		json_object_object_add(host, JL_K(irqs), i);
	}
	json_object_object_add(host, JL_K(cpu_dma_latency_us), json_object_new_int(m->dma_us));
	json_object_object_add(host, JL_K(rt_runtime_us), json_object_new_int64(m->rt_runtime_us));
	json_object_object_add(host, JL_K(rt_runtime_changed), json_object_new_boolean(m->rt_changed));
	if (m->fair_server_ns >= 0) {
		json_object_object_add(host, JL_K(fair_server_runtime_ns), json_object_new_int64(m->fair_server_ns));
		json_object_object_add(host, JL_K(fair_server_changed_cpus), json_object_new_int(m->fair_server_cpus));
	}
	json_object_object_add(host, JL_K(numa_nodes), json_object_new_int(jl_topo_numa_nodes()));
	if (m->smt_warning[0])
		json_object_object_add(host, JL_K(smt_warning), json_object_new_string(m->smt_warning));
}

int jl_machine_restore(struct jl_machine *m, json_object *host)
{
	char report[2048];
	json_object *notes;
	int rc = 0;

	if (!m)
		return 0;
	notes = json_object_new_array();
	if (m->dma_fd >= 0)
		close(m->dma_fd);
	if (m->journal) {
		char path[512];

		snprintf(path, sizeof(path), "%s", jl_journal_path(m->journal));
		if (jl_journal_finish(m->journal, report, sizeof(report), notes)) {
			fprintf(stderr, "jitterlab: machine: could not put everything back: %s\n"
					"jitterlab: the journal %s is kept: run `sudo jitterlab restore`\n",
				report, path);
			rc = -1;
		}
		for (size_t i = 0; i < json_object_array_length(notes); i++)
			jl_journal_note_print(stderr, "jitterlab: restore: ", json_object_array_get_idx(notes, i));
		if (host) {
			json_object *r = json_object_new_object();

			json_object_object_add(r, JL_K(complete), json_object_new_boolean(rc == 0));
			json_object_object_add(r, JL_K(pending), json_object_get(notes));
			json_object_object_add(host, JL_K(restore), r);
		}
	}
	json_object_put(notes);
	if (m->lock_fd >= 0)
		close(m->lock_fd);
	free(m);
	return rc;
}
