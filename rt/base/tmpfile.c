/* tmpfile: the anonymous files what is too big for memory goes to (a trace's pages, a probe's records, the
 * values of exact percentiles): 0600, in /tmp, gone when closed. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "tmpfile.h"

int jl_tmpfile(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) { /* a /tmp without O_TMPFILE: a named file (0600, O_EXCL), unlinked at once */
		char tmpl[] = "/tmp/jitterlab-XXXXXX";

		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	return fd;
}
