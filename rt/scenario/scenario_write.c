/* scenario_write: the effective scenario as INI, every default written out, such that it parses
 * back to the same model (checked by the fuzz target). It iterates the registry (scenario_registry.h):
 * every section kind, every instance, every key whose descriptor says it applies, as its format
 * function gives it. A cpu list that names CPUs (pcores, ecores, smt:N) is written as written, after
 * the comment its descriptor's note gives (the CPUs it gave on this host). Must never: know a key. */
#include <stdio.h>
#include <string.h>

#include "../../affinity/cpulist.h"
#include "../base/output.h"
#include "scenario_int.h"
#include "scenario_registry.h"
#include "../base/units.h"

/* ---- writing the effective scenario ---- */

/* "key = value", or "key=value" where the spaces would take the line past the reader's limit (a value
 * that fitted on its input line always fits this way). */
static void put_kv(FILE *out, const char *key, const char *key2, const char *value)
{
	size_t n = strlen(key) + strlen(key2) + strlen(value);

	fprintf(out, n + 3 <= JL_INI_LINE_MAX ? "%s%s = %s\n" : "%s%s=%s\n", key, key2, value);
}

/* One instance of section kind K: its header, then every key that applies to it, in slot order. */
static void put_section(FILE *out, const struct jl_section_kind *k, struct jl_scenario *sc, int inst)
{
	const struct jl_key_desc *keys[128];
	int n = jl_section_keys(k, keys, 128);
	char a[4096], note[256]; /* a: a sparse list of 1024 CPUs is ~2.5 KB */
	struct jl_key_view v;

	k->view(sc, inst, &v);
	if (k->named)
		fprintf(out, "\n[%s %s]\n", k->name, jl_section_name(k, sc, inst));
	else
		fprintf(out, "\n[%s]\n", k->name);
	for (int i = 0; i < n; i++) {
		const struct jl_key_desc *d = keys[i];
		const char *key, *value;

		if ((d->applies && !d->applies(&v)) ||
		    (!strcmp(k->name, "thread") && v.beh && v.beh->attach[0] && !jl_attach_key_allowed(d->slot)))
			continue; /* an attach section: only the keys that choose what it measures */
		if (d->entry) {
			for (int j = 0; d->entry(&v, j, &key, &value); j++)
				put_kv(out, d->name, key, value);
			continue;
		}
		if (!d->format)
			continue; /* written by another key (rate as period) */
		value = d->format(&v, a, sizeof(a));
		if (!value) {
			if (d->unset)
				fprintf(out, "; %s = %s\n", d->name, d->unset);
			continue;
		}
		if (d->note && d->note(&v, note, sizeof(note)))
			fprintf(out, "; %s\n", note);
		put_kv(out, d->name, "", value);
	}
}

int jl_scenario_write(const struct jl_scenario *sc, FILE *out)
{
	/* the views are read-only here: the key functions that take them for writing never change them */
	struct jl_scenario *w = (struct jl_scenario *)sc;

	fprintf(out, "; effective scenario: %.120s%s, every default written out\n", sc->path,
		strlen(sc->path) > 120 ? "..." : "");
	for (int k = 0; k < jl_nsection_kinds; k++) {
		const struct jl_section_kind *kind = &jl_section_kinds[k];

		for (int i = 0; i < jl_section_count(kind, sc); i++)
			put_section(out, kind, w, i);
	}
	return ferror(out) ? -1 : 0;
}

int jl_scenario_write_file(const char *path, const struct jl_scenario *sc)
{
	struct jl_outfile of;

	if (jl_output_open_path(&of, path))
		return -1;
	if (jl_scenario_write(sc, of.fp)) {
		jl_output_abort(&of);
		return -1;
	}
	return jl_output_commit(&of);
}
