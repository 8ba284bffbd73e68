#!/usr/bin/env bash
# Bench: the probe (include/jitterlab/probe.h, python/jitterlab_probe.py). Prints
#  1. the cost of one probe call, in C and in Python, inside a run (a write to the run's trace) and outside
#     one (the no-op branch);
#  2. a probed C loop (examples/probe_loop) against the built-in loop under the same conditions (1 kHz,
#     SCHED_FIFO 80, CPU 1, 100 us of spin, trace = sched), BENCH_RUNS interleaved runs each: the medians
#     of their latency p50/p99 and the probed/built-in ratios.
# Figures, never pass/fail. Needs root.   BENCH_RUNS=3 BENCH_DURATION=3s tests/bench/probe.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-3}
duration=${BENCH_DURATION:-3s}
if [ "$(id -u)" -ne 0 ]; then
    echo "probe bench: needs root; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cc -std=gnu11 -O2 -I"$here/include" -o "$tmp/probe_cost" "$here/tests/bench/probe_cost.c"
loop_bin=$(dirname "$bin")/examples/probe_loop
[ -x "$loop_bin" ] || { echo "probe bench: $loop_bin not built (make)"; exit 0; }

echo "-- 1. the cost of a probe call: outside a run, then inside one through the ring and through the marker"
"$tmp/probe_cost" 1000000
/usr/bin/python3 "$here/tests/bench/probe_cost.py" "$here/python" 200000
for path in ring marker; do
    env=""
    [ "$path" = marker ] && env="env JITTERLAB_PROBE_RING=0 "
    for what in "$tmp/probe_cost 20000" "/usr/bin/python3 $here/tests/bench/probe_cost.py $here/python 20000"; do
        printf '[run]\nduration = 4s\nwarmup = 0s\ntrace = sched\ntrace_buffer = 64MB\n[thread c]\nexec = %s%s\nmeasure = probe\n' \
            "$env" "$what" >"$tmp/cost.ini"
        timeout 120 "$bin" run "$tmp/cost.ini" --out "$tmp/out" -q >/dev/null 2>&1 || true
        printf '%-7s ' "$path"
        cat "$tmp/out/cost/latest/c.log" 2>/dev/null | grep probe_cost || echo "(no figure: see $tmp/out/cost/latest/c.log)"
    done
done

echo "-- 2. a probed C loop against the built-in loop ($runs interleaved run(s) of $duration each)"
common='[run]\nwarmup = 500ms\ntrace = sched\n[thread ctl]\npolicy = fifo\npriority = 80\ncpus = 1\n'
printf "$common"'rate = 1kHz\nwork = spin 100us\n' >"$tmp/builtin.ini"
printf "$common"'exec = %s 1000 100\nmeasure = probe\n' "$loop_bin" >"$tmp/probed.ini"
for i in $(seq "$runs"); do
    for k in builtin probed; do
        timeout 120 "$bin" run "$tmp/$k.ini" --duration "$duration" --out "$tmp/out" --json -q >"$tmp/$k.$i.json" 2>/dev/null || true
    done
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
def figs(kind, name):
    out = []
    for i in range(1, runs + 1):
        try:
            d = json.load(open(f"{tmp}/{kind}.{i}.json"))
        except (OSError, ValueError):
            continue
        t = [x for x in d["threads"] if x["name"] == name]
        if t and t[0].get("latency_ns"):
            out.append((t[0]["latency_ns"]["p50"], t[0]["latency_ns"]["p99"], t[0]["cycles"]))
    return out
b, p = figs("builtin", "ctl"), figs("probed", "ctl.loop")
if not b or not p:
    print("no figures"); sys.exit(0)
for label, f in (("built-in", b), ("probed", p)):
    print(f"  {label:9s} p50 {statistics.median(x[0] for x in f)/1e3:8.1f} us   p99 {statistics.median(x[1] for x in f)/1e3:8.1f} us"
          f"   cycles {statistics.median(x[2] for x in f):.0f}   ({len(f)} runs)")
print("  probed / built-in: p50 %.2f, p99 %.2f" % (statistics.median(x[0] for x in p) / statistics.median(x[0] for x in b),
                                                   statistics.median(x[1] for x in p) / statistics.median(x[1] for x in b)))
PY
