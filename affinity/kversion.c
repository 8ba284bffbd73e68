/* kversion: kernel behaviours by version (see kversion.h). */
#include "kversion.h"

#include <stdio.h>
#include <sys/utsname.h>

static const struct jl_kfeature_info features[JL_KERNEL_NFEATURES] = {
	[JL_KERNEL_USER_MASK_KEPT] = { "user_mask_kept", 6, 2,
				  "before: creating or removing a v2 partition resets the mask of every task of the root "
				  "cgroup; jitterlab journals the narrowed masks and sets them back" },
	[JL_KERNEL_IPI_EVENTS] = { "ipi_events", 6, 5, "IPI tracepoints; before: IPIs show only as the IRQ vectors" },
	[JL_KERNEL_TIMERLAT_FD] = { "timerlat_fd", 6, 6,
			       "rtla timerlat -u (user-space threads); before: kernel threads only" },
	[JL_KERNEL_CPUS_ISOLATED] = { "cpus_isolated", 6, 7,
				 "cpuset.cpus.isolated and cpuset.cpus.exclusive; before: the partition's own "
				 "cpuset.cpus.partition says whether it holds" },
	[JL_KERNEL_FAIR_SERVER] = { "fair_server", 6, 12,
			       "the fair deadline server gives CFS 50 ms/s beside RT tasks; fair_server = off "
			       "sets its runtime to 0 (journalled)" },
};

const struct jl_kfeature_info *jl_kfeature(enum jl_kfeature f)
{
	return f >= 0 && f < JL_KERNEL_NFEATURES ? &features[f] : NULL;
}

bool jl_kernel_at_least(int major, int minor, const char *release)
{
	struct utsname u;
	int ma, mi;

	if (!release) {
		if (uname(&u))
			return true;
		release = u.release;
	}
	if (sscanf(release, "%d.%d", &ma, &mi) != 2)
		return true;
	return ma > major || (ma == major && mi >= minor);
}

bool jl_kernel_has(enum jl_kfeature f, const char *release)
{
	const struct jl_kfeature_info *k = jl_kfeature(f);

	return !k || jl_kernel_at_least(k->major, k->minor, release);
}
