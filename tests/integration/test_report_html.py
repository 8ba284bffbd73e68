"""report.html, one self-contained page per run, checked in a real browser (Debian's headless chromium):
rendered (a non-blank screenshot), its DOM holding the verdict, each loop's p99 and the first explained cycle's
parts, no console error, no request refused (its Content-Security-Policy allows nothing but its own script),
printed to A4. Names and values from the run are text, never markup. A key or a part kind the page's code has
never heard of still shows. A long run's page stays small."""
import csv
import json
import os
import re
import shutil
import subprocess
import time
import zlib
from html.parser import HTMLParser

import pytest

from conftest import BIN, chromium_binary

CHROMIUM = chromium_binary()
pytestmark = pytest.mark.package("chromium")

HOSTILE = "<script>alert(1)</script>&amp;"
RUN = """
    [run]
    duration = 2s
    warmup = 300ms
    trace = sched

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 1kHz
    deadline = 500us
    work = spin 50us

    [thread spinner]
    policy = fifo
    priority = 90
    cpus = 1
    rate = 20Hz
    work = spin 2ms
    measure = no

    [thread odd]
    exec = /bin/sh -c "sleep 30 # %s"
    cpus = 0
""" % HOSTILE


def chromium(*args, timeout=120):
    """chromium headless as root (no sandbox), its log on stderr"""
    cmd = [CHROMIUM, "--headless", "--no-sandbox", "--disable-gpu", "--no-first-run", "--disable-extensions",
           "--enable-logging=stderr", "--v=0", *args]
    env = dict(os.environ, HOME=os.environ.get("HOME", "/root"))
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=env)


class Text(HTMLParser):
    """every text node, the script elements, the table cells by row"""

    def __init__(self):
        super().__init__()
        self.text, self.scripts, self.rows, self.row, self.cell = [], 0, [], None, None

    def handle_starttag(self, tag, attrs):
        if tag == "script":
            self.scripts += 1
        if tag == "tr":
            self.row = []
        if tag in ("td", "th"):
            self.cell = ""

    def handle_endtag(self, tag):
        if tag in ("td", "th") and self.row is not None:
            self.row.append(self.cell)
            self.cell = None
        if tag == "tr" and self.row is not None:
            self.rows.append(self.row)
            self.row = None

    def handle_data(self, data):
        self.text.append(data)
        if self.cell is not None:
            self.cell += data


def dom(path):
    r = chromium("--dump-dom", "file://" + str(path))
    assert r.returncode == 0, r.stderr[-2000:]
    # the page logs nothing: any console line (an uncaught exception, a load its Content-Security-Policy
    # blocked, which chromium logs as "violates the following Content Security Policy directive") or a
    # network error means it is not what it should be (both seen in a tampered copy)
    bad = [l for l in r.stderr.splitlines() if ":CONSOLE" in l or "Uncaught" in l or "Content Security Policy" in l
           or "Refused to" in l or "net::ERR" in l]
    assert not bad, bad
    p = Text()
    p.feed(r.stdout)
    return r.stdout, p


def ns_of(cell):
    """'34.3 us' -> 34300 (the page's unit words)"""
    m = re.fullmatch(r"(-?[0-9.]+) (ns|us|ms|s)", cell.strip())
    assert m, cell
    return float(m.group(1)) * {"ns": 1, "us": 1e3, "ms": 1e6, "s": 1e9}[m.group(2)]


def png_varied(path):
    """a PNG whose image data holds many byte values (a blank page: one colour, a handful)"""
    b = open(path, "rb").read()
    assert b[:8] == b"\x89PNG\r\n\x1a\n"
    data, i = b"", 8
    while i < len(b):
        n = int.from_bytes(b[i:i + 4], "big")
        kind = b[i + 4:i + 8]
        if kind == b"IDAT":
            data += b[i + 8:i + 8 + n]
        i += 12 + n
    return len(set(zlib.decompress(data))) > 40


def looks_and_prints(page, tmp_path):
    """rendered: a screenshot that is not blank; printed: A4 pages (595 x 842 points)"""
    shot = tmp_path / (page.parent.name + ".png")
    r2 = chromium("--screenshot=" + str(shot), "--window-size=1000,1400", "file://" + str(page))
    assert r2.returncode == 0 and shot.exists(), r2.stderr[-2000:]
    assert png_varied(shot)
    pdf = tmp_path / (page.parent.name + ".pdf")
    r3 = chromium("--print-to-pdf=" + str(pdf), "--no-pdf-header-footer", "file://" + str(page))
    assert r3.returncode == 0 and pdf.exists(), r3.stderr[-2000:]
    boxes = re.findall(rb"/MediaBox\s*\[\s*0 0 ([0-9.]+) ([0-9.]+)\s*\]", pdf.read_bytes())
    assert boxes, "no MediaBox"
    for wd, ht in boxes:
        assert abs(float(wd) - 595.3) < 2 and abs(float(ht) - 841.9) < 2, (wd, ht)


def test_run_page_in_a_browser(jl, scenario, tmp_path):
    path = scenario("page", RUN)
    r = jl("run", path, timeout=120)
    assert r.rc in (0, 3), r.stderr[-2000:]
    page = r.dir / "report.html"
    assert page.exists()
    s = r.summary()
    html, p = dom(page)
    text = "".join(p.text)
    assert 'data-rendered="yes"' in html
    # only the page's own two scripts: the data and the renderer (the hostile command line stayed text)
    assert p.scripts == 2, p.scripts
    assert HOSTILE in text
    assert "Content-Security-Policy" in open(page).read()
    # the verdict
    assert "exit %d: " % s["exit_status"] in text
    # each loop's p99, in the loops' table, against summary.json (within the page's rounding)
    head = [row for row in p.rows if row and row[0] == "name"][0]
    for t in [t for t in s["threads"] if t["measured"]]:
        row = [row for row in p.rows if row and row[0] == t["name"]][0]
        shown = ns_of(row[head.index("p99")])
        assert abs(shown - t["latency_ns"]["p99"]) <= 0.01 * t["latency_ns"]["p99"] + 1, (shown, t["latency_ns"]["p99"])
    # the first explained cycle: its title and each of its parts' names
    w = s["trace"]["worst"][0]
    assert "%s cycle %d" % (w["thread"], w["cycle"]) in text
    for part in w["parts"]:
        if part["duration_ns"] > 0:
            assert part["name"] in text, part["name"]
    # the tail and the plots
    assert "What each loop's latency tail is made of" in text
    assert html.count("<polyline") >= 2 and "latency over time" in text
    looks_and_prints(page, tmp_path)


def test_unknown_key_and_part_kind_show(jl, scenario, tmp_path):
    """A key and a part kind the page's code never heard of appear in the rendered DOM."""
    path = scenario("page2", RUN.replace("2s", "1s"))
    r = jl("run", path, timeout=120)
    assert r.rc in (0, 3), r.stderr[-2000:]
    d = tmp_path / "copy"
    shutil.copytree(r.dir, d)
    s = json.load(open(d / "summary.json"))
    s["zz_synthetic_key"] = {"zz_inner": 12345}
    s["trace"]["worst"][0]["parts"].append({"kind": "zz-synthetic-kind", "name": "zz synthetic part", "pid": -1,
                                            "prio": 0, "duration_ns": 5000})
    json.dump(s, open(d / "summary.json", "w"))
    out = jl("report", str(d), "--html", "--no-plots", timeout=60)
    assert out.rc == 0, out.stderr[-2000:]
    assert "report: %s/report.html" % d in out.stdout
    html, p = dom(d / "report.html")
    text = "".join(p.text)
    for want in ("zz_synthetic_key", "zz_inner", "12345", "zz-synthetic-kind", "zz synthetic part"):
        assert want in text, want


def test_a_long_runs_page_stays_small(jl, tmp_path):
    """A day's samples (here 300,000 rows over 24 h and 20,000 misses, a fixture made here) make a page of
    under 3 MB: 800 columns, 400 bins a histogram, the first 2,000 misses marked, every miss counted."""
    d = tmp_path / "long"
    d.mkdir()
    t0, n, day = 10**12, 300000, 86400 * 10**9
    with open(d / "samples.csv", "w", newline="") as f:
        w = csv.writer(f)
        w.writerow("thread,cycle,release_ns,wake_ns,end_ns,latency_ns,period_ns,response_ns,miss,skipped,release_by".split(","))
        for i in range(n):
            rel = t0 + i * day // n
            lat = 20000 + (i * 7919) % 50000 + (5000000 if i % 15 == 0 else 0)
            miss = 1 if i % 15 == 0 else 0
            w.writerow(["control", i, rel, rel + lat, rel + lat + 50000, lat, day // n, lat + 50000, miss, 0, "own"])
    s = {"tool": "jitterlab", "kind": "run", "scenario": "long", "exit_status": 0, "duration_ns": day,
         "t_measure_ns": t0, "threads": [{"name": "control", "measured": True, "cycles": n, "misses": n // 15,
                                          "latency_ns": {"p99": 5000000}}]}
    json.dump(s, open(d / "summary.json", "w"))
    out = jl("report", str(d), "--html", "--no-plots", timeout=120)
    assert out.rc == 0, out.stderr[-2000:]
    size = (d / "report.html").stat().st_size
    assert size < 3 * 2**20, size
    html, p = dom(d / "report.html")
    text = "".join(p.text)
    assert "%d missed (2000 marked)" % (n // 15) in text, text[-2000:]


SWEEP = """
    [run]
    duration = 1s
    warmup = 200ms
    trace = sched

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 1kHz
    work = spin 50us

    [thread hog]
    policy = other
    cpus = 1
    work = sleep 100ms
    measure = no

    [sweep]
    runs = 2
    condition.quiet = hog.work=sleep 100ms
    condition.busy = hog.work=sin 50000000
"""


def test_sweep_page_in_a_browser(jl, scenario, tmp_path):
    """A sweep's report.html: every condition, a strip plot per metric, the verdicts and the tails; nothing
    logged. `report --html` on the sweep's directory writes the same page again."""
    path = scenario("pagesweep", SWEEP)
    r = jl("sweep", path, timeout=240)
    assert r.rc in (0, 3), r.stderr[-2000:]
    d = (tmp_path / "out" / "pagesweep" / "latest").resolve()
    sw = json.load(open(d / "sweep.json"))
    assert "report.html" in r.stdout
    html, p = dom(d / "report.html")
    text = "".join(p.text)
    assert 'data-rendered="yes"' in html and p.scripts == 2
    for c in sw["conditions"]:
        assert c["label"] in text
    # a strip plot per metric of the loop, each condition's runs as points
    assert html.count("each run (points) and the mean (bar)") >= len(sw["metrics"])
    assert html.count("<circle") >= sum(len(c["stats"]["control"]["rate_hz"]["values"]) for c in sw["conditions"])
    first = sw["comparisons"][0]
    assert first["verdict"] in text
    assert "what the latency tail is made of" in text
    before = (d / "report.html").stat().st_mtime_ns
    again = jl("report", str(d), "--html", "--no-plots", timeout=60)
    assert again.rc == 0 and "report: %s/report.html" % d in again.stdout, again.stderr[-2000:]
    assert (d / "report.html").stat().st_mtime_ns >= before
    dom(d / "report.html")
    looks_and_prints(d / "report.html", tmp_path)


def two_runs(jl, scenario, tmp_path):
    """Two short runs of the loop, with a gate: their run directories"""
    text = RUN.replace("2s", "1s") + """
    [gate]
    p99 = control.latency.p99 <= baseline + 50%
"""
    dirs, path = [], scenario("sides", text)
    for _ in range(2):
        r = jl("run", path, timeout=120)
        assert r.rc in (0, 3), r.stderr[-2000:]
        dirs.append(r.dir)
    return dirs


def test_comparison_and_runs_pages_in_a_browser(jl, scenario, tmp_path):
    """compare --out writes the comparison's page: each gate's verdict, baseline against new metric by metric
    (each run's value, the means, the change), as compare.json says; report --html --out puts both runs on one
    page, each loop's p99 in its table."""
    a, b = two_runs(jl, scenario, tmp_path)
    out = jl("compare", str(a), str(b), "--out", str(tmp_path / "cmp"), "--gate", "control.latency.p99 no worse",
             timeout=60)
    assert out.rc in (0, 3), out.stderr[-2000:]
    page = tmp_path / "cmp" / "report.html"
    cmp = json.load(open(tmp_path / "cmp" / "compare.json"))
    html, p = dom(page)
    text = "".join(p.text)
    assert 'data-rendered="yes"' in html and p.scripts == 2
    # the gates: one row each, its status as compare.json has it (1 run a side: no verdict, which fails)
    gate_rows = {row[0]: row for row in p.rows if row and row[0] in {g["label"] for g in cmp["gates"]}}
    for g in cmp["gates"]:
        assert gate_rows[g["label"]][4] == g["status"].upper(), (gate_rows[g["label"]], g["status"])
    assert ("%d of %d gate(s) failed" % (cmp["gates_failed"], len(cmp["gates"]))) in text
    # each metric: the sides' runs and means as compare.json gives them (the p99's, read back with its unit)
    head = [row for row in p.rows if row and row[:2] == ["series", "metric"]][0]
    for m in cmp["conditions"][0]["metrics"]:
        row = [row for row in p.rows if row and row[:2] == [m["series"], m["metric"]]][0]
        assert row[head.index("verdict")] == m["verdict"]
        if m["metric"] == "latency.p99":
            for side in ("baseline", "new"):
                shown = ns_of(row[head.index("mean " + side)])
                assert abs(shown - m["mean_" + side]) <= 0.01 * m["mean_" + side] + 1, (shown, m)
                assert len(m["values_" + side]) == 1 and ns_of(row[head.index(side + " (each run)")]) == shown
    # a change's dot per metric with a relative change (a baseline mean of 0 has none)
    assert html.count("<circle") >= sum(m["change_relative"] is not None for m in cmp["conditions"][0]["metrics"]) > 0
    looks_and_prints(page, tmp_path)
    # both runs on one page
    out = jl("report", str(a), str(b), "--html", "--no-plots", "--out", str(tmp_path / "both"), timeout=60)
    assert out.rc == 0 and "(2 runs)" in out.stdout, out.stderr[-2000:]
    html, p = dom(tmp_path / "both" / "report.html")
    text = "".join(p.text)
    assert str(a) in text and str(b) in text
    for i, d in enumerate((a, b)):
        s = json.load(open(d / "summary.json"))
        t = next(t for t in s["threads"] if t["name"] == "control")
        row = [row for row in p.rows if row[:2] == ["run %d" % (i + 1), "control"]][0]
        assert abs(ns_of(row[6]) - t["latency_ns"]["p99"]) <= 0.01 * t["latency_ns"]["p99"] + 1, (row, t["latency_ns"])
    # --out without --html is refused, touching nothing
    out = jl("report", str(a), "--out", str(tmp_path / "nohtml"), timeout=60)
    assert out.rc == 2 and not (tmp_path / "nohtml").exists()


@pytest.mark.skipif(not shutil.which("cyclictest"), reason="needs cyclictest (rt-tests)")
def test_watch_page_in_a_browser(tmp_path):
    """A watch's page of a program nobody here wrote (an unmodified cyclictest, its loop FIFO 60 on CPU 1): the
    spikes on the wall clock, one row per watched thread, and the largest of them in a table whose first row
    is the largest latency in samples.csv, at a time of day inside the watch."""
    prog = subprocess.Popen(["cyclictest", "-m", "-q", "-p60", "-a1", "-t1", "-i1000", "-D", "60",
                             "--mainaffinity=0"], stdout=subprocess.DEVNULL)
    time.sleep(0.5)
    try:
        out = tmp_path / "out"
        before = time.time()
        r = subprocess.run([BIN, "watch", "--out", str(out), "--pid", str(prog.pid), "-D", "3", "--cpus", "0-1"],
                           capture_output=True, text=True, timeout=120)
        after = time.time()
    finally:
        prog.kill()
        prog.wait()
    assert r.returncode == 0, r.stderr[-2000:]
    d = (out / "watch" / "latest").resolve()
    s = json.load(open(d / "summary.json"))
    html, p = dom(d / "report.html")
    text = "".join(p.text)
    assert "Spikes over the watch" in text
    series = [t for t in s["threads"] if t.get("kind") == "wakeups"]
    assert series
    # as a run's page: the verdict, each watched thread's p99, the first explained cycle's parts
    assert "exit %d: " % s["exit_status"] in text
    head = [row for row in p.rows if row and row[0] == "name"][0]
    for t in series:
        row = [row for row in p.rows if row and row[0] == t["name"]][0]
        assert abs(ns_of(row[head.index("p99")]) - t["latency_ns"]["p99"]) <= 0.01 * t["latency_ns"]["p99"] + 1
    w = s["trace"]["worst"][0]
    assert "%s cycle %d" % (w["thread"], w["cycle"]) in text
    assert all(part["name"] in text for part in w["parts"] if part["duration_ns"] > 0)
    lat = {}
    with open(d / "samples.csv", newline="") as f:
        for row in csv.DictReader(f):
            lat.setdefault(row["thread"], []).append(int(row["wake_ns"]) - int(row["release_ns"]))
    head = [row for row in p.rows if row and row[0] == "when (UTC)"][0]
    first = p.rows[p.rows.index(head) + 1]
    biggest = max((max(v), n) for n, v in lat.items())
    assert first[1] == biggest[1] and abs(ns_of(first[3]) - biggest[0]) <= 0.01 * biggest[0] + 1, (first, biggest)
    # its time of day (UTC) is inside the watch as this test's own clock saw it: between the command's start
    # and its end (a day's wrap allowed for)
    hh, mm, sec = first[0].split(":")
    shown = int(hh) * 3600 + int(mm) * 60 + float(sec)
    assert (shown - before) % 86400 <= after - before, (first[0], before % 86400, after % 86400)
    looks_and_prints(d / "report.html", tmp_path)
