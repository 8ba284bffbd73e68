#!/usr/bin/env bash
# Bench: jitterlab's loop against cyclictest on the same CPU, priority and period (1 kHz, SCHED_FIFO 80,
# CPU 1), idle and beside a CFS hog on the same CPU, several interleaved runs each (`jitterlab cyclictest
# --runs N`: cyclictest in the loop's place, then the loop, alternately). Prints the medians and the
# jitterlab/cyclictest ratios of min/avg/p50/p99/max; the target is ratios within 10% of 1 (p50, p99).
# Figures, never pass/fail. Needs root.   BENCH_RUNS=3 BENCH_DURATION=5s tests/bench/cyclictest.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
runs=${BENCH_RUNS:-3}
duration=${BENCH_DURATION:-5s}
if [ "$(id -u)" -ne 0 ]; then
    echo "cyclictest bench: needs root; skipped"
    exit 0
fi
if ! command -v cyclictest >/dev/null; then
    echo "cyclictest bench: cyclictest not installed (rt-tests); skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

loop='[thread control]
policy = fifo
priority = 80
cpus = 1
rate = 1kHz
work = none
'
printf '; bench: the loop alone\n[run]\nwarmup = 1s\ntrace = off\n\n%s' "$loop" >"$tmp/idle.ini"
printf '; bench: the loop beside a CFS hog on its CPU\n[run]\nwarmup = 1s\ntrace = off\n\n%s\n[thread hog]\npolicy = other\ncpus = 1\nwork = sin 100000\n' \
    "$loop" >"$tmp/hog.ini"

for case in idle hog; do
    echo "-- $case: $runs interleaved run(s) of $duration per side"
    timeout 600 "$bin" cyclictest "$tmp/$case.ini" --runs "$runs" --duration "$duration" --out "$tmp/out" --quiet \
        >"$tmp/$case.txt" 2>&1 || echo "(jitterlab cyclictest exited $?)"
    sed -n '/^control:/,$p' "$tmp/$case.txt" | grep -v '^cyclictest.json'
    /usr/bin/python3 - "$tmp/out/$case/latest/cyclictest.json" "$case" <<'PY'
import json, sys
try:
    d = json.load(open(sys.argv[1]))
except OSError as e:
    print(f"bench {sys.argv[2]}: no cyclictest.json ({e})")
    sys.exit(0)
for t in d["threads"]:
    r = t["ratio"]
    fmt = lambda k: "-" if r.get(k) is None else f"{r[k]:.2f}"
    within = [k for k in ("p50", "p99") if r.get(k) is not None and abs(r[k] - 1) <= 0.10]
    print(f"bench {sys.argv[2]} {t['name']}: ratio jitterlab/cyclictest p50 {fmt('p50')} p99 {fmt('p99')} "
          f"max {fmt('max')} (within 10% of 1: {', '.join(within) or 'none'})")
PY
done
