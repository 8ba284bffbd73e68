#!/usr/bin/env bash
# The published study's 2 x 2 as factor effects (scenarios/python-gil-2x2.ini: the scan in a thread or a
# process x the program on 1 or 2 CPUs, 3 interleaved runs per cell), then the published figures beside
# the measured ones: each cell's control rate, both factors' main effects and their interaction on the
# rate (a difference in Hz) and on the command interval's p99 (a ratio), and what each cell's latency tail
# is made of. Run from the repository root, as root:  sudo scripts/python-gil-2x2.sh [--runs N] [--duration D]
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
command -v /usr/bin/python3 >/dev/null || { echo "python-gil-2x2.sh: needs Debian's python3" >&2; exit 2; }
out=${OUT:-$here/traces}
"$bin" sweep scenarios/python-gil-2x2.ini --out "$out" "$@" || rc=$?
[ "${rc:-0}" -le 3 ] || exit "$rc"
/usr/bin/python3 - "$out/python-gil-2x2/latest/sweep.json" <<'PY'
import json, sys
sw = json.load(open(sys.argv[1]))
print("\nPublished (ROS 2, 100 Hz control beside a 60 Hz scan of 50 M sin(); 5 interleaved runs per cell):")
print("  C++     4 threads 98.84 Hz   32 threads 99.48 Hz")
print("  Python  4 threads  7.62 Hz   32 threads  7.95 Hz   (threads: +0.33 Hz, Welch t = 0.27)")
print(f"\nMeasured here (examples/python_gil.py, {sw['runs_per_condition']} interleaved runs per cell; control rate, mean +- sd):")
for c in sw["conditions"]:
    r = c["stats"].get("ros.control", {}).get("rate_hz", {})
    print(f"  {c['label']:14s} " + (f"{r['mean']:7.2f} +- {r['stddev']:5.2f} Hz" if r.get("n") else "(no usable run)"))
def fmt(t, scale):
    lv = f"{t['factor']} {t['reference']} -> {t['level']}"
    if t["kind"] == "interaction":
        lv += f" x {t['factor2']} {t['reference2']} -> {t['level2']}"
    if t["kind"] == "simple":
        lv += f" (at {t['at']['factor']} = {t['at']['level']})"
    unit = " Hz" if scale == "difference" else ""
    est = f"{t['estimate']:+.2f}{unit}" if scale == "difference" else f"x {t['estimate']:.3g}"
    ci = t.get("ci") or [float("nan")] * 2
    ci = f"{ci[0]:+.2f} to {ci[1]:+.2f}{unit}" if scale == "difference" else f"{ci[0]:.3g}-{ci[1]:.3g}"
    p = t.get("p_holm", t.get("p"))
    return f"    {t['kind']:11s} {lv}: {est} (95% CI {ci}), p = {p:.3g}"
for metric in ("rate_hz", "period.p99"):
    for e in sw.get("effects", []):
        if e["thread"] != "ros.control" or e["metric"] != metric:
            continue
        print(f"\nros.control {metric} ({e['model']}, {e.get('runs', 0)} runs): {e['status']} {e.get('why', '')}")
        for t in e.get("terms", []):
            print(fmt(t, e["scale"]))
print("\nWhat each cell's latency tail is made of (its runs pooled):")
for c in sw["conditions"]:
    t = c.get("tail", {}).get("ros.control")
    if not t:
        print(f"  {c['label']:14s} (no tail: untraced, or not computed)")
        continue
    causes = ", ".join(f"{x['cause']} {100 * x['share']:.0f}%" for x in t["excess"]["causes"][:3])
    print(f"  {c['label']:14s} {t['cycles']} tail cycles of {t['measured_cycles']} ({t['misses']} missed), "
          f"their latency over p50: {causes}")
    if t["misses"]:  # where every cycle misses, p50 is itself late: the misses' whole responses say why
        causes = ", ".join(f"{x['cause']} {100 * x['share']:.0f}%" for x in t["response"]["causes"][:3])
        print(f"  {'':14s} the misses' responses: {causes}")
PY
