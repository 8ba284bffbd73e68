"""The published gRPC chain for real (issue 30), at a reduced scale: three Python gRPC servers A -> B -> C
(examples/grpc_chain/chain.py, grpcio from Debian) run as `exec` neighbours with `user = invoking` and
`measure = probe`, and a client as a fourth. C's delay and the client's deadline are scaled together (1 s and
0.2 s; at the published 5 s and 1 s a test would take minutes), or propagated and not propagated would differ
by almost nothing. What is checked: every request of every series is counted, by the client's own log and
by the servers' probe series (one series per method, whichever of a pool's workers served it); the Pings
under load wait about one C delay, against milliseconds alone (a wide band, not a timing target); with
propagation no Ping waits more than the deadline and a margin. The published figures and scale are
scripts/grpc-chain.sh's, not the tests'."""
import csv
import json
import os
import pathlib
import subprocess

import pytest

from conftest import BIN

CHAIN = pathlib.Path(__file__).resolve().parents[2] / "examples" / "grpc_chain" / "chain.py"
NOBODY = 65534

pytestmark = pytest.mark.package("python3-grpcio")


def _scenario(tmp_path, mode="none", orders=8, deadline=None, delay=1.0):
    """DEADLINE: the client's on each Order, and A's `deadline` (its requests are the client's)"""
    server = f"/usr/bin/python3 {CHAIN} server"
    client = f"/usr/bin/python3 {CHAIN} client --a 50161 --b 50162 --orders {orders} --pings 10 --interval 0.2 --linger 60"
    if deadline:
        client += f" --deadline {deadline}"
    text = f"""
[run]
name = chain
duration = 10s
warmup = 0s
trace = sched
grace = 5s

[thread a]
exec = {server} --name a --port 50161 --workers 16 --next 50162 --mode {mode}
measure = probe
user = invoking
{f"deadline = {int(deadline * 1000)}ms" if deadline else ""}

[thread b]
exec = {server} --name b --port 50162 --workers 4 --next 50163 --mode {mode}
measure = probe
user = invoking

[thread c]
exec = {server} --name c --port 50163 --workers 16 --delay {delay}
measure = probe
user = invoking

[thread client]
exec = {client}
start = 1s
user = invoking
"""
    p = tmp_path / f"chain-{mode}-{orders}-{deadline}.ini"
    p.write_text(text)
    return p


def _run(tmp_path, path):
    top = tmp_path / "userdir"
    top.mkdir(exist_ok=True)
    os.chown(top, NOBODY, NOBODY)
    env = {k: v for k, v in os.environ.items() if k not in ("SUDO_UID", "SUDO_GID", "SUDO_USER")}
    env.update(SUDO_UID=str(NOBODY), SUDO_GID=str(NOBODY))
    r = subprocess.run([BIN, "run", str(path), "--out", str(top / "out"), "--quiet"], capture_output=True, text=True,
                       timeout=120, env=env)
    assert r.returncode == 0, r.stdout + r.stderr
    d = (top / "out" / "chain" / "latest").resolve()
    summary = json.loads((d / "summary.json").read_text())
    log = [json.loads(line) for line in (d / "client.log").read_text().splitlines() if line.startswith("{")]
    assert {"done": True} in log, f"the client did not finish:\n{(d / 'client.log').read_text()}"
    return summary, [x for x in log if "method" in x]


def _rows(tmp_path):
    d = (tmp_path / "userdir" / "out" / "chain" / "latest").resolve()
    return list(csv.DictReader(open(d / "samples.csv")))


def _series(summary, name):
    [t] = [t for t in summary["threads"] if t["name"] == name]
    return t


def test_every_request_of_every_series_is_counted_and_pings_wait_for_the_pool(tmp_path):
    alone, alone_log = _run(tmp_path, _scenario(tmp_path, orders=0))
    loaded, log = _run(tmp_path, _scenario(tmp_path))
    # the client's own count, and each server's series counting the same requests
    assert sorted(x["method"] for x in log).count("order") == 8 and sorted(x["method"] for x in log).count("ping") == 10
    assert all(x["status"] == "OK" for x in log), log
    for name, n in (("a.order", 8), ("b.price", 8), ("b.call-quote", 8), ("c.quote", 8), ("b.ping", 10), ("a.call-price", 8)):
        assert _series(loaded, name)["cycles"] == n, (name, _series(loaded, name))
    assert _series(alone, "b.ping")["cycles"] == 10
    assert not [t for t in alone["threads"] if t["name"] == "b.price"]
    # alone a ping is served in milliseconds; under the load the pings that found B's 4 workers in calls to C
    # waited about one C delay (1 s; 8 calls on 4 workers: two rounds) for a worker: the probe's latency is
    # the wait from the client's send to the handler's start
    alone_wait = _series(alone, "b.ping")["latency_ns"]["max"]
    loaded_wait = _series(loaded, "b.ping")["latency_ns"]["max"]
    assert alone_wait < 300e6, alone_wait
    assert loaded_wait > 500e6, loaded_wait
    # the client's clock agrees: its slowest ping took the servers' worst wait plus a short service and return
    slowest = max(x["seconds"] for x in log if x["method"] == "ping") * 1e9
    assert loaded_wait - 5e6 <= slowest <= loaded_wait + 300e6, (slowest, loaded_wait)
    # C's quotes take its delay: the calls B's workers were blocked in
    assert _series(loaded, "b.call-quote")["response_ns"]["min"] > 0.9e9
    # the worst ping's wait explained from the trace: B's 4 workers were serving prices, inside their calls to C,
    # through most of it, with the pool's remedy; the cycle is the worker's that served it
    [w] = [w for w in loaded["trace"]["worst"] if w["thread"] == "b.ping" and w["latency_ns"] == loaded_wait]
    busy = [p for p in w["parts"] if p["kind"] == "pool" and p["name"] == "pool: all 4 workers busy serving b.price"]
    assert busy and sum(p["duration_ns"] for p in busy) > 0.8 * loaded_wait, w
    assert any("inside calls they made (b.call-quote)" in p["detail"] for p in busy), w
    assert not [p for p in w["parts"] if p["kind"] == "executor"], w
    assert w["advice_rule"] == "pool" and "more workers" in w["advice"], w
    # the explained cycle is the worker's that served that ping (its pong names its thread), not the series' first
    [slow] = [x for x in log if x["method"] == "ping" and x["seconds"] * 1e9 == slowest]
    assert w["tid"] == slow["served_by"], (w, slow)

def test_propagated_deadline_bounds_the_pings_wait(tmp_path):
    s, log = _run(tmp_path, _scenario(tmp_path, mode="propagate", deadline=0.2))
    orders = [x for x in log if x["method"] == "order"]
    assert len(orders) == 8 and all(x["status"] == "DEADLINE_EXCEEDED" for x in orders), orders
    assert all(x["status"] == "OK" for x in log if x["method"] == "ping")
    # no ping waits longer than the deadline and a margin: the workers were freed at the propagated deadline
    assert _series(s, "b.ping")["latency_ns"]["max"] < (0.2 + 0.3) * 1e9
    assert _series(s, "b.ping")["cycles"] == 10
    # C's quotes were cancelled with their callers: none ran its full delay
    assert _series(s, "c.quote")["response_ns"]["max"] < 0.9e9
    # A's deadline is the client's, but A answered first (the downstream's DEADLINE_EXCEEDED, 50 ms early per
    # hop): no order was given up unanswered, as the client's own clock saw
    assert _series(s, "a.order")["given_up"] == 0 and max(x["seconds"] for x in orders) < 0.2


def test_unpropagated_deadline_wastes_the_work(tmp_path):
    """Without propagation the client gives up at 0.2 s and B and C work on: the work after that moment is
    wasted_ns, linked from the client's order through A's call to B's price and B's call to C's quote (each
    call's start is the callee's release). The rule (the work after the give-up) is the model's definition;
    what is independent here is the give-up moment (the client's own send times, not the probe's links) and
    the rows (every b.price and c.quote row of samples.csv, none linked)."""
    s, log = _run(tmp_path, _scenario(tmp_path, deadline=0.2))
    orders = [x for x in log if x["method"] == "order"]
    assert len(orders) == 8 and all(x["status"] == "DEADLINE_EXCEEDED" for x in orders), orders
    assert _series(s, "a.order")["given_up"] == 8
    rows = _rows(tmp_path)
    gave = min(x["sent_ns"] for x in orders) + 0.2e9  # all eight were sent at one moment
    for name in ("b.price", "c.quote"):
        mine = sum(max(0, int(r["end_ns"]) - max(gave, int(r["wake_ns"]))) for r in rows if r["thread"] == name)
        got = _series(s, name)["wasted_ns"]
        # 4 ran 1 s from the start (0.8 s after), 4 waited for them and ran 1 s more: about 7.2 s
        assert 5e9 < mine < 9e9, (name, mine)
        assert abs(got - mine) < 0.1e9 + 0.05 * mine, (name, got, mine)
    assert _series(s, "b.call-quote")["wasted_ns"] == 0  # a call is its caller's time, counted once
