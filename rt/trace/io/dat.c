/* dat: write a trace-cmd v6 trace.dat with the recorded pages as the TOP buffer.
 * Why by hand: libtracecmd has no public writer API (its writer symbols live in a private header), and
 * `trace-cmd extract` puts an instance's data in an instance buffer, which KernelShark 2.2.1 cannot open
 * from a session. The v6 layout is small and documented (man 5 trace-cmd.dat.v6); this file writes
 * exactly that and nothing else: it never parses events (reading is libtracecmd's job, read.c).
 * Written through the output writer (output.h: a temporary name in the run directory's fd, fsynced,
 * given to the sudo user, renamed), so a crash never leaves a half file under the real name. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <tracefs.h>

#include "../../base/output.h"
#include "../../scenario/scenario.h"
#include "capture.h"
#include "dat.h"

#define OPT_DONE 0
#define OPT_TRACECLOCK 4
#define JL_TRACE_MAX_SYSTEMS 16

struct out {
	FILE *f;
	bool failed;
};

static void put(struct out *o, const void *p, size_t n)
{
	if (n && fwrite(p, 1, n, o->f) != n)
		o->failed = true;
}

static void put16(struct out *o, uint16_t v) { put(o, &v, 2); }
static void put32(struct out *o, uint32_t v) { put(o, &v, 4); }
static void put64(struct out *o, uint64_t v) { put(o, &v, 8); }

/* u64 size + FILE's content, FILE relative to the top tracing directory. */
static int put_file64(struct out *o, const char *file)
{
	int size = 0;
	char *text = tracefs_instance_file_read(NULL, file, &size);

	if (!text)
		return -1;
	put64(o, (uint64_t)size);
	put(o, text, size);
	free(text);
	return 0;
}

/* The formats of SYSTEM's events: u32 count, then u64 size + format text each. */
static int put_system_formats(struct out *o, const char *system)
{
	char **events = tracefs_system_events(NULL, system);
	char **fmts;
	int *sizes;
	uint32_t n = 0, count = 0;

	if (!events)
		return -1;
	while (events[n])
		n++;
	fmts = calloc(n + 1, sizeof(*fmts));
	sizes = calloc(n + 1, sizeof(*sizes));
	if (!fmts || !sizes) {
		free(fmts);
		free(sizes);
		tracefs_list_free(events);
		return -1;
	}
	for (uint32_t i = 0; i < n; i++) {
		fmts[i] = tracefs_event_file_read(NULL, system, events[i], "format", &sizes[i]);
		if (fmts[i])
			count++;
	}
	put32(o, count);
	for (uint32_t i = 0; i < n; i++) {
		if (!fmts[i])
			continue;
		put64(o, (uint64_t)sizes[i]);
		put(o, fmts[i], sizes[i]);
		free(fmts[i]);
	}
	free(fmts);
	free(sizes);
	tracefs_list_free(events);
	return 0;
}

/* saved_cmdlines, with our own threads' lines (EXTRA) taking precedence. */
static char *build_cmdlines(const char *extra)
{
	char *saved = tracefs_instance_file_read(NULL, "saved_cmdlines", NULL);
	size_t cap = (saved ? strlen(saved) : 0) + (extra ? strlen(extra) : 0) + 2;
	char *out = malloc(cap), *line, *save = NULL;
	size_t o = 0;

	if (!out) {
		free(saved);
		return NULL;
	}
	out[0] = 0;
	if (extra) {
		o += snprintf(out + o, cap - o, "%s", extra);
		if (o && out[o - 1] != '\n')
			o += snprintf(out + o, cap - o, "\n");
	}
	for (line = saved ? strtok_r(saved, "\n", &save) : NULL; line; line = strtok_r(NULL, "\n", &save)) {
		char key[24];
		int pid = atoi(line);

		snprintf(key, sizeof(key), "%d ", pid);
		if (extra) {
			char pat[32];

			snprintf(pat, sizeof(pat), "\n%d ", pid);
			if (!strncmp(extra, key, strlen(key)) || strstr(extra, pat))
				continue;
		}
		o += snprintf(out + o, cap - o, "%s\n", line);
	}
	free(saved);
	return out;
}

/* The initial format, the header info, the ftrace formats and those of the event systems SRC's groups record
 * from. 0, or -1 when tracefs could not be read. */
static int put_formats(struct out *o, const struct jl_tracedat_src *src)
{
	static const char magic[] = { 0x17, 0x08, 0x44, 't', 'r', 'a', 'c', 'i', 'n', 'g' };
	const char *systems[JL_TRACE_MAX_SYSTEMS];
	uint32_t nsys;

	put(o, magic, sizeof(magic));
	put(o, "6", 2);
	put(o, (char[]){ 0 }, 1);              /* little endian */
	put(o, (char[]){ sizeof(long) }, 1);   /* user-space long size */
	put32(o, (uint32_t)src->page_size);
	put(o, "header_page", 12);
	if (put_file64(o, "events/header_page") < 0)
		return -1;
	put(o, "header_event", 13);
	if (put_file64(o, "events/header_event") < 0)
		return -1;
	if (put_system_formats(o, "ftrace") < 0) /* print, raw_data, ... */
		return -1;
	/* event systems: the ones the recorded groups' events come from (sched, task, irq, ipi, timer) */
	nsys = (uint32_t)jl_trace_systems(src->groups, systems, JL_TRACE_MAX_SYSTEMS);
	put32(o, nsys);
	for (uint32_t i = 0; i < nsys; i++) {
		put(o, systems[i], strlen(systems[i]) + 1);
		if (put_system_formats(o, systems[i]) < 0)
			return -1;
	}
	return 0;
}

/* The options (the trace clock) and the flyrecord section's start. */
static void put_options(struct out *o, const struct jl_tracedat_src *src)
{
	const char *b = strchr(src->clock, '['), *e = b ? strchr(b, ']') : NULL;
	char clockopt[64];

	/* the option names the clock without brackets: libtracecmd 3.1 takes the clock from the text after the
	 * CPU offsets, and parsing a bracketed name twice would leak the first copy */
	if (b && e)
		snprintf(clockopt, sizeof(clockopt), "%.*s", (int)(e - b - 1), b + 1);
	else
		snprintf(clockopt, sizeof(clockopt), "mono");
	put(o, "options  ", 10);
	put16(o, OPT_TRACECLOCK);
	put32(o, (uint32_t)strlen(clockopt) + 1);
	put(o, clockopt, strlen(clockopt) + 1);
	put16(o, OPT_DONE);
	put(o, "flyrecord", 10);
}

/* Each CPU's offset and size, the clock text, then each CPU's pages from a page boundary on. 0, or -1 (I/O). */
static int put_cpu_data(struct out *o, const struct jl_tracedat_src *src)
{
	long pos = ftell(o->f);
	uint64_t off;
	char *page;

	if (pos < 0)
		return -1;
	/* offsets: the header so far + the offset table + the clock text, rounded up to a page */
	off = (uint64_t)pos + 16ull * src->ncpus + 8 + strlen(src->clock);
	off = (off + src->page_size - 1) / src->page_size * src->page_size;
	for (int c = 0; c < src->ncpus; c++) {
		put64(o, src->cpu_bytes[c] ? off : 0);
		put64(o, src->cpu_bytes[c]);
		off += src->cpu_bytes[c];
	}
	put64(o, strlen(src->clock));
	put(o, src->clock, strlen(src->clock));
	pos = ftell(o->f);
	if (pos < 0)
		return -1;
	while (pos % src->page_size) {
		put(o, (char[]){ 0 }, 1);
		pos++;
	}
	page = malloc(src->page_size);
	if (!page)
		return -1;
	for (int c = 0; c < src->ncpus; c++)
		for (uint64_t done = 0; done < src->cpu_bytes[c]; done += src->page_size) {
			if (pread(src->cpu_fd[c], page, src->page_size, (off_t)done) != src->page_size) {
				free(page);
				return -1;
			}
			put(o, page, src->page_size);
		}
	free(page);
	return 0;
}

int jl_tracedat_write(const char *path, const struct jl_tracedat_src *src, char *err, size_t errlen)
{
	struct jl_outfile of;
	struct out o = { 0 };
	char *cmdlines = NULL;

	if (jl_output_open_path(&of, path)) {
		snprintf(err, errlen, "trace: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	o.f = of.fp;
	if (put_formats(&o, src) < 0) {
		snprintf(err, errlen, "trace: cannot read the event formats from tracefs: %s", strerror(errno));
		jl_output_abort(&of);
		return -1;
	}
	put32(&o, src->kallsyms ? (uint32_t)strlen(src->kallsyms) : 0); /* the symbols the events use */
	if (src->kallsyms)
		put(&o, src->kallsyms, strlen(src->kallsyms));
	put32(&o, 0); /* printk formats */
	cmdlines = build_cmdlines(src->extra_cmdlines);
	if (!cmdlines)
		goto fail_io;
	put64(&o, strlen(cmdlines));
	put(&o, cmdlines, strlen(cmdlines));
	put32(&o, (uint32_t)src->ncpus);
	put_options(&o, src);
	if (put_cpu_data(&o, src) < 0)
		goto fail_io;
	free(cmdlines);
	if (o.failed) {
		jl_output_abort(&of);
		errno = EIO;
		goto fail_io_closed;
	}
	if (jl_output_commit(&of))
		goto fail_io_closed;
	return 0;
fail_io:
	jl_output_abort(&of);
	free(cmdlines);
fail_io_closed:
	snprintf(err, errlen, "trace: cannot write %s: %s", path, strerror(errno ? errno : EIO));
	return -1;
}
