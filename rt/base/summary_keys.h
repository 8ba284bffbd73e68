/* summary_keys: every key summary.json has, declared once (docs/outputs.md is the contract for the main ones).
 * Its writers and its readers (table.c, report.c, plot.c) name a key with JL_K(key), a path of two or three
 * with JL_K2/JL_K3 ("latency_ns.p99"): a key missing here does not compile. `jitterlab list --keys` and
 * jitterlab(8) print the table with each key's places and meaning; tests/integration/test_outputs.py checks
 * every summary.json a run writes, and docs/outputs.md, against it. */
#ifndef JL_SUMMARY_KEYS_H
#define JL_SUMMARY_KEYS_H

#include <json-c/json.h>
#include <stdint.h>

/* The one writer of an integer key (every summary.json writer's most common line) */
static inline void jl_json_add_i64(json_object *o, const char *k, int64_t v)
{
	json_object_object_add(o, k, json_object_new_int64(v));
}

/* X(key, places, meaning): PLACES the objects it is a key of, space-separated paths from the document's
 * top ("." = the top itself, "threads[]" each element of the array threads, "trace.off_cpu.*" each value of
 * a map keyed by a name); MEANING one short line (units in the key's suffix: _ns, _us, _s, _hz, _bytes). */
#define JL_SUMMARY_KEYS(X) \
	X(ARCH_HAS_PREEMPT_LAZY, "host.preempt_detail.config", "the kernel's config has CONFIG_ARCH_HAS_PREEMPT_LAZY") \
	X(PREEMPT_DYNAMIC, "host.preempt_detail.config", "the kernel's config has CONFIG_PREEMPT_DYNAMIC") \
	X(PREEMPT_RT, "host.preempt_detail.config", "the kernel's config has CONFIG_PREEMPT_RT") \
	X(above, "trace.tail.*", "tail cycles above threshold_ns (the others are misses at or below it)") \
	X(acquisitions, "locks[] locks[].threads.*", "times taken in the measured phase (per lock, per taker)") \
	X(added_age_ns, "threads[].poll_model", "age a poll adds: expected min(Tp, Tq) / 2, measured") \
	X(advice, "trace.worst[]", "one line of remedy for the cycle's main cause (null: no rule applies)") \
	X(advice_rule, "trace.worst[]", "the name of the rule that gave the advice (null: none)") \
	X(after_run_analysis_s, "trace.live", "seconds to feed the analysis what was left once the run ended") \
	X(after_run_events, "trace.live", "trace events fed to the analysis after the run ended") \
	X(after_run_s, "trace.live", "seconds of the trace's end-of-run work (feed the rest, trace.dat, results)") \
	X(age_ns, "threads[]", "age of the consumed data at the callback's start (start - origin), with count") \
	X(algorithm, "syncs[]", "how the sync pairs its two inputs: approximate or slop") \
	X(analysis, "memory.projected", "how the analysis holds the trace: recent (pruned, flat) or whole (every event), none") \
	X(analysis_bytes, "memory.projected", "the analysis' state at its largest, beyond setup") \
	X(at_ns, "checkpoint stop_at", "stop_at: the crossing cycle's end; checkpoint: when written") \
	X(attach, "threads[]", "an attach section (jitterlab watch): its selection of running threads (pid:N, tid:N, comm:GLOB, rt)") \
	X(bad, "trace.probe.rings", "probe records not kept (out of order or range, ring written over, /tmp full)") \
	X(births_kept, "trace.pruned", "births the pruned analysis still held at the end (live tasks, kept windows)") \
	X(blocked_ns, "trace.off_cpu.* trace.off_cpu.*.woken_by[]", "time asleep; per waker: the sleep time it ended") \
	X(boosts, "locks[] trace.pi_boosts[]", "sched_pi_setprio raises of the thread; per pi lock: its takers' sum") \
	X(boot_isolation, "host", "isolation the kernel command line asked for and what the kernel did of it") \
	X(bound_ns, "threads[].chain", "analytic bound of the chain's data age along keep-last stages (0: none)") \
	X(broken_links, "threads[].chain", "outputs whose links to the head broke (a dropped sample, too deep)") \
	X(budget, ".", "the [budget] checks, one per stage or e2e budget") \
	X(budget_ns, "budget[]", "the budget's limit") \
	X(busy_s, "trace.live", "seconds the live analysis spent feeding events while the run went") \
	X(callback, "budget[] threads[].chain.stages[] threads[].chain.worst.stages[]", "the callback (series) name") \
	X(callbacks_run, "executors[].threads[]", "callbacks this pool thread ran") \
	X(calls, "threads[].work", "work calls (a loop: one per measured cycle)") \
	X(caught_running, "threads[].release", "of from_timer: cycles whose timer fired while the thread still ran (due before it slept, as after an overrun): switched in at the waking") \
	X(cause, "trace.tail.*.excess.causes[] trace.tail.*.response.causes[]", "the cause in words: waited behind NAME (POLICY), irq NAME, softirq NAME, timer interrupt late, previous cycle overran, running, unexplained, others") \
	X(causes, "trace.tail.*.excess trace.tail.*.response", "the causes, largest first") \
	X(ceiling, "locks[]", "the priority ceiling of a ceiling lock (PTHREAD_PRIO_PROTECT)") \
	X(cgroup, "host.shield", "cgroup v2 shield: the shield's cgroup directory") \
	X(chain, "threads[]", "the chain ending at this subscriber: path, data age, reaction, stages") \
	X(check, "expect[]", "the expectation as written (\"control.latency.p99 < 2ms\")") \
	X(checkpoint, ".", "only in a checkpoint written mid-run: {complete: false, number, at_ns, note}") \
	X(checkpoints, ".", "checkpoints of summary.json written during the run") \
	X(children_peak_bytes, "memory", "the largest program the run started (ru_maxrss of its children; not in peak_bytes)") \
	X(choice, "host.preempt_detail.config", "the preemption model the config chose (none, voluntary, full, lazy)") \
	X(cleanup, "leftovers", "[run] cleanup: report or remove") \
	X(client_latency_ns, "sources[]", "latency as the client saw it: to the reply, or to its deadline") \
	X(clock, "trace", "the trace clock (mono: CLOCK_MONOTONIC)") \
	X(clock_stepped, "trace", "the wall clock moved against CLOCK_MONOTONIC during the recording: timers on it not placed") \
	X(clocksource, "host", "the current clocksource (unknown when unreadable)") \
	X(cmdline, "leftovers.processes[]", "the process's command line") \
	X(cmdline_preempt, "host.preempt_detail", "preempt= on the kernel command line (null: not given)") \
	X(comm, "leftovers.processes[] leftovers.shm[].evidence", "the process's comm (task name)") \
	X(complete, "checkpoint host.restore", "restore: every knob put back; checkpoint: false (run still going)") \
	X(computed, "trace.tail.*", "the tail was counted (false: why says why not)") \
	X(config, "host.preempt_detail", "kernel config facts: file, choice, CONFIG_ flags (null: no config)") \
	X(connections, "trace.probe", "connections of probed programs that were given the marker") \
	X(consumed, "threads[].messages", "messages taken (a trigger) or read for the first time (a poll)") \
	X(consumed_fraction, "threads[].messages threads[].poll_model", "consumed / published; model: min(1, Tp/Tq)") \
	X(core_type, "host.shield", "hybrid CPUs: the core type of the shielded CPUs") \
	X(core_types, "threads[]", "hybrid CPUs: the core types of cpus_used (performance, efficiency)") \
	X(count, "intervals sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns trace.wakeup_ns.*", "how many values the figures are over; intervals: intervals reached") \
	X(cpu, "trace.gaps[] trace.worst[]", "the CPU: of the cycle's switch-in; of a gap of lost events") \
	X(cpu_dma_latency_us, "host", "the /dev/cpu_dma_latency value held during the run (-1: not held)") \
	X(cpu_time_ns, "threads[]", "CPU time of the OS thread that ran the series") \
	X(cpufreq_khz, "intervals", "per CPU (cpuN): min, mean and max scaling_cur_freq per interval") \
	X(cpus, "host.boot_isolation host.fair_server host.shield threads[]", "a CPU list, or a map keyed by CPU") \
	X(cpus_online, "host", "the online CPUs") \
	X(cpus_used, "threads[]", "the CPUs the series' measured cycles ran on") \
	X(ctx_switches, "threads[]", "context switches of the OS thread: voluntary and involuntary") \
	X(culprit, "trace.worst[]", "the part held most responsible for the cycle (null: none)") \
	X(cycle, "stop_at threads[].worst[] trace.worst[] trace.kernelshark_cycle", "the cycle's number (as in samples.csv)") \
	X(cycles, "intervals.series.* threads[] trace.tail.*", "measured cycles (samples.csv rows); per interval: cycles in it") \
	X(data_age_ns, "threads[].chain", "per used input: origin to the end of the last output using it") \
	X(deadline_exceeded, "sources[].status", "requests whose client gave up at its deadline before the reply") \
	X(debugfs, "host.preempt_detail", "debugfs sched/preempt: its value, or why it could not be read") \
	X(default_moved, "host.irqs", "default_smp_affinity was changed") \
	X(detail, "trace.worst[].culprit trace.worst[].parts[]", "the explanation in words (throttle, unpreempted, blocked, lost parts)") \
	X(disabled, "host.idle_states.states[]", "the idle state is disabled") \
	X(dispatch, "executors[]", "the executor's dispatch order: fifo or rclcpp") \
	X(driver, "host.idle_states", "the cpuidle driver (none: no cpuidle)") \
	X(dropped, "sources[].status threads[].messages", "requests refused at once; messages a full history dropped") \
	X(dropped_samples, "threads[]", "samples lost to a full ring or beyond the array (not in any figure)") \
	X(duration_ns, ". trace.worst[].culprit trace.worst[].parts[]", "measured time (checkpoint: so far); a part's") \
	X(dynamic, "host.preempt_detail", "a PREEMPT_DYNAMIC kernel") \
	X(e2e_ns, "threads[] threads[].chain.worst", "data origin -> callback end; chain.worst: the oldest output's") \
	X(effective, "host.restore.pending[]", "the IRQ's effective CPUs (irq_thread note)") \
	X(effective_after, "host.restore.pending[]", "the IRQ's effective CPUs after the undo (irq note)") \
	X(effective_before, "host.restore.pending[]", "the IRQ's effective CPUs before the run (irq note)") \
	X(emulated, "host", "qemu TCG (CPUID signature TCGTCGTCGTCG): every timing is the emulator's") \
	X(enabled, "trace", "the run was traced") \
	X(enabled_cpuset, "host.shield", "cgroup v2 shield: this run enabled +cpuset in the root's subtree_control") \
	X(end_ns, "threads[].chain.worst trace.worst[]", "end of the cycle's work (chain.worst: the oldest output's)") \
	X(ended, "leftovers.processes[]", "the process was ended by cleanup = remove") \
	X(error, "expect[] leftovers.shm[] threads[] trace", "why: no value, no trace, shm entry kept, thread failed") \
	X(errors, "locks[]", "acquisitions that failed (EINVAL: a ceiling below the caller)") \
	X(events, "trace trace.live trace.recorded memory.projected", "trace: records; live: fed during the run; recorded: names; memory: the projection's") \
	X(events_per_busy_s, "trace.live", "events the live analysis went through per busy second") \
	X(events_per_s, "memory.projected", "the trace's event rate over the second before measuring (or its first)") \
	X(evidence, "leftovers.shm[]", "the run's process that had the entry open or mapped: pid, comm, how") \
	X(excess, "trace.tail.*", "the tail cycles' latency over p50, split by cause") \
	X(exclusive, "host.shield", "both shield cpusets got cpu_exclusive = 1") \
	X(exec, "threads[]", "the exec neighbour's command line") \
	X(executors, ".", "per executor: its dispatch and each pool thread's callbacks") \
	X(exit_status, ". threads[]", "the run's exit status; exec: exit code, 128 + signal, -1 unreaped") \
	X(expect, ".", "the [expect] checks, one per expectation (per copy of a thread with copies)") \
	X(expected, "threads[].poll_model.added_age_ns threads[].poll_model.consumed_fraction", "the model's value") \
	X(expected_phase_locked, "threads[].poll_model.added_age_ns", "harmonic: the added age of the locked phase") \
	X(fair_server, "host", "the fair server's runtime and period per CPU (debugfs), or a note why unknown") \
	X(fair_server_changed_cpus, "host", "CPUs the run changed the fair server on") \
	X(fair_server_runtime_ns, "host", "the fair server runtime the run set on every online CPU") \
	X(file, "host.preempt_detail.config trace", "trace: the trace file; config: the kernel config read") \
	X(fired, "stop_at", "a cycle crossed the threshold and ended the run") \
	X(first_misses_per_loop, "trace.kept", "missed deadlines kept from the start of each loop (release to end)") \
	X(forced_drops, "locks[]", "biglock: drops at a check point on a waiter's request") \
	X(forgotten_pairs, "trace.pruned", "wakeup pairs the pruned analysis counted and did not keep") \
	X(forgotten_births, "trace.pruned", "births of exited tasks the pruned analysis forgot (a churning neighbour's)") \
	X(forgotten_segments, "trace.pruned", "CPU timeline segments the pruned analysis forgot") \
	X(forgotten_states, "trace.pruned", "thread states the pruned analysis forgot") \
	X(from_ns, "trace.gaps[]", "start of the gap: nothing is known on its CPU in [from_ns, to_ns)") \
	X(from_timer, "threads[].release", "cycles measured from the requested expiry (softexpires) of the timer the thread slept on") \
	X(from_waking, "threads[].release", "cycles measured from the sched_waking: woken by no timer of its own, or one the trace lacks") \
	X(gaps, "trace trace.kept", "trace: lost-event gaps (first 100); kept: gaps of dropped pages") \
	X(given_up, "threads[]", "a probed request series with a deadline (a client's): its requests not answered by their release + deadline") \
	X(group_sched, "host.rt_bandwidth", "RT group scheduling is on (null: unknown)") \
	X(group_sched_from, "host.rt_bandwidth", "where group_sched was read") \
	X(handoffs, "locks[]", "biglock: extra release/retake round trips per work call") \
	X(harmonic, "threads[].poll_model", "one period is a multiple of the other: the phase is locked") \
	X(hold_ns, "locks[]", "lock taken -> given back") \
	X(hops, "threads[].chain", "what each hop into a stage came through: the topic, or \"sync NAME\"") \
	X(host, ".", "facts about the machine and its settings during the run") \
	X(hostname, "host", "the host name (uname -n)") \
	X(housekeeping, "host.shield", "the housekeeping CPUs (online - shield)") \
	X(how, "leftovers.shm[].evidence", "how it had it: open, mapped") \
	X(hypervisor, "host", "the CPUID hypervisor signature") \
	X(idle_states, "host", "cpuidle: the driver and CPU 0's idle states") \
	X(implicit_in, "trace.sched_switch.*", "switch-ins seen only as the thread's first record on a CPU") \
	X(implicit_switches, "trace", "switches inferred from common_pid (the kernel did not record them)") \
	X(in, "trace.sched_switch.*", "sched_switch records switching the thread in") \
	X(inode, "leftovers.shm[] leftovers.shm_not_ours[]", "the entry's inode") \
	X(inputs, "syncs[] threads[].chain", "sync: its two inputs; chain: head runs an output could reflect") \
	X(interrupted, ".", "a signal ended the measured phase early (stop_at does not count)") \
	X(interval_ns, "intervals", "the interval's length ([run] interval)") \
	X(intervals, ".", "per interval: each series' worst latency, thermal zones, CPU frequencies") \
	X(involuntary, "threads[].ctx_switches", "involuntary context switches") \
	X(irq, "host.restore.pending[]", "the IRQ number") \
	X(irq_threads, "host.shield", "IRQ threads left where they were (they follow their IRQ's steering)") \
	X(irqaffinity, "host.boot_isolation", "irqaffinity= CPUs on the kernel command line (null: not given)") \
	X(irqs, "host", "IRQs steered off the shield: moved, kept, refused") \
	X(isolated, "host host.boot_isolation", "host: sysfs cpu/isolated; boot_isolation: isolcpus the kernel took") \
	X(isolcpus, "host.boot_isolation", "isolcpus= CPUs on the kernel command line (null: not given)") \
	X(isolcpus_flags, "host.boot_isolation", "isolcpus= flags given (nohz, domain, managed_irq)") \
	X(kept, "host.irqs trace trace.pruned", "flight recorder's keep; pruned: what it kept; irqs: already off") \
	X(kernel, "host", "the kernel release (uname -r)") \
	X(kernel_prio, "trace.worst[].culprit trace.worst[].parts[]", "the task's kernel prio") \
	X(kernel_version, "host", "the kernel build string (uname -v)") \
	X(kernelshark, "trace trace.worst[]", "a KernelShark session: the run's on the cycle that matters (kernelshark.json); each explained cycle's own (kernelshark/THREAD-CYCLE.json)") \
	X(kernelshark_cycle, "trace", "the cycle kernelshark.json opens: the first failed [expect]'s loop's largest, or else the highest-priority loop's") \
	X(kernelshark_error, "trace", "why the KernelShark session could not be written") \
	X(kind, ". budget[] host.restore.pending[] locks[] threads[] trace.worst[].culprit trace.worst[].parts[] trace.tail.*.excess.causes[] trace.tail.*.response.causes[]", "run or watch (what wrote the file); series driver, lock kind, budget e2e|stage, part kind, note irq|irq_thread") \
	X(label, "expect[]", "the expectation's key in [expect]") \
	X(largest_in, "trace.tail.*.excess.causes[] trace.tail.*.response.causes[]", "tail cycles (response: missed cycles) in which it was the largest part") \
	X(last_bytes_per_cpu, "trace.kept", "bytes per CPU of the flight recorder's circle of last pages") \
	X(last_from_ns, "trace.kept", "where the circle starts at the end: every CPU's pages from here are kept") \
	X(latency_ns, "threads[] threads[].worst[] trace.worst[]", "wake - release (per series: distribution)") \
	X(latency_us, "host.idle_states.states[]", "the idle state's exit latency") \
	X(lazy, "host.preempt_detail", "the running preemption mode is lazy") \
	X(leftovers, ".", "processes of the run's tree still alive and /dev/shm entries it left") \
	X(limit, "expect[]", "the expectation's reference value (ns for times)") \
	X(limit_errors, "threads[].messages", "keep = all: publishes refused at the history's resource limit") \
	X(live, "trace", "the analysis that went along with a long run") \
	X(local_cpus, "trace.recorded", "where IRQ and timer events were recorded: the measured CPUs, or all") \
	X(lockdown, "host.preempt_detail.debugfs", "the kernel lockdown mode (null: unknown)") \
	X(lockdown_from, "host.preempt_detail.debugfs", "where the lockdown mode was read") \
	X(locks, ".", "per [lock]: acquisitions, wait, hold, per thread") \
	X(longest_misses_per_loop, "trace.kept", "longest missed deadlines kept per loop (their whole window)") \
	X(lost, "trace.gaps[] trace.probe.rings", "gaps: events lost there; probe rings: records a full ring lost") \
	X(lost_events, "trace", "events the trace lost, as the kernel counted them") \
	X(lost_gaps, "trace", "gaps of lost events in the trace (the flight recorder's excluded)") \
	X(lost_in_window, "trace.worst[]", "a gap of lost events overlaps the cycle's window") \
	X(machine, "host", "the machine's architecture (uname -m)") \
	X(managed_irq, "host.boot_isolation", "isolcpus= has the managed_irq flag") \
	X(margin_ns, "budget[]", "budget - p99 (null: no value)") \
	X(markers, "trace trace.kept", "jitterlab's raw markers in the trace; kept: the recorder's text markers") \
	X(mask, "host.restore.pending[]", "the IRQ thread's CPU mask (irq_thread note)") \
	X(masks_journalled, "host.shield", "cgroup v2 shield before Linux 6.2: narrowed task masks journalled") \
	X(matched_cycles, "trace", "of measured_cycles, those matched to a wakeup") \
	X(matched_fraction, "trace", "matched_cycles / measured_cycles") \
	X(max, "intervals.cpufreq_khz.* locks[].hold_ns locks[].threads.*.wait_ns locks[].wait_ns sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns threads[].chain.stages[].run_ns threads[].chain.stages[].wait_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats threads[].response_ns trace.wakeup_ns.*", "the largest value (cpufreq_khz: per interval)") \
	X(max_cycle, "intervals.series.* threads[].latency_ns", "cycle of the max latency (per interval too)") \
	X(max_lag_s, "trace.live", "largest lag: a step's end less the trace time fed up to") \
	X(max_latency_ns, "intervals.series.*", "each interval's worst latency (-1: no cycle in it)") \
	X(max_ns, "threads[].work budget[]", "longest work call; a budget's e2e_ns.max or response_ns.max") \
	X(mean, "intervals.cpufreq_khz.* locks[].hold_ns locks[].threads.*.wait_ns locks[].wait_ns sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns threads[].chain.stages[].run_ns threads[].chain.stages[].wait_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats threads[].response_ns", "the mean, rounded to ns (cpufreq_khz: per interval)") \
	X(mean_ns, "threads[].work", "mean work call duration") \
	X(measured, "threads[] threads[].poll_model.added_age_ns threads[].poll_model.consumed_fraction", "a measured series (else a neighbour); poll_model: the measured value") \
	X(measured_cycles, "trace trace.tail.*", "measured cycles the analysis saw (released in the measured phase)") \
	X(mem_node, "threads[]", "[thread] mem_node: the NUMA node asked for") \
	X(mem_node_used, "threads[]", "the NUMA node the thread's memory is on (-1: unknown)") \
	X(memory, ".", "jitterlab's own memory: the projection made when measuring began, the peak taken (VmHWM)") \
	X(memory_limit_bytes, "samples", "[run] samples_memory: above it loops keep rings") \
	X(messages, "syncs[].inputs[] threads[]", "thread: its topic's counts; sync input: messages arrived") \
	X(method, "host.shield threads[].percentiles", "percentiles: how computed; shield: cgroup-v1, -v2 or boot") \
	X(metric, "expect[] stop_at", "the metric checked (latency.p99, rate_hz, ...); stop_at: latency or response") \
	X(migrations, "trace.off_cpu.* trace.worst[]", "runqueue moves: waking to switch-in; off_cpu: in the window") \
	X(min, "intervals.cpufreq_khz.* locks[].hold_ns locks[].wait_ns sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats threads[].response_ns", "the smallest value (cpufreq_khz: per interval)") \
	X(miss, "trace.worst[]", "the cycle's work ended after release + deadline") \
	X(misses, "intervals.series.* threads[] trace trace.tail.*", "cycles ending after release + deadline") \
	X(misses_cap, "trace", "the most missed deadlines explained") \
	X(misses_explained, "trace", "missed deadlines among the explained cycles") \
	X(missing, "trace.recorded", "events the kernel could not enable (system:name,...)") \
	X(mode, "host.preempt_detail samples threads[].messages trace.kept", "preempt mode; samples: all|worst|none; messages: poll|trigger; kept: worst") \
	X(mode_from, "host.preempt_detail", "where the preemption mode was read") \
	X(cpu_model, "host", "the CPU's model name (/proc/cpuinfo; \"\" when it has none)") \
	X(model, "host.preempt_detail", "the preemption model (rt, rt+full, dynamic(full), voluntary, ...)") \
	X(moved, "host.irqs", "IRQs whose affinity was changed") \
	X(moved_during_run, "host.irqs", "steered IRQs someone else (irqbalance) moved during the run") \
	X(moved_to_root_cgroup, "host.shield", "cgroup v2 shield: this process was moved into the root cgroup") \
	X(mtime_ns, "leftovers.shm[] leftovers.shm_not_ours[]", "the entry's modification time") \
	X(name, "executors[] executors[].threads[] host.idle_states.states[] host.restore.pending[] leftovers.shm[] leftovers.shm_not_ours[] locks[] sources[] syncs[] threads[] trace.off_cpu.*.preempted_behind[] trace.off_cpu.*.woken_by[] trace.pi_boosts[] trace.worst[].culprit trace.worst[].parts[]", "the name: series, executor, lock, source, sync, thread, task/IRQ, idle state, entry") \
	X(neighbour, "leftovers.processes[]", "the neighbour whose tree it belongs to (null: unknown)") \
	X(neighbours_shielded, "host.shield", "cgroup v2: neighbours pinned inside the shield, placed in it") \
	X(never_consumed, "threads[].messages", "messages gone (overwritten, dropped) before they were consumed") \
	X(nice, "threads[]", "the nice value") \
	X(nohz_full, "host.boot_isolation", "nohz_full= CPUs on the kernel command line (null: not given)") \
	X(nominal_hz, "threads[]", "1 / period (0: not periodic)") \
	X(not_kept, "locks[]", "acquisitions beyond the samples' capacity (counted, not timed)") \
	X(not_started, "threads[]", "releases never started: a catchup backlog the end cut off") \
	X(note, "checkpoint host.fair_server host.preempt_detail leftovers.shm_not_ours[]", "a note, in words") \
	X(ns, "trace.off_cpu.*.preempted_behind[] trace.tail.*.excess.causes[] trace.tail.*.response.causes[]", "time preempted behind this task or interrupt; a tail cause's part of the table's total") \
	X(numa_nodes, "host", "NUMA nodes of the machine") \
	X(number, "checkpoint", "the checkpoint's number (1 for the first)") \
	X(of, "trace.wakeup_ns.*", "what the wakeups are of: cycles, wakeups, or kept wakeups") \
	X(off_cpu, "trace", "per measured thread: where its time went in the measured phase (not with dropped pages)") \
	X(ok, "budget[] expect[] sources[].status", "the check held; status: replied while the client waited") \
	X(other_paths, "threads[].chain", "outputs on another path than the chain's") \
	X(out, "trace.sched_switch.*", "sched_switch records switching the thread out") \
	X(outputs, "threads[].chain", "measured runs of the chain's end with data, on the chain's path") \
	X(p50, "locks[].hold_ns locks[].wait_ns sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats threads[].response_ns trace.wakeup_ns.*", "median (nearest rank)") \
	X(p50_ns, "trace.tail.*", "the median latency (the mean of the bucket holding its rank): a tail cycle's excess is over it") \
	X(p90, "threads[].age_ns threads[].e2e_ns threads[].latency_ns", "90th percentile (nearest rank)") \
	X(p99, "locks[].hold_ns locks[].threads.*.wait_ns locks[].wait_ns sources[].client_latency_ns threads[].age_ns threads[].chain.data_age_ns threads[].chain.reaction_ns threads[].chain.stages[].run_ns threads[].chain.stages[].wait_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats threads[].response_ns trace.wakeup_ns.*", "99th percentile (nearest rank)") \
	X(p999, "threads[].age_ns threads[].e2e_ns threads[].latency_ns", "99.9th percentile (nearest rank)") \
	X(p99_ns, "budget[]", "the callback's e2e_ns.p99 (e2e) or response_ns.p99 (stage) (null: no value)") \
	X(pages_dropped, "trace.kept", "trace pages the flight recorder dropped") \
	X(pages_kept, "trace.kept", "trace pages the flight recorder kept") \
	X(pair_diff_max_ns, "syncs[]", "largest stamp difference of a set's two messages") \
	X(pair_diff_mean_ns, "syncs[]", "mean stamp difference of a set's two messages") \
	X(pairs, "trace.sched_switch.*", "wakeup pairs (sched_waking -> switch-in) of the thread") \
	X(partition, "host.shield", "cgroup v2 shield: cpuset.cpus.partition as read back") \
	X(parts, "trace.worst[]", "what the cycle's window is made of, one part each") \
	X(path, "threads[].chain", "the chain's callbacks, head to end") \
	X(peak_bytes, "memory", "VmHWM of jitterlab's process (its threads) after the analysis, before the files") \
	X(pending, "host.restore sources[].status", "restore: not put back yet; status: unanswered at the end") \
	X(pending_inputs, "threads[].chain", "head runs in the window newer than every output's data") \
	X(percentiles, "threads[]", "\"exact\" (every value kept), or the histogram's {method, relative_error}") \
	X(period_ns, "host.fair_server.cpus.* threads[]", "the thread's period (0: not periodic); the fair server's") \
	X(period_ns_stats, "threads[]", "wake - the previous cycle's wake") \
	X(period_us, "host.rt_bandwidth", "sched_rt_period_us") \
	X(pgid, "leftovers.processes[]", "the process group") \
	X(phase_ns, "threads[].poll_model", "harmonic: first releases' difference modulo the shorter period") \
	X(pi_boosts, "trace", "per thread raised by sched_pi_setprio (priority inheritance)") \
	X(pid, "host.restore.pending[] leftovers.processes[] leftovers.shm[].evidence trace.worst[].culprit trace.worst[].parts[]", "process id; a part's: pid, IRQ number or softirq vector (-1: none)") \
	X(planned_duration_ns, ".", "[run] duration") \
	X(policy, "threads[] trace.worst[].culprit trace.worst[].parts[]", "scheduling policy (parts: \"FIFO 90\")") \
	X(poll_model, "threads[]", "a poll's analytic expectation beside the measured (one timer publisher)") \
	X(poll_period_ns, "threads[].poll_model", "the poll's period (Tq)") \
	X(ppid, "leftovers.processes[]", "the parent process") \
	X(preempt, "host", "the preemption model (as host.preempt_detail.model)") \
	X(preempt_detail, "host", "how the preemption model was found: uname, config, cmdline, debugfs") \
	X(preempted_behind, "trace.off_cpu.*", "who ran while the thread was preempted (the largest 5)") \
	X(preempted_ns, "trace.off_cpu.*", "time preempted (runnable, not running)") \
	X(prio, "trace.worst[].culprit trace.worst[].parts[]", "rt_priority, CFS nice, -1 DEADLINE (0: not a task)") \
	X(priority, "threads[]", "the RT priority (0: not an RT policy)") \
	X(probe, "trace", "the probe server: connections, refused, rings") \
	X(problems, "host.boot_isolation", "what the kernel ignored or refused of the isolation, in words") \
	X(processes, "leftovers leftovers.removed", "the run's tree's processes still alive; removed: how many ended") \
	X(projected, "memory", "the budget stated when the measured phase began (null: it never began)") \
	X(pruned, "trace", "a long run's analysis in flat memory: what it kept and forgot") \
	X(published, "threads[].messages", "messages published to the topic's history") \
	X(publisher, "threads[].poll_model", "the topic's one timer publisher") \
	X(publisher_period_ns, "threads[].poll_model", "the publisher's period (Tp)") \
	X(queue, "sources[]", "the [queue] the source sends to") \
	X(rate_hz, "syncs[] threads[]", "cycles per second of the window; sync: sets per second, t0 to t_end") \
	X(rcu_nocbs, "host.boot_isolation", "rcu_nocbs= CPUs on the kernel command line (null: not given)") \
	X(reaction_ns, "threads[].chain", "per input: origin to the end of the first output reflecting it") \
	X(readable, "host.fair_server", "the fair server's debugfs files could be read") \
	X(realtime, "host.preempt_detail", "/sys/kernel/realtime says 1 (null: no such file)") \
	X(recorded, "trace", "what the trace recorded: events, missing, local_cpus") \
	X(records, "trace.probe.rings", "probe records drained and kept") \
	X(refused, "host.irqs trace.probe trace.probe.rings", "IRQs not movable; probe: connections, rings refused") \
	X(relative, "threads[].release", "of from_timer: armed relative (nanosleep, time.sleep): against what each sleep asked for, not a period grid") \
	X(relative_error, "threads[].percentiles", "largest relative error of histogram percentiles (never below)") \
	X(release, "threads[]", "a trace-only series (measure = wakeups): how its cycles' releases were found (per cycle: samples.csv release_by)") \
	X(release_by, "trace.worst[]", "how the cycle's release was found: own (the series' own), timer (its timer's requested expiry), waking") \
	X(release_ns, "trace.worst[]", "the cycle's release") \
	X(releases, "threads[]", "releases due in the window: cycles + skipped + not_started") \
	X(removed, "leftovers leftovers.shm[]", "the entry was removed; leftovers: counts of what was removed") \
	X(requests, "sources[]", "requests the source made") \
	X(requests_lost, ".", "requests beyond the preallocated slots (not recorded)") \
	X(rereads, "threads[].messages", "polls that read a message they had read before") \
	X(response, "trace.tail.*", "the missed cycles' responses (release to end), split by cause, their own work included") \
	X(response_ns, "threads[] trace.worst[]", "end - release: per series the distribution; a cycle's") \
	X(restore, "host", "the undo of the machine's settings: complete, pending") \
	X(results_bytes, "memory.projected", "what the results and the files written at the end take") \
	X(rings, "trace.probe", "the probe's rings: threads, records, lost, bad, refused") \
	X(root_isolated, "host.shield", "cgroup v2 shield: the root's cpuset.cpus.isolated") \
	X(rt, "host.preempt_detail", "a PREEMPT_RT kernel") \
	X(rt_bandwidth, "host", "RT throttling: runtime, period, RT group scheduling") \
	X(rt_runtime_changed, "host", "the run changed sched_rt_runtime_us") \
	X(rt_runtime_us, "host", "sched_rt_runtime_us in force during the run (-1: unlimited)") \
	X(run_ns, "threads[].chain.stages[] threads[].chain.worst.stages[]", "a stage's run: end - start") \
	X(running_ns, "trace.off_cpu.*", "time running") \
	X(runtime_ns, "host.fair_server.cpus.*", "the fair server's runtime on this CPU") \
	X(runtime_us, "host.rt_bandwidth", "sched_rt_runtime_us (-1: unlimited)") \
	X(samples, ".", "how samples were kept: mode, storage, memory limit") \
	X(samples_bytes, "memory.projected", "of setup: the series' storage (rings or arrays) and accumulators") \
	X(scan_max_ns, "leftovers", "the longest scan") \
	X(scans, "leftovers", "scans of the run's process tree") \
	X(scenario, ".", "the scenario's name") \
	X(scenario_file, ".", "the scenario file's path") \
	X(sched_rt_runtime_us, "host", "/proc/sys/kernel/sched_rt_runtime_us as read (a string)") \
	X(sched_switch, "trace", "per measured thread: its sched_switch and waking records") \
	X(series, "intervals stop_at", "intervals: per series its figures per interval; stop_at: the series checked") \
	X(session, "trace.kernelshark_cycle", "the cycle's own session that kernelshark.json copies (kernelshark/THREAD-CYCLE.json)") \
	X(sets, "syncs[]", "sets the sync emitted") \
	X(settle_ms, "host.shield", "cgroup v2 shield: how long the partition took to settle") \
	X(setup_bytes, "memory.projected", "VmRSS when the measured phase began (preallocated, prefaulted)") \
	X(share, "trace.tail.*.excess.causes[] trace.tail.*.response.causes[]", "its share of the table's total (the shares add up to 1)") \
	X(shield, "host", "the CPU shield of [run] isolate: CPUs, method, tasks moved") \
	X(shm, "leftovers leftovers.removed", "/dev/shm entries the run's processes left; removed: how many") \
	X(shm_dir, "leftovers", "the shared-memory directory watched") \
	X(shm_error, "leftovers", "why the directory could not be read at the start") \
	X(shm_not_ours, "leftovers", "new entries not proven the run's: kept") \
	X(sid, "leftovers.processes[]", "the session") \
	X(size, "leftovers.shm[] leftovers.shm_not_ours[]", "the entry's size") \
	X(skipped, "threads[]", "releases dropped (overruns)") \
	X(smi, "host", "per CPU: SMIs over the measured phase (null: unreadable)") \
	X(smi_note, "host", "why the SMI count is unknown") \
	X(smt_warning, "host", "a measured thread shares a physical core with a neighbour through SMT") \
	X(sources, ".", "per [source]: its requests as the client saw them") \
	X(stage, "budget[]", "the budget: e2e.CALLBACK or stage.CALLBACK") \
	X(stages, "threads[].chain threads[].chain.worst", "per stage: wait and run (worst: of the oldest output)") \
	X(start_ns, "intervals threads[]", "intervals: the first's start; thread: its start after the warm-up") \
	X(started, ".", "when the run started (ISO-8601 UTC)") \
	X(states, "host.idle_states", "CPU 0's idle states") \
	X(status, "sources[]", "the source's requests by status") \
	X(stddev, "threads[].age_ns threads[].e2e_ns threads[].latency_ns threads[].period_ns_stats", "std deviation") \
	X(steal_ns, "host", "per CPU: steal time over the measured phase (null: unreadable)") \
	X(steps, "trace.live", "feeding steps of the live analysis") \
	X(stop_at, ".", "[run] stop_at: what was checked, and the crossing") \
	X(storage, "samples", "array (every sample) or ring (a long run)") \
	X(stuck_threads, ".", "threads that did not end in time") \
	X(switch_in_ns, "trace.worst[]", "the switch-in after the waking") \
	X(switch_interval_ns, "locks[]", "biglock: switch_interval") \
	X(switch_traced, "trace.worst[]", "the switch-in has a sched_switch record (else inferred)") \
	X(syncs, ".", "per [sync]: sets, inputs, stamp differences") \
	X(t0_ns, ".", "the run's t0: the warm-up begins") \
	X(t0_realtime_ns, ".", "the wall clock (CLOCK_REALTIME, ns since the epoch) at t0: times of day (report.html)") \
	X(t_end_ns, ".", "the measured phase's planned end (t_measure + duration)") \
	X(t_measure_ns, ".", "the measured phase begins (t0 + warm-up)") \
	X(tail, "trace", "per loop: what its latency tail (the cycles above p99's bucket and the misses) is made of, by cause, from every cycle") \
	X(tasks_kept, "host.shield", "tasks left where they were: already on housekeeping CPUs only") \
	X(tasks_moved, "host.shield", "tasks moved to the housekeeping CPUs") \
	X(tasks_pinned, "host.shield", "tasks left where they were: pinned by their owner to shield CPUs") \
	X(tasks_unmovable, "host.shield", "tasks the kernel refused to move (per-CPU kernel threads)") \
	X(text, "trace.worst[]", "the cycle explained in one line") \
	X(thermal_mC, "intervals", "per thermal zone: its highest temperature per interval") \
	X(thread, "expect[] host.restore.pending[] threads[] trace.worst[] trace.kernelshark_cycle", "the thread's name (null: none)") \
	X(threads, ". executors[] locks[] trace.probe.rings", "series; pool threads; per taker; threads with a ring") \
	X(threads_shielded, "host.shield", "measured threads placed in the shield") \
	X(threshold_from, "trace.tail.*", "what threshold_ns rounds up: p99, or tail ([run] tail's latency)") \
	X(threshold_ns, "stop_at trace.tail.*", "the stop_at threshold; the tail's: the top of the bucket holding p99 (at most 12.5% above it)") \
	X(tid, "executors[].threads[] locks[].threads.* threads[] trace.pi_boosts[] trace.sched_switch.* trace.worst[]", "thread id") \
	X(timer_clock, "threads[].release", "of from_waking: its timer runs on a clock not placed on the trace's (the wall clock was set)") \
	X(timer_recorded, "threads[].release", "the timer group was recorded (false: every cycle is from its waking)") \
	X(timer_unarmed, "threads[].release", "of from_waking: woken by its own timer, whose arming is not in the trace (recording began mid-sleep)") \
	X(times, "trace.off_cpu.*.woken_by[]", "sleeps this waker ended") \
	X(to_ns, "trace.gaps[]", "end of the gap") \
	X(to_prio, "trace.pi_boosts[]", "the highest priority a boost raised it to (kernel prio)") \
	X(tool, ".", "always \"jitterlab\"") \
	X(topic, "syncs[].inputs[] threads[].messages", "the topic consumed") \
	X(total_bytes, "memory.projected", "setup + analysis + results: the peak must stay within it") \
	X(total_ns, "trace.tail.*.excess trace.tail.*.response", "excess: the tail cycles' latency over p50, in all; response: the misses' responses, in all") \
	X(trace, ".", "the trace: what was recorded and the wakeup analysis") \
	X(tree_seen, "leftovers", "processes of the run's tree ever recorded (roots included)") \
	X(type, "leftovers.shm[] leftovers.shm_not_ours[]", "file, directory, symlink, other") \
	X(typical_cycles, "trace.tail.*", "the cycles (p40 to p60) whose mean parts are what a cause takes in a typical cycle") \
	X(uid, "leftovers.shm[] leftovers.shm_not_ours[]", "the entry's owner") \
	X(uname, "host.preempt_detail", "the PREEMPT words of uname -v") \
	X(unused_inputs, "threads[].chain", "inputs no output used (overwritten, dropped, never read)") \
	X(used, "syncs[].inputs[]", "messages of the input that went into a set") \
	X(used_fraction, "syncs[].inputs[]", "used / messages") \
	X(value, "expect[] host.preempt_detail.debugfs", "expect: value checked (null: none); debugfs: sched/preempt") \
	X(value_ns, "stop_at", "the crossing cycle's value") \
	X(version, ".", "jitterlab's version") \
	X(virtualization, "host", "what the machine runs on (hypervisor type or product)") \
	X(virtualized, "host", "the machine is a virtual machine") \
	X(vm_heuristic_cpus, "trace", "per CPU: switches out of idle inferred from a woken task's first record") \
	X(voluntary, "threads[].ctx_switches", "voluntary context switches") \
	X(wait_ns, "locks[] locks[].threads.* threads[].chain.stages[] threads[].chain.worst.stages[]", "lock asked -> taken; a stage's wait before its start") \
	X(wake_ns, "trace.worst[]", "the cycle's wake") \
	X(wakeup_ns, "trace trace.worst[]", "per thread: its wakeup latencies; a cycle's switch-in - waking") \
	X(wakeup_wait_ns, "trace.off_cpu.*", "time woken and waiting to run") \
	X(waking_ns, "trace.worst[]", "the sched_waking that woke it") \
	X(wakings, "trace.sched_switch.*", "sched_waking records of the thread") \
	X(warmup_ns, ".", "[run] warmup") \
	X(wasted_max_ns, "sources[]", "the largest wasted work of one request") \
	X(wasted_ns, "sources[] threads[]", "server work done after the client had given up (threads[]: a probed server's request series, its requests' own)") \
	X(watch_cpus, ".", "where the collector ran (\"\": unpinned)") \
	X(watchdog_cpus, ".", "where the watchdog was pinned (\"\": unpinned)") \
	X(watchdog_fired, ".", "threads did not end in time and were demoted to SCHED_OTHER") \
	X(why, "host.preempt_detail.debugfs host.restore.pending[] leftovers.processes[] trace.tail.*", "why, in words") \
	X(window, "trace.worst[] trace.kernelshark_cycle", "what the parts explain: wakeup or response") \
	X(window_before_ns, "trace.kept", "how far before a release a kept window starts") \
	X(window_end_ns, "threads[]", "the measured window's end") \
	X(window_start_ns, "threads[]", "the measured window's start") \
	X(windows, "trace.kept", "windows the flight recorder was asked to keep") \
	X(windows_complete, "trace.kept", "windows kept whole (no page dropped)") \
	X(woken_by, "trace.off_cpu.*", "who ended the thread's sleeps (the largest 5)") \
	X(work, "threads[]", "the work's calls, mean and max") \
	X(work_kind, "threads[]", "the work as configured (spin 200us, ...)") \
	X(worst, "threads[] threads[].chain trace", "worst cycles; the chain's oldest output; explained cycles") \
	X(worst_per_loop, "trace.kept", "worst cycles kept per loop (their whole window)") \

/* The objects that are maps: their keys are names (a thread's, a CPU's, a zone's), not keys of the table
 * above; X(place, what names them). */
#define JL_SUMMARY_MAPS(X) \
	X("host.fair_server.cpus", "a CPU number") \
	X("host.smi", "a CPU number") \
	X("host.steal_ns", "a CPU number") \
	X("intervals.cpufreq_khz", "a CPU (cpuN)") \
	X("intervals.series", "a series (a measured thread's name)") \
	X("intervals.thermal_mC", "a thermal zone's type") \
	X("locks[].threads", "a thread or callback that took the lock") \
	X("trace.off_cpu", "a measured thread") \
	X("trace.sched_switch", "a measured thread") \
	X("trace.tail", "a measured loop") \
	X("trace.vm_heuristic_cpus", "a CPU number") \
	X("trace.wakeup_ns", "a measured thread")

enum jl_summary_key {
#define JL_SUMMARY_KEY_ENUM(k, places, meaning) JL_KEY_##k,
	JL_SUMMARY_KEYS(JL_SUMMARY_KEY_ENUM)
#undef JL_SUMMARY_KEY_ENUM
	JL_NKEYS
};

/* The key K as a string, checked against the registry at compile time (an address constant: static
 * initializers may use it). */
#define JL_K(k) (&#k[JL_KEY_##k * 0])
#define JL_K2(a, b) (&#a "." #b[JL_KEY_##a * 0 + JL_KEY_##b * 0])
#define JL_K3(a, b, c) (&#a "." #b "." #c[JL_KEY_##a * 0 + JL_KEY_##b * 0 + JL_KEY_##c * 0])

struct jl_summary_key_info {
	const char *key, *places, *meaning;
};
extern const struct jl_summary_key_info jl_summary_keys[JL_NKEYS];
/* The maps: KEY "*", PLACES the map, MEANING what names its members. */
extern const struct jl_summary_key_info jl_summary_maps[];
extern const int jl_summary_nmaps;

#endif
