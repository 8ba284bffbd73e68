/* topology: SMT siblings, hybrid core types and NUMA nodes (libnuma) for the shield, the doctor and
 * mem_node. Must never change machine state (the one exception, jl_topo_numa_bind_memory, only sets the
 * calling thread's own memory policy). */
#include "topology.h"

#include <errno.h>
#include <numa.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

#include "cpulist.h"

int jl_topo_siblings(const char *sysfs_cpu, int cpu, cpu_set_t *siblings)
{
	char path[512];

	if (cpu < 0 || cpu >= CPU_SETSIZE) {
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cpu%d/topology/thread_siblings_list", sysfs_cpu ? sysfs_cpu : JL_SYSFS_CPU, cpu);
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
	static const struct {
		const char *dir;
		const char *type;
	} types[] = {
		{ "cpu_core", "performance" },
		{ "cpu_atom", "efficiency" },
	};

	for (size_t i = 0; i < sizeof(types) / sizeof(types[0]); i++) {
		char path[512];
		cpu_set_t set;

		snprintf(path, sizeof(path), "%s/%s/cpus", devices ? devices : "/sys/devices", types[i].dir);
		if (jl_cpulist_read_file(path, &set) == 0 && cpu >= 0 && cpu < CPU_SETSIZE && CPU_ISSET(cpu, &set))
			return types[i].type;
	}
	return NULL;
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
