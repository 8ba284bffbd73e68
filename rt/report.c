/* report: placeholder until its issue lands. */
#include <stdio.h>

#include "commands.h"

int cmd_report(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jitterlab report: not available in this version yet\n");
	return JL_EXIT_USAGE;
}
