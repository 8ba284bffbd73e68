/* doctor: placeholder until its issue lands. */
#include <stdio.h>

#include "../rt/commands.h"

int cmd_doctor(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jitterlab doctor: not available in this version yet\n");
	return JL_EXIT_USAGE;
}
