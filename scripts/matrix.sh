#!/usr/bin/env bash
# The design question in one command: a 100 Hz control loop under policy {fifo 80, other} x placement
# {same CPU as its neighbour, other CPU} x neighbour load {none, CFS sin(), FIFO 90 spinner, memory
# streamer}, 3+ interleaved runs each (scenarios/matrix.ini), ending in one table (rate, latency p99/max,
# period max, misses, each with its run-to-run CV), the factor effects (how much each factor and each
# two-factor interaction changes each metric, with its CI), what each condition's latency tail is made of
# (its runs pooled: the cycles above p99 and the misses, by cause), the verdicts of the compared pairs and
# strip plots.
#   sudo scripts/matrix.sh [--runs N] [--duration D] [--out DIR] [any other `jitterlab sweep` option]
# About 6 minutes with the defaults (16 conditions x 3 runs x 6 s).
set -euo pipefail
here=$(cd "$(dirname "$0")/.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}

if [ "$(id -u)" -ne 0 ]; then
    echo "matrix.sh: needs root (real-time policies, CPU placement): sudo $0 $*" >&2
    exit 2
fi
if [ ! -x "$bin" ]; then
    echo "matrix.sh: $bin not built: run make first" >&2
    exit 2
fi
# the sweep prints the overview table (one row per condition, mean and CV of each headline metric),
# then every compared metric with each run's value and the verdicts, and writes sweep.json,
# report.md and strip-control.svg in its directory
exec "$bin" sweep "$here/scenarios/matrix.ini" "$@"
