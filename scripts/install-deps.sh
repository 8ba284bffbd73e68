#!/usr/bin/env bash
# Install what one jitterlab command needs from Debian/Ubuntu packages, and nothing else.
#
#   sudo scripts/install-deps.sh [--dry-run] [PROFILE]     PROFILE: build, run (default), view, check
#   scripts/install-deps.sh --list PROFILE                 the profile's packages, one a line
#
# Profiles (each row of the table below belongs to one; a profile takes its own rows and those it includes):
#   build  what `make` needs to build build/jitterlab                          (make install's build)
#   run    build + what a run uses: plots, cyclictest, rtla, trace-cmd          (`make run`, `make install`)
#   view   KernelShark, to open a run's session                 (scripts/open-in-kernelshark.sh offers it)
#   check  run + view + what the test lanes use: cmocka, clang's fuzzer, pytest, grpcio, man, qemu, ...
#                                                                               (`make check`, .ci/run)
#
# Rules (the user's machine is often a tuned real-time box):
#   - only missing packages are named to apt, with --no-upgrade and --no-install-recommends; nothing at all
#     runs when every package is present (no apt, no network);
#   - an upgrade of an installed package that apt would still pull in as a dependency is shown first (from
#     `apt-get -s`), before anything changes; --dry-run shows the plan and changes nothing;
#   - one line per step; apt's whole output goes to build/install-deps.log, whose path is printed on failure;
#   - every package of the profile is installed at the end, or the script says which is not and exits 1.
#     A row marked `soft` may be missing from the machine's package sources below the `check` profile
#     (rtla on distributions that do not package it), a row marked `opt` in every profile (chromium: Ubuntu
#     offers it only as a snap; the test that needs it says it skipped): then it is said, and the rest goes on.
set -euo pipefail

here=$(cd "$(dirname "$0")/.." && pwd)

# The one list. Columns: package, profile, soft|opt|- , what it is for.
read -r -d '' TABLE <<'EOF' || true
build-essential        build  -     the compiler, make
pkg-config             build  -     the build finds every library with it
libtracefs-dev         build  -     tracing instances and events (libtracefs)
libtraceevent-dev      build  -     event parsing (libtraceevent)
libtracecmd-dev        build  -     trace.dat writing and reading (libtracecmd)
libnuma-dev            build  -     CPU and node topology (libnuma)
libinih-dev            build  -     the scenario parser's INI reader (libinih)
libjson-c-dev          build  -     summary.json and every other JSON document (json-c)
libgsl-dev             build  -     statistics: percentiles, Welch, rank-sum (GSL)
zlib1g-dev             build  -     compressed sample files
python3                run    -     the Python probe (python/jitterlab_probe.py) and the scripts' helpers
procps                 run    -     ps, pgrep: the scripts find their runs
util-linux             run    -     taskset, chrt, lscpu
gnuplot-nox            run    -     the plots (*.svg) of every run and sweep
rt-tests               run    -     cyclictest and hackbench: `jitterlab cyclictest`, doctor's checks
rtla                   run    soft  timerlat and osnoise: `jitterlab cyclictest`, `doctor --noise`
trace-cmd              run    -     trace-cmd report/convert on a run's trace.dat
stress-ng              run    -     CPU, memory and cache neighbours for `exec` sections
kernelshark            view   -     the KernelShark sessions a traced run writes
clang                  check  -     the scenario parser's fuzz target (make fuzz, make check)
libclang-rt-dev        check  -     clang's fuzzer and sanitizer runtimes for it
libcmocka-dev          check  -     the unit tests (cmocka)
python3-pytest         check  -     the integration tests (pytest, Debian's /usr/bin/python3)
python3-pytest-timeout check  -     a test stuck in the RT guest fails with its stack
python3-grpcio         check  -     the gRPC chain for real (test_grpc_chain.py, scripts/grpc-chain.sh)
man-db                 check  -     `man jitterlab`: test_man.py renders the generated pages
groff-base             check  -     the same
xvfb                   check  -     KernelShark opens a session under a virtual display (test_trace.py)
xauth                  check  -     the same (xvfb-run)
qemu-system-x86        check  -     the RT lane: a freshly booted PREEMPT_RT guest (tests/rt/guest.sh)
busybox-static         check  -     the RT lane guest's /init and tools
universal-ctags        check  -     the function-length ratchet (scripts/long-functions.sh --check)
chromium               check  opt   report.html in a real browser: rendered, printed to A4, its DOM read (test_report_html.py)
EOF

# profile -> the profiles whose rows it takes
includes() {
    case $1 in
        build) echo build ;;
        run) echo build run ;;
        view) echo view ;;
        check) echo build run view check ;;
        *) return 1 ;;
    esac
}

# the profile's rows as "package soft|-" lines
rows() {
    local p inc
    inc=" $(includes "$1") "
    while read -r pkg prof soft _; do
        [ -n "$pkg" ] || continue
        case $inc in *" $prof "*) ;; *) continue ;; esac
        [ "$1" = check ] && [ "$soft" = soft ] && soft=-
        [ "$soft" = opt ] && soft=soft
        echo "$pkg $soft"
    done <<<"$TABLE"
}

say() { echo "install-deps: $*"; }
die() { echo "install-deps: $*" >&2; exit 1; }

usage() {
    sed -n '3,4p' "$0" | sed 's/^# *//' >&2
    exit 2
}

dry=0 list=0 profile=
while [ $# -gt 0 ]; do
    case $1 in
        --dry-run|-n) dry=1 ;;
        --list) list=1 ;;
        -h|--help) sed -n '2,21p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
        -*) echo "install-deps: unknown option $1" >&2; usage ;;
        *) [ -z "$profile" ] || usage; profile=$1 ;;
    esac
    shift
done
: "${profile:=run}"
includes "$profile" >/dev/null || { echo "install-deps: unknown profile '$profile' (build, run, view, check)" >&2; exit 2; }

mapfile -t want < <(rows "$profile" | cut -d' ' -f1)
if [ "$list" -eq 1 ]; then
    printf '%s\n' "${want[@]}"
    exit 0
fi

# what dpkg has installed, in one query (a package it never heard of prints nothing)
installed() {
    dpkg-query -W -f='${Package} ${Status}\n' "$@" 2>/dev/null | awk '$NF == "installed" && $(NF-1) == "ok" {print $1}' || true
}
mapfile -t have < <(installed "${want[@]}")
missing=()
for p in "${want[@]}"; do
    case " ${have[*]} " in *" $p "*) ;; *) missing+=("$p") ;; esac
done
if [ ${#missing[@]} -eq 0 ]; then
    say "$profile: all ${#want[@]} packages present"
    exit 0
fi
say "$profile: ${#missing[@]} of ${#want[@]} packages missing: ${missing[*]}"

if [ "$dry" -eq 0 ] && [ "$(id -u)" -ne 0 ]; then
    echo "install-deps: run as root: sudo $0 $profile (or see the plan first: $0 --dry-run $profile)" >&2
    exit 1
fi

# apt's output goes to the log, never to the terminal. The log is made fresh (mktemp: never through a link
# that is already there) and renamed into place at the end.
if [ "$dry" -eq 1 ]; then
    logdir=${TMPDIR:-/tmp}
else
    logdir=${JL_DEPS_LOGDIR:-$here/build}
    mkdir -p "$logdir"
fi
log="$logdir/install-deps.log"
tmp=$(mktemp "$logdir/.install-deps.log.XXXXXX")
[ "$dry" -eq 0 ] || trap 'rm -f "$tmp"' EXIT
finish_log() {
    mv -fT "$tmp" "$log" 2>/dev/null || log=$tmp
    [ -z "${SUDO_UID:-}" ] || chown -h "$SUDO_UID:${SUDO_GID:-$SUDO_UID}" "$log" 2>/dev/null || true
}
fail() { # MESSAGE: the log's path and its last lines, then exit 1
    finish_log
    echo "install-deps: $1 (apt's log: $log)" >&2
    tail -n 5 "$log" | sed 's/^/    /' >&2
    exit 1
}
export DEBIAN_FRONTEND=noninteractive
apt_opts=(-y --no-install-recommends --no-upgrade -o Dpkg::Use-Pty=0)

# apt's view of the packages (no candidate: the sources do not have it). An update only when a missing
# package has no candidate yet: a machine that just ran one is not sent to the network again.
candidates() {
    apt-cache policy "$@" 2>/dev/null | awk '/^[^ ]/ {p=$1; sub(":$", "", p)} /Candidate:/ && $2 != "(none)" {print p}'
}
mapfile -t cand < <(candidates "${missing[@]}")
stale=0
if [ ${#cand[@]} -lt ${#missing[@]} ]; then
    if [ "$dry" -eq 1 ]; then
        say "would run apt-get update (the package lists lack $(( ${#missing[@]} - ${#cand[@]} )) of them)"
        stale=1
    else
        say "apt-get update"
        apt-get update >>"$tmp" 2>&1 || fail "apt-get update failed"
        mapfile -t cand < <(candidates "${missing[@]}")
    fi
fi

# a package the sources do not offer: a soft row is said and left out; any other fails now, before apt
soft=() absent=() get=()
for p in "${missing[@]}"; do
    if [[ " ${cand[*]} " == *" $p "* ]] || [ "$stale" -eq 1 ]; then
        get+=("$p")
    elif rows "$profile" | grep -qx "$p soft"; then
        soft+=("$p")
    else
        absent+=("$p")
    fi
done
[ ${#soft[@]} -eq 0 ] || say "not offered by this machine's package sources, going on without: ${soft[*]}"
if [ ${#absent[@]} -gt 0 ] && [ "$dry" -eq 0 ]; then
    fail "not offered by this machine's package sources: ${absent[*]}"
elif [ ${#absent[@]} -gt 0 ]; then
    say "would fail: not offered by this machine's package sources: ${absent[*]}"
fi
if [ ${#get[@]} -eq 0 ]; then
    [ "$dry" -eq 1 ] || finish_log
    exit 0
fi

if [ "$stale" -eq 1 ]; then
    say "would install ${#get[@]} package(s) after the update: ${get[*]}"
    say "(the upgrades they would pull in are known after an update: sudo apt-get update, then --dry-run again)"
    exit 0
fi
# what apt would do, simulated: new packages, and upgrades of installed ones it would pull in
sim=$(apt-get -s "${apt_opts[@]}" install "${get[@]}" 2>&1) || { printf '%s\n' "$sim" >>"$tmp"; fail "apt-get cannot install ${get[*]}"; }
printf '%s\n' "$sim" >>"$tmp"
new=$(grep -c '^Inst [^ ]* (' <<<"$sim" || true)
upgrades=$(sed -n 's/^Inst \([^ ]*\) \[\([^]]*\)\] (\([^ ]*\).*/\1 (\2 -> \3)/p' <<<"$sim")
if [ -n "$upgrades" ]; then
    say "apt would also upgrade $(wc -l <<<"$upgrades") installed package(s) that these depend on:"
    sed 's/^/    /' <<<"$upgrades"
fi
if [ "$dry" -eq 1 ]; then
    say "would install ${#get[@]} package(s), $new with their dependencies: ${get[*]}"
    exit 0
fi

t0=$SECONDS
say "installing ${#get[@]} package(s), $new with their dependencies ..."
apt-get "${apt_opts[@]}" install "${get[@]}" >>"$tmp" 2>&1 || fail "apt-get install failed"

# every package of the profile is installed now, or this says which is not
mapfile -t have < <(installed "${want[@]}")
left=()
for p in "${want[@]}"; do
    [[ " ${have[*]} " == *" $p "* ]] || [[ " ${soft[*]} " == *" $p "* ]] || left+=("$p")
done
[ ${#left[@]} -eq 0 ] || fail "still not installed after apt-get: ${left[*]}"
finish_log
say "$profile: done in $((SECONDS - t0)) s (apt's log: $log)"
