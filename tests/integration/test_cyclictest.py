"""`jitterlab cyclictest`: cyclictest in place of the measured thread under the same neighbours, then
jitterlab's loop; both columns in the table and in cyclictest.json (parsed with json), cyclictest's own
JSON parsed too. Structural assertions only (3 s runs on a shared 2-CPU VM)."""
import json
import os
import pathlib
import threading
import time

import pytest

from conftest import read_text


SCEN = """
    ; a 1 kHz FIFO loop on CPU 1 with a CFS neighbour on the same CPU, 3 s
    [run]
    duration = 3s
    warmup = 500ms
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 1kHz
    work = none

    [thread hog]
    policy = other
    cpus = 1
    work = sin 100000
"""

STATS = ["min_ns", "avg_ns", "p50_ns", "p99_ns", "max_ns"]


def cpulist(text):
    cpus = set()
    for part in text.strip().split(","):
        lo, _, hi = part.partition("-")
        cpus.update(range(int(lo), int(hi or lo) + 1))
    return cpus


def watch_cyclictest(token, seen, stop):
    """Each thread's allowed CPUs of the cyclictest process whose command line holds TOKEN, as the
    kernel has them ({"main": set, "others": [set]}), read from /proc while it runs."""
    while not stop.is_set():
        for pid in filter(str.isdigit, os.listdir("/proc")):
            try:
                if pathlib.Path(f"/proc/{pid}/comm").read_text().strip() != "cyclictest" or \
                        token not in pathlib.Path(f"/proc/{pid}/cmdline").read_bytes().decode(errors="replace"):
                    continue
                tids = os.listdir(f"/proc/{pid}/task")
                if len(tids) < 2:  # its timer thread not started yet
                    continue
                allowed = {}
                for tid in tids:
                    for line in pathlib.Path(f"/proc/{pid}/task/{tid}/status").read_text().splitlines():
                        if line.startswith("Cpus_allowed_list:"):
                            allowed[tid] = cpulist(line.split(":", 1)[1])
                seen["main"] = allowed.pop(pid)
                seen["others"] = list(allowed.values())
                # its parent: the cyclictest side's `jitterlab run`, whose main thread is the watchdog
                ppid = pathlib.Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[1]
                for line in pathlib.Path(f"/proc/{ppid}/status").read_text().splitlines():
                    if line.startswith("Cpus_allowed_list:"):
                        seen["harness"] = cpulist(line.split(":", 1)[1])
            except (OSError, KeyError, ValueError):
                continue
        time.sleep(0.2)


@pytest.mark.package("rt-tests")
def test_cyclictest_side_by_side(jl, scenario, tmp_path):
    path = scenario("ctside", SCEN)
    seen, stop = {}, threading.Event()
    watcher = threading.Thread(target=watch_cyclictest, args=("cyclictest-control-r1.json", seen, stop), daemon=True)
    watcher.start()
    try:
        r = jl("cyclictest", path, timeout=90, check_rc=0)
    finally:
        stop.set()
        watcher.join(5)
    # cyclictest's timer thread on the loop's CPU, its main thread where jitterlab's own threads go: the
    # online CPUs the loop is not pinned to (cyclictest's default with -a is the measured CPU)
    online = cpulist(pathlib.Path("/sys/devices/system/cpu/online").read_text())
    assert seen, "cyclictest's threads were never seen in /proc"
    assert seen["others"] and all(a == {1} for a in seen["others"]), seen
    assert seen["main"] == online - {1}, seen
    # and the harness of that side keeps its own threads off the loop's CPU, as the loop's side does
    assert seen["harness"] == online - {1}, seen
    d = (tmp_path / "out" / "ctside" / "latest").resolve()
    doc = json.load(open(d / "cyclictest.json"))
    assert doc["kind"] == "cyclictest" and doc["runs"] == 1 and doc["interrupted"] is False
    assert len(doc["threads"]) == 1
    t = doc["threads"][0]
    assert t["name"] == "control" and t["period_ns"] == 1000000 and t["cpus"] == "1" and t["policy"] == "fifo 80"
    for side in ("cyclictest", "jitterlab"):
        assert len(t[side]["runs"]) == 1, side
        run = t[side]["runs"][0]
        assert 2000 <= run["cycles"] <= 3600, (side, run["cycles"])  # ~3000 cycles in 3 s
        for k in STATS:
            assert t[side][k] is not None and t[side][k] > 0, (side, k)
        assert t[side]["min_ns"] <= t[side]["p50_ns"] <= t[side]["p99_ns"] <= t[side]["max_ns"] + 1000
    for k in ("min", "avg", "p50", "p99", "max"):
        assert t["ratio"][k] is not None and t["ratio"][k] > 0
    # cyclictest really ran in the loop's place: its own JSON (with its "cmdline:" quirk) names our options
    raw = json.load(open(t["cyclictest"]["runs"][0]["json"]))
    cmd = raw.get("cmdline:") or raw.get("cmdline")
    assert "-i 1000" in cmd and "-p 80" in cmd and "-a 1" in cmd and "-m" in cmd
    assert raw["thread"]["0"]["cpu"] == 1
    # its run ran the neighbour and no measured jitterlab thread; the jitterlab run measured the loop
    ct_sum = json.load(open(next((d / "cyclictest").glob("r1/latest/summary.json"))))
    assert not [x for x in ct_sum["threads"] if x.get("measured")]
    jl_sum = json.load(open(pathlib.Path(t["jitterlab"]["runs"][0]["dir"]) / "summary.json"))
    assert [x["name"] for x in jl_sum["threads"] if x.get("measured")] == ["control"]
    # one table, both columns
    assert "cyclictest" in r.stdout and "jitterlab/cyclictest" in r.stdout
    for row in ("min", "avg", "p50", "p99", "max"):
        assert any(line.strip().startswith(row) for line in r.stdout.splitlines()), row
    # report reads the comparison back
    rep = jl("report", d, timeout=30, check_rc=0)
    assert "jitterlab/cyclictest" in rep.stdout
    # every column says what it measures
    for side in ("cyclictest", "jitterlab", "jitterlab_exact"):
        assert isinstance(t[side]["method"], str) and t[side]["method"], side
    # the kernel's instrument: on a kernel without the timerlat tracer its column says why, and the rest ran
    tl = doc["timerlat"]
    tracers = (read_text("/sys/kernel/tracing/available_tracers") or "").split()
    if "timerlat" not in tracers:
        assert tl["available"] is False and "no timerlat tracer" in tl["why"], tl
        assert tl["command"] is None and "timerlat_thread" not in t and "timerlat_irq" not in t
        assert "timerlat: not run: the kernel has no timerlat tracer" in r.stdout
        assert "no timerlat column" in r.stderr
        assert not (d / "timerlat").exists()


def test_cyclictest_needs_a_measured_loop(jl, scenario):
    path = scenario("ctnone", """
        [run]
        duration = 2s
        [thread hog]
        policy = other
        work = sin 1000
    """)
    r = jl("cyclictest", path, timeout=30, check_rc=2)
    assert "no measured periodic thread" in r.stderr


@pytest.mark.package("rt-tests")
def test_cyclictest_beside_a_probed_program(jl, scenario, tmp_path):
    """A probed program with a period is a loop too: cyclictest runs in its place, and the jitterlab
    column is the program's probed series."""
    from conftest import BIN
    loop = pathlib.Path(BIN).parent / "examples" / "probe_loop"
    if not loop.exists():
        pytest.skip("build/examples/probe_loop is not built")
    path = scenario("ctprobe", f"""
        [run]
        duration = 2s
        warmup = 300ms
        trace = sched
        [thread ctl]
        exec = {loop} 1000 50
        measure = probe
        policy = fifo
        priority = 80
        cpus = 1
        period = 1ms
        """)
    jl("cyclictest", path, timeout=120, check_rc=0)
    doc = json.load(open((tmp_path / "out" / "ctprobe" / "latest").resolve() / "cyclictest.json"))
    t = doc["threads"][0]
    assert t["name"] == "ctl" and t["policy"] == "fifo 80" and t["period_ns"] == 1000000
    for side in ("cyclictest", "jitterlab"):
        assert len(t[side]["runs"]) == 1, side
        assert 1200 <= t[side]["runs"][0]["cycles"] <= 2400, (side, t[side]["runs"][0]["cycles"])
    jl_sum = json.load(open(pathlib.Path(t["jitterlab"]["runs"][0]["dir"]) / "summary.json"))
    assert [x["name"] for x in jl_sum["threads"] if x.get("measured")] == ["ctl.loop"]


def test_doctor_noise_says_why_it_cannot_run(jl):
    """doctor --noise where the kernel has no osnoise tracer: the checks as usual, the noise section says
    why, nothing was run. (The RT lane measures it: test_rt_kernel.py.)"""
    tracers = (read_text("/sys/kernel/tracing/available_tracers") or "").split()
    if "osnoise" in tracers:
        pytest.skip("this kernel has the osnoise tracer: the RT lane's test measures with it")
    doc = json.loads(jl("doctor", "--json", "--noise", "all", "--noise-time", "1", timeout=60, check_rc=0).stdout)
    assert doc["checks"] and doc["noise"]["measured"] is False, doc["noise"]
    assert "no osnoise tracer" in doc["noise"]["why"] and doc["noise"]["command"] is None
    assert "cpus" not in doc["noise"]
    r = jl("doctor", "--noise", "0", timeout=60, check_rc=0)
    assert "noise (rtla osnoise top, 5 s): not measured: the kernel has no osnoise tracer" in r.stdout
    # a bad CPU list or time is a usage error
    assert jl("doctor", "--noise", "0-x", timeout=30).rc == 2
    assert jl("doctor", "--noise", "0", "--noise-time", "0", timeout=30).rc == 2
