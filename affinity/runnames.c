/* runnames: the names of what a run creates, and the pid in them (runnames.h). */
#include "runnames.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>

/* "jitterlab-<digits>" followed by exactly SUFFIX: the pid, else 0. */
static pid_t name_pid(const char *name, const char *suffix)
{
	const char *p = name + strlen(JL_CPUSET_PREFIX);
	char *end;
	long pid;

	if (strncmp(name, JL_CPUSET_PREFIX, strlen(JL_CPUSET_PREFIX)) || *p < '1' || *p > '9')
		return 0;
	errno = 0;
	pid = strtol(p, &end, 10);
	if (errno || pid <= 0 || pid > 0x3fffffff || strcmp(end, suffix))
		return 0;
	return (pid_t)pid;
}

pid_t jl_stale_instance_pid(const char *name)
{
	return name_pid(name, "");
}

pid_t jl_stale_cpuset_pid(const char *name)
{
	pid_t pid = name_pid(name, "-housekeeping");

	return pid ? pid : name_pid(name, "-shield");
}
