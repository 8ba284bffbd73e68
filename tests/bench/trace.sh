#!/usr/bin/env bash
# Bench: what tracing costs and how fast its analysis is. Figures, never pass/fail. Needs root.
#  1. Overhead: a 1 kHz SCHED_FIFO 80 loop on CPU 1 beside a CFS neighbour that sleeps and wakes a lot
#     (many sched events), runs alternating trace = sched,irq,timer and --no-trace; prints the loop's
#     latency p50/p99/max per side (median over the runs) and the on/off ratios.
#  2. Analysis throughput: `jitterlab analyze RUN_DIR` against `trace-cmd report` on the same trace.dat,
#     in events per second (wall clock, best of 3).
#     BENCH_RUNS=3 BENCH_DURATION=5s tests/bench/trace.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-3}
duration=${BENCH_DURATION:-5s}
if [ "$(id -u)" -ne 0 ]; then
    echo "trace bench: needs root (tracefs, SCHED_FIFO); skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-trace-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/overhead.ini" <<'EOF'
; bench: a 1 kHz loop beside a neighbour that sleeps 100 us at a time (thousands of switches a second)
[run]
warmup = 500ms
trace = sched, irq, timer

[thread control]
policy = fifo
priority = 80
cpus = 1
rate = 1kHz
work = spin 50us

[thread chatter]
policy = other
cpus = 1
rate = 5kHz
work = spin 20us
measure = no
EOF

echo "-- tracing overhead: $runs run(s) of $duration per side, alternating"
for i in $(seq 1 "$runs"); do
    for side in on off; do
        args=()
        [ "$side" = off ] && args=(--no-trace)
        timeout 300 "$bin" run "$tmp/overhead.ini" --duration "$duration" --out "$tmp/$side$i" --quiet "${args[@]}" \
            >"$tmp/$side$i.log" 2>&1 || echo "(run $side $i exited $?: $(tail -2 "$tmp/$side$i.log" | tr '\n' ' '))"
    done
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import json, statistics, sys, glob
tmp, runs = sys.argv[1], int(sys.argv[2])
res = {}
for side in ("on", "off"):
    vals = {"p50": [], "p99": [], "max": []}
    events = []
    for i in range(1, runs + 1):
        for f in [g for g in glob.glob(f"{tmp}/{side}{i}/overhead/*/summary.json") if "/latest/" not in g]:
            d = json.load(open(f))
            t = [t for t in d["threads"] if t["name"] == "control"][0]
            for k in vals:
                vals[k].append(t["latency_ns"][k])
            if d.get("trace", {}).get("enabled"):
                events.append(d["trace"]["events"] / (d["duration_ns"] / 1e9))
    res[side] = {k: statistics.median(v) if v else None for k, v in vals.items()}
    res[side]["n"] = len(vals["p50"])
    res[side]["events_s"] = statistics.median(events) if events else 0
for side in ("on", "off"):
    r = res[side]
    if not r["n"]:
        print(f"bench trace overhead {side}: no run completed")
        continue
    print(f"bench trace overhead {side:>3}: {r['n']} run(s)  p50 {r['p50']/1e3:8.1f} us  p99 {r['p99']/1e3:8.1f} us"
          f"  max {r['max']/1e3:8.1f} us" + (f"  ({r['events_s']:.0f} events/s recorded)" if side == "on" else ""))
if res["on"]["n"] and res["off"]["n"]:
    ratio = lambda k: res["on"][k] / res["off"][k] if res["off"][k] else float("nan")
    print(f"bench trace overhead: ratio on/off  p50 {ratio('p50'):.2f}  p99 {ratio('p99'):.2f}  max {ratio('max'):.2f}")
PY

echo "-- analysis throughput"
run_dir=$(ls -1d "$tmp"/on1/overhead/2* 2>/dev/null | head -1 || true)
if [ -z "$run_dir" ] || [ ! -f "$run_dir/trace.dat" ]; then
    echo "bench trace analysis: no traced run to analyse"
    exit 0
fi
events=$(/usr/bin/python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["trace"]["events"])' "$run_dir/summary.json")
best() { # best wall time of 3, in seconds
    local b=""
    for _ in 1 2 3; do
        local t0 t1
        t0=$(date +%s.%N)
        "$@" >/dev/null 2>&1 || true
        t1=$(date +%s.%N)
        b=$(/usr/bin/python3 -c "import sys; a=float(sys.argv[1]); d=float(sys.argv[2]); print(d if not a or d < a else a)" "${b:-0}" "$(echo "$t1 - $t0" | bc -l 2>/dev/null || /usr/bin/python3 -c "print($t1-$t0)")")
    done
    echo "$b"
}
ta=$(best timeout 300 "$bin" analyze "$run_dir" --json)
tr=$(best timeout 300 trace-cmd report "$run_dir/trace.dat")
size=$(stat -c %s "$run_dir/trace.dat")
/usr/bin/python3 - "$events" "$ta" "$tr" "$size" <<'PY'
import sys
ev, ta, tr, size = int(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(f"bench trace analysis: {ev} events, trace.dat {size/1e6:.1f} MB")
print(f"bench trace analysis: jitterlab analyze {ta:.3f} s = {ev/ta:,.0f} events/s")
print(f"bench trace analysis: trace-cmd report  {tr:.3f} s = {ev/tr:,.0f} events/s")
print(f"bench trace analysis: speed ratio analyze/report {tr/ta:.1f}x")
PY
