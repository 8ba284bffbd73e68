/* cmdline: /proc/cmdline and a pure parser of it (kernel rules, see cmdline.h). Read-only. */
#include "cmdline.h"

#include <errno.h>
#include <stdio.h>
#include <string.h>

int jl_cmdline_read(char *buf, size_t len)
{
	FILE *f = fopen("/proc/cmdline", "re");
	bool ok;

	if (len)
		buf[0] = '\0';
	if (!f)
		return -1;
	ok = len && fgets(buf, (int)len, f) != NULL;
	fclose(f);
	if (!ok) {
		errno = EIO;
		return -1;
	}
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

static bool name_eq(const char *a, size_t alen, const char *b)
{
	size_t i;

	for (i = 0; i < alen && b[i]; i++) {
		char x = a[i] == '-' ? '_' : a[i], y = b[i] == '-' ? '_' : b[i];

		if (x != y)
			return false;
	}
	return i == alen && !b[i];
}

bool jl_cmdline_arg(const char *cmdline, const char *key, char *val, size_t len)
{
	const char *p = cmdline;
	bool found = false;

	if (!p)
		return false;
	for (;;) {
		const char *name, *eq = NULL, *v = NULL, *end;
		bool quoted = false;
		size_t nlen, vlen = 0;

		while (*p == ' ' || *p == '\t' || *p == '\n')
			p++;
		if (!*p)
			break;
		/* one word: "name[=value]", where a double quote may open before the name or the value */
		if (*p == '"') {
			quoted = true;
			p++;
		}
		name = p;
		for (end = p; *end; end++) {
			if (*end == '"')
				quoted = !quoted;
			else if (!quoted && (*end == ' ' || *end == '\t' || *end == '\n'))
				break;
			else if (*end == '=' && !eq)
				eq = end;
		}
		nlen = (size_t)((eq ? eq : end) - name);
		if (nlen && name[nlen - 1] == '"') /* "name"=... */
			nlen--;
		if (!eq && nlen == 2 && !strncmp(name, "--", 2))
			break; /* the rest is init's */
		if (name_eq(name, nlen, key)) {
			found = true;
			if (eq) {
				v = eq + 1;
				vlen = (size_t)(end - v);
			}
			if (val && len) {
				size_t o = 0;

				for (size_t i = 0; v && i < vlen && o + 1 < len; i++)
					if (v[i] != '"')
						val[o++] = v[i];
				val[o] = '\0';
			}
		}
		p = end;
	}
	return found;
}
