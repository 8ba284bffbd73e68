#!/usr/bin/env bash
# Run the scenario parser's fuzz target (build/fuzz/fuzz_scenario) for FUZZ_SECONDS (default 60) on the
# scenarios and seeds, with the dictionary the section registry gives (`jitterlab list --dict`). One
# closing line: "fuzz: N inputs in Ss, no crash", or the log's tail and "fuzz: FAILED". Used by `make
# fuzz` and by `make check`'s host lane. JITTERLAB names the binary (default build/jitterlab).
set -u
repo=$(cd "$(dirname "$0")/../.." && pwd)
bin=$repo/build/fuzz/fuzz_scenario secs=${FUZZ_SECONDS:-60} dir=$repo/build/fuzz
log=$dir/run.log
if [ ! -x "$bin" ]; then
    echo "fuzz: $bin was not built (clang's fuzzer runtime: scripts/install-deps.sh)"; exit 1
fi
"${JITTERLAB:-$repo/build/jitterlab}" list --dict > "$dir/scenario.dict" || exit 1
mkdir -p "$dir/corpus"
cp "$repo"/scenarios/*.ini "$repo"/tests/fuzz/seeds/* "$dir/corpus/" 2>/dev/null
if "$bin" -max_total_time="$secs" -timeout=5 -rss_limit_mb=2048 -artifact_prefix="$dir/" -print_final_stats=1 \
    -dict="$dir/scenario.dict" "$dir/corpus" > "$log" 2>&1; then
    echo "fuzz: $(sed -n 's/^stat::number_of_executed_units: *//p' "$log") inputs in ${secs}s, no crash"
else
    tail -n 30 "$log"; echo "fuzz: FAILED (the input is in $dir/, the log in $log)"; exit 1
fi
