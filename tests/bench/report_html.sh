#!/usr/bin/env bash
# Bench: report.html of a long run, opened in Debian's headless chromium (issue 45). Figures, never pass/fail.
# A 1 kHz FIFO loop beside a FIFO 90 spinner (2 ms at 10 Hz), `trace = sched`, `samples = all` (every cycle a
# row of samples.csv), for BENCH_DURATION (10 min by default); then `report --html`'s time to write the page
# again, the page's size, the time its own script took from navigation to the last section drawn (the page
# writes it into <body data-render-ms>) and the wall time of `chromium --dump-dom` (start, load, render,
# exit), three times.
#     BENCH_DURATION=10m tests/bench/report_html.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
duration=${BENCH_DURATION:-10m}
if [ "$(id -u)" -ne 0 ]; then
    echo "report.html bench: needs root (tracefs, SCHED_FIFO); skipped"
    exit 0
fi
chromium=$(command -v chromium || true)
if [ -z "$chromium" ]; then
    echo "report.html bench: needs Debian's chromium (scripts/install-deps.sh: its opt row); skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-html-XXXXXX)
trap 'rm -rf "$tmp"' EXIT

cat >"$tmp/page.ini" <<'INI'
[run]
warmup = 500ms
trace = sched
samples = all

[thread control]
policy = fifo
priority = 80
cpus = 1
rate = 1kHz
deadline = 500us
work = spin 50us

[thread spinner]
policy = fifo
priority = 90
cpus = 1
rate = 10Hz
work = spin 2ms
measure = no
INI

echo "-- a $duration run at 1 kHz, then its page"
timeout 1200 "$bin" run "$tmp/page.ini" --duration "$duration" --out "$tmp/out" --quiet >"$tmp/run.log" 2>&1 ||
    echo "(the run exited $?: $(tail -2 "$tmp/run.log" | tr '\n' ' '))"
dir=$(readlink -f "$tmp/out/page/latest")
t0=$(date +%s.%N)
"$bin" report "$dir" --html --no-plots >/dev/null
t1=$(date +%s.%N)
rows=$(($(wc -l <"$dir/samples.csv") - 1))
awk -v r="$rows" -v c="$(stat -c %s "$dir/samples.csv")" -v h="$(stat -c %s "$dir/report.html")" -v a="$t0" -v b="$t1" \
    'BEGIN { printf "  samples.csv: %d rows, %.1f MB; report --html wrote the page in %.2f s; report.html: %.2f MB\n",
             r, c / 1048576, b - a, h / 1048576 }' 
for i in 1 2 3; do
    s0=$(date +%s.%N)
    HOME=${HOME:-/root} timeout 120 "$chromium" --headless --no-sandbox --disable-gpu --no-first-run \
        --disable-extensions --dump-dom "file://$dir/report.html" >"$tmp/dom.html" 2>/dev/null || true
    s1=$(date +%s.%N)
    ms=$(grep -o 'data-render-ms="[0-9]*"' "$tmp/dom.html" | grep -o '[0-9]*' || echo "?")
    awk -v i="$i" -v ms="$ms" -v a="$s0" -v b="$s1" \
        'BEGIN { printf "  open %d: the page drawn %s ms after navigation; chromium start to exit %.2f s\n", i, ms, b - a }' 
done
