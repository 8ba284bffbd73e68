"""Locks (issue 14, first part): [lock] kinds mutex, pi and ceiling held around a thread's work, on the
priority-inversion scenario (low holds 5 ms, high asks 1 ms later, medium spins 30 ms 2 ms after low
took it, all FIFO on CPU 1). What is checked is recomputed here from locks.csv and samples.csv: the
acquisitions, high's waits and responses; the bounds are wide (noisy 2-CPU VMs): the inversion is
30 ms, the bounded wait under 5 ms, and the test allows 3 ms over the critical section (LTP pi_perf's
200 us is what scripts/priority-inversion.sh prints)."""
import csv
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "priority-inversion.ini"
CS = 5_000_000      # low's critical section (spin 5ms)
WORK = 100_000      # high's own work (spin 100us)
SPIN = 30_000_000   # medium's spin
MARGIN = 3_000_000


def rows(r, name):
    with open(r.dir / name, newline="") as f:
        return list(csv.DictReader(f))


def run(jl, *sets):
    args = []
    for s in sets:
        args += ["--set", s]
    return jl("run", SCENARIO, "--duration", "2s", *args, timeout=90)


def high_figures(r):
    """high's waits for the lock (from locks.csv, measured phase) and responses (samples.csv)"""
    s = r.summary()
    t_measure = s["t_measure_ns"]
    waits = [int(x["got_ns"]) - int(x["ask_ns"]) for x in rows(r, "locks.csv")
             if x["thread"] == "high" and int(x["got_ns"]) >= t_measure]
    resp = [int(x["response_ns"]) for x in r.samples() if x["thread"] == "high"]
    return waits, resp


def test_mutex_inverts(jl):
    r = run(jl, "shared.kind=mutex")
    assert r.rc == 3, r.stderr  # its [expect] (bounded wait, no miss) fails, as it should
    waits, resp = high_figures(r)
    assert len(waits) >= 15 and len(resp) >= 15
    lock = r.summary()["locks"][0]
    assert lock["kind"] == "mutex" and lock["threads"]["high"]["wait_ns"]["max"] == max(waits)
    # most periods: high waits for medium's spin too, far past low's critical section
    assert sum(1 for w in waits if w > CS + 10_000_000) >= len(waits) // 2, waits
    assert r.thread("high")["misses"] >= len(resp) // 2
    # the trace names the holder that woke high and the task that kept the holder off its CPU
    late = [w for w in r.summary()["trace"]["worst"] if w["thread"] == "high" and w["window"] == "response"]
    assert late, [w["text"] for w in r.summary()["trace"]["worst"]]
    # (among the misses explained: on a noisy VM the longest response can be a host stall, not an inversion)
    assert any("woken by low" in p["name"] and "medium" in p["name"] for w in late for p in w["parts"]), \
        [w["text"] for w in late]
    assert "boosts" not in lock  # a plain mutex boosts no one: only a pi lock reports boosts


@pytest.mark.parametrize("sets", [("shared.kind=pi",), ("shared.kind=ceiling", "shared.ceiling=90")])
def test_protocol_bounds_the_wait(jl, sets):
    r = run(jl, *sets)
    assert r.rc in (0, 3), r.stderr
    waits, resp = high_figures(r)
    assert len(waits) >= 15 and len(resp) >= 15
    # high's response (its wakeup, the wait, its work) stays within the critical section and its work:
    # the spinner no longer runs while high waits; with a ceiling the wait moves into high's wakeup.
    # No period shows the inversion (medium's 30 ms spin inside high's wait); a noisy VM may stretch a
    # period or two past the margin (CI saw one response of 10 ms), so most, not all, are within it.
    assert max(resp) < SPIN, (max(resp), resp)
    assert max(waits) < SPIN, max(waits)
    assert sum(1 for x in resp if x < CS + WORK + MARGIN) >= len(resp) * 9 // 10, resp
    assert sum(1 for w in waits if w < CS + MARGIN) >= len(waits) * 9 // 10, waits
    lock = r.summary()["locks"][0]
    assert lock["acquisitions"] == len([x for x in rows(r, "locks.csv") if int(x["got_ns"]) >= r.summary()["t_measure_ns"]
                                        and int(x["ask_ns"]) < r.summary()["t_end_ns"]])
    if "pi" in sets[0]:
        assert lock["boosts"] >= len(waits) // 2  # low is raised while high waits (sched_pi_setprio)
        assert r.thread("high")["misses"] <= len(resp) // 10, r.thread("high")["misses"]  # vs. most under mutex
    else:
        assert lock["kind"] == "ceiling" and lock["ceiling"] == 90


def test_other_holder_with_pi(jl):
    """A SCHED_OTHER holder: pi raises it to FIFO 90 while high waits"""
    r = run(jl, "shared.kind=pi", "low.policy=other")
    waits, resp = high_figures(r)
    assert waits and max(waits) < SPIN, max(waits)
    assert sum(1 for w in waits if w < CS + MARGIN) >= len(waits) * 9 // 10, waits
    assert r.summary()["locks"][0]["boosts"] >= len(waits) // 2


def test_lock_on_a_callback(jl, scenario):
    """Two callbacks on two executors share a mutex: their runs never overlap, and each run's wait is in
    locks.csv under the pool thread that ran it"""
    p = scenario("cb", """
        [run]
        duration = 1s
        warmup = 100ms
        trace = off
        [lock m]
        [executor e1]
        [executor e2]
        [callback a]
        executor = e1
        period = 10ms
        work = spin 3ms
        lock = m
        [callback b]
        executor = e2
        period = 10ms
        phase = 1ms
        work = spin 3ms
        lock = m
        [expect]
        waited = m.wait.max > 100us
        """)
    r = jl("run", p, timeout=60, check_rc=0)
    held = sorted((int(x["got_ns"]), int(x["rel_ns"])) for x in rows(r, "locks.csv"))
    assert len(held) >= 150
    assert all(a[1] <= b[0] for a, b in zip(held, held[1:])), "two holders at once"
    assert {x["thread"] for x in rows(r, "locks.csv")} == {"e1", "e2"}


def test_biglock_hand_over(jl, scenario):
    """biglock (CPython's rule): a 100 Hz control tick and a sin() scan under one biglock on CPU 1. The
    scan never drops it unasked; the tick's waiter asks after the switch interval (20 ms here) and gets it
    at the scan's next check point; with 2 hand-offs per tick each round trip gives it away again.
    Checked from locks.csv: no acquisition of the control thread waited much less than an interval
    while the scan computed (the rule), the control thread's acquisitions per tick are 1 + handoffs, and
    after every forced drop the next acquisition is the waiter's (FORCE_SWITCHING)."""
    p = scenario("gil", """
        [run]
        duration = 2s
        warmup = 200ms
        trace = off
        [lock gil]
        kind = biglock
        switch_interval = 20ms
        handoffs = 2
        [thread control]
        cpus = 1
        period = 100ms
        work = none
        lock = gil
        [thread scan]
        cpus = 1
        work = sin 2000000000
        lock = gil
        """)
    r = jl("run", p, timeout=60, check_rc=0)
    rows = sorted(rows_of(r), key=lambda x: int(x["got_ns"]))
    ctl = [x for x in rows if x["thread"] == "control"]
    ticks = r.thread("control")["cycles"]
    lock = r.summary()["locks"][0]
    assert lock["kind"] == "biglock" and lock["handoffs"] == 2 and lock["forced_drops"] > 0
    # each tick takes it 1 + 2 times (its work, and two round trips)
    assert abs(len([x for x in ctl if int(x["got_ns"]) >= r.summary()["t_measure_ns"]]) - 3 * ticks) <= 3
    # the control thread waited for the scan: at least its first take of each tick waited most of an
    # interval (whether a hand-off loses it again depends on who the scheduler runs first), never many
    waits = [int(x["got_ns"]) - int(x["ask_ns"]) for x in ctl]
    assert len([w for w in waits if w > 10_000_000]) >= ticks - 2, sorted(waits)
    assert max(waits) < 200_000_000
    # FORCE_SWITCHING: inside its one long work call the scan drops it only when asked, and then the
    # waiter takes it: in the order of the takes after the warm-up (the scan's work call began at the
    # start with its own two hand-offs), no two of the scan's follow each other
    order = [x["thread"] for x in rows if int(x["got_ns"]) >= r.summary()["t_measure_ns"]]
    assert not any(a == b == "scan" for a, b in zip(order, order[1:])), order
    # the scan gave it away only when asked: its holds are about an interval or longer
    holds = [int(x["rel_ns"]) - int(x["got_ns"]) for x in rows if x["thread"] == "scan"]
    assert holds and sorted(holds)[len(holds) // 2] > 10_000_000


def rows_of(r):
    return rows(r, "locks.csv")


def test_pi_wait_names_the_holder(jl):
    """With a PI lock and a deadline shorter than low's critical section, high's misses are explained as a
    wait on the lock's holder, with the boost high lent it (sched_pi_setprio, written by high as it
    blocked), and the advice speaks of the holder's work under the lock, not of PI (already in use)."""
    r = run(jl, "shared.kind=pi", "high.deadline=2ms")
    assert r.rc in (0, 3), r.stderr
    late = [w for w in r.summary()["trace"]["worst"] if w["thread"] == "high" and w["window"] == "response"]
    assert late, [w["text"] for w in r.summary()["trace"]["worst"]]
    named = [(w, p) for w in late for p in w["parts"]
             if p["name"] == "blocked on a PI lock held by low (boosted to RT 90)"]
    assert named, [w["text"] for w in late]
    led = 0
    for w, p in named:
        assert p["pid"] == r.thread("low")["tid"] and p["kind"] == "blocked", p
        if p is max(w["parts"], key=lambda q: q["duration_ns"]):
            assert w["advice_rule"] == "pi-holder", w
            led += 1
    assert led, [w["text"] for w, _ in named]  # low's 5 ms critical section is the longest part somewhere

