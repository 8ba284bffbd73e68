/* topology: SMT siblings, hybrid core types, the cpu-list names built on them (pcores, ecores, smt:N)
 * and NUMA nodes (libnuma) for the scenario parser, the shield, the summary, the doctor and mem_node.
 * Every sysfs read goes under one root ($JITTERLAB_SYSFS_ROOT, tests: a fake tree; else /sys). Must
 * never change machine state (the one exception, jl_topo_numa_bind_memory, only sets the calling
 * thread's own memory policy). */
#include "topology.h"

#include <ctype.h>
#include <errno.h>
#include <numa.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cpulist.h"

/* The hybrid core types: the registry behind jl_topo_core_type(), the names `pcores`/`ecores` and
 * summary.json's `core_types`. DIR is the PMU directory under ROOT/devices whose `cpus` lists them. */
const struct jl_core_type jl_core_types[] = {
	{ "cpu_core", "performance" },
	{ "cpu_atom", "efficiency" },
};
const int jl_ncore_types = (int)(sizeof(jl_core_types) / sizeof(jl_core_types[0]));

const char *jl_topo_sysfs_root(void)
{
	const char *r = getenv("JITTERLAB_SYSFS_ROOT");

	return r && *r ? r : "/sys";
}

/* SYSFS_CPU, or ROOT/devices/system/cpu */
static const char *cpu_dir(const char *sysfs_cpu, char *buf, size_t len)
{
	if (sysfs_cpu)
		return sysfs_cpu;
	snprintf(buf, len, "%s/devices/system/cpu", jl_topo_sysfs_root());
	return buf;
}

/* DEVICES, or ROOT/devices */
static const char *devices_dir(const char *devices, char *buf, size_t len)
{
	if (devices)
		return devices;
	snprintf(buf, len, "%s/devices", jl_topo_sysfs_root());
	return buf;
}

int jl_topo_siblings(const char *sysfs_cpu, int cpu, cpu_set_t *siblings)
{
	char path[4200], dir[4096];

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", cpu_dir(sysfs_cpu, dir, sizeof(dir)), cpu);
	if (jl_cpulist_read_file(path, siblings) || CPU_COUNT(siblings) == 0) {
		CPU_ZERO(siblings);
		CPU_SET(cpu, siblings);
	}
	CPU_SET(cpu, siblings);
	return 0;
}

bool jl_topo_smt_shared(const char *sysfs_cpu, const cpu_set_t *a, const cpu_set_t *b, char *which, size_t len)
{
	for (int c = 0; c < CPU_SETSIZE; c++) {
		cpu_set_t sib;

		if (!CPU_ISSET(c, a) || jl_topo_siblings(sysfs_cpu, c, &sib))
			continue;
		for (int s = 0; s < CPU_SETSIZE; s++) {
			if (s != c && CPU_ISSET(s, &sib) && CPU_ISSET(s, b)) {
				if (which && len)
					snprintf(which, len, "%d/%d", c, s);
				return true;
			}
		}
	}
	return false;
}

const char *jl_topo_core_type(const char *devices, int cpu)
{
	char dir[4096];

	devices = devices_dir(devices, dir, sizeof(dir));
	for (int i = 0; i < jl_ncore_types; i++) {
		char path[4200];
		cpu_set_t set;

		snprintf(path, sizeof(path), "%s/%s/cpus", devices, jl_core_types[i].dir);
		if (jl_cpulist_read_file(path, &set) == 0 && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set))
			return jl_core_types[i].type;
	}
	return NULL;
}

int jl_topo_core_cpus(const char *devices, int type, cpu_set_t *set, char *path, size_t len)
{
	char dir[4096], p[4200];

	CPU_ZERO(set);
	if (type < 0 || type >= jl_ncore_types) {
		errno = EINVAL;
		return -1;
	}
	snprintf(p, sizeof(p), "%s/%s/cpus", devices_dir(devices, dir, sizeof(dir)), jl_core_types[type].dir);
	if (path && len)
		snprintf(path, len, "%s", p);
	return jl_cpulist_read_file(p, set);
}

bool jl_topo_hybrid(const char *devices)
{
	cpu_set_t set;

	return jl_topo_core_cpus(devices, 0, &set, NULL, 0) == 0;
}

int jl_topo_core_types(const char *devices, const cpu_set_t *cpus, const char **types, int max)
{
	cpu_set_t left, set, both;
	int n = 0;

	if (!jl_topo_hybrid(devices))
		return -1;
	CPU_ZERO(&left);
	CPU_OR(&left, &left, cpus);
	for (int i = 0; i < jl_ncore_types; i++) {
		if (jl_topo_core_cpus(devices, i, &set, NULL, 0))
			continue;
		CPU_AND(&both, &set, cpus);
		if (CPU_COUNT(&both) && n < max)
			types[n++] = jl_core_types[i].type;
		CPU_XOR(&both, &both, &left); /* left less this type's CPUs */
		CPU_AND(&left, &left, &both);
	}
	if (CPU_COUNT(&left) && n < max)
		types[n++] = "unknown";
	return n;
}

/* ---- the cpu-list names: pcores, ecores, smt:N ---- */

/* The online CPUs under the root: 0, or -1 (no readable, non-empty online file). */
static int online_set(const char *sysfs_cpu, cpu_set_t *set)
{
	char dir[4096], path[4200];

	snprintf(path, sizeof(path), "%s/online", cpu_dir(sysfs_cpu, dir, sizeof(dir)));
	if (jl_cpulist_read_file(path, set) || CPU_COUNT(set) == 0)
		return -1;
	return 0;
}

static int name_pcores_ecores(const char *root, const char *item, int type, cpu_set_t *out, char *err, size_t errlen)
{
	char devices[4096], cpus[4096], path[4200], a[256];
	cpu_set_t set, online;

	snprintf(devices, sizeof(devices), "%s/devices", root);
	snprintf(cpus, sizeof(cpus), "%s/devices/system/cpu", root);
	if (jl_topo_core_cpus(devices, type, &set, path, sizeof(path))) {
		if (errno == ENOENT)
			snprintf(err, errlen, "'%s': this machine has no hybrid cores: %s is missing", item, path);
		else
			snprintf(err, errlen, "'%s': cannot read %s: %s", item, path, errno == EINVAL ? "not a cpu list" : strerror(errno));
		return -1;
	}
	if (online_set(cpus, &online) == 0)
		CPU_AND(&set, &set, &online);
	if (CPU_COUNT(&set) == 0) {
		jl_cpulist_read_file(path, &online);
		snprintf(err, errlen, "'%s': no %s core is online (%s: '%s')", item, jl_core_types[type].type, path,
			 jl_cpulist_format(&online, a, sizeof(a)));
		return -1;
	}
	CPU_OR(out, out, &set);
	return 0;
}

static int name_smt(const char *root, const char *item, const char *arg, cpu_set_t *out, char *err, size_t errlen)
{
	char cpus[4096], path[4200], a[256];
	cpu_set_t online, sib;
	struct stat st;
	char *end;
	long n;

	errno = 0;
	n = arg && isdigit((unsigned char)*arg) ? strtol(arg, &end, 10) : -1;
	if (n < 0 || errno || *end) {
		snprintf(err, errlen, "'%s' is not smt:N (N: a CPU number, e.g. smt:2)", item);
		return -1;
	}
	if (n >= CPU_SETSIZE) {
		snprintf(err, errlen, "'%s': CPU %ld is out of range (0-%d)", item, n, CPU_SETSIZE - 1);
		return -1;
	}
	snprintf(cpus, sizeof(cpus), "%s/devices/system/cpu", root);
	snprintf(path, sizeof(path), "%s/cpu%ld", cpus, n);
	if (online_set(cpus, &online) == 0) {
		if (!CPU_ISSET((int)n, &online)) {
			snprintf(err, errlen, "'%s': CPU %ld %s (online: %s)", item, n,
				 stat(path, &st) == 0 ? "is offline" : "does not exist", jl_cpulist_format(&online, a, sizeof(a)));
			return -1;
		}
	} else if (stat(path, &st)) {
		snprintf(err, errlen, "'%s': CPU %ld does not exist (no %s)", item, n, path);
		return -1;
	} else {
		CPU_ZERO(&online);
		CPU_SET((int)n, &online);
	}
	jl_topo_siblings(cpus, (int)n, &sib);
	/* a sibling the kernel has taken offline (smt/control = off) cannot be used: the online ones only */
	CPU_AND(&sib, &sib, &online);
	CPU_SET((int)n, &sib);
	CPU_OR(out, out, &sib);
	return 0;
}

const struct jl_cpu_name jl_cpu_names[] = {
	{ "pcores", "", 0, "the performance cores (Intel hybrid: /sys/devices/cpu_core/cpus), SMT siblings included" },
	{ "ecores", "", 1, "the efficiency cores (Intel hybrid: /sys/devices/cpu_atom/cpus)" },
	{ "smt", ":N", -1, "CPU N and its SMT siblings (cpuN/topology/thread_siblings_list): its physical core" },
};
const int jl_ncpu_names = (int)(sizeof(jl_cpu_names) / sizeof(jl_cpu_names[0]));

/* One name (ITEM): its CPUs into OUT. 0, -1 with ERR, or 1: ITEM is no name. */
static int resolve_name(const char *root, const char *item, cpu_set_t *out, char *err, size_t errlen)
{
	const char *colon = strchr(item, ':');
	size_t len = colon ? (size_t)(colon - item) : strlen(item);

	for (int i = 0; i < jl_ncpu_names; i++) {
		if (strlen(jl_cpu_names[i].name) != len || strncmp(item, jl_cpu_names[i].name, len))
			continue;
		if (!jl_cpu_names[i].arg[0] && colon) {
			snprintf(err, errlen, "'%s': %s takes no argument", item, jl_cpu_names[i].name);
			return -1;
		}
		if (jl_cpu_names[i].core_type >= 0)
			return name_pcores_ecores(root, item, jl_cpu_names[i].core_type, out, err, errlen);
		return name_smt(root, item, colon ? colon + 1 : NULL, out, err, errlen);
	}
	return 1; /* not a name */
}

int jl_topo_cpulist_parse(const char *root, const char *text, cpu_set_t *set, bool *named, char *err, size_t errlen)
{
	char item[256];
	const char *p = text;

	if (named)
		*named = false;
	if (!strpbrk(text, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ:"))
		return jl_cpulist_parse(text, set, err, errlen); /* numbers and ranges only */
	if (!root)
		root = jl_topo_sysfs_root();
	if (named)
		*named = true;
	CPU_ZERO(set);
	for (;;) {
		const char *end = strchr(p, ',');
		size_t len = end ? (size_t)(end - p) : strlen(p);
		cpu_set_t part;
		int rc;

		while (len && isspace((unsigned char)*p))
			p++, len--;
		while (len && isspace((unsigned char)p[len - 1]))
			len--;
		if (!len) {
			snprintf(err, errlen, "empty item in cpu list '%s'", text);
			goto error;
		}
		if (len >= sizeof(item)) {
			snprintf(err, errlen, "cpu list '%.60s...' is too long", text);
			goto error;
		}
		memcpy(item, p, len);
		item[len] = '\0';
		if (isdigit((unsigned char)item[0])) {
			if (jl_cpulist_parse(item, &part, err, errlen))
				goto error;
			CPU_OR(set, set, &part);
		} else {
			CPU_ZERO(&part);
			rc = resolve_name(root, item, &part, err, errlen);
			if (rc < 0)
				goto error;
			if (rc > 0 && !strcmp(item, text)) {
				snprintf(err, errlen, "'%s' is not a cpu list (expected e.g. 1, 0-3, 0,2,4-7, pcores, ecores, "
					 "smt:1, pcores,20-23)", text);
				goto error;
			}
			if (rc > 0) {
				snprintf(err, errlen, "'%s' is not a cpu list: '%s' is neither a CPU, a range nor a name "
					 "(expected e.g. 1, 0-3, pcores, ecores, smt:1)", text, item);
				goto error;
			}
			CPU_OR(set, set, &part);
		}
		if (!end)
			return 0;
		p = end + 1;
	}
error:
	if (named)
		*named = false;
	errno = EINVAL;
	return -1;
}

int jl_topo_numa_nodes(void)
{
	int n;

	if (numa_available() < 0)
		return 1;
	n = numa_num_configured_nodes();
	return n > 0 ? n : 1;
}

int jl_topo_numa_max_node(void)
{
	return numa_available() < 0 ? 0 : numa_max_node();
}

int jl_topo_numa_node_of(const void *addr)
{
	long page = sysconf(_SC_PAGESIZE);
	void *pages[1];
	int status[1] = { -1 };

	if (numa_available() < 0) {
		errno = ENOSYS;
		return -1;
	}
	pages[0] = (void *)((uintptr_t)addr & ~((uintptr_t)page - 1));
	if (numa_move_pages(0, 1, pages, NULL, status, 0))
		return -1;
	if (status[0] < 0) {
		errno = -status[0];
		return -1;
	}
	return status[0];
}

int jl_topo_numa_bind_memory(int node, void *buf, size_t len)
{
	if (numa_available() < 0) {
		errno = ENOSYS;
		return -1;
	}
	if (node < 0 || node > numa_max_node()) {
		errno = EINVAL;
		return -1;
	}
	numa_set_preferred(node);
	if (buf && len)
		numa_tonode_memory(buf, len, node);
	return 0;
}
