/* procfs: small readers and writers of kernel files (procfs.h). */
#include "procfs.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int jl_knob_read(const char *path, char *buf, size_t len)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	ssize_t n;

	if (!len) {
		errno = EINVAL;
		return -1;
	}
	if (fd < 0)
		return -1;
	n = read(fd, buf, len - 1);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	close(fd);
	buf[n] = '\0';
	buf[strcspn(buf, "\n")] = '\0';
	return 0;
}

int jl_knob_write(const char *path, const char *value)
{
	/* O_TRUNC as a shell's `>` does: sysfs/procfs ignore it, plain files (tests) need it */
	int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
	size_t len = strlen(value);
	ssize_t n;

	if (fd < 0)
		return -1;
	n = write(fd, value, len);
	if (n < 0) {
		int e = errno;

		close(fd);
		errno = e;
		return -1;
	}
	if (close(fd) < 0)
		return -1;
	if ((size_t)n != len) {
		errno = EIO;
		return -1;
	}
	return 0;
}

int jl_stat_field(pid_t pid, int field, unsigned long long *out)
{
	char path[64], buf[1024];
	const char *p;

	snprintf(path, sizeof(path), "/proc/%d/stat", (int)pid);
	if (jl_knob_read(path, buf, sizeof(buf))) {
		if (errno == ENOENT)
			errno = ESRCH;
		return -1;
	}
	p = strrchr(buf, ')'); /* comm may contain spaces and parentheses */
	if (!p || field < 3) {
		errno = EINVAL;
		return -1;
	}
	p++; /* the space before field 3 */
	for (int f = 3; f < field; f++) {
		p = strchr(p + 1, ' ');
		if (!p) {
			errno = EINVAL;
			return -1;
		}
	}
	*out = strtoull(p + 1, NULL, 10);
	return 0;
}

int jl_proc_start_time(pid_t pid, unsigned long long *start)
{
	return jl_stat_field(pid, 22, start);
}

bool jl_proc_is(pid_t pid, unsigned long long start)
{
	unsigned long long now;

	return pid > 0 && jl_proc_start_time(pid, &now) == 0 && now == start;
}

int jl_proc_flags(pid_t tid, unsigned long long *flags)
{
	return jl_stat_field(tid, 9, flags);
}

bool jl_proc_is_kthread(pid_t tid)
{
	unsigned long long flags;

	return jl_proc_flags(tid, &flags) == 0 && (flags & 0x00200000ULL); /* PF_KTHREAD */
}

int jl_irq_thread_irq(pid_t tid, char *comm)
{
	char path[64], name[64];
	char *end;
	long irq;

	snprintf(path, sizeof(path), "/proc/%d/comm", (int)tid);
	if (jl_knob_read(path, name, sizeof(name)) || strncmp(name, "irq/", 4))
		return -1;
	irq = strtol(name + 4, &end, 10);
	if (end == name + 4 || *end != '-' || irq < 0 || irq >= 1 << 20 || !jl_proc_is_kthread(tid))
		return -1;
	if (comm)
		snprintf(comm, 16, "%s", name);
	return (int)irq;
}
