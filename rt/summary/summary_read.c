/* summary_read: the directories' documents read and their shapes checked (summary_read.h). */
#include "summary_read.h"

#include <errno.h>
#include <limits.h>
#include <stdbool.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>


#include "../base/documents.h"
/* A table's rows check each step of a path on their own: a row's parent ("a" for "a[].b") must come before it
 * in the table, as the walk passes over a step of another type silently (the parent's row says so). */
struct shape {
	const char *path; /* "a[].b": every element of array a, its key b; "m.*": every member of object m */
	json_type type;   /* the type there */
};

/* summary.json: the containers the readers walk and the scalars they compute with */
static const struct shape summary_shape[] = {
	{ "scenario", json_type_string },       { "kind", json_type_string },
	{ "exit_status", json_type_int },       { "duration_ns", json_type_int },
	{ "t0_ns", json_type_int },             { "t_measure_ns", json_type_int },
	{ "t0_realtime_ns", json_type_int },
	{ "t_end_ns", json_type_int },          { "host", json_type_object },
	{ "samples", json_type_object },        { "memory", json_type_object },
	{ "leftovers", json_type_object },      { "intervals", json_type_object },
	{ "intervals.series", json_type_object }, { "intervals.series.*", json_type_object },
	{ "intervals.series.*.max_latency_ns", json_type_array }, { "intervals.series.*.max_cycle", json_type_array },
	{ "intervals.series.*.cycles", json_type_array }, { "intervals.series.*.misses", json_type_array },
	{ "threads", json_type_array },         { "threads[]", json_type_object },
	{ "threads[].name", json_type_string }, { "threads[].latency_ns", json_type_object },
	{ "threads[].worst", json_type_array }, { "threads[].worst[]", json_type_object },
	{ "expect", json_type_array },          { "expect[]", json_type_object },
	{ "budget", json_type_array },          { "budget[]", json_type_object },
	{ "executors", json_type_array },       { "executors[]", json_type_object },
	{ "syncs", json_type_array },           { "syncs[]", json_type_object },
	{ "locks", json_type_array },           { "locks[]", json_type_object },
	{ "locks[].threads", json_type_object }, { "locks[].threads.*", json_type_object },
	{ "trace", json_type_object },          { "trace.worst", json_type_array },
	{ "trace.worst[]", json_type_object },  { "trace.worst[].parts", json_type_array },
	{ "trace.worst[].parts[]", json_type_object }, { "trace.tail", json_type_object },
	{ "trace.tail.*", json_type_object },   { "trace.gaps", json_type_array },
	{ "trace.off_cpu", json_type_object },  { "trace.off_cpu.*", json_type_object },
	{ "trace.pi_boosts", json_type_array },
};

/* compare.json: what its table and its page walk */
static const struct shape compare_shape[] = {
	{ "baseline", json_type_object },       { "new", json_type_object },
	{ "host_differences", json_type_array }, { "host_differences[]", json_type_object },
	{ "conditions", json_type_array },      { "conditions[]", json_type_object },
	{ "conditions[].metrics", json_type_array }, { "conditions[].metrics[]", json_type_object },
	{ "conditions[].metrics[].ci95", json_type_array }, { "conditions[].metrics[].values_baseline", json_type_array },
	{ "conditions[].metrics[].values_new", json_type_array }, { "conditions[].budget", json_type_array },
	{ "conditions[].budget[]", json_type_object }, { "only_in_baseline", json_type_array },
	{ "only_in_new", json_type_array },     { "gates", json_type_array },
	{ "gates[]", json_type_object },        { "gates[].ci95", json_type_array },
};

/* sweep.json: what its table, its plots and its page walk */
static const struct shape sweep_shape[] = {
	{ "conditions", json_type_array },      { "conditions[]", json_type_object },
	{ "conditions[].runs", json_type_array }, { "conditions[].runs[]", json_type_object },
	{ "conditions[].stats", json_type_object }, { "conditions[].stats.*", json_type_object },
	{ "conditions[].tail", json_type_object }, { "metrics", json_type_array },
	{ "metrics[]", json_type_object },      { "threads", json_type_array },
	{ "effects", json_type_array },         { "effects[]", json_type_object },
	{ "comparisons", json_type_array },     { "comparisons[]", json_type_object },
	{ "flags", json_type_array },           { "flags[]", json_type_object },
	{ "design", json_type_object },
};

static const struct {
	const struct shape *rows;
	size_t n;
} shapes[JL_NDOCUMENTS] = {
	[JL_DOC_RUN] = { summary_shape, sizeof(summary_shape) / sizeof(summary_shape[0]) },
	[JL_DOC_SWEEP] = { sweep_shape, sizeof(sweep_shape) / sizeof(sweep_shape[0]) },
	[JL_DOC_COMPARE] = { compare_shape, sizeof(compare_shape) / sizeof(compare_shape[0]) },
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
	json_object *m;

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
	if (rest[0] == '*') { /* every member */
		if (!json_object_is_type(o, json_type_object))
			return 0; /* the object's own entry says so */
		json_object_object_foreach(o, k, v)
		{
			snprintf(here, sizeof(here), "%s.%s", where, k);
			if (check(v, rest + 1, type, here, path, err, errlen))
				return -1;
		}
		return 0;
	}
	snprintf(key, sizeof(key), "%.*s", (int)n, rest);
	if (!json_object_is_type(o, json_type_object) || !json_object_object_get_ex(o, key, &m))
		return 0; /* absent: older runs lack newer keys */
	snprintf(here, sizeof(here), "%s%s%s", where, *where ? "." : "", key);
	return check(m, rest + n, type, here, path, err, errlen);
}

int jl_document_check_shape(enum jl_document_kind kind, json_object *doc, const char *path, char *err, size_t errlen)
{
	if (!json_object_is_type(doc, json_type_object)) {
		snprintf(err, errlen, "%s: expected a JSON object, found %s", path, type_name(doc));
		return -1;
	}
	for (size_t i = 0; i < shapes[kind].n; i++)
		if (check(doc, shapes[kind].rows[i].path, shapes[kind].rows[i].type, "", path, err, errlen))
			return -1;
	return 0;
}

json_object *jl_document_read(enum jl_document_kind kind, const char *dir, char *err, size_t errlen)
{
	char path[PATH_MAX + 32];
	json_object *o;

	snprintf(path, sizeof(path), "%s/%s", dir, jl_document_file(kind));
	o = json_object_from_file(path);
	if (!o) {
		snprintf(err, errlen, "%s: %s", path, access(path, R_OK) ? strerror(errno) : "not a JSON document");
		return NULL;
	}
	if (jl_document_check_shape(kind, o, path, err, errlen)) {
		json_object_put(o);
		return NULL;
	}
	return o;
}

json_object *jl_summary_read(const char *run_dir, char *err, size_t errlen)
{
	return jl_document_read(JL_DOC_RUN, run_dir, err, errlen);
}
