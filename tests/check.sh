#!/usr/bin/env bash
# `make check`: every test, in the lanes named (host, rt), each lane's counts, then one closing line that
# counts them all: "check: N passed, N failed, N skipped". Exit 0 only when nothing failed.
#   host: this kernel: unit tests, the scenario parser's fuzz target (FUZZ_SECONDS, default 60), the
#         integration tests as root (tests/run.sh)
#   rt:   a freshly booted PREEMPT_RT guest with cgroup v2 alone (tests/rt/guest.sh), the integration
#         tests marked `rt`, the restore test first. A guest that cannot start is a failure with its
#         reason, never a skip. RT_LANE_TIMEOUT (default 900 s) bounds it; a stalled guest is booted
#         again once (RT_LANE_TRIES, default 2 guests in all). RT_LANE_OUT (default BUILD/rt/lane) holds
#         its console and evidence; RT_LANE_ARGS are added to pytest's arguments (tests/rt/soak.sh).
set -u
here=$(cd "$(dirname "$0")" && pwd)
repo=$(cd "$here/.." && pwd)
: "${BUILD:=$repo/build}"
export JITTERLAB=$BUILD/jitterlab UNIT_DIR=$BUILD/tests
lines=()

count() { # "LABEL: N passed, N failed, N skipped" -> "N N N"
    sed -n 's/.*: \([0-9]*\) passed, \([0-9]*\) failed, \([0-9]*\) skipped.*/\1 \2 \3/p' <<<"$1" | tail -n 1
}

host_lane() {
    local t0=$SECONDS out c f=0 p=0
    echo "== lane host: $(uname -r), $(nproc) CPUs"
    if "$here/fuzz/run.sh"; then p=1; else f=1; fi
    out=$(JITTERLAB_LANE=host "$here/run.sh" --label "lane host" 2>&1 | tee /dev/stderr | tail -n 1)
    c=($(count "$out"))
    [ ${#c[@]} -eq 3 ] || c=(0 1 0)
    lines+=("lane host: $((c[0] + p)) passed, $((c[1] + f)) failed, ${c[2]} skipped ($((SECONDS - t0)) s)")
}

rt_lane() {
    local t0=$SECONDS out c dir=${RT_LANE_OUT:-$BUILD/rt/lane} rc
    local log=$dir/console.log
    echo "== lane rt: a freshly booted PREEMPT_RT guest (tests/rt/guest.sh)"
    local tries=0 note=""
    while :; do
        rm -f "$log"
        "$here/rt/guest.sh" run --out "$dir" --timeout "${RT_LANE_TIMEOUT:-900}" -- \
            "JITTERLAB=$JITTERLAB UNIT_DIR=$UNIT_DIR tests/run.sh --integration --label 'lane rt' -p timeout --timeout=300${RT_LANE_ARGS:+ $RT_LANE_ARGS}"
        rc=$?
        tries=$((tries + 1))
        # a whole guest gone silent (tests/rt/guest.sh) is no test's failure: one fresh guest more, said on
        # the lane's line; a second stall counts as the lane's failure
        [ "$rc" -eq 124 ] && [ -f "$dir/stall" ] && [ "$tries" -lt "${RT_LANE_TRIES:-2}" ] || break
        cp "$log" "$dir/console-stalled.log" 2>/dev/null
        note=", after a stalled guest (console-stalled.log)"
        echo "lane rt: the guest stalled; booting a fresh one and running the lane again"
    done
    out=$(tr -d '\r' < "$log" 2>/dev/null | grep -E '^lane rt: [0-9]+ passed' | tail -n 1)
    c=($(count "$out"))
    if [ ${#c[@]} -ne 3 ] && [ "$rc" -eq 124 ] && [ -f "$dir/stall" ]; then
        c=(0 1 0)
        note+=", the guest stalled (evidence: $dir/stall-evidence.txt)"
        echo "lane rt: the guest stalled (see $log)"
    elif [ ${#c[@]} -ne 3 ]; then
        c=(0 1 0)
        echo "lane rt: the guest ended without the lane's count (exit $rc; see $log)"
    elif [ "$rc" -ne 0 ] && [ "${c[1]}" -eq 0 ]; then
        c[1]=1
        echo "lane rt: the lane exited $rc with no failed test counted (see $log)"
    elif [ "${c[0]}" -eq 0 ]; then
        c[1]=$((c[1] + 1))
        echo "lane rt: no test passed in the guest (see $log)"
    fi
    local kernel
    kernel=$(cat "$BUILD/rt/kernel/PACKAGE" 2>/dev/null || echo "no kernel")
    lines+=("lane rt: ${c[0]} passed, ${c[1]} failed, ${c[2]} skipped ($((SECONDS - t0)) s, $kernel$note)")
}

for lane in "$@"; do
    case $lane in
        host) host_lane ;;
        rt) rt_lane ;;
        *) echo "tests/check.sh: unknown lane $lane" >&2; exit 2 ;;
    esac
done
[ $# -gt 0 ] || { echo "usage: tests/check.sh host|rt..." >&2; exit 2; }
tp=0 tf=0 ts=0
echo
for l in "${lines[@]}"; do
    echo "$l"
    c=($(count "$l"))
    tp=$((tp + c[0])); tf=$((tf + c[1])); ts=$((ts + c[2]))
done
echo "check: $tp passed, $tf failed, $ts skipped"
[ "$tf" -eq 0 ] && [ "$tp" -gt 0 ]
