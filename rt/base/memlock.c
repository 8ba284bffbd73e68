/* memlock: lock only what the measured threads touch (memlock.h). */
#include "memlock.h"

#include <errno.h>
#include <link.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

static atomic_bool on;
static atomic_bool warned;

void jl_memlock_begin(void)
{
	atomic_store(&on, true);
}

void jl_memlock_end(void)
{
	if (atomic_exchange(&on, false))
		munlockall();
}

void jl_memlock_range(const void *p, size_t len)
{
	uintptr_t ps = (uintptr_t)sysconf(_SC_PAGESIZE), a, b;

	if (!atomic_load(&on) || !p || !len)
		return;
	a = (uintptr_t)p & ~(ps - 1);
	b = ((uintptr_t)p + len + ps - 1) & ~(ps - 1);
	if (mlock((const void *)a, b - a) && !atomic_exchange(&warned, true))
		fprintf(stderr, "jitterlab: warning: mlock: %s (page faults may add latency)\n", strerror(errno));
}

/* The objects a cycle runs: the program itself (its name is ""), and the C library, the maths library and
 * the dynamic loader it calls into. */
static bool on_cycle_path(const char *name)
{
	const char *base = strrchr(name, '/');

	base = base ? base + 1 : name;
	return !name[0] || !strncmp(base, "libc.so", 7) || !strncmp(base, "libm.so", 7) ||
	       !strncmp(base, "ld-linux", 8) || !strncmp(base, "libpthread.so", 13);
}

static int lock_object(struct dl_phdr_info *info, size_t size, void *data)
{
	(void)size, (void)data;
	if (!on_cycle_path(info->dlpi_name ? info->dlpi_name : ""))
		return 0;
	for (int i = 0; i < info->dlpi_phnum; i++) {
		const ElfW(Phdr) *ph = &info->dlpi_phdr[i];

		if (ph->p_type == PT_LOAD && ph->p_memsz)
			jl_memlock_range((const void *)(info->dlpi_addr + ph->p_vaddr), ph->p_memsz);
	}
	return 0;
}

void jl_memlock_code(void)
{
	if (atomic_load(&on))
		dl_iterate_phdr(lock_object, NULL);
}

void jl_memlock_stack(void)
{
	pthread_attr_t attr;
	void *addr;
	size_t len;

	if (!atomic_load(&on) || pthread_getattr_np(pthread_self(), &attr))
		return;
	if (!pthread_attr_getstack(&attr, &addr, &len))
		jl_memlock_range(addr, len);
	pthread_attr_destroy(&attr);
}
