#!/usr/bin/env bash
# The published executor experiments (issue 13) beside jitterlab's figures and the model's expectation:
# isolation, polling (both published cases), queue depth, control-vs-scan on a pool (4 and 32 threads, and
# one group). Run from the repository root, as root:  sudo scripts/executor-experiments.sh
# (about a minute: 4 s runs; DURATION=10s for longer ones). Figures, never pass/fail.
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
d=${DURATION:-4s}
tmp=$(mktemp -d /tmp/jitterlab-exec-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
run() { # NAME SCENARIO ARGS...: the run's summary.json into $tmp/NAME.json
    local name=$1 sc=$2
    shift 2
    timeout 300 "$bin" run "$sc" --duration "$d" --out "$tmp/out" --json -q "$@" >"$tmp/$name.json" 2>"$tmp/$name.err" || true
}
run iso scenarios/isolation.ini
run poll1 scenarios/polling.ini
run poll2 scenarios/polling.ini --set sensor.period=313ms --set poller.period=20ms
run depth scenarios/queue-depth.ini
run pool4 scenarios/control-vs-scan-executor.ini
run pool32 scenarios/control-vs-scan-executor.ini --set pool.threads=32
run group scenarios/control-vs-scan-executor.ini --set control.group=scan
run sync_slop scenarios/sync.ini
run sync_approx scenarios/sync.ini --set fused.algorithm=approximate --set fused.max_interval=20ms
run chain scenarios/chain.ini
# where a comparison matters: interleaved runs and Welch's test (RUNS per condition, default 3)
sweep() { # NAME SCENARIO: its sweep.json as $tmp/NAME.sweep.json
    local name=$1 sc=$2
    timeout 900 "$bin" sweep "$sc" --duration "$d" --runs "${RUNS:-3}" --out "$tmp/sw-$name" --json -q \
        >"$tmp/$name.sweep.json" 2>"$tmp/$name.err" || true
}
sweep pool scenarios/control-vs-scan-executor.ini
sweep kernel scenarios/isolation-kernel.ini
/usr/bin/python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def load(n):
    try:
        return json.load(open(os.path.join(tmp, n + ".json")))
    except (OSError, ValueError):
        return None
def th(s, name):
    return next((t for t in (s or {}).get("threads", []) if t["name"] == name), {})
def ms(ns):
    return "-" if ns is None else f"{ns / 1e6:.2f} ms"
print("experiment                         published                 model                      measured")
s = load("iso")
print(f"isolation: urgent, shared          mean 221.76 ms (max 302.9) 150.1 or 300.1 ms by order  "
      f"mean {ms(th(s, 'urgent').get('period_ns_stats', {}).get('mean'))} (max {ms(th(s, 'urgent').get('period_ns_stats', {}).get('max'))})")
print(f"isolation: urgent, own executor    20.00 ms (19.02-21.04)    20 ms                      "
      f"mean {ms(th(s, 'isolated').get('period_ns_stats', {}).get('mean'))} (max {ms(th(s, 'isolated').get('period_ns_stats', {}).get('max'))})")
for n, tp, tq, pub in (("poll1", 20, 103, "+11.0 ms"), ("poll2", 313, 20, "+10.4 ms")):
    s = load(n)
    lst, pol = th(s, "listener"), th(s, "poller")
    add = pol.get("age_ns", {}).get("mean", 0) - lst.get("age_ns", {}).get("mean", 0) if pol and lst else None
    m = pol.get("messages", {})
    frac = m["consumed"] / m["published"] if m.get("published") else 0
    print(f"polling Tp={tp} Tq={tq} ms: added age  {pub:25s} +{min(tp, tq) / 2:.1f} ms, consumed {min(1, tp / tq):.2f}   "
          f"{'+' + ms(add) if add is not None else '-'}, consumed {frac:.2f} (never {m.get('never_consumed', '-')})")
s = load("depth")
for n in ("sub_deep", "sub_shallow"):
    t = th(s, n)
    m = t.get("messages", {})
    print(f"queue depth: {n:21s} -                          {'100 ms' if n == 'sub_deep' else 'fresh':26s} "
          f"age {ms(t.get('age_ns', {}).get('mean'))}, dropped {m.get('dropped', '-')} of {m.get('published', '-')}")
for n in ("sync_slop", "sync_approx"):
    s = load(n)
    y = ((s or {}).get("syncs") or [{}])[0]
    ins = y.get("inputs", [{}, {}])
    f = th(s, "fusion")
    print(f"sync {y.get('algorithm', '?'):29s} 10.1 Hz, 100% / 33.4%, 6.8 ms 10 Hz, 100% / 33%, 7 ms        "
          f"{y.get('rate_hz', 0):.1f} Hz, {100 * ins[0].get('used_fraction', 0):.0f}% / {100 * ins[1].get('used_fraction', 0):.1f}%, "
          f"{ms(y.get('pair_diff_mean_ns'))} (max {ms(y.get('pair_diff_max_ns'))}); fused data {ms(f.get('age_ns', {}).get('mean'))} old")
s = load("chain")
c = th(s, "control").get("chain") or {}
if c:
    print(f"chain {' -> '.join(c['path']):28s} -                          bound {ms(c.get('bound_ns'))}           "
          f"data age max {ms(c['data_age_ns']['max'])}, reaction max {ms(c['reaction_ns']['max'])}, "
          f"{c['unused_inputs']} of {c['inputs']} scans reach no output")
    print("      worst output: " + " + ".join(f"{p['callback']} {ms(p['wait_ns'])} wait, {ms(p['run_ns'])} run"
                                           for p in c["worst"]["stages"]) + f" = {ms(c['worst']['e2e_ns'])}")
for n, pub in (("pool4", "98.84 +- 1.09 Hz"), ("pool32", "99.48 +- 0.37 Hz"), ("group", "about 1 per scan")):
    s = load(n)
    c = th(s, "control")
    counts = [x["callbacks_run"] for e in (s or {}).get("executors", []) for x in e["threads"]]
    nz = sum(1 for x in counts if x)
    print(f"control-vs-scan {n:18s} {pub:25s} {'100 Hz' if n != 'group' else '1 per scan':26s} "
          f"{c.get('rate_hz', 0):.2f} Hz, period p99 {ms(c.get('period_ns_stats', {}).get('p99'))}, "
          f"{nz} of {len(counts)} threads ran callbacks")
PY
/usr/bin/python3 - "$tmp" <<'PY'
import json, os, sys
tmp = sys.argv[1]
def load(n):
    try:
        return json.load(open(os.path.join(tmp, n + ".sweep.json")))
    except (OSError, ValueError):
        return None
for name, series, metric, what, pub in (
        ("pool", "control", "rate_hz", "control-vs-scan, 4 vs 32 threads: control rate", "98.84 +- 1.09 Hz, 99.48 +- 0.37 Hz"),
        ("kernel", "isolated", "period.p99", "isolated timer beside a CFS hog, other vs fifo: period p99", "- (beyond the published)")):
    sw = load(name)
    if not sw:
        print(f"{what}: no sweep (see {name}.err)")
        continue
    print(f"\n{what} ({sw.get('runs_per_condition', '?')} interleaved runs each; published {pub})")
    for c in sw["conditions"]:
        st = c.get("stats", {}).get(series, {}).get(metric, {})
        if st.get("n"):
            scale, unit = (1, "Hz") if metric == "rate_hz" else (1e6, "ms")
            print(f"  {c['label']:12s} {st['mean'] / scale:9.2f} +- {st['stddev'] / scale:6.2f} {unit}")
    for k in sw.get("comparisons", []):
        if k.get("thread") == series and k.get("metric") == metric:
            print(f"  {k['a']} -> {k['b']}: {k.get('verdict', '?')}  {k.get('text', '')}")
PY
