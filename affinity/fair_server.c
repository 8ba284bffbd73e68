/* fair_server: the fair server's budget through debugfs (see fair_server.h).
 * Must never: write a CPU's runtime before its old value is journalled, leave debugfs mounted when it was
 * not, or touch the period (only the runtime is the scenario's). */
#include "fair_server.h"
#include "procfs.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mount.h>
#include <sys/statfs.h>
#include <unistd.h>

#define DEBUGFS_MAGIC 0x64626720

int jl_debugfs_mount(bool *mounted)
{
	struct statfs sf;

	*mounted = false;
	if (statfs(JL_DEBUGFS, &sf) == 0 && sf.f_type == DEBUGFS_MAGIC)
		return 0;
	if (mount("none", JL_DEBUGFS, "debugfs", 0, NULL))
		return -1;
	*mounted = true;
	return 0;
}

void jl_debugfs_unmount(bool mounted)
{
	if (mounted)
		umount2(JL_DEBUGFS, 0);
}

const char *jl_fair_server_dir(void)
{
	const char *d = getenv("JITTERLAB_FAIR_SERVER_DIR");

	return d && *d ? d : JL_FAIR_SERVER_DIR;
}

static bool under_debugfs(const char *dir)
{
	return !strncmp(dir, JL_DEBUGFS "/", sizeof(JL_DEBUGFS));
}

int jl_fair_server_probe(char *why, size_t len)
{
	const char *dir = jl_fair_server_dir();
	bool mounted = false;
	char path[512], v[64];
	int rc = -1;

	if (under_debugfs(dir) && jl_debugfs_mount(&mounted)) {
		snprintf(why, len, "debugfs cannot be mounted at %s: %s", JL_DEBUGFS, strerror(errno));
		return -1;
	}
	snprintf(path, sizeof(path), "%s/cpu0/runtime", dir);
	if (access(dir, F_OK))
		snprintf(why, len, "this kernel has no fair server (%s is missing; Linux 6.12 and later have one)", dir);
	else if (jl_knob_read(path, v, sizeof(v)))
		snprintf(why, len, "%s cannot be read: %s%s", path, strerror(errno),
			 errno == EPERM ? " (kernel lockdown or a restricted debugfs)" : "");
	else
		rc = 0;
	jl_debugfs_unmount(mounted);
	return rc;
}

int jl_fair_server_apply(struct jl_journal *j, const cpu_set_t *cpus, int64_t runtime_ns, int *nset, char *err,
			 size_t errlen)
{
	const char *dir = jl_fair_server_dir();
	bool mounted = false, debugfs = under_debugfs(dir);
	char want[32];
	int rc = 0;

	*nset = 0;
	if (debugfs && jl_debugfs_mount(&mounted)) {
		snprintf(err, errlen, "fair_server: debugfs cannot be mounted at %s: %s", JL_DEBUGFS, strerror(errno));
		return -1;
	}
	snprintf(want, sizeof(want), "%lld", (long long)runtime_ns);
	for (int c = 0; c < CPU_SETSIZE && !rc; c++) {
		char path[512], old[64];

		if (!CPU_ISSET(c, cpus))
			continue;
		snprintf(path, sizeof(path), "%s/cpu%d/runtime", dir, c);
		if (jl_knob_read(path, old, sizeof(old))) {
			snprintf(err, errlen, "fair_server: cannot read %s: %s", path, strerror(errno));
			rc = -1;
		} else if (strcmp(old, want)) {
			if (jl_journal_record_debugfs_write(j, path, old, debugfs)) {
				snprintf(err, errlen, "fair_server: cannot write the journal: %s", strerror(errno));
				rc = -1;
			} else if (jl_knob_write(path, want)) {
				snprintf(err, errlen, "fair_server: cannot set %s to %s: %s", path, want, strerror(errno));
				rc = -1;
			} else {
				(*nset)++;
			}
		}
	}
	jl_debugfs_unmount(mounted);
	return rc;
}
