/* discover: the real-time tasks of a bare trace (no run directory): the ones with the most wakeups. */
#include <stdio.h>
#include <stdlib.h>

#include <event-parse.h>
#include <trace-cmd.h>

#include "decode.h"
#include "read.h"

struct discover {
	struct jl_decoder r;
	struct { int32_t pid; size_t n; char comm[JL_EVENT_COMM]; } *t;
	size_t nt, cap;
};

static int on_discover(struct tracecmd_input *h, struct tep_record *rec, int cpu, void *data)
{
	struct discover *d = data;
	struct jl_event ev;
	size_t i;

	(void)h;
	jl_decoder_convert(&d->r, rec, cpu, &ev);
	if (ev.kind != JL_EVENT_WAKING || ev.pid <= 0 || ev.prio < 0 || ev.prio >= 99)
		return 0;
	for (i = 0; i < d->nt && d->t[i].pid != ev.pid; i++)
		;
	if (i == d->nt) {
		if (d->nt == d->cap) {
			void *n = realloc(d->t, (d->cap = d->cap ? d->cap * 2 : 64) * sizeof(*d->t));

			if (!n)
				return -1;
			d->t = n;
		}
		const char *known = tep_data_comm_from_pid(d->r.tep, ev.pid); /* the file's cmdlines first */

		d->t[d->nt].pid = ev.pid;
		d->t[d->nt].n = 0;
		snprintf(d->t[d->nt].comm, sizeof(d->t[d->nt].comm), "%s",
			 known && known[0] && known[0] != '<' ? known : ev.comm);
		d->nt++;
	}
	d->t[i].n++;
	return 0;
}

int jl_trace_discover(const char *path, int32_t *pids, char (*names)[JL_EVENT_COMM], int max, int *n, char *err,
		      size_t errlen)
{
	struct discover d = { 0 };
	struct jl_trace_readinfo info = { 0 };
	struct tracecmd_input *h = jl_dat_open(path, err, errlen);
	int rc;

	*n = 0;
	if (!h)
		return -1;
	d.r.tep = tracecmd_get_tep(h);
	d.r.info = &info;
	jl_decoder_setup(&d.r);
	rc = jl_dat_iterate(h, path, on_discover, &d);
	tracecmd_close(h);
	if (rc < 0) {
		free(d.t);
		snprintf(err, errlen, "trace: reading %s failed", path);
		return -1;
	}
	while (*n < max) {
		size_t best = d.nt;

		for (size_t i = 0; i < d.nt; i++)
			if (d.t[i].n >= 2 && (best == d.nt || d.t[i].n > d.t[best].n))
				best = i;
		if (best == d.nt)
			break;
		pids[*n] = d.t[best].pid;
		snprintf(names[*n], JL_EVENT_COMM, "%s", d.t[best].comm);
		d.t[best].n = 0;
		(*n)++;
	}
	free(d.t);
	return 0;
}
