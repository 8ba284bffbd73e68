#!/usr/bin/env bash
# Bench: long runs (issue 15). Figures, never pass/fail. Needs root.
#  1. Memory flat in the duration: the peak RSS of scenarios/long-run.ini (4 loops at 1 kHz) for a short
#     and a long run, untraced (rings: samples_memory below what the run needs), traced (trace = sched)
#     keeping every page, and traced with the flight recorder (trace_keep = worst: disk bounded), with
#     what each wrote (samples.csv, trace.dat).
#  2. The projection a 24 h run of the same scenario states before it starts (it is accepted).
#  3. The live analysis (trace_keep = all): what it fed while the run went, how fast, how far behind, and
#     what was left after the run; then the event rate it keeps up with as the loops go faster.
#  (analyze against trace-cmd report: tests/bench/floor.sh.)
#     BENCH_SHORT=20s BENCH_LONG=60s tests/bench/long_runs.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
short=${BENCH_SHORT:-20s}
long=${BENCH_LONG:-60s}
if [ "$(id -u)" -ne 0 ]; then
    echo "long-run bench: needs root; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-long-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$bin" "$tmp" "$short" "$long" "$here/scenarios/long-run.ini" <<'PY'
import glob, os, subprocess, sys, time
bin, tmp, short, long_, scen = sys.argv[1:6]
rings = ["--set", "run.samples_memory=64KB"]  # rings at any duration: what a long run uses

def run(tag, dur, trace, keep):
    out = f"{tmp}/{tag}"
    args = [bin, "run", scen, "--duration", dur, "--out", out, "--quiet", "--set", f"run.trace={trace}",
            "--set", f"run.trace_keep={keep}", *rings]
    t0 = time.monotonic()
    p = subprocess.Popen(args, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    _, status, ru = os.wait4(p.pid, 0)
    wall = time.monotonic() - t0
    d = sorted(glob.glob(f"{out}/long-run/2*"))[-1]
    size = lambda f: os.path.getsize(f"{d}/{f}") / 1e6 if os.path.exists(f"{d}/{f}") else 0.0
    return ru.ru_maxrss / 1024, size("samples.csv"), size("trace.dat"), wall, d

# before issue 15's traced work (the same machine, same scenario): trace=sched took 84.7 MB (20 s) and
# 215.5 MB (60 s) of peak RSS and wrote every page (17.8 and 52.3 MB of trace.dat)
print(f"-- peak RSS, 4 loops x 1 kHz, {short} and {long_}")
print(f"{'case':<34} {'RSS MB':>8} {'samples.csv MB':>15} {'trace.dat MB':>13} {'wall s':>7}")
dirs = {}
for trace, keep in (("off", "all"), ("sched", "all"), ("sched", "worst")):
    res = []
    for dur in (short, long_):
        rss, smp, dat, wall, d = run(f"{trace}{keep}{dur}", dur, trace, keep)
        dirs[(trace, keep, dur)] = d
        res.append(rss)
        tag = f"trace={trace}" + (f" trace_keep={keep}" if trace != "off" else "") + f" {dur}"
        print(f"{tag:<34} {rss:8.1f} {smp:15.2f} {dat:13.1f} {wall:7.1f}")
    print(f"   long/short RSS ratio {res[1] / res[0]:.3f}")
import json
def live_of(d):
    t = json.load(open(f"{d}/summary.json")).get("trace", {})
    return t, t.get("live")
for dur in (short, long_):
    t, lv = live_of(dirs[("sched", "all", dur)])
    if lv:
        print(f"-- live analysis, trace_keep=all {dur}: {lv['events']} events fed while the run went "
              f"({lv['events_per_busy_s'] / 1e6:.2f} M events per busy second, at most {lv['max_lag_s']:.2f} s "
              f"behind); after the run {lv['after_run_events']} events: analysed in {lv['after_run_analysis_s']:.3f} s, "
              f"{lv['after_run_s']:.2f} s with trace.dat written")
# the event rate the live analysis keeps up with: the loops faster and faster (every page kept), 10 s each
print("-- live analysis against the event rate (4 loops, trace = sched, trace_keep = all, 10 s)")
print(f"{'loop period':<12} {'events/s':>10} {'lost':>8} {'fed live':>9} {'M ev/busy s':>12} {'max lag s':>10} "
      f"{'after: analysis s':>18} {'all s':>6}")
for period in ("1ms", "250us", "100us", "50us"):
    out = f"{tmp}/rate{period}"
    r = subprocess.run([bin, "run", scen, "--duration", "10s", "--out", out, "--quiet", "--set", "run.trace=sched",
                        "--set", "run.trace_keep=all", *rings, "--set", f"loop.period={period}"],
                       stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True, timeout=300)
    runs = sorted(glob.glob(f"{out}/long-run/2*"))
    if not runs:
        print(f"{period:<12} run failed: {r.stderr.strip()[-200:]}")
        continue
    t, lv = live_of(runs[-1])
    lv = lv or {}
    print(f"{period:<12} {t.get('events', 0) / 10:10.0f} {t.get('lost_events', 0):8d} {lv.get('events', 0):9d} "
          f"{lv.get('events_per_busy_s', 0) / 1e6:12.2f} {lv.get('max_lag_s', 0):10.2f} "
          f"{lv.get('after_run_analysis_s', 0):18.3f} {lv.get('after_run_s', 0):6.2f}")
p = subprocess.Popen([bin, "run", scen, "--out", f"{tmp}/day"],
                     stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
line = ""
for l in p.stderr:
    if "projected:" in l:
        line = l.strip()
        break
p.send_signal(2)
p.communicate(timeout=60)
print(f"-- a 24 h run of it: {line or 'no projection printed'}")
print("-- analyze against trace-cmd report: tests/bench/floor.sh (one protocol)")
PY
