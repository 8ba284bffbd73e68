/* kshark: write the KernelShark 2.2.1 session (kernelshark.json) that opens trace.dat on one wakeup:
 * markers A (waking) and B (switch-in) as ROWS of KernelShark's merged time-sorted list, the view range
 * around them, the CPU plot of its CPU, task plots of the loop and its culprit, the sched_events plugin.
 * Rules measured on KernelShark 2.2.1 (docs/platform-facts.md): the data file path is absolute and "time" is
 * exactly the file's st_mtime, or loading fails ("Timestamp mismatch!"). JSON is built with json-c only
 * and written by the output writer (output.h). */
#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <json-c/json.h>

#include "../../base/output.h"
#include "kshark.h"
#include "read.h"

static json_object *marker(long row)
{
	json_object *m = json_object_new_object();

	json_object_object_add(m, "isSet", json_object_new_boolean(row >= 0));
	if (row >= 0)
		json_object_object_add(m, "row", json_object_new_int64(row));
	return m;
}

/* The one data stream: trace.dat at ABS with its mtime (KernelShark refuses a session whose file changed),
 * the sched_events plugin, the CPU plot of V's CPU and the task plots of its tasks. */
static json_object *stream_json(const struct jl_kshark_view *v, const char *abs, int64_t mtime)
{
	json_object *streams = json_object_new_array(), *stream = json_object_new_object(),
		    *data = json_object_new_object(), *filters = json_object_new_object(),
		    *plugins = json_object_new_object(), *reg = json_object_new_array(), *plug = json_object_new_array(),
		    *cpus = json_object_new_array(), *tasks = json_object_new_array();

	json_object_object_add(stream, "type", json_object_new_string("kshark.config.stream"));
	json_object_object_add(stream, "stream id", json_object_new_int(0));
	json_object_object_add(data, "type", json_object_new_string("kshark.config.data"));
	json_object_object_add(data, "file", json_object_new_string(abs));
	json_object_object_add(data, "name", json_object_new_string("top buffer"));
	json_object_object_add(data, "time", json_object_new_int64(mtime));
	json_object_object_add(stream, "data", data);
	json_object_object_add(filters, "type", json_object_new_string("kshark.config.filter"));
	json_object_object_add(filters, "filter mask", json_object_new_int(7));
	json_object_object_add(stream, "filters", filters);
	json_object_object_add(plugins, "type", json_object_new_string("kshark.config.plugins"));
	json_object_array_add(plug, json_object_new_string("sched_events"));
	json_object_array_add(plug, json_object_new_boolean(1));
	json_object_array_add(reg, plug);
	json_object_object_add(plugins, "registered", reg);
	json_object_object_add(stream, "plugins", plugins);
	if (v->cpu >= 0)
		json_object_array_add(cpus, json_object_new_int(v->cpu));
	json_object_object_add(stream, "CPUPlots", cpus);
	for (int i = 0; i < v->ntasks; i++)
		json_object_array_add(tasks, json_object_new_int(v->task_pids[i]));
	json_object_object_add(stream, "TaskPlots", tasks);
	json_object_array_add(streams, stream);
	return streams;
}

/* The view's range and the markers A and B at ROWS. */
static void view_json(json_object *root, const struct jl_kshark_view *v, const long *rows)
{
	json_object *model = json_object_new_object(), *range = json_object_new_array(),
		    *markers = json_object_new_object();

	json_object_object_add(model, "type", json_object_new_string("kshark.config.model"));
	json_object_array_add(range, json_object_new_int64(v->from));
	json_object_array_add(range, json_object_new_int64(v->to));
	json_object_object_add(model, "range", range);
	json_object_object_add(model, "bins", json_object_new_int(1024));
	json_object_object_add(root, "Model", model);
	json_object_object_add(markers, "type", json_object_new_string("kshark.config.markers"));
	json_object_object_add(markers, "markA", marker(rows[0]));
	json_object_object_add(markers, "markB", marker(rows[1]));
	json_object_object_add(markers, "Active", json_object_new_string("B"));
	json_object_object_add(root, "Markers", markers);
}

int jl_kshark_write(const char *path, const char *dat, const struct jl_kshark_view *v, char *err, size_t errlen)
{
	char abs[PATH_MAX];
	int64_t ts[2] = { v->mark_a, v->mark_b };
	long rows[2];
	struct stat st;
	json_object *root, *win;
	int rc;

	if (!realpath(dat, abs) || stat(abs, &st) < 0) {
		snprintf(err, errlen, "trace: cannot stat %s for the KernelShark session: %s", dat, strerror(errno));
		return -1;
	}
	if (v->rows_known) {
		rows[0] = v->rows[0];
		rows[1] = v->rows[1];
	} else if ((v->pages ? jl_trace_rows_pages(v->pages, ts, rows, 2, err, errlen)
			     : jl_trace_rows(abs, ts, rows, 2, err, errlen)) < 0) {
		return -1;
	}
	root = json_object_new_object();
	win = json_object_new_array();
	json_object_object_add(root, "type", json_object_new_string("kshark.config.session"));
	json_object_array_add(win, json_object_new_int(1400));
	json_object_array_add(win, json_object_new_int(900));
	json_object_object_add(root, "MainWindow", win);
	json_object_object_add(root, "data streams", stream_json(v, abs, (int64_t)st.st_mtime));
	view_json(root, v, rows);
	json_object_object_add(root, "ViewTop", json_object_new_int(0));
	json_object_object_add(root, "ColorScheme", json_object_new_double(0.75));
	rc = jl_output_write_json_path(path, root);
	json_object_put(root);
	if (rc < 0) {
		snprintf(err, errlen, "trace: cannot write %s: %s", path, strerror(errno));
		return -1;
	}
	return 0;
}

void jl_kshark_session_name(const char *thread, uint64_t cycle, char *buf, size_t len)
{
	char name[64];
	size_t i = 0;

	for (; thread[i] && i + 1 < sizeof(name); i++)
		name[i] = isalnum((unsigned char)thread[i]) || strchr("._-", thread[i]) ? thread[i] : '_';
	name[i] = '\0';
	if (!i)
		snprintf(name, sizeof(name), "_");
	else if (name[0] == '.')
		name[0] = '_'; /* never a hidden file, never ".." */
	snprintf(buf, len, JL_KSHARK_DIR "/%s-%llu.json", name, (unsigned long long)cycle);
}
