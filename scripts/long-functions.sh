#!/usr/bin/env bash
# long-functions: the functions of rt/ and affinity/ longer than 80 lines, longest first, from ctags' start and
# end lines (a function's lines from its signature to its closing brace; data tables are not functions).
#   scripts/long-functions.sh [ROOT]            list them: lines, function, file:line (ROOT: the repository)
#   scripts/long-functions.sh --check [ROOT]    the ratchet `make check` runs: exit 1 when more than LIMIT
#                                               (JL_LONG_FUNCTIONS_LIMIT=N for a test) are over 80
# LIMIT may only go down: lower it in the change that shortens one (docs/design-notes.md, "The house").
# Exit 2 when it cannot run (no Universal Ctags: scripts/install-deps.sh check installs it).
set -euo pipefail
LIMIT=${JL_LONG_FUNCTIONS_LIMIT:-0}
MAX_LINES=80
check=false
if [ "${1:-}" = "--check" ]; then
    check=true
    shift
fi
cd "${1:-$(dirname "$0")/..}"
if ! ctags --version 2>/dev/null | grep -q "Universal Ctags"; then
    echo "long-functions: Universal Ctags is needed (sudo scripts/install-deps.sh check)" >&2
    exit 2
fi
list=$(find rt affinity -name '*.c' -print0 | sort -z | xargs -0 ctags --c-kinds=f --fields=+ne -o - |
    awk -F'\t' -v max="$MAX_LINES" '{
        line = end = 0
        for (i = 4; i <= NF; i++) {
            if ($i ~ /^line:/) line = substr($i, 6)
            if ($i ~ /^end:/) end = substr($i, 5)
        }
        if (line && end && end - line + 1 > max) printf "%5d  %s  %s:%d\n", end - line + 1, $1, $2, line
    }' | sort -rn)
n=$(printf '%s' "$list" | grep -c . || true)
if $check; then
    if [ "$n" -gt "$LIMIT" ]; then
        echo "long-functions: $n functions are over $MAX_LINES lines, more than the $LIMIT allowed; shorten the new ones:" >&2
        printf '%s\n' "$list" >&2
        exit 1
    fi
    echo "long-functions: $n over $MAX_LINES lines (at most $LIMIT)"
    exit 0
fi
printf '%s\n' "$list"
echo "($n functions over $MAX_LINES lines; the ratchet allows $LIMIT)"
