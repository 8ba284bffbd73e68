/* host: read-only facts about the machine for summary.json and the terminal header. */
#include "host.h"

#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <sys/utsname.h>

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
	return h;
}
