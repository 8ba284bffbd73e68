/* syms: kernel text symbols of the running kernel (/proc/kallsyms), to name the hrtimer callbacks a
 * live trace recorded, and the few of them it used, for trace.dat's kallsyms section (so trace-cmd report,
 * KernelShark and `jitterlab analyze` show names too). Only for the trace of the running boot: addresses
 * of another boot (KASLR) or machine are never looked up here. Never used on a cycle path. */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "syms.h"

struct sym {
	uint64_t addr;
	const char *name;
};

static int cmp_sym(const void *a, const void *b)
{
	const struct sym *x = a, *y = b;

	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

static char *read_all(const char *path, size_t *len)
{
	size_t cap = 1 << 22, n = 0;
	char *buf = malloc(cap);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t r;

	if (!buf || fd < 0) {
		free(buf);
		if (fd >= 0)
			close(fd);
		return NULL;
	}
	while ((r = read(fd, buf + n, cap - n - 1)) > 0) {
		n += (size_t)r;
		if (cap - n < 4096) {
			char *nb = realloc(buf, cap *= 2);

			if (!nb) {
				free(buf);
				close(fd);
				return NULL;
			}
			buf = nb;
		}
	}
	close(fd);
	buf[n] = 0;
	*len = n;
	return buf;
}

int jl_ksyms_load(struct jl_ksyms *k)
{
	size_t len = 0, cap = 0;
	struct sym *s = NULL;
	char *p, *line;

	memset(k, 0, sizeof(*k));
	k->blob = read_all("/proc/kallsyms", &len);
	if (!k->blob)
		return -1;
	for (line = k->blob; line && *line; line = p) {
		char *end = strchr(line, '\n'), *type, *name;
		uint64_t addr;

		p = end ? end + 1 : NULL;
		if (end)
			*end = 0;
		addr = strtoull(line, &type, 16);
		if (!addr || !type || type[0] != ' ' || (type[1] != 't' && type[1] != 'T') || type[2] != ' ')
			continue;
		name = type + 3;
		name[strcspn(name, "\t ")] = 0;
		if (k->n == cap) {
			struct sym *ns = realloc(s, (cap = cap ? cap * 2 : 65536) * sizeof(*s));

			if (!ns) {
				free(s);
				jl_ksyms_free(k);
				errno = ENOMEM;
				return -1;
			}
			s = ns;
		}
		s[k->n].addr = addr;
		s[k->n].name = name;
		k->n++;
	}
	if (!k->n) { /* kptr_restrict: all zero */
		free(s);
		jl_ksyms_free(k);
		errno = EPERM;
		return -1;
	}
	qsort(s, k->n, sizeof(*s), cmp_sym);
	k->syms = s;
	return 0;
}

const char *jl_ksyms_find(const struct jl_ksyms *k, uint64_t addr)
{
	const struct sym *s = k ? k->syms : NULL;
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) {
		size_t mid = (lo + hi) / 2;

		if (s[mid].addr == addr)
			return s[mid].name;
		if (s[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

const char *jl_ksyms_find_near(const struct jl_ksyms *k, uint64_t addr, uint64_t *start)
{
	const struct sym *s = k ? k->syms : NULL;
	size_t lo = 0, hi = k ? k->n : 0;

	while (lo < hi) { /* the first symbol above ADDR */
		size_t mid = (lo + hi) / 2;

		if (s[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return NULL;
	*start = s[lo - 1].addr;
	return s[lo - 1].name;
}

void jl_ksyms_free(struct jl_ksyms *k)
{
	free(k->syms);
	free(k->blob);
	memset(k, 0, sizeof(*k));
}
