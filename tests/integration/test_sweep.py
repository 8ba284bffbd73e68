"""`jitterlab sweep`: conditions x runs interleaved, sweep.json (parsed with json), the comparison table,
the verdicts, validation before anything starts, SIGINT, and the plots (well-formed SVG: strip plots and
the per-condition tick timeline).

Runs are 2 s (plus a short warm-up); assertions are structural. The one statistical assertion uses a
difference of two orders of magnitude (a SCHED_OTHER loop under a FIFO 90 spinner that holds CPU 1 for
40 ms of every 50 ms, against a FIFO 95 loop above it), so noise from other agents cannot flip it."""
import json
import pathlib
import shutil
import signal
import subprocess
import time
import xml.dom.minidom


from conftest import BIN, wait_for_thread


TWO_BY_TWO = """
    ; 2 conditions x 2 runs of 2 s: the sweep machinery, not a finding
    [run]
    duration = 2s
    warmup = 500ms
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [sweep]
    runs = 2
    order = fixed
    condition.fifo = control.policy=fifo; control.priority=80
    condition.other = control.policy=other
"""

METRICS = ["rate_hz", "latency.p50", "latency.p99", "latency.max", "period.p99", "period.max", "misses", "work.mean"]


def sweep_dir(out, name):
    return (pathlib.Path(out) / name / "latest").resolve()


def assert_svg(path):
    assert path.exists(), f"{path} missing"
    doc = xml.dom.minidom.parse(str(path))
    assert doc.documentElement.tagName == "svg"


def test_two_by_two_writes_sweep_json(jl, scenario, tmp_path):
    path = scenario("twobytwo", TWO_BY_TWO)
    r = jl("sweep", path, timeout=90, check_rc=0)
    d = sweep_dir(tmp_path / "out", "twobytwo")
    with open(d / "sweep.json") as f:
        s = json.load(f)
    for key in ["tool", "version", "kind", "scenario", "started", "dir", "runs_per_condition", "runs_done",
                "interrupted", "confidence", "metrics", "threads", "order", "conditions", "comparisons", "flags"]:
        assert key in s, key
    assert s["kind"] == "sweep" and s["runs_per_condition"] == 2 and s["runs_done"] == 4
    assert s["interrupted"] is False
    assert s["threads"] == ["control"]
    assert [m["name"] for m in s["metrics"]] == METRICS
    # order = fixed: every round in the written order (c1 r1, c2 r1, c1 r2, c2 r2)
    assert s["design"]["order"] == "fixed" and "seed" not in s["design"]
    assert [(o["condition"], o["run"]) for o in s["order"]] == [("fifo", 1), ("other", 1), ("fifo", 2), ("other", 2)]
    assert [o["order"] for o in s["order"]] == [1, 2, 3, 4]
    labels = [c["label"] for c in s["conditions"]]
    assert labels == ["fifo", "other"]
    for c in s["conditions"]:
        assert len(c["runs"]) == 2
        for run in c["runs"]:
            assert run["exit_status"] in (0, 3)
            assert run["usable"] is True
            rd = pathlib.Path(run["dir"])
            assert rd.is_dir() and str(rd).startswith(str(d))
            summ = json.load(open(rd / "summary.json"))
            t = [x for x in summ["threads"] if x["name"] == "control"][0]
            assert t["policy"] == c["label"]  # the condition reached the run
            assert set(METRICS) <= set(run["metrics"]["control"])
            assert run["metrics"]["control"]["rate_hz"] == t["rate_hz"]
            assert isinstance(run["transients"], list)
        for m in METRICS:
            st = c["stats"]["control"][m]
            for key in ["n", "mean", "stddev", "cv", "min", "max", "values", "bimodal"]:
                assert key in st, (m, key)
            assert st["n"] == 2 and len(st["values"]) == 2
            assert st["min"] <= st["mean"] <= st["max"]
        assert 50 < c["stats"]["control"]["rate_hz"]["mean"] < 110
    # one pair (other - fifo) per metric, every field present
    assert len(s["comparisons"]) == len(METRICS)
    for cmp in s["comparisons"]:
        assert (cmp["a"], cmp["b"], cmp["thread"]) == ("fifo", "other", "control")
        for key in ["diff", "t", "df", "p", "ci95", "significant", "verdict", "n_a", "n_b"]:
            assert key in cmp, key
        assert cmp["n_a"] == 2 and cmp["n_b"] == 2
        assert cmp["verdict"]
        if cmp["t"] is not None and cmp["p"] is not None:
            assert 0 <= cmp["p"] <= 1
            assert cmp["ci95"][0] <= cmp["diff"] <= cmp["ci95"][1]
    # rate and latency vary from run to run: at least those comparisons have a t and a p to check above
    assert [c for c in s["comparisons"] if c["t"] is not None and c["p"] is not None], s["comparisons"]
    # the table and report.md
    assert "control latency.p99" in r.stdout and "other vs fifo:" in r.stdout
    assert "sweep:" in r.stderr and "run 4 of 4" in r.stderr and "ETA" in r.stderr
    report = (d / "report.md").read_text()
    assert "| condition | n | mean ± sd |" in report
    # the strip plot, and a run's plots through `jitterlab report`
    assert_svg(d / "strip-control.svg")
    # the tick timeline: one row per condition, each from that condition's first run, linked from report.md
    if shutil.which("gnuplot"):
        assert_svg(d / "ticks-control.svg")
        assert "](ticks-control.svg)" in report
        ticks = (d / "ticks-control.svg").read_text()
        for label in labels:
            assert f"{label} r1: " in ticks and " Hz" in ticks, label
    run_dir = pathlib.Path(s["conditions"][0]["runs"][0]["dir"])
    rep = jl("report", run_dir, timeout=60, check_rc=0)
    assert "latency" in rep.stdout
    for name in ["latency-hist.svg", "latency-cycle.svg", "ticks.svg"]:
        assert_svg(run_dir / name)
    # several runs side by side, and the sweep again from its directory
    rep2 = jl("report", "--no-plots", run_dir, s["conditions"][1]["runs"][0]["dir"], timeout=30, check_rc=0)
    assert "latency p99" in rep2.stdout and "fifo 80" in rep2.stdout and "other" in rep2.stdout
    rep3 = jl("report", "--no-plots", d, timeout=30, check_rc=0)
    assert "other vs fifo:" in rep3.stdout


HUGE = """
    ; a 100 Hz loop beside a FIFO 90 spinner that holds CPU 1 for 40 ms of every 50 ms:
    ; as SCHED_OTHER the loop waits out the spins, as FIFO 95 it preempts them
    [run]
    duration = 2s
    warmup = 500ms
    trace = off

    [thread control]
    policy = fifo
    priority = 95
    cpus = 1
    rate = 100Hz
    work = spin 50us

    [thread spinner]
    policy = fifo
    priority = 90
    cpus = 1
    rate = 20Hz
    work = spin 40ms
    measure = no

    [sweep]
    runs = 3
    condition.fifo = control.policy=fifo; control.priority=95
    condition.other = control.policy=other
"""


def test_huge_difference_is_significant(jl, scenario, tmp_path):
    path = scenario("huge", HUGE)
    jl("sweep", path, timeout=120, check_rc=0)
    s = json.load(open(sweep_dir(tmp_path / "out", "huge") / "sweep.json"))
    by = {(c["metric"]): c for c in s["comparisons"] if c["thread"] == "control"}
    sig = [m for m in ("latency.p99", "latency.max", "period.max") if by[m]["significant"]]
    assert sig, json.dumps(by, indent=1)
    for m in sig:
        assert by[m]["diff"] > 0 and by[m]["p"] < 0.05
        assert by[m]["verdict"].startswith("real difference")
    other = [c for c in s["conditions"] if c["label"] == "other"][0]
    fifo = [c for c in s["conditions"] if c["label"] == "fifo"][0]
    assert other["stats"]["control"]["latency.max"]["mean"] > 5 * fifo["stats"]["control"]["latency.p50"]["mean"]


def test_bad_condition_exits_2_before_anything(jl, scenario, tmp_path):
    path = scenario("badcond", """
        [run]
        duration = 2s
        [thread control]
        policy = fifo
        priority = 80
        cpus = 1
        rate = 100Hz
        [sweep]
        runs = 2
        condition.ok = control.priority=70
        condition.bad = control.priority=120
    """)
    r = jl("sweep", path, timeout=30, check_rc=2)
    assert f"{path}:11:" in r.stderr and "'bad'" in r.stderr and "priority" in r.stderr
    assert not (tmp_path / "out").exists()
    good = scenario("badcmp", path.read_text().replace("condition.bad = control.priority=120\n", ""))
    r = jl("sweep", good, "--set", "sweep.compare=ok:nope", timeout=30, check_rc=2)
    assert "compare" in r.stderr and "nope" in r.stderr
    assert not (tmp_path / "out").exists()


def test_vary_builds_the_cartesian_product(jl, scenario, tmp_path):
    path = scenario("vary", """
        [run]
        duration = 1s
        warmup = 0s
        trace = off
        [thread control]
        policy = fifo
        priority = 80
        cpus = 1
        rate = 200Hz
        [thread hog]
        policy = other
        cpus = 1
        work = sin 1000
        [sweep]
        runs = 1
        vary.control.priority = 70, 80
        vary.hog.cpus = 0, 1
    """)
    jl("sweep", path, timeout=90, check_rc=0)
    s = json.load(open(sweep_dir(tmp_path / "out", "vary") / "sweep.json"))
    assert [c["label"] for c in s["conditions"]] == ["70-0", "70-1", "80-0", "80-1"]
    assert s["conditions"][1]["overrides"] == "control.priority=70; hog.cpus=1"
    assert len(s["comparisons"]) == 6 * 8  # every pair, every metric


def test_sigint_stops_the_sweep(scenario, tmp_path):
    path = scenario("intr", TWO_BY_TWO.replace("duration = 2s", "duration = 5s"))
    out = tmp_path / "out"
    p = subprocess.Popen([BIN, "sweep", str(path), "--out", str(out)], stdout=subprocess.PIPE,
                         stderr=subprocess.PIPE, text=True)
    # signal while the first run measures (its loop thread exists), not while the sweep starts up
    found = wait_for_thread("control", token=str(out), timeout=30)
    time.sleep(0.5)
    p.send_signal(signal.SIGINT)
    try:
        stdout, stderr = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        raise
    assert found, f"no run of the sweep started its loop:\n{stderr}"
    assert p.returncode == 130, stderr
    s = json.load(open(sweep_dir(out, "intr") / "sweep.json"))
    assert s["interrupted"] is True and s["runs_done"] == 1
    # the child is gone (it was in its own process group: check nothing of ours still runs)
    ps = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True)
    assert ps.stdout.strip() == ""
