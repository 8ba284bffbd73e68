#!/usr/bin/env bash
# Bench: what counting the latency tail from every cycle costs the live analysis (issue 43). Figures, never
# pass/fail. Needs root. A 1 kHz SCHED_OTHER loop on CPU 1 beside a FIFO 90 spinner (3 ms at 20 Hz, so the
# tail has something to explain), `trace = sched`, alternating `[run] tail = on` and `off`; per side the live
# analysis' busy seconds, the events it went through per busy second, its busy time per measured cycle, and
# jitterlab's peak memory (VmHWM).
#     BENCH_RUNS=1 BENCH_DURATION=60s tests/bench/tail.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-1}
duration=${BENCH_DURATION:-60s}
if [ "$(id -u)" -ne 0 ]; then
    echo "tail bench: needs root (tracefs, SCHED_FIFO); skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-tail-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/tail.ini" <<'INI'
[run]
warmup = 500ms
trace = sched

[thread control]
policy = other
cpus = 1
rate = 1kHz
deadline = 1ms
work = spin 50us

[thread spinner]
policy = fifo
priority = 90
cpus = 1
rate = 20Hz
work = spin 3ms
measure = no
INI

echo "-- the tail's cost: $runs run(s) of $duration per side (tail on, off), alternating"
for i in $(seq 1 "$runs"); do
    for side in on off; do
        timeout 900 "$bin" run "$tmp/tail.ini" --duration "$duration" --out "$tmp/$side$i" --quiet --set "run.tail=$side" \
            >"$tmp/$side$i.log" 2>&1 || echo "(run $side $i exited $?: $(tail -2 "$tmp/$side$i.log" | tr '\n' ' '))"
    done
done
/usr/bin/python3 - "$tmp" "$runs" <<'PY'
import glob, json, statistics, sys
tmp, runs = sys.argv[1], int(sys.argv[2])
print(f"  {'tail':5s} {'cycles':>8s} {'busy s':>8s} {'events/busy s':>14s} {'busy us/cycle':>14s} {'VmHWM MB':>9s}  tail's top cause")
med = {}
for side in ("on", "off"):
    rows = []
    for i in range(1, runs + 1):
        f = glob.glob(f"{tmp}/{side}{i}/*/latest/summary.json")
        if not f:
            print(f"  {side:5s} (run {i}: no summary)")
            continue
        s = json.load(open(f[0]))
        live = s.get("trace", {}).get("live")
        th = [t for t in s["threads"] if t["name"] == "control"][0]
        if not live:
            print(f"  {side:5s} (run {i}: the analysis did not stream with the run)")
            continue
        tail = s["trace"].get("tail", {}).get("control", {})
        top = (tail.get("excess", {}).get("causes") or [{}])[0]
        us = 1e6 * live["busy_s"] / max(1, th["cycles"])
        rows.append(us)
        print(f"  {side:5s} {th['cycles']:8d} {live['busy_s']:8.3f} {live.get('events_per_busy_s', 0):14.0f} {us:14.2f} "
              f"{s.get('memory', {}).get('peak_bytes', 0) / 1e6:9.1f}  "
              + (f"{top.get('cause', '-')} {100 * top.get('share', 0):.0f}%" if tail.get("computed") else tail.get("why", "-")))
    if rows:
        med[side] = statistics.median(rows)
if "on" in med and "off" in med:
    print(f"  the tail costs the live analysis {med['on'] - med['off']:.2f} us of one CPU per cycle "
          f"({med['on'] / med['off']:.2f}x its busy time without)" if med["off"] > 0 else "")
PY
