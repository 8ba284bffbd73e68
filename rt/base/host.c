/* host: facts about the machine for summary.json and the terminal header. Read-only, with one exception:
 * to read the fair server's files and sched/preempt it mounts debugfs when it is not mounted, and when
 * sched/preempt refuses (EPERM) securityfs for the lockdown mode, and unmounts each right after (only what
 * it mounted itself); the doctor's reads (may_mount false) mount nothing. The preempt model's parsing is
 * pure (jl_host_preempt_resolve, fed strings); one reader of the kernel config (/proc/config.gz or
 * /boot/config-RELEASE). Never called on a measured thread's cycle path. */
#include "../../affinity/fair_server.h"
#include "host.h"

#include <errno.h>
#include <fcntl.h>
#include <stdbool.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <sys/utsname.h>
#include <unistd.h>
#include <zlib.h>
#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>
#endif

#include "../../affinity/boot_isolation.h"
#include "../../affinity/cmdline.h"
#include "../../affinity/cpulist.h"
#include "../../affinity/kversion.h"
#include "summary_keys.h"

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

/* The kernel config, uncompressed (malloc'd), or NULL: /proc/config.gz (the running kernel's own), else
 * /boot/config-RELEASE (Ubuntu, Debian, Fedora; gzread reads a plain file as it is). FROM gets the path. */
static char *read_kconfig(char *from, size_t fromlen)
{
	struct utsname u;
	char boot[300];
	const char *paths[2] = { "/proc/config.gz", boot };

	uname(&u);
	snprintf(boot, sizeof(boot), "/boot/config-%s", u.release);
	if (fromlen)
		from[0] = '\0';
	for (int i = 0; i < 2; i++) {
		gzFile z = gzopen(paths[i], "rb");
		size_t cap = 1 << 18, len = 0;
		char *buf;
		int n;

		if (!z)
			continue;
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
		if (!buf)
			continue;
		buf[len] = '\0';
		if (!len) {
			free(buf);
			continue;
		}
		snprintf(from, fromlen, "%s", paths[i]);
		return buf;
	}
	return NULL;
}

/* ---- the preemption model ---- */

static bool has_word(const char *text, const char *word)
{
	size_t n = strlen(word);

	for (const char *p = text; p && (p = strstr(p, word)); p += n)
		if ((p == text || p[-1] == ' ') && (p[n] == '\0' || p[n] == ' '))
			return true;
	return false;
}

static bool is_mode(const char *m)
{
	return !strcmp(m, "none") || !strcmp(m, "voluntary") || !strcmp(m, "full") || !strcmp(m, "lazy");
}

int jl_host_preempt_debugfs_mode(const char *line, char *mode, size_t len)
{
	const char *o = line ? strchr(line, '(') : NULL, *c = o ? strchr(o, ')') : NULL;

	if (!o || !c || c == o + 1 || (size_t)(c - o - 1) >= len)
		return -1;
	snprintf(mode, len, "%.*s", (int)(c - o - 1), o + 1);
	return 0;
}

void jl_host_preempt_resolve(const struct jl_preempt_input *in, struct jl_preempt *out)
{
	const char *u = in->uname_version ? in->uname_version : "", *cfg = in->config;
	char m[32];

	memset(out, 0, sizeof(*out));
	out->lazy_arch = out->config_rt = out->config_dynamic = -1;
	out->realtime = in->realtime;
	if (cfg) {
		out->config_rt = jl_host_kconfig(cfg, "CONFIG_PREEMPT_RT") == 1;
		out->config_dynamic = jl_host_kconfig(cfg, "CONFIG_PREEMPT_DYNAMIC") == 1;
		out->lazy_arch = jl_host_kconfig(cfg, "CONFIG_ARCH_HAS_PREEMPT_LAZY") == 1; /* absent before 6.13 */
		if (jl_host_kconfig(cfg, "CONFIG_PREEMPT_LAZY") == 1)
			snprintf(out->choice, sizeof(out->choice), "lazy");
		else if (jl_host_kconfig(cfg, "CONFIG_PREEMPT") == 1)
			snprintf(out->choice, sizeof(out->choice), "full");
		else if (jl_host_kconfig(cfg, "CONFIG_PREEMPT_VOLUNTARY") == 1)
			snprintf(out->choice, sizeof(out->choice), "voluntary");
		else if (jl_host_kconfig(cfg, "CONFIG_PREEMPT_NONE") == 1)
			snprintf(out->choice, sizeof(out->choice), "none");
	}
	/* uname -v says PREEMPT_RT over PREEMPT_DYNAMIC over PREEMPT (init/Makefile keeps the last that applies) */
	out->rt = in->realtime == 1 || has_word(u, "PREEMPT_RT") || out->config_rt == 1;
	out->dynamic = out->config_dynamic == 1 || (out->config_dynamic < 0 && has_word(u, "PREEMPT_DYNAMIC")) ||
		       (in->debugfs && in->debugfs[0]);
	out->cmdline_given = jl_cmdline_arg(in->cmdline, "preempt", out->cmdline, sizeof(out->cmdline));

	if (in->debugfs && jl_host_preempt_debugfs_mode(in->debugfs, m, sizeof(m)) == 0) {
		snprintf(out->mode, sizeof(out->mode), "%s", m);
		snprintf(out->from, sizeof(out->from), "debugfs sched/preempt");
	} else if (out->dynamic) {
		/* kernel/sched/core.c: preempt= takes none|voluntary|full|lazy; PREEMPT_RT refuses none and
		 * voluntary, lazy needs ARCH_HAS_PREEMPT_LAZY; a refused value leaves the boot default */
		bool ok = out->cmdline_given && is_mode(out->cmdline) &&
			  !(out->rt && (!strcmp(out->cmdline, "none") || !strcmp(out->cmdline, "voluntary"))) &&
			  !(!strcmp(out->cmdline, "lazy") && out->lazy_arch == 0);

		if (ok) {
			snprintf(out->mode, sizeof(out->mode), "%s", out->cmdline);
			snprintf(out->from, sizeof(out->from), "cmdline preempt=");
		} else {
			if (out->cmdline_given)
				snprintf(out->note, sizeof(out->note),
					 "preempt=%s on the command line is not a mode this kernel takes: the boot default stays",
					 out->cmdline);
			if (cfg) {
				/* no NONE/VOLUNTARY/LAZY choice: the dynamic default is full */
				const char *d = out->choice[0] ? out->choice : "full";

				if (out->rt && (!strcmp(d, "none") || !strcmp(d, "voluntary")))
					d = "full";
				snprintf(out->mode, sizeof(out->mode), "%s", d);
				snprintf(out->from, sizeof(out->from), "%s",
					 out->cmdline_given ? "config default" : "config default, no preempt= on the cmdline");
			}
		}
	} else {
		if (out->cmdline_given)
			snprintf(out->note, sizeof(out->note), "preempt=%s on the command line is ignored: not a PREEMPT_DYNAMIC kernel",
				 out->cmdline);
		if (out->choice[0]) {
			/* a pre-6.12 PREEMPT_RT kernel has PREEMPT_RT as its choice: no mode beside it */
			snprintf(out->mode, sizeof(out->mode), "%s", out->choice);
			snprintf(out->from, sizeof(out->from), "kernel config");
		} else if (!out->rt && has_word(u, "PREEMPT")) {
			snprintf(out->mode, sizeof(out->mode), "full");
			snprintf(out->from, sizeof(out->from), "uname -v");
		}
	}
	if (out->rt && out->mode[0])
		snprintf(out->model, sizeof(out->model), "rt+%s", out->mode);
	else if (out->rt)
		snprintf(out->model, sizeof(out->model), "rt");
	else if (out->dynamic)
		snprintf(out->model, sizeof(out->model), "dynamic(%s)", out->mode[0] ? out->mode : "unknown");
	else if (out->mode[0])
		snprintf(out->model, sizeof(out->model), "%s", out->mode);
	else
		snprintf(out->model, sizeof(out->model), "voluntary|none");
}

int jl_host_lockdown_parse(const char *line, char *mode, size_t len)
{
	const char *o = line ? strchr(line, '[') : NULL, *c = o ? strchr(o, ']') : NULL;

	if (!o || !c || c == o + 1 || (size_t)(c - o - 1) >= len)
		return -1;
	snprintf(mode, len, "%.*s", (int)(c - o - 1), o + 1);
	return 0;
}

static int lockdown_level(const char *m)
{
	return !m ? -1 : !strcmp(m, "none") ? 0 : !strcmp(m, "integrity") ? 1 : !strcmp(m, "confidentiality") ? 2 : -1;
}

const char *jl_host_lockdown_boot(const char *config, const char *cmdline)
{
	static const char *const names[] = { "none", "integrity", "confidentiality" };
	char v[32];
	int level = -1;

	if (config) {
		if (jl_host_kconfig(config, "CONFIG_SECURITY_LOCKDOWN_LSM") == 0)
			return "none"; /* no lockdown LSM: nothing can lock the kernel down */
		if (jl_host_kconfig(config, "CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY") == 1)
			level = 2;
		else if (jl_host_kconfig(config, "CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY") == 1)
			level = 1;
		else if (jl_host_kconfig(config, "CONFIG_LOCK_DOWN_KERNEL_FORCE_NONE") == 1 ||
			 jl_host_kconfig(config, "CONFIG_SECURITY_LOCKDOWN_LSM") == 1)
			level = 0;
	}
	if (jl_cmdline_arg(cmdline, "lockdown", v, sizeof(v)) && lockdown_level(v) > level)
		level = lockdown_level(v);
	return level < 0 ? NULL : names[level];
}

void jl_host_debugfs_why(int err, const char *lockdown, const char *from, char *buf, size_t len)
{
	int level = lockdown_level(lockdown && lockdown[0] ? lockdown : NULL);

	if (err != EPERM && err != EACCES)
		snprintf(buf, len, "%s", strerror(err));
	else if (level > 0)
		snprintf(buf, len, "%s: kernel lockdown (%s, from %s) refuses debugfs files that are not read-only, "
			 "even to read", strerror(err), lockdown, from);
	else if (level == 0)
		snprintf(buf, len, "%s, and not from kernel lockdown (none, from %s): debugfs itself is restricted "
			 "(debugfs= boot option or a security policy)", strerror(err), from);
	else
		snprintf(buf, len, "%s: kernel lockdown (integrity and up refuse debugfs) could not be checked (%s)",
			 strerror(err), from && from[0] ? from : "unknown");
}

/* The first line of PATH into BUF (newline stripped). 0, or an errno. */
static int read_text(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	buf[0] = '\0';
	if (fd < 0)
		return errno;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		return e;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

#define SECURITYFS "/sys/kernel/security"
#define SECURITYFS_MAGIC_NR 0x73636673
#define DEBUGFS_MAGIC_NR 0x64626720

static bool fs_mounted(const char *dir, long magic)
{
	struct statfs sf;

	return statfs(dir, &sf) == 0 && (long)sf.f_type == magic;
}

/* The running lockdown mode into P (lockdown, lockdown_from); mounts securityfs for it when MAY_MOUNT. */
static void lockdown_read(struct jl_preempt *p, bool may_mount, const char *config, const char *cmdline)
{
	char line[128];
	bool mounted = false;
	int err;
	const char *boot;

	if (!fs_mounted(SECURITYFS, SECURITYFS_MAGIC_NR) && may_mount &&
	    mount("securityfs", SECURITYFS, "securityfs", 0, NULL) == 0)
		mounted = true;
	err = read_text(SECURITYFS "/lockdown", line, sizeof(line));
	if (mounted)
		umount2(SECURITYFS, 0);
	if (!err && jl_host_lockdown_parse(line, p->lockdown, sizeof(p->lockdown)) == 0) {
		snprintf(p->lockdown_from, sizeof(p->lockdown_from), SECURITYFS "/lockdown");
		return;
	}
	if ((boot = jl_host_lockdown_boot(config, cmdline))) {
		snprintf(p->lockdown, sizeof(p->lockdown), "%s", boot);
		snprintf(p->lockdown_from, sizeof(p->lockdown_from), "boot: kernel config, cmdline lockdown=");
	} else {
		snprintf(p->lockdown_from, sizeof(p->lockdown_from), "%s",
			 fs_mounted(SECURITYFS, SECURITYFS_MAGIC_NR) ? "securityfs has no lockdown file"
								      : "securityfs not mounted, no kernel config");
	}
}

const char *jl_host_preempt_read(struct jl_preempt *p, bool may_mount)
{
	struct jl_preempt_input in = { .realtime = -1 };
	struct utsname u;
	char rt[16], cmd[4096], from[96], dline[64] = "", why[240] = "", flags[48] = "";
	char *config;
	struct jl_preempt ld;
	int err = 0;

	memset(&ld, 0, sizeof(ld));
	if (read_text("/sys/kernel/realtime", rt, sizeof(rt)) == 0)
		in.realtime = rt[0] == '1';
	uname(&u);
	in.uname_version = u.version;
	for (char *w = u.version; (w = strstr(w, "PREEMPT")); w += 7)
		if (w == u.version || w[-1] == ' ')
			snprintf(flags + strlen(flags), sizeof(flags) - strlen(flags), "%s%.*s", flags[0] ? " " : "",
				 (int)strcspn(w, " "), w);
	config = read_kconfig(from, sizeof(from));
	in.config = config;
	in.cmdline = jl_cmdline_read(cmd, sizeof(cmd)) == 0 ? cmd : NULL;
	jl_host_preempt_resolve(&in, p);
	if (!p->dynamic && config) {
		snprintf(why, sizeof(why), "not a PREEMPT_DYNAMIC kernel: no sched/preempt");
	} else {
		bool mounted = false;

		if (!fs_mounted(JL_DEBUGFS, DEBUGFS_MAGIC_NR)) {
			if (!may_mount)
				err = ENOENT, snprintf(why, sizeof(why), "debugfs not mounted (this read mounts nothing)");
			else if (jl_debugfs_mount(&mounted))
				err = errno, snprintf(why, sizeof(why), "debugfs cannot be mounted: %s", strerror(errno));
		}
		if (!err && (err = read_text(JL_DEBUGFS "/sched/preempt", dline, sizeof(dline)))) {
			dline[0] = '\0';
			if (err == EPERM || err == EACCES) {
				lockdown_read(&ld, may_mount, config, in.cmdline);
				jl_host_debugfs_why(err, ld.lockdown, ld.lockdown_from, why, sizeof(why));
			} else {
				snprintf(why, sizeof(why), "sched/preempt: %s", strerror(err));
			}
		}
		jl_debugfs_unmount(mounted);
		if (dline[0]) {
			in.debugfs = dline;
			jl_host_preempt_resolve(&in, p);
		}
	}
	p->realtime = in.realtime;
	snprintf(p->uname_flags, sizeof(p->uname_flags), "%s", flags);
	snprintf(p->config_from, sizeof(p->config_from), "%s", config ? from : "");
	snprintf(p->debugfs, sizeof(p->debugfs), "%s", dline);
	snprintf(p->debugfs_why, sizeof(p->debugfs_why), "%s", dline[0] ? "" : why);
	snprintf(p->lockdown, sizeof(p->lockdown), "%s", ld.lockdown);
	snprintf(p->lockdown_from, sizeof(p->lockdown_from), "%s", ld.lockdown_from);
	free(config);
	return p->model;
}

static json_object *str_or_null(const char *s)
{
	return s && s[0] ? json_object_new_string(s) : NULL;
}

json_object *jl_host_preempt_json(const struct jl_preempt *p)
{
	json_object *o = json_object_new_object(), *d = json_object_new_object();

	json_object_object_add(o, JL_K(model), json_object_new_string(p->model));
	json_object_object_add(o, JL_K(rt), json_object_new_boolean(p->rt));
	json_object_object_add(o, JL_K(dynamic), json_object_new_boolean(p->dynamic));
	json_object_object_add(o, JL_K(mode), str_or_null(p->mode));
	json_object_object_add(o, JL_K(mode_from), str_or_null(p->from));
	json_object_object_add(o, JL_K(lazy), json_object_new_boolean(!strcmp(p->mode, "lazy")));
	json_object_object_add(o, JL_K(realtime), p->realtime < 0 ? NULL : json_object_new_boolean(p->realtime == 1));
	json_object_object_add(o, JL_K(uname), json_object_new_string(p->uname_flags));
	if (p->config_rt >= 0) {
		json_object *c = json_object_new_object();

		json_object_object_add(c, JL_K(file), str_or_null(p->config_from));
		json_object_object_add(c, JL_K(choice), str_or_null(p->choice));
		json_object_object_add(c, JL_K(PREEMPT_RT), json_object_new_boolean(p->config_rt == 1));
		json_object_object_add(c, JL_K(PREEMPT_DYNAMIC), json_object_new_boolean(p->config_dynamic == 1));
		json_object_object_add(c, JL_K(ARCH_HAS_PREEMPT_LAZY), json_object_new_boolean(p->lazy_arch == 1));
		json_object_object_add(o, JL_K(config), c);
	} else {
		json_object_object_add(o, JL_K(config), NULL);
	}
	json_object_object_add(o, JL_K(cmdline_preempt), p->cmdline_given ? json_object_new_string(p->cmdline) : NULL);
	json_object_object_add(d, JL_K(value), str_or_null(p->debugfs));
	if (!p->debugfs[0]) {
		json_object_object_add(d, JL_K(why), json_object_new_string(p->debugfs_why));
		if (p->lockdown_from[0]) {
			json_object_object_add(d, JL_K(lockdown), str_or_null(p->lockdown));
			json_object_object_add(d, JL_K(lockdown_from), json_object_new_string(p->lockdown_from));
		}
	}
	json_object_object_add(o, JL_K(debugfs), d);
	if (p->note[0])
		json_object_object_add(o, JL_K(note), json_object_new_string(p->note));
	return o;
}

bool jl_host_hypervisor(char *sig, size_t len)
{
	unsigned int a, b, c, d;
	char v[13];

	if (len)
		sig[0] = '\0';
#if defined(__x86_64__) || defined(__i386__)
	__cpuid(1, a, b, c, d);
	if (!(c & (1u << 31))) /* CPUID.1:ECX.hypervisor */
		return false;
	__cpuid(0x40000000, a, b, c, d);
	memcpy(v, &b, 4);
	memcpy(v + 4, &c, 4);
	memcpy(v + 8, &d, 4);
	v[12] = '\0';
	for (int i = 0; i < 12; i++) /* printable only: the signature is the hypervisor's text */
		if (v[i] && (v[i] < 0x20 || v[i] > 0x7e))
			v[i] = '?';
	snprintf(sig, len, "%s", v);
	return true;
#else
	(void)a, (void)b, (void)c, (void)d, (void)v;
	return false;
#endif
}

/* The value of the first "KEY : value" line of /proc/cpuinfo into BUF ("" when none). */
static bool cpuinfo_field(const char *key, char *buf, size_t len)
{
	char line[512];
	size_t kl = strlen(key);
	FILE *f = fopen("/proc/cpuinfo", "re");
	bool found = false;

	buf[0] = '\0';
	if (!f)
		return false;
	while (!found && fgets(line, sizeof(line), f)) {
		char *c = strchr(line, ':');

		if (strncmp(line, key, kl) || !c || strspn(line + kl, " \t") != (size_t)(c - line - (ptrdiff_t)kl))
			continue;
		c += 1 + strspn(c + 1, " \t");
		c[strcspn(c, "\n")] = '\0';
		snprintf(buf, len, "%s", c);
		found = true;
	}
	fclose(f);
	return found;
}

const char *jl_host_cpu_model(char *buf, size_t len)
{
	cpuinfo_field("model name", buf, len);
	return buf;
}

bool jl_host_emulated(void)
{
	char sig[16];

	return jl_host_hypervisor(sig, sizeof(sig)) && !strcmp(sig, "TCGTCGTCGTCG");
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

json_object *jl_host_idle_states(long *deepest, char *deep_name, size_t len)
{
	json_object *o = json_object_new_object(), *states = json_object_new_array();
	char buf[64], path[160];
	long worst = 0;

	if (deep_name && len)
		deep_name[0] = '\0';
	json_object_object_add(o, JL_K(driver), json_object_new_string(
		read_line("/sys/devices/system/cpu/cpuidle/current_driver", buf, sizeof(buf)) ? buf : "none"));
	for (int st = 0; st < 16; st++) {
		char name[64], lat[32];
		json_object *one;
		bool disabled;

		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/name", st);
		if (!read_line(path, name, sizeof(name)))
			break;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/latency", st);
		if (!read_line(path, lat, sizeof(lat)))
			continue;
		snprintf(path, sizeof(path), "/sys/devices/system/cpu/cpu0/cpuidle/state%d/disable", st);
		disabled = read_line(path, buf, sizeof(buf)) && buf[0] == '1';
		one = json_object_new_object();
		json_object_object_add(one, JL_K(name), json_object_new_string(name));
		json_object_object_add(one, JL_K(latency_us), json_object_new_int64(atol(lat)));
		json_object_object_add(one, JL_K(disabled), json_object_new_boolean(disabled));
		json_object_array_add(states, one);
		if (!disabled && atol(lat) > worst) {
			worst = atol(lat);
			if (deep_name && len)
				snprintf(deep_name, len, "%s", name);
		}
	}
	json_object_object_add(o, JL_K(states), states);
	if (deepest)
		*deepest = worst;
	return o;
}

json_object *jl_host_describe(void)
{
	json_object *h = json_object_new_object();
	struct jl_boot_isolation boot;
	struct jl_preempt pre;
	struct utsname u;
	cpu_set_t set;
	bool online;
	char buf[512], what[128];

	uname(&u);
	json_object_object_add(h, JL_K(kernel), json_object_new_string(u.release));
	json_object_object_add(h, JL_K(kernel_version), json_object_new_string(u.version));
	json_object_object_add(h, JL_K(machine), json_object_new_string(u.machine));
	json_object_object_add(h, JL_K(hostname), json_object_new_string(u.nodename));
	json_object_object_add(h, JL_K(preempt), json_object_new_string(jl_host_preempt_read(&pre, true)));
	json_object_object_add(h, JL_K(preempt_detail), jl_host_preempt_json(&pre));
	if ((online = jl_cpulist_online(&set) == 0))
		json_object_object_add(h, JL_K(cpus_online), json_object_new_string(jl_cpulist_format(&set, buf, sizeof(buf))));
	jl_boot_isolation_read(&boot);
	json_object_object_add(h, JL_K(boot_isolation), jl_boot_isolation_json(&boot, online ? &set : NULL));
	if (jl_cpulist_read_file("/sys/devices/system/cpu/isolated", &set) == 0)
		json_object_object_add(h, JL_K(isolated), json_object_new_string(jl_cpulist_format(&set, buf, sizeof(buf))));
	else
		json_object_object_add(h, JL_K(isolated), json_object_new_string(""));
	json_object_object_add(h, JL_K(virtualized), json_object_new_boolean(jl_host_virtualized(what, sizeof(what))));
	if (what[0])
		json_object_object_add(h, JL_K(virtualization), json_object_new_string(what));
	if (jl_host_hypervisor(buf, sizeof(buf)) && buf[0])
		json_object_object_add(h, JL_K(hypervisor), json_object_new_string(buf));
	json_object_object_add(h, JL_K(cpu_model), json_object_new_string(jl_host_cpu_model(buf, sizeof(buf))));
	/* qemu's TCG: the CPU itself is emulated, every timing is the emulator's */
	json_object_object_add(h, JL_K(emulated), json_object_new_boolean(jl_host_emulated()));
	if (read_line("/sys/devices/system/clocksource/clocksource0/current_clocksource", buf, sizeof(buf)))
		json_object_object_add(h, JL_K(clocksource), json_object_new_string(buf));
	else
		json_object_object_add(h, JL_K(clocksource), json_object_new_string("unknown"));
	if (read_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)))
		json_object_object_add(h, JL_K(sched_rt_runtime_us), json_object_new_string(buf));
	json_object_object_add(h, JL_K(rt_bandwidth), rt_bandwidth());
	json_object_object_add(h, JL_K(fair_server), jl_host_fair_server(true, NULL, 0));
	json_object_object_add(h, JL_K(idle_states), jl_host_idle_states(NULL, NULL, 0));
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
	char buf[64], dir[512], path[600], cfgfrom[96];
	char *config;
	int group = -1;
	const char *from = "unknown";

	if (read_line("/proc/sys/kernel/sched_rt_runtime_us", buf, sizeof(buf)))
		json_object_object_add(o, JL_K(runtime_us), json_object_new_int64(strtoll(buf, NULL, 10))); /* -1: unlimited */
	if (read_line("/proc/sys/kernel/sched_rt_period_us", buf, sizeof(buf)))
		json_object_object_add(o, JL_K(period_us), json_object_new_int64(strtoll(buf, NULL, 10)));
	/* RT group scheduling: the cpu cgroup v1 hierarchy shows cpu.rt_runtime_us only when it is on (this is
	 * what the running kernel does, boot options included); else the kernel config */
	if (cgroup_v1_cpu(dir, sizeof(dir))) {
		snprintf(path, sizeof(path), "%s/cpu.rt_runtime_us", dir);
		group = access(path, F_OK) == 0;
		from = "cpu cgroup v1 cpu.rt_runtime_us";
	} else if ((config = read_kconfig(cfgfrom, sizeof(cfgfrom)))) {
		group = jl_host_kconfig(config, "CONFIG_RT_GROUP_SCHED") == 1;
		if (group && jl_host_kconfig(config, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED") == 1) {
			char cmd[4096], v[16];

			group = jl_cmdline_read(cmd, sizeof(cmd)) == 0 && jl_cmdline_arg(cmd, "rt_group_sched", v, sizeof(v)) &&
				!strcmp(v, "1");
		}
		from = cfgfrom;
		free(config);
	}
	json_object_object_add(o, JL_K(group_sched), group < 0 ? NULL : json_object_new_boolean(group));
	json_object_object_add(o, JL_K(group_sched_from), json_object_new_string(from));
	return o;
}

/* ---- the fair server (Linux 6.12+: CFS gets runtime per period on each CPU while RT tasks run) ---- */

#define DEBUGFS JL_DEBUGFS

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
		if (!may_mount || jl_debugfs_mount(&mounted))
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
			json_object_object_add(one, JL_K(runtime_ns), json_object_new_int64(rt));
			json_object_object_add(one, JL_K(period_ns), json_object_new_int64(per));
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
	jl_debugfs_unmount(mounted);
	if (readable && !err) {
		json_object_object_add(o, JL_K(readable), json_object_new_boolean(true));
		json_object_object_add(o, JL_K(cpus), cpus);
		if (same)
			snprintf(text, len, "%.1f ms / %.1f s on every CPU", (double)rt0 / 1e6, (double)per0 / 1e9);
		else
			snprintf(text, len, "differs per CPU (CPU 0: %.1f ms / %.1f s)", (double)rt0 / 1e6, (double)per0 / 1e9);
		return o;
	}
	json_object_put(cpus);
	if (!jl_kernel_has(JL_KERNEL_FAIR_SERVER, NULL))
		snprintf(note, sizeof(note), "no fair server before Linux 6.12 (RT throttling alone)");
	else if (err == ENOENT && !may_mount)
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, debugfs not mounted");
	else if (err == ENOENT)
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, no sched/fair_server in debugfs");
	else
		snprintf(note, sizeof(note), "defaults 50 ms / 1 s, unreadable here (%s)", strerror(err));
	json_object_object_add(o, JL_K(readable), json_object_new_boolean(false));
	json_object_object_add(o, JL_K(note), json_object_new_string(note));
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
	char v[64];

	return cpuinfo_field("vendor_id", v, sizeof(v)) && !strcmp(v, "GenuineIntel");
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
		json_object_object_add(host, JL_K(steal_ns), st);
	} else {
		json_object_object_add(host, JL_K(steal_ns), NULL);
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
		json_object_object_add(host, JL_K(smi), smi);
	} else {
		json_object_object_add(host, JL_K(smi), NULL);
		json_object_object_add(host, JL_K(smi_note), json_object_new_string(a->smi_ok ? b->smi_why : a->smi_why));
	}
}
