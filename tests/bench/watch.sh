#!/usr/bin/env bash
# Bench: what watching costs the watched program. Figures, never pass/fail. Needs root and cyclictest.
# cyclictest (-m -p80 -a1 -t1 -i1000 --mainaffinity=0, BENCH_DURATION each) runs alone and under
# `jitterlab watch --comm cyclictest --cpus 1`, interleaved BENCH_PAIRS times; prints cyclictest's own p99 and
# max per side (medians over the pairs), their ratios, and the watch's CPU time (user + system, the process and
# its threads, from /proc) per second watched and per watched 1 kHz thread, as a share of one CPU.
#     BENCH_PAIRS=5 BENCH_DURATION=10 BENCH_WATCH_ARGS="--trace sched" tests/bench/watch.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
pairs=${BENCH_PAIRS:-5}
duration=${BENCH_DURATION:-10}
if [ "$(id -u)" -ne 0 ] || ! command -v cyclictest >/dev/null; then
    echo "watch bench: needs root and cyclictest; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-watch-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
ct() { cyclictest -m -p80 -a1 -t1 -i1000 --mainaffinity=0 -q -D "$duration" -h 20000 >"$1" 2>&1; }
for i in $(seq 1 "$pairs"); do
    ct "$tmp/off$i.txt"
    # shellcheck disable=SC2086
    "$bin" watch --comm cyclictest --cpus 1 ${BENCH_WATCH_ARGS:-} -D $((duration + 3)) --out "$tmp/out$i" -q >"$tmp/watch$i.log" 2>&1 &
    wpid=$!
    sleep 1.5
    ct "$tmp/on$i.txt"
    # the watch's CPU time so far (utime + stime of the process, all its threads), in clock ticks
    awk '{print $14 + $15}' "/proc/$wpid/stat" >"$tmp/cpu$i.txt" 2>/dev/null || echo 0 >"$tmp/cpu$i.txt"
    wait "$wpid" || echo "(watch $i exited $?: $(tail -2 "$tmp/watch$i.log" | tr '\n' ' '))"
done
/usr/bin/python3 - "$tmp" "$pairs" "$duration" "$(getconf CLK_TCK)" <<'PY'
import re, statistics, sys
tmp, pairs, duration, hz = sys.argv[1], int(sys.argv[2]), float(sys.argv[3]), float(sys.argv[4])
def figures(path):
    text = open(path).read()
    hist = {}
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 2 and f[0].isdigit():
            hist[int(f[0])] = int(f[1])
    mx = re.search(r"# Max Latencies:\s+(\d+)", text)
    total = sum(hist.values())
    acc, p99 = 0, None
    for us in sorted(hist):
        acc += hist[us]
        if p99 is None and acc >= 0.99 * total:
            p99 = us
    return p99, int(mx.group(1)) if mx else None
res = {}
for side in ("off", "on"):
    vals = [figures(f"{tmp}/{side}{i}.txt") for i in range(1, pairs + 1)]
    vals = [v for v in vals if v[0] is not None]
    res[side] = (statistics.median(v[0] for v in vals), statistics.median(v[1] for v in vals), len(vals)) if vals else None
for side in ("off", "on"):
    if res[side]:
        p99, mx, n = res[side]
        print(f"bench watch cyclictest {side:>3}: {n} run(s) of {duration:.0f} s  p99 {p99} us  max {mx} us")
if res["off"] and res["on"]:
    print(f"bench watch cost: p99 ratio on/off {res['on'][0] / res['off'][0]:.2f}, max ratio {res['on'][1] / res['off'][1]:.2f}")
cpu = [int(open(f"{tmp}/cpu{i}.txt").read().split()[0]) / hz for i in range(1, pairs + 1)]
watched = duration + 1.5
print(f"bench watch CPU time: median {statistics.median(cpu):.2f} s over about {watched:.1f} s watched: "
      f"{100 * statistics.median(cpu) / watched:.1f}% of one CPU for one 1 kHz thread (the analysis runs after the watch)")
PY
