/* test_boot_isolation: affinity/boot_isolation.c's parser of boot-time isolation (hand-made command lines
 * with the sysfs text a kernel would show for them) and affinity/cmdline.c's command-line reader (the
 * kernel's quoting, "--", last-wins rules). All pure: nothing on this machine is read. */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <cmocka.h>

#include "affinity/boot_isolation.h"
#include "affinity/cmdline.h"
#include "affinity/cpulist.h"

static cpu_set_t cpus(const char *list)
{
	cpu_set_t s;
	char err[128];

	if (!*list)
		CPU_ZERO(&s);
	else
		assert_int_equal(jl_cpulist_parse(list, &s, err, sizeof(err)), 0);
	return s;
}

static const char *fmt(const cpu_set_t *s)
{
	static char buf[4][128];
	static int i;

	i = (i + 1) % 4;
	return jl_cpulist_format(s, buf[i], sizeof(buf[i]));
}

static const char *flags(const struct jl_boot_isolation *b, int cpu)
{
	static char buf[160];

	return jl_boot_isolation_flags_text(jl_boot_isolation_cpu(b, cpu), buf, sizeof(buf));
}

/* ---- cmdline ---- */

static void test_cmdline_rules(void **state)
{
	/* a firecracker VM's line (recorded here) with init's part after "--" */
	const char *line = "console=ttyS0 quiet reboot=k panic=1 nomodule psi=1 rdinit=/process_api -- --firecracker-init "
			   "--addr 0.0.0.0:2024 isolcpus=1";
	char v[64];

	(void)state;
	assert_true(jl_cmdline_arg(line, "panic", v, sizeof(v)));
	assert_string_equal(v, "1");
	assert_true(jl_cmdline_arg(line, "quiet", v, sizeof(v)));
	assert_string_equal(v, "");
	assert_false(jl_cmdline_arg(line, "isolcpus", v, sizeof(v))); /* init's, not the kernel's */
	assert_false(jl_cmdline_arg(line, "console=ttyS0", NULL, 0));
	assert_false(jl_cmdline_arg(line, "consol", NULL, 0));
	assert_false(jl_cmdline_arg(NULL, "panic", v, sizeof(v)));
	/* last wins, quotes group, '-' and '_' are one */
	assert_true(jl_cmdline_arg("preempt=none foo=\"a b\" preempt=full", "preempt", v, sizeof(v)));
	assert_string_equal(v, "full");
	assert_true(jl_cmdline_arg("preempt=none foo=\"a b\" preempt=full", "foo", v, sizeof(v)));
	assert_string_equal(v, "a b");
	assert_true(jl_cmdline_arg("\"dyndbg=file x +p\" rcu-nocbs=1", "rcu_nocbs", v, sizeof(v)));
	assert_string_equal(v, "1");
	assert_true(jl_cmdline_arg("\"dyndbg=file x +p\" rcu-nocbs=1", "dyndbg", v, sizeof(v)));
	assert_string_equal(v, "file x +p");
	assert_true(jl_cmdline_arg("  nohz_full=2-3\n", "nohz_full", v, sizeof(v)));
	assert_string_equal(v, "2-3");
}

/* ---- boot isolation ---- */

/* The full recipe on a 4-CPU box: everything on 2-3, IRQs on 0-1 (sysfs as the kernel shows it). */
static void test_full_recipe(void **state)
{
	struct jl_boot_isolation b;
	cpu_set_t want = cpus("2-3"), missing;
	char text[256];
	json_object *j, *v;

	(void)state;
	jl_boot_isolation_parse("BOOT_IMAGE=/vmlinuz ro isolcpus=managed_irq,domain,2-3 nohz_full=2-3 rcu_nocbs=2-3 "
				"irqaffinity=0-1 quiet",
				"2-3\n", "2-3\n", 4, &b);
	assert_int_equal(b.nproblems, 0);
	for (int p = 0; p < JL_BOOT_NPARAMS; p++)
		assert_true(b.given[p]);
	assert_true(b.domain && b.managed_irq && !b.nohz);
	assert_string_equal(fmt(&b.cpus[JL_BOOT_ISOLCPUS]), "2-3");
	assert_string_equal(fmt(&b.isolated), "2-3");
	assert_string_equal(fmt(&b.nohz_full), "2-3");
	assert_string_equal(fmt(&b.cpus[JL_BOOT_IRQAFFINITY]), "0-1");
	assert_string_equal(flags(&b, 2), "isolcpus managed_irq nohz_full rcu_nocbs irqaffinity");
	assert_string_equal(flags(&b, 3), "isolcpus managed_irq nohz_full rcu_nocbs irqaffinity");
	assert_string_equal(flags(&b, 0), "none");
	assert_string_equal(flags(&b, 1), "none");
	/* the shield: 2-3 adopted; 1-2 is not (1 is missing); nothing is never covered */
	assert_true(jl_boot_isolation_covers(&b, &want, &missing));
	assert_int_equal(CPU_COUNT(&missing), 0);
	want = cpus("1-2");
	assert_false(jl_boot_isolation_covers(&b, &want, &missing));
	assert_string_equal(fmt(&missing), "1");
	want = cpus("");
	assert_false(jl_boot_isolation_covers(&b, &want, NULL));
	want = cpus("0-3");
	jl_boot_isolation_cpus_text(&b, &want, text, sizeof(text));
	assert_string_equal(text, "0-1: none; 2-3: isolcpus managed_irq nohz_full rcu_nocbs irqaffinity");

	j = jl_boot_isolation_json(&b, &want);
	assert_true(json_object_object_get_ex(j, "isolcpus", &v));
	assert_string_equal(json_object_get_string(v), "2-3");
	assert_true(json_object_object_get_ex(j, "isolcpus_flags", &v));
	assert_int_equal(json_object_array_length(v), 2);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 0)), "domain");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(v, 1)), "managed_irq");
	assert_true(json_object_object_get_ex(j, "managed_irq", &v) && json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(j, "nohz_full", &v));
	assert_string_equal(json_object_get_string(v), "2-3");
	assert_true(json_object_object_get_ex(j, "rcu_nocbs", &v));
	assert_string_equal(json_object_get_string(v), "2-3");
	assert_true(json_object_object_get_ex(j, "irqaffinity", &v));
	assert_string_equal(json_object_get_string(v), "0-1");
	assert_true(json_object_object_get_ex(j, "isolated", &v));
	assert_string_equal(json_object_get_string(v), "2-3");
	assert_true(json_object_object_get_ex(j, "cpus", &v));
	assert_int_equal(json_object_object_length(v), 2); /* only CPUs with a flag */
	assert_true(json_object_object_get_ex(v, "3", &v));
	assert_int_equal(json_object_array_length(v), 5);
	assert_false(json_object_object_get_ex(j, "problems", &v));
	json_object_put(j);
}

/* isolcpus=nohz alone takes kernel noise off CPU 1 but leaves it in the scheduler's domains: sysfs isolated
 * stays empty and the shield is no no-op there. */
static void test_isolcpus_nohz_only(void **state)
{
	struct jl_boot_isolation b;
	cpu_set_t one = cpus("1");

	(void)state;
	jl_boot_isolation_parse("isolcpus=nohz,1", "\n", NULL, 2, &b);
	assert_true(b.given[JL_BOOT_ISOLCPUS]);
	assert_true(b.nohz && !b.domain && !b.managed_irq);
	assert_string_equal(fmt(&b.cpus[JL_BOOT_ISOLCPUS]), "1");
	assert_int_equal(CPU_COUNT(&b.isolated), 0);
	assert_string_equal(flags(&b, 1), "isolcpus_nohz");
	assert_string_equal(flags(&b, 0), "none");
	assert_false(jl_boot_isolation_covers(&b, &one, NULL));
	assert_int_equal(b.nproblems, 0);
}

/* Nothing on the command line (this VM's case): nothing isolated, each flag null in JSON. */
static void test_absent(void **state)
{
	struct jl_boot_isolation b;
	cpu_set_t all = cpus("0-1");
	json_object *j, *v;

	(void)state;
	jl_boot_isolation_parse("console=ttyS0 quiet reboot=k panic=1 -- --addr 0.0.0.0:2024", "\n", NULL, 2, &b);
	for (int p = 0; p < JL_BOOT_NPARAMS; p++)
		assert_false(b.given[p]);
	assert_int_equal(CPU_COUNT(&b.isolated), 0);
	assert_string_equal(flags(&b, 0), "none");
	assert_string_equal(flags(&b, 1), "none");
	assert_false(jl_boot_isolation_covers(&b, &all, NULL));
	j = jl_boot_isolation_json(&b, &all);
	for (int p = 0; p < JL_BOOT_NPARAMS; p++) {
		assert_true(json_object_object_get_ex(j, jl_boot_param_names[p], &v));
		assert_null(v);
	}
	assert_false(json_object_object_get_ex(j, "isolcpus_flags", &v));
	assert_true(json_object_object_get_ex(j, "managed_irq", &v) && !json_object_get_boolean(v));
	assert_true(json_object_object_get_ex(j, "isolated", &v));
	assert_string_equal(json_object_get_string(v), "");
	assert_true(json_object_object_get_ex(j, "cpus", &v));
	assert_int_equal(json_object_object_length(v), 0);
	json_object_put(j);
	/* an empty command line, the reader's fallback */
	jl_boot_isolation_parse("", NULL, NULL, 0, &b);
	assert_int_equal(CPU_COUNT(&b.isolated), 0);
}

/* The kernel's rules: no flag means domain; unknown alphabetic flags are skipped, an illegal one voids the
 * parameter; cpu lists with all, N and groups; nohz_full implies rcu_nocbs; bare rcu_nocbs offloads nothing
 * at boot; what sysfs does not show was not taken. */
static void test_kernel_rules(void **state)
{
	struct jl_boot_isolation b;

	(void)state;
	jl_boot_isolation_parse("isolcpus=1", "1\n", NULL, 2, &b);
	assert_true(b.domain && !b.nohz && !b.managed_irq);
	assert_string_equal(flags(&b, 1), "isolcpus");

	jl_boot_isolation_parse("isolcpus=frob,domain,3", "3\n", NULL, 4, &b);
	assert_true(b.domain);
	assert_string_equal(fmt(&b.isolated), "3");
	assert_int_equal(b.nproblems, 1);
	assert_non_null(strstr(b.problems[0], "frob"));

	jl_boot_isolation_parse("isolcpus=fr0b,3", "\n", NULL, 4, &b);
	assert_false(b.given[JL_BOOT_ISOLCPUS]);
	assert_int_equal(CPU_COUNT(&b.isolated), 0);
	assert_non_null(strstr(b.problems[0], "invalid flag"));

	jl_boot_isolation_parse("isolcpus=domain,4-N:1/2 nohz_full=N rcu_nocbs", "4,6\n", "7\n", 8, &b);
	assert_string_equal(fmt(&b.cpus[JL_BOOT_ISOLCPUS]), "4,6");
	assert_string_equal(fmt(&b.isolated), "4,6");
	assert_string_equal(fmt(&b.nohz_full), "7");
	assert_true(b.given[JL_BOOT_RCU_NOCBS]);
	assert_int_equal(CPU_COUNT(&b.cpus[JL_BOOT_RCU_NOCBS]), 0);
	assert_string_equal(flags(&b, 7), "nohz_full rcu_nocbs"); /* implied by nohz_full */
	assert_string_equal(flags(&b, 4), "isolcpus");

	jl_boot_isolation_parse("rcu_nocbs=all", "\n", "(null)\n", 2, &b);
	assert_string_equal(fmt(&b.cpus[JL_BOOT_RCU_NOCBS]), "0-1");
	assert_true(b.sysfs_nohz_full_ok);
	assert_int_equal(CPU_COUNT(&b.sysfs_nohz_full), 0);

	/* a 2-CPU VM booted with a 4-CPU recipe: the kernel kept what it could */
	jl_boot_isolation_parse("isolcpus=2-3 nohz_full=1-3", "\n", "1\n", 2, &b);
	assert_int_equal(CPU_COUNT(&b.isolated), 0);
	assert_string_equal(fmt(&b.nohz_full), "1");
	assert_int_equal(b.nproblems, 2);
	assert_non_null(strstr(b.problems[0], "did not isolate 2-3"));
	assert_non_null(strstr(b.problems[1], "only 1"));

	/* nohz_full= on a kernel without NO_HZ_FULL (no sysfs file): ignored, and said */
	jl_boot_isolation_parse("nohz_full=1", "\n", NULL, 2, &b);
	assert_int_equal(CPU_COUNT(&b.nohz_full), 0);
	assert_string_equal(flags(&b, 1), "none");
	assert_non_null(strstr(b.problems[0], "NO_HZ_FULL"));

	/* irqaffinity= naming no CPU of the machine is ignored by the kernel */
	jl_boot_isolation_parse("irqaffinity=5", "\n", NULL, 2, &b);
	assert_string_equal(flags(&b, 1), "none");
	assert_non_null(strstr(b.problems[0], "irqaffinity"));
	jl_boot_isolation_parse("irqaffinity=0", "\n", NULL, 2, &b);
	assert_string_equal(flags(&b, 1), "irqaffinity");
	assert_string_equal(flags(&b, 0), "none");

	/* no sysfs isolated file (an old kernel): the command line is taken at its word */
	jl_boot_isolation_parse("isolcpus=1", NULL, NULL, 2, &b);
	assert_string_equal(fmt(&b.isolated), "1");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cmdline_rules),
		cmocka_unit_test(test_full_recipe),
		cmocka_unit_test(test_isolcpus_nohz_only),
		cmocka_unit_test(test_absent),
		cmocka_unit_test(test_kernel_rules),
	};

	return cmocka_run_group_tests(tests, NULL, NULL);
}
