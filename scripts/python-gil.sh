#!/usr/bin/env bash
# The published ROS 2 Python experiment, for real (scenarios/python-gil.ini: its comments say what each
# condition is). Runs the interleaved sweep with Debian's python3 and the probe, then prints the published
# table beside the measured one, the sweep's verdicts, and the trace's explanation of one late control
# tick. Run from the repository root, as root:  sudo scripts/python-gil.sh [--runs N] [--duration D]
# (defaults: the scenario's, 3 runs of 8 s per condition: about 3 minutes on 2 CPUs).
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
command -v /usr/bin/python3 >/dev/null || { echo "python-gil.sh: needs Debian's python3" >&2; exit 2; }
out=${OUT:-$here/traces}
"$bin" sweep scenarios/python-gil.ini --out "$out" "$@" || rc=$?
[ "${rc:-0}" -le 3 ] || exit "$rc"
/usr/bin/python3 - "$out/python-gil/latest/sweep.json" <<'PY'
import json, re, statistics, sys
sw = json.load(open(sys.argv[1]))
def scans(c):
    """the program's own scan durations (its log), every complete scan of every run: a scan of 50 M sin()
    takes seconds, so few fall inside a run's measured window"""
    out = []
    for run in c["runs"]:
        try:
            out += [float(x) for x in re.findall(r"^scan \d+: ([0-9.]+) s$", open(run["dir"] + "/ros.log").read(), re.M)]
        except (OSError, KeyError):
            pass
    return out
def stat(c, series, metric):
    return c["stats"].get(series, {}).get(metric, {})
print("\nPublished (ROS 2, 100 Hz control beside a 60 Hz scan of 50 M sin(); mean +- sd over runs):")
print("  C++                          98.84 +- 1.09 Hz   (CV  1.1%)   one scan 0.63 s")
print("  Python                        7.62 +- 1.19 Hz   (CV 15.6%)   one scan 3.07 s   command interval p99 281 ms")
print("  Python, 32 executor threads   7.95 +- 2.52 Hz   (CV 31.7%)")
print(f"\nMeasured here (examples/python_gil.py under jitterlab, {sw['runs_per_condition']} interleaved runs each):")
print(f"  {'condition':16s} {'control Hz':>18s} {'CV':>7s} {'period p99':>11s} {'latency p99':>12s} {'one scan':>9s}  (median, the program's own timing)")
for c in sw["conditions"]:
    r = stat(c, "ros.control", "rate_hz")
    p = stat(c, "ros.control", "period.p99")
    l = stat(c, "ros.control", "latency.p99")
    sc = scans(c)
    if not r.get("n"):
        print(f"  {c['label']:16s} (no usable run)")
        continue
    scan = f"{statistics.median(sc):.2f} s" if sc else "-"
    print(f"  {c['label']:16s} {r['mean']:8.2f} +- {r['stddev']:5.2f} {100 * r['cv']:6.1f}% "
          f"{p.get('mean', 0) / 1e6:8.1f} ms {l.get('mean', 0) / 1e6:9.2f} ms {scan:>9s}")
print("\nVerdicts (Welch, 95%), control rate:")
for k in sw.get("comparisons", []):
    if k.get("thread") == "ros.control" and k.get("metric") == "rate_hz":
        print(f"  {k['a']} -> {k['b']}: {k.get('verdict', '?')}  {k.get('text', '')}")
worst = None
# the late tick of the one-process, hand-offs condition (the published case), else the latest of any
for c in sorted(sw["conditions"], key=lambda c: c["label"] != "thread-h4"):
    if worst:
        break
    for run in c["runs"]:
        try:
            s = json.load(open(run["dir"] + "/summary.json"))
        except (OSError, KeyError, ValueError):
            continue
        for w in s.get("trace", {}).get("worst", []):
            if w.get("thread") == "ros.control" and (worst is None or w["latency_ns"] > worst[1]["latency_ns"]):
                worst = (c["label"], w)
if worst:
    print(f"\nA late control tick, explained ({worst[0]}):\n  {worst[1].get('text', '')}")
PY
