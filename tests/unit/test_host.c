/* test_host: rt/base/host.c's parsers (steal time from /proc/stat text, kernel config symbols, the preemption
 * model from its evidence, debugfs sched/preempt and lockdown lines) and the shape of the host blocks (fair
 * server, RT bandwidth, steal/SMI over a phase, preempt_detail, boot_isolation). The parsers are pure; the
 * block tests read this machine and change nothing (jl_host_describe may mount debugfs, and securityfs, for a
 * moment, as root, and unmounts what it mounted). */
#include <errno.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "rt/base/host.h"

/* /proc/stat of a 2-CPU VM (Linux 6.18), with steal on CPU 1 only */
static const char proc_stat[] =
	"cpu  31606 0 4141 183623 418 0 186 36 0 0\n"
	"cpu0 13475 0 2127 94030 280 0 109 0 0 0\n"
	"cpu1 18130 0 2013 89593 137 0 76 36 0 0\n"
	"intr 4390391 0 9 0 0 0 0 0 0 0\n"
	"ctxt 10119313\n"
	"btime 1764576000\n";

static void test_steal_parse(void **state)
{
	uint64_t steal[8] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal(proc_stat, steal, 8, &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(steal[0], 0);
	assert_int_equal(steal[1], 36);
}

static void test_steal_parse_gaps_and_bounds(void **state)
{
	/* an offline CPU 1 has no line; CPU 9 is past MAX and is ignored; an old kernel without the steal
	 * column (7 values) is not a steal line */
	static const char text[] = "cpu  1 2 3 4 5 6 7 8\n"
				   "cpu0 1 2 3 4 5 6 7 5\n"
				   "cpu2 1 2 3 4 5 6 7 11 0 0\n"
				   "cpu3 1 2 3 4 5 6 7\n"
				   "cpu9 1 2 3 4 5 6 7 99\n";
	uint64_t steal[4] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal(text, steal, 4, &n), 0);
	assert_int_equal(n, 3);
	assert_int_equal(steal[0], 5);
	assert_int_equal(steal[1], 0);
	assert_int_equal(steal[2], 11);
	assert_int_equal(steal[3], 0);
}

static void test_steal_parse_nothing(void **state)
{
	uint64_t steal[4] = { 0 };
	int n = -1;

	(void)state;
	assert_int_equal(jl_host_parse_steal("", steal, 4, &n), -1);
	assert_int_equal(jl_host_parse_steal("cpu  1 2 3 4 5 6 7 8\nintr 1\n", steal, 4, &n), -1);
	assert_int_equal(n, 0);
}

static void test_kconfig(void **state)
{
	static const char cfg[] = "#\n# Automatically generated file; DO NOT EDIT.\n#\n"
				  "CONFIG_RT_GROUP_SCHED=y\n"
				  "# CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED is not set\n"
				  "CONFIG_HZ=250\n"
				  "CONFIG_MSR=m\n"
				  "CONFIG_FAIR_GROUP_SCHED_X=y\n";

	(void)state;
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_RT_GROUP_SCHED"), 1);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_RT_GROUP_SCHED_DEFAULT_DISABLED"), 0);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_MSR"), 1);
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_HZ"), 0); /* a value, not y/m */
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_FAIR_GROUP_SCHED"), -1); /* a prefix is not the symbol */
	assert_int_equal(jl_host_kconfig(cfg, "CONFIG_PREEMPT_RT"), -1);
	assert_int_equal(jl_host_kconfig("", "CONFIG_HZ"), -1);
}

static void test_fair_server_block(void **state)
{
	char text[200] = "";
	json_object *fs = jl_host_fair_server(false, text, sizeof(text)), *v;

	(void)state;
	assert_non_null(fs);
	assert_true(json_object_object_get_ex(fs, "readable", &v));
	if (json_object_get_boolean(v)) {
		assert_true(json_object_object_get_ex(fs, "cpus", &v));
		assert_true(json_object_object_length(v) > 0);
	} else {
		assert_true(json_object_object_get_ex(fs, "note", &v));
		assert_string_equal(json_object_get_string(v), text);
	}
	assert_true(text[0] != '\0');
	json_object_put(fs);
}

static void test_phase_block(void **state)
{
	struct jl_host_sample *s = calloc(2, sizeof(*s));
	json_object *host = json_object_new_object(), *st, *v;

	(void)state;
	assert_non_null(s);
	jl_host_sample_take(&s[0]);
	jl_host_sample_take(&s[1]);
	assert_true(s[0].steal_ok);
	jl_host_add_phase(host, &s[0], &s[1]);
	assert_true(json_object_object_get_ex(host, "steal_ns", &st));
	assert_true(json_object_is_type(st, json_type_object));
	assert_int_equal(json_object_object_length(st), s[0].ncpus);
	assert_true(json_object_object_get_ex(st, "0", &v));
	assert_true(json_object_get_int64(v) >= 0);
	assert_true(json_object_object_get_ex(host, "smi", &v));
	if (!v) /* null: then it says why */
		assert_true(json_object_object_get_ex(host, "smi_note", &v) && json_object_get_string_len(v) > 0);
	/* a sample that could not be read: steal is null */
	s[1].steal_ok = false;
	json_object_put(host);
	host = json_object_new_object();
	jl_host_add_phase(host, &s[0], &s[1]);
	assert_true(json_object_object_get_ex(host, "steal_ns", &v));
	assert_null(v);
	json_object_put(host);
	free(s);
}

static void test_describe_has_rt_knobs(void **state)
{
	json_object *h = jl_host_describe(), *rb, *v;

	(void)state;
	assert_true(json_object_object_get_ex(h, "rt_bandwidth", &rb));
	assert_true(json_object_object_get_ex(rb, "runtime_us", &v));
	assert_true(json_object_object_get_ex(rb, "period_us", &v));
	assert_true(json_object_get_int64(v) > 0);
	assert_true(json_object_object_get_ex(rb, "group_sched", &v));
	assert_true(json_object_object_get_ex(h, "fair_server", &v));
	assert_true(json_object_object_get_ex(h, "preempt", &v) && json_object_is_type(v, json_type_string));
	assert_true(json_object_object_get_ex(h, "preempt_detail", &v) && json_object_is_type(v, json_type_object));
	assert_true(json_object_object_get_ex(h, "boot_isolation", &v) && json_object_is_type(v, json_type_object));
	assert_true(json_object_object_get_ex(v, "isolated", &v));
	json_object_put(h);
}

/* ---- the preemption model ---- */

/* The dev VM's kernel config, PREEMPT part (recorded: zcat /proc/config.gz on Linux 6.18.44) */
static const char vm_config[] = "CONFIG_PREEMPT_BUILD=y\n"
				"CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n"
				"CONFIG_PREEMPT_NONE=y\n"
				"# CONFIG_PREEMPT_VOLUNTARY is not set\n"
				"# CONFIG_PREEMPT is not set\n"
				"# CONFIG_PREEMPT_LAZY is not set\n"
				"CONFIG_PREEMPT_COUNT=y\n"
				"CONFIG_PREEMPTION=y\n"
				"CONFIG_PREEMPT_DYNAMIC=y\n"
				"CONFIG_PREEMPT_RCU=y\n"
				"CONFIG_SECURITY_LOCKDOWN_LSM=y\n"
				"CONFIG_SECURITY_LOCKDOWN_LSM_EARLY=y\n"
				"# CONFIG_LOCK_DOWN_KERNEL_FORCE_NONE is not set\n"
				"CONFIG_LOCK_DOWN_KERNEL_FORCE_INTEGRITY=y\n"
				"# CONFIG_LOCK_DOWN_KERNEL_FORCE_CONFIDENTIALITY is not set\n";
/* recorded there: uname -v and /proc/cmdline (shortened) */
static const char vm_uname[] = "#1 SMP PREEMPT_DYNAMIC @0";
static const char vm_cmdline[] = "mitigations=auto console=ttyS0 quiet reboot=k panic=1 nomodule rdinit=/process_api "
				 "-- --firecracker-init --addr 0.0.0.0:2024";

/* a 6.12+ PREEMPT_RT kernel built lazy (hand-made from the 6.12 Kconfig: PREEMPT_RT beside the choice) */
static const char rt_lazy_config[] = "CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n"
				     "# CONFIG_PREEMPT is not set\n"
				     "CONFIG_PREEMPT_LAZY=y\n"
				     "CONFIG_PREEMPT_RT=y\n"
				     "CONFIG_PREEMPT_COUNT=y\n"
				     "CONFIG_PREEMPTION=y\n"
				     "# CONFIG_PREEMPT_DYNAMIC is not set\n";

static struct jl_preempt resolve(const char *uname_v, const char *config, const char *cmdline, const char *debugfs,
				 int realtime)
{
	struct jl_preempt_input in = { uname_v, config, cmdline, debugfs, realtime };
	struct jl_preempt p;

	jl_host_preempt_resolve(&in, &p);
	return p;
}

static void test_preempt_dynamic_default(void **state)
{
	struct jl_preempt p = resolve(vm_uname, vm_config, vm_cmdline, NULL, -1);

	(void)state;
	assert_string_equal(p.model, "dynamic(none)"); /* the VM: PREEMPT_NONE boot default, no preempt= */
	assert_true(p.dynamic);
	assert_false(p.rt);
	assert_string_equal(p.mode, "none");
	assert_string_equal(p.choice, "none");
	assert_non_null(strstr(p.from, "config default"));
	assert_int_equal(p.lazy_arch, 1);
	assert_false(p.cmdline_given);
	/* preempt= on the command line overrides the default; an unknown value does not */
	p = resolve(vm_uname, vm_config, "quiet preempt=full", NULL, -1);
	assert_string_equal(p.model, "dynamic(full)");
	assert_string_equal(p.from, "cmdline preempt=");
	p = resolve(vm_uname, vm_config, "preempt=lazy", NULL, -1);
	assert_string_equal(p.model, "dynamic(lazy)");
	p = resolve(vm_uname, vm_config, "preempt=fast", NULL, -1);
	assert_string_equal(p.model, "dynamic(none)");
	assert_non_null(strstr(p.note, "preempt=fast"));
	/* preempt= after "--" is init's */
	p = resolve(vm_uname, vm_config, "quiet -- preempt=full", NULL, -1);
	assert_string_equal(p.model, "dynamic(none)");
	/* without ARCH_HAS_PREEMPT_LAZY, preempt=lazy is refused */
	p = resolve(vm_uname, "CONFIG_PREEMPT_DYNAMIC=y\nCONFIG_PREEMPT_VOLUNTARY=y\n", "preempt=lazy", NULL, -1);
	assert_string_equal(p.model, "dynamic(voluntary)");
}

static void test_preempt_debugfs_wins(void **state)
{
	struct jl_preempt p;
	char m[16];

	(void)state;
	assert_int_equal(jl_host_preempt_debugfs_mode("none (voluntary) full lazy ", m, sizeof(m)), 0);
	assert_string_equal(m, "voluntary");
	assert_int_equal(jl_host_preempt_debugfs_mode("(full) lazy", m, sizeof(m)), 0);
	assert_string_equal(m, "full");
	assert_int_equal(jl_host_preempt_debugfs_mode("none voluntary full", m, sizeof(m)), -1);
	assert_int_equal(jl_host_preempt_debugfs_mode("()", m, sizeof(m)), -1);
	assert_int_equal(jl_host_preempt_debugfs_mode(NULL, m, sizeof(m)), -1);
	/* the live mode beats the command line and the config (it can be changed at run time) */
	p = resolve(vm_uname, vm_config, "preempt=full", "none (voluntary) full lazy \n", -1);
	assert_string_equal(p.model, "dynamic(voluntary)");
	assert_string_equal(p.from, "debugfs sched/preempt");
	/* no config at all: debugfs alone says dynamic and the mode */
	p = resolve(vm_uname, NULL, NULL, "none voluntary full (lazy) ", -1);
	assert_string_equal(p.model, "dynamic(lazy)");
	/* an RT kernel's debugfs lists only full and lazy */
	p = resolve("#1 SMP PREEMPT_RT", NULL, NULL, "(full) lazy ", -1);
	assert_string_equal(p.model, "rt+full");
}

static void test_preempt_rt(void **state)
{
	struct jl_preempt p;

	(void)state;
	p = resolve("#1 SMP PREEMPT_RT Fri Jan 9", rt_lazy_config, "quiet", NULL, 1);
	assert_string_equal(p.model, "rt+lazy");
	assert_true(p.rt);
	assert_false(p.dynamic);
	assert_string_equal(p.mode, "lazy");
	/* RT + dynamic: none/voluntary on the command line are refused, full/lazy taken */
	p = resolve("#1 SMP PREEMPT_RT", "CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_DYNAMIC=y\n"
					 "CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n",
		    "preempt=none", NULL, -1);
	assert_string_equal(p.model, "rt+full");
	assert_non_null(strstr(p.note, "preempt=none"));
	p = resolve("#1 SMP PREEMPT_RT", "CONFIG_PREEMPT_RT=y\nCONFIG_PREEMPT=y\nCONFIG_PREEMPT_DYNAMIC=y\n"
					 "CONFIG_ARCH_HAS_PREEMPT_LAZY=y\n",
		    "preempt=lazy", NULL, -1);
	assert_string_equal(p.model, "rt+lazy");
	/* a pre-6.12 RT kernel: PREEMPT_RT was the choice itself, no mode beside it */
	p = resolve("#1 SMP PREEMPT_RT", "CONFIG_PREEMPT_RT=y\n# CONFIG_PREEMPT is not set\n", NULL, NULL, 1);
	assert_string_equal(p.model, "rt");
	/* /sys/kernel/realtime alone, or uname alone */
	p = resolve("#1 SMP", NULL, NULL, NULL, 1);
	assert_string_equal(p.model, "rt");
	p = resolve("#1 SMP PREEMPT_RT", NULL, NULL, NULL, -1);
	assert_string_equal(p.model, "rt");
}

static void test_preempt_static_and_uname_only(void **state)
{
	struct jl_preempt p;

	(void)state;
	p = resolve("#1 SMP PREEMPT", "CONFIG_PREEMPT=y\n# CONFIG_PREEMPT_DYNAMIC is not set\n", "preempt=none", NULL, -1);
	assert_string_equal(p.model, "full");
	assert_non_null(strstr(p.note, "not a PREEMPT_DYNAMIC kernel"));
	p = resolve("#1 SMP", "CONFIG_PREEMPT_VOLUNTARY=y\n", NULL, NULL, -1);
	assert_string_equal(p.model, "voluntary");
	p = resolve("#1 SMP", "CONFIG_PREEMPT_LAZY=y\n", NULL, NULL, -1);
	assert_string_equal(p.model, "lazy");
	/* no config, no debugfs: what uname -v and the command line say */
	p = resolve(vm_uname, NULL, vm_cmdline, NULL, -1);
	assert_string_equal(p.model, "dynamic(unknown)");
	p = resolve(vm_uname, NULL, "preempt=full", NULL, -1);
	assert_string_equal(p.model, "dynamic(full)");
	p = resolve("#1 SMP PREEMPT Tue", NULL, NULL, NULL, -1);
	assert_string_equal(p.model, "full");
	p = resolve("#1 SMP Tue", NULL, NULL, NULL, -1);
	assert_string_equal(p.model, "voluntary|none");
}

static void test_lockdown(void **state)
{
	char m[24], why[240];

	(void)state;
	assert_int_equal(jl_host_lockdown_parse("[none] integrity confidentiality\n", m, sizeof(m)), 0);
	assert_string_equal(m, "none");
	assert_int_equal(jl_host_lockdown_parse("none [integrity] confidentiality", m, sizeof(m)), 0); /* the VM */
	assert_string_equal(m, "integrity");
	assert_int_equal(jl_host_lockdown_parse("none integrity [confidentiality]", m, sizeof(m)), 0);
	assert_string_equal(m, "confidentiality");
	assert_int_equal(jl_host_lockdown_parse("none integrity confidentiality", m, sizeof(m)), -1);
	assert_int_equal(jl_host_lockdown_parse("", m, sizeof(m)), -1);
	assert_int_equal(jl_host_lockdown_parse(NULL, m, sizeof(m)), -1);
	/* the boot mode: the config's forced mode, raised (never lowered) by lockdown= */
	assert_string_equal(jl_host_lockdown_boot(vm_config, vm_cmdline), "integrity");
	assert_string_equal(jl_host_lockdown_boot(vm_config, "lockdown=confidentiality"), "confidentiality");
	assert_string_equal(jl_host_lockdown_boot(vm_config, "lockdown=none"), "integrity");
	assert_string_equal(jl_host_lockdown_boot("# CONFIG_SECURITY_LOCKDOWN_LSM is not set\n", "lockdown=integrity"), "none");
	assert_string_equal(jl_host_lockdown_boot(NULL, "lockdown=integrity"), "integrity");
	assert_null(jl_host_lockdown_boot(NULL, "quiet"));
	/* why debugfs said EPERM */
	jl_host_debugfs_why(EPERM, "integrity", "/sys/kernel/security/lockdown", why, sizeof(why));
	assert_non_null(strstr(why, "kernel lockdown (integrity"));
	jl_host_debugfs_why(EPERM, "none", "/sys/kernel/security/lockdown", why, sizeof(why));
	assert_non_null(strstr(why, "not from kernel lockdown"));
	jl_host_debugfs_why(EPERM, "", "securityfs not mounted, no kernel config", why, sizeof(why));
	assert_non_null(strstr(why, "could not be checked"));
	jl_host_debugfs_why(ENOENT, "", "", why, sizeof(why));
	assert_string_equal(why, strerror(ENOENT));
}

/* This machine, through the I/O wrapper: a model in the contract's form, the same in the detail block, and
 * the reader without mounting (the doctor's) agrees with the one that mounts. */
static void test_preempt_read_here(void **state)
{
	struct jl_preempt a, b;
	json_object *d, *v;

	(void)state;
	jl_host_preempt_read(&a, false);
	jl_host_preempt_read(&b, true);
	assert_true(!strncmp(a.model, "rt", 2) || !strncmp(a.model, "dynamic(", 8) || !strcmp(a.model, "full") ||
		    !strcmp(a.model, "voluntary") || !strcmp(a.model, "none") || !strcmp(a.model, "lazy") ||
		    !strcmp(a.model, "voluntary|none"));
	if (!b.debugfs[0]) /* debugfs unread both ways: the same answer */
		assert_string_equal(a.model, b.model);
	d = jl_host_preempt_json(&b);
	assert_true(json_object_object_get_ex(d, "model", &v));
	assert_string_equal(json_object_get_string(v), b.model);
	assert_true(json_object_object_get_ex(d, "debugfs", &v));
	assert_true(json_object_object_get_ex(v, "value", NULL));
	json_object_put(d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_steal_parse),
		cmocka_unit_test(test_steal_parse_gaps_and_bounds),
		cmocka_unit_test(test_steal_parse_nothing),
		cmocka_unit_test(test_kconfig),
		cmocka_unit_test(test_fair_server_block),
		cmocka_unit_test(test_phase_block),
		cmocka_unit_test(test_describe_has_rt_knobs),
		cmocka_unit_test(test_preempt_dynamic_default),
		cmocka_unit_test(test_preempt_debugfs_wins),
		cmocka_unit_test(test_preempt_rt),
		cmocka_unit_test(test_preempt_static_and_uname_only),
		cmocka_unit_test(test_lockdown),
		cmocka_unit_test(test_preempt_read_here),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
