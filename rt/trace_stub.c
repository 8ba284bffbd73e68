/* trace_stub: placeholder until the tracing module lands (issue 4): tracing reports "not available". */
#include <stdlib.h>
#include <stdio.h>

#include "trace.h"

int jl_trace_start(struct jl_trace **out, const struct jl_run_spec *run, char *err, size_t errlen)
{
	(void)run;
	*out = NULL;
	snprintf(err, errlen, "tracing is not built into this version");
	return -1;
}

void jl_trace_mark(void *ctx, const struct jl_thread *th, uint64_t cycle, int64_t latency_ns, bool miss)
{
	(void)ctx, (void)th, (void)cycle, (void)latency_ns, (void)miss;
}

int jl_trace_finish(struct jl_trace *t, const struct jl_engine *eng, const char *run_dir,
		    struct jl_trace_result *res, char *err, size_t errlen)
{
	(void)t, (void)eng, (void)run_dir, (void)res;
	snprintf(err, errlen, "tracing is not built into this version");
	return -1;
}

void jl_trace_destroy(struct jl_trace *t)
{
	(void)t;
}

void jl_trace_result_free(struct jl_trace_result *res)
{
	if (!res)
		return;
	if (res->block)
		json_object_put(res->block);
	free(res->text);
	free(res->open_hint);
	res->block = NULL;
	res->text = res->open_hint = NULL;
}
