/* cmd_list: print the registries (work kinds, policies, trace groups, metrics, cpu-list names, the
 * scenario sections and their keys) one line each; with --keys summary.json's keys, with --dict the fuzz
 * dictionary, with --man the man pages jitterlab(8) (from every command's option table) and
 * jitterlab-scenario(5) (from the section registry), so that help, man pages and `list` come from the
 * same tables. */
#include <stdio.h>
#include <string.h>

#include "../../affinity/topology.h"
#include "commands.h"
#include "run_outputs.h"
#include "../base/documents.h"
#include "../base/metrics.h"
#include "../base/summary_keys.h"
#include "../scenario/scenario.h"
#include "../scenario/scenario_registry.h"
#include "../trace/analysis/parts.h"
#include "../trace/io/trace.h"
#include "../base/work.h"

enum { OPT_DICT = 1, OPT_MAN, OPT_EXAMPLE, OPT_KEYS, OPT_SCENARIO, OPT_EXIT };

static const struct jl_cli_opt list_opts[] = {
	{ "dict", 0, NULL, "print the libFuzzer dictionary of the scenario format instead (make fuzz uses it)", OPT_DICT },
	{ "man", 0, "SECTION", "print a man page as roff instead: 8 = jitterlab(8), 5 = jitterlab-scenario(5)", OPT_MAN },
	{ "example", 0, "FILE", "with --man 5: the scenario shown in EXAMPLE (default: none)", OPT_EXAMPLE },
	{ "keys", 0, NULL, "print summary.json's keys instead, one per line: KEY, TAB, its places, TAB, its meaning "
			   "(KEY * : the place is a map keyed by the names the meaning says)", OPT_KEYS },
	{ "scenario", 0, NULL, "print only the scenario sections and their keys (docs/scenario-keys.md is made from it)",
	  OPT_SCENARIO },
	{ "exit-status", 0, NULL, "print the exit statuses as a markdown table instead (README.md and docs/outputs.md)",
	  OPT_EXIT },
	{ NULL, 0, NULL, NULL, 0 },
};

const struct jl_cli jl_cli_list = { "list", "",
				    "work kinds, policies, trace groups, run files, explanation parts, metrics, cpu-list names, "
				    "scenario sections and keys",
				    list_opts };

/* jitterlab(8)'s EXIT STATUS: the table above. */
static void man8_exit_status(FILE *out)
{
	fputs(".SH EXIT STATUS\n", out);
	for (int i = 0; i < jl_exit_nstatuses; i++) {
		fprintf(out, ".TP\n%d\n", jl_exit_statuses[i].code);
		jl_roff_text(out, jl_exit_statuses[i].text, NULL);
		fputc('\n', out);
	}
}

/* `list --exit-status`: the table above as markdown, for README.md and docs/outputs.md (scripts/docs.sh). */
static void list_exit_statuses(FILE *out)
{
	fprintf(out, "| status | meaning |\n|---|---|\n");
	for (int i = 0; i < jl_exit_nstatuses; i++) {
		fprintf(out, "| %d | ", jl_exit_statuses[i].code);
		for (const char *c = jl_exit_statuses[i].text; *c; c++) { /* [expect] as code, the rest as it is */
			if (*c == '[' || *c == ']')
				fputs(*c == '[' ? "`[" : "]`", out);
			else
				fputc(*c, out);
		}
		fprintf(out, " |\n");
	}
}

/* jitterlab(8)'s FILES: what docs/outputs.md says of them, a run directory's own files after it. */
static void man8_files(FILE *out)
{
	static const struct {
		const char *path, *text;
	} files[] = {
		{ "traces/NAME/YYYYmmdd-HHMMSS/", "a run directory, RUN below (--out DIR replaces traces); traces/NAME/latest "
						  "points at the last one" },
		{ "/run/jitterlab/", "the journal of every machine setting a run changed, read by jitterlab restore" },
		{ "PREFIX/share/jitterlab/scenarios/", "the scenarios shipped with jitterlab" },
	};

	fputs(".SH FILES\n", out);
	for (size_t i = 0; i < sizeof(files) / sizeof(files[0]); i++) {
		fputs(".TP\n", out);
		jl_roff_text(out, files[i].path, "I");
		fputc('\n', out);
		jl_roff_text(out, files[i].text, NULL);
		fputc('\n', out);
		for (int k = 0; i == 0 && k < jl_nrun_outputs; k++) { /* a run directory's files, after it */
			char when[256];

			fputs(".TP\n", out);
			jl_roff_text(out, "RUN/", "I");
			jl_roff_text(out, jl_run_outputs[k].name, "I");
			fputc('\n', out);
			jl_roff_text(out, jl_run_outputs[k].help, NULL);
			snprintf(when, sizeof(when), " (%s)", jl_run_outputs[k].when);
			jl_roff_text(out, when, NULL);
			fputc('\n', out);
		}
	}
	for (int d = JL_DOC_RUN + 1; d < JL_NDOCUMENTS; d++) { /* the other directories' documents */
		fputs(".TP\n", out);
		jl_roff_text(out, "DIR/", "I");
		jl_roff_text(out, jl_documents[d].file, "I");
		fputc('\n', out);
		jl_roff_text(out, jl_documents[d].help, NULL);
		jl_roff_text(out, ". Written by ", NULL);
		jl_roff_text(out, jl_documents[d].writer, NULL);
		jl_roff_text(out, "; beside it: ", NULL);
		jl_roff_text(out, jl_documents[d].beside, NULL);
		fputs(".\n", out);
	}
}

/* One roff .TP entry: TERM in bold, " (ASIDE)" after it when given, then TEXT and MORE (may be NULL). */
static void man_tp(FILE *out, const char *term, const char *aside, const char *text, const char *more)
{
	fputs(".TP\n", out);
	jl_roff_text(out, term, "B");
	if (aside) {
		fputs(" (", out);
		jl_roff_text(out, aside, NULL);
		fputc(')', out);
	}
	fputc('\n', out);
	jl_roff_text(out, text, NULL);
	if (more)
		jl_roff_text(out, more, NULL);
	fputc('\n', out);
}

/* jitterlab(8): every command from its option table, what the docs/outputs.md contract says of exit
 * statuses and files. */
static void man8(FILE *out)
{
	fprintf(out, ".\\\" jitterlab(8), generated by `jitterlab list --man 8` from the commands' option tables\n"
		     ".TH JITTERLAB 8 \"\" \"jitterlab %s\" \"System Administration\"\n"
		     ".nh\n.ad l\n", JL_VERSION); /* no hyphenation: options and keys stay whole words */
	fputs(".SH NAME\njitterlab \\- a real-time jitter test harness: why does a periodic loop miss its deadline\n"
	      ".SH SYNOPSIS\n.nf\n", out);
	for (int i = 0; i < jl_cli_nall; i++) {
		jl_roff_text(out, "jitterlab ", "B");
		jl_roff_text(out, jl_cli_all[i]->command, "B");
		if (jl_cli_all[i]->operands[0]) {
			fputc(' ', out);
			jl_roff_text(out, jl_cli_all[i]->operands, "I");
		}
		fputs(" [\\fIOPTIONS\\fR]\n", out);
	}
	fputs("\\fBjitterlab\\fR \\fB\\-\\-help\\fR | \\fB\\-\\-version\\fR\n.fi\n.SH DESCRIPTION\n", out);
	jl_roff_text(out, "jitterlab runs a scenario (jitterlab-scenario(5)): real-time threads placed on CPUs with a "
			  "policy and priority, CPU-bound or external neighbours beside them, the kernel's scheduling "
			  "events recorded with ftrace. At the end it prints, per loop, the achieved rate, wakeup latency "
			  "(p50/p99/p99.9/max), period jitter and deadline misses, and for the worst cycle which task, IRQ "
			  "or softirq held the CPU. sweep repeats conditions in rounds and says how much each factor matters "
			  "and which differences are real; cyclictest runs cyclictest under the same neighbours; doctor says how ready the machine is "
			  "for real-time work; restore puts back every setting a run changed.", NULL);
	fputs("\n.SH COMMANDS\n", out);
	for (int i = 0; i < jl_cli_nall; i++)
		jl_cli_man(out, jl_cli_all[i]);
	fputs(".SH CYCLICTEST'S OPTIONS\n", out);
	jl_roff_text(out, "jitterlab run without a SCENARIO takes cyclictest's options for its loops: "
			  "jitterlab run -m -p80 -i1000 -a1 -D1h measures what cyclictest -m -p80 -i1000 -a1 -D1h does "
			  "(one SCHED_FIFO 80 loop of 1 ms pinned to CPU 1 for an hour, memory locked, sleeping in "
			  "clock_nanosleep), with the explanation of its worst cycles, and --load CMD --load-cpus LIST "
			  "puts neighbours beside it. It writes the scenario it ran as scenario.ini in the run "
			  "directory: jitterlab run that file to run it again, or edit it. -m and -n are taken and change "
			  "nothing (jitterlab always locks its memory and sleeps to absolute times).", NULL);
	fputs("\n.PP\n", out);
	jl_roff_text(out, "Where a letter meant something else in jitterlab, cyclictest's meaning wins, because the "
			  "one-liners people copy are cyclictest's: -D is the duration (a bare number is seconds, as in "
			  "cyclictest; 30m, 1h, 2d), -d is the distance between the loops' intervals (in us). -d with a "
			  "unit (-d 20s) was jitterlab's duration: it is still taken as the duration, with a warning, "
			  "until the next release. -h US bounds histogram.txt's rows as cyclictest's histogram does; -h "
			  "alone is still the help. -o stays the output root: cyclictest's -o (oscilloscope output) has "
			  "no counterpart, since jitterlab prints no per-cycle lines. -q is quiet in both.", NULL);
	fputs("\n", out);
	man8_exit_status(out);
	man8_files(out);
	fputs(".SH EXPLANATION PARTS\nThe parts of a late cycle in summary.json (worst[].parts[].kind), report.md and the "
	      "terminal:\n", out);
	for (int i = 0; i < jl_npart_kinds; i++)
		man_tp(out, jl_part_kinds[i].name, NULL, jl_part_kinds[i].help,
		       jl_part_kinds[i].culprit ? " (may be the cycle's culprit)" : NULL);
	fputs(".SH SUMMARY.JSON KEYS\nEvery key of a run's summary.json, with the objects it is a key of (. the "
	      "document itself, [] each element of an array, * each value of a map keyed by a name):\n", out);
	for (int i = 0; i < JL_NKEYS; i++)
		man_tp(out, jl_summary_keys[i].key, jl_summary_keys[i].places, jl_summary_keys[i].meaning, NULL);
	for (int i = 0; i < jl_summary_nmaps; i++)
		man_tp(out, jl_summary_maps[i].places, "a map", "keyed by ", jl_summary_maps[i].meaning);
	fputs(".SH SEE ALSO\n\\fBjitterlab\\-scenario\\fR(5), \\fBcyclictest\\fR(8), \\fBrtla\\fR(1), "
	      "\\fBtrace\\-cmd\\fR(1), \\fBkernelshark\\fR(1)\n", out);
}

/* What `list` was asked. */
struct list_args {
	const char *man, *example;
	bool dict, keys, scenario, exit;
};

/* ARGV into A, checked: 0, 1 when --help was printed, or -1 after saying what is wrong (exit 2). */
static int parse_args(struct list_args *a, int argc, char **argv)
{
	struct jl_cli_walk w = JL_CLI_START;
	const char *v;
	int id;

	while ((id = jl_cli_next(&jl_cli_list, argc, argv, &w, &v)) != JL_CLI_END) {
		switch (id) {
		case JL_CLI_HELP:
			jl_cli_help(stdout, &jl_cli_list);
			return 1;
		case JL_CLI_ERROR:
			return -1;
		case JL_CLI_OPERAND:
			fprintf(stderr, "jitterlab list: unexpected argument '%s' (jitterlab list --help)\n", v);
			return -1;
		case OPT_DICT:
			a->dict = true;
			break;
		case OPT_MAN:
			a->man = v;
			break;
		case OPT_EXAMPLE:
			a->example = v;
			break;
		case OPT_KEYS:
			a->keys = true;
			break;
		case OPT_SCENARIO:
			a->scenario = true;
			break;
		case OPT_EXIT:
			a->exit = true;
			break;
		}
	}
	if (a->man && strcmp(a->man, "8") && strcmp(a->man, "5")) {
		fprintf(stderr, "jitterlab list: --man %s: expected 8 (jitterlab) or 5 (jitterlab-scenario)\n", a->man);
		return -1;
	}
	if (a->example && (!a->man || strcmp(a->man, "5"))) {
		fprintf(stderr, "jitterlab list: --example goes with --man 5\n");
		return -1;
	}
	return 0;
}

/* The thread keys whose values are names: work kinds (with their argument) and policies. */
static void list_thread_keys(void)
{
	static const char *const arg_text[] = { [JL_ARG_NONE] = "", [JL_ARG_DURATION] = " DURATION",
						[JL_ARG_COUNT] = " N", [JL_ARG_SIZE] = " SIZE" };
	static const struct {
		enum jl_policy p;
		const char *help;
	} policies[] = {
		{ JL_POLICY_FIFO, "SCHED_FIFO, priority 1-99: runs until it blocks or a higher priority wakes" },
		{ JL_POLICY_RR, "SCHED_RR, priority 1-99: like fifo, with a time slice among equal priorities" },
		{ JL_POLICY_OTHER, "SCHED_OTHER (CFS/EEVDF), nice -20..19: shares the CPU fairly" },
		{ JL_POLICY_BATCH, "SCHED_BATCH, nice -20..19: CFS, treated as CPU-bound (fewer preemptions)" },
		{ JL_POLICY_IDLE, "SCHED_IDLE: runs only when nothing else wants the CPU" },
		{ JL_POLICY_DEADLINE, "SCHED_DEADLINE: runtime/deadline/period reservation (EDF), above fifo" },
	};

	printf("work kinds (thread key `work`):\n");
	for (int i = 0; i < JL_WORK_NKINDS; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s", jl_work_registry[i].name, arg_text[jl_work_registry[i].arg]);
		printf("  %-18s %s\n", name, jl_work_registry[i].help);
	}
	printf("\npolicies (thread key `policy`):\n");
	for (size_t i = 0; i < sizeof(policies) / sizeof(policies[0]); i++)
		printf("  %-18s %s\n", jl_policy_name(policies[i].p), policies[i].help);
}

/* The trace groups, each with its events (a system named once, where it changes). */
static void list_trace_groups(void)
{
	printf("\ntrace groups ([run] trace):\n");
	for (int i = 0; i < jl_trace_ngroups; i++) {
		const char *sys = "";

		printf("  %-18s %s\n  %-18s events:", jl_trace_groups[i].name, jl_trace_groups[i].help, "");
		for (const struct jl_trace_event *e = jl_trace_groups[i].events; e->name; e++) {
			printf(" %s%s%s%s", strcmp(sys, e->system) ? e->system : "", strcmp(sys, e->system) ? ":" : "",
			       e->name, e->flags & JL_TRACE_EV_REQUIRED ? "*" : "");
			sys = e->system;
		}
		printf("\n");
	}
	printf("  (* required; the others are skipped where the kernel lacks them)\n");
}

/* Plain `list`: every registry, one line each. */
static void list_registries(void)
{
	list_thread_keys();
	list_trace_groups();
	printf("\nrun files (a run directory's; THREAD: a thread's name):\n");
	for (int i = 0; i < jl_nrun_outputs; i++)
		printf("  %-22s %s (%s; %s)\n", jl_run_outputs[i].name, jl_run_outputs[i].help, jl_run_outputs[i].format,
		       jl_run_outputs[i].when);
	printf("\ndirectory documents (what makes a directory a run's, a sweep's, a comparison's...):\n");
	for (int i = 0; i < JL_NDOCUMENTS; i++)
		printf("  %-22s %s (written by %s; beside it: %s)\n", jl_documents[i].file, jl_documents[i].help,
		       jl_documents[i].writer, jl_documents[i].beside);
	printf("\nexplanation parts (summary.json worst[].parts[].kind; culprit: may be a cycle's culprit):\n");
	for (int i = 0; i < jl_npart_kinds; i++)
		printf("  %-18s %s%s\n", jl_part_kinds[i].name, jl_part_kinds[i].culprit ? "(culprit) " : "",
		       jl_part_kinds[i].help);
	printf("\nmetrics ([expect] THREAD.METRIC OP VALUE):\n");
	for (int i = 0; i < jl_nmetrics; i++)
		printf("  %-18s %s\n", jl_metrics[i].name, jl_metrics[i].help);
	printf("\ncpu-list names (keys `cpus`, [run] `isolate`; combine with numbers: pcores,20-23):\n");
	for (int i = 0; i < jl_ncpu_names; i++) {
		char name[32];

		snprintf(name, sizeof(name), "%s%s", jl_cpu_names[i].name, jl_cpu_names[i].arg);
		printf("  %-18s %s\n", name, jl_cpu_names[i].help);
	}
	printf("\n");
	jl_scenario_doc_list(stdout);
}

int cmd_list(int argc, char **argv)
{
	struct list_args a = { 0 };
	int rc = parse_args(&a, argc, argv);

	if (rc)
		return rc > 0 ? JL_EXIT_OK : JL_EXIT_USAGE;
	if (a.dict) {
		jl_scenario_doc_dict(stdout);
		return ferror(stdout) ? JL_EXIT_RUNTIME : JL_EXIT_OK;
	}
	if (a.keys) {
		for (int i = 0; i < JL_NKEYS; i++)
			printf("%s\t%s\t%s\n", jl_summary_keys[i].key, jl_summary_keys[i].places, jl_summary_keys[i].meaning);
		for (int i = 0; i < jl_summary_nmaps; i++)
			printf("*\t%s\t%s\n", jl_summary_maps[i].places, jl_summary_maps[i].meaning);
		return ferror(stdout) ? JL_EXIT_RUNTIME : JL_EXIT_OK;
	}
	if (a.exit) {
		list_exit_statuses(stdout);
		return ferror(stdout) ? JL_EXIT_RUNTIME : JL_EXIT_OK;
	}
	if (a.scenario) {
		jl_scenario_doc_list(stdout);
		return ferror(stdout) ? JL_EXIT_RUNTIME : JL_EXIT_OK;
	}
	if (a.man && !strcmp(a.man, "8")) {
		man8(stdout);
		return ferror(stdout) ? JL_EXIT_RUNTIME : JL_EXIT_OK;
	}
	if (a.man) {
		if (jl_scenario_doc_man(stdout, a.example)) {
			fprintf(stderr, "jitterlab list: --example %s: cannot read it\n", a.example);
			return JL_EXIT_RUNTIME;
		}
		return JL_EXIT_OK;
	}
	list_registries();
	return 0;
}

const struct jl_cli *const jl_cli_all[] = { &jl_cli_run,    &jl_cli_watch,  &jl_cli_sweep,  &jl_cli_cyclictest, &jl_cli_analyze,
					    &jl_cli_report, &jl_cli_doctor, &jl_cli_restore,    &jl_cli_list,
					    &jl_cli_baseline, &jl_cli_compare };
const int jl_cli_nall = (int)(sizeof(jl_cli_all) / sizeof(jl_cli_all[0]));
