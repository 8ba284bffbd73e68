"""Executors (issue 13, first part): [executor] pools running [callback] timers by the dispatch model, one
series per callback. The shipped scenarios' [expect] are the acceptance bands; the structure of what the
run writes (series, samples.csv rows, per-thread callback counts, the explanation of a late callback) is
checked here from the files."""
import pathlib

import pytest

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_isolation(jl):
    r = jl("run", ROOT / "scenarios" / "isolation.ini", "--duration", "2s", timeout=60, check_rc=0)
    s = r.summary()
    assert all(e["ok"] for e in s["expect"]), s["expect"]
    for name in ("urgent", "heavy", "isolated"):
        t = r.thread(name)
        assert t["kind"] == "callback" and t["measured"] is True
    rows = [row for row in r.samples() if row["thread"] == "isolated"]
    assert len(rows) == r.thread("isolated")["cycles"] and len(rows) >= 90  # 2 s at 50 Hz
    # the starved timer's late starts are explained as its executor running heavy
    late = [w for w in s["trace"]["worst"] if w["thread"] == "urgent"]
    assert late and any(p["kind"] == "executor" and "heavy" in p["name"] for p in late[0]["parts"]), late[:1]
    ex = {e["name"]: e for e in s["executors"]}
    assert len(ex["shared"]["threads"]) == 1 and len(ex["own"]["threads"]) == 1
    # every run of the shared executor's callbacks is counted on its one thread
    shared_runs = r.thread("urgent")["cycles"] + r.thread("heavy")["cycles"]
    assert ex["shared"]["threads"][0]["callbacks_run"] >= shared_runs


def test_control_and_scan_on_a_pool(jl):
    r = jl("run", ROOT / "scenarios" / "control-vs-scan-executor.ini", "--duration", "2s", timeout=60, check_rc=0)
    s = r.summary()
    assert all(e["ok"] for e in s["expect"]), s["expect"]
    rate = r.thread("control")["rate_hz"]
    counts = [t["callbacks_run"] for t in s["executors"][0]["threads"]]
    assert len(counts) == 4 and sum(counts) >= r.thread("control")["cycles"] + r.thread("scan")["cycles"]
    # both callbacks in one group: control cannot run while scan does
    one = jl("run", ROOT / "scenarios" / "control-vs-scan-executor.ini", "--duration", "2s", "--set",
             "control.group=scan", timeout=60)
    assert one.rc == 3  # its [expect] control_rate fails, as it should
    assert one.thread("control")["rate_hz"] < 0.5 * rate, (one.thread("control")["rate_hz"], rate)


@pytest.mark.parametrize("text, words", [
    ("[executor e]\n[callback c]\nexecutor = nope\nperiod = 10ms\n", "x.ini:3: callback 'c': no executor 'nope'"),
    ("[executor e]\n[callback c]\nexecutor = e\n", "callback 'c': no period"),
    ("[executor e]\ncount = 2\n[callback c]\nexecutor = e\nperiod = 1ms\n", "x.ini:2: executor 'e': count is not an executor key"),
    ("[executor e]\n[callback e]\nexecutor = e\nperiod = 1ms\n", "the name is also a"),
    ("[executor e]\n[callback c]\nexecutor = e\nperiod = 1ms\ntrigger = scan\n", "unknown key 'trigger'"),
    ("[executor e]\ndispatch = random\n[callback c]\nexecutor = e\nperiod = 1ms\n", "is not a dispatch rule"),
    ("[executor e]\n[thread t]\nperiod = 1ms\n", "executor 'e' runs no callback"),
])
def test_executor_bad_input(jl, scenario, text, words):
    p = scenario("x", text)
    r = jl("run", p, timeout=30, check_rc=2)
    assert words in r.stderr, r.stderr
    assert r.dir is None
