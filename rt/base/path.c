/* path: see path.h. */
#include "path.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

bool jl_find_program(const char *prog, char *exe, size_t len)
{
	const char *path = getenv("PATH");
	char buf[4096];

	if (strchr(prog, '/')) {
		if (exe)
			snprintf(exe, len, "%s", prog);
		return access(prog, X_OK) == 0;
	}
	if (!path)
		path = "/usr/local/bin:/usr/bin:/bin:/usr/local/sbin:/usr/sbin:/sbin";
	while (*path) {
		size_t n = strcspn(path, ":");

		if (n > 0 && path[0] == '/') {
			snprintf(buf, sizeof(buf), "%.*s/%s", (int)n, path, prog);
			if (access(buf, X_OK) == 0) {
				if (exe)
					snprintf(exe, len, "%s", buf);
				return true;
			}
		}
		path += n;
		if (*path == ':')
			path++;
	}
	return false;
}
