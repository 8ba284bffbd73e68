/* cyclictest: placeholder until its issue lands. */
#include <stdio.h>

#include "commands.h"

int cmd_cyclictest(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jitterlab cyclictest: not available in this version yet\n");
	return JL_EXIT_USAGE;
}
