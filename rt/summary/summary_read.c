/* summary_read: summary.json read and its shape checked (summary_read.h). */
#include "summary_read.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


#include "../base/documents.h"
/* The shape the readers rely on: a path ("a[].b": every element of array a, its key b) and the type there. */
static const struct {
	const char *path;
	json_type type;
} shape[] = {
	{ "scenario", json_type_string },       { "kind", json_type_string },
	{ "exit_status", json_type_int },       { "duration_ns", json_type_int },
	{ "t0_ns", json_type_int },             { "t_measure_ns", json_type_int },
	{ "t_end_ns", json_type_int },          { "host", json_type_object },
	{ "samples", json_type_object },        { "memory", json_type_object },
	{ "intervals", json_type_object },      { "leftovers", json_type_object },
	{ "threads", json_type_array },         { "threads[]", json_type_object },
	{ "threads[].name", json_type_string }, { "threads[].latency_ns", json_type_object },
	{ "threads[].worst", json_type_array }, { "threads[].worst[]", json_type_object },
	{ "expect", json_type_array },          { "expect[]", json_type_object },
	{ "budget", json_type_array },          { "budget[]", json_type_object },
	{ "executors", json_type_array },       { "syncs", json_type_array },
	{ "locks", json_type_array },           { "trace", json_type_object },
	{ "trace.worst", json_type_array },     { "trace.worst[]", json_type_object },
	{ "trace.worst[].parts", json_type_array }, { "trace.worst[].parts[]", json_type_object },
	{ "trace.tail", json_type_object },     { "trace.gaps", json_type_array },
	{ "trace.off_cpu", json_type_object },  { "trace.pi_boosts", json_type_array },
};

static const char *type_name(json_object *o)
{
	switch (json_object_get_type(o)) {
	case json_type_null: return "null";
	case json_type_boolean: return "a boolean";
	case json_type_double: return "a number with a fraction";
	case json_type_int: return "an integer";
	case json_type_object: return "an object";
	case json_type_array: return "an array";
	case json_type_string: return "a string";
	}
	return "?";
}

static const char *want_name(json_type t)
{
	return t == json_type_int ? "an integer" : t == json_type_string ? "a string" : t == json_type_array ? "an array" :
	       t == json_type_object ? "an object" : "a value";
}

/* Check the rest of PATH (REST, after the part consumed) under O, which WHERE names; 0 or -1 with ERR. */
static int check(json_object *o, const char *rest, json_type type, const char *where, const char *path, char *err,
		 size_t errlen)
{
	char key[64], here[256];
	size_t n = strcspn(rest, ".[");
	json_object *v;

	if (!*rest) { /* arrived: null stands for "none" where a figure is optional, never for a container */
		bool container = type == json_type_array || type == json_type_object;

		if ((o || container) && !json_object_is_type(o, type)) {
			snprintf(err, errlen, "%s: %s: expected %s, found %s (edited by hand?)", path, where, want_name(type),
				 type_name(o));
			return -1;
		}
		return 0;
	}
	if (rest[0] == '[') { /* every element */
		if (!json_object_is_type(o, json_type_array))
			return 0; /* the array's own entry says so */
		for (size_t i = 0; i < json_object_array_length(o); i++) {
			snprintf(here, sizeof(here), "%s[%zu]", where, i);
			if (check(json_object_array_get_idx(o, i), rest + 2, type, here, path, err, errlen))
				return -1;
		}
		return 0;
	}
	if (rest[0] == '.')
		return check(o, rest + 1, type, where, path, err, errlen);
	snprintf(key, sizeof(key), "%.*s", (int)n, rest);
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &v))
		return 0; /* absent: older runs lack newer keys */
	snprintf(here, sizeof(here), "%s%s%s", where, *where ? "." : "", key);
	return check(v, rest + n, type, here, path, err, errlen);
}

int jl_summary_check_shape(json_object *sum, const char *path, char *err, size_t errlen)
{
	if (!json_object_is_type(sum, json_type_object)) {
		snprintf(err, errlen, "%s: expected a JSON object, found %s", path, type_name(sum));
		return -1;
	}
	for (size_t i = 0; i < sizeof(shape) / sizeof(shape[0]); i++)
		if (check(sum, shape[i].path, shape[i].type, "", path, err, errlen))
			return -1;
	return 0;
}

json_object *jl_summary_read(const char *run_dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	json_object *o;

	snprintf(path, sizeof(path), "%s/%s", run_dir, jl_document_file(JL_DOC_RUN));
	o = json_object_from_file(path);
	if (!o) {
		snprintf(err, errlen, "%s: %s", path, access(path, R_OK) ? strerror(errno) : "not a JSON document");
		return NULL;
	}
	if (jl_summary_check_shape(o, path, err, errlen)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}
