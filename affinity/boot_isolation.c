/* boot_isolation: what the kernel command line isolated, checked against sysfs (see boot_isolation.h).
 * The parser follows the kernel: isolcpus= (kernel/sched/isolation.c: leading flags "nohz,", "domain,",
 * "managed_irq,", unknown alphabetic flags skipped, an illegal one voids the parameter, no flag = domain),
 * cpu lists as lib/bitmap-str.c reads them, nohz_full= implying rcu_nocbs (kernel/rcu/tree_nocb.h). Pure
 * except jl_boot_isolation_read, which only reads files. */
#include "boot_isolation.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cmdline.h"
#include "cpulist.h"

const char *const jl_boot_param_names[JL_BOOT_NPARAMS] = { "isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity" };
const char *const jl_boot_flag_names[JL_BOOT_NFLAGS] = { "isolcpus",  "isolcpus_nohz", "managed_irq",
							 "nohz_full", "rcu_nocbs",     "irqaffinity" };

static void problem(struct jl_boot_isolation *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void problem(struct jl_boot_isolation *b, const char *fmt, ...)
{
	va_list ap;

	if (b->nproblems >= JL_BOOT_MAX_PROBLEMS)
		return;
	va_start(ap, fmt);
	vsnprintf(b->problems[b->nproblems++], sizeof(b->problems[0]), fmt, ap);
	va_end(ap);
}

/* One CPU number or "N" (the last CPU). */
static int list_num(const char **p, int ncpus, long *out)
{
	char *end;

	if (**p == 'N') {
		if (ncpus <= 0)
			return -1;
		(*p)++;
		*out = ncpus - 1;
		return 0;
	}
	if (!isdigit((unsigned char)**p))
		return -1;
	errno = 0;
	*out = strtol(*p, &end, 10);
	if (errno || *out >= CPU_SETSIZE)
		return -1;
	*p = end;
	return 0;
}

/* A kernel cpu list: regions "A", "A-B", "A-B:USED/GROUP", "all", "all:USED/GROUP", "N" for the last CPU,
 * separated by ','. "" is the empty set. 0, or -1. */
static int kernel_cpulist(const char *text, int ncpus, cpu_set_t *set)
{
	const char *p = text;

	CPU_ZERO(set);
	while (*p) {
		long lo, hi, used = 1, group = 1;

		if (!strncmp(p, "all", 3)) {
			if (ncpus <= 0)
				return -1;
			p += 3;
			lo = 0;
			hi = ncpus - 1;
		} else {
			if (list_num(&p, ncpus, &lo))
				return -1;
			hi = lo;
			if (*p == '-') {
				p++;
				if (list_num(&p, ncpus, &hi) || hi < lo)
					return -1;
			}
		}
		if (*p == ':') {
			char *end;

			p++;
			used = strtol(p, &end, 10);
			if (end == p || *end != '/')
				return -1;
			p = end + 1;
			group = strtol(p, &end, 10);
			if (end == p || used <= 0 || group <= 0 || used > group)
				return -1;
			p = end;
		}
		for (long c = lo; c <= hi; c++)
			if ((c - lo) % group < used)
				CPU_SET((int)c, set);
		if (*p == ',')
			p++;
		else if (*p && *p != '\n')
			return -1;
		else
			break;
	}
	return 0;
}

/* A sysfs cpu-list file's text: "" or "\n" is empty, "(null)" (nohz_full without nohz_full=) too. */
static int sysfs_cpulist(const char *text, cpu_set_t *set)
{
	char buf[1024], err[128];

	snprintf(buf, sizeof(buf), "%s", text);
	buf[strcspn(buf, "\n")] = '\0';
	if (!buf[0] || !strcmp(buf, "(null)")) {
		CPU_ZERO(set);
		return 0;
	}
	return jl_cpulist_parse(buf, set, err, sizeof(err));
}

static void cpuset_and(cpu_set_t *dst, const cpu_set_t *a, const cpu_set_t *b)
{
	CPU_AND(dst, a, b);
}

static void parse_isolcpus(struct jl_boot_isolation *b)
{
	const char *s = b->arg[JL_BOOT_ISOLCPUS];
	char skipped[128] = "";

	while (isalpha((unsigned char)*s)) {
		static const struct {
			const char *word;
			size_t n;
			int which;
		} known[] = { { "nohz,", 5, 0 }, { "domain,", 7, 1 }, { "managed_irq,", 12, 2 } };
		bool hit = false;

		for (size_t i = 0; i < sizeof(known) / sizeof(known[0]); i++)
			if (!strncmp(s, known[i].word, known[i].n)) {
				s += known[i].n;
				*(known[i].which == 0 ? &b->nohz : known[i].which == 1 ? &b->domain : &b->managed_irq) = true;
				hit = true;
				break;
			}
		if (hit)
			continue;
		{
			const char *w = s;
			size_t n = 0;
			bool illegal = false;

			for (; *s && *s != ','; s++, n++)
				if (!isalpha((unsigned char)*s) && *s != '_')
					illegal = true;
			if (illegal) {
				problem(b, "isolcpus=%s: invalid flag '%.*s', the kernel ignored isolcpus=", b->arg[JL_BOOT_ISOLCPUS],
					(int)n, w);
				b->given[JL_BOOT_ISOLCPUS] = false;
				b->nohz = b->domain = b->managed_irq = false;
				return;
			}
			snprintf(skipped + strlen(skipped), sizeof(skipped) - strlen(skipped), "%s%.*s", skipped[0] ? "," : "",
				 (int)n, w);
			if (*s)
				s++;
		}
	}
	if (skipped[0])
		problem(b, "isolcpus: the kernel skips unknown flag(s) %s", skipped);
	if (!b->nohz && !b->domain && !b->managed_irq)
		b->domain = true;
	if (kernel_cpulist(s, b->ncpus, &b->cpus[JL_BOOT_ISOLCPUS]) || !CPU_COUNT(&b->cpus[JL_BOOT_ISOLCPUS])) {
		problem(b, "isolcpus=%s: '%s' is not a cpu list the kernel takes: ignored", b->arg[JL_BOOT_ISOLCPUS], s);
		b->given[JL_BOOT_ISOLCPUS] = false;
		b->nohz = b->domain = b->managed_irq = false;
	}
}

int jl_boot_isolation_parse(const char *cmdline, const char *isolated, const char *nohz_full, int ncpus,
			    struct jl_boot_isolation *b)
{
	cpu_set_t possible;
	char a[256], c[256];

	memset(b, 0, sizeof(*b));
	b->ncpus = ncpus > CPU_SETSIZE ? CPU_SETSIZE : ncpus;
	CPU_ZERO(&possible);
	for (int i = 0; i < b->ncpus; i++)
		CPU_SET(i, &possible);
	for (int p = 0; p < JL_BOOT_NPARAMS; p++) {
		CPU_ZERO(&b->cpus[p]);
		b->given[p] = jl_cmdline_arg(cmdline, jl_boot_param_names[p], b->arg[p], sizeof(b->arg[p]));
	}
	CPU_ZERO(&b->sysfs_isolated);
	CPU_ZERO(&b->sysfs_nohz_full);
	CPU_ZERO(&b->isolated);
	CPU_ZERO(&b->nohz_full);
	if (isolated)
		b->sysfs_isolated_ok = sysfs_cpulist(isolated, &b->sysfs_isolated) == 0;
	if (nohz_full)
		b->sysfs_nohz_full_ok = sysfs_cpulist(nohz_full, &b->sysfs_nohz_full) == 0;

	if (b->given[JL_BOOT_ISOLCPUS])
		parse_isolcpus(b);
	if (b->domain) {
		if (b->sysfs_isolated_ok) {
			cpu_set_t lost;

			cpuset_and(&b->isolated, &b->cpus[JL_BOOT_ISOLCPUS], &b->sysfs_isolated);
			CPU_XOR(&lost, &b->cpus[JL_BOOT_ISOLCPUS], &b->isolated);
			if (CPU_COUNT(&lost))
				problem(b, "isolcpus=%s: the kernel did not isolate %s (sysfs isolated: %s)", b->arg[JL_BOOT_ISOLCPUS],
					jl_cpulist_format(&lost, a, sizeof(a)),
					CPU_COUNT(&b->sysfs_isolated) ? jl_cpulist_format(&b->sysfs_isolated, c, sizeof(c)) : "none");
		} else {
			b->isolated = b->cpus[JL_BOOT_ISOLCPUS];
		}
	}

	if (b->given[JL_BOOT_NOHZ_FULL]) {
		if (kernel_cpulist(b->arg[JL_BOOT_NOHZ_FULL], b->ncpus, &b->cpus[JL_BOOT_NOHZ_FULL]) ||
		    !CPU_COUNT(&b->cpus[JL_BOOT_NOHZ_FULL])) {
			problem(b, "nohz_full=%s is not a cpu list the kernel takes: ignored", b->arg[JL_BOOT_NOHZ_FULL]);
			CPU_ZERO(&b->cpus[JL_BOOT_NOHZ_FULL]);
		} else if (!nohz_full) {
			problem(b, "nohz_full=%s: this kernel has no NO_HZ_FULL (no sysfs nohz_full): ignored",
				b->arg[JL_BOOT_NOHZ_FULL]);
		} else if (b->sysfs_nohz_full_ok) {
			cpuset_and(&b->nohz_full, &b->cpus[JL_BOOT_NOHZ_FULL], &b->sysfs_nohz_full);
			if (!CPU_EQUAL(&b->nohz_full, &b->cpus[JL_BOOT_NOHZ_FULL]))
				problem(b, "nohz_full=%s: the kernel made only %s tickless", b->arg[JL_BOOT_NOHZ_FULL],
					CPU_COUNT(&b->nohz_full) ? jl_cpulist_format(&b->nohz_full, a, sizeof(a)) : "none");
		}
	}
	if (b->given[JL_BOOT_RCU_NOCBS] && b->arg[JL_BOOT_RCU_NOCBS][0] &&
	    kernel_cpulist(b->arg[JL_BOOT_RCU_NOCBS], b->ncpus, &b->cpus[JL_BOOT_RCU_NOCBS])) {
		problem(b, "rcu_nocbs=%s is not a cpu list the kernel takes: ignored", b->arg[JL_BOOT_RCU_NOCBS]);
		CPU_ZERO(&b->cpus[JL_BOOT_RCU_NOCBS]);
	}
	if (b->given[JL_BOOT_IRQAFFINITY]) {
		cpu_set_t in;

		if (kernel_cpulist(b->arg[JL_BOOT_IRQAFFINITY], b->ncpus, &b->cpus[JL_BOOT_IRQAFFINITY]))
			CPU_ZERO(&b->cpus[JL_BOOT_IRQAFFINITY]);
		cpuset_and(&in, &b->cpus[JL_BOOT_IRQAFFINITY], &possible);
		if (!CPU_COUNT(&in)) {
			problem(b, "irqaffinity=%s names no CPU of this machine: the kernel uses all CPUs",
				b->arg[JL_BOOT_IRQAFFINITY]);
			CPU_ZERO(&b->cpus[JL_BOOT_IRQAFFINITY]);
		}
	}
	return 0;
}

int jl_boot_isolation_read(struct jl_boot_isolation *b)
{
	char cmd[4096], iso[1024], nohz[1024];
	const char *pi = NULL, *pn = NULL;
	cpu_set_t possible;
	int ncpus = 0, rc, saved;
	FILE *f;

	rc = jl_cmdline_read(cmd, sizeof(cmd));
	saved = errno;
	if ((f = fopen("/sys/devices/system/cpu/isolated", "re"))) {
		iso[0] = '\0';
		if (fgets(iso, sizeof(iso), f) || !ferror(f))
			pi = iso;
		fclose(f);
	}
	if ((f = fopen("/sys/devices/system/cpu/nohz_full", "re"))) {
		nohz[0] = '\0';
		if (fgets(nohz, sizeof(nohz), f) || !ferror(f))
			pn = nohz;
		fclose(f);
	}
	if (jl_cpulist_read_file("/sys/devices/system/cpu/possible", &possible) == 0 ||
	    jl_cpulist_online(&possible) == 0)
		for (int c = 0; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &possible))
				ncpus = c + 1;
	jl_boot_isolation_parse(rc ? "" : cmd, pi, pn, ncpus, b);
	errno = saved;
	return rc;
}

unsigned jl_boot_isolation_cpu(const struct jl_boot_isolation *b, int cpu)
{
	unsigned f = 0;
	bool in_isol;

	if (cpu < 0 || cpu >= CPU_SETSIZE)
		return 0;
	/* nohz/managed_irq count where the kernel took isolcpus= (the domain part's sysfs says so) */
	in_isol = CPU_ISSET(cpu, &b->cpus[JL_BOOT_ISOLCPUS]) && (!b->domain || CPU_ISSET(cpu, &b->isolated));
	if (CPU_ISSET(cpu, &b->isolated))
		f |= JL_BOOT_F_DOMAIN;
	if (b->given[JL_BOOT_ISOLCPUS] && in_isol && b->nohz)
		f |= JL_BOOT_F_ISOL_NOHZ;
	if (b->given[JL_BOOT_ISOLCPUS] && in_isol && b->managed_irq)
		f |= JL_BOOT_F_MANAGED_IRQ;
	if (CPU_ISSET(cpu, &b->nohz_full))
		f |= JL_BOOT_F_NOHZ_FULL;
	if (CPU_ISSET(cpu, &b->cpus[JL_BOOT_RCU_NOCBS]) || CPU_ISSET(cpu, &b->nohz_full))
		f |= JL_BOOT_F_RCU_NOCBS;
	if (CPU_COUNT(&b->cpus[JL_BOOT_IRQAFFINITY]) && !CPU_ISSET(cpu, &b->cpus[JL_BOOT_IRQAFFINITY]) &&
	    (b->ncpus <= 0 || cpu < b->ncpus))
		f |= JL_BOOT_F_NO_IRQS;
	return f;
}

char *jl_boot_isolation_flags_text(unsigned flags, char *buf, size_t len)
{
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	for (int i = 0; i < JL_BOOT_NFLAGS; i++)
		if (flags & (1u << i) && o < len)
			o += (size_t)snprintf(buf + o, len - o, "%s%s", o ? " " : "", jl_boot_flag_names[i]);
	if (!buf[0])
		snprintf(buf, len, "none");
	return buf;
}

char *jl_boot_isolation_cpus_text(const struct jl_boot_isolation *b, const cpu_set_t *cpus, char *buf, size_t len)
{
	cpu_set_t left = *cpus;
	size_t o = 0;

	if (!len)
		return buf;
	buf[0] = '\0';
	while (CPU_COUNT(&left) && o < len) {
		int first = jl_cpulist_first(&left);
		unsigned f = jl_boot_isolation_cpu(b, first);
		cpu_set_t same;
		char list[256], words[160];

		CPU_ZERO(&same);
		for (int c = first; c < CPU_SETSIZE; c++)
			if (CPU_ISSET(c, &left) && jl_boot_isolation_cpu(b, c) == f) {
				CPU_SET(c, &same);
				CPU_CLR(c, &left);
			}
		o += (size_t)snprintf(buf + o, len - o, "%s%s: %s", o ? "; " : "", jl_cpulist_format(&same, list, sizeof(list)),
				      jl_boot_isolation_flags_text(f, words, sizeof(words)));
	}
	return buf;
}

bool jl_boot_isolation_covers(const struct jl_boot_isolation *b, const cpu_set_t *cpus, cpu_set_t *missing)
{
	cpu_set_t out;

	CPU_ZERO(&out);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, cpus) && !(jl_boot_isolation_cpu(b, c) & JL_BOOT_F_DOMAIN))
			CPU_SET(c, &out);
	if (missing)
		*missing = out;
	return CPU_COUNT(cpus) > 0 && CPU_COUNT(&out) == 0;
}

static json_object *list_or_null(const struct jl_boot_isolation *b, int p)
{
	char buf[512];

	if (!b->given[p])
		return NULL;
	return json_object_new_string(jl_cpulist_format(&b->cpus[p], buf, sizeof(buf)));
}

json_object *jl_boot_isolation_json(const struct jl_boot_isolation *b, const cpu_set_t *online)
{
	json_object *o = json_object_new_object(), *per = json_object_new_object();
	char buf[512];

	json_object_object_add(o, "isolcpus", list_or_null(b, JL_BOOT_ISOLCPUS));
	if (b->given[JL_BOOT_ISOLCPUS]) {
		json_object *fl = json_object_new_array();

		if (b->nohz)
			json_object_array_add(fl, json_object_new_string("nohz"));
		if (b->domain)
			json_object_array_add(fl, json_object_new_string("domain"));
		if (b->managed_irq)
			json_object_array_add(fl, json_object_new_string("managed_irq"));
		json_object_object_add(o, "isolcpus_flags", fl);
	}
	json_object_object_add(o, "managed_irq", json_object_new_boolean(b->managed_irq));
	for (int p = JL_BOOT_NOHZ_FULL; p < JL_BOOT_NPARAMS; p++)
		json_object_object_add(o, jl_boot_param_names[p], list_or_null(b, p));
	json_object_object_add(o, "isolated", json_object_new_string(jl_cpulist_format(&b->isolated, buf, sizeof(buf))));
	for (int c = 0; online && c < CPU_SETSIZE; c++) {
		unsigned f;
		json_object *arr;

		if (!CPU_ISSET(c, online) || !(f = jl_boot_isolation_cpu(b, c)))
			continue;
		arr = json_object_new_array();
		for (int i = 0; i < JL_BOOT_NFLAGS; i++)
			if (f & (1u << i))
				json_object_array_add(arr, json_object_new_string(jl_boot_flag_names[i]));
		snprintf(buf, sizeof(buf), "%d", c);
		json_object_object_add(per, buf, arr);
	}
	json_object_object_add(o, "cpus", per);
	if (b->nproblems) {
		json_object *pr = json_object_new_array();

		for (int i = 0; i < b->nproblems; i++)
			json_object_array_add(pr, json_object_new_string(b->problems[i]));
		json_object_object_add(o, "problems", pr);
	}
	return o;
}
