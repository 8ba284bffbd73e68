#!/usr/bin/env bash
# Bench: how well `measure = wakeups` agrees with an unmodified program's own clock. Figures, never pass/fail.
# Needs root. tests/helpers/sleeper (absolute clock_nanosleep, FIFO 80 on CPU 1, 1 kHz) and a plain Python loop
# (time.sleep, FIFO 70, 500 Hz) log, as cyclictest does, the time they asked for and their clock read after the
# sleep; each cycle of the trace-only series is matched to its line (the sleeper: by the requested time, which
# must be its release exactly; Python: by the first read after the switch-in). Prints per program the cycles
# released by their timer, the share whose release is the requested time, and the program's clock read minus
# the switch-in (the return to user space; for Python the interpreter's delay too): median, p99, and the
# share at or above 0.
#     BENCH_DURATION=5s tests/bench/release.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
sleeper=$(dirname "$bin")/tests/helpers/sleeper
duration=${BENCH_DURATION:-5s}
if [ "$(id -u)" -ne 0 ]; then
    echo "release bench: needs root (tracefs, SCHED_FIFO); skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-release-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/loop.py" <<EOF2
import time
f = open("$tmp/py.log", "w", buffering=1)
for c in range(10**7):
    asked = time.monotonic_ns() + 2_000_000
    time.sleep(0.002)
    f.write(f"{c} {asked} {time.monotonic_ns()} timer\n")
EOF2
for prog in c py; do
    case $prog in
        c) exec_line="$sleeper -m abs -p 1000 -n 10000000 -l $tmp/c.log"; pol="priority = 80"; pat="threads = sleeper" ;;
        py) exec_line="/usr/bin/python3 $tmp/loop.py"; pol="priority = 70"; pat="" ;;
    esac
    cat >"$tmp/$prog.ini" <<EOF2
[run]
warmup = 300ms
[thread loop]
exec = $exec_line
policy = fifo
$pol
cpus = 1
measure = wakeups
$pat
EOF2
    timeout 300 "$bin" run "$tmp/$prog.ini" --duration "$duration" --out "$tmp/out" --quiet >"$tmp/$prog.out" 2>&1 ||
        echo "(run $prog exited $?: $(tail -2 "$tmp/$prog.out" | tr '\n' ' '))"
done
/usr/bin/python3 - "$tmp" <<'PY'
import bisect, csv, glob, statistics, sys
tmp = sys.argv[1]
for prog, name in (("c", "C loop (clock_nanosleep, absolute)"), ("py", "Python loop (time.sleep)")):
    runs = [g for g in glob.glob(f"{tmp}/out/{prog}/*/samples.csv") if "/latest/" not in g]
    if not runs:
        print(f"bench release {name}: no run"); continue
    rows = [r for r in csv.DictReader(open(runs[0])) if r["thread"].startswith("loop.")]
    log = [l.split() for l in open(f"{tmp}/{prog}.log") if len(l.split()) == 4]
    timer = [r for r in rows if r["release_by"] == "timer"]
    if prog == "c":
        asked = {int(a): int(w) for _, a, w, _ in log}
        pairs = [(asked[int(r["release_ns"])], int(r["wake_ns"])) for r in timer if int(r["release_ns"]) in asked]
        exact = f", release = requested time {len(pairs)}/{len(timer)}"
    else:
        woke = sorted(int(w) for _, _, w, _ in log)
        pairs = []
        for r in timer:
            i = bisect.bisect_left(woke, int(r["wake_ns"]) - 1_000_000)
            if i < len(woke):
                pairs.append((woke[i], int(r["wake_ns"])))
        exact = ""
    d = sorted(a - b for a, b in pairs)
    if not d:
        print(f"bench release {name}: nothing matched"); continue
    print(f"bench release {name}: {len(timer)}/{len(rows)} cycles from the timer{exact}; clock read - switch-in "
          f"median {statistics.median(d)/1e3:.2f} us, p99 {d[int(0.99*(len(d)-1))]/1e3:.2f} us, "
          f">= 0 on {100*sum(x >= 0 for x in d)/len(d):.1f}%")
PY
