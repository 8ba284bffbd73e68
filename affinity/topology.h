/* topology: the CPU model beyond cpu lists: SMT siblings, hybrid core types, NUMA nodes (libnuma).
 * Read-only: never changes any machine setting. The sysfs root is injectable for tests. */
#ifndef JL_TOPOLOGY_H
#define JL_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define JL_SYSFS_CPU "/sys/devices/system/cpu"

/* CPU's SMT siblings, CPU included (thread_siblings_list under SYSFS_CPU, NULL = /sys/devices/system/cpu).
 * A CPU without the file is its own only sibling. 0, or -1 with errno (CPU out of range). */
int jl_topo_siblings(const char *sysfs_cpu, int cpu, cpu_set_t *siblings);

/* True when a CPU of A and a different CPU of B are SMT siblings (they share a physical core). WHICH
 * receives one such pair "a/b" for messages. */
bool jl_topo_smt_shared(const char *sysfs_cpu, const cpu_set_t *a, const cpu_set_t *b, char *which, size_t len);

/* Core type of CPU on hybrid parts ("performance" for /sys/devices/cpu_core, "efficiency" for
 * /sys/devices/cpu_atom), or NULL when the kernel exposes no hybrid types. DEVICES NULL = /sys/devices. */
const char *jl_topo_core_type(const char *devices, int cpu);

/* Number of NUMA nodes (libnuma; 1 when NUMA is not available) and the highest node number (0). */
int jl_topo_numa_nodes(void);
int jl_topo_numa_max_node(void);

/* The NUMA node ADDR's page is on (after touching it), or -1 with errno. */
int jl_topo_numa_node_of(const void *addr);

/* Prefer node NODE for the calling thread's future allocations and move BUF (LEN bytes, may be NULL)
 * there. 0 or -1 with errno (EINVAL: no such node, ENOSYS: no NUMA support). */
int jl_topo_numa_bind_memory(int node, void *buf, size_t len);

#endif
