/* scenario: read scenario files with libinih (sections, line numbers, duplicate keys) into struct
 * jl_scenario and apply --set overrides. Sections and keys are looked up in the registry
 * (scenario_registry.h: the section kinds in scenario_sections.c, the key tables in scenario_keys.c and
 * scenario_thread_keys.c); nothing here knows a section or key by name. The cross-key checks are in
 * scenario_check.c, the writer in scenario_write.c. Never touches the machine. Every error is
 * "FILE:LINE: context: reason". */
#include "scenario.h"

#include <ctype.h>
#include <dirent.h>
#include <errno.h>
#include <ini.h>
#include <math.h>
#include <numa.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <sys/stat.h>

#include "../../affinity/cpulist.h"
#include "../base/metrics.h"
#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/units.h"

#define JL_MAX_SECTION_KINDS 32

struct parser {
	struct jl_scenario *sc;
	const char *file;        /* name used in messages */
	int line;                /* current line (counted by our reader) */
	const struct jl_section_kind *kind; /* the current section (NULL: before the first header) */
	int inst;                /* its instance */
	char ctx[JL_NAME_MAX + 16]; /* how messages name it: "[run]", "thread 'control'" */
	bool seen[JL_MAX_SECTION_KINDS]; /* unnamed kinds already seen */
	char seen_keys[160][64];  /* keys of the current section, for duplicate detection */
	int nseen;
	bool prev_key;           /* the last key = value line (libinih continues it on indented lines) */
	char prev_key_name[64];
	/* input */
	const char *text;        /* string input */
	size_t pos;
	FILE *fp;
	/* first error wins */
	bool failed;
	char *err;
	size_t errlen;
};


static void fail(struct parser *ps, int line, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

static void fail(struct parser *ps, int line, const char *fmt, ...)
{
	char msg[JL_ERR_MAX];
	va_list ap;

	if (ps->failed)
		return;
	ps->failed = true;
	va_start(ap, fmt);
	vsnprintf(msg, sizeof(msg), fmt, ap);
	va_end(ap);
	if (line > 0)
		snprintf(ps->err, ps->errlen, "%s:%d: %s", ps->file, line, msg);
	else
		snprintf(ps->err, ps->errlen, "%s: %s", ps->file, msg);
}


/* The defaults of the unnamed section kind NAME, from its key tables. */
static void section_defaults(struct jl_scenario *sc, const char *name)
{
	const struct jl_section_kind *k = jl_section_kind_find(name);
	struct jl_key_view v;

	k->view(sc, 0, &v);
	jl_section_defaults(k, &v);
}

static void scenario_init(struct jl_scenario *sc, const char *path)
{
	const char *base, *dot;
	size_t n;

	memset(sc, 0, sizeof(*sc));
	snprintf(sc->path, sizeof(sc->path), "%s", path);
	section_defaults(sc, "run");
	section_defaults(sc, "sweep");
	/* default name: the file stem */
	base = strrchr(path, '/');
	base = base ? base + 1 : path;
	dot = strrchr(base, '.');
	n = dot && dot != base ? (size_t)(dot - base) : strlen(base);
	if (n >= sizeof(sc->run.name))
		n = sizeof(sc->run.name) - 1;
	memcpy(sc->run.name, base, n);
	sc->run.name[n] = '\0';
	/* the stem must itself be a valid `name`, [a-z][a-z0-9_-]* (scenario.ini in the run directory is
	 * parsed back): lower case, anything else '_', and "s-" before a stem that does not start with a
	 * letter */
	for (char *c = sc->run.name; *c; c++) {
		*c = (char)tolower((unsigned char)*c);
		if (!islower((unsigned char)*c) && !isdigit((unsigned char)*c) && *c != '-')
			*c = '_';
	}
	if (!sc->run.name[0])
		snprintf(sc->run.name, sizeof(sc->run.name), "scenario");
	else if (!islower((unsigned char)sc->run.name[0])) {
		char stem[JL_NAME_MAX];

		snprintf(stem, sizeof(stem), "%s", sc->run.name);
		snprintf(sc->run.name, sizeof(sc->run.name), "s-%.*s", JL_NAME_MAX - 3, stem);
	}
}

/* ---- sections ---- */

/* Enter instance INST of section kind K: messages name it as CTX. */
static void enter(struct parser *ps, const struct jl_section_kind *k, int inst)
{
	ps->kind = k;
	ps->inst = inst;
	if (k->named)
		snprintf(ps->ctx, sizeof(ps->ctx), "%s '%s'", k->name, jl_section_name(k, ps->sc, inst));
	else
		snprintf(ps->ctx, sizeof(ps->ctx), "[%s]", k->name);
}

static void begin_section(struct parser *ps, const char *header)
{
	char kind[64] = "", name[128] = "", extra[2], kinds[256];
	const struct jl_section_kind *k;
	int n, inst;

	ps->nseen = 0;
	ps->kind = NULL;
	ps->ctx[0] = '\0';
	jl_section_kinds_text(kinds, sizeof(kinds));
	n = sscanf(header, "%63s %127s %1s", kind, name, extra);
	if (n <= 0) {
		fail(ps, ps->line, "empty section name (expected %s)", kinds);
		return;
	}
	k = jl_section_kind_find(kind);
	if (!k) {
		fail(ps, ps->line, "unknown section [%s] (expected %s)", header, kinds);
		return;
	}
	if (!k->named) {
		bool *seen = &ps->seen[k - jl_section_kinds];

		if (n != 1) {
			fail(ps, ps->line, "section [%s] takes no name (got '%s')", kind, header);
			return;
		}
		if (*seen) {
			fail(ps, ps->line, "section [%s] appears twice", kind);
			return;
		}
		*seen = true;
		enter(ps, k, jl_section_add(k, ps->sc, NULL, ps->file, ps->line));
		return;
	}
	if (n != 2) {
		fail(ps, ps->line, "section [%s]: expected [%s NAME]", header, kind);
		return;
	}
	if (!jl_scenario_name_ok(name) || strlen(name) >= JL_NAME_MAX - 8) {
		fail(ps, ps->line, "%s name '%s' is not valid (expected [a-z][a-z0-9_-]*, at most %d characters)", kind,
		     name, JL_NAME_MAX - 9);
		return;
	}
	if (jl_section_find(k, ps->sc, name) >= 0) {
		fail(ps, ps->line, "%s '%s' is defined twice", kind, name);
		return;
	}
	inst = jl_section_add(k, ps->sc, name, ps->file, ps->line);
	if (inst < 0) {
		fail(ps, ps->line, "too many %ss (at most %d)", kind, k->max);
		return;
	}
	enter(ps, k, inst);
}
/* ---- the libinih handler and reader ---- */

static int handle_key(struct parser *ps, const char *key, const char *value)
{
	char why[JL_ERR_MAX] = "", names[1024];
	/* "thread 'a': KEY: reason", "[run] KEY: reason" */
	const char *sep = ps->kind && ps->kind->named ? ": " : " ";
	const struct jl_key_desc *d;
	struct jl_key_view v;
	int rc;

	if (ps->failed)
		return 0;
	for (int i = 0; i < ps->nseen; i++) {
		if (!strcmp(ps->seen_keys[i], key)) {
			fail(ps, ps->line, "%s: key '%s' is set twice (expected each key once per section)", ps->ctx, key);
			return 0;
		}
	}
	if (strlen(key) >= sizeof(ps->seen_keys[0])) {
		fail(ps, ps->line, "key '%.60s...' is too long (at most %zu characters)", key, sizeof(ps->seen_keys[0]) - 1);
		return 0;
	}
	if (ps->nseen < (int)(sizeof(ps->seen_keys) / sizeof(ps->seen_keys[0])))
		snprintf(ps->seen_keys[ps->nseen++], sizeof(ps->seen_keys[0]), "%s", key);

	/* values scenario.ini can hold, whoever sets them (a file, --set, the one-liner): libinih keeps "key =;x"
	 * as the value ";x", but "key = ;x" is a comment, and so is a ';' after whitespace anywhere in a value
	 * (a file's never holds one: libinih cut it there). Such a value could not be written back. */
	if (value[0] == ';') {
		fail(ps, ps->line, "key '%s': value '%s' starts with ';' (a comment needs a space before the ';')", key,
		     value);
		return 0;
	}
	for (const char *c = strchr(value, ';'); c; c = strchr(c + 1, ';'))
		if (isspace((unsigned char)c[-1])) {
			fail(ps, ps->line, "key '%s': value '%s' holds a ';' after whitespace, which a scenario file reads "
			     "as the start of a comment (expected a value without it)", key, value);
			return 0;
		}
	if (!ps->kind) {
		fail(ps, ps->line, "key '%s' outside any section (expected a %s header first)", key,
		     jl_section_kinds_text(names, sizeof(names)));
		return 0;
	}
	d = jl_section_key_find(ps->kind, key);
	if (!d) {
		fail(ps, ps->line, "%s%sunknown key '%s' (expected %s)", ps->ctx, sep, key,
		     jl_section_keys_text(ps->kind, names, sizeof(names)));
		return 0;
	}
	ps->kind->view(ps->sc, ps->inst, &v);
	v.line = ps->line;
	if (v.key_line)
		v.key_line[d->slot] = ps->line > 0 ? ps->line : -1; /* -1: set by --set */
	rc = d->parse(&v, d, key, value, why, sizeof(why));
	if (rc == JL_KEY_FAIL_WHOLE)
		fail(ps, ps->line, "%s: %s", ps->ctx, why);
	else if (rc)
		fail(ps, ps->line, "%s%s%s: %s", ps->ctx, sep, key, why);
	else if (ps->line <= 0 && d->after_set)
		d->after_set(&v);
	return 0;
}

static int ini_handler_cb(void *user, const char *section, const char *name, const char *value)
{
	(void)section; /* sections are tracked by the reader, which knows their line numbers */
	handle_key(user, name, value);
	return 1;
}

/* Lines are classified here exactly as libinih (r55, INI_ALLOW_MULTILINE, INI_ALLOW_INLINE_COMMENTS,
 * INI_ALLOW_BOM) will classify them, because only here is the line number known. Section headers are
 * handled here (libinih passes the section name to the handler, which ignores it); lines libinih
 * would reject or misread (no '=', no ']', an indented line taken as a continuation) fail here, so
 * the first error is the one reported. */

/* libinih's find_chars_or_comment(): the first of CHARS, or a ';' after whitespace, or the end. */
static const char *ini_find(const char *s, const char *chars)
{
	bool was_space = false;

	while (*s && !strchr(chars, *s) && !(was_space && *s == ';')) {
		was_space = isspace((unsigned char)*s);
		s++;
	}
	return s;
}

static void reader_saw_line(struct parser *ps, const char *line)
{
	const char *p = line, *end;
	char header[256];
	size_t n;

	if (ps->line == 1 && !strncmp(p, "\xEF\xBB\xBF", 3))
		p += 3;
	while (isspace((unsigned char)*p))
		p++;
	if (!*p || *p == ';' || *p == '#')
		return; /* blank or comment: libinih keeps the previous key for continuations */
	if (ps->prev_key && p > line) {
		fail(ps, ps->line, "indented line after '%s = ...' would continue its value (continuation lines are "
				   "not supported: remove the leading whitespace)", ps->prev_key_name);
		return;
	}
	if (*p == '[') {
		end = ini_find(p + 1, "]");
		if (*end != ']') {
			fail(ps, ps->line, "section header without ']' (expected [run], [thread NAME], [expect] or [sweep])");
			return;
		}
		ps->prev_key = false;
		n = (size_t)(end - p - 1);
		if (n >= sizeof(header)) {
			fail(ps, ps->line, "section header is too long");
			return;
		}
		memcpy(header, p + 1, n);
		header[n] = '\0';
		begin_section(ps, header);
		return;
	}
	end = ini_find(p, "=:");
	if (*end != '=' && *end != ':') {
		fail(ps, ps->line, "syntax error (expected '[section]', 'key = value' or a comment)");
		return;
	}
	n = (size_t)(end - p);
	while (n && isspace((unsigned char)p[n - 1]))
		n--;
	if (n >= sizeof(ps->prev_key_name))
		n = sizeof(ps->prev_key_name) - 1;
	memcpy(ps->prev_key_name, p, n);
	ps->prev_key_name[n] = '\0';
	ps->prev_key = true;
}

static int next_char(struct parser *ps)
{
	if (ps->fp)
		return fgetc(ps->fp);
	if (!ps->text[ps->pos])
		return EOF;
	return (unsigned char)ps->text[ps->pos++];
}

/* libinih's line reader. Stops the parse (returns NULL) at the first error. */
static char *reader(char *str, int num, void *stream)
{
	struct parser *ps = stream;
	size_t i = 0, max = num > 1 ? (size_t)num - 1 : 0;
	bool got = false, nul = false, too_long = false;
	int c;

	if (ps->failed)
		return NULL;
	while ((c = next_char(ps)) != EOF) {
		got = true;
		if (c == '\0')
			nul = true;
		else if (i < max)
			str[i++] = (char)c;
		else if (c != '\n')
			too_long = true;
		if (c == '\n')
			break;
	}
	if (!got)
		return NULL;
	str[i] = '\0';
	ps->line++;
	if (too_long) {
		fail(ps, ps->line, "line is longer than %d characters (the INI reader's limit)", num - 1);
		return NULL;
	}
	if (nul) {
		fail(ps, ps->line, "NUL byte in line (not a text file?)");
		return NULL;
	}
	reader_saw_line(ps, str);
	if (ps->failed)
		return NULL;
	return str;
}

static int parse_common(struct parser *ps)
{
	int rc = ini_parse_stream(reader, ps, ini_handler_cb, ps);

	if (ps->failed)
		return -1;
	if (rc > 0) {
		fail(ps, rc, "syntax error (expected '[section]', 'key = value' or a comment)");
		return -1;
	}
	if (rc < 0) {
		fail(ps, 0, "cannot read the file");
		return -1;
	}
	return jl_scenario_validate(ps->sc, ps->err, ps->errlen);
}

static int ini_filter(const struct dirent *d)
{
	size_t n = strlen(d->d_name);

	return d->d_name[0] != '.' && n > 4 && !strcmp(d->d_name + n - 4, ".ini");
}

/* PATH is a directory: say so, and name the scenario files in it (a run directory holds the
 * scenario.ini it ran, so `jitterlab run traces/NAME/latest` points at the way to run it again). */
static int fail_directory(const char *path, char *err, size_t errlen)
{
	struct dirent **names = NULL;
	int n = scandir(path, &names, ini_filter, alphasort);
	const char *sep = path[0] && path[strlen(path) - 1] == '/' ? "" : "/";
	size_t len = (size_t)snprintf(err, errlen, "%s: is a directory, not a scenario file", path);

	for (int i = 0; i < n && len < errlen; i++) {
		if (i < 4)
			len += (size_t)snprintf(err + len, errlen - len, "%s%s%s%s", i ? ", " : n > 1 ? " (did you mean one of " : " (did you mean ",
						path, sep, names[i]->d_name);
		else if (i == 4)
			len += (size_t)snprintf(err + len, errlen - len, ", ... (%d .ini files)", n);
	}
	if (n > 0 && len < errlen)
		snprintf(err + len, errlen - len, "?)");
	else if (n == 0)
		snprintf(err + len, errlen - len, " (it holds no .ini file)");
	for (int i = 0; i < n; i++)
		free(names[i]);
	free(names);
	return -1;
}

int jl_scenario_parse_file(const char *path, struct jl_scenario *sc, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = path, .err = err, .errlen = errlen };
	struct stat st;
	int rc;

	scenario_init(sc, path);
	ps.fp = fopen(path, "re");
	if (!ps.fp) {
		snprintf(err, errlen, "%s: cannot open: %s", path, strerror(errno));
		return -1;
	}
	if (fstat(fileno(ps.fp), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(ps.fp);
		return fail_directory(path, err, errlen);
	}
	rc = parse_common(&ps);
	fclose(ps.fp);
	return rc;
}

int jl_scenario_parse_string(const char *name, const char *text, struct jl_scenario *sc, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = name, .text = text, .err = err, .errlen = errlen };

	scenario_init(sc, name);
	return parse_common(&ps);
}

/* --set ASSIGNMENT names no section SECT: say which it could have named ("[run], [expect], ... or [lock
 * SECT]"). -1. */
static int no_section(const char *assignment, const char *sect, char *err, size_t errlen)
{
	char names[512];
	size_t used = 0;
	int last = -1;

	for (int i = 0; i < jl_nsection_kinds; i++)
		if (jl_section_kinds[i].named)
			last = i;
	names[0] = '\0';
	for (int pass = 0; pass < 2; pass++) /* the unnamed kinds first, then "[KIND NAME]" */
		for (int i = 0; i < jl_nsection_kinds && used < sizeof(names); i++) {
			const struct jl_section_kind *k = &jl_section_kinds[i];

			if (k->named != (pass == 1))
				continue;
			used += (size_t)snprintf(names + used, sizeof(names) - used, "%s[%s%s%s]",
						 !used ? "" : pass == 1 && i == last ? " or " : ", ", k->name,
						 k->named ? " " : "", k->named ? sect : "");
		}
	snprintf(err, errlen, "--set %s: no section %s to set it in", assignment, names);
	return -1;
}

int jl_scenario_set(struct jl_scenario *sc, const char *assignment, char *err, size_t errlen)
{
	struct parser ps = { .sc = sc, .file = "--set", .err = err, .errlen = errlen };
	char sect[JL_NAME_MAX], key[128], value[1024];
	const char *eq = strchr(assignment, '='), *dot = strchr(assignment, '.');
	size_t n;

	if (strlen(assignment) > JL_INI_LINE_MAX) {
		snprintf(err, errlen, "--set %.40s...: too long (at most %d characters, as a line of a scenario file)",
			 assignment, JL_INI_LINE_MAX);
		return -1;
	}
	if (!eq || !dot || dot > eq) {
		snprintf(err, errlen, "--set %s: expected SECTION.KEY=VALUE (e.g. control.priority=90 or run.duration=5s)", assignment);
		return -1;
	}
	n = (size_t)(dot - assignment);
	if (n == 0 || n >= sizeof(sect))
		goto bad;
	memcpy(sect, assignment, n);
	sect[n] = '\0';
	n = (size_t)(eq - dot - 1);
	while (n && isspace((unsigned char)dot[n]))
		n--;
	if (n == 0 || n >= sizeof(key))
		goto bad;
	memcpy(key, dot + 1, n);
	key[n] = '\0';
	eq++;
	while (isspace((unsigned char)*eq))
		eq++;
	snprintf(value, sizeof(value), "%s", eq);
	n = strlen(value);
	while (n && isspace((unsigned char)value[n - 1]))
		value[--n] = '\0';

	ps.kind = jl_section_kind_find(sect);
	if (ps.kind && !ps.kind->named) {
		enter(&ps, ps.kind, 0);
	} else {
		/* a named section: the instance of that name, of whichever kind has one */
		ps.kind = NULL;
		for (int i = 0; i < jl_nsection_kinds && !ps.kind; i++) {
			int inst = jl_section_find(&jl_section_kinds[i], sc, sect);

			if (inst >= 0)
				enter(&ps, &jl_section_kinds[i], inst);
		}
		if (!ps.kind)
			return no_section(assignment, sect, err, errlen);
	}
	handle_key(&ps, key, value);
	if (ps.failed) {
		/* handle_key formats "--set: ..."; make it name the whole assignment */
		char tmp[JL_ERR_MAX];

		snprintf(tmp, sizeof(tmp), "--set %s: %s", assignment, err + strlen("--set: "));
		snprintf(err, errlen, "%s", tmp);
		return -1;
	}
	return 0;
bad:
	snprintf(err, errlen, "--set %s: expected SECTION.KEY=VALUE", assignment);
	return -1;
}

int jl_scenario_load(const char *path, const char *const *sets, int nsets, struct jl_scenario *sc, char *err,
		     size_t errlen)
{
	if (jl_scenario_parse_file(path, sc, err, errlen))
		return -1;
	for (int i = 0; i < nsets; i++)
		if (jl_scenario_set(sc, sets[i], err, errlen))
			return -1;
	return jl_scenario_validate(sc, err, errlen);
}
