/* leftovers_report: summary.json's "leftovers" object and the warning line, from what leftovers.c
 * collected (see leftovers.h). Reads the collected state only: no scan, no signal, no unlink. */
#include "leftovers.h"
#include "../base/summary_keys.h"

#include <stdio.h>
#include <string.h>
#include <sys/stat.h>

static const char *root_name(const struct jl_leftovers *r, int root)
{
	return root >= 0 && root < r->nroots ? r->root_names[root] : NULL;
}

/* Why P outlived its neighbour's end: the group SIGKILL could not reach it, and where it hangs now. */
static void why_alive(const struct jl_leftovers *r, const struct jl_proc_rec *p, char *buf, size_t len)
{
	pid_t group = p->root >= 0 && p->root < r->nroots ? r->roots[p->root] : 0;
	const char *where = p->ppid == r->self ? "; reparented to jitterlab (its parent is gone)" : "";

	if (group && p->pgid != group && p->sid != group && p->sid == p->pid)
		snprintf(buf, len, "left its neighbour's process group: new session %d (setsid)%s", (int)p->sid, where);
	else if (group && p->pgid != group)
		snprintf(buf, len, "left its neighbour's process group: group %d%s", (int)p->pgid, where);
	else if (group)
		snprintf(buf, len, "in its neighbour's process group after SIGKILL (state %c)%s", p->state, where);
	else
		snprintf(buf, len, "its neighbour is unknown: an orphan of the run's tree%s",
			 p->ppid == r->self ? " reparented to jitterlab" : "");
}

static json_object *entry_json(const struct jl_shm_entry *e)
{
	json_object *o = json_object_new_object();

	json_object_object_add(o, JL_K(name), json_object_new_string(e->name));
	json_object_object_add(o, JL_K(inode), json_object_new_int64((int64_t)e->ino));
	json_object_object_add(o, JL_K(type), json_object_new_string(S_ISREG(e->mode) ? "file" : S_ISDIR(e->mode) ? "directory"
								 : S_ISLNK(e->mode) ? "symlink" : "other"));
	json_object_object_add(o, JL_K(uid), json_object_new_int64(e->uid));
	json_object_object_add(o, JL_K(size), json_object_new_int64((int64_t)e->size));
	json_object_object_add(o, JL_K(mtime_ns), json_object_new_int64(e->mtime_ns));
	return o;
}

json_object *jl_leftovers_json(const struct jl_leftovers *r)
{
	json_object *o = json_object_new_object(), *procs = json_object_new_array(), *shm = json_object_new_array(),
		    *other = json_object_new_array(), *removed = json_object_new_object();
	char why[256];

	json_object_object_add(o, JL_K(cleanup), json_object_new_string(r->cleanup == JL_CLEANUP_REMOVE ? "remove" : "report"));
	for (int i = 0; i < r->alive.n; i++) {
		const struct jl_proc_rec *p = jl_vec_at(&r->alive, i);
		json_object *e = json_object_new_object();
		const char *root = root_name(r, p->root);

		why_alive(r, p, why, sizeof(why));
		json_object_object_add(e, JL_K(pid), json_object_new_int(p->pid));
		json_object_object_add(e, JL_K(comm), json_object_new_string(p->comm));
		json_object_object_add(e, JL_K(cmdline), json_object_new_string(p->cmdline));
		json_object_object_add(e, JL_K(neighbour), root ? json_object_new_string(root) : NULL);
		json_object_object_add(e, JL_K(ppid), json_object_new_int(p->ppid));
		json_object_object_add(e, JL_K(pgid), json_object_new_int(p->pgid));
		json_object_object_add(e, JL_K(sid), json_object_new_int(p->sid));
		json_object_object_add(e, JL_K(why), json_object_new_string(why));
		json_object_object_add(e, JL_K(ended), json_object_new_boolean(r->proc_ended && r->proc_ended[i]));
		json_object_array_add(procs, e);
	}
	for (int i = 0; i < r->shm_ours.n; i++) {
		const struct jl_shm_entry *s = jl_vec_at(&r->shm_ours, i);
		json_object *e = entry_json(s), *ev = json_object_new_object();

		for (int k = 0; k < r->evidence.n; k++) {
			const struct jl_shm_evidence *x = jl_vec_at(&r->evidence, k);

			if (x->dev != s->dev || x->ino != s->ino)
				continue;
			json_object_object_add(ev, JL_K(pid), json_object_new_int(x->pid));
			json_object_object_add(ev, JL_K(comm), json_object_new_string(x->comm));
			{
				json_object *how = json_object_new_array();

				if (x->open)
					json_object_array_add(how, json_object_new_string("open"));
				if (x->mapped)
					json_object_array_add(how, json_object_new_string("mapped"));
				json_object_object_add(ev, JL_K(how), how);
			}
			break;
		}
		json_object_object_add(e, JL_K(evidence), ev);
		json_object_object_add(e, JL_K(removed), json_object_new_boolean(r->shm_removed && r->shm_removed[i]));
		if (r->shm_remove_error && r->shm_remove_error[i])
			json_object_object_add(e, JL_K(error), json_object_new_string(r->shm_remove_error[i]));
		json_object_array_add(shm, e);
	}
	for (int i = 0; i < r->shm_other.n; i++) {
		json_object *e = entry_json(jl_vec_at(&r->shm_other, i));

		json_object_object_add(e, JL_K(note), json_object_new_string("new during the run, not proven the run's: kept"));
		json_object_array_add(other, e);
	}
	json_object_object_add(o, JL_K(processes), procs);
	json_object_object_add(o, JL_K(shm), shm);
	json_object_object_add(o, JL_K(shm_not_ours), other);
	json_object_object_add(removed, JL_K(processes), json_object_new_int(r->nended));
	json_object_object_add(removed, JL_K(shm), json_object_new_int(r->nremoved));
	json_object_object_add(o, JL_K(removed), removed);
	json_object_object_add(o, JL_K(shm_dir), json_object_new_string(r->shm_dir));
	if (!r->snapshot_ok)
		json_object_object_add(o, JL_K(shm_error), json_object_new_string(r->snapshot_error));
	json_object_object_add(o, JL_K(tree_seen), json_object_new_int(r->procs.n));
	json_object_object_add(o, JL_K(scans), json_object_new_int(r->scans));
	json_object_object_add(o, JL_K(scan_max_ns), json_object_new_int64(r->scan_max_ns));
	return o;
}

const char *jl_leftovers_warning(const struct jl_leftovers *r, char *buf, size_t len)
{
	int np = r->alive.n - r->nended, ns = r->shm_ours.n - r->nremoved;
	size_t used;

	buf[0] = '\0';
	if (r->nended || r->nremoved)
		snprintf(buf, len, "jitterlab: cleanup = remove: ended %d process%s of the run, removed %d /dev/shm entr%s it "
				   "left\n", r->nended, r->nended == 1 ? "" : "es", r->nremoved, r->nremoved == 1 ? "y" : "ies");
	if (!np && !ns)
		return buf;
	used = strlen(buf);
	snprintf(buf + used, len - used, "jitterlab: warning: the run left %d process%s of its tree alive and %d "
					 "/dev/shm entr%s its processes created (summary.json: leftovers)%s\n",
		 np, np == 1 ? "" : "es", ns, ns == 1 ? "y" : "ies",
		 r->cleanup == JL_CLEANUP_REMOVE ? "; they could not be removed" : " (cleanup = remove ends them)");
	return buf;
}
