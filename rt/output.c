/* output: run directory and atomic file writes. All JSON is produced by json-c. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdbool.h>
#include <libgen.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

void jl_output_chown(const char *path)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");

	if (!u || !g || geteuid() != 0)
		return;
	if (lchown(path, (uid_t)strtoul(u, NULL, 10), (gid_t)strtoul(g, NULL, 10)))
		return; /* best effort: the files stay root's */
}

/* mkdir -p; only the directories created here are given to the sudo user (never an existing one
 * such as /tmp). */
static int mkdir_p(const char *path)
{
	char buf[4096];
	char *p = buf + 1;

	snprintf(buf, sizeof(buf), "%s", path);
	for (;;) {
		bool last;

		p += strcspn(p, "/");
		last = !*p;
		*p = '\0';
		if (mkdir(buf, 0755) == 0)
			jl_output_chown(buf);
		else if (errno != EEXIST)
			return -1;
		if (last)
			return 0;
		*p++ = '/';
	}
}

int jl_output_make_run_dir(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen)
{
	char base[4096], stamp[32];
	time_t now = time(NULL);
	struct tm tm;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(base, sizeof(base), "%s/%s", out_root, name);
	if (mkdir_p(base)) {
		snprintf(err, errlen, "cannot create %s: %s", base, strerror(errno));
		return -1;
	}
	for (int i = 1; i < 1000; i++) {
		if (i == 1)
			snprintf(dir, len, "%s/%s", base, stamp);
		else
			snprintf(dir, len, "%s/%s-%d", base, stamp, i);
		if (mkdir(dir, 0755) == 0) {
			jl_output_chown(dir);
			return 0;
		}
		if (errno != EEXIST)
			break;
	}
	snprintf(err, errlen, "cannot create a run directory under %s: %s", base, strerror(errno));
	return -1;
}

int jl_output_link_latest(const char *dir)
{
	char copy[4096], parent[4096], tmp[4200], link[4200];
	const char *leaf;

	snprintf(copy, sizeof(copy), "%s", dir);
	leaf = strrchr(dir, '/') ? strrchr(dir, '/') + 1 : dir;
	snprintf(parent, sizeof(parent), "%s", dirname(copy));
	snprintf(tmp, sizeof(tmp), "%s/.latest.%d", parent, (int)getpid());
	snprintf(link, sizeof(link), "%s/latest", parent);
	unlink(tmp);
	if (symlink(leaf, tmp))
		return -1;
	jl_output_chown(tmp);
	if (rename(tmp, link)) {
		unlink(tmp);
		return -1;
	}
	return 0;
}

int jl_output_make_dir_latest(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen)
{
	if (jl_output_make_run_dir(out_root, name, dir, len, err, errlen))
		return -1;
	if (jl_output_link_latest(dir)) {
		snprintf(err, errlen, "cannot point %s/%s/latest at %s: %s", out_root, name, dir, strerror(errno));
		return -1;
	}
	return 0;
}

int jl_output_open(struct jl_outfile *of, const char *dir, const char *file)
{
	int fd;

	snprintf(of->path, sizeof(of->path), "%s/%s", dir, file);
	snprintf(of->tmp, sizeof(of->tmp), "%s/.%s.tmp", dir, file);
	fd = open(of->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0)
		return -1;
	of->fp = fdopen(fd, "w");
	if (!of->fp) {
		close(fd);
		unlink(of->tmp);
		return -1;
	}
	return 0;
}

int jl_output_commit(struct jl_outfile *of)
{
	int rc = 0;

	if (fflush(of->fp) || ferror(of->fp) || fsync(fileno(of->fp)))
		rc = -1;
	if (fclose(of->fp))
		rc = -1;
	of->fp = NULL;
	if (rc == 0 && rename(of->tmp, of->path))
		rc = -1;
	if (rc) {
		int e = errno;

		unlink(of->tmp);
		errno = e;
		return -1;
	}
	jl_output_chown(of->path);
	return 0;
}

void jl_output_abort(struct jl_outfile *of)
{
	if (of->fp)
		fclose(of->fp);
	of->fp = NULL;
	unlink(of->tmp);
}

int jl_output_write_json(const char *dir, const char *file, json_object *obj)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return jl_output_write_json_path(path, obj);
}

static int open_path(struct jl_outfile *of, const char *path)
{
	char copy[4096], dir[4096];
	const char *base = strrchr(path, '/');

	snprintf(copy, sizeof(copy), "%s", path);
	snprintf(dir, sizeof(dir), "%s", base ? dirname(copy) : ".");
	return jl_output_open(of, dir, base ? base + 1 : path);
}

int jl_output_write_scenario(const char *path, const struct jl_scenario *sc)
{
	struct jl_outfile of;

	if (open_path(&of, path))
		return -1;
	if (jl_scenario_write(sc, of.fp)) {
		jl_output_abort(&of);
		return -1;
	}
	return jl_output_commit(&of);
}

int jl_output_write_json_path(const char *path, json_object *obj)
{
	struct jl_outfile of;
	const char *text;

	if (open_path(&of, path))
		return -1;
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	fputs(text, of.fp);
	fputc('\n', of.fp);
	return jl_output_commit(&of);
}

int jl_output_write_samples(const char *dir, const struct jl_thread_result *res, int n)
{
	struct jl_outfile of;

	if (jl_output_open(&of, dir, "samples.csv"))
		return -1;
	fputs("thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped\n", of.fp);
	for (int t = 0; t < n; t++) {
		const struct jl_thread_result *r = &res[t];
		const struct jl_thread *th = r->th;
		int64_t deadline;

		if (!r->measured)
			continue;
		deadline = th->spec->deadline_ns ? th->spec->deadline_ns : th->spec->period_ns;
		for (size_t i = r->first; i < r->first + r->cycles; i++) {
			const struct jl_sample *s = &th->samples[i];
			int64_t period = i > r->first ? s->wake - th->samples[i - 1].wake : 0;

			fprintf(of.fp, "%s,%" PRIu64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%" PRId64 ",%d,%u\n",
				r->name, s->cycle, s->release, s->wake, s->end, s->wake - s->release, period,
				s->end - s->release, s->end > s->release + deadline, s->skipped);
		}
	}
	return jl_output_commit(&of);
}
