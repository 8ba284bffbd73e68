/* output: the run directory and the one writer of every output file (see output.h): every path is
 * walked from / (or .) with openat(O_NOFOLLOW), files are created relative to their directory's fd
 * with O_CREAT|O_EXCL|O_NOFOLLOW, fsynced, fchowned to the sudo user and renamed with renameat. Must
 * never follow a symlink it did not check, open a file by a path it did not walk, or chown anything it
 * did not create. All JSON is produced by json-c. */
#include "output.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <stdbool.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

bool jl_output_sudo_user(uid_t *uid, gid_t *gid)
{
	const char *u = getenv("SUDO_UID"), *g = getenv("SUDO_GID");
	unsigned long long uu, gg;
	char *ue, *ge;

	if (!u || !g || !*u || !*g || geteuid() != 0)
		return false;
	errno = 0;
	uu = strtoull(u, &ue, 10);
	gg = strtoull(g, &ge, 10);
	if (errno || *ue || *ge || uu >= (uid_t)-1 || gg >= (gid_t)-1)
		return false;
	*uid = (uid_t)uu;
	*gid = (gid_t)gg;
	return true;
}

/* Give FD (a file or directory this process created) to the sudo user. Best effort: it stays root's. */
static void give(int fd)
{
	uid_t u;
	gid_t g;

	if (jl_output_sudo_user(&u, &g) && fchown(fd, u, g))
		return;
}

/* Root, this process's user or the invoking sudo user. */
static bool owner_ok(uid_t owner)
{
	uid_t u;
	gid_t g;

	return owner == 0 || owner == geteuid() || (jl_output_sudo_user(&u, &g) && owner == u);
}

static int refuse(char *err, size_t errlen, const char *fmt, const char *shown, unsigned long id)
{
	snprintf(err, errlen, fmt, shown, id);
	errno = EPERM;
	return -1;
}

/* An existing directory on the way: owned by root or us, and not writable by everyone unless sticky. */
static int check_dir(int fd, const char *shown, char *err, size_t errlen)
{
	struct stat st;

	if (fstat(fd, &st)) {
		snprintf(err, errlen, "cannot stat %s: %s", shown, strerror(errno));
		return -1;
	}
	if (!owner_ok(st.st_uid))
		return refuse(err, errlen, "%s is owned by uid %lu, neither root nor the invoking user: refusing to write there",
			      shown, (unsigned long)st.st_uid);
	if ((st.st_mode & S_IWOTH) && !(st.st_mode & S_ISVTX))
		return refuse(err, errlen, "%s is writable by everyone (mode %lo) without the sticky bit: refusing to write there",
			      shown, (unsigned long)(st.st_mode & 07777));
	return 0;
}

/* Open PATH as a directory, one component at a time (see output.h); with CREATE, missing components
 * are made (0755, given to the sudo user). An fd, or -1 with errno and ERR. */
static int walk(const char *path, bool create, char *err, size_t errlen)
{
	char buf[PATH_MAX], shown[PATH_MAX + 2], *save = NULL;
	size_t sl;
	int fd, saved;

	if (!*path || strlen(path) >= sizeof(buf)) {
		snprintf(err, errlen, "'%s' is not a usable directory path", path);
		errno = *path ? ENAMETOOLONG : ENOENT;
		return -1;
	}
	snprintf(buf, sizeof(buf), "%s", path);
	snprintf(shown, sizeof(shown), "%s", path[0] == '/' ? "/" : ".");
	fd = open(shown, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0) {
		snprintf(err, errlen, "cannot open %s: %s", shown, strerror(errno));
		return -1;
	}
	if (check_dir(fd, shown, err, errlen))
		goto fail;
	sl = path[0] == '/' ? 1 : 0;
	shown[sl] = '\0';
	for (char *c = strtok_r(buf, "/", &save); c; c = strtok_r(NULL, "/", &save)) {
		struct stat st;
		bool made = false;
		int nfd;

		sl += (size_t)snprintf(shown + sl, sizeof(shown) - sl, "%s%s", sl && shown[sl - 1] != '/' ? "/" : "", c);
		if (sl >= sizeof(shown))
			sl = sizeof(shown) - 1;
		if (!strcmp(c, "."))
			continue;
		for (int tries = 0;; tries++) {
			if (fstatat(fd, c, &st, AT_SYMLINK_NOFOLLOW) == 0)
				break;
			if (errno != ENOENT || !create || tries > 3)
				goto fail_errno;
			if (mkdirat(fd, c, 0755) == 0) {
				made = true;
				break;
			}
			if (errno != EEXIST)
				goto fail_errno;
		}
		if (!made && S_ISLNK(st.st_mode)) {
			if (!owner_ok(st.st_uid)) {
				refuse(err, errlen, "%s is a symlink owned by uid %lu (only root's and the invoking user's are followed): refusing it",
				       shown, (unsigned long)st.st_uid);
				goto fail;
			}
			nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			nfd = openat(fd, c, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		}
		if (nfd < 0)
			goto fail_errno;
		close(fd);
		fd = nfd;
		if (made && fstat(fd, &st) == 0 && st.st_uid == geteuid())
			give(fd);
		else if (check_dir(fd, shown, err, errlen))
			goto fail;
		continue;
fail_errno:
		saved = errno;
		snprintf(err, errlen, "cannot %s %s: %s", create ? "create" : "open", shown,
			 saved == ELOOP ? "it is a symlink (not followed)" : strerror(saved));
		errno = saved;
		goto fail;
	}
	return fd;
fail:
	saved = errno;
	close(fd);
	errno = saved;
	return -1;
}

int jl_output_dir_open(const char *dir, char *err, size_t errlen)
{
	return walk(dir, false, err, errlen);
}

/* Split PATH into its directory (DIR, "." or "/" when it has none) and last component (BASE). */
static void split_path(const char *path, char *dir, size_t dl, const char **base)
{
	const char *slash = strrchr(path, '/');

	if (!slash) {
		snprintf(dir, dl, ".");
		*base = path;
	} else {
		snprintf(dir, dl, "%.*s", slash == path ? 1 : (int)(slash - path), path);
		*base = slash + 1;
	}
}

int jl_output_make_run_dir(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen)
{
	char base[PATH_MAX], stamp[32], why[PATH_MAX + 200];
	time_t now = time(NULL);
	struct tm tm;
	int bfd;

	localtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%d-%H%M%S", &tm);
	snprintf(base, sizeof(base), "%s/%s", out_root, name);
	bfd = walk(base, true, why, sizeof(why));
	if (bfd < 0) {
		int e = errno;

		snprintf(err, errlen, "output directory %s: %s", base, why);
		errno = e;
		return -1;
	}
	for (int i = 1; i < 1000; i++) {
		char leaf[48];
		int fd;

		if (i == 1)
			snprintf(leaf, sizeof(leaf), "%s", stamp);
		else
			snprintf(leaf, sizeof(leaf), "%s-%d", stamp, i);
		if (mkdirat(bfd, leaf, 0755)) {
			if (errno == EEXIST)
				continue;
			break;
		}
		fd = openat(bfd, leaf, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		if (fd < 0)
			break;
		give(fd);
		close(fd);
		close(bfd);
		snprintf(dir, len, "%s/%s", base, leaf);
		return 0;
	}
	{
		int e = errno;

		snprintf(err, errlen, "cannot create a run directory under %s: %s", base, strerror(e));
		close(bfd);
		errno = e;
	}
	return -1;
}

int jl_output_make_subdir(const char *parent, const char *name, char *dir, size_t len, char *err, size_t errlen)
{
	char path[PATH_MAX], why[PATH_MAX + 200];
	int fd;

	if (!*name || strchr(name, '/') || !strcmp(name, ".") || !strcmp(name, "..")) {
		snprintf(err, errlen, "'%s' is not a directory name", name);
		errno = EINVAL;
		return -1;
	}
	snprintf(path, sizeof(path), "%s/%s", parent, name);
	fd = walk(path, true, why, sizeof(why));
	if (fd < 0) {
		int e = errno;

		snprintf(err, errlen, "%s", why);
		errno = e;
		return -1;
	}
	close(fd);
	snprintf(dir, len, "%s", path);
	return 0;
}

int jl_output_make_dir(const char *path, char *dir, size_t len, char *err, size_t errlen)
{
	char parent[PATH_MAX], leaf[PATH_MAX], *sl;

	snprintf(parent, sizeof(parent), "%s", path);
	while ((sl = strrchr(parent, '/')) && !sl[1] && sl != parent)
		*sl = '\0'; /* "out/" is "out" */
	sl = strrchr(parent, '/');
	snprintf(leaf, sizeof(leaf), "%s", sl ? sl + 1 : parent);
	if (sl)
		sl == parent ? (void)(parent[1] = '\0') : (void)(*sl = '\0');
	else
		snprintf(parent, sizeof(parent), ".");
	return jl_output_make_subdir(parent, leaf, dir, len, err, errlen);
}

int jl_output_link_latest(const char *dir)
{
	char parent[PATH_MAX], tmp[64], why[PATH_MAX + 200];
	const char *leaf;
	uid_t u;
	gid_t g;
	int pfd, e;

	split_path(dir, parent, sizeof(parent), &leaf);
	if (!*leaf) {
		errno = EINVAL;
		return -1;
	}
	pfd = walk(parent, false, why, sizeof(why));
	if (pfd < 0)
		return -1;
	snprintf(tmp, sizeof(tmp), ".latest.%d", (int)getpid());
	unlinkat(pfd, tmp, 0); /* a stale one (a pid reused); never followed */
	if (symlinkat(leaf, pfd, tmp))
		goto fail;
	if (jl_output_sudo_user(&u, &g) && fchownat(pfd, tmp, u, g, AT_SYMLINK_NOFOLLOW)) {
		/* best effort, as for files */
	}
	if (renameat(pfd, tmp, pfd, "latest")) {
		e = errno;
		unlinkat(pfd, tmp, 0);
		errno = e;
		goto fail;
	}
	close(pfd);
	return 0;
fail:
	e = errno;
	close(pfd);
	errno = e;
	return -1;
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

static bool one_component(const char *file)
{
	return *file && !strchr(file, '/') && strcmp(file, ".") && strcmp(file, "..");
}

int jl_output_open(struct jl_outfile *of, const char *dir, const char *file)
{
	char why[PATH_MAX + 200];
	int e;

	of->fp = NULL;
	of->fd = -1;
	of->dirfd = -1;
	snprintf(of->path, sizeof(of->path), "%s/%s", dir, file);
	if (!one_component(file) || strlen(file) + 6 > sizeof(of->tmp)) {
		errno = EINVAL;
		return -1;
	}
	snprintf(of->name, sizeof(of->name), "%s", file);
	snprintf(of->tmp, sizeof(of->tmp), ".%s.tmp", file);
	of->dirfd = walk(dir, false, why, sizeof(why));
	if (of->dirfd < 0)
		return -1;
	for (int i = 0; i < 2; i++) {
		of->fd = openat(of->dirfd, of->tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0644);
		if (of->fd >= 0 || errno != EEXIST || i)
			break;
		unlinkat(of->dirfd, of->tmp, 0); /* a stale temporary file or a planted link: removed, never followed */
	}
	if (of->fd < 0)
		goto fail;
	of->fp = fdopen(of->fd, "w");
	if (!of->fp) {
		e = errno;
		close(of->fd);
		of->fd = -1;
		unlinkat(of->dirfd, of->tmp, 0);
		errno = e;
		goto fail;
	}
	return 0;
fail:
	e = errno;
	close(of->dirfd);
	of->dirfd = -1;
	errno = e;
	return -1;
}

int jl_output_open_path(struct jl_outfile *of, const char *path)
{
	char dir[PATH_MAX];
	const char *base;

	split_path(path, dir, sizeof(dir), &base);
	return jl_output_open(of, dir, base);
}

int jl_output_commit(struct jl_outfile *of)
{
	int rc = 0, e;

	if (fflush(of->fp) || ferror(of->fp) || fsync(of->fd))
		rc = -1;
	if (rc == 0)
		give(of->fd);
	e = errno;
	if (fclose(of->fp) && rc == 0) {
		rc = -1;
		e = errno;
	}
	of->fp = NULL;
	of->fd = -1;
	if (rc == 0 && renameat(of->dirfd, of->tmp, of->dirfd, of->name)) {
		rc = -1;
		e = errno;
	}
	if (rc)
		unlinkat(of->dirfd, of->tmp, 0);
	close(of->dirfd);
	of->dirfd = -1;
	errno = e;
	return rc;
}

void jl_output_abort(struct jl_outfile *of)
{
	int e = errno;

	if (of->fp)
		fclose(of->fp);
	else if (of->fd >= 0)
		close(of->fd);
	of->fp = NULL;
	of->fd = -1;
	if (of->dirfd >= 0) {
		unlinkat(of->dirfd, of->tmp, 0);
		close(of->dirfd);
	}
	of->dirfd = -1;
	errno = e;
}

int jl_output_create_path(const char *path)
{
	char dir[PATH_MAX], why[PATH_MAX + 200];
	const char *base;
	int dfd, fd, e;

	split_path(path, dir, sizeof(dir), &base);
	if (!one_component(base)) {
		errno = EINVAL;
		return -1;
	}
	dfd = walk(dir, false, why, sizeof(why));
	if (dfd < 0)
		return -1;
	fd = openat(dfd, base, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_APPEND | O_CLOEXEC, 0644);
	e = errno;
	if (fd >= 0)
		give(fd);
	close(dfd);
	errno = e;
	return fd;
}

void jl_output_csv_field(FILE *fp, const char *s)
{
	if (!s)
		return;
	if (!strpbrk(s, ",\"\r\n")) {
		fputs(s, fp);
		return;
	}
	fputc('"', fp);
	for (; *s; s++) {
		if (*s == '"')
			fputc('"', fp);
		fputc(*s, fp);
	}
	fputc('"', fp);
}

int jl_output_write_json(const char *dir, const char *file, json_object *obj)
{
	char path[4096];

	snprintf(path, sizeof(path), "%s/%s", dir, file);
	return jl_output_write_json_path(path, obj);
}

int jl_output_write_json_path(const char *path, json_object *obj)
{
	struct jl_outfile of;
	const char *text;

	if (jl_output_open_path(&of, path))
		return -1;
	text = json_object_to_json_string_ext(obj, JSON_C_TO_STRING_PRETTY | JSON_C_TO_STRING_SPACED |
							   JSON_C_TO_STRING_NOSLASHESCAPE);
	fputs(text, of.fp);
	fputc('\n', of.fp);
	return jl_output_commit(&of);
}

