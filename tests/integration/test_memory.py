"""The run's memory budget (issue 27): the projection stated when the measured phase begins (summary.json
`memory.projected`, the line on stderr) against the peak the kernel counted for the process (VmHWM in
summary.json, and wait4's ru_maxrss taken here, independently of jitterlab), on the scenarios the budget must
hold for: loops beside a busy neighbour, an executor, a probed program, `trace = sched,irq,timer`, a
neighbour that forks thousands of children; and across the long-run threshold (`samples_memory = 1MB`).
Memory is not a timing: the bounds are asserted. Runs are short (a few seconds) to keep CI's time."""
import json
import os
import pathlib
import re
import subprocess
import textwrap
import threading

import pytest

from conftest import BIN, LANE
from memory_scenarios import scenarios

PROBE_LOOP = pathlib.Path(BIN).parent / "examples" / "probe_loop"
BOUND = 64 << 20  # the issue's bound for the loops' scenario, at every duration

SCENARIOS = scenarios(PROBE_LOOP)


def run_measured(tmp_path, name, text, *args, timeout=120):
    """Run scenario TEXT; its summary, its stderr and the peak RSS wait4 gave (bytes: the process and the
    programs it reaped, whichever was larger)"""
    tmp_path.mkdir(parents=True, exist_ok=True)
    path = tmp_path / f"{name}.ini"
    path.write_text(textwrap.dedent(text).lstrip())
    out = tmp_path / "runs"
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(out), *args], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    killer = threading.Timer(timeout, proc.kill)
    killer.start()
    try:
        stdout_stderr = []
        readers = [threading.Thread(target=lambda f=f: stdout_stderr.append((f, f.read())))
                   for f in (proc.stdout, proc.stderr)]
        for t in readers:
            t.start()
        _, status, ru = os.wait4(proc.pid, 0)
        for t in readers:
            t.join()
    finally:
        killer.cancel()
    rc = os.waitstatus_to_exitcode(status)
    err = dict(stdout_stderr)[proc.stderr]
    assert rc in (0, 3), f"exit {rc}: {err[-3000:]}"
    s = json.loads(next(out.glob(f"{name}/*/summary.json")).read_text())
    return s, err, ru.ru_maxrss * 1024


def check_budget(s, err, rusage_peak, hold):
    m = s["memory"]
    p = m["projected"]
    assert p is not None, m
    assert p["analysis"] == hold, p
    # the parts add up, as stated on stderr when the measured phase began
    assert p["total_bytes"] == p["setup_bytes"] + p["analysis_bytes"] + p["results_bytes"], p
    assert 0 <= p["samples_bytes"] < p["setup_bytes"] and p["events_per_s"] > 0 and p["events"] > 0, p
    # stated on stderr only where it matters (a long run, one near its samples_memory, 10 min or more):
    # where it is, it says what summary.json says
    for line in (l for l in err.splitlines() if "jitterlab: memory:" in l):
        said = float(re.search(r"at most ([0-9.]+) MB projected", line).group(1))
        assert abs(said - p["total_bytes"] / 1e6) < 0.06, (line, p)
    # the peak: VmHWM as the run read it, within the projection, and not above the kernel's own count taken
    # here by wait4 (which is the larger of jitterlab's peak and the largest program it reaped: a
    # neighbour, a probed program, gnuplot drawing the plots after the summary was written)
    peak = m["peak_bytes"]
    # (the kernel's RSS counters are per-CPU, read approximately: a MB of slack where two readings meet)
    assert p["setup_bytes"] - (1 << 20) <= peak <= p["total_bytes"], (peak, p)
    assert peak <= rusage_peak + (1 << 20), (peak, rusage_peak)
    assert (m["children_peak_bytes"] or 0) <= rusage_peak + (1 << 20), m
    return p, peak


@pytest.mark.rt
@pytest.mark.parametrize("name, hold", [("four", "recent"), ("sched_irq_timer", "recent"),
                                        ("executor", "whole"), ("probe", "whole")])
def test_peak_within_the_projection(tmp_path, name, hold):
    """The peak (VmHWM, and wait4's count) stays within the budget stated when measuring began: loops beside
    a neighbour and the same with irq and timer events (the analysis pruned: recent events only), an executor
    and a probed program (the whole analysis: it grows with the events, and the projection says so)"""
    if name == "probe" and not PROBE_LOOP.exists():
        pytest.skip("build/examples/probe_loop is not built")
    s, err, ru = run_measured(tmp_path, name, SCENARIOS[name])
    p, peak = check_budget(s, err, ru, hold)
    if hold == "recent" and LANE == "host":
        assert peak < BOUND, peak
    if name == "probe":  # the probed program is counted apart: it ran, and is not in jitterlab's peak
        assert s["memory"]["children_peak_bytes"] > 0


@pytest.mark.parametrize("duration", ["2s", "8s"])
def test_across_the_long_run_threshold(tmp_path, duration):
    """With samples_memory = 1MB the 4 loops' 2 s run keeps every cycle and page, their 8 s run is a long one
    (the worst rows, the flight recorder's pages): both within the bound and the projection."""
    s, err, ru = run_measured(tmp_path, "four", SCENARIOS["four"], "--duration", duration, "--set",
                              "run.samples_memory=1MB")
    long = duration == "8s"
    assert s["samples"]["mode"] == ("worst" if long else "all"), s["samples"]
    assert s["samples"]["storage"] == "ring"
    assert ("kept" in s["trace"]) == long, s["trace"].keys()
    _, peak = check_budget(s, err, ru, "recent")
    assert peak < BOUND, peak
    if long:  # past its samples_memory: what it takes is stated before it starts and when it measures
        assert "jitterlab: projected:" in err and "jitterlab: memory:" in err, err


def test_churn_keeps_the_analysis_bounded(tmp_path):
    """A neighbour forking thousands of children (a shell running /bin/true in a loop) beside the 4 loops,
    for 2 s and for 8 s (across the threshold): the pruned analysis forgets the births of the children long
    gone (it keeps those its kept windows saw), so what it holds does not grow with the duration; the peaks
    stay within the bound and the projection."""
    runs = {}
    for duration in ("2s", "8s"):
        s, err, ru = run_measured(tmp_path / duration, "churn", SCENARIOS["churn"], "--duration", duration,
                                  "--set", "run.samples_memory=1MB")
        _, peak = check_budget(s, err, ru, "recent")
        assert peak < BOUND, peak
        runs[duration] = s["trace"]["pruned"]
    short, long = runs["2s"], runs["8s"]
    # thousands of children over the 8 s: most births forgotten, and no more kept than over 2 s (give or
    # take the kept windows: the worst cycles of a run fall where they fall)
    assert long["forgotten_births"] > 1000 and long["forgotten_births"] > long["births_kept"], long
    assert long["births_kept"] < 2 * short["births_kept"] + 1000, (short, long)
