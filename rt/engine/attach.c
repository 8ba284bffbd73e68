/* attach: see attach.h. Reads /proc only. */
#include "attach.h"

#include "../scenario/scenario.h"

#include <dirent.h>
#include <errno.h>
#include <fnmatch.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define PF_KTHREAD 0x00200000 /* /proc/PID/stat's flags: a kernel thread */

int jl_attach_parse(const char *value, struct jl_attach_sel *sel, int max)
{
	char buf[256], *save = NULL, *tok;
	int n = 0;

	snprintf(buf, sizeof(buf), "%s", value);
	for (tok = strtok_r(buf, ", ", &save); tok && n < max; tok = strtok_r(NULL, ", ", &save)) {
		struct jl_attach_sel *s = &sel[n++];

		memset(s, 0, sizeof(*s));
		if (!strncmp(tok, "pid:", 4) || !strncmp(tok, "tid:", 4)) {
			s->kind = tok[0] == 'p' ? JL_ATTACH_PID : JL_ATTACH_TID;
			s->id = (int32_t)atol(tok + 4);
		} else if (!strncmp(tok, "comm:", 5)) {
			s->kind = JL_ATTACH_COMM;
			snprintf(s->glob, sizeof(s->glob), "%s", tok + 5);
		} else {
			s->kind = JL_ATTACH_RT;
		}
	}
	return n;
}

bool jl_attach_selects(const struct jl_attach_sel *sel, int n, int32_t tid, int32_t tgid, const char *comm, bool rt)
{
	for (int i = 0; i < n; i++)
		if ((sel[i].kind == JL_ATTACH_PID && tgid == sel[i].id) || (sel[i].kind == JL_ATTACH_TID && tid == sel[i].id) ||
		    (sel[i].kind == JL_ATTACH_COMM && comm && fnmatch(sel[i].glob, comm, 0) == 0) ||
		    (sel[i].kind == JL_ATTACH_RT && rt))
			return true;
	return false;
}

/* /proc/TGID/task/TID/stat's comm and flags. */
static bool task_stat(int32_t tgid, int32_t tid, char *comm, size_t len, unsigned long *flags)
{
	char path[64], line[1024], *l, *r;
	FILE *f;
	bool ok = false;

	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", (int)tgid, (int)tid);
	f = fopen(path, "re");
	if (!f)
		return false;
	if (fgets(line, sizeof(line), f) && (l = strchr(line, '(')) && (r = strrchr(line, ')'))) {
		snprintf(comm, len, "%.*s", (int)(r - l - 1), l + 1);
		/* after ") ": state ppid pgrp session tty_nr tpgid flags */
		ok = sscanf(r + 2, "%*c %*d %*d %*d %*d %*d %lu", flags) == 1;
	}
	fclose(f);
	return ok;
}

/* Is TID's policy FIFO, RR or DEADLINE (rtkit's threads carry SCHED_RESET_ON_FORK too)? */
static bool rt_policy(int32_t tid)
{
	int pol = sched_getscheduler(tid);

	pol = pol < 0 ? pol : pol & ~SCHED_RESET_ON_FORK;
	return pol == SCHED_FIFO || pol == SCHED_RR || pol == 6 /* SCHED_DEADLINE */;
}

bool jl_attach_is_kthread(int32_t tid)
{
	char comm[64];
	unsigned long flags = 0;

	return task_stat(tid, tid, comm, sizeof(comm), &flags) && (flags & PF_KTHREAD);
}

bool jl_attach_is_rt_user(int32_t tid)
{
	char comm[64];
	unsigned long flags = 0;

	return rt_policy(tid) && task_stat(tid, tid, comm, sizeof(comm), &flags) && !(flags & PF_KTHREAD);
}

int jl_attach_scan(const char *value, pid_t self, int32_t **out)
{
	struct jl_attach_sel sel[16];
	int nsel = jl_attach_parse(value, sel, 16), n = 0, cap = 16;
	DIR *procs = opendir("/proc");
	struct dirent *p;
	int32_t *v = malloc((size_t)cap * sizeof(*v));

	*out = NULL;
	if (!procs || !v) {
		if (procs)
			closedir(procs);
		free(v);
		errno = ENOMEM;
		return -1;
	}
	while ((p = readdir(procs))) {
		int32_t tgid = (int32_t)atol(p->d_name);
		char path[64];
		DIR *tasks;
		struct dirent *t;

		if (tgid <= 0 || tgid == self)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task", (int)tgid);
		tasks = opendir(path);
		while (tasks && (t = readdir(tasks))) {
			int32_t tid = (int32_t)atol(t->d_name);
			char comm[64];
			unsigned long flags = 0;
			bool rt;

			if (tid <= 0 || !task_stat(tgid, tid, comm, sizeof(comm), &flags) || (flags & PF_KTHREAD))
				continue; /* kernel threads are the kernel's, never a program's */
			rt = rt_policy(tid);
			if (!jl_attach_selects(sel, nsel, tid, tgid, comm, rt))
				continue;
			if (n == cap) {
				int32_t *w = realloc(v, (size_t)cap * 2 * sizeof(*v));

				if (!w) {
					closedir(tasks);
					closedir(procs);
					free(v);
					errno = ENOMEM;
					return -1;
				}
				v = w;
				cap *= 2;
			}
			v[n++] = tid;
		}
		if (tasks)
			closedir(tasks);
	}
	closedir(procs);
	*out = v;
	return n;
}

bool jl_attach_refused(const char *value, pid_t self, char *err, size_t errlen)
{
	struct jl_attach_sel sel[16];
	int nsel = jl_attach_parse(value, sel, 16), later = 0, found = 0;
	char path[64];

	for (int i = 0; i < nsel; i++) {
		if (sel[i].kind == JL_ATTACH_COMM || sel[i].kind == JL_ATTACH_RT) {
			later++;
			continue;
		}
		if (sel[i].id == self) {
			snprintf(err, errlen, "%s:%d is jitterlab itself (expected a program to watch)",
				 sel[i].kind == JL_ATTACH_PID ? "pid" : "tid", (int)self);
			return true;
		}
		snprintf(path, sizeof(path), sel[i].kind == JL_ATTACH_PID ? "/proc/%d/task" : "/proc/%d", (int)sel[i].id);
		found += access(path, F_OK) == 0;
	}
	if (!later && !found) {
		snprintf(err, errlen, "no process or thread %s exists (expected a running one; comm:GLOB or rt also wait for "
			 "threads to appear)", value);
		return true;
	}
	return false;
}

bool jl_attach_is_self(int32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/self/task/%d", (int)tid);
	return tid == getpid() || access(path, F_OK) == 0;
}

bool jl_attach_alive(int32_t tid)
{
	char path[64];

	snprintf(path, sizeof(path), "/proc/%d", (int)tid);
	return access(path, F_OK) == 0;
}

int jl_attach_policy(int32_t tid, int *priority, int *nice)
{
	struct sched_param sp = { 0 };
	int pol = sched_getscheduler(tid);

	*priority = *nice = 0;
	if (pol < 0 || sched_getparam(tid, &sp))
		return -1;
	errno = 0;
	*nice = getpriority(PRIO_PROCESS, (id_t)tid);
	if (errno)
		*nice = 0;
	*priority = sp.sched_priority;
	switch (pol & ~SCHED_RESET_ON_FORK) {
	case SCHED_FIFO: return JL_POLICY_FIFO;
	case SCHED_RR: return JL_POLICY_RR;
	case SCHED_BATCH: return JL_POLICY_BATCH;
	case SCHED_IDLE: return JL_POLICY_IDLE;
	case 6: return JL_POLICY_DEADLINE;
	default: return JL_POLICY_OTHER;
	}
}
