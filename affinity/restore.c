/* restore: placeholder until its issue lands. */
#include <stdio.h>

#include "../rt/commands.h"

int cmd_restore(int argc, char **argv)
{
	(void)argc, (void)argv;
	fprintf(stderr, "jitterlab restore: not available in this version yet\n");
	return JL_EXIT_USAGE;
}
