/* samples_read: the one samples.csv reader (see samples_read.h). */
#include "samples_read.h"

#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum { C_THREAD, C_CYCLE, C_RELEASE, C_WAKE, C_END, C_MISS, C_SKIPPED, C_PERIOD, C_N };

static const char *const col_names[C_N] = { "thread", "cycle", "release_ns", "wake_ns", "end_ns", "miss", "skipped",
					    "period_ns" };

/* LINE's fields into R by the columns COL: the fields as strtok_r(",\r\n") gives them (empty ones skipped),
 * without its cost per field (a long run's file has a row per kept cycle, read before its trace can be
 * analysed). Whether the row names its thread. */
static bool parse_row(char *line, const int *col, struct jl_sample_row *r)
{
	bool have_thread = false;
	char *q = line;

	for (int i = 0;; i++) {
		char *tok;
		size_t len;

		while (*q == ',' || *q == '\r' || *q == '\n')
			q++;
		if (!*q)
			break;
		tok = q;
		q += strcspn(q, ",\r\n");
		len = (size_t)(q - tok);
		if (*q)
			*q++ = '\0';
		if (i == col[C_THREAD]) {
			if (len > sizeof(r->thread) - 1)
				len = sizeof(r->thread) - 1;
			memcpy(r->thread, tok, len);
			r->thread[len] = '\0';
			have_thread = true;
		} else if (i == col[C_CYCLE]) {
			r->cycle = strtoull(tok, NULL, 10);
		} else if (i == col[C_RELEASE]) {
			r->release = strtoll(tok, NULL, 10);
		} else if (i == col[C_WAKE]) {
			r->wake = strtoll(tok, NULL, 10);
		} else if (i == col[C_END]) {
			r->end = strtoll(tok, NULL, 10);
		} else if (i == col[C_MISS]) {
			r->miss = strtol(tok, NULL, 10) != 0;
		} else if (i == col[C_SKIPPED]) {
			r->skipped = (uint32_t)strtoul(tok, NULL, 10);
		} else if (i == col[C_PERIOD]) {
			r->period = strtoll(tok, NULL, 10);
		}
	}
	return have_thread;
}

int jl_samples_read(const char *run_dir, const char *thread, int (*row)(void *ctx, const struct jl_sample_row *r),
		    void *ctx, char *err, size_t errlen)
{
	char path[PATH_MAX + 32], line[1024];
	int col[C_N], rc = 0;
	FILE *f;

	snprintf(path, sizeof(path), "%s/samples.csv", run_dir);
	f = fopen(path, "re");
	if (!f) {
		int e = errno;

		snprintf(err, errlen, "cannot open %s: %s", path, strerror(e));
		errno = e;
		return -1;
	}
	for (int c = 0; c < C_N; c++)
		col[c] = -1;
	if (fgets(line, sizeof(line), f)) {
		char *save = NULL, *tok = strtok_r(line, ",\r\n", &save);

		for (int i = 0; tok; i++, tok = strtok_r(NULL, ",\r\n", &save))
			for (int c = 0; c < C_N; c++)
				if (!strcmp(tok, col_names[c]))
					col[c] = i;
	}
	if (col[C_THREAD] < 0 || col[C_CYCLE] < 0 || col[C_RELEASE] < 0 || col[C_WAKE] < 0) {
		fclose(f);
		snprintf(err, errlen, "%s lacks the thread,cycle,release_ns,wake_ns columns", path);
		errno = EINVAL;
		return -1;
	}
	while (!rc && fgets(line, sizeof(line), f)) {
		struct jl_sample_row r = { .period = -1 };
		bool have_thread = parse_row(line, col, &r);

		if (!have_thread || (thread && strcmp(r.thread, thread)))
			continue;
		rc = row(ctx, &r);
	}
	fclose(f);
	return rc;
}
