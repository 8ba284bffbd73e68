#!/usr/bin/env bash
# Run one lane's tests: cmocka unit tests, then the integration tests (pytest, real binary, as root).
# Prints one closing line: "LABEL: N passed, N failed, N skipped" (LABEL: check). Exit 0 only when
# nothing failed. The integration tests pick their lane from JITTERLAB_LANE (tests/rt/inside.sh sets
# "rt" in the PREEMPT_RT guest; conftest.py selects by the pytest markers `rt` and `needs`).
#   tests/run.sh [--unit|--integration] [--label LABEL] [PYTEST_ARGS...]
set -u
here=$(cd "$(dirname "$0")" && pwd)
: "${JITTERLAB:=$here/../build/jitterlab}"
: "${UNIT_DIR:=$here/../build/tests}"
export JITTERLAB
mode=all
case "${1:-}" in --unit) mode=unit; shift ;; --integration) mode=integration; shift ;; esac
label=check
if [ "${1:-}" = --label ]; then label=$2; shift 2; fi

passed=0 failed=0 skipped=0
if [ "$mode" != integration ]; then
    for t in "$UNIT_DIR"/test_*; do
        [ -x "$t" ] || continue
        out=$("$t" 2>&1); rc=$?
        p=$(printf '%s\n' "$out" | sed -n 's/^\[  PASSED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        f=$(printf '%s\n' "$out" | sed -n 's/^\[  FAILED  \] \([0-9]*\) test.*/\1/p' | tail -1)
        s=$(printf '%s\n' "$out" | sed -n 's/^\[  SKIPPED \] \([0-9]*\) test.*/\1/p' | tail -1)
        passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
        if [ $rc -ne 0 ] && [ -z "$f" ]; then failed=$((failed + 1)); fi
        if [ $rc -ne 0 ]; then printf '%s\n' "$out"; fi
        echo "unit $(basename "$t"): ${p:-0} passed, ${f:-0} failed"
    done
fi
if [ "$mode" != unit ]; then
    if [ "$(id -u)" -ne 0 ]; then
        echo "integration tests need root (they set real-time policies): run sudo make check" >&2
        failed=$((failed + 1))
    else
        log=$(mktemp)
        /usr/bin/python3 -m pytest -q -rs -p no:cacheprovider "$here/integration" "$@" 2>&1 | tee "$log"
        line=$(grep -E '^(=+ )?[0-9]+ (passed|failed|skipped|error)' "$log" | tail -1)
        p=$(printf '%s' "$line" | grep -oE '[0-9]+ passed' | grep -oE '[0-9]+')
        f=$(printf '%s' "$line" | grep -oE '[0-9]+ (failed|error)' | grep -oE '[0-9]+' | awk '{s+=$1} END {print s+0}')
        s=$(printf '%s' "$line" | grep -oE '[0-9]+ skipped' | grep -oE '[0-9]+')
        [ -n "$line" ] || f=1
        passed=$((passed + ${p:-0})); failed=$((failed + ${f:-0})); skipped=$((skipped + ${s:-0}))
        rm -f "$log"
    fi
fi
echo "$label: $passed passed, $failed failed, $skipped skipped"
[ "$failed" -eq 0 ] && [ "$passed" -gt 0 ]
