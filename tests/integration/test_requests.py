"""Requests, queues and deadlines (issue 14): the scaled pool-exhaustion scenario (8 price requests at
once on B's 4 workers, each holding its worker for C's 1 s; pings every 200 ms). The acceptance, checked
from requests.csv alone (each ping's wait recomputed from its own timestamps): without deadlines the
pings wait about ceil(N/W) x D = 2 s; with the 1 s deadline propagated they wait at most about the
deadline; with limit = 4 the excess is refused at once and the pings wait at most about D; with ping on
its own pool they do not wait. Wide bands: a noisy 2-CPU VM."""
import csv
import json
import math
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCENARIO = ROOT / "scenarios" / "pool-exhaustion.ini"
N, W, D, DEADLINE = 8, 4, 1_000_000_000, 1_000_000_000


def requests(r):
    with open(r.dir / "requests.csv", newline="") as f:
        return list(csv.DictReader(f))


def ping_waits(rows):
    return [int(x["end_ns"]) - int(x["created_ns"]) for x in rows if x["queue"] == "ping_q" and int(x["end_ns"])]


def run(jl, *sets):
    args = []
    for s in sets:
        args += ["--set", s]
    return jl("run", SCENARIO, *args, timeout=90, check_rc=0)


def test_pool_exhaustion_without_deadlines(jl):
    r = run(jl)
    rows = requests(r)
    orders = [x for x in rows if x["source"] == "orders"]
    assert len(orders) == N
    # every price request is served (B's handler waits for C however long), after its client gave up
    assert all(x["status"] == "deadline_exceeded" for x in orders), [x["status"] for x in orders]
    # each price call to C is a request of its own, its parent the price request
    calls = [x for x in rows if x["queue"] == "quote_q"]
    assert len(calls) == N and {int(x["parent"]) for x in calls} == {int(x["request"]) for x in orders}
    worst = max(ping_waits(rows))
    expected = math.ceil(N / W) * D
    assert 0.6 * expected < worst < expected + 500_000_000, (worst, expected)
    # the work done after the client had given up: C's 1 s for each of the 8, and B's wait for it
    s = r.summary()
    wasted = sum(int(x["wasted_ns"]) for x in rows if x["queue"] in ("price_q", "quote_q"))
    assert wasted >= N * 0.5 * D
    src = {x["name"]: x for x in s["sources"]}
    assert src["orders"]["status"]["deadline_exceeded"] == N and src["orders"]["wasted_ns"] == wasted
    assert src["pings"]["client_latency_ns"]["max"] == worst


def test_propagated_deadline_frees_the_workers(jl):
    r = run(jl, "price.deadline_propagation=yes")
    rows = requests(r)
    worst = max(ping_waits(rows))
    assert worst < DEADLINE + 300_000_000, worst
    calls = [x for x in rows if x["queue"] == "quote_q"]
    # the calls carry the parent's deadline less the 50 ms margin; those still sent are given up then
    for c in calls:
        parent = rows[int(c["parent"])]
        assert int(c["deadline_ns"]) == int(parent["deadline_ns"]) - 50_000_000
    # a call a server picks up only after its deadline passed ends there at once, as deadline_exceeded
    # (seen once: started 68 us late, ended 211 ns later); the others were given up by their callers
    late = [c for c in calls if int(c["start_ns"]) >= int(c["deadline_ns"])]
    assert all(c["status"] == "deadline_exceeded" and int(c["end_ns"]) - int(c["start_ns"]) < 1_000_000
               for c in late), late
    sent = [c for c in calls if int(c["start_ns"]) and c not in late]
    assert sent and all(int(c["gave_up_ns"]) for c in sent)
    # C checks every 100 ms (cancel = cooperative): it stops within a slice of its caller giving up
    assert all(int(c["end_ns"]) - int(c["gave_up_ns"]) < 300_000_000 for c in sent), sent
    assert all(x["status"] == "deadline_exceeded" for x in rows if x["source"] == "orders")


def test_limit_refuses_the_excess(jl):
    r = run(jl, "price_q.limit=4")
    rows = requests(r)
    orders = [x for x in rows if x["source"] == "orders"]
    refused = [x for x in orders if x["status"] == "dropped"]
    assert len(refused) == N - W
    assert all(int(x["end_ns"]) - int(x["created_ns"]) < 5_000_000 for x in refused)  # at once
    assert not any(int(x["start_ns"]) for x in refused)
    assert max(ping_waits(rows)) < D + 300_000_000


def test_separate_pool_for_ping(jl):
    r = run(jl, "ping.executor=b_ping")
    assert max(ping_waits(requests(r))) < 100_000_000


@pytest.mark.parametrize("text, words", [
    ("[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nwork = call nope\n", "x.ini:5: callback 'a': work = call nope: no queue 'nope'"),
    ("[queue q]\n[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nwork = call q\n", "x.ini:1: queue 'q': nothing serves it"),
    ("[executor e]\n[callback a]\nexecutor = e\nperiod = 10ms\nlock = nope\n", "x.ini:5: callback 'a': no lock 'nope'"),
    ("[queue q]\n[executor e]\n[callback a]\nexecutor = e\ntrigger = q\n[source s]\ntarget = q\n", "x.ini:6: source 's': neither a burst nor a rate"),
])
def test_requests_bad_input(jl, scenario, text, words):
    p = scenario("x", text)
    r = jl("run", p, timeout=30, check_rc=2)
    assert words in r.stderr, r.stderr


def test_interrupt_while_calls_wait(jl, tmp_path):
    """SIGINT while B's handlers wait for C's replies (which never come once C's pool stops): the callers
    see the stop within a slice of their wait, the run ends with 130 and no stuck thread"""
    import signal
    import subprocess
    import time
    from conftest import BIN
    out = tmp_path / "out"
    p = subprocess.Popen([BIN, "run", str(SCENARIO), "--out", str(out), "-q", "--set", "run.grace=2s"],
                         stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    time.sleep(1.5)  # the burst (at 200 ms after the 100 ms warm-up) is in service, its calls waiting
    p.send_signal(signal.SIGINT)
    t0 = time.monotonic()
    _, err = p.communicate(timeout=30)
    assert p.returncode == 130, err
    assert time.monotonic() - t0 < 5, "the waiting callers did not see the stop"
    s = json.load(open(next(out.glob("pool-exhaustion/2*/summary.json"))))
    assert s["interrupted"] and not s.get("stuck_threads")
