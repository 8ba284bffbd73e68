#!/usr/bin/env bash
# Open a run's cycle that matters in KernelShark: the session kernelshark.json that `jitterlab run` wrote next
# to trace.dat (the worst cycle of the loop whose [expect] failed, else of the highest-priority loop; markers
# A/B on the waking and the switch-in, CPU and task plots of the loop and its culprit). Every explained
# cycle has its own in RUN_DIR/kernelshark/ (kernelshark -s RUN_DIR/kernelshark/THREAD-CYCLE.json).
#   scripts/open-in-kernelshark.sh [RUN_DIR]      (default: the latest run under traces/)
# KernelShark refuses a session whose data file path or mtime changed ("Timestamp mismatch"): when the run
# directory was moved or copied, the session is written again first (`jitterlab analyze RUN_DIR --kernelshark`).
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)
dir=${1:-}
if [ -z "$dir" ]; then
    # the newest <scenario>/latest link (or run directory) under traces/
    dir=$(ls -1dt "$here"/traces/*/latest "$here"/traces/*/*/ 2>/dev/null | head -1 || true)
    if [ -z "$dir" ]; then
        echo "open-in-kernelshark: no run under $here/traces (run: sudo build/jitterlab run SCENARIO)" >&2
        exit 2
    fi
fi
dir=$(cd "$dir" && pwd -P)
session="$dir/kernelshark.json"
if [ ! -f "$session" ]; then
    if [ -f "$dir/trace.dat" ]; then
        echo "open-in-kernelshark: $dir has no kernelshark.json (no wakeup was matched); opening trace.dat" >&2
        exec kernelshark "$dir/trace.dat"
    fi
    echo "open-in-kernelshark: $dir has no trace (was the run traced? see [run] trace)" >&2
    exit 2
fi
stale=$(/usr/bin/env python3 - "$session" "$dir/trace.dat" <<'PY' 2>/dev/null || echo yes
import json, os, sys
d = json.load(open(sys.argv[1]))["data streams"][0]["data"]
ok = os.path.exists(d["file"]) and os.path.samefile(d["file"], sys.argv[2]) and d["time"] == int(os.stat(sys.argv[2]).st_mtime)
print("no" if ok else "yes")
PY
)
if [ "$stale" = yes ]; then
    bin=$here/build/jitterlab
    [ -x "$bin" ] || bin=$(command -v jitterlab || true)
    if [ -z "$bin" ]; then
        echo "open-in-kernelshark: $session points at another copy of trace.dat, and no jitterlab binary to rewrite it" >&2
        exit 1
    fi
    echo "open-in-kernelshark: the run directory moved: writing the session again" >&2
    "$bin" analyze "$dir" --kernelshark >/dev/null
fi
if ! command -v kernelshark >/dev/null 2>&1; then
    echo "open-in-kernelshark: KernelShark is not installed; this installs it and nothing else:" >&2
    echo "    sudo $here/scripts/install-deps.sh view" >&2
    echo "then: kernelshark -s $session" >&2
    exit 1
fi
echo "kernelshark -s $session"
exec kernelshark -s "$session"
