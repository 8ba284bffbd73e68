#!/usr/bin/env bash
# Bench: compare's verdicts against a kept baseline (issue 29). The first `make bench` on a machine sweeps
# scenarios/regression.ini (BENCH_RUNS runs, default 5) and keeps it as the baseline build/bench-baseline
# (BENCH_BASELINE elsewhere); every later one sweeps it again and prints `jitterlab compare`'s table and
# gates against that baseline. Figures and verdicts, never a failure: our machines are noisy, and a gate
# that fails here is reported, not fatal. Needs root.
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
kept=${BENCH_BASELINE:-$here/build/bench-baseline}
runs=${BENCH_RUNS:-5}
if [ "$(id -u)" -ne 0 ]; then
    echo "baseline bench: needs root; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-baseline-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
"$bin" sweep "$here/scenarios/regression.ini" --runs "$runs" --out "$tmp/out" --quiet > /dev/null
new=$(readlink -f "$tmp/out/regression/latest")
if [ ! -f "$kept/baseline.json" ]; then
    "$bin" baseline save "$new" --as "$(basename "$kept")" --dir "$(dirname "$kept")"
    echo "baseline bench: no kept baseline yet: this run is kept as $kept; the next make bench compares against it"
    exit 0
fi
rc=0
"$bin" compare "$kept" "$new" || rc=$?
case $rc in
0) echo "baseline bench: every gate held against $kept" ;;
3) echo "baseline bench: a gate failed against $kept (reported, not fatal: timings on this machine are noisy)" ;;
*) echo "baseline bench: compare exited $rc" ;;
esac
exit 0
