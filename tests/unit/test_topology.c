/* test_topology: affinity/topology.c on fake sysfs roots — the cpu-list names pcores, ecores and smt:N
 * alone and combined with numbers, their errors (unknown name, offline or missing CPU, hybrid names on a
 * machine that is not hybrid), core types, and $JITTERLAB_SYSFS_ROOT standing for /sys. The fake i9
 * root is an i9-14900K as Linux shows it: P-cores 0-15 (SMT pairs 0-1 ... 14-15), E-cores 16-31.
 * Every expected set is worked out by hand from that layout. Touches no machine state. */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "affinity/cpulist.h"
#include "affinity/topology.h"

struct fixture {
	char i9[128];    /* hybrid: the i9-14900K */
	char plain[128]; /* not hybrid: 4 CPUs, SMT pairs 0-2 and 1-3, CPU 3 offline */
};

static void put(const char *dir, const char *name, const char *text)
{
	char path[512];
	FILE *f;

	snprintf(path, sizeof(path), "%s/%s", dir, name);
	f = fopen(path, "w");
	assert_non_null(f);
	fputs(text, f);
	fputc('\n', f);
	fclose(f);
}

static void mkdirs(const char *path)
{
	char p[512];

	snprintf(p, sizeof(p), "%s", path);
	for (char *s = strchr(p + 1, '/'); s; s = strchr(s + 1, '/')) {
		*s = '\0';
		mkdir(p, 0755);
		*s = '/';
	}
	mkdir(p, 0755);
}

/* ROOT/devices/system/cpu/cpuN/topology/thread_siblings_list = SIB */
static void put_cpu(const char *root, int cpu, const char *sib)
{
	char d[512];

	snprintf(d, sizeof(d), "%s/devices/system/cpu/cpu%d/topology", root, cpu);
	mkdirs(d);
	put(d, "thread_siblings_list", sib);
}

static int setup(void **state)
{
	struct fixture *f = calloc(1, sizeof(*f));
	char d[512], sib[32];

	if (!f)
		return -1;
	snprintf(f->i9, sizeof(f->i9), "/tmp/jl-topo-i9-XXXXXX");
	snprintf(f->plain, sizeof(f->plain), "/tmp/jl-topo-plain-XXXXXX");
	if (!mkdtemp(f->i9) || !mkdtemp(f->plain))
		return -1;
	for (int c = 0; c < 32; c++) {
		if (c < 16)
			snprintf(sib, sizeof(sib), "%d-%d", c & ~1, c | 1);
		else
			snprintf(sib, sizeof(sib), "%d", c);
		put_cpu(f->i9, c, sib);
	}
	snprintf(d, sizeof(d), "%s/devices/system/cpu", f->i9);
	put(d, "online", "0-31");
	snprintf(d, sizeof(d), "%s/devices/cpu_core", f->i9);
	mkdirs(d);
	put(d, "cpus", "0-15");
	snprintf(d, sizeof(d), "%s/devices/cpu_atom", f->i9);
	mkdirs(d);
	put(d, "cpus", "16-31");

	put_cpu(f->plain, 0, "0,2");
	put_cpu(f->plain, 1, "1"); /* its sibling 3 is offline: the kernel lists the online ones */
	put_cpu(f->plain, 2, "0,2");
	snprintf(d, sizeof(d), "%s/devices/system/cpu/cpu3", f->plain); /* offline: no topology */
	mkdirs(d);
	snprintf(d, sizeof(d), "%s/devices/system/cpu", f->plain);
	put(d, "online", "0-2");
	*state = f;
	return 0;
}

static int teardown(void **state)
{
	struct fixture *f = *state;
	char cmd[300];

	snprintf(cmd, sizeof(cmd), "rm -rf '%s' '%s'", f->i9, f->plain);
	assert_int_equal(system(cmd), 0);
	free(f);
	unsetenv("JITTERLAB_SYSFS_ROOT");
	return 0;
}

/* TEXT under ROOT must give WANT (formatted) with NAMED as said. */
static void good(const char *root, const char *text, const char *want, bool want_named)
{
	char err[256] = "", out[256];
	cpu_set_t set;
	bool named = !want_named;

	if (jl_topo_cpulist_parse(root, text, &set, &named, err, sizeof(err))) {
		print_error("'%s' under %s failed: %s\n", text, root, err);
		fail();
	}
	jl_cpulist_format(&set, out, sizeof(out));
	if (strcmp(out, want)) {
		print_error("'%s' gave %s, expected %s\n", text, out, want);
		fail();
	}
	assert_int_equal(named, want_named);
}

/* TEXT under ROOT must fail with NEEDLE in the reason (ROOT in NEEDLE written as %s). */
static void bad(const char *root, const char *text, const char *needle)
{
	char err[512] = "", want[512];
	cpu_set_t set;
	bool named = true;

	snprintf(want, sizeof(want), needle, root);
	errno = 0;
	if (!jl_topo_cpulist_parse(root, text, &set, &named, err, sizeof(err))) {
		print_error("'%s' was accepted\n", text);
		fail();
	}
	assert_int_equal(errno, EINVAL);
	assert_false(named);
	if (!strstr(err, want)) {
		print_error("error for '%s' is \"%s\", expected \"%s\" in it\n", text, err, want);
		fail();
	}
}

static void test_names_alone(void **state)
{
	struct fixture *f = *state;

	good(f->i9, "pcores", "0-15", true);
	good(f->i9, "ecores", "16-31", true);
	good(f->i9, "smt:2", "2-3", true);
	good(f->i9, "smt:3", "2-3", true); /* either thread names the core */
	good(f->i9, "smt:15", "14-15", true);
	good(f->i9, "smt:20", "20", true); /* an E-core has no sibling */
	good(f->i9, " smt:0 ", "0-1", true);
	/* numbers only: the plain parser, nothing read */
	good(f->i9, "0-3,8", "0-3,8", false);
	good("/nonexistent", "1", "1", false);
}

static void test_names_combined(void **state)
{
	struct fixture *f = *state;

	good(f->i9, "pcores,20-23", "0-15,20-23", true);
	good(f->i9, "ecores,0", "0,16-31", true);
	good(f->i9, "smt:2, smt:5, 30", "2-5,30", true);
	good(f->i9, "pcores,ecores", "0-31", true);
	good(f->i9, "smt:6,6-7", "6-7", true); /* overlaps count once */
	good(f->i9, "16,smt:16,17", "16-17", true);
}

static void test_names_bad(void **state)
{
	struct fixture *f = *state;

	bad(f->i9, "foo", "'foo' is not a cpu list (expected e.g. 1, 0-3, 0,2,4-7, pcores, ecores, smt:1");
	bad(f->i9, "pcores,foo", "'pcores,foo' is not a cpu list: 'foo' is neither a CPU, a range nor a name");
	bad(f->i9, "Pcores", "'Pcores' is not a cpu list");
	bad(f->i9, "pcore", "'pcore' is not a cpu list");
	bad(f->i9, "smt", "'smt' is not smt:N (N: a CPU number, e.g. smt:2)");
	bad(f->i9, "smt:", "'smt:' is not smt:N");
	bad(f->i9, "smt:x", "'smt:x' is not smt:N");
	bad(f->i9, "smt:1-3", "'smt:1-3' is not smt:N");
	bad(f->i9, "smt:-1", "'smt:-1' is not smt:N");
	bad(f->i9, "smt:99999", "'smt:99999': CPU 99999 is out of range (0-1023)");
	bad(f->i9, "smt:40", "'smt:40': CPU 40 does not exist (online: 0-31)");
	bad(f->i9, "pcores:1", "'pcores:1': pcores takes no argument");
	bad(f->i9, "pcores,,1", "empty item in cpu list 'pcores,,1'");
	bad(f->i9, "pcores,", "empty item in cpu list 'pcores,'");
	bad(f->i9, "pcores,3-1", "descending range 3-1");
	bad(f->i9, "pcores,1x", "unexpected 'x' in cpu list '1x'");
}

/* Not hybrid: pcores/ecores say why; smt:N works, online siblings only, and refuses an offline CPU. */
static void test_not_hybrid(void **state)
{
	struct fixture *f = *state;
	const char *types[4];
	cpu_set_t set;

	bad(f->plain, "pcores", "'pcores': this machine has no hybrid cores: %s/devices/cpu_core/cpus is missing");
	bad(f->plain, "ecores,0", "'ecores': this machine has no hybrid cores: %s/devices/cpu_atom/cpus is missing");
	good(f->plain, "smt:0", "0,2", true);
	good(f->plain, "smt:2", "0,2", true);
	good(f->plain, "smt:1", "1", true);
	good(f->plain, "smt:1,2", "1-2", true);
	bad(f->plain, "smt:3", "'smt:3': CPU 3 is offline (online: 0-2)");
	bad(f->plain, "smt:4", "'smt:4': CPU 4 does not exist (online: 0-2)");
	bad(f->plain, "1,smt:3", "CPU 3 is offline");
	assert_false(jl_topo_hybrid(f->plain));
	CPU_ZERO(&set);
	CPU_SET(0, &set);
	assert_int_equal(jl_topo_core_types(f->plain, &set, types, 4), -1);
	assert_null(jl_topo_core_type(f->plain, 0));
}

/* An offline sibling or core is left out; a core type with no online CPU is an error. */
static void test_offline_cpus(void **state)
{
	struct fixture *f = *state;
	char d[512];

	snprintf(d, sizeof(d), "%s/devices/system/cpu", f->i9);
	put(d, "online", "0-2,4-29");
	good(f->i9, "smt:2", "2", true);   /* 3 is offline */
	good(f->i9, "pcores", "0-2,4-15", true);
	good(f->i9, "ecores", "16-29", true);
	bad(f->i9, "smt:3", "'smt:3': CPU 3 is offline (online: 0-2,4-29)");
	bad(f->i9, "smt:31", "CPU 31 is offline");
	put(d, "online", "0-15");
	bad(f->i9, "ecores", "'ecores': no efficiency core is online (%s/devices/cpu_atom/cpus: '16-31')");
	bad(f->i9, "pcores,ecores", "no efficiency core is online");
	put(d, "online", "0-31");
}

static void test_core_types(void **state)
{
	struct fixture *f = *state;
	char devices[256];
	const char *types[4];
	cpu_set_t set;

	snprintf(devices, sizeof(devices), "%s/devices", f->i9);
	assert_true(jl_topo_hybrid(devices));
	assert_string_equal(jl_topo_core_type(devices, 0), "performance");
	assert_string_equal(jl_topo_core_type(devices, 15), "performance");
	assert_string_equal(jl_topo_core_type(devices, 16), "efficiency");
	assert_null(jl_topo_core_type(devices, 32));
	CPU_ZERO(&set);
	CPU_SET(1, &set);
	assert_int_equal(jl_topo_core_types(devices, &set, types, 4), 1);
	assert_string_equal(types[0], "performance");
	CPU_SET(17, &set);
	assert_int_equal(jl_topo_core_types(devices, &set, types, 4), 2);
	assert_string_equal(types[0], "performance");
	assert_string_equal(types[1], "efficiency");
	CPU_SET(40, &set); /* in neither list */
	assert_int_equal(jl_topo_core_types(devices, &set, types, 4), 3);
	assert_string_equal(types[2], "unknown");
	CPU_ZERO(&set);
	CPU_SET(20, &set);
	assert_int_equal(jl_topo_core_types(devices, &set, types, 4), 1);
	assert_string_equal(types[0], "efficiency");
	CPU_ZERO(&set); /* ran nowhere */
	assert_int_equal(jl_topo_core_types(devices, &set, types, 4), 0);
}

/* NULL paths stand under $JITTERLAB_SYSFS_ROOT, read at each call. */
static void test_env_root(void **state)
{
	struct fixture *f = *state;
	char err[256];
	cpu_set_t set;

	setenv("JITTERLAB_SYSFS_ROOT", f->i9, 1);
	assert_string_equal(jl_topo_sysfs_root(), f->i9);
	assert_int_equal(jl_topo_cpulist_parse(NULL, "ecores,smt:4", &set, NULL, err, sizeof(err)), 0);
	assert_int_equal(CPU_COUNT(&set), 18);
	assert_true(CPU_ISSET(5, &set) && CPU_ISSET(31, &set));
	assert_true(jl_topo_hybrid(NULL));
	assert_string_equal(jl_topo_core_type(NULL, 31), "efficiency");
	assert_int_equal(jl_topo_siblings(NULL, 8, &set), 0);
	assert_int_equal(CPU_COUNT(&set), 2);
	assert_true(CPU_ISSET(9, &set));
	setenv("JITTERLAB_SYSFS_ROOT", f->plain, 1);
	assert_false(jl_topo_hybrid(NULL));
	assert_int_equal(jl_topo_cpulist_parse(NULL, "pcores", &set, NULL, err, sizeof(err)), -1);
	assert_non_null(strstr(err, "this machine has no hybrid cores"));
	unsetenv("JITTERLAB_SYSFS_ROOT");
	assert_string_equal(jl_topo_sysfs_root(), "/sys");
	setenv("JITTERLAB_SYSFS_ROOT", "", 1); /* empty = unset */
	assert_string_equal(jl_topo_sysfs_root(), "/sys");
	unsetenv("JITTERLAB_SYSFS_ROOT");
}

/* The registry lists every name the parser takes. */
static void test_registry(void **state)
{
	char err[256];
	cpu_set_t set;
	bool seen_smt = false;

	(void)state;
	for (int i = 0; i < jl_ncpu_names; i++) {
		if (jl_cpu_names[i].core_type >= 0) {
			assert_true(jl_cpu_names[i].core_type < jl_ncore_types);
			assert_string_equal(jl_cpu_names[i].arg, "");
		} else {
			seen_smt = true;
			assert_string_equal(jl_cpu_names[i].name, "smt");
		}
		/* "/nonexistent" as root: the names are recognised (the error is not "not a cpu list") */
		assert_int_equal(jl_topo_cpulist_parse("/nonexistent", jl_cpu_names[i].name, &set, NULL, err, sizeof(err)), -1);
		assert_null(strstr(err, "is not a cpu list"));
	}
	assert_true(seen_smt);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_names_alone),
		cmocka_unit_test(test_names_combined),
		cmocka_unit_test(test_names_bad),
		cmocka_unit_test(test_not_hybrid),
		cmocka_unit_test(test_offline_cpus),
		cmocka_unit_test(test_core_types),
		cmocka_unit_test(test_env_root),
		cmocka_unit_test(test_registry),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
