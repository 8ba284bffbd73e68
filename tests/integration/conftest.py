"""Shared fixtures for the integration tests: they run the real binary as root on short scenarios
and parse every file it writes (JSON with the json module, CSV with the csv module).

Conventions (keep them): every run goes under the pytest tmp dir (never traces/), every subprocess
has a timeout, assertions are structural with wide margins (2-CPU noisy VMs), never tight timings."""
import csv
import json
import os
import pathlib
import subprocess
import textwrap
import time

import pytest

BIN = os.environ.get("JITTERLAB") or str(pathlib.Path(__file__).resolve().parents[2] / "build" / "jitterlab")
NCPU = os.cpu_count() or 1


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="integration tests need root")
        for item in items:
            item.add_marker(skip)


def wait_for_thread(name, pid=None, token=None, timeout=30):
    """Wait until a thread named NAME runs in process PID (or in any process whose command line holds
    TOKEN): the run has really started, so a signal sent now lands mid-run, not during start-up."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        for d in pathlib.Path("/proc").glob("[0-9]*"):
            try:
                if pid is not None and int(d.name) != pid:
                    continue
                if token is not None and token not in (d / "cmdline").read_bytes().decode(errors="replace"):
                    continue
                if any((t / "comm").read_text().strip() == name for t in (d / "task").iterdir()):
                    return True
            except OSError:
                continue
        time.sleep(0.05)
    return False


def foreign_shield():
    """True while another run's shield (a jitterlab-* cpuset) exists or holds this process: then nothing
    we start can be pinned to CPU 1. Only the development VMs, shared by several agents, ever see one
    between tests; in CI this returns False at once."""
    if any(pathlib.Path("/sys/fs/cgroup/cpuset").glob("jitterlab-*")):
        return True
    try:
        return pathlib.Path("/proc/self/cpuset").read_text().strip() != "/"
    except OSError:
        return False


def wait_no_shield(limit=180):
    """Wait until no other job's shield is up (its housekeeping cpuset would hold our runs on CPU 0)."""
    end = time.monotonic() + limit
    while foreign_shield() and time.monotonic() < end:
        time.sleep(0.25)


@pytest.fixture(autouse=True)
def no_foreign_shield():
    """Every integration test starts with no shield up (see foreign_shield)."""
    wait_no_shield()
    yield


class Run:
    """One `jitterlab run` (or any command): exit status, output, and its run directory's files."""

    def __init__(self, proc, out_dir, name):
        self.proc = proc
        self.rc = proc.returncode
        self.stdout = proc.stdout
        self.stderr = proc.stderr
        self.out_dir = pathlib.Path(out_dir)
        self.name = name

    @property
    def dir(self):
        latest = self.out_dir / self.name / "latest"
        return latest.resolve() if latest.exists() else None

    def summary(self):
        with open(self.dir / "summary.json") as f:
            return json.load(f)

    def samples(self):
        with open(self.dir / "samples.csv", newline="") as f:
            rows = list(csv.DictReader(f))
        return [{k: (v if k == "thread" else int(v)) for k, v in r.items()} for r in rows]

    def thread(self, name):
        for t in self.summary()["threads"]:
            if t["name"] == name:
                return t
        raise KeyError(name)


@pytest.fixture
def scenario(tmp_path):
    """Write a scenario file: scenario("name", '''[run] ...''') -> path."""

    def make(name, text):
        p = tmp_path / f"{name}.ini"
        p.write_text(textwrap.dedent(text).lstrip())
        return p

    return make


@pytest.fixture
def jl(tmp_path):
    """Run the binary: jl("run", path, "--duration", "2s", timeout=30) -> Run (out dir = tmp_path/out)."""
    out = tmp_path / "out"

    def run(*args, timeout=60, out_dir=out, check_rc=None):
        args = [str(a) for a in args]
        cmd = [BIN] + args
        if args and args[0] in ("run", "sweep", "cyclictest") and "--out" not in args:
            cmd += ["--out", str(out_dir)]
        proc = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout)
        name = None
        if len(args) > 1 and args[0] in ("run", "sweep", "cyclictest"):
            name = pathlib.Path(args[1]).stem
        r = Run(proc, out_dir, name)
        if check_rc is not None:
            assert r.rc == check_rc, f"exit {r.rc}, expected {check_rc}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"
        return r

    return run
