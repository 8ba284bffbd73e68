"""report.html's data, without a browser: the series the C side reduces from samples.csv (histograms, the
columns' minima and maxima, misses, spikes, the period distribution) against the same figures computed here
from samples.csv with the csv module; the comparison's data against compare.json; a hand-edited summary
(worst[] not an array, nulls where strings were) still makes a page. The browser's view of the same pages is
test_report_html.py."""
import csv
import json
import re

from conftest import BIN  # noqa: F401 (the binary the jl fixture runs)

RUN = """
    [run]
    duration = 2s
    warmup = 300ms
    trace = off
    samples = {samples}

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 1kHz
    deadline = 300us
    work = spin 50us

    [thread spinner]
    policy = fifo
    priority = 90
    cpus = 1
    rate = 10Hz
    work = spin 1ms
    measure = no
"""


def page_data(path):
    """the page's inline JSON (the <script type="application/json"> element); < > & are \\u escapes there"""
    html = open(path).read()
    m = re.search(r'<script type="application/json" id="jl-data">(.*?)</script>', html, re.S)
    assert m, "no data element"
    assert "<" not in m.group(1) and ">" not in m.group(1)
    return json.loads(m.group(1))


def rows_of(run_dir):
    by = {}
    with open(run_dir / "samples.csv", newline="") as f:
        for r in csv.DictReader(f):
            by.setdefault(r["thread"], []).append(r)
    return by


def test_reduced_series_are_samples_csvs(jl, scenario):
    """samples = all: each series' histogram counts every row once, its columns' extremes are the rows' own
    latency extremes, every miss is counted, and the spikes are the rows at or above summary.json's p99."""
    r = jl("run", scenario("data", RUN.format(samples="all")), timeout=120)
    assert r.rc in (0, 3), r.stderr[-2000:]
    d = page_data(r.dir / "report.html")
    s = r.summary()
    for name, rows in rows_of(r.dir).items():
        ser = d["series"][name]
        lat = [int(x["wake_ns"]) - int(x["release_ns"]) for x in rows]
        assert sum(b[1] for b in ser["hist"]["bins"]) == len(rows)
        assert ser["time"]["cycles"] == len(rows)
        assert max(ser["time"]["max"]) == max(lat) and min(ser["time"]["min"]) == min(lat)
        # every row in the bin its latency falls in: the largest bin holds the largest latency
        w = ser["hist"]["width"]
        assert ser["hist"]["bins"][-1][0] == min(max(lat) // w, 400) * w
        misses = sum(x["miss"] == "1" for x in rows)
        assert ser["misses_total"] == misses and len(ser["misses"]) == min(misses, 2000)
        p99 = next(t for t in s["threads"] if t["name"] == name)["latency_ns"]["p99"]
        assert ser["spike_from_ns"] == p99
        big = sorted((v for v in lat if v >= p99), reverse=True)
        assert ser["spikes_total"] == len(big) and sorted((p[1] for p in ser["spikes"]), reverse=True) == big[:2000]
        # the period distribution: samples.csv's own column (each row but a series' first)
        per = [int(x["period_ns"]) for x in rows if int(x["period_ns"]) > 0]
        assert sum(b[1] for b in ser["period"]["bins"]) == len(per)


def test_kept_rows_only_periods_are_the_columns(jl, scenario):
    """samples = worst keeps windows of rows with gaps between them: a period drawn from one kept row's wake to
    the next would span a gap. The page's period distribution is samples.csv's period column: its largest bin
    holds the largest period_ns, never a gap."""
    r = jl("run", scenario("dataw", RUN.format(samples="worst")), timeout=120)
    assert r.rc in (0, 3), r.stderr[-2000:]
    assert r.summary()["samples"]["mode"] == "worst"
    d = page_data(r.dir / "report.html")
    rows = rows_of(r.dir)["control"]
    assert len(rows) < r.summary()["threads"][0]["cycles"]  # it kept less than every cycle
    cycles = [int(x["cycle"]) for x in rows]
    assert any(b - a > 1 for a, b in zip(cycles, cycles[1:])), "no gap between kept windows"
    per = [int(x["period_ns"]) for x in rows if int(x["period_ns"]) > 0]
    ser = d["series"]["control"]
    w = ser["period"]["width"]
    assert ser["period"]["bins"][-1][0] == min(max(per) // w, 400) * w
    gap = max(int(b["wake_ns"]) - int(a["wake_ns"]) for a, b in zip(rows, rows[1:]))
    assert gap > 2 * max(per)  # what the old reading would have drawn


def test_a_hand_edited_summary(jl, scenario, tmp_path):
    """A summary edited by hand: where a container the readers walk has another type, `report` says which key
    and what it expected, exit 2, and writes no page; where only the page's own reading is odd (a worst[]
    entry without a thread's name or a cycle's number), the page is written and the entry is no explained
    cycle."""
    r = jl("run", scenario("datah", RUN.format(samples="all").replace("trace = off", "trace = sched")), timeout=120)
    assert r.rc in (0, 3), r.stderr[-2000:]
    s = r.summary()
    page = r.dir / "report.html"
    assert page.exists()
    for edit, words in (({"trace": dict(s["trace"], worst="not a list")}, "trace.worst: expected an array, found a string"),
                        ({"threads": {"control": 1}}, "threads: expected an array, found an object"),
                        ({"threads": [dict(s["threads"][0], worst=None)]}, "threads[0].worst: expected an array, found null"),
                        ({"t_measure_ns": "soon"}, "t_measure_ns: expected an integer, found a string")):
        json.dump(dict(s, **edit), open(r.dir / "summary.json", "w"))
        page.unlink(missing_ok=True)
        out = jl("report", str(r.dir), "--html", "--no-plots", timeout=60)
        assert out.rc == 2 and words in out.stderr and "summary.json" in out.stderr, (words, out.stderr[-2000:])
        assert not page.exists()
    worst = [{"thread": None, "cycle": "x", "parts": []}, {"thread": "control", "cycle": 1.5, "parts": []}]
    odd = dict(s, trace=dict(s["trace"], worst=worst))
    json.dump(odd, open(r.dir / "summary.json", "w"))
    out = jl("report", str(r.dir), "--html", "--no-plots", timeout=60)
    assert out.rc == 0, out.stderr[-2000:]
    d = page_data(page)
    assert d["summary"] == odd and all(not x["explained"] for x in d["series"].values())
