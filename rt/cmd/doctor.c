/* doctor: `jitterlab doctor [--json]`: how ready this machine is for real-time work. One table of
 * checks (name, what it looks at); each check fills a status (ok / warn / fail), what it saw and one
 * line of advice. Read-only: must never change, mount or start anything on the machine (the tool
 * versions are read by running `TOOL --version`-style commands, nothing else), except what --noise asks
 * for: rtla osnoise for a few seconds, under the machine lock (rtla makes and removes its own instance). */
#include <dirent.h>
#include <errno.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/utsname.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

#include "../../affinity/cli.h"
#include "commands.h"
#include "rtla.h"
#include "../../affinity/kversion.h"
#include "../base/host.h"
#include "../trace/io/trace.h"
#include "../../affinity/boot_isolation.h"
#include "../../affinity/cpulist.h"
#include "../../affinity/journal.h"
#include "../../affinity/stale_runs.h"
#include "../../affinity/shield.h"
#include "../../affinity/topology.h"
#include "../../affinity/procfs.h"

enum jl_doctor_status { JL_DOC_OK, JL_DOC_WARN, JL_DOC_FAIL };

struct jl_doctor_result {
	enum jl_doctor_status status;
	char value[256];
	char advice[256];
};

static const char *status_name[] = { "ok", "warn", "fail" };

static void set(struct jl_doctor_result *r, enum jl_doctor_status st, const char *advice, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
static void set(struct jl_doctor_result *r, enum jl_doctor_status st, const char *advice, const char *fmt, ...)
{
	va_list ap;

	r->status = st;
	snprintf(r->advice, sizeof(r->advice), "%s", advice);
	va_start(ap, fmt);
	vsnprintf(r->value, sizeof(r->value), fmt, ap);
	va_end(ap);
}

static bool rd(const char *path, char *buf, size_t len)
{
	return jl_knob_read(path, buf, len) == 0;
}

/* The preemption model: the host block's reader (one reader), with may_mount false (doctor mounts nothing). */
static void check_preempt(struct jl_doctor_result *r)
{
	struct jl_preempt p;
	char seen[256];
	size_t o;

	jl_host_preempt_read(&p, false);
	o = (size_t)snprintf(seen, sizeof(seen), "%s", p.model);
	if (p.from[0])
		o += (size_t)snprintf(seen + o, o < sizeof(seen) ? sizeof(seen) - o : 0, " (%s)", p.from);
	if (p.dynamic && !p.debugfs[0] && p.debugfs_why[0] && o < sizeof(seen))
		snprintf(seen + o, sizeof(seen) - o, "; sched/preempt unread: %s", p.debugfs_why);
	if (p.rt)
		set(r, JL_DOC_OK, "fully preemptible kernel", "%s", seen);
	else
		set(r, JL_DOC_WARN,
		    p.dynamic ? "not PREEMPT_RT: boot preempt=full at least, or a PREEMPT_RT kernel (linux-image-rt-*)"
			      : "not PREEMPT_RT: install a PREEMPT_RT kernel (linux-image-rt-*) for bounded latency",
		    "%s", seen);
}

/* ---- boot-time isolation: one parser (boot_isolation.h) for these five checks ---- */

static void check_boot_param(struct jl_doctor_result *r, enum jl_boot_param which, const char *advice)
{
	struct jl_boot_isolation b;
	char list[256], got[256], extra[256] = "";
	const char *key = jl_boot_param_names[which];

	jl_boot_isolation_read(&b);
	jl_cpulist_format(&b.cpus[which], list, sizeof(list));
	switch (which) {
	case JL_BOOT_ISOLCPUS:
		snprintf(extra, sizeof(extra), ", flags%s%s%s, kernel isolated %s", b.nohz ? " nohz" : "", b.domain ? " domain" : "",
			 b.managed_irq ? " managed_irq" : "", CPU_COUNT(&b.isolated) ? jl_cpulist_format(&b.isolated, got, sizeof(got)) : "none");
		break;
	case JL_BOOT_NOHZ_FULL:
		if (b.sysfs_nohz_full_ok)
			snprintf(extra, sizeof(extra), ", kernel tickless on %s",
				 CPU_COUNT(&b.nohz_full) ? jl_cpulist_format(&b.nohz_full, got, sizeof(got)) : "none");
		break;
	case JL_BOOT_RCU_NOCBS:
		if (CPU_COUNT(&b.nohz_full))
			snprintf(extra, sizeof(extra), ", and %s through nohz_full", jl_cpulist_format(&b.nohz_full, got, sizeof(got)));
		break;
	case JL_BOOT_IRQAFFINITY:
		snprintf(extra, sizeof(extra), ": new IRQs go to these CPUs only");
		break;
	default:
		break;
	}
	if (b.given[which] && b.nproblems) {
		for (int i = 0; i < b.nproblems; i++)
			if (!strncmp(b.problems[i], key, strlen(key))) {
				set(r, JL_DOC_WARN, b.problems[i], "cmdline %s=%s%s", key, b.arg[which], extra);
				return;
			}
	}
	if (b.given[which])
		set(r, JL_DOC_OK, "set at boot", "cmdline %s=%s (CPUs %s)%s", key, b.arg[which], list[0] ? list : "none", extra);
	else if (which == JL_BOOT_RCU_NOCBS && CPU_COUNT(&b.nohz_full))
		set(r, JL_DOC_OK, "set at boot (nohz_full= implies rcu_nocbs)", "not on the cmdline%s", extra);
	else if (which == JL_BOOT_ISOLCPUS && b.sysfs_isolated_ok && CPU_COUNT(&b.sysfs_isolated))
		set(r, JL_DOC_OK, "isolated, but not by isolcpus= (a cgroup v2 isolated partition?)", "not on the cmdline, sysfs isolated %s",
		    jl_cpulist_format(&b.sysfs_isolated, list, sizeof(list)));
	else
		set(r, JL_DOC_WARN, advice, "not set");
}

static void check_isolcpus(struct jl_doctor_result *r)
{
	check_boot_param(r, JL_BOOT_ISOLCPUS,
			 "no isolated CPUs: use `isolate = CPUS` in the scenario (a runtime shield) or boot with isolcpus=");
}

static void check_nohz(struct jl_doctor_result *r)
{
	check_boot_param(r, JL_BOOT_NOHZ_FULL,
			 "the tick still interrupts measured CPUs: boot with nohz_full=CPUS (needs CONFIG_NO_HZ_FULL)");
}

static void check_rcu(struct jl_doctor_result *r)
{
	check_boot_param(r, JL_BOOT_RCU_NOCBS, "RCU callbacks run on measured CPUs: boot with rcu_nocbs=CPUS");
}

static void check_irqaffinity(struct jl_doctor_result *r)
{
	check_boot_param(r, JL_BOOT_IRQAFFINITY,
			 "IRQs may land on measured CPUs: use `irq_affinity = housekeeping` or boot with irqaffinity=");
}

/* Which boot-time isolation flags each online CPU has (doctor knows no scenario: every CPU, grouped). */
static void check_boot_cpus(struct jl_doctor_result *r)
{
	struct jl_boot_isolation b;
	cpu_set_t online;
	char text[256];

	jl_boot_isolation_read(&b);
	if (jl_cpulist_online(&online)) {
		set(r, JL_DOC_OK, "online CPUs unknown", "unknown");
		return;
	}
	jl_boot_isolation_cpus_text(&b, &online, text, sizeof(text));
	if (CPU_COUNT(&b.isolated))
		set(r, JL_DOC_OK, "`isolate` on CPUs isolated at boot is a no-op (adopted: \"" JL_BOOT_ISOLATED_NOTE "\")", "%s",
		    text);
	else
		set(r, JL_DOC_OK, "no CPU isolated at boot: `isolate = CPUS` shields at run time", "%s", text);
}

static void check_rt_throttling(struct jl_doctor_result *r)
{
	char rt[64] = "?", period[64] = "?";

	rd("/proc/sys/kernel/sched_rt_runtime_us", rt, sizeof(rt));
	rd("/proc/sys/kernel/sched_rt_period_us", period, sizeof(period));
	if (!strcmp(rt, "-1"))
		set(r, JL_DOC_WARN, "RT throttling is off: a runaway RT thread freezes its CPU; keep 950000 unless you must",
		    "off (sched_rt_runtime_us = -1)");
	else
		set(r, JL_DOC_OK, "on: runaway RT threads cannot freeze a CPU (they get 5% taken away each period)",
		    "%s of %s us", rt, period);
}

/* The fair deadline server (Linux 6.12+): read only where debugfs is already mounted (doctor never mounts). */
static void check_fair_server(struct jl_doctor_result *r)
{
	char text[200] = "";
	json_object *fs = jl_host_fair_server(false, text, sizeof(text));

	json_object_put(fs);
	if (strstr(text, "before Linux 6.12"))
		set(r, JL_DOC_OK, "RT throttling (sched_rt_runtime_us) is the only RT bandwidth limit", "%s", text);
	else
		set(r, JL_DOC_OK,
		    "CFS gets this much of each CPU while RT tasks run: rt_runtime = unlimited no longer lets a spinning "
		    "RT thread keep a CPU",
		    "%s", text);
}

static void check_governor(struct jl_doctor_result *r)
{
	char gov[64], path[128];
	int other = 0, n = 0;

	for (int c = 0; c < CPU_SETSIZE; c++) {
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu%d/cpufreq/scaling_governor", c);
		if (!rd(path, gov, sizeof(gov)))
			continue; /* offline, absent or no cpufreq */
		n++;
		other += strcmp(gov, "performance") != 0;
	}
	if (!n)
		set(r, JL_DOC_OK, "no cpufreq control visible (VM or fixed frequency)", "no cpufreq");
	else if (other)
		set(r, JL_DOC_WARN, "frequency changes add latency: cpupower frequency-set -g performance",
		    "%d of %d CPUs not on performance", other, n);
	else
		set(r, JL_DOC_OK, "fixed at the highest frequency", "performance on %d CPUs", n);
}

static void check_boost(struct jl_doctor_result *r)
{
	char v[16];

	if (rd("/sys/devices/system/cpu/intel_pstate/no_turbo", v, sizeof(v)))
		set(r, v[0] == '1' ? JL_DOC_OK : JL_DOC_WARN, "turbo makes timing depend on temperature and load; "
							     "echo 1 > /sys/devices/system/cpu/intel_pstate/no_turbo for steady figures",
		    "intel_pstate turbo %s", v[0] == '1' ? "off" : "on");
	else if (rd("/sys/devices/system/cpu/cpufreq/boost", v, sizeof(v)))
		set(r, v[0] == '0' ? JL_DOC_OK : JL_DOC_WARN, "boost makes timing depend on temperature and load; "
							     "echo 0 > /sys/devices/system/cpu/cpufreq/boost for steady figures",
		    "boost %s", v[0] == '0' ? "off" : "on");
	else
		set(r, JL_DOC_OK, "no frequency boost control visible", "not exposed");
}

static void check_idle(struct jl_doctor_result *r)
{
	char deep[64], driver[64] = "none";
	long worst = 0;
	json_object *o = jl_host_idle_states(&worst, deep, sizeof(deep)), *v; /* the same reading as summary.json */

	if (json_object_object_get_ex(o, "driver", &v))
		snprintf(driver, sizeof(driver), "%s", json_object_get_string(v));
	json_object_put(o);
	if (worst > 10)
		set(r, JL_DOC_WARN, "deep idle states add wake-up latency: keep cpu_dma_latency = 0us (the default) or "
				    "boot with processor.max_cstate=1",
		    "driver %s, deepest %s exits in %ld us", driver, deep, worst);
	else
		set(r, JL_DOC_OK, "idle exit is short (cpu_dma_latency = 0us keeps it so during runs)",
		    "driver %s, deepest exit %ld us", driver, worst);
}

static void check_smt(struct jl_doctor_result *r)
{
	char v[32] = "";

	rd("/sys/devices/system/cpu/smt/active", v, sizeof(v));
	if (v[0] == '1')
		set(r, JL_DOC_WARN, "SMT siblings share a core: keep neighbours off the measured CPU's sibling, or boot nosmt",
		    "active");
	else
		set(r, JL_DOC_OK, "no SMT sibling can disturb a measured CPU", "%s", v[0] ? "inactive" : "not exposed");
}

static void check_hybrid(struct jl_doctor_result *r)
{
	char value[256] = "";
	size_t used = 0;

	for (int i = 0; i < jl_ncore_types; i++) {
		char list[128];
		cpu_set_t set;

		if (jl_topo_core_cpus(NULL, i, &set, NULL, 0) == 0 && used < sizeof(value))
			used += (size_t)snprintf(value + used, sizeof(value) - used, "%s%s %s", used ? ", " : "",
						 jl_core_types[i].type, jl_cpulist_format(&set, list, sizeof(list)));
	}
	if (jl_topo_hybrid(NULL))
		set(r, JL_DOC_WARN, "hybrid CPU: pin measured threads to performance cores (cpus = pcores, or smt:N for one core)",
		    "%s", value);
	else
		set(r, JL_DOC_OK, "all cores are of one type (cpus = pcores/ecores is refused here)", "not hybrid");
}

static void check_irqbalance(struct jl_doctor_result *r)
{
	DIR *d = opendir("/proc");
	struct dirent *e;
	int pid = 0;

	while (d && (e = readdir(d))) {
		char path[300], comm[64];

		if (e->d_name[0] < '0' || e->d_name[0] > '9')
			continue;
		snprintf(path, sizeof(path), "/proc/%s/comm", e->d_name);
		if (rd(path, comm, sizeof(comm)) && !strcmp(comm, "irqbalance")) {
			pid = atoi(e->d_name);
			break;
		}
	}
	if (d)
		closedir(d);
	if (pid)
		set(r, JL_DOC_WARN, "irqbalance can move IRQs back onto the shield mid-run: systemctl stop irqbalance",
		    "running (pid %d)", pid);
	else
		set(r, JL_DOC_OK, "IRQ placement stays where it is put", "not running");
}

static void check_virtual(struct jl_doctor_result *r)
{
	char what[128];

	if (jl_host_emulated())
		set(r, JL_DOC_WARN, "an emulated machine (qemu TCG): every timing is the emulator's, none is the kernel's; "
				    "use it to check behaviour, never latency",
		    "hypervisor TCGTCGTCGTCG");
	else if (jl_host_virtualized(what, sizeof(what)))
		set(r, JL_DOC_WARN, "a virtual machine: latencies include the hypervisor's (vCPU preemption, idle exits); "
				    "measure on the target hardware for final figures",
		    "%s", what);
	else
		set(r, JL_DOC_OK, "no hypervisor between the loop and the CPU", "%s", what);
}

static bool cpu_times(unsigned long long *total, unsigned long long *steal)
{
	char line[512];
	unsigned long long v[10] = { 0 };

	if (!rd("/proc/stat", line, sizeof(line)) || strncmp(line, "cpu ", 4))
		return false;
	sscanf(line + 4, "%llu %llu %llu %llu %llu %llu %llu %llu", &v[0], &v[1], &v[2], &v[3], &v[4], &v[5], &v[6],
	       &v[7]);
	*total = 0;
	for (int i = 0; i < 8; i++)
		*total += v[i];
	*steal = v[7];
	return true;
}

static void check_steal(struct jl_doctor_result *r)
{
	unsigned long long t0, s0, t1, s1;
	double pct;

	if (!cpu_times(&t0, &s0)) {
		set(r, JL_DOC_OK, "steal time not readable", "unknown");
		return;
	}
	nanosleep(&(struct timespec){ .tv_nsec = 300 * 1000 * 1000 }, NULL);
	if (!cpu_times(&t1, &s1) || t1 == t0) {
		set(r, JL_DOC_OK, "steal time not measurable", "unknown");
		return;
	}
	pct = 100.0 * (double)(s1 - s0) / (double)(t1 - t0);
	if (pct > 1.0)
		set(r, JL_DOC_WARN, "the hypervisor is giving this VM's CPU time to others: expect millisecond stalls",
		    "%.1f%% over 0.3 s (%.2f%% since boot)", pct, 100.0 * (double)s1 / (double)t1);
	else
		set(r, JL_DOC_OK, "no CPU time taken by the hypervisor right now", "%.1f%% over 0.3 s (%.2f%% since boot)", pct,
		    t1 ? 100.0 * (double)s1 / (double)t1 : 0.0);
}

static void check_clocksource(struct jl_doctor_result *r)
{
	char cs[64] = "unknown";

	rd("/sys/devices/system/clocksource/clocksource0/current_clocksource", cs, sizeof(cs));
	if (!strcmp(cs, "tsc") || !strcmp(cs, "arch_sys_counter"))
		set(r, JL_DOC_OK, "clock reads are cheap and stable", "%s", cs);
	else
		set(r, JL_DOC_WARN, "a slow or unstable clocksource inflates every timestamp: prefer tsc (check dmesg for "
				    "'clocksource tsc unstable')",
		    "%s", cs);
}

static void check_thp(struct jl_doctor_result *r)
{
	char v[128] = "";

	rd("/sys/kernel/mm/transparent_hugepage/enabled", v, sizeof(v));
	if (strstr(v, "[always]"))
		set(r, JL_DOC_WARN, "THP compaction can stall allocations: echo madvise > /sys/kernel/mm/transparent_hugepage/enabled",
		    "%s", v);
	else
		set(r, JL_DOC_OK, "no surprise compaction stalls from THP", "%s", v[0] ? v : "not available");
}

static void check_timer_migration(struct jl_doctor_result *r)
{
	char v[16] = "";

	if (!rd("/proc/sys/kernel/timer_migration", v, sizeof(v)))
		set(r, JL_DOC_OK, "not exposed by this kernel", "unknown");
	else if (v[0] == '1')
		set(r, JL_DOC_WARN, "timers may migrate onto measured CPUs: echo 0 > /proc/sys/kernel/timer_migration", "on");
	else
		set(r, JL_DOC_OK, "timers stay on the CPU that armed them", "off");
}

static void check_rlimits(struct jl_doctor_result *r)
{
	struct rlimit rt, ml;

	if (geteuid() == 0) {
		set(r, JL_DOC_OK, "root: real-time policies and mlockall are allowed", "root");
		return;
	}
	getrlimit(RLIMIT_RTPRIO, &rt);
	getrlimit(RLIMIT_MEMLOCK, &ml);
	if (rt.rlim_cur >= 98 && ml.rlim_cur == RLIM_INFINITY)
		set(r, JL_DOC_OK, "this user may use RT priorities and lock memory", "rtprio %llu, memlock unlimited",
		    (unsigned long long)rt.rlim_cur);
	else
		set(r, JL_DOC_FAIL, "run with sudo, or grant rtprio 98 and memlock unlimited in /etc/security/limits.d/",
		    "rtprio %llu, memlock %s", (unsigned long long)rt.rlim_cur,
		    ml.rlim_cur == RLIM_INFINITY ? "unlimited" : "limited");
}

static bool tracefs_dir(char *dir, size_t len)
{
	static const char *const candidates[] = { "/sys/kernel/tracing", "/sys/kernel/debug/tracing" };

	for (size_t i = 0; i < sizeof(candidates) / sizeof(candidates[0]); i++) {
		char p[128];

		snprintf(p, sizeof(p), "%s/trace", candidates[i]);
		if (access(p, F_OK) == 0) {
			snprintf(dir, len, "%s", candidates[i]);
			return true;
		}
	}
	return false;
}

/* The trace groups of the registry (rt/trace/io/groups.c): a group is missing when one of its required events
 * or all of its events are; optional events the kernel lacks (ipi before 6.5) are named. */
static void check_tracefs(struct jl_doctor_result *r)
{
	char dir[128], missing[128] = "", optional[160] = "", have[64] = "";

	if (!tracefs_dir(dir, sizeof(dir))) {
		set(r, JL_DOC_FAIL, "tracing needs tracefs: mount -t tracefs nodev /sys/kernel/tracing (or run with trace = off)",
		    "not mounted");
		return;
	}
	for (int g = 0; g < jl_trace_ngroups; g++) {
		const struct jl_trace_group *tg = &jl_trace_groups[g];
		int n = 0, found = 0;
		bool required_missing = false;

		for (const struct jl_trace_event *e = tg->events; e->name; e++, n++) {
			char p[256];

			snprintf(p, sizeof(p), "%s/events/%s/%s", dir, e->system, e->name);
			if (!access(p, F_OK)) {
				found++;
			} else if (e->flags & JL_TRACE_EV_REQUIRED) {
				required_missing = true;
			} else {
				size_t o = strlen(optional);

				snprintf(optional + o, sizeof(optional) - o, " %s", e->name);
			}
		}
		if (!found && tg->where_it_exists)
			snprintf(optional + strlen(optional), sizeof(optional) - strlen(optional), " %s (group)", tg->name);
		else if (required_missing || !found)
			snprintf(missing + strlen(missing), sizeof(missing) - strlen(missing), " %s", tg->name);
		else
			snprintf(have + strlen(have), sizeof(have) - strlen(have), " %s", tg->name);
	}
	if (missing[0])
		set(r, JL_DOC_WARN, "some trace groups cannot be recorded (trace = ... must leave them out)",
		    "%s, event groups missing:%s", dir, missing);
	else if (optional[0])
		set(r, JL_DOC_OK, "every trace group can be recorded; the events named are skipped (older kernel)",
		    "%s, groups%s; missing:%s", dir, have, optional);
	else
		set(r, JL_DOC_OK, "every trace group can be recorded", "%s, groups%s", dir, have);
}

static void check_tracers(struct jl_doctor_result *r)
{
	char dir[128], p[256], avail[1024] = "";

	if (!tracefs_dir(dir, sizeof(dir))) {
		set(r, JL_DOC_WARN, "mount tracefs to see the kernel's latency tracers", "tracefs not mounted");
		return;
	}
	snprintf(p, sizeof(p), "%s/available_tracers", dir);
	rd(p, avail, sizeof(avail));
	if (strstr(avail, "timerlat") || strstr(avail, "wakeup_rt"))
		set(r, JL_DOC_OK, "kernel latency tracers exist (rtla timerlat can run too)", "%s", avail);
	else
		set(r, JL_DOC_WARN, "no wakeup/timerlat tracers: jitterlab computes wakeup latency from sched events instead",
		    "%s", avail[0] ? avail : "none");
}

/* First line of COMMAND's output (stdout+stderr) containing NEEDLE, or "" (static commands only). */
static bool tool_line(const char *command, const char *needle, char *out, size_t len)
{
	char line[512];
	FILE *p = popen(command, "re");
	bool found = false;

	out[0] = '\0';
	if (!p)
		return false;
	while (fgets(line, sizeof(line), p)) {
		if (!found && strstr(line, needle)) {
			line[strcspn(line, "\n")] = '\0';
			snprintf(out, len, "%s", line);
			found = true;
		}
	}
	pclose(p);
	return found;
}

static void check_tool(struct jl_doctor_result *r, const char *name, const char *command, const char *needle,
		       enum jl_doctor_status missing, const char *why)
{
	char ver[256], which[300];

	snprintf(which, sizeof(which), "command -v %s", name);
	if (!tool_line(which, "/", ver, sizeof(ver))) {
		char advice[256];

		snprintf(advice, sizeof(advice), "%s: apt-get install %s (or scripts/install-deps.sh)", why,
			 !strcmp(name, "cyclictest") ? "rt-tests" : name);
		set(r, missing, advice, "not installed");
		return;
	}
	if (!tool_line(command, needle, ver, sizeof(ver)))
		snprintf(ver, sizeof(ver), "installed (version unknown)");
	set(r, JL_DOC_OK, why, "%s", ver);
}

static void check_cyclictest(struct jl_doctor_result *r)
{
	check_tool(r, "cyclictest", "timeout 5 cyclictest --help 2>&1", "cyclictest V", JL_DOC_WARN,
		   "`jitterlab cyclictest` compares with it");
}

static void check_tracecmd(struct jl_doctor_result *r)
{
	check_tool(r, "trace-cmd", "timeout 5 trace-cmd --version 2>&1", "version", JL_DOC_WARN,
		   "reads trace.dat (`trace-cmd report`)");
}

static void check_kernelshark(struct jl_doctor_result *r)
{
	check_tool(r, "kernelshark", "dpkg-query -W -f='kernelshark ${Version}\\n' kernelshark 2>/dev/null", "kernelshark",
		   JL_DOC_WARN, "opens trace.dat on the worst wakeup (kernelshark -s kernelshark.json)");
}

static void check_cpusets(struct jl_doctor_result *r)
{
	char root[256];
	enum jl_shield_method m = jl_shield_detect(root, sizeof(root));

	if (m == JL_SHIELD_CGROUP_V1)
		set(r, JL_DOC_OK, "`isolate` can shield CPUs at run time", "cgroup v1 cpuset at %s", root);
	else if (m == JL_SHIELD_CGROUP_V2) {
		/* what the v2 shield will find: systemd owning the tree, where we are, cpuset enabled, partitions */
		char path[512], sub[256] = "", iso[256] = "", self[512] = "?";
		bool systemd = access("/run/systemd/system", F_OK) == 0;

		if (jl_shield_v2_self_cgroup(self, sizeof(self)))
			snprintf(self, sizeof(self), "?");
		snprintf(path, sizeof(path), "%s/cgroup.subtree_control", root);
		jl_knob_read(path, sub, sizeof(sub));
		snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", root);
		jl_knob_read(path, iso, sizeof(iso));
		set(r, JL_DOC_OK,
		    "`isolate` makes a top-level isolated partition (jitterlab-PID-shield) and moves jitterlab into the "
		    "root cgroup for the run (only the root can parent an isolated partition)",
		    "cgroup v2 cpuset at %s; %s; this process in %s; cpuset %s in the root's subtree_control; "
		    "isolated CPUs now: %s", root, systemd ? "systemd owns the tree" : "no systemd", self,
		    strstr(sub, "cpuset") ? "enabled" : "not yet enabled (the run enables it)", iso[0] ? iso : "none");
	}
	else
		set(r, JL_DOC_WARN, "`isolate` needs a cpuset cgroup: mount -t cgroup -o cpuset cpuset /sys/fs/cgroup/cpuset",
		    "no cpuset cgroup mounted");
}

static void check_dma(struct jl_doctor_result *r)
{
	if (access("/dev/cpu_dma_latency", W_OK) == 0)
		set(r, JL_DOC_OK, "runs hold it at cpu_dma_latency (0us by default) to keep CPUs out of deep idle",
		    "/dev/cpu_dma_latency writable");
	else
		set(r, JL_DOC_WARN, "without it CPUs may sleep deeply between cycles: run as root", "%s",
		    access("/dev/cpu_dma_latency", F_OK) ? "missing" : "not writable by this user");
}

static void check_numa(struct jl_doctor_result *r)
{
	int n = jl_topo_numa_nodes();

	set(r, JL_DOC_OK, n > 1 ? "set mem_node so a thread's memory is local to its CPUs" : "one memory node: mem_node is moot",
	    "%d node%s", n, n == 1 ? "" : "s");
}

static void check_leftovers(struct jl_doctor_result *r)
{
	struct jl_stale_runs lo;

	if (jl_stale_runs_scan(&lo, NULL)) {
		set(r, JL_DOC_WARN, "cannot read the journal directory", "%s: %s", jl_journal_default_dir(), strerror(errno));
		return;
	}
	if (jl_stale_runs_any(&lo, false))
		set(r, JL_DOC_FAIL, "a killed run left the machine changed: sudo jitterlab restore",
		    "%d stale journal(s), %d tracing instance(s), %d cpuset(s)", lo.njournals, lo.ninstances, lo.ncpusets);
	else
		set(r, JL_DOC_OK, "nothing left behind by earlier runs", "none%s", lo.nlive ? " (a run is in progress)" : "");
	jl_stale_runs_free(&lo);
}

/* The kernel behaviours that differ by version (affinity/kversion.c), and which side this kernel is on. */
static void check_kernel_versions(struct jl_doctor_result *r)
{
	char has[256] = "", lacks[256] = "", advice[sizeof(r->advice)] = "";
	struct utsname u;

	uname(&u);
	for (int f = 0; f < JL_KERNEL_NFEATURES; f++) {
		const struct jl_kfeature_info *k = jl_kfeature((enum jl_kfeature)f);
		char *list = jl_kernel_has((enum jl_kfeature)f, u.release) ? has : lacks;
		size_t n = strlen(list);

		snprintf(list + n, 256 - n, "%s%s (%d.%d)", n ? ", " : "", k->name, k->major, k->minor);
		if (list == lacks && !advice[0])
			snprintf(advice, sizeof(advice), "%s: %s", k->name, k->what);
	}
	if (lacks[0])
		set(r, JL_DOC_OK, advice, "%s: lacks %s", u.release, lacks);
	else
		set(r, JL_DOC_OK, "every version-dependent behaviour jitterlab knows is the current one", "%s: has %s",
		    u.release, has);
}

/* The checks, in the order they are shown. */
static const struct {
	const char *name;
	const char *what;
	void (*fn)(struct jl_doctor_result *r);
} checks[] = {
	{ "preempt", "kernel preemption model", check_preempt },
	{ "kernel_versions", "behaviours that depend on the kernel version", check_kernel_versions },
	{ "isolcpus", "isolated CPUs (cmdline, sysfs)", check_isolcpus },
	{ "nohz_full", "tickless CPUs (cmdline, sysfs)", check_nohz },
	{ "rcu_nocbs", "RCU callback offload (cmdline, nohz_full)", check_rcu },
	{ "irqaffinity", "default IRQ affinity (cmdline)", check_irqaffinity },
	{ "boot_isolation", "boot-time isolation flags per CPU", check_boot_cpus },
	{ "rt_throttling", "sched_rt_runtime_us", check_rt_throttling },
	{ "fair_server", "fair deadline server (Linux 6.12+)", check_fair_server },
	{ "governor", "cpufreq governor", check_governor },
	{ "boost", "frequency boost / turbo", check_boost },
	{ "idle_states", "cpuidle states", check_idle },
	{ "smt", "simultaneous multithreading", check_smt },
	{ "hybrid", "hybrid core types", check_hybrid },
	{ "irqbalance", "irqbalance daemon", check_irqbalance },
	{ "virtualization", "virtual machine", check_virtual },
	{ "steal_time", "hypervisor steal time", check_steal },
	{ "clocksource", "clocksource", check_clocksource },
	{ "thp", "transparent huge pages", check_thp },
	{ "timer_migration", "timer migration", check_timer_migration },
	{ "rlimits", "RLIMIT_RTPRIO / RLIMIT_MEMLOCK", check_rlimits },
	{ "tracefs", "tracefs and event groups", check_tracefs },
	{ "tracers", "kernel latency tracers", check_tracers },
	{ "cyclictest", "cyclictest (rt-tests)", check_cyclictest },
	{ "trace-cmd", "trace-cmd", check_tracecmd },
	{ "kernelshark", "KernelShark", check_kernelshark },
	{ "cpusets", "cpuset cgroup (runtime shield)", check_cpusets },
	{ "cpu_dma_latency", "/dev/cpu_dma_latency", check_dma },
	{ "numa", "NUMA nodes", check_numa },
	{ "leftovers", "state left by killed runs", check_leftovers },
};

#define NCHECKS (sizeof(checks) / sizeof(checks[0]))

enum { D_JSON = 1, D_NOISE, D_NOISE_TIME };

static const struct jl_cli_opt doctor_opts[] = {
	{ "json", 'j', NULL, "print the checks as JSON on stdout instead of the table", D_JSON },
	{ "noise", 'n', "CPUS", "also measure these CPUs' noise (a list, or all) with rtla osnoise: the kernel's "
				"osnoise tracer runs its workload on them, so never beside a run (the machine lock)", D_NOISE },
	{ "noise-time", 0, "S", "how long --noise measures, in seconds (1-600, default 5)", D_NOISE_TIME },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_doctor = { "doctor", "", "real-time readiness of this machine, one line per check",
				      doctor_opts };

#define NOISE_MAX_CPUS 256
#define NOISE_LOCK_WAIT_MS 10000

/* --noise: rtla osnoise top on CPUS for SECONDS under the machine lock, as JSON: {measured, why | command,
 * seconds, cpus[] (rtla.h's fields)}. Changes nothing itself: rtla makes and removes its own tracing instance
 * (and ends with doctor: PR_SET_PDEATHSIG). */
static json_object *measure_noise(const cpu_set_t *cpus, int seconds)
{
	json_object *o = json_object_new_object();
	struct jl_rtla_noise rows[NOISE_MAX_CPUS];
	struct jl_rtla_probe p;
	char why[512] = "", cmd[512] = "";
	int n = 0, lock = -1;

	jl_rtla_probe(&p, false);
	if (p.why_osnoise[0])
		snprintf(why, sizeof(why), "%s", p.why_osnoise);
	else if (geteuid() != 0)
		snprintf(why, sizeof(why), "the osnoise tracer needs root (sudo jitterlab doctor --noise ...)");
	else if ((lock = jl_journal_lock(jl_journal_default_dir(), NOISE_LOCK_WAIT_MS)) < 0)
		snprintf(why, sizeof(why), "%s", errno == EWOULDBLOCK
			 ? "a jitterlab run holds the machine lock (waited 10 s): the tracer's workload never runs beside a run"
			 : "cannot take the machine lock");
	else if (jl_rtla_noise_measure(cpus, seconds, rows, NOISE_MAX_CPUS, &n, cmd, sizeof(cmd), why, sizeof(why)))
		n = 0;
	if (lock >= 0)
		close(lock);
	json_object_object_add(o, "measured", json_object_new_boolean(n > 0));
	json_object_object_add(o, "tool", json_object_new_string("rtla osnoise top"));
	json_object_object_add(o, "why", n ? NULL : json_object_new_string(why));
	json_object_object_add(o, "command", cmd[0] ? json_object_new_string(cmd) : NULL);
	json_object_object_add(o, "seconds", json_object_new_int(seconds));
	if (n) {
		json_object *arr = json_object_new_array();

		for (int i = 0; i < n; i++)
			json_object_array_add(arr, jl_rtla_noise_json(&rows[i]));
		json_object_object_add(o, "cpus", arr);
	}
	return o;
}

static int64_t jint(json_object *o, const char *a, const char *b)
{
	json_object *x = NULL;

	if (!json_object_object_get_ex(o, a, &x))
		return 0;
	if (b && !json_object_object_get_ex(x, b, &x))
		return 0;
	return json_object_get_int64(x);
}

static void print_noise(json_object *n)
{
	json_object *cpus = NULL, *v = NULL;

	printf("\nnoise (rtla osnoise top, %d s):", (int)jint(n, "seconds", NULL));
	if (!json_object_object_get_ex(n, "cpus", &cpus)) {
		json_object_object_get_ex(n, "why", &v);
		printf(" not measured: %s\n", json_object_get_string(v));
		return;
	}
	printf("\n");
	for (size_t i = 0; i < json_object_array_length(cpus); i++) {
		json_object *c = json_object_array_get_idx(cpus, i), *av = NULL;

		json_object_object_get_ex(c, "available_pct", &av);
		printf("  CPU %-3d noise %9.3f ms of %.3f s (%.4f%% left to tasks), max %8.3f ms in a period, largest single "
		       "%8.3f ms; hw %lld nmi %lld irq %lld softirq %lld thread %lld\n",
		       (int)jint(c, "cpu", NULL), (double)jint(c, "noise_ns", NULL) / 1e6, (double)jint(c, "runtime_ns", NULL) / 1e9,
		       json_object_get_double(av), (double)jint(c, "max_noise_ns", NULL) / 1e6,
		       (double)jint(c, "max_single_noise_ns", NULL) / 1e6, (long long)jint(c, "interference", "hw"),
		       (long long)jint(c, "interference", "nmi"), (long long)jint(c, "interference", "irq"),
		       (long long)jint(c, "interference", "softirq"), (long long)jint(c, "interference", "thread"));
	}
}

int cmd_doctor(int argc, char **argv)
{
	struct jl_doctor_result res[NCHECKS];
	struct jl_cli_walk w = JL_CLI_START;
	int count[3] = { 0 }, c, noise_s = 5;
	bool json = false, noise = false;
	json_object *noise_doc = NULL;
	cpu_set_t noise_cpus;
	const char *v;
	char err[256];

	while ((c = jl_cli_next(&jl_cli_doctor, argc, argv, &w, &v)) != JL_CLI_END) {
		if (c == D_JSON) {
			json = true;
		} else if (c == D_NOISE) {
			noise = true;
			if (!strcmp(v, "all") ? jl_cpulist_online(&noise_cpus) != 0
					      : jl_cpulist_parse(v, &noise_cpus, err, sizeof(err)) != 0) {
				fprintf(stderr, "jitterlab doctor: --noise %s: %s\n", v, strcmp(v, "all") ? err : "cannot read the online CPUs");
				return JL_EXIT_USAGE;
			}
		} else if (c == D_NOISE_TIME) {
			char *end;
			long s = strtol(v, &end, 10);

			if (*end || end == v || s < 1 || s > 600) {
				fprintf(stderr, "jitterlab doctor: --noise-time %s: expected whole seconds, 1-600\n", v);
				return JL_EXIT_USAGE;
			}
			noise_s = (int)s;
		} else if (c == JL_CLI_HELP) {
			jl_cli_help(stdout, &jl_cli_doctor);
			return JL_EXIT_OK;
		} else {
			if (c == JL_CLI_OPERAND)
				fprintf(stderr, "jitterlab doctor: unexpected argument '%s'\n", v);
			jl_cli_help(stderr, &jl_cli_doctor);
			return JL_EXIT_USAGE;
		}
	}
	for (size_t i = 0; i < NCHECKS; i++) {
		memset(&res[i], 0, sizeof(res[i]));
		checks[i].fn(&res[i]);
		count[res[i].status]++;
	}
	if (noise)
		noise_doc = measure_noise(&noise_cpus, noise_s);
	if (json) {
		json_object *o = json_object_new_object(), *arr = json_object_new_array();

		for (size_t i = 0; i < NCHECKS; i++) {
			json_object *e = json_object_new_object();

			json_object_object_add(e, "name", json_object_new_string(checks[i].name));
			json_object_object_add(e, "what", json_object_new_string(checks[i].what));
			json_object_object_add(e, "status", json_object_new_string(status_name[res[i].status]));
			json_object_object_add(e, "value", json_object_new_string(res[i].value));
			json_object_object_add(e, "advice", json_object_new_string(res[i].advice));
			json_object_array_add(arr, e);
		}
		json_object_object_add(o, "checks", arr);
		json_object_object_add(o, "ok", json_object_new_int(count[JL_DOC_OK]));
		json_object_object_add(o, "warn", json_object_new_int(count[JL_DOC_WARN]));
		json_object_object_add(o, "fail", json_object_new_int(count[JL_DOC_FAIL]));
		if (noise_doc)
			json_object_object_add(o, "noise", noise_doc);
		printf("%s\n", json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_NOSLASHESCAPE));
		json_object_put(o);
		return JL_EXIT_OK;
	}
	printf("%-16s %-5s %-44s %s\n", "CHECK", "", "SEEN", "ADVICE");
	for (size_t i = 0; i < NCHECKS; i++)
		printf("%-16s %-5s %-44.44s %s\n", checks[i].name, status_name[res[i].status], res[i].value, res[i].advice);
	if (noise_doc) {
		print_noise(noise_doc);
		json_object_put(noise_doc);
	}
	printf("\ndoctor: %d ok, %d warn, %d fail\n", count[JL_DOC_OK], count[JL_DOC_WARN], count[JL_DOC_FAIL]);
	return JL_EXIT_OK;
}
