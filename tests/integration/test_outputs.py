"""Every file the tool writes, parsed: after a sweep (2 conditions x 1 run, one of them traced) and after a
`jitterlab cyclictest`, the whole output tree is walked and each file is parsed by its type (a type this file
does not know fails the test, and so does a leftover temporary file). Run-level scenario.ini files are run
back through `jitterlab run`. Also: a traced run killed with SIGKILL leaves nothing after `jitterlab restore`,
and `jitterlab report` without gnuplot on PATH prints a note instead of failing.

Which .ini files are runnable (rt/cmd/sweep.c, rt/cmd/cyclictest.c): a sweep's top-level scenario.ini is the base
scenario with its [sweep] section (a record for `jitterlab sweep`, not one run); <condition>/scenario.ini,
a comparison's jitterlab.ini and cyclictest-rN.ini are the scenarios the child runs executed; each run
directory's scenario.ini is that run's effective scenario. All are parsed as INI here (strict: no duplicate
section or key); only the run-level ones are run back (300 ms), as the brief of this file asks.

Runs are 2 s; assertions are structural (2-CPU VM shared with other jobs). Only CPU 1 gets RT threads."""
import configparser
import csv
import json
import os
import pathlib
import re
import shutil
import signal
import subprocess
import xml.etree.ElementTree as ET

import pytest

from conftest import BIN, NCPU, wait_for_thread

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the loops, CPU 0 kept free)")

TRACEFS = pathlib.Path("/sys/kernel/tracing/instances")
STATE = pathlib.Path(os.environ.get("JITTERLAB_STATE_DIR") or "/run/jitterlab")


SWEEP = """
    ; 2 conditions x 1 run of 2 s; only the 'traced' condition records a trace
    [run]
    duration = 2s
    warmup = 200ms
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [sweep]
    runs = 1
    condition.plain = control.priority=80
    condition.traced = run.trace=sched
"""

CYCLICTEST = """
    ; a 1 kHz FIFO loop on CPU 1 with a CFS neighbour on the same CPU, 2 s
    [run]
    duration = 2s
    warmup = 200ms
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

KILLED = """
    ; a traced 100 Hz loop on CPU 1, killed mid-run
    [run]
    duration = 20s
    warmup = 0s
    trace = sched

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us
"""


# ---- the tree walker ----


def check_html(p):
    """report.html: a page whose only active content is its own nonce'd script, whose data (inline JSON) is
    the run's summary.json as written beside it"""
    text = p.read_text(encoding="utf-8")
    assert text.startswith("<!DOCTYPE html>"), p
    csp = re.search(r'<meta http-equiv="Content-Security-Policy" content="([^"]+)">', text)
    assert csp and csp.group(1).startswith("default-src 'none'"), p
    m = re.search(r'<script type="application/json" id="jl-data">(.*?)</script>', text, re.S)
    assert m and "<" not in m.group(1), p
    data = json.loads(m.group(1))
    assert text.count("<script") == 2, p
    summary = p.parent / "summary.json"
    if summary.exists():
        with open(summary, encoding="utf-8") as f:
            assert data["summary"] == json.load(f), p

def is_run_dir(d):
    """A run directory holds the run's summary.json (sweeps and comparisons hold sweep.json/cyclictest.json)."""
    return (d / "summary.json").is_file()


def parse_ini(path):
    cp = configparser.ConfigParser(delimiters=("=",), comment_prefixes=(";", "#"), inline_comment_prefixes=None,
                                   strict=True, interpolation=None, empty_lines_in_values=False)
    cp.optionxform = str
    cp.read_string(path.read_text(encoding="utf-8"), source=str(path))
    sections = cp.sections()
    assert "run" in sections, f"{path}: no [run] section: {sections}"
    threads = [s for s in sections if s.startswith(("thread ", "executor "))]
    assert threads, f"{path}: no [thread NAME] or [executor NAME] section: {sections}"
    for s in sections:
        assert s in ("run", "expect", "sweep") or s.startswith(("thread ", "executor ", "callback ")), \
            f"{path}: unknown section [{s}]"
        for k, v in cp.items(s):
            assert k and v.strip(), f"{path}: [{s}] {k!r} has no value"
    return cp


def check_csv(path):
    with open(path, newline="", encoding="utf-8") as f:
        rows = list(csv.reader(f))
    assert rows, f"{path}: empty CSV"
    header = rows[0]
    assert header and all(h.strip() for h in header), f"{path}: bad header {header}"
    assert len(set(header)) == len(header), f"{path}: duplicate columns {header}"
    bad = [(i + 2, r) for i, r in enumerate(rows[1:]) if len(r) != len(header)]
    assert not bad, f"{path}: rows not {len(header)} wide: {bad[:5]}"
    return rows


def check_trace_dat(path):
    p = subprocess.run(["trace-cmd", "report", str(path)], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=120)
    assert p.returncode == 0, f"trace-cmd report {path}: exit {p.returncode}\n{p.stderr.decode(errors='replace')[-2000:]}"
    assert b"sched_switch" in p.stdout, f"trace-cmd report {path}: no sched_switch event in a sched trace"


def run_files():
    """The run directory's files as `jitterlab list` prints its registry ("run files"): {name pattern: when}.
    THREAD in a name stands for a thread's name."""
    out = subprocess.run([BIN, "list"], capture_output=True, text=True, timeout=30, check=True).stdout
    section = out.split("\nrun files", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    rows = {}
    for line in section:
        name = line.split()[0]
        rows[re.escape(name).replace("THREAD", "[A-Za-z0-9_.-]+")] = line.rsplit("; ", 1)[1].rstrip(")")
    assert len(rows) >= 10 and any(w == "every run" for w in rows.values()), rows
    return rows


RUN_FILES = None


def documents():
    """The directory documents `jitterlab list` prints ("directory documents"): their file names."""
    out = subprocess.run([BIN, "list"], capture_output=True, text=True, timeout=30, check=True).stdout
    section = out.split("\ndirectory documents", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    names = {line.split()[0] for line in section}
    assert {"summary.json", "sweep.json"} <= names, names
    return names


def summary_keys():
    """summary.json's keys as `jitterlab list --keys` prints its registry: ({key: {places}}, {map places})."""
    out = subprocess.run([BIN, "list", "--keys"], capture_output=True, text=True, timeout=30, check=True).stdout
    keys, maps = {}, set()
    for line in out.splitlines():
        key, places, meaning = line.split("\t")
        assert meaning.strip() and places.strip(), f"a key without its places or meaning: {line!r}"
        if key == "*":
            maps.add(places)
        else:
            assert key not in keys, f"{key}: declared twice"
            keys[key] = set(places.split(" "))
    assert len(keys) >= 100 and {"tool", "threads", "latency_ns", "p99"} <= set(keys), sorted(keys)[:20]
    return keys, maps


SUMMARY_KEYS = None


def undeclared_keys(doc):
    """The (place, key) pairs of summary.json document DOC the registry does not declare there. A place is
    "." (the document), a key path with [] for each element of an array and .* for each member of a map."""
    global SUMMARY_KEYS
    SUMMARY_KEYS = SUMMARY_KEYS or summary_keys()
    keys, maps = SUMMARY_KEYS
    bad = set()

    def visit(o, place):
        if isinstance(o, dict):
            if place in maps:
                for v in o.values():
                    visit(v, place + ".*")
                return
            for k, v in o.items():
                if place not in keys.get(k, ()):
                    bad.add((place, k))
                visit(v, k if place == "." else f"{place}.{k}")
        elif isinstance(o, list):
            for v in o:
                visit(v, place + "[]")

    visit(doc, ".")
    return bad


def check_run_dir(d):
    """Every file of run directory D is one the registry names, and those it says every run has are there;
    every key of its summary.json is declared where it stands."""
    global RUN_FILES
    with open(d / "summary.json", encoding="utf-8") as f:
        bad = undeclared_keys(json.load(f))
    assert not bad, f"{d}/summary.json: keys `jitterlab list --keys` does not declare there: {sorted(bad)}"
    # the readers' shape check (summary_read.c) takes every summary a run writes
    r = subprocess.run([BIN, "report", "--json", "--no-plots", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]
    RUN_FILES = RUN_FILES or run_files()
    names = [p.name for p in d.iterdir() if p.is_file() and not p.is_symlink()]
    for n in names:
        assert any(re.fullmatch(pat, n) for pat in RUN_FILES), f"{d / n}: a file the registry of run files does not name"
    for pat, when in RUN_FILES.items():
        if when == "every run":
            assert any(re.fullmatch(pat, n) for n in names), f"{d}: no {pat}, which every run writes"


def walk(root):
    """Parse every file under ROOT by its type. Returns {kind: [paths]} and the run-level scenario.ini files."""
    root = pathlib.Path(root).resolve()
    seen = {}
    run_inis = []
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        d = pathlib.Path(dirpath)
        for name in dirnames + filenames:
            p = d / name
            if name.startswith("."):
                pytest.fail(f"temporary or hidden file left in the output tree: {p}")
            if p.is_symlink():
                assert name == "latest", f"unexpected symlink {p} -> {os.readlink(p)}"
                target = p.resolve()
                assert target.is_dir(), f"{p} -> {os.readlink(p)} does not resolve to a directory"
                assert target.is_relative_to(root) and target != root, f"{p} resolves outside the tree: {target}"
                assert target.parent == d, f"{p} points at {target}, not at a sibling run directory"
                seen.setdefault("latest", []).append(p)
                continue
            if p.is_dir():
                if is_run_dir(p):
                    check_run_dir(p)
                continue
            assert p.is_file(), f"{p} is not a plain file"
            if name.endswith(".json"):
                with open(p, encoding="utf-8") as f:
                    doc = json.load(f)
                assert isinstance(doc, dict) and doc, f"{p}: not a JSON object"
                kind = "json"
            elif name.endswith(".csv"):
                check_csv(p)
                kind = "csv"
            elif name.endswith(".ini"):
                parse_ini(p)
                if name == "scenario.ini" and is_run_dir(d):
                    run_inis.append(p)
                kind = "ini"
            elif name.endswith(".svg"):
                tree = ET.parse(p)
                assert tree.getroot().tag.rsplit("}", 1)[-1] == "svg", f"{p}: root is {tree.getroot().tag}"
                kind = "svg"
            elif name.endswith(".md"):
                text = p.read_bytes().decode("utf-8")
                assert text.strip(), f"{p}: empty"
                kind = "md"
            elif name.endswith(".log"):
                text = p.read_bytes().decode("utf-8")
                assert "\x00" not in text, f"{p}: NUL bytes in a log"
                kind = "log"
            elif name == "trace.dat":
                check_trace_dat(p)
                kind = "dat"
            elif name == "histogram.txt":
                check_histfile(p)
                kind = "hist"
            elif name.endswith(".html"):
                check_html(p)
                kind = "html"
            else:
                pytest.fail(f"file of a type this test does not know: {p}")
            seen.setdefault(kind, []).append(p)
    return seen, run_inis


def check_histfile(p):
    """cyclictest's --histfile format: "# Histogram", rows of a 6-digit us bucket and one count per loop
    (tab-separated), then # Total (the sum of each column), # Min/Avg/Max Latencies, # Histogram
    Overflows, and one "# Thread N:" line per loop"""
    lines = p.read_text().splitlines()
    assert lines[0] == "# Histogram", p
    rows = [l for l in lines[1:] if l and not l.startswith("#")]
    assert rows, p
    ncol = len(rows[0].split()) - 1
    assert ncol >= 1
    for i, l in enumerate(rows):
        f = l.split()
        assert len(f[0]) == 6 and int(f[0]) == i and len(f) == ncol + 1, (p, l)
    tail = {l.split(":")[0]: l.split(":", 1)[1].split() for l in lines if l.startswith("# ") and ":" in l}
    totals = [sum(int(r.split()[1 + k]) for r in rows) for k in range(ncol)]
    assert [int(x) for x in tail["# Total"]] == totals, p
    for key in ("# Min Latencies", "# Avg Latencies", "# Max Latencies", "# Histogram Overflows"):
        assert len(tail[key]) == ncol, (p, key)
    assert sum(1 for l in lines if l.startswith("# Thread ")) == ncol, p


def run_back(inis, tmp_path):
    """Run each run-level scenario.ini back (300 ms) into its own directory, and walk what that wrote."""
    for i, ini in enumerate(inis):
        out = tmp_path / f"back{i}"
        p = subprocess.run([BIN, "run", str(ini), "--duration", "300ms", "--warmup", "0s", "--out", str(out), "--quiet"],
                           capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, f"{ini} does not run back: exit {p.returncode}\n{p.stdout}\n{p.stderr}"
        seen, _ = walk(out)
        assert len(seen.get("latest", [])) == 1 and seen.get("json") and seen.get("csv"), (ini, seen)
    ps = subprocess.run(["pgrep", "-f", str(tmp_path)], capture_output=True, text=True, timeout=10)
    assert ps.stdout.strip() == "", f"processes of this test still run after its runs ended: {ps.stdout}"


def rel(paths, root):
    return sorted(str(pathlib.Path(p).relative_to(root)) for p in paths)


# ---- 1. every file of a sweep and of a cyclictest comparison ----

def test_sweep_tree_parses(jl, scenario, tmp_path):
    path = scenario("outsweep", SWEEP)
    jl("sweep", path, timeout=120, check_rc=0)
    out = tmp_path / "out"
    d = (out / "outsweep" / "latest").resolve()
    s = json.load(open(d / "sweep.json"))
    runs = {c["label"]: pathlib.Path(c["runs"][0]["dir"]) for c in s["conditions"]}
    assert set(runs) == {"plain", "traced"}
    # the tool's plots too: a run's three plots and the sweep's strip plot (a note instead without gnuplot)
    jl("report", runs["traced"], timeout=60, check_rc=0)
    jl("report", d, timeout=60, check_rc=0)

    seen, run_inis = walk(out)
    # the structure a 2 x 1 sweep must have (each kind found where the tool writes it)
    assert rel(seen["latest"], out) == sorted(["outsweep/latest", f"{d.relative_to(out)}/plain/r1/latest",
                                               f"{d.relative_to(out)}/traced/r1/latest"])
    assert len(seen.get("dat", [])) == 1 and seen["dat"][0].parent == runs["traced"], seen.get("dat")
    assert not (runs["plain"] / "trace.dat").exists()
    assert {p.name for p in seen["json"]} >= {"sweep.json", "summary.json", "kernelshark.json"}
    assert {"sweep.json", "summary.json"} <= documents()  # the registry names what this tree is made of
    assert sorted(p.name for p in seen["csv"]) == ["parts.csv", "samples.csv", "samples.csv"]
    # parts.csv: the traced run's explained cycles, a row per part, as summary.json's trace.worst has them
    worst = json.load(open(runs["traced"] / "summary.json"))["trace"]["worst"]
    want = [(c["thread"], str(c["cycle"]), c["window"], str(k), p["kind"], p["name"], str(p["pid"]), str(p["duration_ns"]))
            for c in worst for k, p in enumerate(c["parts"])]
    with open(runs["traced"] / "parts.csv", newline="") as f:
        rows = list(csv.DictReader(f))
    got = [(r["thread"], r["cycle"], r["window"], r["part"], r["kind"], r["name"], r["pid"], r["duration_ns"]) for r in rows]
    assert want and got == want
    assert {p.name for p in seen["log"]} == {"r1.log"} and len(seen["log"]) == 2
    assert len(seen["md"]) == 3  # the sweep's report.md and each run's
    assert sorted(run_inis) == sorted([runs["plain"] / "scenario.ini", runs["traced"] / "scenario.ini"])
    assert len(seen["ini"]) == 5  # the sweep's, each condition's, each run's
    if shutil.which("gnuplot"):
        names = {p.name for p in seen.get("svg", [])}
        assert names >= {"strip-control.svg", "latency-hist.svg", "latency-cycle.svg", "ticks.svg"}, names
    # the INI files say what they are: the sweep's keeps [sweep], each condition's carries its override
    top = parse_ini(d / "scenario.ini")
    assert top.has_section("sweep") and top["run"]["trace"] == "off"
    assert parse_ini(d / "plain" / "scenario.ini")["run"]["trace"] == "off"
    assert parse_ini(d / "traced" / "scenario.ini")["run"]["trace"] == "sched"
    assert parse_ini(runs["traced"] / "scenario.ini")["run"]["trace"] == "sched"

    run_back(run_inis, tmp_path)


@pytest.mark.package("rt-tests")
def test_cyclictest_tree_parses(jl, scenario, tmp_path):
    path = scenario("outct", CYCLICTEST)
    jl("cyclictest", path, timeout=120, check_rc=0)
    out = tmp_path / "out"
    d = (out / "outct" / "latest").resolve()

    seen, run_inis = walk(out)
    r = str(d.relative_to(out))
    assert rel(seen["latest"], out) == sorted(["outct/latest", f"{r}/cyclictest/r1/latest", f"{r}/jitterlab/r1/latest"])
    assert {p.name for p in seen["json"]} == {"cyclictest.json", "cyclictest-control-r1.json", "summary.json"}
    assert {"cyclictest.json", "summary.json"} <= documents()
    assert len(seen["csv"]) == 2 and "dat" not in seen
    assert {p.name for p in seen["ini"] if p.parent == d} == {"jitterlab.ini", "cyclictest-r1.ini"}
    assert {p.name for p in seen["log"] if p.parent == d} == {"jitterlab-r1.log", "cyclictest-r1.log"}
    assert len(run_inis) == 2
    # the comparison's INI files: cyclictest-r1.ini runs cyclictest in the loop's place, jitterlab.ini the loop
    ct = parse_ini(d / "cyclictest-r1.ini")
    assert ct["thread control"]["exec"].startswith("cyclictest ") and "measure" not in ct["thread control"]
    jli = parse_ini(d / "jitterlab.ini")
    assert "exec" not in jli["thread control"] and jli["thread control"]["policy"] == "fifo"

    # after the walk: running the cyclictest side back makes cyclictest write its JSON again
    run_back(run_inis, tmp_path)


# ---- 2. SIGKILL mid-run with a trace, then restore ----

def test_sigkill_traced_run_then_restore(jl, scenario, tmp_path):
    path = scenario("killed", KILLED)
    out = tmp_path / "out"
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    pid = proc.pid
    inst = TRACEFS / f"jitterlab-{pid}"
    journal = STATE / f"run-{pid}.journal"
    try:
        found = wait_for_thread("control", pid=pid, timeout=30)
        had_inst = inst.is_dir()
        had_journal = journal.exists()
        proc.kill()
        _, err = proc.communicate(timeout=30)
        assert found, f"the run never started its loop thread:\n{err}"
        assert proc.returncode == -signal.SIGKILL, (proc.returncode, err)
        assert had_inst, f"no tracing instance {inst} while the traced run measured"
        assert had_journal, f"no journal {journal} while the run measured"
        r = jl("restore", timeout=60)
        assert r.rc == 0, f"restore exited {r.rc}\n{r.stdout}\n{r.stderr}"
        assert not inst.exists(), f"{inst} still there after restore:\n{r.stdout}"
        assert not journal.exists(), f"{journal} still there after restore:\n{r.stdout}"
        # the next run (traced too) is accepted and leaves nothing either
        again = jl("run", path, "--duration", "1s", "--warmup", "0s", timeout=60)
        assert again.rc == 0, f"run after restore exited {again.rc}\n{again.stderr}"
        assert again.summary()["threads"]
        assert not inst.exists() and not journal.exists()
        ps = subprocess.run(["pgrep", "-f", str(out)], capture_output=True, text=True, timeout=10)
        assert ps.stdout.strip() == "", f"processes of this test still run: {ps.stdout}"
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
        if inst.exists() or journal.exists():
            subprocess.run([BIN, "restore"], capture_output=True, timeout=60)


# ---- 3. report without gnuplot ----

def test_report_without_gnuplot_is_a_note(jl, scenario, tmp_path):
    path = scenario("noplot", """
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
    """)
    run = jl("run", path, timeout=60, check_rc=0)
    d = run.dir
    before = {x.name: x.stat().st_mtime_ns for x in d.iterdir()}  # the run made its own plots already
    # report execs nothing but gnuplot (rt/summary/plot.c looks it up in $PATH): an empty PATH hides it
    empty = tmp_path / "emptybin"
    empty.mkdir()
    env = dict(os.environ, PATH=str(empty))
    p = subprocess.run([BIN, "report", str(d)], capture_output=True, text=True, timeout=60, env=env)
    assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
    assert "gnuplot" in p.stderr and "no plots" in p.stderr, p.stderr
    assert "latency" in p.stdout and "plots:" not in p.stdout, p.stdout
    after = {x.name: x.stat().st_mtime_ns for x in d.iterdir()}
    assert after == before, f"report without gnuplot changed the run directory:\n{before}\n{after}"


# ---- 3. summary.json's keys: the registry against what runs write and against the contract ----

KEYS_RUN = """
    ; a loop and a lower one sharing a PI lock, two publishers into a sync and its callback, intervals, a
    ; trace with irq and timer events: most of summary.json's blocks
    [run]
    duration = 1s
    warmup = 200ms
    trace = sched, irq, timer
    interval = 500ms

    [lock shared]
    kind = pi

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 200Hz
    work = spin 50us
    lock = shared

    [thread low]
    policy = fifo
    priority = 10
    cpus = 1
    rate = 50Hz
    work = spin 200us
    lock = shared

    [topic a]
    [topic b]
    [topic ab_out]

    [executor exe]
    policy = fifo
    priority = 70
    cpus = 1

    [callback pub_a]
    executor = exe
    period = 10ms
    work = spin 20us
    publish = a

    [callback pub_b]
    executor = exe
    period = 20ms
    work = spin 20us
    publish = b

    [sync ab]
    algorithm = slop
    inputs = a, b
    slop = 20ms
    publish = ab_out

    [callback fuse]
    executor = exe
    trigger = ab_out
    work = spin 20us

    [expect]
    rate = control.rate_hz > 1
"""


def test_summary_keys_are_declared(jl, scenario, tmp_path):
    """A run with most of summary.json's blocks (a loop and a lower one sharing a PI lock, an executor with
    publishers, a sync and its callback, intervals, a trace with irq and timer events, an [expect]): every
    key it writes is one `jitterlab list --keys` declares, at the place it stands."""
    path = scenario("keys", KEYS_RUN)
    jl("run", path, "--quiet", timeout=120, check_rc=0)
    d = (tmp_path / "out" / "keys" / "latest").resolve()
    with open(d / "summary.json", encoding="utf-8") as f:
        doc = json.load(f)
    for block in ("host", "threads", "trace", "locks", "syncs", "intervals", "expect", "executors"):
        assert doc.get(block), f"the run wrote no {block}: the test would check less than it says"
    bad = undeclared_keys(doc)
    assert not bad, f"keys `jitterlab list --keys` does not declare there: {sorted(bad)}"
    r = subprocess.run([BIN, "report", "--json", "--no-plots", str(d)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stderr[-2000:]  # the readers' shape check takes it
    # and the check is not vacuous: a key the registry does not have is caught
    doc["threads"][0]["no_such_key"] = 1
    assert ("threads[]", "no_such_key") in undeclared_keys(doc)


CONTRACT = pathlib.Path(__file__).resolve().parents[2] / "docs" / "outputs.md"


def test_contract_keys_are_declared():
    """Every key of docs/outputs.md's summary.json sketch is declared at its place (the contract's keys are a
    subset of what the registry, and so every run, has). The contract is the repository's own copy, so this
    runs from any clone."""
    text = CONTRACT.read_text(encoding="utf-8")
    m = re.search(r"## summary\.json.*?```json\n(.*?)```", text, re.S)
    assert m, f"{CONTRACT}: no summary.json sketch"
    bad = undeclared_keys(json.loads(m.group(1)))
    assert not bad, f"keys of the contract `jitterlab list --keys` does not declare there: {sorted(bad)}"
