#!/usr/bin/env bash
# Bench: the run's memory against its duration (issue 27), with default settings (nothing forces rings).
# Figures, never pass/fail. Needs root. For each scenario and duration: jitterlab's peak (summary.json
# memory.peak_bytes: VmHWM once the analysis and results were done), wait4's ru_maxrss (the process or the
# largest program it reaped), the budget stated when measuring began (memory.projected.total_bytes), how the
# analysis held the trace, the event rate, and the largest program the run started (counted apart).
#  - busy: the issue's scenario, 4 FIFO 70 loops at 1 kHz on CPU 1 doing spin 10us beside a CFS neighbour
#    (sin 100000), trace = sched: every duration of the issue (20 s, 60 s, 110 s, 150 s, 10 min);
#  - sched_irq_timer (the same, trace = sched,irq,timer), executor, probe (a probed C loop), churn (a shell
#    forking /bin/true in a loop), switchers (6 CFS neighbours switching 2000 times a second each): 20 s
#    and 60 s. The scenarios are tests/integration/memory_scenarios.py's, which the tests check.
#     BENCH_MEMORY_LONG="20s 60s" BENCH_MEMORY_SHORT="20s" tests/bench/memory.sh
set -euo pipefail
here=$(cd "$(dirname "$0")/../.." && pwd)
bin=${JITTERLAB:-$here/build/jitterlab}
long=${BENCH_MEMORY_LONG:-20s 60s 110s 150s 10m}
short=${BENCH_MEMORY_SHORT:-20s 60s}
if [ "$(id -u)" -ne 0 ]; then
    echo "memory bench: needs root; skipped"
    exit 0
fi
tmp=$(mktemp -d /tmp/jitterlab-bench-memory-XXXXXX)
trap 'rm -rf "$tmp"' EXIT
/usr/bin/python3 - "$bin" "$tmp" "$long" "$short" "$(dirname "$bin")/examples/probe_loop" "$here" <<'PY'
import glob, json, os, subprocess, sys
bin, tmp, long_, short, probe_loop, here = sys.argv[1:7]

sys.path.insert(0, os.path.join(here, "tests", "integration"))
from memory_scenarios import scenarios  # the scenarios the tests check the budget on (one source)
texts = scenarios(probe_loop)
SCENARIOS = {"busy": (texts["four"], long_)}
SCENARIOS.update({name: (texts[name], short) for name in ("sched_irq_timer", "executor", "probe", "churn", "switchers")})

print(f"{'scenario':<16} {'duration':>8} {'peak MB':>8} {'wait4 MB':>8} {'projected':>9} {'analysis':>8} "
      f"{'events/s':>9} {'samples':>7} {'program MB':>10}")
for name, (text, durations) in SCENARIOS.items():
    if name == "probe" and not os.path.exists(probe_loop):
        print(f"{name:<16} skipped: {probe_loop} is not built")
        continue
    path = f"{tmp}/{name}.ini"
    with open(path, "w") as f:
        f.write(text)
    for d in durations.split():
        out = f"{tmp}/{name}-{d}"
        p = subprocess.Popen([bin, "run", path, "--duration", d, "--out", out, "--quiet"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True)
        err = p.stderr.read()
        _, status, ru = os.wait4(p.pid, 0)
        runs = sorted(glob.glob(f"{out}/{name}/2*/summary.json"))
        if not runs:
            print(f"{name:<16} {d:>8} run failed: {err.strip()[-200:]}")
            continue
        with open(runs[-1]) as f:
            s = json.load(f)
        m = s["memory"]
        pr = m["projected"] or {}
        print(f"{name:<16} {d:>8} {m['peak_bytes'] / 1e6:8.1f} {ru.ru_maxrss * 1024 / 1e6:8.1f} "
              f"{pr.get('total_bytes', 0) / 1e6:9.1f} {pr.get('analysis', '-'):>8} {pr.get('events_per_s', 0):9.0f} "
              f"{s['samples']['mode']:>7} {(m['children_peak_bytes'] or 0) / 1e6:10.1f}", flush=True)
        subprocess.run(["rm", "-rf", out])
PY
