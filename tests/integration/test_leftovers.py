"""Integration tests of what the neighbours leave behind (issue 12, section 4; rt/engine/leftovers.c): a
process that left its neighbour's process group (setsid) and /dev/shm files a neighbour created (one
kept open, one only mapped) are listed in summary.json's "leftovers" with a warning; `[run] cleanup =
remove` ends and removes them; a /dev/shm file the test itself creates during the run is never taken for
the run's. Every test removes what it made (processes by the pids it started, files by their random
names) on every path."""
import json
import os
import pathlib
import random
import signal
import subprocess
import time
import uuid

import pytest

from conftest import BIN, NCPU, wait_for_thread

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the loop, CPU 0 kept free)")

SHM = pathlib.Path("/dev/shm")


def sleeps_of(seconds):
    """Pids of the `sleep SECONDS` processes alive now (SECONDS is this test's random number)."""
    pids = []
    for d in pathlib.Path("/proc").glob("[0-9]*"):
        try:
            if (d / "cmdline").read_bytes().split(b"\0")[:2] == [b"sleep", str(seconds).encode()]:
                if (d / "stat").read_text().rsplit(")", 1)[1].split()[0] != "Z":
                    pids.append(int(d.name))
        except (OSError, IndexError):
            continue
    return pids


@pytest.fixture
def leftovers():
    """A random token and sleep length for one test; afterwards, whatever is left of them is ended
    (by pid) and removed (by name), whatever the test did."""
    token = f"jl-test-{uuid.uuid4().hex[:10]}"
    seconds = random.randint(3000, 9999)
    state = {"token": token, "seconds": seconds}
    try:
        yield state
    finally:
        for pid in sleeps_of(seconds):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass
        for p in SHM.glob(token + "*"):
            try:
                p.unlink()
            except FileNotFoundError:
                pass


def scenario_text(token, seconds, cleanup):
    # no ' ;' in values: inih would take it for a comment
    mapper = ("import mmap,os,time;"
              f"fd=os.open(\"/dev/shm/{token}-map\",os.O_CREAT|os.O_RDWR,0o600);"
              "os.ftruncate(fd,4096);m=mmap.mmap(fd,4096);os.close(fd);"
              f"time.sleep({seconds})")
    return f"""
        [run]
        duration = 2s
        warmup = 0s
        trace = off
        grace = 500ms
        {"cleanup = " + cleanup if cleanup else ""}

        [thread loop]
        policy = fifo
        priority = 50
        cpus = 1
        rate = 100Hz

        [thread esc]
        exec = sh -c 'setsid sleep {seconds} & exec sleep {seconds}'

        [thread holder]
        exec = sh -c 'exec 3>/dev/shm/{token}-open && exec sleep {seconds}'

        [thread mapper]
        exec = python3 -c '{mapper}'
        """


def run_with_unrelated_file(scenario, tmp_path, state, cleanup):
    """Run the scenario; 0.8 s into it, the test creates /dev/shm/TOKEN-unrelated itself."""
    token = state["token"]
    p = scenario("remains", scenario_text(token, state["seconds"], cleanup))
    out = tmp_path / "out"
    proc = subprocess.Popen([BIN, "run", str(p), "--out", str(out), "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    try:
        assert wait_for_thread("loop", pid=proc.pid, timeout=20)
        time.sleep(0.8)
        (SHM / f"{token}-unrelated").write_text("not the run's\n")
        stdout, stderr = proc.communicate(timeout=40)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait(timeout=10)
    assert proc.returncode == 0, stderr
    with open(out / "remains" / "latest" / "summary.json") as f:
        return json.load(f), stderr, out / "remains" / "latest"


def names(entries):
    return sorted(e["name"] for e in entries)


def test_report_lists_what_the_neighbours_left(scenario, tmp_path, leftovers):
    token, seconds = leftovers["token"], leftovers["seconds"]
    s, stderr, run_dir = run_with_unrelated_file(scenario, tmp_path, leftovers, None)
    lo = s["leftovers"]
    assert lo["cleanup"] == "report"
    # the escaped one, and only it: the neighbours themselves and their groups were ended
    assert len(lo["processes"]) == 1, lo["processes"]
    p = lo["processes"][0]
    assert p["neighbour"] == "esc" and p["comm"] == "sleep" and p["cmdline"] == f"sleep {seconds}"
    assert p["sid"] == p["pid"] and "setsid" in p["why"] and p["ended"] is False
    assert sleeps_of(seconds) == [p["pid"]]
    # the open file and the mapped one are the run's, the test's own file is not
    assert names(lo["shm"]) == [f"{token}-map", f"{token}-open"]
    how = {e["name"]: e["evidence"]["how"] for e in lo["shm"]}
    assert "mapped" in how[f"{token}-map"] and how[f"{token}-open"] == ["open"], how
    assert all(e["removed"] is False for e in lo["shm"])
    assert f"{token}-unrelated" in names(lo["shm_not_ours"])
    assert lo["removed"] == {"processes": 0, "shm": 0}
    for suffix in ("open", "map", "unrelated"):
        assert (SHM / f"{token}-{suffix}").exists()
    assert "warning: the run left 1 process of its tree alive and 2 /dev/shm entries" in stderr
    assert "cleanup = remove ends them" in stderr
    # the contract keys are still there, and scenario.ini says the default
    for key in ("tool", "threads", "trace", "expect", "exit_status"):
        assert key in s
    assert "cleanup = report" in (run_dir / "scenario.ini").read_text()


def test_remove_ends_and_removes_only_the_runs(scenario, tmp_path, leftovers):
    token, seconds = leftovers["token"], leftovers["seconds"]
    s, stderr, _ = run_with_unrelated_file(scenario, tmp_path, leftovers, "remove")
    lo = s["leftovers"]
    assert lo["cleanup"] == "remove"
    assert len(lo["processes"]) == 1 and lo["processes"][0]["ended"] is True, lo["processes"]
    assert sleeps_of(seconds) == []
    assert names(lo["shm"]) == [f"{token}-map", f"{token}-open"]
    assert all(e["removed"] is True for e in lo["shm"]), lo["shm"]
    assert lo["removed"] == {"processes": 1, "shm": 2}
    assert not (SHM / f"{token}-open").exists() and not (SHM / f"{token}-map").exists()
    # never the file the run did not make
    assert f"{token}-unrelated" in names(lo["shm_not_ours"])
    assert (SHM / f"{token}-unrelated").read_text() == "not the run's\n"
    assert "ended 1 process of the run, removed 2 /dev/shm entries" in stderr
    assert "warning: the run left" not in stderr


def test_nothing_left_nothing_said(jl, scenario):
    p = scenario("clean", """
        [run]
        duration = 1s
        warmup = 0s
        trace = off
        cleanup = remove

        [thread loop]
        cpus = 1
        rate = 100Hz

        [thread hog]
        exec = sleep 60
        """)
    r = jl("run", p, "--quiet", timeout=60, check_rc=0)
    lo = r.summary()["leftovers"]
    assert lo["processes"] == [] and lo["shm"] == [] and lo["removed"] == {"processes": 0, "shm": 0}
    assert lo["scans"] >= 2
    assert "leftovers" not in r.stderr and "warning" not in r.stderr


def test_cleanup_bogus_is_a_scenario_error(jl, scenario):
    p = scenario("bogus", """
        [run]
        duration = 1s
        cleanup = bogus

        [thread loop]
        rate = 100Hz
        """)
    r = jl("run", p, timeout=30, check_rc=2)
    assert f"{p}:3:" in r.stderr and "cleanup" in r.stderr and "report or remove" in r.stderr, r.stderr
    assert r.dir is None
