"""Shared fixtures for the integration tests: they run the real binary as root on short scenarios
and parse every file it writes (JSON with the json module, CSV with the csv module).

Conventions (keep them): every run goes under the pytest tmp dir (never traces/), every subprocess
has a timeout, assertions are structural with wide margins (2-CPU noisy VMs), never tight timings."""
import csv
import json
import os
import pathlib
import shutil
import subprocess
import textwrap
import time

import pytest

BIN = os.environ.get("JITTERLAB") or str(pathlib.Path(__file__).resolve().parents[2] / "build" / "jitterlab")
NCPU = os.cpu_count() or 1


# The lane these tests run in: "host" (this machine, `make check-host`) or "rt" (the PREEMPT_RT guest that
# tests/rt/guest.sh boots, `make check-rt`; its /init sets JITTERLAB_LANE).
LANE = os.environ.get("JITTERLAB_LANE", "host")


def cgroup2_cpuset():
    """The cgroup2 mount whose root offers the cpuset controller (found in /proc/self/mounts), or None."""
    try:
        mounts = pathlib.Path("/proc/self/mounts").read_text().splitlines()
    except OSError:
        return None
    for line in mounts:
        f = line.split()
        if len(f) > 2 and f[2] == "cgroup2":
            root = pathlib.Path(f[1])
            try:
                if "cpuset" in (root / "cgroup.controllers").read_text().split():
                    return root
            except OSError:
                continue
    return None


def _realtime():
    try:
        return pathlib.Path("/sys/kernel/realtime").read_text().strip() == "1"
    except OSError:
        return False


# What a test can ask of the kernel with @pytest.mark.needs(...). In the host lane a test whose needs the
# host lacks is deselected (the RT lane runs it); in the RT lane a need the guest lacks is a failure.
def _tracers():
    try:
        return pathlib.Path("/sys/kernel/tracing/available_tracers").read_text().split()
    except OSError:
        return []


HAS = {
    "cgroup_v2_cpuset": cgroup2_cpuset() is not None,
    "preempt_rt": _realtime(),
    "timerlat": "timerlat" in _tracers(),
}


# The Debian packages a test may use, each with how the test finds it. All are in the `check` profile of
# scripts/install-deps.sh (test_install_deps.py holds this table to that list), which `make check` and .ci/run
# install. A test marked @pytest.mark.package(NAME...) or calling require_package(NAME) is skipped where one
# is missing, with the command that installs it; under JITTERLAB_STRICT_DEPS=1 (.ci/run: the script ran
# there) a missing one is a failure, so a test can never skip in CI for a package the script forgot.
def _python_module(name):
    return subprocess.run(["/usr/bin/python3", "-c", f"import {name}"], capture_output=True).returncode == 0


def chromium_binary():
    """Debian's chromium (or a chromium-browser that is one), never a snap's: Ubuntu's chromium-browser is a
    wrapper that asks for the snap, and a snap's chromium cannot read this machine's /tmp."""
    for name in ("chromium", "chromium-browser"):
        p = shutil.which(name)
        if not p:
            continue
        real = os.path.realpath(p)
        try:
            head = open(real, "rb").read(8192)
        except OSError:
            continue
        if real.startswith("/snap/") or (head.startswith(b"#!") and b"snap" in head):
            continue
        return p
    return None


PACKAGES = {
    "rt-tests": lambda: shutil.which("cyclictest") is not None,
    "stress-ng": lambda: shutil.which("stress-ng") is not None,
    "trace-cmd": lambda: shutil.which("trace-cmd") is not None,
    "gnuplot-nox": lambda: shutil.which("gnuplot") is not None,
    "kernelshark": lambda: shutil.which("kernelshark") is not None,
    "xvfb": lambda: shutil.which("xvfb-run") is not None,
    "man-db": lambda: shutil.which("man") is not None,
    "groff-base": lambda: shutil.which("groff") is not None,
    "python3-grpcio": lambda: _python_module("grpc"),
    "chromium": lambda: chromium_binary() is not None,
}
# rows marked `opt` in install-deps.sh: the script goes on without them where the sources lack them (Ubuntu
# offers chromium only as a snap), so their tests skip even under JITTERLAB_STRICT_DEPS=1
OPTIONAL = {"chromium"}
STRICT_DEPS = os.environ.get("JITTERLAB_STRICT_DEPS") == "1"
_present = {}


def require_package(*names):
    """Skip (or, under JITTERLAB_STRICT_DEPS=1, fail) unless every package NAME is installed."""
    for name in names:
        assert name in PACKAGES, f"unknown package {name}: add it to PACKAGES and to install-deps.sh's check profile"
        if name not in _present:
            _present[name] = PACKAGES[name]()
        if _present[name]:
            continue
        if STRICT_DEPS and name not in OPTIONAL:
            pytest.fail(f"{name} is not installed, yet scripts/install-deps.sh check installs it (JITTERLAB_STRICT_DEPS=1)")
        pytest.skip(f"{name} is not installed (sudo scripts/install-deps.sh check)")


def pytest_configure(config):
    config.addinivalue_line("markers", "rt: also runs in the PREEMPT_RT lane's guest (make check-rt)")
    config.addinivalue_line("markers", "package(*names): uses these Debian packages (require_package)")
    config.addinivalue_line("markers", "needs(*what): runs only on a kernel that has each of: " + ", ".join(HAS))
    config.addinivalue_line("markers", "first: runs first in its lane (the fresh machine's restore test)")


def _needs(item):
    return [w for m in item.iter_markers("needs") for w in m.args]


def pytest_collection_modifyitems(config, items):
    if os.geteuid() != 0:
        skip = pytest.mark.skip(reason="integration tests need root")
        for item in items:
            item.add_marker(skip)
    keep, drop = [], []
    for item in items:
        unknown = [w for w in _needs(item) if w not in HAS]
        assert not unknown, f"{item.nodeid}: unknown needs {unknown}"
        if LANE == "rt":
            (keep if item.get_closest_marker("rt") else drop).append(item)
        else:
            (keep if all(HAS[w] for w in _needs(item)) else drop).append(item)
    if drop:
        config.hook.pytest_deselected(items=drop)
        if LANE != "rt":
            print(f"\nhost lane: {len(drop)} tests need what this kernel lacks "
                  f"({', '.join(sorted({w for i in drop for w in _needs(i) if not HAS[w]}))}): the RT lane runs them")
    keep.sort(key=lambda i: 0 if i.get_closest_marker("first") else 1)
    items[:] = keep


@pytest.fixture(autouse=True)
def lane_needs(request):
    """In the RT lane a test's needs are what the guest is for: one missing is a failure, never a skip."""
    missing = [w for w in _needs(request.node) if not HAS[w]]
    if missing:
        pytest.fail(f"the {LANE} lane's kernel lacks {missing}")
    require_package(*[p for m in request.node.iter_markers("package") for p in m.args])
    yield


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
    v2 = cgroup2_cpuset()
    if any(pathlib.Path("/sys/fs/cgroup/cpuset").glob("jitterlab-*")) or (v2 and any(v2.glob("jitterlab-*"))):
        return True
    try:
        return "jitterlab-" in pathlib.Path("/proc/self/cpuset").read_text()
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
        return [{k: (v if k in ("thread", "release_by") else int(v)) for k, v in r.items()} for r in rows]

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


# --- what a run put back, judged by the kernel's rules -------------------------------------------------
# An IRQ's new affinity takes effect at its next interrupt (x86 MSI), and an IRQ thread's mask is
# re-derived from its IRQ's effective CPUs at the IRQ's next interrupt after an affinity write. So a
# restore can put every mask back while a quiet IRQ stays where it was moved: the run must then say so
# (summary.json host.restore.pending, `restore --json` pending), and the tests assert that report, not
# the kernel's choice.

def read_text(path):
    try:
        return pathlib.Path(path).read_text().strip()
    except OSError:
        return None


def irq_counts():
    """{irq number: interrupts since boot, summed over CPUs} from /proc/interrupts."""
    counts = {}
    for line in (read_text("/proc/interrupts") or "").splitlines()[1:]:
        f = line.split()
        if f and f[0].rstrip(":").isdigit():
            counts[int(f[0].rstrip(":"))] = sum(int(x) for x in f[1:1 + NCPU] if x.isdigit())
    return counts


def irq_threads():
    """{tid: (irq number, comm)} of every IRQ thread (a kernel thread named irq/N-name)."""
    out = {}
    for d in pathlib.Path("/proc").glob("[0-9]*"):
        comm = read_text(d / "comm") or ""
        if comm.startswith("irq/") and comm[4:].split("-")[0].isdigit():
            out[int(d.name)] = (int(comm[4:].split("-")[0]), comm)
    return out


def cpus_of(tid):
    for line in (read_text(f"/proc/{tid}/status") or "").splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    return None


def assert_irqs_back(before, after, pending):
    """BEFORE/AFTER: {irq: (smp_affinity_list, effective_affinity_list)}. Every mask is back; an IRQ still
    delivered elsewhere is one the run's report names, with both CPUs."""
    said = {n["irq"]: n for n in pending if n.get("kind") == "irq"}
    for irq, was in before.items():
        if not str(irq).isdigit() or irq not in after:
            continue  # not an IRQ (a caller's own key), or an IRQ freed meanwhile
        mask, eff = was
        assert after[irq][0] == mask, f"IRQ {irq}'s mask is {after[irq][0]}, was {mask}"
        if after[irq][1] != eff:
            n = said.get(int(irq))
            assert n, f"IRQ {irq} is delivered to {after[irq][1]}, was {eff}, and the report does not say so: {pending}"
            assert (n["effective_before"], n["effective_after"]) == (eff, after[irq][1]), n


def pytest_sessionfinish(session, exitstatus):
    """The RT lane's guest forgets everything at power-off: when a test failed there, its run directories
    (the session's temporary tree, files under 64 MB) come back in the lane's output folder, failed-tmp/."""
    out = os.environ.get("JITTERLAB_GUEST_OUT")
    if LANE != "rt" or not out or exitstatus == 0:
        return
    import shutil
    base = session.config._tmp_path_factory.getbasetemp()

    def skip(d, names):  # big files, FIFOs and sockets stay behind
        out = []
        for n in names:
            p = pathlib.Path(d) / n
            if not p.is_symlink() and not p.is_dir() and (not p.is_file() or p.stat().st_size > 64 << 20):
                out.append(n)
        return out

    try:
        shutil.copytree(base, pathlib.Path(out) / "failed-tmp", ignore=skip, symlinks=True, dirs_exist_ok=True)
    except (OSError, shutil.Error) as e:
        print(f"\nrt lane: copying the run directories stopped: {e}")
    print(f"\nrt lane: the failed session's run directories are in {out}/failed-tmp")
