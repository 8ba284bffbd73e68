/* rows: the rows KernelShark shows a trace in (its merged order, a "missed events" entry after each gap),
 * counted before given timestamps: where the session's markers go. */
#include <stdio.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "decode.h"
#include "pages.h"
#include "read.h"

/* What is counted: for each of NTS timestamps, the rows before it. */
struct rows {
	const int64_t *ts;
	long *rows;
	int nts;
};

static int on_row(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct rows *r = data;

	(void)h, (void)cpu;
	for (int i = 0; i < r->nts; i++) {
		if ((int64_t)rec->ts < r->ts[i])
			r->rows[i] += rec->missed_events ? 2 : 1; /* KernelShark adds a "missed events" entry */
	}
	return 0;
}

int jl_trace_rows(const char *path, const int64_t *ts, long *rows, int n, char *err, size_t errlen)
{
	struct rows r = { .ts = ts, .rows = rows, .nts = n };
	struct tracecmd_input *h = jl_dat_open(path, err, errlen);
	int rc;

	if (!h)
		return -1;
	for (int i = 0; i < n; i++)
		rows[i] = 0;
	rc = jl_dat_iterate(h, path, on_row, &r);
	tracecmd_close(h);
	if (rc < 0) {
		snprintf(err, errlen, "trace: reading %s failed", path);
		return -1;
	}
	return 0;
}

int jl_trace_rows_pages(const struct jl_trace_pages *src, const int64_t *ts, long *rows, int n, char *err,
			size_t errlen)
{
	struct rows r = { .ts = ts, .rows = rows, .nts = n };

	for (int i = 0; i < n; i++)
		rows[i] = 0;
	if (jl_pages_iterate(src, on_row, &r) < 0) {
		snprintf(err, errlen, "trace: reading the recorded pages failed");
		return -1;
	}
	return 0;
}
