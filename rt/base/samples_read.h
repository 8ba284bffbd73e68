/* samples_read: the one reader of samples.csv (docs/outputs.md: thread,cycle,release_ns,wake_ns,end_ns,
 * latency_ns,period_ns,response_ns,miss,skipped), for analyze, plots, sweeps and the cyclictest bridge.
 * Columns are found by the header's names, so a file with fewer columns (a helper program's own cycles
 * given to `analyze`) reads as long as thread, cycle, release_ns and wake_ns are there. Never writes. */
#ifndef JL_SAMPLES_READ_H
#define JL_SAMPLES_READ_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct jl_sample_row {
	char thread[64];
	uint64_t cycle;
	int64_t release, wake, end;   /* end 0 when the file has no end_ns */
	int64_t period;               /* period_ns: from the previous cycle's wake (kept or not); -1 when the
				       * file has no such column, 0 for a series' first cycle */
	bool miss;
	uint32_t skipped;
};

/* Call ROW for every row of RUN_DIR/samples.csv (only THREAD's when THREAD is not NULL), in file order;
 * a non-zero return from ROW stops the read and is returned. Returns 0, ROW's value, or -1 with ERR
 * (the file cannot be opened: errno ENOENT; or its header lacks a needed column: EINVAL). */
int jl_samples_read(const char *run_dir, const char *thread, int (*row)(void *ctx, const struct jl_sample_row *r),
		    void *ctx, char *err, size_t errlen);

#endif
