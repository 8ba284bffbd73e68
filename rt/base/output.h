/* output: the run directory (<out>/<name>/<YYYYmmdd-HHMMSS>/ + a `latest` link) and the one writer of
 * every output file. A file is created as DIR/.FILE.tmp relative to DIR's fd (opened
 * O_DIRECTORY|O_NOFOLLOW, every component of DIR checked), O_CREAT|O_EXCL|O_NOFOLLOW, written, fsynced,
 * given to the sudo user (fchown) and renamed (renameat) to its real name: a crash never leaves a half
 * file under its real name and no symlink planted in a user's directory is ever followed. A directory
 * path is walked component by component (openat O_NOFOLLOW, mkdirat when missing); an existing
 * component owned by another non-root user, writable by everyone without the sticky bit, or a symlink
 * not owned by root or the invoking user is refused. Never called from a measured thread. */
#ifndef JL_OUTPUT_H
#define JL_OUTPUT_H

#include <json-c/json.h>
#include <stdbool.h>
#include <stdio.h>
#include <sys/types.h>


struct jl_outfile {
	FILE *fp;          /* buffered writer on fd */
	int fd;            /* the temporary file (for writers that need a raw fd: fflush fp first) */
	int dirfd;         /* the directory */
	char tmp[256];     /* names relative to dirfd */
	char name[256];
	char path[4096];   /* DIR/FILE, for messages */
};

/* The invoking user under sudo: true (with UID/GID) when euid is 0 and SUDO_UID and SUDO_GID are both
 * set to numbers. */
bool jl_output_sudo_user(uid_t *uid, gid_t *gid);
/* Open directory DIR (every component checked as described above; a symlink in DIR is followed only
 * when root or the invoking user owns it). An fd, or -1 with errno (EPERM: refused; ERR says why). */
int jl_output_dir_open(const char *dir, char *err, size_t errlen);
/* Create OUT_ROOT/NAME/STAMP (STAMP from the local time; "-2", "-3"... when taken) into DIR; the
 * directories created here (never an existing one) are given to the sudo user. */
int jl_output_make_run_dir(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* Create (or reuse, when it is a directory) PARENT/NAME into DIR; NAME is one path component. */
int jl_output_make_subdir(const char *parent, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* Create (or reuse) the directory PATH as the user named it ("out", "a/b/", "/tmp/x"): its last component in
 * its parent, as jl_output_make_subdir does; into DIR. */
int jl_output_make_dir(const char *path, char *dir, size_t len, char *err, size_t errlen);
/* Point DIR's parent's `latest` at DIR (symlinkat + renameat relative to the parent's fd). */
int jl_output_link_latest(const char *dir);
/* Both: a directory that is `latest` from the start (sweeps, comparisons). */
int jl_output_make_dir_latest(const char *out_root, const char *name, char *dir, size_t len, char *err, size_t errlen);
/* Open DIR/FILE for writing under a temporary name (FILE is one path component). 0 or -1 with errno. */
int jl_output_open(struct jl_outfile *of, const char *dir, const char *file);
/* The same at a full PATH (DIR/FILE). */
int jl_output_open_path(struct jl_outfile *of, const char *path);
/* Flush, fsync, chown to the sudo user, close and rename to the real name. 0 or -1 with errno (the
 * temporary file is removed). */
int jl_output_commit(struct jl_outfile *of);
/* Close and remove the temporary file. */
void jl_output_abort(struct jl_outfile *of);
/* A file written while something runs (a child's log): PATH created under its real name (O_EXCL,
 * O_NOFOLLOW, O_APPEND, O_CLOEXEC) and given to the sudo user. An fd, or -1 with errno. */
int jl_output_create_path(const char *path);
/* One CSV field, quoted as RFC 4180 asks when it holds a comma, a quote or a line break (its quotes
 * doubled); a NULL field is empty. */
void jl_output_csv_field(FILE *fp, const char *s);
/* Write a JSON document (json-c, pretty) atomically. */
int jl_output_write_json(const char *dir, const char *file, json_object *obj);
/* The same at a full PATH. */
int jl_output_write_json_path(const char *path, json_object *obj);

#endif
