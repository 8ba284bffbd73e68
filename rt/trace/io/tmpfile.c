/* tmpfile: the anonymous files a trace's pages and a probe's records go to before trace.dat. */
#include <fcntl.h>
#include <stdlib.h>
#include <unistd.h>

#include "capture.h"

int jl_trace_tmpfile(void)
{
	int fd = open("/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);

	if (fd < 0) { /* a /tmp without O_TMPFILE: a named file (0600, O_EXCL), unlinked at once */
		char tmpl[] = "/tmp/jitterlab-trace-XXXXXX";

		fd = mkostemp(tmpl, O_CLOEXEC);
		if (fd >= 0)
			unlink(tmpl);
	}
	return fd;
}
