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
        # the bin width is the smallest 1-2-5 step that keeps every latency in the 400 bins; the largest bin
        # holds the largest latency
        w = ser["hist"]["width"]
        assert w == widest_needed(max(lat)), (w, max(lat))
        assert ser["hist"]["bins"][-1][0] == max(lat) // w * w
        misses = sum(x["miss"] == "1" for x in rows)
        assert ser["misses_total"] == misses and len(ser["misses"]) == min(misses, 2000)
        p99 = next(t for t in s["threads"] if t["name"] == name)["latency_ns"]["p99"]
        assert ser["spike_from_ns"] == p99
        big = sorted((v for v in lat if v >= p99), reverse=True)
        assert ser["spikes_total"] == len(big) and sorted((p[1] for p in ser["spikes"]), reverse=True) == big[:2000]
        # the period distribution: samples.csv's own column (each row but a series' first)
        per = [int(x["period_ns"]) for x in rows if int(x["period_ns"]) > 0]
        assert sum(b[1] for b in ser["period"]["bins"]) == len(per)


def widest_needed(mx, last_bin=399):
    """the smallest of 1, 2, 5, 10, 20, 50 ... ns that puts MX in bin LAST_BIN or below (by trying them)"""
    w = 1
    while mx // w > last_bin:
        w = {1: 2, 2: 5, 5: 10}.get(int(str(w)[0]), 10) * 10 ** (len(str(w)) - 1)
    return w


def fixture(d, rows, summary):
    """a run directory made here: samples.csv from ROWS (thread, cycle, release, latency, period, miss) and
    summary.json"""
    d.mkdir()
    with open(d / "samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow("thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped,release_by".split(","))
        for th, cyc, rel, lat, per, miss in rows:
            w.writerow([th, cyc, rel, rel + lat, rel + lat + 1000, lat, per, lat + 1000, miss, 0, "own"])
    json.dump(summary, open(d / "summary.json", "w"))


def test_kept_rows_only_periods_are_the_columns(jl, tmp_path):
    """samples = worst keeps windows of rows with gaps between them (here two windows of 10 cycles, 490 cycles
    apart): a period drawn from one kept row's wake to the next would span the gap (490 ms). The page's period
    distribution is samples.csv's period column (1 ms each, the first row's 0 left out)."""
    t0, ms = 10**12, 10**6
    rows = [("control", c, t0 + c * ms, 30000, 0 if c == 0 else ms, 0) for c in list(range(10)) + list(range(500, 510))]
    fixture(tmp_path / "kept", rows, {"tool": "jitterlab", "kind": "run", "scenario": "kept", "exit_status": 0,
                                      "samples": {"mode": "worst"}, "t_measure_ns": t0,
                                      "threads": [{"name": "control", "measured": True, "cycles": 600, "misses": 3,
                                                   "latency_ns": {"p99": 30000}}]})
    out = jl("report", str(tmp_path / "kept"), "--html", "--no-plots", timeout=60)
    assert out.rc == 0, out.stderr[-2000:]
    per = page_data(tmp_path / "kept" / "report.html")["series"]["control"]["period"]
    assert per["width"] == widest_needed(ms) and per["bins"] == [[ms, 19]], per


def test_spikes_keep_the_largest(jl, tmp_path):
    """5,000 cycles with distinct latencies, 3,000 of them at or above the p99 summary.json gives: all 3,000
    counted, the 2,000 largest kept (the rest given way to larger ones as the file is read in an order that
    is not the latencies')."""
    t0, ms = 10**12, 10**6
    lats = [(i * 7919) % 5000 * 100 + 1000 for i in range(5000)]  # a permutation of 1000 + 100 k
    assert len(set(lats)) == 5000
    rows = [("control", i, t0 + i * ms, lat, ms if i else 0, 0) for i, lat in enumerate(lats)]
    p99 = sorted(lats)[2000]
    fixture(tmp_path / "spikes", rows, {"tool": "jitterlab", "kind": "run", "scenario": "spikes", "exit_status": 0,
                                        "t_measure_ns": t0, "threads": [{"name": "control", "measured": True,
                                                                         "cycles": 5000, "latency_ns": {"p99": p99}}]})
    out = jl("report", str(tmp_path / "spikes"), "--html", "--no-plots", timeout=60)
    assert out.rc == 0, out.stderr[-2000:]
    ser = page_data(tmp_path / "spikes" / "report.html")["series"]["control"]
    assert ser["spikes_total"] == 3000
    assert sorted(p[1] for p in ser["spikes"]) == sorted(lats)[-2000:]
    for t, lat, cyc in ser["spikes"]:  # each kept with its own time and cycle
        assert lats[cyc] == lat and abs(t - cyc * 1e-3) < 1e-6


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


def test_a_hand_edited_comparison_and_compare_into_a_run(jl, scenario, tmp_path):
    """compare.json whose containers have another type: `report` names the key, exit 2; compare --out into a
    run's directory is refused (exit 2) and leaves it a run's."""
    path = scenario("cmpd", RUN.format(samples="all"))
    dirs = []
    for _ in range(2):
        r = jl("run", path, timeout=120)
        assert r.rc in (0, 3), r.stderr[-2000:]
        dirs.append(r.dir)
    cmpdir = tmp_path / "cmp"
    out = jl("compare", str(dirs[0]), str(dirs[1]), "--out", str(cmpdir), timeout=60)
    assert out.rc in (0, 3), out.stderr[-2000:]
    good = json.load(open(cmpdir / "compare.json"))
    assert jl("report", str(cmpdir), "--json", "--no-plots", timeout=60).rc == 0
    for edit, words in (({"only_in_baseline": None}, "only_in_baseline: expected an array, found null"),
                        ({"conditions": [{"metrics": {"x": 1}}]}, "conditions[0].metrics: expected an array, found an object")):
        json.dump(dict(good, **edit), open(cmpdir / "compare.json", "w"))
        out = jl("report", str(cmpdir), "--no-plots", timeout=60)
        assert out.rc == 2 and words in out.stderr and "compare.json" in out.stderr, (words, out.stderr[-2000:])
    before = sorted((p.name, p.stat().st_mtime_ns) for p in dirs[1].iterdir())
    out = jl("compare", str(dirs[0]), str(dirs[1]), "--out", str(dirs[1]), timeout=60)
    assert out.rc == 2 and "holds summary.json" in out.stderr, out.stderr[-2000:]
    assert sorted((p.name, p.stat().st_mtime_ns) for p in dirs[1].iterdir()) == before
    assert json.loads(jl("report", str(dirs[1]), "--json", "--no-plots", timeout=60).stdout)["kind"] == "run"
