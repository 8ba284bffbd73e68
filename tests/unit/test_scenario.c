/* test_scenario: rt/scenario/scenario.c through jl_scenario_parse_string, jl_scenario_parse_file,
 * jl_scenario_set and jl_scenario_write — every error class with its exact "FILE:LINE: context" prefix
 * and a message that says what was expected; defaults; count; rate rounding; the write/parse round
 * trip; --set overrides; the cpu-list names (pcores, ecores, smt:N) on fake sysfs roots
 * ($JITTERLAB_SYSFS_ROOT). Parsing never touches the machine (it only reads the online CPUs and, for
 * those names, the CPU topology). */
#include <ctype.h>
#include <math.h>
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cmocka.h>

#include "affinity/cpulist.h"
#include "rt/scenario/scenario.h"
#include "tests/fuzz/scenario_same.h"

static struct jl_scenario *sc_a, *sc_b; /* ~0.5 MB each: on the heap */

static int setup(void **state)
{
	(void)state;
	sc_a = calloc(1, sizeof(*sc_a));
	sc_b = calloc(1, sizeof(*sc_b));
	return sc_a && sc_b ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	free(sc_a);
	free(sc_b);
	return 0;
}

static struct jl_scenario *parse_ok(const char *text)
{
	char err[JL_ERR_MAX] = "";

	if (jl_scenario_parse_string("x.ini", text, sc_a, err, sizeof(err))) {
		print_error("parse failed: %s\n--- input:\n%s\n", err, text);
		fail();
	}
	return sc_a;
}

/* TEXT must fail with an error starting with PREFIX and containing NEEDLE (what was expected). */
static void parse_err(const char *text, const char *prefix, const char *needle)
{
	char err[JL_ERR_MAX] = "";

	if (!jl_scenario_parse_string("x.ini", text, sc_a, err, sizeof(err))) {
		print_error("parse accepted:\n%s\n(expected \"%s...\")\n", text, prefix);
		fail();
	}
	if (strncmp(err, prefix, strlen(prefix)) || (needle && !strstr(err, needle))) {
		print_error("error: %s\nexpected it to start with: %s\nand to contain: %s\n--- input:\n%s\n", err, prefix,
			    needle ? needle : "", text);
		fail();
	}
}

static struct jl_thread_spec *thread(struct jl_scenario *sc, const char *name)
{
	for (int i = 0; i < sc->nthreads; i++)
		if (!strcmp(sc->threads[i].name, name))
			return &sc->threads[i];
	print_error("no thread '%s'\n", name);
	fail();
	return NULL;
}

static char *write_str(const struct jl_scenario *sc)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);

	assert_non_null(f);
	assert_int_equal(jl_scenario_write(sc, f), 0);
	fclose(f);
	return buf;
}

/* ---- error classes ---- */

struct err_case {
	const char *text, *prefix, *needle;
};

static const struct err_case sections[] = {
	{ "[run]\nduration = 1s\n[bogus]\n", "x.ini:3: unknown section [bogus]", "expected [run], [thread NAME]" },
	{ "[thread a]\n[Run]\n", "x.ini:2: unknown section [Run]", "expected" },
	{ "[thread a]\n[ ]\n", "x.ini:2: empty section name", "expected" },
	{ "[run]\n[run]\n[thread a]\n", "x.ini:2: section [run] appears twice", NULL },
	{ "[run x]\n[thread a]\n", "x.ini:1: section [run] takes no name", NULL },
	{ "[thread a]\n[expect\n", "x.ini:2: section header without ']'", "expected" },
	{ "[thread a]\n[thread a]\n", "x.ini:2: thread 'a' is defined twice", NULL },
	{ "[thread a]\nrate = 1Hz\n\n[thread b]\n[thread a]\n", "x.ini:5: thread 'a' is defined twice", NULL },
	{ "duration = 1s\n[thread a]\n", "x.ini:1: key 'duration' outside any section", "header first" },
	{ "; comment\n\nx = 1\n", "x.ini:3: key 'x' outside any section", NULL },
	{ "[thread Control]\n", "x.ini:1: thread name 'Control' is not valid", "[a-z][a-z0-9_-]*" },
	{ "[thread 1a]\n", "x.ini:1: thread name '1a' is not valid", "[a-z][a-z0-9_-]*" },
	{ "[thread a.b]\n", "x.ini:1: thread name 'a.b' is not valid", "[a-z][a-z0-9_-]*" },
	{ "[thread _a]\n", "x.ini:1: thread name '_a' is not valid", NULL },
	{ "[thread aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa]\n",
	  "x.ini:1: thread name 'aaaa", "at most 55 characters" },
	{ "[thread]\n", "x.ini:1: section [thread]: expected [thread NAME]", NULL },
	{ "[thread a b]\n", "x.ini:1: section [thread a b]: expected [thread NAME]", NULL },
	/* [queue], [source], calls (issue 14) */
	{ "[thread a]\n[queue q]\ndepth = 4\n", "x.ini:2: queue 'q': nothing serves it", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[callback b]\nexecutor = e\ntrigger = q\n",
	  "x.ini:1: queue 'q': served by more than one callback", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[callback p]\nexecutor = e\nperiod = 10ms\npoll = q\n",
	  "x.ini:9: callback 'p': polls queue 'q'", NULL },
	{ "[queue q]\nlimit = 5\ndepth = 4\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n",
	  "x.ini:2: queue 'q': limit 5 is more than its depth 4", NULL },
	{ "[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nwork = call nope\n",
	  "x.ini:5: callback 'a': work = call nope: no queue 'nope'", NULL },
	{ "[topic t]\n[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nwork = call t\n",
	  "x.ini:6: callback 'a': work = call t: 't' is a topic, not a [queue]", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\nwork = call q\n",
	  "x.ini:6: callback 'a': calls the queue it serves", NULL },
	{ "[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nmargin = 5ms\n",
	  "x.ini:5: callback 'a': deadline_propagation and margin are for work = call QUEUE", NULL },
	{ "[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\ncancel = cooperative 10ms\nwork = sleep 1ms\n",
	  "x.ini:5: callback 'a': cancel is for a callback serving a [queue]", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\nwork = sin 1000\ncancel = cooperative 10ms\n",
	  "x.ini:7: callback 'a': cancel = cooperative needs work = sleep or spin", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\ncancel = sometimes\n",
	  "x.ini:6: callback 'a': cancel: 'sometimes' is not a cancellation", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[source s]\ntarget = nope\nburst = 1\n",
	  "x.ini:7: source 's': no queue 'nope'", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[source s]\ntarget = q\n",
	  "x.ini:6: source 's': neither a burst nor a rate", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[source s]\ntarget = q\nburst = 2\nrate = 5Hz\n",
	  "x.ini:6: source 's': both a burst and a rate", NULL },
	{ "[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[topic t]\n[callback b]\nexecutor = e\nperiod = 1s\npublish = q\n",
	  "x.ini:10: callback 'b': publishes to queue 'q'", NULL },
	/* [lock] (issue 14): what a lock and its users must be */
	{ "[thread a]\nlock = nope\n", "x.ini:2: thread 'a': no lock 'nope' (expected the name of a [lock] section)", NULL },
	{ "[lock l]\nkind = ceiling\n[thread a]\npolicy = fifo\npriority = 10\nlock = l\n",
	  "x.ini:1: lock 'l': kind = ceiling needs a ceiling", NULL },
	{ "[lock l]\nceiling = 50\n[thread a]\nlock = l\n", "x.ini:2: lock 'l': ceiling is for kind = ceiling (this one is mutex)", NULL },
	{ "[lock l]\nkind = ceiling\nceiling = 50\n[thread a]\npolicy = fifo\npriority = 80\nlock = l\n",
	  "x.ini:3: lock 'l': ceiling 50 is below the priority 80 of its user 'a'", NULL },
	{ "[lock l]\nkind = ceiling\nceiling = 50\n[thread a]\nlock = l\n", "x.ini:2: lock 'l': kind = ceiling, and its user 'a' is other",
	  "use kind = pi" },
	{ "[lock l]\nkind = futex\n", "x.ini:2: lock 'l': kind: 'futex' is not a lock kind (expected mutex, pi, ceiling or biglock)", NULL },
	{ "[lock l]\nswitch_interval = 5ms\n[thread a]\nlock = l\n", "x.ini:2: lock 'l': switch_interval is for kind = biglock (this one is mutex)", NULL },
	{ "[lock l]\nkind = pi\nhandoffs = 2\n[thread a]\nlock = l\n", "x.ini:3: lock 'l': handoffs is for kind = biglock (this one is pi)", NULL },
	{ "[lock l]\nkind = ceiling\nceiling = 100\n", "x.ini:3: lock 'l': ceiling: '100' is not a priority (expected 1-99", NULL },
	{ "[executor e]\n[callback c]\nexecutor = e\nperiod = 10ms\nlock = nope\n",
	  "x.ini:5: callback 'c': no lock 'nope' (expected the name of a [lock] section)", NULL },
	{ "[lock l]\n[thread a]\nexec = /bin/true\nlock = l\n", "x.ini:4: thread 'a': lock is held around built-in work", NULL },
	{ "[thread a]\n[source s]\n", "x.ini:2: source 's': no target (expected target = QUEUE)", NULL },
	{ "[thread a]\n[budget]\nstage.x = 1ms\n", "x.ini:3: [budget] stage.x: no callback 'x'", NULL },
	{ "[run]\nduration = 1s\n", "x.ini: no [thread NAME] or [executor NAME] section", "at least one thread" },
	{ "", "x.ini: no [thread NAME] or [executor NAME] section", NULL },
};

static const struct err_case syntax[] = {
	{ "[run]\nnot a pair\n[thread a]\n", "x.ini:2: syntax error", "'key = value'" },
	{ "[thread a]\npolicy = fifo\n  priority = 80\n", "x.ini:3: indented line after 'policy = ...'",
	  "continuation lines are not supported" },
	{ "[thread a]\npolicy = other\n\n  ; an indented comment is fine\n  [thread b]\n",
	  "x.ini:5: indented line after 'policy = ...'", NULL },
	{ "[thread a]\nexec =;x\n", "x.ini:2: key 'exec': value ';x' starts with ';'", "space before" },
};

static const struct err_case keys[] = {
	{ "[thread a]\npolicy = other\nprioritee = 5\n", "x.ini:3: thread 'a': unknown key 'prioritee'",
	  "expected one of policy, priority" },
	{ "[run]\ndurration = 1s\n[thread a]\n", "x.ini:2: [run] unknown key 'durration'", "expected one of name, duration" },
	{ "[thread a]\n[sweep]\nrun = 3\n", "x.ini:3: [sweep] unknown key 'run'", "expected runs" },
	{ "[thread a]\nrate = 10Hz\nrate = 20Hz\n", "x.ini:3: thread 'a': key 'rate' is set twice", "once" },
	{ "[run]\nduration = 1s\nwarmup = 0s\nduration = 2s\n[thread a]\n", "x.ini:4: [run]: key 'duration' is set twice", NULL },
	{ "[thread a]\n[expect]\nc = a.misses == 0\nc = a.skipped == 0\n", "x.ini:4: [expect]: key 'c' is set twice", NULL },
	{ "[thread a]\n[sweep]\nruns = 2\nruns = 3\n", "x.ini:4: [sweep]: key 'runs' is set twice", NULL },
};

static const struct err_case values[] = {
	/* durations */
	{ "[run]\nduration = 10\n[thread a]\n", "x.ini:2: [run] duration: '10' has no unit", "ns, us, ms, s, m or h" },
	{ "[run]\nduration = -1s\n[thread a]\n", "x.ini:2: [run] duration: '-1s' is negative", NULL },
	{ "[run]\nduration = 0s\n[thread a]\n", "x.ini:2: [run] duration: duration must be greater than 0", NULL },
	{ "[run]\nwarmup = soon\n[thread a]\n", "x.ini:2: [run] warmup: 'soon' is not a duration", "e.g. 10ms" },
	{ "[run]\nduration = 99999999999999999999h\n[thread a]\n", "x.ini:2: [run] duration:", "too large" },
	{ "[run]\ngrace = 10ms\n[thread a]\n", "x.ini:2: [run] grace: '10ms' is out of range", "100ms-10m" },
	{ "[thread a]\nstart = 1\n", "x.ini:2: thread 'a': start: '1' has no unit", NULL },
	{ "[thread a]\nrate = 1Hz\ndeadline = 0s\n", "x.ini:3: thread 'a': deadline: deadline must be greater than 0", NULL },
	{ "[thread a]\nperiod = 1us\n", "x.ini:2: thread 'a': period: '1us' is out of range", "10us-1h" },
	{ "[thread a]\nperiod = 2h\n", "x.ini:2: thread 'a': period: '2h' is out of range", "10us-1h" },
	{ "[thread a]\npolicy = deadline\nperiod = 1ms\nruntime = 100ns\n", "x.ini:4: thread 'a': runtime:", "1024ns" },
	/* rates */
	{ "[thread a]\nrate = fast\n", "x.ini:2: thread 'a': rate: 'fast' is not a rate", "Hz" },
	{ "[thread a]\nrate = 100\n", "x.ini:2: thread 'a': rate: '100' is not a rate", "Hz" },
	{ "[thread a]\nrate = 0Hz\n", "x.ini:2: thread 'a': rate: '0Hz' is not a rate", "positive" },
	{ "[thread a]\nrate = 1MHz\n", "x.ini:2: thread 'a': rate: '1MHz' is out of range", NULL },
	/* sizes */
	{ "[run]\ntrace_buffer = 16XB\n[thread a]\n", "x.ini:2: [run] trace_buffer: '16XB' is not a size", "KB, MB or GB" },
	{ "[run]\ntrace_buffer = 1KB\n[thread a]\n", "x.ini:2: [run] trace_buffer: '1KB' is out of range", "64KB-4GB" },
	{ "[thread a]\nwork = memory 16\n", "x.ini:2: thread 'a': work: '16' is not a size", NULL },
	/* cpu lists */
	{ "[thread a]\ncpus = 3-1\n", "x.ini:2: thread 'a': cpus: descending range 3-1", NULL },
	{ "[thread a]\ncpus = 0,\n", "x.ini:2: thread 'a': cpus:", "expected e.g. 1, 0-3" },
	{ "[thread a]\ncpus = one\n", "x.ini:2: thread 'a': cpus: 'one' is not a cpu list", NULL },
	{ "[run]\nisolate = x\n[thread a]\n", "x.ini:2: [run] isolate:", "cpu list" },
	/* booleans */
	{ "[thread a]\nrate = 1Hz\nmeasure = maybe\n", "x.ini:3: thread 'a': measure: 'maybe' is not a boolean", "yes, no, on, off" },
	/* integers */
	{ "[thread a]\nnice = -21\n", "x.ini:2: thread 'a': nice: -21 is out of range", "-20 to 19" },
	{ "[thread a]\nnice = x\n", "x.ini:2: thread 'a': nice: 'x' is not an integer", NULL },
	{ "[thread a]\ncount = 0\n", "x.ini:2: thread 'a': count: 0 is out of range", "1 to 64" },
	{ "[thread a]\ncount = 65\n", "x.ini:2: thread 'a': count: 65 is out of range", NULL },
	{ "[thread a]\npolicy = fifo\npriority = high\n", "x.ini:3: thread 'a': priority: 'high' is not a priority", "1-99" },
	{ "[run]\nseed = -1\n[thread a]\n", "x.ini:2: [run] seed: -1 is out of range", NULL },
	{ "[thread a]\nmem_node = x\n", "x.ini:2: thread 'a': mem_node:", NULL },
	{ "[thread a]\nmem_node = 1000\n", "x.ini:2: thread 'a': mem_node 1000 does not exist", "nodes 0-" },
	/* words */
	{ "[thread a]\npolicy = fast\n", "x.ini:2: thread 'a': policy: 'fast' is not a policy", "fifo, rr, other, batch, idle or deadline" },
	{ "[thread a]\npolicy = FIFO\n", "x.ini:2: thread 'a': policy: 'FIFO' is not a policy", NULL },
	{ "[thread a]\nrate = 1Hz\noverrun = drop\n", "x.ini:3: thread 'a': overrun: 'drop' is not an overrun mode", "skip or catchup" },
	{ "[thread a]\nwork = spinn 1ms\n", "x.ini:2: thread 'a': work: unknown work kind 'spinn'", "none, spin, sin" },
	{ "[thread a]\nwork = spin\n", "x.ini:2: thread 'a': work: work 'spin' needs a duration", NULL },
	{ "[thread a]\nwork = sin many\n", "x.ini:2: thread 'a': work: 'many' is not an integer", NULL },
	{ "[run]\ntrace = sched,foo\n[thread a]\n", "x.ini:2: [run] trace: unknown trace group 'foo'", "sched, irq, timer" },
	{ "[run]\ntrace = ,\n[thread a]\n", "x.ini:2: [run] trace: empty trace list", NULL },
	{ "[run]\nirq_affinity = all\n[thread a]\n", "x.ini:2: [run] irq_affinity: 'all' is not an irq_affinity", "keep or housekeeping" },
	{ "[run]\ncpu_dma_latency = 1500ns\n[thread a]\n", "x.ini:2: [run] cpu_dma_latency: '1500ns' is not whole microseconds", "off" },
	{ "[run]\nrt_runtime = 2s\n[thread a]\n", "x.ini:2: [run] rt_runtime: '2s' is not whole microseconds", "1us-1s" },
	{ "[run]\nrt_runtime = lots\n[thread a]\n", "x.ini:2: [run] rt_runtime: 'lots' is not an rt_runtime", "keep, unlimited" },
	{ "[run]\nname = a b\n[thread a]\n", "x.ini:2: [run] name: name 'a b' is not usable in a path", NULL },
	{ "[run]\nname = ../x\n[thread a]\n", "x.ini:2: [run] name:", NULL },
	{ "[run]\nname = My.Run\n[thread a]\n", "x.ini:2: [run] name: name 'My.Run' is not usable in a path", "[a-z][a-z0-9_-]*" },
	{ "[run]\nname = x'.system('touch /tmp/x').'\n[thread a]\n", "x.ini:2: [run] name: name 'x'.system(", "[a-z][a-z0-9_-]*" },
	{ "[run]\nname = 1st\n[thread a]\n", "x.ini:2: [run] name:", "[a-z][a-z0-9_-]*" },
	{ "[thread a]\nexec = true\nuser = nobody\n", "x.ini:3: thread 'a': user: 'nobody' is not a user", "root or invoking" },
	{ "[thread a]\nexec =\n", "x.ini:2: thread 'a': exec: exec needs a command line", NULL },
	{ "[thread a]\n[sweep]\nruns = 0\n", "x.ini:3: [sweep] runs: 0 is out of range", NULL },
	{ "[thread a]\n[sweep]\ncondition.A = a.nice=1\n", "x.ini:3: [sweep] condition.A: condition label 'A' is not valid", NULL },
	{ "[thread a]\n[sweep]\ncondition.1-x! = a.nice=1\n", "x.ini:3: [sweep] condition.1-x!: condition label", NULL },
	{ "[thread a]\n[sweep]\nvary.x = 1, 2\n", "x.ini:3: [sweep] vary.x: 'vary.x' must be vary.SECTION.KEY", NULL },
};

static const struct err_case cross[] = {
	{ "[thread control]\npolicy = fifo\npriority = 120\n",
	  "x.ini:3: thread 'control': priority 120 is out of range for policy fifo (1-99", NULL },
	{ "[thread control]\npolicy = rr\npriority = 100\n",
	  "x.ini:3: thread 'control': priority 100 is out of range for policy rr (1-99)", NULL },
	/* 99 is the watchdog's too: only on CPUs it does not use (issue 42) */
	{ "[thread control]\npolicy = rr\npriority = 99\n",
	  "x.ini:3: thread 'control': priority 99 is the watchdog's, and without cpus it may run on every CPU", "1-98" },
	{ "[run]\nhousekeeping = 0\n[thread n]\npolicy = fifo\npriority = 99\ncpus = 0\nrate = 1kHz\nmeasure = no\n",
	  "x.ini:5: thread 'n': priority 99 is the watchdog's, and it shares CPU 0 with the watchdog", "outside them" },
	{ "[thread control]\npriority = 0\npolicy = fifo\n",
	  "x.ini:2: thread 'control': priority 0 is out of range for policy fifo (1-99", NULL },
	{ "[thread a]\npriority = 5\n", "x.ini:2: thread 'a': priority is only for fifo and rr (policy is other", "use nice" },
	{ "[thread a]\npolicy = idle\npriority = 5\n", "x.ini:3: thread 'a': priority is only for fifo and rr (policy is idle", NULL },
	{ "[thread a]\npolicy = fifo\n", "x.ini:2: thread 'a': policy fifo needs a priority (1-99)", NULL },
	{ "[thread a]\nrate = 1Hz\npolicy = rr\n", "x.ini:3: thread 'a': policy rr needs a priority", NULL },
	{ "[thread a]\npolicy = fifo\npriority = 50\nnice = 5\n", "x.ini:4: thread 'a': nice is only for other and batch", NULL },
	{ "[thread a]\nperiod = 10ms\nrate = 100Hz\n", "x.ini:3: thread 'a': period and rate both given", "one of them" },
	{ "[thread a]\nrate = 100Hz\nperiod = 10ms\n", "x.ini:2: thread 'a': period and rate both given", NULL },
	{ "[thread a]\npolicy = deadline\nperiod = 10ms\n", "x.ini:2: thread 'a': policy deadline needs runtime and period", NULL },
	{ "[thread a]\npolicy = deadline\nruntime = 1ms\n", "x.ini:2: thread 'a': policy deadline needs runtime and period", NULL },
	{ "[thread a]\npolicy = deadline\nperiod = 10ms\nruntime = 11ms\n", "x.ini:4: thread 'a': runtime must not exceed the deadline", NULL },
	{ "[thread a]\npolicy = deadline\nperiod = 10ms\nruntime = 1ms\ndeadline = 20ms\n", "x.ini:5: thread 'a': policy deadline needs deadline <= period", NULL },
	{ "[thread a]\nruntime = 1ms\n", "x.ini:2: thread 'a': runtime is only for policy deadline", NULL },
	{ "[thread a]\npolicy = deadline\nruntime = 10us\nperiod = 50us\n", "x.ini:4: thread 'a': policy deadline needs a period of", NULL },
	{ "[thread a]\npolicy = deadline\nruntime = 10ms\nrate = 0.1Hz\n", "x.ini:4: thread 'a': policy deadline needs a period of", NULL },
	{ "[thread a]\ndeadline = 1ms\n", "x.ini:2: thread 'a': deadline needs a period or rate", NULL },
	{ "[thread a]\noverrun = catchup\n", "x.ini:2: thread 'a': overrun needs a period or rate", NULL },
	{ "[thread a]\ncpus = 1023\n", "x.ini:2: thread 'a': cpus names CPU 1023, which is not online", "online: 0" },
	{ "[thread a]\nexec = sleep 1\nwork = spin 1ms\n", "x.ini:3: thread 'a': exec and work are exclusive", NULL },
	{ "[thread a]\nexec = sleep 1\nrate = 10Hz\n", "x.ini:2: thread 'a': an exec neighbour cannot be periodic", NULL },
	{ "[thread a]\nmeasure = yes\n", "x.ini:2: thread 'a': measure = yes needs a period or rate", NULL },
	{ "[thread a]\nmeasure = yes\nexec = true\n", "x.ini:2: thread 'a': measure = yes needs a period or rate", NULL },
	{ "[run]\nduration = 1s\n[thread a]\nstart = 1s\n", "x.ini:4: thread 'a': start is not before the end of the run", NULL },
	{ "[run]\nisolate = 1023\n[thread a]\n", "x.ini:2: [run] isolate: CPU 1023 is not online", NULL },
	{ "[run]\nirq_affinity = housekeeping\n[thread a]\n", "x.ini:2: [run] irq_affinity = housekeeping needs isolate", NULL },
	{ "[run]\nhousekeeping = 1023\n[thread a]\n", "x.ini:2: [run] housekeeping: CPU 1023 is not online", NULL },
	{ "[run]\nhousekeeping = 0\n[thread a]\ncpus = 0\nrate = 100Hz\n",
	  "x.ini:2: [run] housekeeping: CPU 0 is thread 'a''s", "no measured thread is pinned to" },
	{ "[run]\nhousekeeping = 0\nisolate = 0\n[thread a]\n", "x.ini:2: [run] housekeeping: CPU 0 is isolated", NULL },
	{ "[run]\nhousekeeping = 0\n[executor e]\ncpus = 0\n[callback c]\nexecutor = e\nperiod = 10ms\n",
	  "x.ini:2: [run] housekeeping: CPU 0 is executor 'e''s", NULL },
	{ "[run]\nhousekeeping = none\n[thread a]\n", "x.ini:2: [run] housekeeping:", NULL },
};

static const struct err_case expects[] = {
	{ "[thread a]\n[expect]\nx = a.misses 0\n", "x.ini:3: [expect] x: 'a.misses 0' is not an expectation",
	  "THREAD.METRIC OP VALUE" },
	{ "[thread a]\n[expect]\nx = a.misses =< 0\n", "x.ini:3: [expect] x:", "OP one of" },
	{ "[thread a]\n[expect]\nx = a.misses ==\n", "x.ini:3: [expect] x:", "THREAD.METRIC OP VALUE" },
	{ "[thread a]\n[expect]\nx = < 5\n", "x.ini:3: [expect] x:", "THREAD.METRIC OP VALUE" },
	{ "[thread a]\n[expect]\nx = a.latency.p99 < 2\n", "x.ini:3: [expect] x: '2' has no unit", NULL },
	{ "[thread a]\n[expect]\nx = a.misses < 1.5\n", "x.ini:3: [expect] x: '1.5' is not an integer", NULL },
	{ "[thread a]\n[expect]\nx = a.rate_hz > fast\n", "x.ini:3: [expect] x: 'fast' is not a rate in Hz", NULL },
	{ "[thread a]\n[expect]\nx = a.rate_hz > nan\n", "x.ini:3: [expect] x: 'nan' is not a rate in Hz", NULL },
	{ "[thread a]\n[expect]\nx = a.latency.p98 < 2ms\n", "x.ini:3: [expect] x: 'a.latency.p98' does not name THREAD.METRIC",
	  "latency.p50, latency.p90, latency.p99, latency.p999, latency.max, latency.mean" }, /* the registry's list */
	{ "[thread a]\n[expect]\nx = latency.p99 < 2ms\n", "x.ini:3: [expect] x: 'latency.p99' does not name THREAD.METRIC", NULL },
	{ "[thread a]\n[expect]\nx = ghost.misses == 0\n", "x.ini:3: [expect] x: no thread, callback, sync, lock or source 'ghost'", NULL },
	{ "[thread a]\ncount = 2\n[expect]\nx = a.2.misses == 0\n", "x.ini:4: [expect] x: no thread, callback, sync, lock or source 'a.2'", NULL },
	/* a [sync]'s metrics on a sync only, a series' on a series only */
	{ "[topic a]\n[topic b]\n[executor e]\n[callback c]\nexecutor = e\nperiod = 1ms\npublish = a\n[sync s]\ninputs = a, b\n"
	  "[expect]\nx = s.latency.p99 < 1ms\n", "x.ini:11: [expect] x: latency.p99 is not a metric of a [sync] ('s'; expected one of rate_hz", NULL },
	{ "[thread a]\n[expect]\nx = a.pair_diff.max < 1ms\n", "x.ini:3: [expect] x: pair_diff.max is not a metric of a thread or callback ('a'", NULL },
	{ "[lock l]\n[thread a]\nlock = l\n[expect]\nx = l.latency.p99 < 1ms\n", "x.ini:5: [expect] x: latency.p99 is not a metric of a [lock] ('l'; expected one of acquisitions, wait.mean", NULL },
	{ "[thread a]\n[expect]\nx = a.messages.consumed_fraction > 1.5\n", "x.ini:3: [expect]", "is not a fraction" },
	/* [gate]: SERIES.METRIC OP baseline [+|- AMOUNT] or SERIES.METRIC no worse */
	{ "[thread a]\n[gate]\ng = a.latency.p99 <= base + 10%\n", "x.ini:3: [gate] g: 'a.latency.p99 <= base + 10%' is not a gate",
	  "SERIES.METRIC no worse" },
	{ "[thread a]\n[gate]\ng = a.latency.p99 < baseline\n", "x.ini:3: [gate] g:", "is not a gate" },
	{ "[thread a]\n[gate]\ng = a.latency.p99 <= baseline * 2\n", "x.ini:3: [gate] g:", "is not a gate" },
	{ "[thread a]\n[gate]\ng = a.latency.p99 <= baseline + ten%\n", "x.ini:3: [gate] g: 'ten%' is not a percentage", NULL },
	{ "[thread a]\n[gate]\ng = a.latency.p99 <= baseline + 10\n", "x.ini:3: [gate] g: '10' has no unit", NULL },
	{ "[thread a]\n[gate]\ng = a.period.mean no worse\n", "x.ini:3: [gate] g: period.mean has no worse side",
	  "a.period.mean <= baseline + 10%" },
	{ "[thread a]\n[gate]\ng = a.latency.p98 no worse\n", "x.ini:3: [gate] g: 'a.latency.p98' does not name THREAD.METRIC", NULL },
	{ "[thread a]\n[gate]\ng = ghost.latency.p99 no worse\n", "x.ini:3: [gate] g: no thread, callback, sync, lock or source 'ghost'", NULL },
	{ "[thread a]\n[gate]\ng = a.pair_diff.max no worse\n", "x.ini:3: [gate] g: pair_diff.max is not a metric of a thread or callback", NULL },
	{ "[thread a]\n[gate]\ng = a.misses no worse\ng = a.skipped no worse\n", "x.ini:4: [gate]: key 'g' is set twice", NULL },
	{ "[thread a]\n[expect]\nbad label = a.misses == 0\n", "x.ini:3: [expect]: label 'bad label' is not valid", NULL },
	{ "[thread a]\n[expect]\n= a.misses == 0\n", "x.ini:3: [expect]: label '' is not valid", NULL },
};

static void run_cases(const struct err_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++)
		parse_err(c[i].text, c[i].prefix, c[i].needle);
}

static void test_err_sections(void **state)
{
	(void)state;
	run_cases(sections, sizeof(sections) / sizeof(sections[0]));
}

static void test_err_syntax(void **state)
{
	(void)state;
	run_cases(syntax, sizeof(syntax) / sizeof(syntax[0]));
}

static void test_err_keys(void **state)
{
	(void)state;
	run_cases(keys, sizeof(keys) / sizeof(keys[0]));
}

static void test_err_values(void **state)
{
	(void)state;
	run_cases(values, sizeof(values) / sizeof(values[0]));
}

static void test_err_cross(void **state)
{
	(void)state;
	run_cases(cross, sizeof(cross) / sizeof(cross[0]));
}

static void test_err_expect(void **state)
{
	(void)state;
	run_cases(expects, sizeof(expects) / sizeof(expects[0]));
}

/* Isolating every online CPU leaves no housekeeping CPU. */
static void test_err_isolate_all(void **state)
{
	cpu_set_t online;
	char list[256], text[512], prefix[512];

	(void)state;
	assert_int_equal(jl_cpulist_online(&online), 0);
	jl_cpulist_format(&online, list, sizeof(list));
	snprintf(text, sizeof(text), "[run]\nisolate = %s\n[thread a]\n", list);
	snprintf(prefix, sizeof(prefix), "x.ini:2: [run] isolate: shielding every online CPU (%s)", list);
	parse_err(text, prefix, "no housekeeping CPU");
}

/* The inih line limit: a longer line is an error at its own line, never silently split. */
static void test_err_long_line(void **state)
{
	char text[1024];

	(void)state;
	snprintf(text, sizeof(text), "[thread a]\nrate = 1Hz\n; %0300d\nwork = none\n", 0);
	parse_err(text, "x.ini:3: line is longer than 199 characters", NULL);
	snprintf(text, sizeof(text), "[thread a]\nexec = %0250d\n", 7);
	parse_err(text, "x.ini:2: line is longer than", NULL);
	/* 199 characters is fine */
	snprintf(text, sizeof(text), "[thread a]\n;%0198d\n", 0);
	assert_int_equal(strlen(strchr(text, ';')), 200);
	parse_ok(text);
	/* and a long last line without a newline is also refused */
	snprintf(text, sizeof(text), "[thread a]\n;%0300d", 0);
	parse_err(text, "x.ini:2: line is longer than", NULL);
}

/* Files: the path and line prefix, NUL bytes, a missing file. */
static void test_parse_file(void **state)
{
	char path[] = "/tmp/jl-test-scenario-XXXXXX";
	char err[JL_ERR_MAX], expect[256];
	int fd = mkstemp(path);
	static const char good[] = "; test\n[run]\nduration = 2s\n\n[thread control]\npolicy = fifo\npriority = 80\nrate = 100Hz\n";
	static const char bad[] = "[thread control]\npolicy = fifo\n\npriority = 120\n";
	static const char nul[] = "[thread a]\nrate = 1\0Hz\n";

	(void)state;
	assert_true(fd >= 0);
	assert_int_equal(write(fd, good, sizeof(good) - 1), (ssize_t)sizeof(good) - 1);
	assert_int_equal(jl_scenario_parse_file(path, sc_a, err, sizeof(err)), 0);
	assert_int_equal(sc_a->run.duration_ns, 2000000000LL);
	assert_int_equal(sc_a->threads[0].beh.period_ns, 10000000);
	assert_int_equal(sc_a->threads[0].line, 5);
	/* the default name is the file stem, lower case (mkstemp's letters are mixed) */
	{
		char stem[64];

		snprintf(stem, sizeof(stem), "%s", strrchr(path, '/') + 1);
		for (char *c = stem; *c; c++)
			*c = (char)tolower((unsigned char)*c);
		assert_string_equal(sc_a->run.name, stem);
	}

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, bad, sizeof(bad) - 1, 0), (ssize_t)sizeof(bad) - 1);
	assert_int_equal(jl_scenario_parse_file(path, sc_a, err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "%s:4: thread 'control': priority 120 is out of range for policy fifo (1-99", path);
	assert_int_equal(strncmp(err, expect, strlen(expect)), 0);

	assert_int_equal(ftruncate(fd, 0), 0);
	assert_int_equal(pwrite(fd, nul, sizeof(nul) - 1, 0), (ssize_t)sizeof(nul) - 1);
	assert_int_equal(jl_scenario_parse_file(path, sc_a, err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "%s:2: NUL byte", path);
	assert_int_equal(strncmp(err, expect, strlen(expect)), 0);

	close(fd);
	unlink(path);
	assert_int_equal(jl_scenario_parse_file(path, sc_a, err, sizeof(err)), -1);
	snprintf(expect, sizeof(expect), "%s: cannot open", path);
	assert_int_equal(strncmp(err, expect, strlen(expect)), 0);
}

/* A default name that is not a valid `name` (spaces) is made one, so scenario.ini parses back. */
static void test_default_name_sanitized(void **state)
{
	char err[JL_ERR_MAX];

	(void)state;
	assert_int_equal(jl_scenario_parse_string("/tmp/my scenario.v2.ini", "[thread a]\n", sc_a, err, sizeof(err)), 0);
	assert_string_equal(sc_a->run.name, "my_scenario_v2"); /* [a-z][a-z0-9_-]*, like thread names */
	assert_int_equal(jl_scenario_parse_string(".hidden", "[thread a]\n", sc_a, err, sizeof(err)), 0);
	assert_string_equal(sc_a->run.name, "s-_hidden"); /* a name starts with a letter */
	assert_int_equal(jl_scenario_parse_string("/x/Quick-Start.ini", "[thread a]\n", sc_a, err, sizeof(err)), 0);
	assert_string_equal(sc_a->run.name, "quick-start");
}

/* ---- good paths ---- */

static void test_defaults(void **state)
{
	struct jl_scenario *sc = parse_ok("[thread a]\n");
	const struct jl_thread_spec *t = &sc->threads[0];
	char *out;

	(void)state;
	assert_string_equal(sc->run.name, "x");
	assert_int_equal(sc->run.duration_ns, 10000000000LL);
	assert_int_equal(sc->run.warmup_ns, 1000000000LL);
	assert_int_equal(sc->run.trace_groups, JL_TRACE_SCHED);
	assert_int_equal(sc->run.trace_buffer, 16ULL << 20);
	assert_false(sc->run.isolate_set);
	assert_int_equal(sc->run.irq_affinity, JL_IRQ_KEEP);
	assert_int_equal(sc->run.cpu_dma_latency_ns, 0);
	assert_int_equal(sc->run.rt_runtime_us, -2);
	assert_int_equal(sc->run.seed, 1);
	assert_int_equal(sc->nthreads, 1);
	assert_string_equal(t->name, "a");
	assert_int_equal(t->place.policy, JL_POLICY_OTHER);
	assert_int_equal(t->place.priority, 0);
	assert_int_equal(t->place.nice, 0);
	assert_false(t->place.cpus_set);
	assert_int_equal(t->place.count, 1);
	assert_int_equal(t->beh.period_ns, 0);
	assert_int_equal(t->beh.work.kind, JL_WORK_NONE);
	assert_int_equal(t->beh.overrun, JL_OVERRUN_SKIP);
	assert_int_equal(t->place.mem_node, -1);
	assert_int_equal(t->beh.start_ns, 0);
	assert_false(jl_thread_measured(t));
	assert_string_equal(t->beh.exec, "");
	assert_int_equal(sc->nexpect, 0);
	assert_false(sc->sweep.present);

	/* every default is written out */
	out = write_str(sc);
	static const char *const lines[] = {
		"\n[run]\n", "\nname = x\n", "\nduration = 10s\n", "\nwarmup = 1s\n", "\ntrace = sched\n",
		"\ntrace_buffer = 16MB\n", "\ntrace_threshold = none\n", "\nisolate = none\n", "\nirq_affinity = keep\n",
		"\ncpu_dma_latency = 0s\n", "\nrt_runtime = keep\n", "\nseed = 1\n", "\ngrace = 2s\n", "\n[thread a]\n",
		"\npolicy = other\n", "\nnice = 0\n", "\ncount = 1\n", "\nwork = none\n", "\nmem_node = none\n",
		"\nstart = 0s\n", "\nmeasure = no\n",
	};
	for (size_t i = 0; i < sizeof(lines) / sizeof(lines[0]); i++) {
		if (!strstr(out, lines[i])) {
			print_error("written scenario lacks \"%s\":\n%s\n", lines[i], out);
			fail();
		}
	}
	free(out);
}

/* Priority 99 on a CPU the watchdog does not use (auto housekeeping: the CPUs no measured thread is pinned
 * to, CPU 0 here) is OSADL's and many users' setting: it parses (issue 42). */
static void test_priority_99_off_the_watchdog(void **state)
{
	struct jl_scenario *sc = parse_ok("[thread c]\npolicy = fifo\npriority = 99\ncpus = 1\nrate = 1kHz\n");

	(void)state;
	assert_int_equal(sc->threads[0].place.priority, 99);
}

static void test_periodic_defaults(void **state)
{
	struct jl_scenario *sc = parse_ok("[thread c]\npolicy = fifo\npriority = 80\ncpus = 1\nrate = 60Hz\nwork = spin 200us\n");
	const struct jl_thread_spec *t = &sc->threads[0];
	char *out;

	(void)state;
	assert_int_equal(t->place.policy, JL_POLICY_FIFO);
	assert_int_equal(t->place.priority, 80);
	assert_true(t->place.cpus_set);
	assert_int_equal(CPU_COUNT(&t->place.cpus), 1);
	assert_true(CPU_ISSET(1, &t->place.cpus));
	assert_int_equal(t->beh.period_ns, 16666667); /* 1/60 s rounded to the ns */
	assert_true(t->beh.period_from_rate);
	assert_int_equal(t->beh.work.kind, JL_WORK_SPIN);
	assert_int_equal(t->beh.work.arg, 200000);
	assert_true(jl_thread_measured(t)); /* periodic: measured by default */
	assert_int_equal(t->key_line[JL_THREAD_KEY_RATE], 5);
	out = write_str(sc);
	assert_non_null(strstr(out, "\npriority = 80\n"));
	assert_non_null(strstr(out, "\ncpus = 1\n"));
	assert_non_null(strstr(out, "\nperiod = 16666667ns\n"));
	assert_non_null(strstr(out, "\ndeadline = 16666667ns\n"));
	assert_non_null(strstr(out, "\noverrun = skip\n"));
	assert_non_null(strstr(out, "\nwork = spin 200us\n"));
	assert_non_null(strstr(out, "\nmeasure = yes\n"));
	assert_null(strstr(out, "nice")); /* fifo has no nice */
	free(out);

	sc = parse_ok("[thread c]\nrate = 0.5Hz\n[thread d]\nrate = 3Hz\n[thread e]\nrate = 1kHz\nmeasure = off\n");
	assert_int_equal(sc->threads[0].beh.period_ns, 2000000000LL);
	assert_int_equal(sc->threads[1].beh.period_ns, 333333333LL);
	assert_int_equal(sc->threads[2].beh.period_ns, 1000000LL);
	assert_false(jl_thread_measured(&sc->threads[2]));
}

static void test_count_and_expect(void **state)
{
	struct jl_scenario *sc = parse_ok("[thread hog]\ncount = 4\nwork = sin 1000\n\n[thread ctl]\npolicy = rr\npriority = 1\n"
					  "period = 1ms\n\n[expect]\nh3 = hog.3.misses == 0\nlat = ctl.latency.p99 < 1.5ms\n"
					  "rate: ctl.rate_hz >= 999.5Hz\nper = ctl.period.stddev <= 100us\n");

	(void)state;
	assert_int_equal(sc->nthreads, 2);
	assert_int_equal(thread(sc, "hog")->place.count, 4);
	assert_int_equal(sc->nexpect, 4);
	assert_string_equal(sc->expect[0].label, "h3");
	assert_string_equal(sc->expect[0].thread, "hog.3");
	assert_string_equal(sc->expect[0].metric, "misses");
	assert_int_equal(sc->expect[0].op, JL_CMP_EQ);
	assert_int_equal(sc->expect[0].line, 11);
	assert_string_equal(sc->expect[1].thread, "ctl");
	assert_string_equal(sc->expect[1].metric, "latency.p99");
	assert_int_equal(sc->expect[1].op, JL_CMP_LT);
	assert_true(sc->expect[1].value == 1500000.0);
	assert_string_equal(sc->expect[1].text, "ctl.latency.p99 < 1.5ms");
	assert_string_equal(sc->expect[2].metric, "rate_hz");
	assert_int_equal(sc->expect[2].op, JL_CMP_GE);
	assert_true(sc->expect[2].value == 999.5);
	assert_string_equal(sc->expect[3].metric, "period.stddev");
	assert_int_equal(sc->expect[3].op, JL_CMP_LE);
}

/* The contract's own example (docs/scenario-format.md) parses. */
static void test_contract_example(void **state)
{
	struct jl_scenario *sc;

	(void)state;
	sc = parse_ok("; Does a CPU-bound neighbour on the same core break a 100 Hz SCHED_FIFO loop?\n"
		      "; Expect: no misses with fifo; hundreds of ms periods with policy=other.\n"
		      "[run]\nduration = 60s\nisolate = 1\n\n"
		      "[thread control]\npolicy = fifo\npriority = 80\ncpus = 1\nrate = 100Hz\nwork = spin 200us\n\n"
		      "[thread scan]\npolicy = other\ncpus = 1\nrate = 60Hz\nwork = sin 50000000\n\n"
		      "[sweep]\nruns = 5\ncondition.fifo = control.policy=fifo; control.priority=80\n"
		      "condition.other = control.policy=other\n\n"
		      "[expect]\nfifo_rate = control.rate_hz > 99\n");
	assert_int_equal(sc->run.duration_ns, 60000000000LL);
	assert_true(sc->run.isolate_set);
	assert_int_equal(sc->nthreads, 2);
	assert_int_equal(thread(sc, "scan")->beh.work.arg, 50000000);
	assert_true(sc->sweep.present);
	assert_int_equal(sc->sweep.runs, 5);
	assert_int_equal(sc->sweep.nconditions, 2);
	assert_string_equal(sc->sweep.conditions[1].label, "other");
	assert_string_equal(sc->sweep.conditions[0].overrides, "control.policy=fifo; control.priority=80");
	assert_int_equal(sc->nexpect, 1);
}

/* [gate]'s forms into the model: the kind, the allowance (a fraction when relative, the metric's unit when
 * not, signed), and a --set of a label replacing it. */
static void test_gates(void **state)
{
	struct jl_scenario *sc;
	char err[JL_ERR_MAX];

	(void)state;
	sc = parse_ok("[thread a]\nrate = 1kHz\n[gate]\np = a.latency.p99 <= baseline + 10%\nr = a.rate_hz >= baseline - 5Hz\n"
		      "w = a.latency.max no worse\nz = a.misses <= baseline\nd = a.latency.p50 <= baseline - 2us\n");
	assert_int_equal(sc->ngates, 5);
	assert_string_equal(sc->gates[0].thread, "a");
	assert_string_equal(sc->gates[0].metric, "latency.p99");
	assert_int_equal(sc->gates[0].kind, JL_GATE_LE);
	assert_true(sc->gates[0].relative);
	assert_true(fabs(sc->gates[0].amount - 0.10) < 1e-12);
	assert_int_equal(sc->gates[1].kind, JL_GATE_GE);
	assert_false(sc->gates[1].relative);
	assert_true(fabs(sc->gates[1].amount + 5) < 1e-12); /* - 5 Hz: a drop of 5 Hz allowed */
	assert_int_equal(sc->gates[2].kind, JL_GATE_NO_WORSE);
	assert_string_equal(sc->gates[2].metric, "latency.max");
	assert_int_equal(sc->gates[3].kind, JL_GATE_LE);
	assert_true(sc->gates[3].amount == 0 && !sc->gates[3].relative);
	assert_true(fabs(sc->gates[4].amount + 2000) < 1e-9); /* - 2us: asks for an improvement of 2000 ns */
	assert_int_equal(jl_scenario_set(sc, "gate.p=a.latency.p99 no worse", err, sizeof(err)), 0);
	assert_int_equal(sc->ngates, 5);
	assert_int_equal(sc->gates[4].kind, JL_GATE_NO_WORSE);
	assert_string_equal(sc->gates[4].label, "p");
	/* written back as written, and parsed back the same */
	{
		char *text = write_str(sc);

		assert_non_null(strstr(text, "[gate]\n"));
		assert_non_null(strstr(text, "r = a.rate_hz >= baseline - 5Hz\n"));
		assert_non_null(strstr(text, "p = a.latency.p99 no worse\n"));
		free(text);
	}
}

/* jl_scenario_write's output parses back to the same model, and writing again gives the same text. */
static void test_round_trip(void **state)
{
	static const char *const inputs[] = {
		"[thread a]\n",
		"[run]\nduration = 2s\nwarmup = 0s\ntrace = off\n[thread c]\npolicy = fifo\npriority = 80\ncpus = 1\n"
		"rate = 100Hz\nwork = spin 200us\n[thread hog]\ncpus = 1\nwork = sin 50000000\n"
		"[expect]\nok = c.misses == 0\nr = c.rate_hz > 99\n[gate]\np99 = c.latency.p99 <= baseline + 10%\nw = c.misses no worse\n",
		"[run]\nname = all-keys\nduration = 1.5s\nwarmup = 250ms\ntrace = timer, sched\ntrace_buffer = 4MB\n"
		"trace_threshold = 500us\nisolate = 1\nirq_affinity = housekeeping\ncpu_dma_latency = off\n"
		"rt_runtime = 950ms\nseed = 42\ngrace = 3s\n\n"
		"[thread loop]\npolicy = rr\npriority = 50\ncpus = 1,0\ncount = 2\nperiod = 1ms\nwork = memory 64KB\n"
		"deadline = 800us\noverrun = catchup\nmem_node = 0\nstart = 100ms\nmeasure = yes\n\n"
		"[thread dl]\npolicy = deadline\nperiod = 10ms\nruntime = 2ms\ndeadline = 5ms\nwork = syscall 100\n\n"
		"[thread nice]\npolicy = batch\nnice = 5\nwork = sleep 1ms\n\n"
		"[thread idle]\npolicy = idle\nwork = none\nmeasure = no\n\n"
		"[thread ext]\npolicy = fifo\npriority = 10\ncpus = 1\nexec = sleep 1000 ; comment\n\n"
		"[expect]\na = loop.0.latency.p99 < 2ms\nb = loop.1.misses == 0\nc = loop.0.rate_hz >= 999.5Hz\n\n"
		"[sweep]\nruns = 3\ncondition.fifo = loop.policy=fifo; loop.priority=80\ncondition.2 = loop.policy=other\n"
		"vary.loop.period = 1ms, 2ms\ncompare = fifo:2\n",
		/* the application structure (issues 13, 14): every section kind, keys that apply only somewhere */
		"[run]\nduration = 1s\n[topic scan]\ndepth = 4\n[topic cam]\nkeep = all\n[topic fused]\n"
		"[sync fz]\ninputs = scan, cam\nalgorithm = approximate\nmax_interval = 20ms\npublish = fused\n"
		"[queue price_q]\nlimit = 4\n[queue quote_q]\n[lock gil]\nkind = biglock\nhandoffs = 2\n"
		"[lock m]\nkind = ceiling\nceiling = 90\n[lock p]\nkind = pi\n"
		"[executor b]\nthreads = 4\ndispatch = fifo\n[executor c]\nthreads = 2\npolicy = fifo\npriority = 50\n"
		"[node n]\nexecutor = b\n"
		"[callback sensor]\nnode = n\nperiod = 10ms\nphase = 1ms\njitter = 2ms\nwork = spin 100us\npublish = scan\nlock = gil\n"
		"[callback cam_cb]\nexecutor = b\ngroup = reentrant\nperiod = 33ms\npublish = cam\n"
		"[callback fusion]\nexecutor = b\ntrigger = fused\n"
		"[callback poller]\nexecutor = b\nperiod = 103ms\npoll = scan\n"
		"[callback price]\nexecutor = b\ngroup = reentrant\ntrigger = price_q\nwork = call quote_q\n"
		"deadline_propagation = yes\nmargin = 50ms\n"
		"[callback quote]\nexecutor = c\ngroup = reentrant\ntrigger = quote_q\nwork = sleep 1s\ncancel = cooperative 100ms\nlock = m\n"
		"[source orders]\ntarget = price_q\nburst = 8\nstart = 200ms\ndeadline = 1s\n"
		"[source pings]\ntarget = price_q\nrate = 5Hz\ncount = 10\n"
		"[thread t]\nperiod = 10ms\nlock = p\n"
		"[budget]\ne2e.fusion = 50ms\nstage.sensor = 1ms\n"
		"[expect]\nf = fz.inputs.0.used_fraction >= 0.9\nl = gil.wait.max < 1s\no = orders.dropped == 0\n",
		"\xEF\xBB\xBF[thread bom]\nrate: 7Hz\n",
	};
	char err[JL_ERR_MAX], why[256];

	(void)state;
	for (size_t i = 0; i < sizeof(inputs) / sizeof(inputs[0]); i++) {
		char *one, *two;

		parse_ok(inputs[i]);
		one = write_str(sc_a);
		if (jl_scenario_parse_string("x.ini", one, sc_b, err, sizeof(err))) {
			print_error("written scenario does not parse: %s\n%s\n", err, one);
			fail();
		}
		if (!jl_test_scenario_same(sc_a, sc_b, why, sizeof(why))) {
			print_error("round trip changed %s\n%s\n", why, one);
			fail();
		}
		two = write_str(sc_b);
		assert_string_equal(one, two);
		free(one);
		free(two);
	}
	assert_string_equal(thread(sc_b, "bom")->name, "bom");
}

/* user = invoking: exec only, and only under sudo (SUDO_UID and SUDO_GID name the user); it round-trips. */
static void test_user_key(void **state)
{
	char *u = getenv("SUDO_UID") ? strdup(getenv("SUDO_UID")) : NULL, *g = getenv("SUDO_GID") ? strdup(getenv("SUDO_GID")) : NULL;
	char err[JL_ERR_MAX], why[256], *one;

	(void)state;
	unsetenv("SUDO_UID");
	unsetenv("SUDO_GID");
	parse_err("[thread a]\nexec = true\nuser = invoking\n", "x.ini:3: thread 'a': user = invoking needs sudo", "SUDO_UID");
	setenv("SUDO_UID", "65534", 1);
	parse_err("[thread a]\nexec = true\nuser = invoking\n", "x.ini:3: thread 'a': user = invoking needs sudo", NULL);
	setenv("SUDO_GID", "x", 1);
	parse_err("[thread a]\nexec = true\nuser = invoking\n", "x.ini:3: thread 'a': user = invoking needs sudo", NULL);
	setenv("SUDO_GID", "65534", 1);
	parse_err("[thread a]\nrate = 10Hz\nuser = invoking\n", "x.ini:3: thread 'a': user = invoking is only for an exec neighbour",
		  NULL);
	parse_ok("[thread a]\npolicy = fifo\npriority = 10\nexec = sleep 1\nuser = invoking\n");
	assert_int_equal(sc_a->threads[0].place.user, JL_USER_INVOKING);
	one = write_str(sc_a);
	assert_non_null(strstr(one, "\nuser = invoking\n"));
	assert_int_equal(jl_scenario_parse_string("x.ini", one, sc_b, err, sizeof(err)), 0);
	assert_true(jl_test_scenario_same(sc_a, sc_b, why, sizeof(why)));
	free(one);
	parse_ok("[thread a]\nexec = sleep 1\n");
	assert_int_equal(sc_a->threads[0].place.user, JL_USER_ROOT);
	one = write_str(sc_a);
	assert_non_null(strstr(one, "\nuser = root\n"));
	free(one);
	if (u)
		setenv("SUDO_UID", u, 1);
	else
		unsetenv("SUDO_UID");
	if (g)
		setenv("SUDO_GID", g, 1);
	else
		unsetenv("SUDO_GID");
	free(u);
	free(g);
}

/* ---- --set ---- */

static const char base[] = "[run]\nduration = 10s\n\n[thread control]\npolicy = fifo\npriority = 80\ncpus = 1\nperiod = 10ms\n"
			   "work = spin 200us\n\n[thread scan]\ncpus = 1\nrate = 60Hz\nwork = sin 1000\n\n"
			   "[expect]\nok = control.misses == 0\n";

static int set(const char *assignment, char *err, size_t errlen)
{
	int rc = jl_scenario_set(sc_a, assignment, err, errlen);

	return rc ? rc : jl_scenario_validate(sc_a, err, errlen);
}

static void set_ok(const char *assignment)
{
	char err[JL_ERR_MAX] = "";

	if (set(assignment, err, sizeof(err))) {
		print_error("--set %s failed: %s\n", assignment, err);
		fail();
	}
}

static void set_err(const char *assignment, const char *prefix, const char *needle)
{
	char err[JL_ERR_MAX] = "";

	parse_ok(base);
	if (!set(assignment, err, sizeof(err))) {
		print_error("--set %s accepted\n", assignment);
		fail();
	}
	if (strncmp(err, prefix, strlen(prefix)) || (needle && !strstr(err, needle))) {
		print_error("--set %s: error \"%s\"\nexpected it to start with \"%s\" and contain \"%s\"\n", assignment, err,
			    prefix, needle ? needle : "");
		fail();
	}
}

static void test_set_overrides(void **state)
{
	struct jl_scenario *sc;
	char *one, err[JL_ERR_MAX], why[256];

	(void)state;
	sc = parse_ok(base);
	set_ok("control.priority=90");
	assert_int_equal(thread(sc, "control")->place.priority, 90);
	set_ok("run.duration=5s");
	assert_int_equal(sc->run.duration_ns, 5000000000LL);
	set_ok("run.warmup = 0s");
	assert_int_equal(sc->run.warmup_ns, 0);
	set_ok("scan.work=spin 1.5ms");
	assert_int_equal(thread(sc, "scan")->beh.work.kind, JL_WORK_SPIN);
	assert_int_equal(thread(sc, "scan")->beh.work.arg, 1500000);
	/* rate replaces the file's period, period the file's rate: no "both given" */
	set_ok("control.rate=50Hz");
	assert_int_equal(thread(sc, "control")->beh.period_ns, 20000000);
	set_ok("scan.period=5ms");
	assert_int_equal(thread(sc, "scan")->beh.period_ns, 5000000);
	/* the sweep example: a fifo thread becomes other (its priority goes), and back */
	set_ok("control.policy=other");
	assert_int_equal(thread(sc, "control")->place.policy, JL_POLICY_OTHER);
	one = write_str(sc);
	assert_null(strstr(one, "priority")); /* not written for policy other */
	free(one);
	set_ok("control.nice=-5");
	assert_int_equal(thread(sc, "control")->place.nice, -5);
	/* back to fifo: the nice goes, the earlier priority is used again */
	set_ok("control.policy=fifo");
	assert_int_equal(thread(sc, "control")->place.nice, 0);
	assert_int_equal(thread(sc, "control")->place.priority, 90);
	{
		char e2[JL_ERR_MAX];

		/* several overrides, then one validation (as a sweep condition "policy=fifo; priority=80") */
		assert_int_equal(jl_scenario_set(sc, "scan.policy=rr", e2, sizeof(e2)), 0);
		/* rr without any priority is an error, not a silent default */
		assert_int_equal(jl_scenario_validate(sc, e2, sizeof(e2)), -1);
		assert_non_null(strstr(e2, "thread 'scan': policy rr needs a priority"));
		assert_int_equal(jl_scenario_set(sc, "scan.priority=5", e2, sizeof(e2)), 0);
		assert_int_equal(jl_scenario_validate(sc, e2, sizeof(e2)), 0);
	}
	set_ok("control.priority=70");
	/* priority set by --set counts as given */
	assert_int_equal(thread(sc, "control")->place.priority, 70);
	/* an expectation replaced by label, and a new one */
	set_ok("expect.ok=control.latency.max < 10ms");
	assert_int_equal(sc->nexpect, 1);
	assert_string_equal(sc->expect[0].metric, "latency.max");
	set_ok("expect.more=scan.skipped <= 2");
	assert_int_equal(sc->nexpect, 2);
	set_ok("sweep.runs=3");
	assert_int_equal(sc->sweep.runs, 3);

	/* the result still writes out and parses back to the same model */
	one = write_str(sc);
	assert_int_equal(jl_scenario_parse_string("x.ini", one, sc_b, err, sizeof(err)), 0);
	assert_true(jl_test_scenario_same(sc, sc_b, why, sizeof(why)));
	free(one);
}

static void test_set_errors(void **state)
{
	(void)state;
	set_err("ghost.priority=5", "--set ghost.priority=5: no section", "[thread ghost]");
	set_err("bogus.x=5", "--set bogus.x=5: no section", NULL);
	set_err("controlpriority=5", "--set controlpriority=5: expected SECTION.KEY=VALUE", NULL);
	set_err("control.priority", "--set control.priority: expected SECTION.KEY=VALUE", NULL);
	set_err("priority=5", "--set priority=5: expected SECTION.KEY=VALUE", NULL);
	set_err(".priority=5", "--set .priority=5: expected SECTION.KEY=VALUE", NULL);
	set_err("control.=5", "--set control.=5: expected SECTION.KEY=VALUE", NULL);
	set_err("", "--set : expected SECTION.KEY=VALUE", NULL);
	set_err("control.prio=5", "--set control.prio=5: thread 'control': unknown key 'prio'", "expected one of");
	set_err("control.priority=abc", "--set control.priority=abc: thread 'control': priority: 'abc' is not a priority", NULL);
	set_err("run.duration=10", "--set run.duration=10: [run] duration: '10' has no unit", NULL);
	set_err("control.priority=120", "x.ini", "priority 120 is out of range for policy fifo (1-99");
	set_err("scan.priority=5", "x.ini", "priority is only for fifo and rr");
	set_err("scan.cpus=1023", "x.ini", "not online");
	set_err("expect.x=ghost.misses == 0", "x.ini", "no thread, callback, sync, lock or source 'ghost'");
	/* a ';' after whitespace is a comment in scenario.ini: such a value could not be written back (found
	 * by the fuzz target: "exec=,,,,\r\r; x" was written as "exec = ,,,,\r\r; x" and read back as ",,,,") */
	set_err("control.exec=sh -c 'a ; b'", "--set control.exec=sh -c 'a ; b': ", "holds a ';' after whitespace");
	set_err("control.exec=,,,,\r\r; x", "--set control.exec=", "start of a comment");
	{ /* no whitespace before it: a value, as in a file */
		char err[JL_ERR_MAX] = "";

		parse_ok(base);
		assert_int_equal(jl_scenario_set(sc_a, "control.exec=sh -c 'a;b'", err, sizeof(err)), 0);
	}
	{
		char longset[400];

		snprintf(longset, sizeof(longset), "control.exec=%0300d", 1);
		set_err(longset, "--set control.exec=", "too long");
	}
}

/* ---- cpu-list names on a fake sysfs root ---- */

/* A fake /sys under DIR: CPUs 0-1 online, each its own core; hybrid (cpu_core 0, cpu_atom 1) or not. */
static void fake_sys(char *dir, size_t len, bool hybrid)
{
	static const char *const files[][2] = {
		{ "devices/system/cpu/online", "0-1" },
		{ "devices/system/cpu/cpu0/topology/thread_siblings_list", "0" },
		{ "devices/system/cpu/cpu1/topology/thread_siblings_list", "1" },
		{ "devices/cpu_core/cpus", "0" },
		{ "devices/cpu_atom/cpus", "1" },
	};

	snprintf(dir, len, "/tmp/jl-test-sys-XXXXXX");
	assert_non_null(mkdtemp(dir));
	for (size_t i = 0; i < (hybrid ? 5 : 3); i++) {
		char path[512];
		FILE *f;

		snprintf(path, sizeof(path), "%s/%s", dir, files[i][0]);
		for (char *p = strchr(path + strlen(dir) + 1, '/'); p; p = strchr(p + 1, '/')) {
			*p = '\0';
			mkdir(path, 0755);
			*p = '/';
		}
		f = fopen(path, "w");
		assert_non_null(f);
		fprintf(f, "%s\n", files[i][1]);
		fclose(f);
	}
	setenv("JITTERLAB_SYSFS_ROOT", dir, 1);
}

static void drop_sys(const char *dir)
{
	char cmd[300];

	unsetenv("JITTERLAB_SYSFS_ROOT");
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	assert_int_equal(system(cmd), 0);
}

/* Not hybrid: pcores/ecores are refused with the file and line, the key and why; smt:N works. */
static void test_cpu_names_not_hybrid(void **state)
{
	char dir[64], needle[128];
	struct jl_scenario *sc;

	(void)state;
	fake_sys(dir, sizeof(dir), false);
	snprintf(needle, sizeof(needle), "%s/devices/cpu_core/cpus is missing", dir);
	parse_err("[thread a]\ncpus = pcores\n", "x.ini:2: thread 'a': cpus: 'pcores': this machine has no hybrid cores: ",
		  needle);
	parse_err("[run]\nisolate = ecores\n[thread a]\n", "x.ini:2: [run] isolate: 'ecores': this machine has no hybrid cores",
		  "cpu_atom/cpus is missing");
	parse_err("[thread a]\npolicy = other\ncpus = pcores,1\n", "x.ini:3: thread 'a': cpus: 'pcores': this machine has no hybrid", NULL);
	parse_err("[thread a]\ncpus = smt:7\n", "x.ini:2: thread 'a': cpus: 'smt:7': CPU 7 does not exist (online: 0-1)", NULL);
	parse_err("[thread a]\ncpus = 1,foo\n", "x.ini:2: thread 'a': cpus: '1,foo' is not a cpu list: 'foo' is neither", NULL);
	parse_err("[thread a]\ncpus = smt\n", "x.ini:2: thread 'a': cpus: 'smt' is not smt:N", NULL);
	set_err("control.cpus=pcores", "--set control.cpus=pcores: thread 'control': cpus: 'pcores': this machine has no hybrid cores", NULL);
	set_err("run.isolate=smt:9", "--set run.isolate=smt:9: [run] isolate: 'smt:9': CPU 9 does not exist", NULL);
	sc = parse_ok("[thread a]\ncpus = smt:1\n");
	assert_int_equal(CPU_COUNT(&thread(sc, "a")->place.cpus), 1);
	assert_true(CPU_ISSET(1, &thread(sc, "a")->place.cpus));
	assert_string_equal(thread(sc, "a")->place.cpus_text, "smt:1");
	drop_sys(dir);
}

/* Hybrid: the names resolve, the effective scenario keeps them as written (with the CPUs they gave in a
 * comment) and parses back to the same model; a plain list set over a name drops it. */
static void test_cpu_names_round_trip(void **state)
{
	char dir[64], err[JL_ERR_MAX], why[256], *one, *two;
	struct jl_scenario *sc;
	struct jl_thread_spec *t;

	(void)state;
	fake_sys(dir, sizeof(dir), true);
	sc = parse_ok("[run]\nisolate = smt:1\n[thread a]\ncpus = pcores\n[thread b]\ncpus = ecores, 0\n[thread c]\ncpus = 0-1\n");
	assert_string_equal(sc->run.isolate_text, "smt:1");
	assert_int_equal(CPU_COUNT(&sc->run.isolate), 1);
	assert_true(CPU_ISSET(1, &sc->run.isolate));
	t = thread(sc, "a");
	assert_string_equal(t->place.cpus_text, "pcores");
	assert_int_equal(CPU_COUNT(&t->place.cpus), 1);
	assert_true(CPU_ISSET(0, &t->place.cpus));
	assert_string_equal(thread(sc, "b")->place.cpus_text, "ecores, 0");
	assert_int_equal(CPU_COUNT(&thread(sc, "b")->place.cpus), 2);
	assert_string_equal(thread(sc, "c")->place.cpus_text, "");
	one = write_str(sc);
	assert_non_null(strstr(one, "; isolate: CPUs 1 on this host\nisolate = smt:1\n"));
	assert_non_null(strstr(one, "; cpus: CPUs 0 on this host\ncpus = pcores\n"));
	assert_non_null(strstr(one, "; cpus: CPUs 0-1 on this host\ncpus = ecores, 0\n"));
	assert_non_null(strstr(one, "[thread c]\npolicy = other\nnice = 0\ncpus = 0-1\n"));
	if (jl_scenario_parse_string("x.ini", one, sc_b, err, sizeof(err))) {
		print_error("written scenario does not parse: %s\n%s\n", err, one);
		fail();
	}
	if (!jl_test_scenario_same(sc_a, sc_b, why, sizeof(why))) {
		print_error("round trip changed %s\n%s\n", why, one);
		fail();
	}
	two = write_str(sc_b);
	assert_string_equal(one, two);
	free(two);
	free(one);
	/* --set a plain list over a name: the name is gone; a name over a plain list: kept */
	assert_int_equal(jl_scenario_set(sc, "a.cpus=1", err, sizeof(err)), 0);
	assert_string_equal(thread(sc, "a")->place.cpus_text, "");
	assert_int_equal(jl_scenario_set(sc, "c.cpus=smt:0", err, sizeof(err)), 0);
	assert_string_equal(thread(sc, "c")->place.cpus_text, "smt:0");
	assert_int_equal(jl_scenario_set(sc, "run.isolate=none", err, sizeof(err)), 0);
	assert_string_equal(sc->run.isolate_text, "");
	assert_int_equal(jl_scenario_validate(sc, err, sizeof(err)), 0);
	one = write_str(sc);
	assert_non_null(strstr(one, "isolate = none\n"));
	assert_non_null(strstr(one, "[thread a]\npolicy = other\nnice = 0\ncpus = 1\n"));
	assert_non_null(strstr(one, "cpus = smt:0\n"));
	free(one);
	drop_sys(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_priority_99_off_the_watchdog),
		cmocka_unit_test(test_err_sections),
		cmocka_unit_test(test_err_syntax),
		cmocka_unit_test(test_err_keys),
		cmocka_unit_test(test_err_values),
		cmocka_unit_test(test_err_cross),
		cmocka_unit_test(test_err_expect),
		cmocka_unit_test(test_err_isolate_all),
		cmocka_unit_test(test_err_long_line),
		cmocka_unit_test(test_parse_file),
		cmocka_unit_test(test_default_name_sanitized),
		cmocka_unit_test(test_defaults),
		cmocka_unit_test(test_periodic_defaults),
		cmocka_unit_test(test_count_and_expect),
		cmocka_unit_test(test_contract_example),
		cmocka_unit_test(test_round_trip),
		cmocka_unit_test(test_user_key),
		cmocka_unit_test(test_set_overrides),
		cmocka_unit_test(test_set_errors),
		cmocka_unit_test(test_cpu_names_not_hybrid),
		cmocka_unit_test(test_cpu_names_round_trip),
		cmocka_unit_test(test_gates),
	};

	return cmocka_run_group_tests(tests, setup, teardown);
}
