#!/usr/bin/env bash
# Bench: the executor's dispatch cost. One 1 kHz timer callback on an idle single-threaded executor
# (SCHED_FIFO 80, CPU 1, no work) against a plain [thread] loop in the same place: latency p50/p99 (the
# callback's ready -> start, the loop's release -> wake), BENCH_RUNS interleaved runs each, medians, and
# the ratio executor/loop. Figures, never pass/fail. Needs root.   BENCH_RUNS=3 BENCH_DURATION=3s
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-3}
duration=${BENCH_DURATION:-3s}
[ "$(id -u)" -eq 0 ] || { echo "executor bench: needs root; skipped"; exit 0; }
tmp=$(mktemp -d /tmp/jitterlab-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
printf '[run]\nwarmup = 500ms\ntrace = off\n[thread ctl]\npolicy = fifo\npriority = 80\ncpus = 1\nrate = 1kHz\n' >"$tmp/loop.ini"
printf '[run]\nwarmup = 500ms\ntrace = off\n[executor ex]\npolicy = fifo\npriority = 80\ncpus = 1\n[callback ctl]\nexecutor = ex\nperiod = 1ms\n' >"$tmp/exec.ini"
for i in $(seq "$runs"); do
    for k in loop exec; do
        timeout 120 "$bin" run "$tmp/$k.ini" --duration "$duration" --out "$tmp/out" --json -q >"$tmp/$k.$i.json" 2>/dev/null || true
    done
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def figs(kind):
    out = []
    for i in range(1, runs + 1):
        try:
            t = next(x for x in json.load(open(f"{tmp}/{kind}.{i}.json"))["threads"] if x["name"] == "ctl")
            out.append((t["latency_ns"]["p50"], t["latency_ns"]["p99"]))
        except (OSError, ValueError, StopIteration, KeyError):
            pass
    return out
l, e = figs("loop"), figs("exec")
if not l or not e:
    print("no figures"); sys.exit(0)
for label, f in (("loop", l), ("executor", e)):
    print(f"  {label:9s} p50 {statistics.median(x[0] for x in f)/1e3:7.1f} us   p99 {statistics.median(x[1] for x in f)/1e3:7.1f} us   ({len(f)} runs)")
print("  executor / loop: p50 %.2f, p99 %.2f" % (statistics.median(x[0] for x in e) / statistics.median(x[0] for x in l),
                                               statistics.median(x[1] for x in e) / statistics.median(x[1] for x in l)))
PY
