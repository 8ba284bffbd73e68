"""Integration tests of tracing (issue 4): capture, trace.dat, worst-cycle attribution, the KernelShark
session and `jitterlab analyze`, on the real binary as root.

Runs are short (3 s), under pytest's tmp dir, every subprocess has a timeout, and assertions are
structural with wide margins (2-CPU VMs shared with other jobs). Only CPU 1 ever gets an RT spinner, and
it is periodic (30 ms every 100 ms) so it never starves the loop for long; RT throttling stays on."""
import json
import os
import pathlib
import re
import shutil
import subprocess
import textwrap
import time

import pytest

from conftest import BIN, LANE, NCPU, Run, foreign_shield

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the loops, CPU 0 kept free)")

TRACING = pathlib.Path("/sys/kernel/tracing")

SPINNER = """
    [run]
    duration = 3s
    warmup = 0s
    trace = sched, irq, timer

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [thread spinner]
    policy = fifo
    priority = 90
    cpus = 1
    rate = 10Hz
    work = spin 30ms
    start = 1s

    [expect]
    wakeup_bound = control.wakeup.max < 10s
"""

CFS_HOG = """
    [run]
    duration = 3s
    warmup = 0s
    trace = sched, irq

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [thread hog]
    policy = other
    cpus = 1
    work = sin 5000000
"""



def part_kinds():
    """The part kinds as `jitterlab list` prints its registry (the section "explanation parts")."""
    out = subprocess.run([BIN, "list"], capture_output=True, text=True, timeout=30, check=True).stdout
    section = out.split("explanation parts", 1)[1].split("\n\n", 1)[0].splitlines()[1:]
    kinds = {line.split()[0] for line in section if line.startswith("  ")}
    assert len(kinds) >= 12, kinds
    return kinds

def run_scenario(out, name, text, extra=(), timeout=90):
    """Write NAME.ini, run it (waiting out another job's shield, retried if one came up meanwhile)."""
    out.mkdir(parents=True, exist_ok=True)
    path = out / f"{name}.ini"
    path.write_text(textwrap.dedent(text).lstrip())
    for _ in range(3):
        end = time.monotonic() + 180
        while foreign_shield() and time.monotonic() < end:
            time.sleep(0.25)
        proc = subprocess.run([BIN, "run", str(path), "--out", str(out / "runs"), *extra],
                              capture_output=True, text=True, timeout=timeout)
        if not (proc.returncode == 1 and "Invalid argument" in proc.stderr):
            break
    return Run(proc, out / "runs", name)


def detail(r):
    return f"exit {r.rc}\nstdout:\n{r.stdout[-4000:]}\nstderr:\n{r.stderr[-3000:]}"


def foreign_culprit(r):
    """The pid of a task that is not ours but is the main culprit of the run's worst cycle (another job on
    this VM parked its own RT spinner on CPU 1 meanwhile), or None."""
    s = r.summary()
    ours = {t["tid"] for t in s["threads"]}
    worst = s["trace"]["worst"]
    culprit = worst[0].get("culprit") if worst else None
    return culprit["pid"] if culprit and culprit["pid"] not in ours else None


def host_stall(r):
    """The worst cycle's text when its largest part is an idle exit longer than the spinner's hold (the
    VM's host kept the idle vCPU away: seen once, 32 ms), else None: the spinner claims say nothing then."""
    worst = r.summary()["trace"]["worst"]
    if not worst:
        return None
    big = max(worst[0]["parts"], key=lambda p: p["duration_ns"])
    return worst[0]["text"][:120] if big["kind"] == "idle-exit" else None


@pytest.fixture(scope="module")
def spin_run(tmp_path_factory):
    base = tmp_path_factory.mktemp("trace")
    for attempt in range(3):
        r = run_scenario(base / f"attempt{attempt}", "spinner", SPINNER)
        assert r.rc in (0, 3), detail(r)
        assert r.dir is not None, detail(r)
        other = foreign_culprit(r)
        host = host_stall(r)
        if other is None and not host:
            break
        print(f"attempt {attempt}: the worst cycle was " +
              (f"another job's task (pid {other})" if other else f"the VM's host ({host})") + ": running again")
    return r


@pytest.fixture(scope="module")
def cfs_run(tmp_path_factory):
    r = run_scenario(tmp_path_factory.mktemp("trace_cfs"), "cfs_hog", CFS_HOG)
    assert r.rc in (0, 3), detail(r)
    return r


def tid_of(summary, name):
    for t in summary["threads"]:
        if t["name"] == name:
            return t["tid"]
    raise KeyError(name)


def report(path, *args):
    proc = subprocess.run(["trace-cmd", "report", *args, str(path)], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return proc


# --- capture and attribution -----------------------------------------------------------------------

@pytest.mark.rt
def test_trace_block_shape(spin_run):
    s = spin_run.summary()
    t = s["trace"]
    assert t["enabled"] is True, t
    assert t["file"] == "trace.dat"
    assert t["events"] > 100
    assert t["lost_events"] == 0, t  # 16 MB per CPU holds 3 s of these events many times over
    w = t["wakeup_ns"]["control"]
    assert w["count"] > 20 and 0 < w["p50"] <= w["p99"] <= w["max"], w
    assert 0.3 <= t["matched_fraction"] <= 1.0, t
    assert t["markers"] > 0, "the spinner makes the loop miss: those cycles must be marked"
    wakeups = [c for c in t["worst"] if c["window"] == "wakeup"]
    responses = [c for c in t["worst"] if c["window"] == "response"]
    assert 1 <= len(wakeups) <= 5 and len(wakeups) + len(responses) == len(t["worst"]), t["worst"]
    assert len(responses) <= t["misses_cap"] and len(responses) == t["misses_explained"] <= t["misses"]
    kinds = part_kinds()
    for c in t["worst"]:
        assert c["parts"], c
        for p in c["parts"]:
            assert p["kind"] in kinds, p
            assert set(p) >= {"kind", "name", "pid", "prio", "duration_ns"}, p
            assert p["duration_ns"] >= 0
        # the parts account for the window: the wakeup latency, or the whole response of a miss (the
        # trace clock and CLOCK_MONOTONIC agree within a few us)
        whole = c["response_ns"] if c["window"] == "response" else c["latency_ns"]
        assert abs(sum(p["duration_ns"] for p in c["parts"]) - whole) < 200_000, c
        assert c["lost_in_window"] is False, c
    # the [expect] on the trace's wakeup metric was evaluated from this block, and held
    assert spin_run.rc == 0, detail(spin_run)
    e = [e for e in s["expect"] if e["label"] == "wakeup_bound"][0]
    assert e["ok"] is True and e["value"] == w["max"], e


@pytest.mark.rt
def test_worst_cycle_blames_the_fifo90_spinner(spin_run):
    s = spin_run.summary()
    worst = s["trace"]["worst"][0]
    assert worst["thread"] == "control"
    assert worst["latency_ns"] > 5_000_000, worst  # the spinner holds CPU 1 for 30 ms
    tasks = [p for p in worst["parts"] if p["kind"] == "task"]
    assert tasks, worst
    main = max(tasks, key=lambda p: p["duration_ns"])
    assert main["pid"] == tid_of(s, "spinner"), worst
    assert main["name"] == "spinner"
    assert main["prio"] == 90, main
    assert main["duration_ns"] > 5_000_000
    assert worst["culprit"]["pid"] == main["pid"]
    # the same explanation is on the terminal (as the miss, over its response window, when the cycle also
    # missed its deadline: explained once) and in report.md
    assert re.search(r"control cycle \d+(: | missed its deadline: response )\d+ us = .*waited \d+ us behind spinner "
                     r"\(pid \d+, FIFO 90\)", spin_run.stdout), spin_run.stdout[-3000:]
    assert "behind spinner" in (spin_run.dir / "report.md").read_text()


def test_cfs_hog_named_only_for_what_it_did(cfs_run):
    """A CFS hog never has a right to a FIFO loop's CPU: it is never a blocking "task" of the loop. It may
    be named only as what kept running while the loop waited: the fair server or RT throttling running it
    ("throttle"), a stretch without that shape ("unpreempted": not preemptible, or the vCPU), or the short
    preemption path ("preempting hog", kind other)."""
    s = cfs_run.summary()
    hog = tid_of(s, "hog")
    t = s["trace"]
    assert t["enabled"] and t["wakeup_ns"]["control"]["count"] > 20, t
    assert t["worst"], t  # otherwise the loop below checks nothing
    for c in t["worst"]:
        if c["thread"] != "control":
            continue
        for p in c["parts"]:
            assert not (p["kind"] == "task" and p["pid"] == hog), c
            if p["pid"] == hog:
                assert p["kind"] in ("throttle", "unpreempted", "other"), c
                if p["kind"] == "other":
                    assert p["name"] == "preempting hog" and p["duration_ns"] < 100_000, c
        if c.get("culprit") and c["culprit"]["pid"] == hog:
            assert c["culprit"]["kind"] in ("throttle", "unpreempted"), c


# --- trace.dat read by trace-cmd -------------------------------------------------------------------

@pytest.mark.rt
def test_trace_cmd_reads_the_whole_file(spin_run):
    s = spin_run.summary()
    dat = spin_run.dir / "trace.dat"
    proc = report(dat, "-R")
    lines = [l for l in proc.stdout.splitlines() if re.match(r"\s*\S.*\[\d{3}\]\s+\d+\.\d+:", l)]
    assert len(lines) == s["trace"]["events"], (len(lines), s["trace"]["events"], proc.stderr[-500:])
    assert "error" not in proc.stderr.lower(), proc.stderr[-1000:]
    # the loop's sched_switch records: trace-cmd and the analysis saw the same ones
    tid = tid_of(s, "control")
    sw_in = sum(1 for l in lines if "sched_switch:" in l and re.search(rf"next_pid={tid}\b", l))
    sw_out = sum(1 for l in lines if "sched_switch:" in l and re.search(rf"prev_pid={tid}\b", l))
    seen = s["trace"]["sched_switch"]["control"]
    assert sw_out > 20, (sw_out, seen)
    assert (sw_in, sw_out) == (seen["in"], seen["out"]), (sw_in, sw_out, seen)
    # the clock is the one the samples use
    head = subprocess.run(["trace-cmd", "dump", "--options", str(dat)], capture_output=True, text=True, timeout=30)
    assert "mono" in head.stdout + head.stderr


def test_no_tracing_instance_left(spin_run, cfs_run):
    stale = []
    for d in (TRACING / "instances").glob("jitterlab-*"):
        pid = d.name.split("-", 1)[1]
        if pid.isdigit() and not pathlib.Path(f"/proc/{pid}").exists():
            stale.append(d.name)
    assert not stale, stale


# --- the KernelShark session -----------------------------------------------------------------------

def test_kernelshark_session(spin_run):
    s = spin_run.summary()
    dat = spin_run.dir / "trace.dat"
    with open(spin_run.dir / "kernelshark.json") as f:
        k = json.load(f)
    assert k["type"] == "kshark.config.session"
    stream = k["data streams"][0]
    data = stream["data"]
    assert os.path.isabs(data["file"]) and os.path.samefile(data["file"], dat)
    assert data["time"] == int(os.stat(dat).st_mtime)
    assert data["name"] == "top buffer"
    assert ["sched_events", True] in stream["plugins"]["registered"]
    # the cycle it opens: the run's choice (the highest-priority loop's largest), an entry of trace.worst
    chosen = s["trace"]["kernelshark_cycle"]
    worst = next(w for w in s["trace"]["worst"] if w["kernelshark"] == chosen["session"])
    assert (worst["thread"], worst["cycle"]) == (chosen["thread"], chosen["cycle"])
    assert stream["CPUPlots"] == [worst["cpu"]]
    # the highest-priority loop's: here the FIFO 90 spinner's own (no [expect] failed)
    assert worst["thread"] == "spinner", chosen
    assert tid_of(s, worst["thread"]) in stream["TaskPlots"]
    if worst["culprit"] and worst["culprit"]["pid"] > 0 and worst["culprit"]["pid"] != worst["tid"]:
        assert worst["culprit"]["pid"] in stream["TaskPlots"]
    lo, hi = k["Model"]["range"]
    assert lo < worst["waking_ns"] < worst["switch_in_ns"] <= hi
    # rows: the index in KernelShark's time-sorted list = the number of records before the time
    proc = report(dat, "-t")
    stamps = [int(m.group(1).replace(".", "")) for m in
              re.finditer(r"\[\d{3}\]\s+(\d+\.\d{9}):", proc.stdout)]
    assert len(stamps) == s["trace"]["events"]
    rows_a = sum(1 for t in stamps if t < worst["waking_ns"])
    rows_b = sum(1 for t in stamps if t < worst["switch_in_ns"])
    assert k["Markers"]["markA"] == {"isSet": True, "row": rows_a}
    assert k["Markers"]["markB"] == {"isSet": True, "row": rows_b}
    assert rows_a < rows_b < len(stamps)
    # the command to open it is printed
    assert f"kernelshark -s {spin_run.dir / 'kernelshark.json'}" in spin_run.stdout


@pytest.mark.package("kernelshark", "xvfb")
def test_kernelshark_opens_the_session_headless(spin_run, tmp_path):
    cache = tmp_path / "kscache"
    cache.mkdir()
    (cache / "setting.ini").write_text("[General]\nnoRootWarn=true\n")  # no blocking root-warning dialog
    env = dict(os.environ, KS_USER_CACHE_DIR=str(cache), HOME=str(tmp_path), XDG_RUNTIME_DIR=str(tmp_path),
               XDG_CACHE_HOME=str(tmp_path / "cache"), MESA_SHADER_CACHE_DISABLE="true",
               TMPDIR=str(tmp_path))  # xvfb-run's own temp dir: killed, it never removes it
    log = tmp_path / "ks.log"
    with open(log, "w") as out:
        p = subprocess.Popen(["xvfb-run", "-a", "kernelshark", "-s", str(spin_run.dir / "kernelshark.json")],
                             stdout=out, stderr=subprocess.STDOUT, env=env, start_new_session=True)
        try:
            time.sleep(8)
            alive = p.poll() is None
        finally:
            if p.poll() is None:
                os.killpg(p.pid, 15)
            try:
                p.wait(timeout=20)
            except subprocess.TimeoutExpired:
                os.killpg(p.pid, 9)
                p.wait(timeout=10)
    text = log.read_text()
    assert alive, f"kernelshark ended early (exit {p.returncode}):\n{text[-2000:]}"
    assert "Timestamp mismatch" not in text, text
    assert "Failed to import" not in text, text
    assert "Unable to find file" not in text, text


# --- offline analysis ------------------------------------------------------------------------------

@pytest.mark.rt
def test_analyze_run_dir_matches_the_run(spin_run):
    proc = subprocess.run([BIN, "analyze", str(spin_run.dir), "--json"], capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    a = json.loads(proc.stdout)
    s = spin_run.summary()["trace"]
    assert a["events"] == s["events"]
    assert a["sched_switch"]["control"] == s["sched_switch"]["control"]
    assert a["wakeup_ns"]["control"]["count"] == s["wakeup_ns"]["control"]["count"]
    assert a["worst"][0]["cycle"] == s["worst"][0]["cycle"]
    assert a["worst"][0]["culprit"]["pid"] == s["worst"][0]["culprit"]["pid"]


def test_analyze_bare_trace_dat(spin_run):
    s = spin_run.summary()
    proc = subprocess.run([BIN, "analyze", str(spin_run.dir / "trace.dat"), "--json"], capture_output=True,
                          text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    a = json.loads(proc.stdout)
    assert a["events"] == s["trace"]["events"]
    # without samples, the RT tasks with wakeups are found by themselves: the loop is one of them
    tid = tid_of(s, "control")
    assert any(name.endswith(f"-{tid}") for name in a["wakeup_ns"]), a["wakeup_ns"].keys()
    text = subprocess.run([BIN, "analyze", str(spin_run.dir / "trace.dat")], capture_output=True, text=True,
                          timeout=120)
    assert text.returncode == 0 and "events/s" in text.stdout


def test_analyze_reads_trace_cmd_v7(spin_run, tmp_path):
    """A file trace-cmd itself wrote (v7, compressed sections): converted from ours, analysed the same."""
    v7 = tmp_path / "v7.dat"
    conv = subprocess.run(["trace-cmd", "convert", "-i", str(spin_run.dir / "trace.dat"), "-o", str(v7),
                           "--file-version", "7"], capture_output=True, text=True, timeout=120)
    # trace-cmd is a dependency (scripts/install-deps.sh): failing to convert our file is a failure, not a skip
    assert conv.returncode == 0 and v7.exists(), f"trace-cmd convert failed: {conv.stderr[-300:]}"
    p6 = subprocess.run([BIN, "analyze", str(spin_run.dir / "trace.dat"), "--json"], capture_output=True, text=True,
                        timeout=120)
    p7 = subprocess.run([BIN, "analyze", str(v7), "--json"], capture_output=True, text=True, timeout=120)
    assert p6.returncode == 0 and p7.returncode == 0, (p6.stderr[-500:], p7.stderr[-500:])
    a6, a7 = json.loads(p6.stdout), json.loads(p7.stdout)
    assert a7["events"] == a6["events"]
    assert a7["wakeup_ns"] == a6["wakeup_ns"]


def test_analyze_usage_errors(tmp_path):
    assert subprocess.run([BIN, "analyze"], capture_output=True, timeout=30).returncode == 2
    assert subprocess.run([BIN, "analyze", str(tmp_path / "missing")], capture_output=True, timeout=30).returncode == 2
    (tmp_path / "junk.dat").write_bytes(b"not a trace")
    one = ["taskset", "-c", str(min(os.sched_getaffinity(0)))]
    for pre in ([], one):  # opened by the reader thread, and in the caller's thread where one CPU is allowed
        p = subprocess.run(pre + [BIN, "analyze", str(tmp_path / "junk.dat")], capture_output=True, text=True,
                           timeout=30)
        assert p.returncode == 1 and "cannot read" in p.stderr and "junk.dat" in p.stderr, (pre, p.stderr)
    assert subprocess.run([BIN, "analyze", str(tmp_path)], capture_output=True, timeout=30).returncode == 2


def test_analyze_stops_its_reader_on_a_bad_run_dir(spin_run, tmp_path):
    """analyze starts reading trace.dat (a thread converting ahead, up to 8 batches of 512 events) before it
    reads the run's samples.csv: when that fails, the reader, blocked on its full ring, is stopped and
    joined, and the error is the samples'."""
    d = tmp_path / "run"
    shutil.copytree(spin_run.dir, d)
    assert json.loads((d / "summary.json").read_text())["trace"]["events"] > 8 * 512  # more than the ring
    (d / "samples.csv").write_text("thread,cycle\nloop,1\n")
    p = subprocess.run([BIN, "analyze", str(d)], capture_output=True, text=True, timeout=60)
    assert p.returncode == 1 and "samples.csv" in p.stderr, p.stderr


# --- scripts/open-in-kernelshark.sh ----------------------------------------------------------------

SCRIPT = pathlib.Path(__file__).resolve().parents[2] / "scripts" / "open-in-kernelshark.sh"


def test_open_script_rewrites_a_moved_session(spin_run, tmp_path):
    """The script opens RUN_DIR's session; a copied run directory gets its session written again (the
    path and mtime inside must be the copy's). A stand-in kernelshark records how it was called."""
    fake = tmp_path / "bin"
    fake.mkdir()
    (fake / "kernelshark").write_text("#!/bin/sh\necho \"FAKE $*\"\n")
    (fake / "kernelshark").chmod(0o755)
    env = dict(os.environ, PATH=f"{fake}:{os.environ['PATH']}")
    copy = tmp_path / "moved"
    shutil.copytree(spin_run.dir, copy)
    r = subprocess.run([str(SCRIPT), str(copy)], capture_output=True, text=True, timeout=120, env=env)
    assert r.returncode == 0, r.stderr
    assert f"FAKE -s {copy / 'kernelshark.json'}" in r.stdout
    with open(copy / "kernelshark.json") as f:
        data = json.load(f)["data streams"][0]["data"]
    assert os.path.samefile(data["file"], copy / "trace.dat")
    assert data["time"] == int(os.stat(copy / "trace.dat").st_mtime)
    # the original is untouched
    with open(spin_run.dir / "kernelshark.json") as f:
        assert os.path.samefile(json.load(f)["data streams"][0]["data"]["file"], spin_run.dir / "trace.dat")


# --- what kept the loop waiting: RT bandwidth, the response window (issue 9) -----------------------

LOWER_SPINNER = """
    [run]
    duration = 3s
    warmup = 0s
    trace = sched, irq, timer

    [thread loop]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [thread spinner]
    policy = fifo
    priority = 10
    cpus = 1
    work = spin 10ms
"""


@pytest.mark.rt
@pytest.mark.parametrize("groups", ["sched", "sched, irq, timer"])
def test_lower_fifo_spinner_is_rt_throttling(tmp_path, groups):
    """A FIFO loop beside a lower-priority FIFO spinner on its CPU: the spinner spends the CPU's RT budget
    (RT throttling is on: 950 ms per 1 s), and every RT task there waits ~50 ms once a second. In every
    trace configuration the worst cycle's largest part is `throttle` (RT throttling or the fair server by
    their timers, RT bandwidth by the budget's shape where the timers are not in the trace), the culprit;
    no part called "return" or "switch from idle" holds the wait (each is at most 1 ms)."""
    # the premise: the kernel throttled the CPU in the run (a cycle waited 10 ms or more; the loop's own
    # figure, not the explanation's). Seen once in a full lane on our 6.18 hosts: a 3 s run whose worst
    # wait was 9.6 ms. Such a run says nothing of the rule: it is run again, at most 3 times.
    # In the RT lane's emulated guest a vCPU can also stop for tens of ms (TCG): the loop's timer interrupt
    # then comes that late, the trace says so ("timer interrupt late"), and the run shows the emulator,
    # not the rule. Such a run is run again there too, and so is one where the host stole CPU 1 (steal).
    for attempt in range(3):
        r = run_scenario(tmp_path / f"a{attempt}", "lower_spinner",
                         LOWER_SPINNER.replace("trace = sched, irq, timer", f"trace = {groups}"))
        assert r.rc in (0, 3), detail(r)
        waited = r.thread("loop")["latency_ns"]["max"] > 10_000_000
        late = [c for c in r.summary()["trace"]["worst"] if c["thread"] == "loop" and c["window"] == "wakeup"]
        held = LANE == "rt" and late and max(max(late, key=lambda c: c["latency_ns"])["parts"],
                                             key=lambda p: p["duration_ns"])["name"] == "timer interrupt late"
        # a VM's host can take the vCPU itself for tens of ms (CI saw "spinner kept running 41854 us while it
        # was runnable ... the vCPU: the trace cannot tell"): a run whose worst wait is that, while
        # /proc/stat's steal (10 ms ticks) says the host took CPU 1, shows the host, not the rule
        stolen = (r.summary()["host"]["steal_ns"] or {}).get("1") or 0
        vcpu = late and max(max(late, key=lambda c: c["latency_ns"])["parts"],
                            key=lambda p: p["duration_ns"])["kind"] == "unpreempted"
        if waited and not held and not (vcpu and stolen >= 10_000_000):
            break
        print(f"attempt {attempt}: " + ("the emulator held the vCPU (timer interrupt late)" if held else
                                        f"the host held the vCPU (stole CPU 1 for {stolen} ns)" if waited else
                                        f"the loop never waited 10 ms (max {r.thread('loop')['latency_ns']['max']} ns)"))
    else:
        pytest.skip("3 runs and RT throttling never held the loop 10 ms here (or the emulator or the host did first)")
    worst = [c for c in r.summary()["trace"]["worst"] if c["thread"] == "loop" and c["window"] == "wakeup"]
    assert worst, r.summary()["trace"]
    c = max(worst, key=lambda c: c["latency_ns"])
    assert c["latency_ns"] > 10_000_000, c  # throttling holds the CPU for tens of ms
    big = max(c["parts"], key=lambda p: p["duration_ns"])
    assert big["kind"] == "throttle", c["text"]
    assert big["name"] in ("RT throttling", "fair server", "RT bandwidth"), c["text"]
    assert c["culprit"]["kind"] == "throttle", c
    assert "RT throttled" in c["text"], c["text"]
    # the advice: who spent the budget (the spinner, by the pid the run gave it), with rt_runtime's warning
    spinner = next(t for t in r.summary()["threads"] if t["name"] == "spinner")
    assert c["advice_rule"] in ("rt-budget", "fair-server"), c
    if c["advice_rule"] == "rt-budget":
        assert f"spinner (pid {spinner['tid']}, RT 10) spent CPU 1's RT budget" in c["advice"], c["advice"]
        assert "starve ksoftirqd" in c["advice"]
    assert "  advice: " + c["advice"] in r.stdout
    for w in r.summary()["trace"]["worst"]:
        assert not any(p["name"] in ("return", "switch from idle") and p["duration_ns"] > 1_000_000
                       for p in w["parts"]), w["text"]


HIGHER_DURING_WORK = """
    [run]
    duration = 3s
    warmup = 0s
    trace = sched, irq, timer

    [thread loop]
    policy = fifo
    priority = 50
    cpus = 1
    rate = 100Hz
    work = spin 3ms
    deadline = 5ms

    [thread high]
    policy = fifo
    priority = 90
    cpus = 1
    rate = 7Hz
    work = spin 4ms
"""


def test_miss_during_work_is_explained_in_the_response_window(tmp_path):
    """A FIFO 90 thread that runs 4 ms while the FIFO 50 loop does its 3 ms of work makes the loop miss
    its 5 ms deadline: the miss is listed with window "response", and its largest part names the FIFO 90
    thread."""
    r = run_scenario(tmp_path, "higher_during_work", HIGHER_DURING_WORK)
    assert r.rc in (0, 3), detail(r)
    s = r.summary()
    loop = [t for t in s["threads"] if t["name"] == "loop"][0]
    assert loop["misses"] > 0, loop
    high = tid_of(s, "high")
    misses = [c for c in s["trace"]["worst"] if c["window"] == "response" and c["thread"] == "loop"]
    assert misses, s["trace"]
    assert s["trace"]["misses"] >= len(misses)
    named = stalled = 0
    for c in misses:
        assert c["miss"] is True and c["response_ns"] > 5_000_000, c
        assert c["response_ns"] == c["end_ns"] - c["release_ns"]
        top = max(c["parts"], key=lambda p: p["duration_ns"])
        named += top["kind"] == "task" and top["pid"] == high
        assert any(p["kind"] == "running" for p in c["parts"]), c
        # a stalled vCPU: the loop "ran" far longer than its 3 ms of work (the host took the CPU away)
        stalled += sum(p["duration_ns"] for p in c["parts"] if p["kind"] == "running") > 6_000_000
    # the FIFO 90 thread is in the misses' explanations; most of those the VM did not stall are its doing
    assert any(p["kind"] == "task" and p.get("pid") == high for c in misses for p in c["parts"]), \
        [c["text"] for c in misses]
    assert named >= (len(misses) - stalled) / 3, [c["text"] for c in misses]
    assert "missed its deadline" in (r.dir / "report.md").read_text()


SLEEP_IN_WORK = """
    [run]
    duration = 2s
    warmup = 0s
    trace = sched, irq, timer

    [thread loop]
    policy = fifo
    priority = 50
    cpus = 1
    rate = 100Hz
    work = sleep 3ms
    deadline = 2ms
"""


def test_sleep_inside_work_is_blocked_woken_by_the_timer(tmp_path):
    """A loop that sleeps inside its work misses a 2 ms deadline each cycle: the response window says it was
    blocked and woken by the hrtimer, not by whatever task the timer interrupt happened to interrupt; and
    the wakeup metric counts only the wakeups of releases (not those ending the sleep inside the work)."""
    r = run_scenario(tmp_path, "sleep_in_work", SLEEP_IN_WORK)
    assert r.rc in (0, 3), detail(r)
    s = r.summary()
    misses = [c for c in s["trace"]["worst"] if c["window"] == "response"]
    assert misses, s["trace"]
    for c in misses:
        blocked = [p for p in c["parts"] if p["kind"] == "blocked"]
        assert blocked, c
        assert "hrtimer" in blocked[0]["name"], c
        assert blocked[0]["pid"] == -1, c  # no task is named as the waker
    loop = [t for t in s["threads"] if t["name"] == "loop"][0]
    assert s["trace"]["wakeup_ns"]["loop"]["count"] <= loop["cycles"], (s["trace"]["wakeup_ns"], loop["cycles"])
    assert s["trace"]["wakeup_ns"]["loop"]["count"] >= loop["cycles"] * 0.5


def test_wakeup_expect_on_copies(jl, scenario):
    """`loop.0.wakeup.p99` names copy 0 of a `count = 2` thread (its name holds a dot), and its value is
    the one in trace.wakeup_ns, which counts one wakeup per measured cycle at most."""
    p = scenario("copies", """
        [run]
        duration = 1s
        warmup = 0s
        trace = sched

        [thread loop]
        policy = fifo
        priority = 60
        cpus = 1
        count = 2
        rate = 100Hz

        [expect]
        w0 = loop.0.wakeup.p99 < 1s
        w1 = loop.1.wakeup.max < 1s
        """)
    r = jl("run", p, timeout=60)
    assert r.rc == 0, r.stderr
    s = r.summary()
    wk = s["trace"]["wakeup_ns"]
    e = {x["label"]: x for x in s["expect"]}
    assert e["w0"]["ok"] and e["w0"]["value"] == wk["loop.0"]["p99"], (e, wk)
    assert e["w1"]["ok"] and e["w1"]["value"] == wk["loop.1"]["max"], (e, wk)
    for name in ("loop.0", "loop.1"):
        assert 0 < wk[name]["count"] <= r.thread(name)["cycles"], (wk, name)


LOST = """
    [run]
    duration = 2s
    warmup = 0s
    trace = sched, irq, timer
    trace_buffer = 64KB

    [thread loop]
    policy = fifo
    priority = 60
    cpus = 1
    rate = 1kHz
    work = spin 50us

    [thread chatter]
    policy = other
    cpus = 1
    count = 3
    rate = 20kHz
"""


def test_lost_events_are_flagged_on_the_cycles_they_touch(tmp_path):
    """A 64 KB buffer cannot hold 1 kHz + 3 x 20 kHz of wakeups between two drains: events are lost. The
    gaps are listed, and every explained cycle whose window overlaps one says so (lost_in_window, and in
    words); the others do not."""
    r = run_scenario(tmp_path, "lost", LOST)
    assert r.rc in (0, 3), detail(r)
    t = r.summary()["trace"]
    assert t["lost_events"] > 0 and t["lost_gaps"] > 0 and t["gaps"], {k: t[k] for k in ("lost_events", "lost_gaps")}
    gaps = [(g["from_ns"], g["to_ns"]) for g in t["gaps"]]
    for g in t["gaps"]:
        assert g["from_ns"] <= g["to_ns"], g
    # a gap runs from the CPU's last record before it to the first after it: some have a length
    assert any(g["to_ns"] > g["from_ns"] for g in t["gaps"]), t["gaps"][:5]
    listed_all = t["lost_gaps"] <= len(t["gaps"])
    for c in t["worst"]:
        start = min(c["release_ns"], c["waking_ns"]) if c["release_ns"] and c["waking_ns"] else c["release_ns"] or c["waking_ns"]
        end = c["end_ns"] if c["window"] == "response" else max(c["wake_ns"], c["switch_in_ns"])
        overlaps = any(a < end and b > start for a, b in gaps)
        if overlaps:
            assert c["lost_in_window"] is True, c
            assert "events were lost" in c["text"], c["text"]
        elif listed_all:
            assert c["lost_in_window"] is False, c


PINGPONG = pathlib.Path(BIN).resolve().parent / "tests" / "helpers" / "pingpong"


def test_blocked_in_work_names_the_task_that_woke_it(tmp_path):
    """A FIFO loop whose work writes into a pipe and blocks until another thread (SCHED_OTHER) replies 2 ms
    later: every cycle misses a 1 ms deadline, and the response window says it was blocked, woken by that
    thread (its tid), not by an interrupt or the task that happened to run. The loop is a helper program
    (tests/helpers/pingpong.c: the harness has no such work kind yet) run as an exec neighbour under
    tracing; its own per-cycle times go to `jitterlab analyze` as a run directory's samples."""
    assert PINGPONG.exists(), PINGPONG
    r = run_scenario(tmp_path, "pingpong", f"""
        [run]
        duration = 2s
        warmup = 0s
        trace = sched, irq, timer

        [thread control]
        policy = other
        cpus = 0
        rate = 10Hz

        [thread pp]
        policy = fifo
        priority = 50
        cpus = 1
        exec = {PINGPONG} 10000 2000 120
        """)
    assert r.rc == 0, detail(r)
    log = (r.dir / "pp.log").read_text().splitlines()
    _, loop, writer = log[0].split()
    rows = [l.split(",") for l in log[1:] if l.count(",") == 3]
    assert len(rows) > 50, log[:5]
    ana = tmp_path / "ana"
    ana.mkdir()
    shutil.copy(r.dir / "trace.dat", ana / "trace.dat")
    (ana / "summary.json").write_text(json.dumps({"threads": [
        {"name": "pp-loop", "tid": int(loop), "measured": True, "policy": "fifo", "priority": 50},
        {"name": "pp-writer", "tid": int(writer), "measured": False, "policy": "other"}]}))
    with open(ana / "samples.csv", "w") as f:
        f.write("thread,cycle,release_ns,wake_ns,end_ns,miss\n")
        for c, rel, wake, end in rows:
            f.write(f"pp-loop,{c},{rel},{wake},{end},{int(int(end) > int(rel) + 1_000_000)}\n")
    a = subprocess.run([BIN, "analyze", str(ana), "--json"], capture_output=True, text=True, timeout=120)
    assert a.returncode == 0, a.stderr
    b = json.loads(a.stdout)
    misses = [c for c in b["worst"] if c["window"] == "response"]
    assert misses and b["misses"] >= len(misses), b
    named = 0
    for c in misses:
        blocked = [p for p in c["parts"] if p["kind"] == "blocked"]
        assert blocked, c
        top = max(blocked, key=lambda p: p["duration_ns"])
        named += top["pid"] == int(writer) and "pp-writer" in top["name"]
        assert 1_500_000 < top["duration_ns"] < c["response_ns"], c
    assert named >= len(misses) * 0.8, misses
