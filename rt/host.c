/* host: facts about the machine for summary.json and the terminal header. Read-only, with one exception:
 * to read the fair server's files it mounts debugfs when it is not mounted, and unmounts it right after
 * (only what it mounted itself). Never called on a measured thread's cycle path. */
#include "../affinity/fair_server.h"
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>

#include "../affinity/cpulist.h"

static bool read_line(const char *path, char *buf, size_t len)
{
	FILE *f = fopen(path, "re");
	bool ok;

	if (!f)
		return false;
	ok = fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (ok)
		buf[strcspn(buf, "\n")] = '\0';
	return ok;
}

const char *jl_host_preempt(char *buf, size_t len)
{
	struct utsname u;
	char line[256];

	if (read_line("/sys/kernel/realtime", line, sizeof(line)) && line[0] == '1')
		return snprintf(buf, len, "rt"), buf;
	uname(&u);
	if (strstr(u.version, "PREEMPT_RT"))
		return snprintf(buf, len, "rt"), buf;
	if (strstr(u.version, "PREEMPT_DYNAMIC")) {
		/* debugfs shows the current mode as "none voluntary (full) lazy" */
		if (read_line("/sys/kernel/debug/sched/preempt", line, sizeof(line))) {
			char *o = strchr(line, '('), *c = o ? strchr(o, ')') : NULL;

			if (o && c) {
				*c = '\0';
				return snprintf(buf, len, "dynamic(%s)", o + 1), buf;
			}
		}
		return snprintf(buf, len, "dynamic(unknown)"), buf;
	}
	if (strstr(u.version, "PREEMPT"))
		return snprintf(buf, len, "full"), buf;
	return snprintf(buf, len, "voluntary|none"), buf;
}

bool jl_host_virtualized(char *what, size_t len)
{
	char line[4096];
	FILE *f;
	bool hv = false;

	if (read_line("/sys/hypervisor/type", line, sizeof(line)) && line[0]) {
		snprintf(what, len, "%.64s", line);
		return true;
	}
	f = fopen("/proc/cpuinfo", "re");
	if (f) {
		while (fgets(line, sizeof(line), f)) {
			if (!strncmp(line, "flags", 5) && strstr(line, " hypervisor")) {
				hv = true;
				break;
			}
		}
		fclose(f);
	}
	snprintf(what, len, "%s", hv ? "hypervisor flag in /proc/cpuinfo" : "");
	if (hv && read_line("/sys/class/dmi/id/product_name", line, sizeof(line)) && line[0])
		snprintf(what, len, "%.64s", line);
	return hv;
}

static json_object *rt_bandwidth(void);

json_object *jl_host_describe(void)
{
	json_object *h = json_object_new_object();
	struct utsname u;
	cpu_set_t set;
	char buf[512], what[128];

	uname(&u);
	json_object_object_add(h, "kernel", json_object_new_string(u.release));
	json_object_object_add(h, "kernel_version", json_object_new_string(u.version));
	json_object_object_add(h, "machine", json_object_new_string(u.machine));
	json_object_object_add(h, "hostname", json_object_new_string(u.nodename));
	json_object_object_add(h, "preempt", json_object_new_string(jl_host_preempt(buf, sizeof(buf))));
	if (jl_cpulist_online(&set) == 0)
		json_object_object_add(h, "cpus_online", json_object_new_string(jl_cpulist_format(&set, buf, sizeof(buf))));
	if (jl_cpulist_read_file("/sys/devices/system/cpu/isolated", &set) == 0)
		json_object_object_add(h, "isolated", json_object_new_string(jl_cpulist_format(&set, buf, sizeof(buf))));
	else
		json_object_object_add(h, "isolated", json_object_new_string(""));
	json_object_object_add(h, "virtualized", json_object_new_boolean(jl_host_virtualized(what, sizeof(what))));
	if (what[0])
		json_object_object_add(h, "virtualization", json_object_new_string(what));
	if (read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof(buf)))
		json_object_object_add(h, "clocksource", json_object_new_string(buf));
	else
		json_object_object_add(h, "clocksource", json_object_new_string("unknown"));
	if (read_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)))
		json_object_object_add(h, "sched_rt_runtime_us", json_object_new_string(buf));
	json_object_object_add(h, "rt_bandwidth", rt_bandwidth());
	json_object_object_add(h, "fair_server", jl_host_fair_server(true, NULL, 0));
	return h;
}

/* ---- RT bandwidth ---- */

int jl_host_kconfig(const char *text, const char *sym)
{
	size_t n = strlen(sym);

	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		if (!strncmp(l, sym, n) && l[n] == '=')
			return l[n + 1] == 'y' || l[n + 1] == 'm';
		if (!strncmp(l, "# ", 2) && !strncmp(l + 2, sym, n) && !strncmp(l + 2 + n, " is not set", 11))
			return 0;
	}
	return -1;
}

/* /proc/config.gz, uncompressed (malloc'd), or NULL. */
static char *read_config_gz(void)
{
	gzFile z = gzopen("/proc/config.gz", "rb");
	size_t cap = 1 << 18, len = 0;
	char *buf;
	int n;

	if (!z)
		return NULL;
	buf = malloc(cap + 1);
	while (buf && (n = gzread(z, buf + len, (unsigned)(cap - len))) > 0) {
		len += (size_t)n;
		if (len == cap) {
			char *nb = realloc(buf, (cap *= 2) + 1);

			if (!nb) {
				free(buf);
				buf = NULL;
				break;
			}
			buf = nb;
		}
	}
	gzclose(z);
	if (buf)
		buf[len] = '\0';
	return buf;
}

/* The mount point of the cgroup v1 hierarchy with the cpu controller ("" when none). */
static bool cgroup_v1_cpu(char *dir, size_t len)
{
	char line[1024], dev[64], mnt[512], type[32], opts[512];
	FILE *f = fopen("/proc/self/mounts", "re");
	bool found = false;

	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *save = NULL;

		if (sscanf(line, "%63s %511s %31s %511s", dev, mnt, type, opts) != 4 || strcmp(type, "cgroup"))
			continue;
		for (char *o = strtok_r(opts, ",", &save); o; o = strtok_r(NULL, ",", &save))
			if (!strcmp(o, "cpu")) {
				snprintf(dir, len, "%s", mnt);
				found = true;
			}
	}
	fclose(f);
	return found;
}

static json_object *rt_bandwidth(void)
{
	json_object *o = json_object_new_object();
	char buf[64], dir[512], path[600];
	char *config;
	int group = -1;
	const char *from = "unknown";

	if (read_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)))
		json_object_object_add(o, "runtime_us", json_object_new_int64(strtoll(buf, NULL, 10))); /* -1: unlimited */
	if (read_line("/proc/sys/kernel/sched_rt_period_us", buf, sizeof(buf)))
		json_object_object_add(o, "period_us", json_object_new_int64(strtoll(buf, NULL, 10)));
	/* RT group scheduling: the cpu cgroup v1 hierarchy shows cpu.rt_runtime_us only when it is on (this is
	 * what the running kernel does, boot options included); else the kernel config */
	if (cgroup_v1_cpu(dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
		group = access(path, F_OK) == 0;
		from = "cpu cgroup v1 cpu.rt_runtime_us";
	} else if ((config = read_config_gz())) {
		group = jl_host_kconfig(config, "CONFIG_RT_GROUP_SCHED") == 1;
		if (group && jl_host_kconfig(config, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED") == 1) {
			char cmd[4096];

			group = read_line("/proc/cmdline", cmd, sizeof(cmd)) && strstr(cmd, "rt_group_sched=1");
		}
		from = "/proc/config.gz";
		free(config);
	}
	json_object_object_add(o, "group_sched", group < 0 ? NULL : json_object_new_boolean(group));
	json_object_object_add(o, "group_sched_from", json_object_new_string(from));
	return o;
}

/* ---- the fair server (Linux 6.12+: CFS gets runtime per period on each CPU while RT tasks run) ---- */

#define DEBUGFS JL_DEBUGFS
#define DEBUGFS_MAGIC_NR 0x64626720

static bool kernel_at_least(int major, int minor)
{
	struct utsname u;
	int ma = 0, mi = 0;

	uname(&u);
	if (sscanf(u.release, "%d.%d", &ma, &mi) != 2)
		return false;
	return ma > major || (ma == major && mi >= minor);
}

static bool read_i64(const char *path, int64_t *v, int *err)
{
	char buf[64];
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (fd < 0) {
		*err = errno;
		return false;
	}
	n = read(fd, buf, sizeof(buf) - 1);
	if (n <= 0) {
		*err = n < 0 ? errno : EIO;
		close(fd);
		return false;
	}
	close(fd);
	buf[n] = '\0';
	*v = strtoll(buf, NULL, 10);
	return true;
}

json_object *jl_host_fair_server(bool may_mount, char *text, size_t len)
{
	json_object *o = json_object_new_object(), *cpus = json_object_new_object();
	struct statfs sf;
	bool mounted = false, readable = false, same = true;
	int64_t rt0 = -1, per0 = -1;
	int err = 0, n = 0;
	char note[200] = "", dummy[8];

	if (!text) {
		text = dummy;
		len = sizeof(dummy);
	}
	if (statfs(DEBUGFS, &sf) < 0 || sf.f_type != DEBUGFS_MAGIC_NR) {
		if (!may_mount || jl_debugfs_hold(&mounted))
			err = may_mount ? errno : ENOENT;
	}
	if (!err) {
		for (int c = 0; c < JL_HOST_MAX_CPUS; c++) {
			char path[128];
			int64_t rt, per;
			json_object *one;

			snprintf(path, sizeof(path), DEBUGFS "/sched/fair_server/cpu%d", c);
			if (access(path, F_OK))
				continue;
			n++;
			snprintf(path, sizeof(path), DEBUGFS "/sched/fair_server/cpu%d/runtime", c);
			if (!read_i64(path, &rt, &err))
				break;
			snprintf(path, sizeof(path), DEBUGFS "/sched/fair_server/cpu%d/period", c);
			if (!read_i64(path, &per, &err))
				break;
			one = json_object_new_object();
			json_object_object_add(one, "runtime_ns", json_object_new_int64(rt));
			json_object_object_add(one, "period_ns", json_object_new_int64(per));
			snprintf(path, sizeof(path), "%d", c);
			json_object_object_add(cpus, path, one);
			if (rt0 < 0) {
				rt0 = rt;
				per0 = per;
			} else if (rt != rt0 || per != per0) {
				same = false;
			}
			readable = true;
		}
		if (!n) {
			readable = false;
			err = ENOENT;
		}
	}
	jl_debugfs_release(mounted);
	if (readable && !err) {
		json_object_object_add(o, "readable", json_object_new_boolean(true));
		json_object_object_add(o, "cpus", cpus);
		if (same)
			snprintf(text, len, "%.1f ms / %.1f s on every CPU", (double)rt0 / 1e6, (double)per0 / 1e9);
		else
			snprintf(text, len, "differs per CPU (CPU 0: %.1f ms / %.1f s)", (double)rt0 / 1e6, (double)per0 / 1e9);
		return o;
	}
	json_object_put(cpus);
	if (!kernel_at_least(6, 12))
		snprintf(note, sizeof(note), "no fair server before Linux 6.12 (RT throttling alone)");
	else if (err == ENOENT && !may_mount)
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, debugfs not mounted");
	else if (err == ENOENT)
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, no sched/fair_server in debugfs");
	else
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, unreadable here (%s)", strerror(err));
	json_object_object_add(o, "readable", json_object_new_boolean(false));
	json_object_object_add(o, "note", json_object_new_string(note));
	snprintf(text, len, "%s", note);
	return o;
}

/* ---- steal time and SMIs over the measured phase ---- */

int jl_host_parse_steal(const char *text, uint64_t *steal, int max, int *ncpus)
{
	bool any = false;

	*ncpus = 0;
	for (const char *l = text; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		unsigned long long v[8];
		int cpu;

		if (strncmp(l, "cpu", 3) || l[3] < '0' || l[3] > '9')
			continue;
		if (sscanf(l, "cpu%d %llu %llu %llu %llu %llu %llu %llu %llu", &cpu, &v[0], &v[1], &v[2], &v[3], &v[4],
			   &v[5], &v[6], &v[7]) != 9 || cpu < 0 || cpu >= max)
			continue;
		steal[cpu] = v[7];
		if (cpu + 1 > *ncpus)
			*ncpus = cpu + 1;
		any = true;
	}
	return any ? 0 : -1;
}

static bool cpu_is_intel(void)
{
	char line[256];
	FILE *f = fopen("/proc/cpuinfo", "re");
	bool intel = false;

	if (!f)
		return false;
	while (fgets(line, sizeof(line), f))
		if (!strncmp(line, "vendor_id", 9)) {
			intel = strstr(line, "GenuineIntel") != NULL;
			break;
		}
	fclose(f);
	return intel;
}

#define MSR_SMI_COUNT 0x34

static void smi_take(struct jl_host_sample *s)
{
	cpu_set_t online;
	int done = 0;

	s->smi_ok = false;
	CPU_ZERO(&s->smi_cpus);
	if (!cpu_is_intel()) {
		snprintf(s->smi_why, sizeof(s->smi_why), "not an Intel CPU (MSR_SMI_COUNT is Intel's)");
		return;
	}
	if (jl_cpulist_online(&online)) {
		snprintf(s->smi_why, sizeof(s->smi_why), "online CPUs unknown");
		return;
	}
	for (int c = 0; c < JL_HOST_MAX_CPUS && c < CPU_SETSIZE; c++) {
		char path[64];
		uint64_t v;
		int fd;

		if (!CPU_ISSET(c, &online))
			continue;
		snprintf(path, sizeof(path), "/dev/cpu/%d/msr", c);
		fd = open(path, O_RDONLY | O_CLOEXEC);
		if (fd < 0) {
			snprintf(s->smi_why, sizeof(s->smi_why), errno == ENOENT ? "%s: no such file (modprobe msr)" : "%s: %s",
				 path, strerror(errno));
			return;
		}
		if (pread(fd, &v, sizeof(v), MSR_SMI_COUNT) != (ssize_t)sizeof(v)) {
			snprintf(s->smi_why, sizeof(s->smi_why), "%s: MSR 0x34 unreadable (%s; a VM often hides it)", path,
				 strerror(errno ? errno : EIO));
			close(fd);
			return;
		}
		close(fd);
		s->smi[c] = v & 0xffffffffu; /* the count is the low 32 bits */
		CPU_SET(c, &s->smi_cpus);
		done++;
	}
	s->smi_ok = done > 0;
	if (!done)
		snprintf(s->smi_why, sizeof(s->smi_why), "no online CPU");
}

void jl_host_sample_take(struct jl_host_sample *s)
{
	FILE *f = fopen("/proc/stat", "re");
	char *text = NULL;
	size_t cap = 0;

	s->ncpus = 0;
	s->steal_ok = false;
	if (f) {
		ssize_t n = getdelim(&text, &cap, '\0', f);

		if (n > 0)
			s->steal_ok = jl_host_parse_steal(text, s->steal, JL_HOST_MAX_CPUS, &s->ncpus) == 0;
		free(text);
		fclose(f);
	}
	smi_take(s);
}

void jl_host_add_phase(json_object *host, const struct jl_host_sample *a, const struct jl_host_sample *b)
{
	long hz = sysconf(_SC_CLK_TCK);
	int n = a->ncpus < b->ncpus ? a->ncpus : b->ncpus;

	if (hz <= 0)
		hz = 100;
	if (a->steal_ok && b->steal_ok) {
		json_object *st = json_object_new_object();

		for (int c = 0; c < n; c++) {
			char key[16];
			uint64_t d = b->steal[c] >= a->steal[c] ? b->steal[c] - a->steal[c] : 0;

			snprintf(key, sizeof(key), "%d", c);
			json_object_object_add(st, key, json_object_new_int64((int64_t)(d * (1000000000ull / (uint64_t)hz))));
		}
		json_object_object_add(host, "steal_ns", st);
	} else {
		json_object_object_add(host, "steal_ns", NULL);
	}
	if (a->smi_ok && b->smi_ok) {
		json_object *smi = json_object_new_object();

		for (int c = 0; c < JL_HOST_MAX_CPUS; c++) {
			char key[16];

			if (c >= CPU_SETSIZE || !CPU_ISSET(c, &a->smi_cpus) || !CPU_ISSET(c, &b->smi_cpus))
				continue;
			snprintf(key, sizeof(key), "%d", c);
			json_object_object_add(smi, key, json_object_new_int64((int64_t)((b->smi[c] - a->smi[c]) & 0xffffffffu)));
		}
		json_object_object_add(host, "smi", smi);
	} else {
		json_object_object_add(host, "smi", NULL);
		json_object_object_add(host, "smi_note", json_object_new_string(a->smi_ok ? b->smi_why : a->smi_why));
	}
}
