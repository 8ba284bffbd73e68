/* plot: placeholder until plots land (issue 5). */
#include <stdio.h>

#include "plot.h"

int jl_plot_run(const char *run_dir, char *err, size_t errlen)
{
	(void)run_dir;
	snprintf(err, errlen, "plots are not built into this version");
	return 0;
}
