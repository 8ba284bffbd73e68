#!/usr/bin/env bash
# Thread-pool exhaustion (issue 14) at the published scale: service B with 4 workers serves `price`
# (calls C, which takes 5 s) and `ping`; 8 price requests at once with a 1 s client deadline, pings every
# 0.2 s. Prints the published figures (Python gRPC) beside jitterlab's for: no load, the load without
# propagation, the deadline propagated (less 50 ms), a separate pool for ping, and `limit = 4`.
# Figures, never pass/fail. Run from the repository root, as root:  sudo scripts/pool-exhaustion.sh
# (about a minute; D=1s for the scaled variant the tests run).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
d=${D:-5s}
tmp=$(mktemp -d /tmp/jitterlab-pool-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run() { # NAME SET...: the run's summary.json and requests.csv into $tmp/NAME.*
    local name=$1
    shift
    local args=(--set "quote.work=sleep $d" --set run.duration=12s --set run.grace=10s)
    for s in "$@"; do args+=(--set "$s"); done
    timeout 120 "$bin" run scenarios/pool-exhaustion.ini "${args[@]}" --out "$tmp/out" --json -q >"$tmp/$name.json" \
        2>"$tmp/$name.err" || true
    cp "$tmp"/out/pool-exhaustion/latest/requests.csv "$tmp/$name.csv" 2>/dev/null || true
}
run idle orders.start=60s
run load
run propagated price.deadline_propagation=yes
run own_pool ping.executor=b_ping
run limit price_q.limit=4
/usr/bin/python3 - "$tmp" <<'PY'
import csv, json, os, sys
tmp = sys.argv[1]
def rows(n):
    try:
        return list(csv.DictReader(open(os.path.join(tmp, n + ".csv"))))
    except OSError:
        return []
def s(x):
    return f"{x / 1e9:.3f} s"
print(f"{'condition':34s} {'published (Python gRPC)':38s} measured")
for name, what, pub in (
        ("idle", "pings, no price load", "0.001-0.016 s"),
        ("load", "pings beside 8 price calls", "7.9-10.1 s"),
        ("propagated", "pings, deadline propagated", "peak 0.719-0.771 s, the rest <= 0.023 s"),
        ("own_pool", "pings, ping on its own pool", "- (the fix, not published)"),
        ("limit", "pings, price_q.limit = 4", "- (the fix, not published)")):
    r = rows(name)
    pings = sorted(int(x["end_ns"]) - int(x["created_ns"]) for x in r if x["queue"] == "ping_q" and int(x["end_ns"]))
    orders = [x for x in r if x["source"] == "orders"]
    st = {}
    for x in orders:
        st[x["status"]] = st.get(x["status"], 0) + 1
    wasted = sum(int(x["wasted_ns"]) for x in r if x["queue"] in ("price_q", "quote_q"))
    if not pings:
        print(f"{what:34s} {pub:38s} (no run: see {name}.err)")
        continue
    print(f"{what:34s} {pub:38s} {s(pings[0])} - {s(pings[-1])} (median {s(pings[len(pings) // 2])})"
          + (f"; price: {', '.join(f'{v} {k}' for k, v in sorted(st.items()))}; wasted {s(wasted)}" if orders else ""))
r = rows("load")
orders = [x for x in r if x["source"] == "orders"]
if orders:
    print(f"\nclient deadline set, not propagated: published 'the client gave up after 1.005 s while B and C worked 5 s "
          f"for nothing'; measured: each client gave up at {s(int(orders[0]['deadline_ns']) - int(orders[0]['created_ns']))}, "
          f"B and C then worked {s(sum(int(x['wasted_ns']) for x in r if x['queue'] in ('price_q', 'quote_q')) / len(orders))} "
          f"per request after it")
PY
