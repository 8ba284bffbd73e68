#!/usr/bin/env bash
# Run the RT lane N times, each in a freshly booted guest without the lane's retry, and count how each
# ended: clean, a test failed, or the guest stalled (silent for RT_STALL_S). For issue 38's counts, never
# part of `make check`. Each lane is `tests/check.sh rt` itself (RT_LANE_TRIES=1), its console and a
# stall's evidence kept under build/rt/soak/LABEL/N/; one line per lane (the lane's own), then the totals,
# also appended to build/rt/soak/results.txt.
#
#   tests/rt/soak.sh [-n N] [-l LABEL] [-- PYTEST-ARGS...]
#       -n N        lanes to run (default 20)
#       -l LABEL    names this set of lanes in the results (default: the guest's settings)
#       PYTEST-ARGS are added to the lane's: `-- -k pi_lock` runs a subset
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
        *) sed -n '2,15s/^# \{0,1\}//p' "$0" >&2; exit 2 ;;
    esac
done
case $n in ''|*[!0-9]*) echo "soak: -n $n: expected a number of lanes" >&2; exit 2 ;; esac
extra=""
for a in "$@"; do extra+=" $(printf '%q' "$a")"; done
settings="tcg=${RT_TCG:-multi} cpu=${RT_CPU:-max} smp=${RT_SMP:-2} append=${RT_APPEND:-none}${extra:+ pytest:$extra}"
# a folder name whatever the label says (no '/', no '..': the folder is removed and made again)
label=$(printf '%s' "${label:-$settings}" | tr -c 'A-Za-z0-9=.-' '_' | sed 's/^\.*//')
build=$repo/build
dir=$build/rt/soak/${label:-lanes}
mkdir -p "$dir"
[ -x "$build/jitterlab" ] || { echo "soak: build/jitterlab is missing (make)"; exit 2; }
clean=0 failed=0 stalled=0
say() { echo "$*"; echo "$*" >> "$build/rt/soak/results.txt"; }
say "soak $(date -u +%FT%TZ) $label: $n lanes ($settings)"
for i in $(seq 1 "$n"); do
    out=$dir/$i
    rm -rf "$out"
    RT_LANE_OUT=$out RT_LANE_TRIES=1 RT_LANE_ARGS="${extra# }" BUILD=$build "$repo/tests/check.sh" rt > "$out.log" 2>&1
    rc=$?
    line=$(grep -E '^lane rt: [0-9]+ passed' "$out.log" | tail -n 1)
    if [ -f "$out/stall" ]; then
        stalled=$((stalled + 1))
        # the guest's last heartbeat, and the last jitterlab command its task list showed
        line+="; STALLED after $(tr -d '\r' < "$out/console.log" | grep -aoE 'rt-guest: [0-9.]+ s up' | tail -n 1)"
        line+=", last seen: $(tr -d '\r' < "$out/console.log" | grep -aoE 'jitterlab (run|cyclictest|sweep) [^ ]+' | tail -n 1)"
    elif [ "$rc" -eq 0 ]; then
        clean=$((clean + 1))
    else
        failed=$((failed + 1))
        line+="; FAILED$(grep -E '^lane rt: [a-z]' "$out.log" | tail -n 1 | sed 's/^lane rt:/:/')"
    fi
    say "  $i/$n $line"
done
say "soak $label: $n lanes: $clean clean, $failed failed, $stalled stalled"
[ "$stalled" -eq 0 ] && [ "$failed" -eq 0 ]
