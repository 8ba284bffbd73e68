/* topology: the CPU model beyond cpu lists: SMT siblings, hybrid core types, the cpu-list names built
 * on them (pcores, ecores, smt:N), NUMA nodes (libnuma). Read-only: never changes any machine setting.
 * The sysfs root is injectable for tests: a path parameter, or $JITTERLAB_SYSFS_ROOT for NULL. */
#ifndef JL_TOPOLOGY_H
#define JL_TOPOLOGY_H

#include <sched.h>
#include <stdbool.h>
#include <stddef.h>

#define JL_SYSFS_CPU "/sys/devices/system/cpu"

/* The root every NULL path below stands under: $JITTERLAB_SYSFS_ROOT (tests: a fake tree) or "/sys".
 * Read at each call. */
const char *jl_topo_sysfs_root(void);

/* The hybrid core types, one registry: DIR under ROOT/devices (its `cpus` file lists them), TYPE as
 * summary.json and the doctor say it. */
struct jl_core_type {
	const char *dir;  /* "cpu_core" */
	const char *type; /* "performance" */
};
extern const struct jl_core_type jl_core_types[];
extern const int jl_ncore_types;

/* The names a cpu list may use besides numbers and ranges (the parser's registry; `jitterlab list`). */
struct jl_cpu_name {
	const char *name; /* "pcores" */
	const char *arg;  /* ":N", or "" */
	int core_type;    /* the jl_core_types index it names, or -1 (smt:N) */
	const char *help;
};
extern const struct jl_cpu_name jl_cpu_names[];
extern const int jl_ncpu_names;

/* CPU's SMT siblings, CPU included (thread_siblings_list under SYSFS_CPU, NULL = ROOT/devices/system/cpu).
 * A CPU without the file is its own only sibling. 0, or -1 with errno (CPU out of range). */
int jl_topo_siblings(const char *sysfs_cpu, int cpu, cpu_set_t *siblings);

/* True when a CPU of A and a different CPU of B are SMT siblings (they share a physical core). WHICH
 * receives one such pair "a/b" for messages. */
bool jl_topo_smt_shared(const char *sysfs_cpu, const cpu_set_t *a, const cpu_set_t *b, char *which, size_t len);

/* Core type of CPU on hybrid parts ("performance" for /sys/devices/cpu_core, "efficiency" for
 * /sys/devices/cpu_atom), or NULL when the kernel exposes no hybrid types. DEVICES NULL = ROOT/devices. */
const char *jl_topo_core_type(const char *devices, int cpu);

/* The CPUs of core type TYPE (an index of jl_core_types) from DEVICES/DIR/cpus into SET; PATH (LEN
 * bytes, may be NULL) receives the file read. 0, or -1 with errno (ENOENT: not a hybrid machine). */
int jl_topo_core_cpus(const char *devices, int type, cpu_set_t *set, char *path, size_t len);

/* True when the kernel exposes hybrid core types (DEVICES/cpu_core/cpus can be read). */
bool jl_topo_hybrid(const char *devices);

/* The core types CPUS lie on, in jl_core_types order ("unknown" last for a CPU of no type), into
 * TYPES (MAX entries). The count, or -1 on a machine that is not hybrid. */
int jl_topo_core_types(const char *devices, const cpu_set_t *cpus, const char **types, int max);

/* Parse a cpu list as a user writes it: numbers and ranges as jl_cpulist_parse(), and the names
 * `pcores`, `ecores` (Intel hybrid) and `smt:N` (CPU N and its online SMT siblings), joined by commas
 * ("pcores,20-23"), read under ROOT (the /sys of a tree; NULL = jl_topo_sysfs_root()). The names give
 * online CPUs only. NAMED (may be NULL) tells whether a name was used. 0, or -1 with errno = EINVAL and
 * a reason in ERR naming the item and why ("'pcores': this machine has no hybrid cores: ..."). */
int jl_topo_cpulist_parse(const char *root, const char *text, cpu_set_t *set, bool *named, char *err,
			  size_t errlen);

/* Number of NUMA nodes (libnuma; 1 when NUMA is not available) and the highest node number (0). */
int jl_topo_numa_nodes(void);
int jl_topo_numa_max_node(void);

/* The NUMA node ADDR's page is on (after touching it), or -1 with errno. */
int jl_topo_numa_node_of(const void *addr);

/* Prefer node NODE for the calling thread's future allocations and move BUF (LEN bytes, may be NULL)
 * there. 0 or -1 with errno (EINVAL: no such node, ENOSYS: no NUMA support). */
int jl_topo_numa_bind_memory(int node, void *buf, size_t len);

#endif
