"""measure = wakeups measured from the release: an unmodified program (tests/helpers/sleeper, or a plain Python
loop) that logs, as cyclictest does, when it asked to wake and when it read the clock after the sleep. The
trace-only series must agree with that log cycle by cycle: its release is the time the program asked for
(read from the program's own log, never from jitterlab's), and its wake (the switch-in) comes before the
program's clock read. Structure with wide margins: a wrong link is off by a whole period (1 ms or more), so
the median checked here (50 us) cannot pass one; the figures are printed for the issue's note."""
import bisect
import pathlib
import statistics

import pytest

from conftest import NCPU, read_text

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the program, CPU 0 kept free)")

SLEEPER = pathlib.Path(__file__).resolve().parents[2] / "build" / "tests" / "helpers" / "sleeper"


def log_rows(path):
    """The program's own log: (cycle, requested ns, woke ns, how) per line, a cut last line dropped."""
    out = []
    for line in (read_text(path) or "").splitlines():
        f = line.split()
        if len(f) == 4:
            out.append((int(f[0]), int(f[1]), int(f[2]), f[3]))
    return out


def trace_only(r, name):
    rows = [x for x in r.samples() if x["thread"] == name]
    assert rows, r.stdout[-2000:]
    return rows


def test_c_loop_agrees_with_its_own_clock(jl, scenario, tmp_path):
    """An absolute clock_nanosleep loop at FIFO 80 (cyclictest's way) with trace left at its default: the run
    adds the timer group and says so; every cycle is released by its timer, at exactly the time the program
    asked for, and the program reads its clock after the switch-in on 99% of the cycles or more."""
    log = tmp_path / "abs.log"
    p = scenario("cloop", f"""
        [run]
        duration = 3s
        warmup = 200ms
        [thread loop]
        exec = {SLEEPER} -m abs -p 1000 -n 100000 -l {log}
        policy = fifo
        priority = 80
        cpus = 1
        measure = wakeups
        threads = sleeper
        """)
    r = jl("run", p, timeout=120, check_rc=0)
    assert "recording the timer group too" in r.stderr, r.stderr[-2000:]
    assert "trace = sched,timer" in (r.dir / "scenario.ini").read_text()
    rows = trace_only(r, "loop.sleeper")
    t = r.thread("loop.sleeper")
    rel = t["release"]
    assert rel["timer_recorded"] is True
    assert rel["from_timer"] + rel["from_waking"] == t["cycles"] == len(rows)
    assert sum(x["release_by"] == "timer" for x in rows) == rel["from_timer"]
    assert rel["relative"] == 0  # clock_nanosleep(TIMER_ABSTIME)
    asked = {a: w for _, a, w, _ in log_rows(log)}
    timer = [x for x in rows if x["release_by"] == "timer"]
    assert len(timer) >= 0.95 * len(rows), rel
    exact = [x for x in timer if x["release_ns"] in asked]
    assert len(exact) >= 0.95 * len(timer), (len(exact), len(timer))  # the requested time itself
    diffs = sorted(asked[x["release_ns"]] - x["wake_ns"] for x in exact)
    ahead = sum(d >= 0 for d in diffs)
    med = statistics.median(diffs)
    print(f"C loop: {len(diffs)} cycles, program's clock read - switch-in: median {med / 1000:.2f} us, "
          f"p99 {diffs[int(0.99 * (len(diffs) - 1))] / 1000:.2f} us, before the switch-in {len(diffs) - ahead}")
    assert ahead >= 0.99 * len(diffs), diffs[:10]
    assert med <= 50_000, med
    assert f"{rel['from_timer']} of {t['cycles']} cycles from its timer's requested expiry" in r.stdout


def test_python_loop(jl, scenario, tmp_path):
    """A plain Python loop sleeping with time.sleep: released by its timer. CPython (3.11 and later) sleeps
    with clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME) until the clock it read at the call plus the
    request, so each release lies just after the time the loop read before it called time.sleep plus the
    period (never before it, and well within a period); the interpreter reads its clock after the
    switch-in."""
    log = tmp_path / "py.log"
    prog = tmp_path / "loop.py"
    prog.write_text(
        "import sys, time\n"
        f"f = open({str(log)!r}, 'w', buffering=1)\n"
        "for c in range(100000):\n"
        "    asked = time.monotonic_ns() + 2_000_000\n"
        "    time.sleep(0.002)\n"
        "    f.write(f'{c} {asked} {time.monotonic_ns()} timer\\n')\n")
    p = scenario("pyloop", f"""
        [run]
        duration = 3s
        warmup = 200ms
        [thread node]
        exec = /usr/bin/python3 {prog}
        policy = fifo
        priority = 70
        cpus = 1
        measure = wakeups
        """)
    r = jl("run", p, timeout=120, check_rc=0)
    name = next(t["name"] for t in r.summary()["threads"] if "release" in t)
    rows = trace_only(r, name)
    rel = r.thread(name)["release"]
    timer = [x for x in rows if x["release_by"] == "timer"]
    assert len(timer) >= 0.9 * len(rows), rel
    # each cycle: the log line whose read after the sleep is the first at or after the switch-in
    logged = sorted(log_rows(log), key=lambda x: x[2])
    woke = [w for _, _, w, _ in logged]
    diffs, outside = [], 0
    for x in timer:
        i = bisect.bisect_left(woke, x["wake_ns"] - 1_000_000)  # a read up to 1 ms early would be found
        if i >= len(logged):
            continue
        c, asked, w, _ = logged[i]
        diffs.append(w - x["wake_ns"])
        # the interpreter read its clock after the loop did: never earlier, and not a period later
        outside += not (asked <= x["release_ns"] < asked + 1_000_000)
    diffs.sort()
    med = statistics.median(diffs)
    print(f"Python loop: {len(diffs)} cycles, interpreter's clock read - switch-in: median {med / 1000:.2f} us, "
          f"p99 {diffs[int(0.99 * (len(diffs) - 1))] / 1000:.2f} us")
    assert len(diffs) >= 0.9 * len(timer)
    assert sum(d >= 0 for d in diffs) >= 0.99 * len(diffs), diffs[:10]
    assert med <= 500_000, med  # the interpreter takes tens of us, never half a period
    assert outside <= 0.01 * len(diffs), outside


def test_relative_sleep_is_said(jl, scenario, tmp_path):
    """A relative nanosleep (hrtimer_start mode REL): each cycle is measured against what its sleep asked
    for, and the series says it is not a period grid."""
    p = scenario("relative", f"""
        [run]
        duration = 1s
        warmup = 100ms
        [thread loop]
        exec = {SLEEPER} -m rel -p 2000 -n 100000
        policy = fifo
        priority = 80
        cpus = 1
        measure = wakeups
        threads = sleeper
        """)
    r = jl("run", p, timeout=60, check_rc=0)
    rel = r.thread("loop.sleeper")["release"]
    assert rel["from_timer"] >= 0.9 * r.thread("loop.sleeper")["cycles"] and rel["relative"] == rel["from_timer"], rel
    assert "its timer is armed relative" in r.stdout


def test_sched_alone_measures_from_the_waking(jl, scenario, tmp_path):
    """trace = sched, as the user wrote it: no timer group added, every cycle from its waking, and the run
    says why and what would measure from the timer."""
    p = scenario("schedonly", f"""
        [run]
        duration = 1s
        warmup = 100ms
        trace = sched
        [thread loop]
        exec = {SLEEPER} -m abs -p 2000 -n 100000
        policy = fifo
        priority = 80
        cpus = 1
        measure = wakeups
        threads = sleeper
        """)
    r = jl("run", p, timeout=60, check_rc=0)
    assert "recording the timer group too" not in r.stderr
    rows = trace_only(r, "loop.sleeper")
    assert {x["release_by"] for x in rows} == {"waking"}
    rel = r.thread("loop.sleeper")["release"]
    assert rel["timer_recorded"] is False and rel["from_timer"] == 0 and rel["from_waking"] == len(rows)
    assert "every cycle from its waking: the timer group is not recorded" in r.stdout
    assert all(w["release_by"] == "waking" for w in r.summary()["trace"]["worst"] if w["thread"] == "loop.sleeper")
