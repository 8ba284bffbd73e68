#!/usr/bin/env bash
# Run the RT lane N times, each in a freshly booted guest, and count how each ended: clean, a test failed,
# or the guest stalled (tests/rt/guest.sh exit 124: silent for RT_STALL_S). For issue 38's counts, never
# part of `make check`. Every lane keeps its console (and at a stall the monitor's evidence) under
# build/rt/soak/LABEL/N/; one line per lane, then the totals, also appended to build/rt/soak/results.txt.
#
#   tests/rt/soak.sh [-n N] [-l LABEL] [-- PYTEST-ARGS...]
#       -n N        lanes to run (default 20)
#       -l LABEL    names this set of lanes in the results (default: the guest's settings)
#       PYTEST-ARGS replace nothing, they are added: `-- -k "trace or probe"` runs a subset
#
# The guest's settings come from the environment tests/rt/guest.sh reads (RT_TCG, RT_CPU, RT_APPEND,
# RT_SMP, RT_STALL_S). Run as root after `make`; each lane takes about 4 minutes under TCG on 2 CPUs.
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
n=20 label=""
while [ $# -gt 0 ]; do
    case $1 in
        -n) n=$2; shift 2 ;;
        -l) label=$2; shift 2 ;;
        --) shift; break ;;
        *) sed -n '2,14s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
extra=""
for a in "$@"; do extra+=" $(printf '%q' "$a")"; done
settings="tcg=${RT_TCG:-multi} cpu=${RT_CPU:-max} smp=${RT_SMP:-2} append=${RT_APPEND:-none}${extra:+ pytest:$extra}"
[ -n "$label" ] || label=$(printf '%s' "$settings" | tr -c 'A-Za-z0-9=.-' '_')
build=$repo/build
dir=$build/rt/soak/$label
mkdir -p "$dir"
[ -x "$build/jitterlab" ] || { echo "soak: build/jitterlab is missing (make)"; exit 2; }
clean=0 failed=0 stalled=0 other=0
say() { echo "$*"; echo "$*" >> "$build/rt/soak/results.txt"; }
say "soak $(date -u +%FT%TZ) $label: $n lanes ($settings)"
for i in $(seq 1 "$n"); do
    out=$dir/$i t0=$SECONDS
    rm -rf "$out"
    "$repo/tests/rt/guest.sh" run --out "$out" --timeout "${RT_LANE_TIMEOUT:-900}" -- \
        "JITTERLAB=$build/jitterlab UNIT_DIR=$build/tests tests/run.sh --integration --label 'lane rt' -p timeout --timeout=300$extra" \
        > "$out.log" 2>&1
    rc=$?
    count=$(tr -d '\r' < "$out/console.log" 2>/dev/null | grep -E '^lane rt: [0-9]+ passed' | tail -n 1)
    if [ "$rc" -eq 124 ] && [ -f "$out/stall" ]; then
        stalled=$((stalled + 1))
        # the guest's last heartbeat, and the last jitterlab command its task list showed
        what="STALLED after $(tr -d '\r' < "$out/console.log" | grep -aoE 'rt-guest: [0-9.]+ s up' | tail -n 1)"
        what+=", last seen: $(tr -d '\r' < "$out/console.log" | grep -aoE 'jitterlab (run|cyclictest|sweep) [^ ]+' | tail -n 1)"
        what+="; $(grep -m1 'the console grew' "$out/stall-evidence.txt" 2>/dev/null | sed 's/^== //')"
    elif [ "$rc" -eq 0 ] && [ -n "$count" ]; then
        clean=$((clean + 1)); what="clean: ${count#lane rt: }"
    elif [ -n "$count" ]; then
        failed=$((failed + 1)); what="FAILED: ${count#lane rt: }"
    else
        other=$((other + 1)); what="the guest failed (exit $rc, $(tail -n 1 "$out.log"))"
    fi
    say "  lane $i/$n: $what ($((SECONDS - t0)) s)"
done
say "soak $label: $n lanes: $clean clean, $failed with a failed test, $stalled stalled, $other other"
[ "$stalled" -eq 0 ] && [ "$failed" -eq 0 ] && [ "$other" -eq 0 ]
