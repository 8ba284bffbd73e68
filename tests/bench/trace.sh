#!/usr/bin/env bash
# Bench: what tracing costs and how fast its analysis is. Figures, never pass/fail. Needs root.
#  1. Overhead: a 1 kHz SCHED_FIFO 80 loop on CPU 1 beside a CFS neighbour that sleeps and wakes a lot
#     (many sched events), runs alternating --no-trace, `trace = sched`, `trace = sched,timer` (what a
#     `measure = wakeups` scenario records by default: each cycle from its timer) and `trace = sched,irq,timer`;
#     prints the loop's latency p50/p99/max per side (median over the runs), the on/off ratios, the events
#     recorded per second and per loop cycle, and the cost per recorded event (the latency a cycle gained,
#     p50 and p99, divided by the events recorded per cycle).
#  (Analysis throughput against trace-cmd report: tests/bench/floor.sh.)
#     BENCH_RUNS=3 BENCH_DURATION=5s BENCH_SIDES="off sched timer full" tests/bench/trace.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-3}
duration=${BENCH_DURATION:-5s}
sides=${BENCH_SIDES:-off sched timer full}
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

echo "-- tracing overhead: $runs run(s) of $duration per side ($sides), alternating"
for i in $(seq 1 "$runs"); do
    for side in $sides; do
        case $side in
            off) args=(--no-trace) ;;
            sched) args=(--set run.trace=sched) ;;
            timer) args=(--set run.trace=sched,timer) ;;
            full) args=(--set run.trace=sched,irq,timer) ;;
            *) echo "bench: unknown side '$side' (off, sched, timer, full)"; exit 2 ;;
        esac
        timeout 300 "$bin" run "$tmp/overhead.ini" --duration "$duration" --out "$tmp/$side$i" --quiet "${args[@]}" \
            >"$tmp/$side$i.log" 2>&1 || echo "(run $side $i exited $?: $(tail -2 "$tmp/$side$i.log" | tr '\n' ' '))"
    done
done
# shellcheck disable=SC2086
/usr/bin/python3 - "$tmp" "$runs" $sides <<'PY'
import json, statistics, sys, glob
tmp, runs, sides = sys.argv[1], int(sys.argv[2]), sys.argv[3:]
names = {"off": "off", "sched": "sched", "timer": "sched,timer", "full": "sched,irq,timer"}
res = {}
for side in sides:
    vals = {"p50": [], "p99": [], "max": []}
    events, per_cycle = [], []
    for i in range(1, runs + 1):
        for f in [g for g in glob.glob(f"{tmp}/{side}{i}/overhead/*/summary.json") if "/latest/" not in g]:
            d = json.load(open(f))
            t = [t for t in d["threads"] if t["name"] == "control"][0]
            for k in vals:
                vals[k].append(t["latency_ns"][k])
            if d.get("trace", {}).get("enabled"):
                events.append(d["trace"]["events"] / (d["duration_ns"] / 1e9))
                if t.get("rate_hz"):  # events of the whole trace (warm-up too) per second, per loop cycle
                    per_cycle.append(d["trace"]["events"] / (d["duration_ns"] / 1e9) / t["rate_hz"])
    res[side] = {k: statistics.median(v) if v else None for k, v in vals.items()}
    res[side]["n"] = len(vals["p50"])
    res[side]["events_s"] = statistics.median(events) if events else 0
    res[side]["per_cycle"] = statistics.median(per_cycle) if per_cycle else 0
for side in sides:
    r = res[side]
    if not r["n"]:
        print(f"bench trace overhead {names[side]:>15}: no run completed")
        continue
    extra = f"  ({r['events_s']:.0f} events/s, {r['per_cycle']:.1f} per cycle)" if side != "off" else ""
    print(f"bench trace overhead {names[side]:>15}: {r['n']} run(s)  p50 {r['p50']/1e3:8.1f} us"
          f"  p99 {r['p99']/1e3:8.1f} us  max {r['max']/1e3:8.1f} us{extra}")
off = res.get("off")
for side in sides:
    r = res[side]
    if side == "off" or not off or not off["n"] or not r["n"]:
        continue
    ratio = lambda k: r[k] / off[k] if off[k] else float("nan")
    cost = lambda k: (r[k] - off[k]) / r["per_cycle"] if r["per_cycle"] else float("nan")
    print(f"bench trace overhead {names[side]:>15}: ratio on/off  p50 {ratio('p50'):.2f}  p99 {ratio('p99'):.2f}"
          f"  max {ratio('max'):.2f};  per recorded event  p50 {cost('p50'):+.0f} ns  p99 {cost('p99'):+.0f} ns")
PY

echo "-- analysis throughput: tests/bench/floor.sh (one protocol, beside trace-cmd report)"
