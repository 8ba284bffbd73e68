/* machine: minimal version (cpu_dma_latency only) until the affinity module lands (issue 3). */
#include "machine.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct jl_machine {
	int dma_fd;
	int32_t dma_us;
};

int jl_machine_check_stale(char *err, size_t errlen)
{
	(void)err, (void)errlen;
	return 0;
}

int jl_machine_validate(const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen)
{
	(void)sc, (void)unsafe, (void)err, (void)errlen;
	return 0;
}

int jl_machine_apply(struct jl_machine **out, const struct jl_scenario *sc, bool unsafe, char *err, size_t errlen)
{
	struct jl_machine *m = calloc(1, sizeof(*m));

	(void)unsafe;
	if (!m) {
		snprintf(err, errlen, "out of memory");
		return -1;
	}
	m->dma_fd = -1;
	m->dma_us = -1;
	if (sc->run.cpu_dma_latency_ns >= 0) {
		int32_t us = (int32_t)(sc->run.cpu_dma_latency_ns / 1000);

		m->dma_fd = open("/dev/cpu_dma_latency", O_WRONLY | O_CLOEXEC);
		if (m->dma_fd >= 0 && write(m->dma_fd, &us, sizeof(us)) == (ssize_t)sizeof(us))
			m->dma_us = us;
	}
	*out = m;
	return 0;
}

int jl_machine_place_thread(struct jl_machine *m, pid_t tid, bool measured)
{
	(void)m, (void)tid, (void)measured;
	return 0;
}

int jl_machine_register_child(struct jl_machine *m, pid_t pid)
{
	(void)m, (void)pid;
	return 0;
}

void jl_machine_describe(const struct jl_machine *m, json_object *host)
{
	if (!m)
		return;
	json_object_object_add(host, "cpu_dma_latency_us", json_object_new_int(m->dma_us));
}

int jl_machine_restore(struct jl_machine *m)
{
	if (!m)
		return 0;
	if (m->dma_fd >= 0)
		close(m->dma_fd);
	free(m);
	return 0;
}
