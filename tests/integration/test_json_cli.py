"""Measurement hygiene at the command line (issue 8, section 5): a directory given as the scenario is
refused as such, with nothing started; `sweep`, `cyclictest` and `report` take --json and print the very
document they wrote (checked against the file, parsed independently); and the cyclictest comparison puts
jitterlab's cycles through cyclictest's rule (wake - intended expiry truncated to whole us, nearest-rank
percentiles over 1 us buckets), recomputed here from samples.csv.

Tiny scenarios (1 s, no warm-up, no trace); assertions are structural or exact recomputations, never
timings."""
import csv
import json
import math
import pathlib

import pytest


SWEEP = """
    [run]
    duration = 1s
    warmup = 0s
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [sweep]
    runs = 2
    condition.fifo = control.policy=fifo; control.priority=80
    condition.other = control.policy=other
"""

LOOP = """
    [run]
    duration = 1s
    warmup = 0s
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 1kHz
    work = none
"""


def latest(out, name):
    return (pathlib.Path(out) / name / "latest").resolve()


def load(path):
    with open(path) as f:
        return json.load(f)


def only_json(stdout):
    """stdout is one JSON document and nothing else (json.loads refuses anything around it)."""
    return json.loads(stdout)


# ---- a directory is not a scenario ----

@pytest.mark.parametrize("cmd", ["run", "sweep", "cyclictest"])
def test_directory_is_refused(jl, tmp_path, cmd):
    d = tmp_path / "scenarios"
    d.mkdir()
    (d / "loop.ini").write_text("[thread x]\npolicy = other\nrate = 10Hz\n")
    (d / "notes.txt").write_text("not a scenario\n")
    out = tmp_path / "out"
    r = jl(cmd, str(d) + "/", out_dir=out, timeout=30, check_rc=2)
    assert "is a directory, not a scenario file" in r.stderr, r.stderr
    assert f"did you mean {d}/loop.ini?" in r.stderr, r.stderr
    assert "notes.txt" not in r.stderr
    assert r.stdout == ""
    assert not out.exists()  # nothing touched


def test_empty_directory_is_refused(jl, tmp_path):
    d = tmp_path / "empty"
    d.mkdir()
    r = jl("run", d, timeout=30, check_rc=2)
    assert f"{d}: is a directory, not a scenario file (it holds no .ini file)" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()


# ---- sweep --json ----

def test_sweep_json_is_sweep_json(jl, scenario, tmp_path):
    path = scenario("jsweep", SWEEP)
    r = jl("sweep", path, "--json", timeout=120, check_rc=0)
    doc = only_json(r.stdout)
    d = latest(tmp_path / "out", "jsweep")
    on_disk = load(d / "sweep.json")
    assert doc == on_disk  # the same document, figure for figure
    assert doc["kind"] == "sweep" and doc["runs_done"] == 4 and doc["runs_per_condition"] == 2
    assert [c["label"] for c in doc["conditions"]] == ["fifo", "other"]
    # the per-run figures are those of each run's own summary.json
    for c in doc["conditions"]:
        assert len(c["runs"]) == 2
        for run in c["runs"]:
            summ = load(pathlib.Path(run["dir"]) / "summary.json")
            t = [x for x in summ["threads"] if x["name"] == "control"][0]
            assert run["metrics"]["control"]["latency.p99"] == t["latency_ns"]["p99"]
    assert "sweep.json, report.md, report.html and plots in" in r.stderr  # the where-line moved off stdout
    # report --json of the sweep directory: the same document again
    rep = jl("report", "--json", "--no-plots", d, timeout=30, check_rc=0)
    assert only_json(rep.stdout) == on_disk


# ---- cyclictest --json, and the like-with-like rule ----

def calcdiff_us(release_ns, wake_ns):
    """rt-tests calcdiff(now, next): seconds in us plus the ns difference / 1000 truncated toward zero."""
    ds = wake_ns // 10**9 - release_ns // 10**9
    dn = wake_ns % 10**9 - release_ns % 10**9
    return ds * 10**6 + int(dn / 1000)


def nearest_rank(sorted_values, q):
    rank = max(1, math.ceil(round(q * 10**6) * len(sorted_values) / 10**8))
    return sorted_values[min(rank, len(sorted_values)) - 1]


@pytest.mark.package("rt-tests")
def test_cyclictest_json_like_with_like(jl, scenario, tmp_path):
    path = scenario("jct", LOOP)
    r = jl("cyclictest", path, "--json", timeout=90, check_rc=0)
    doc = only_json(r.stdout)
    d = latest(tmp_path / "out", "jct")
    on_disk = load(d / "cyclictest.json")
    assert doc == on_disk
    assert "truncated to whole us" in doc["method"] and "like with like" in doc["method"]
    assert doc["histogram_us"] == 20000
    t = doc["threads"][0]
    assert t["name"] == "control"
    for side in ("cyclictest", "jitterlab"):
        assert len(t[side]["runs"]) == 1
        assert t[side]["overflows"] == 0 and t[side]["beyond_histogram"] == []  # reported, even when 0

    # cyclictest's side is its own JSON read by the histogram rule
    ct_run = t["cyclictest"]["runs"][0]
    raw = load(ct_run["json"])["thread"]["0"]
    hist = sorted((int(k), v) for k, v in raw["histogram"].items())
    assert ct_run["cycles"] == raw["cycles"] and ct_run["overflows"] == raw["cycles"] - sum(v for _, v in hist)
    assert ct_run["min_ns"] == raw["min"] * 1000 and ct_run["max_ns"] == raw["max"] * 1000
    values = [b for b, v in hist for _ in range(v)]
    assert ct_run["p50_ns"] == nearest_rank(values, 50) * 1000
    assert ct_run["p99_ns"] == nearest_rank(values, 99) * 1000

    # jitterlab's side: its samples.csv through the same rule, recomputed here
    jl_run = t["jitterlab"]["runs"][0]
    with open(pathlib.Path(jl_run["dir"]) / "samples.csv", newline="") as f:
        rows = [x for x in csv.DictReader(f) if x["thread"] == "control"]
    us = sorted(calcdiff_us(int(x["release_ns"]), int(x["wake_ns"])) for x in rows)
    assert jl_run["cycles"] == len(us)
    assert jl_run["min_ns"] == us[0] * 1000 and jl_run["max_ns"] == us[-1] * 1000
    for q, key in ((50, "p50_ns"), (99, "p99_ns"), (99.9, "p999_ns")):
        assert jl_run[key] == nearest_rank(us, q) * 1000, key
    assert abs(jl_run["avg_ns"] - sum(us) / len(us) * 1000) < 1
    # and the exact figures are summary.json's, at most one bucket above the truncated ones
    exact = t["jitterlab_exact"]["runs"][0]
    lat = [x for x in load(pathlib.Path(jl_run["dir"]) / "summary.json")["threads"] if x["name"] == "control"][0]["latency_ns"]
    assert exact["p99_ns"] == lat["p99"] and exact["max_ns"] == lat["max"]
    for k in ("min_ns", "p50_ns", "p99_ns", "max_ns"):
        assert -1000 < exact[k] - jl_run[k] < 1000 + 1, k
    # the ratio is of the two like-with-like columns
    assert t["ratio"]["p50"] == pytest.approx(t["jitterlab"]["p50_ns"] / t["cyclictest"]["p50_ns"])
    assert "cyclictest.json and both sides' runs in" in r.stderr

    # report: the same document with --json; the table says how it compared
    rep = jl("report", "--json", d, timeout=30, check_rc=0)
    assert only_json(rep.stdout) == on_disk
    txt = jl("report", d, timeout=30, check_rc=0)
    assert "method: like with like" in txt.stdout and "jitterlab exact" in txt.stdout
    assert "beyond the 20000 us histogram: cyclictest 0, jitterlab 0" in txt.stdout


# ---- report --json of runs ----

def test_report_json_runs(jl, scenario, tmp_path):
    path = scenario("jrep", LOOP)
    dirs = []
    for i in range(2):
        jl("run", path, "--quiet", out_dir=tmp_path / f"out{i}", timeout=60, check_rc=0)
        dirs.append(latest(tmp_path / f"out{i}", "jrep"))

    one = jl("report", "--json", dirs[0], timeout=30, check_rc=0)
    doc = only_json(one.stdout)
    assert doc["kind"] == "run" and doc.pop("dir") == str(dirs[0])  # summary.json's own kind
    assert set(doc.pop("plots")) <= {"latency-hist.svg", "latency-cycle.svg", "ticks.svg"}
    assert doc == load(dirs[0] / "summary.json")

    both = jl("report", "--json", "--no-plots", dirs[0], dirs[1], timeout=30, check_rc=0)
    doc = only_json(both.stdout)
    assert doc["kind"] == "report" and len(doc["runs"]) == 2
    for run, d in zip(doc["runs"], dirs):
        assert run["kind"] == "run" and run.pop("dir") == str(d)
        run.pop("plots")
        assert run == load(d / "summary.json")
    # the side-by-side table shows these figures (p99 of each run, as the table formats it)
    txt = jl("report", "--no-plots", dirs[0], dirs[1], timeout=30, check_rc=0)
    assert "latency p99" in txt.stdout
