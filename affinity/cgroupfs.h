/* cgroupfs: removing a cgroup jitterlab made (v1 cpuset or v2), whatever was put inside it since. */
#ifndef JL_CGROUPFS_H
#define JL_CGROUPFS_H

#include <stddef.h>

/* Remove DIR and every child cgroup in it, depth-first, moving each one's tasks (DIR/.../TASKS_NAME) to
 * PARENT_TASKS first (retrying while tasks arrive). A missing DIR is success. 0, or -1 with errno and
 * WHY naming the directory that stayed and how many tasks are left in it. */
int jl_cgroup_remove(const char *dir, const char *tasks_name, const char *parent_tasks, char *why, size_t whylen);

#endif
