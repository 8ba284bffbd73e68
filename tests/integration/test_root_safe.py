"""Root-safe outputs (issue 8, section 4): the tool runs as root and writes into directories users own.

- gnuplot command injection: a crafted run directory whose samples.csv names a thread
  x'.system('touch MARKER').' given to `jitterlab report`, and an --out path holding the same text, never
  run the command (the marker file never appears) while the plots are still made; gnuplot (a stand-in
  that reports itself) runs as the sudo user with a clean environment and fds 0-2 only;
- planted symlinks (a `latest` link, run directory names, a plot's temporary name and real name) are never
  followed: their targets stay untouched; an --out through a directory or a symlink owned by another
  non-root user is refused (exit 1, nothing written there);
- under sudo (SUDO_UID/SUDO_GID set to nobody, 65534) every file, directory and link of a run is owned by
  that uid/gid, trace.dat, kernelshark.json and the exec neighbour's NAME.log included;
- machine.lock and the run's journal are 0600;
- `[thread] user = invoking`: the exec neighbour runs as the sudo user with the scenario's FIFO priority and
  CPUs (read from /proc and sched_getscheduler, not from the tool); without sudo it is a scenario error.

Expectations are computed here (uids, modes, /proc), never taken from the tool's own output. Runs are 1-3 s,
warm-up 0 s; nothing asserts timings. Runs go under the pytest tmp dir; markers and targets under /tmp."""
import csv
import os
import pathlib
import shutil
import subprocess
import tempfile
import time
import uuid
import xml.etree.ElementTree as ET

import pytest

from conftest import BIN, NCPU

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the loops, CPU 0 kept free)")

STATE = pathlib.Path(os.environ.get("JITTERLAB_STATE_DIR") or "/run/jitterlab")
NOBODY = 65534
needs_gnuplot = pytest.mark.package("gnuplot-nox")

LOOP = """
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
"""


def env_without_sudo(**extra):
    env = {k: v for k, v in os.environ.items() if not k.startswith("SUDO_")}
    env.update(extra)
    return env


def env_sudo(uid=NOBODY, gid=NOBODY):
    return env_without_sudo(SUDO_UID=str(uid), SUDO_GID=str(gid))


def run_bin(*args, env=None, timeout=60):
    return subprocess.run([BIN] + [str(a) for a in args], capture_output=True, text=True, timeout=timeout,
                          env=env if env is not None else env_without_sudo())


def marker():
    """A /tmp path that must never appear (removed if an earlier attempt left one)."""
    m = pathlib.Path(f"/tmp/jl-pwned-{uuid.uuid4().hex[:12]}")
    assert not m.exists()
    return m


def svg_texts(path):
    return [t for el in ET.parse(path).iter() for t in (el.text or "",) if t.strip()]


def tree(root):
    """Every path under ROOT (not following links), ROOT included."""
    root = pathlib.Path(root)
    out = [root]
    for dirpath, dirnames, filenames in os.walk(root, followlinks=False):
        out += [pathlib.Path(dirpath) / n for n in dirnames + filenames]
    return out


# ---- gnuplot command injection ----

@needs_gnuplot
def test_report_crafted_thread_name_runs_nothing(scenario, tmp_path):
    path = scenario("inject", LOOP)
    out = tmp_path / "out"
    r = run_bin("run", path, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    src = (out / "inject" / "latest").resolve()
    # the crafted directory: the run's samples with the thread renamed, and its summary.json
    crafted = tmp_path / "crafted"
    crafted.mkdir()
    shutil.copy(src / "summary.json", crafted / "summary.json")
    m = marker()
    evil = f"x'.system('touch {m}').'"
    with open(src / "samples.csv", newline="") as f:
        rows = list(csv.reader(f))
    assert len(rows) > 10, "the run wrote too few samples to plot"
    with open(crafted / "samples.csv", "w") as f:  # written by hand: no CSV quoting around the name
        f.write(",".join(rows[0]) + "\n")
        for row in rows[1:]:
            f.write(",".join([evil] + row[1:]) + "\n")
    assert evil in (crafted / "samples.csv").read_text()
    for env in (env_without_sudo(), env_sudo()):
        for svg in crafted.glob("*.svg"):
            svg.unlink()
        p = run_bin("report", crafted, env=env)
        assert p.returncode == 0, f"exit {p.returncode}\n{p.stdout}\n{p.stderr}"
        assert not m.exists(), f"gnuplot ran the command in a thread name: {m} exists"
        # the plots were made, with the name as plain text: gnuplot did read the crafted label
        hist = crafted / "latency-hist.svg"
        assert hist.is_file(), f"no plot made from the crafted directory:\n{p.stderr}"
        assert any(evil in t for t in svg_texts(hist)), "the thread name is not the histogram's key text"
        assert not [x for x in crafted.iterdir() if x.name.startswith(".")], "temporary file left"


@needs_gnuplot
def test_out_path_with_quote_runs_nothing(scenario, tmp_path):
    path = scenario("quoted", LOOP)
    m = marker()
    out = tmp_path / f"o'.system('touch {m}').'"  # holds '/', so the path nests: that is fine
    r = run_bin("run", path, "--out", out)  # not --quiet: a quiet run makes no plots
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr}"
    assert not m.exists(), f"gnuplot ran the command in the --out path: {m} exists"
    d = (out / "quoted" / "latest").resolve()
    assert {"latency-hist.svg", "latency-cycle.svg", "ticks.svg"} <= {x.name for x in d.iterdir()}, list(d.iterdir())
    # report on that directory pastes no path either
    for svg in d.glob("*.svg"):
        svg.unlink()
    p = run_bin("report", d)
    assert p.returncode == 0, p.stderr
    assert not m.exists(), f"report ran the command in the run directory's path: {m} exists"
    assert (d / "ticks.svg").is_file()


def test_gnuplot_runs_as_the_invoking_user_with_a_clean_environment(scenario, tmp_path):
    """A stand-in gnuplot first on PATH prints who it runs as, its environment and its fds: that is the
    SVG the writer keeps."""
    path = scenario("whoami", LOOP)
    out = tmp_path / "out"
    r = run_bin("run", path, "--out", out, "--quiet")
    assert r.returncode == 0, r.stderr
    d = (out / "whoami" / "latest").resolve()
    fake = pathlib.Path(tempfile.mkdtemp(prefix="jl-fakebin-"))  # a directory nobody may enter
    try:
        os.chmod(fake, 0o755)
        g = fake / "gnuplot"
        g.write_text(
            "#!/usr/bin/python3 -IS\n"
            "import os, sys\n"
            "fds = []\n"
            "for fd in range(1024):\n"
            "    try:\n"
            "        os.fstat(fd)\n"
            "        fds.append(fd)\n"
            "    except OSError:\n"
            "        pass\n"
            "sys.stdin.read()\n"
            "print('uid=%d gid=%d groups=%s' % (os.getuid(), os.getgid(), ' '.join(map(str, os.getgroups())) or os.getgid()))\n"
            "print('fds=' + ' '.join(map(str, fds)))\n"
            "for k, v in os.environ.items():\n"
            "    print('%s=%s' % (k, v))\n")
        g.chmod(0o755)
        for env, uid in ((env_sudo(), NOBODY), (env_without_sudo(), 0)):
            env = dict(env, PATH=f"{fake}:/usr/bin:/bin", JL_CANARY="leaked")
            p = run_bin("report", d, env=env)
            assert p.returncode == 0, p.stderr
            text = (d / "latency-hist.svg").read_text()
            lines = text.splitlines()
            if uid:  # dropped to the user: no supplementary group is left of root's
                assert lines[0] == f"uid={uid} gid={uid} groups={uid}", text
            else:    # not under sudo: gnuplot stays root (the escaping is what protects it)
                assert lines[0].startswith("uid=0 gid=0 "), text
            assert lines[1].split("=", 1)[1].split() == ["0", "1", "2"], text
            envkeys = {x.split("=", 1)[0] for x in lines[2:] if "=" in x}
            assert "JL_CANARY" not in envkeys and not [k for k in envkeys if k.startswith("SUDO")], envkeys
            assert envkeys <= {"PATH", "HOME", "LANG", "LC_CTYPE"}, envkeys  # LC_CTYPE: python's own (PEP 538)
            assert "PATH=/usr/bin:/bin" in lines and "HOME=/nonexistent" in lines, text
    finally:
        shutil.rmtree(fake, ignore_errors=True)


# ---- planted symlinks ----

def test_planted_symlinks_are_not_followed(scenario, tmp_path):
    path = scenario("planted", LOOP)
    out = tmp_path / "out"
    base = out / "planted"
    base.mkdir(parents=True)
    target_dir = pathlib.Path(tempfile.mkdtemp(prefix="jl-target-"))
    target_file = target_dir.with_name(target_dir.name + ".file")
    target_file.write_text("untouched\n")
    try:
        # `latest` -> a file; every run directory name of the next 20 s -> a directory
        (base / "latest").symlink_to(target_file)
        now = time.time()
        for s in range(-1, 20):
            (base / time.strftime("%Y%m%d-%H%M%S", time.localtime(now + s))).symlink_to(target_dir)
        r = run_bin("run", path, "--out", out, "--quiet")
        assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr}"
        assert list(target_dir.iterdir()) == [], f"the run wrote through a planted link: {list(target_dir.iterdir())}"
        assert target_file.read_text() == "untouched\n"
        latest = base / "latest"
        assert latest.is_symlink() and "/" not in os.readlink(latest), os.readlink(latest)
        d = base / os.readlink(latest)
        assert d.is_dir() and not d.is_symlink(), d
        assert (d / "summary.json").is_file()

        # report into an existing run directory: a plot's temporary name and its real name are links
        (d / "ticks.svg").unlink(missing_ok=True)
        (d / ".latency-hist.svg.tmp").symlink_to(target_file)
        (d / "ticks.svg").symlink_to(target_file)
        p = run_bin("report", d)
        assert p.returncode == 0, p.stderr
        assert target_file.read_text() == "untouched\n", "report wrote through a planted link"
        assert not (d / ".latency-hist.svg.tmp").exists() and not (d / ".latency-hist.svg.tmp").is_symlink()
        if shutil.which("gnuplot"):
            assert (d / "ticks.svg").is_file() and not (d / "ticks.svg").is_symlink()
            assert (d / "latency-hist.svg").is_file() and not (d / "latency-hist.svg").is_symlink()
    finally:
        shutil.rmtree(target_dir, ignore_errors=True)
        target_file.unlink(missing_ok=True)


def test_out_owned_by_another_user_is_refused(scenario, tmp_path):
    path = scenario("refused", LOOP)
    evil = tmp_path / "evil"          # like /tmp/evil made by user nobody
    evil.mkdir()
    os.chown(evil, NOBODY, NOBODY)
    target = pathlib.Path(tempfile.mkdtemp(prefix="jl-target-"))
    link = tmp_path / "link"          # a symlink nobody planted
    link.symlink_to(target)
    os.lchown(link, NOBODY, NOBODY)
    try:
        for out, why in ((evil / "out", "owned by uid 65534"), (evil, "owned by uid 65534"), (link / "out", "symlink")):
            for env in (env_without_sudo(), env_sudo(uid=4242, gid=4242)):
                r = run_bin("run", path, "--out", out, "--quiet", env=env)
                assert r.returncode == 2, f"--out {out}: exit {r.returncode}\n{r.stderr}"  # bad input, nothing touched
                assert why in r.stderr and str(out) in r.stderr, r.stderr
        assert list(evil.iterdir()) == [] and list(target.iterdir()) == []
        # the same directory is fine for the user who owns it
        r = run_bin("run", path, "--out", evil / "out", "--quiet", env=env_sudo())
        assert r.returncode == 0, r.stderr
        assert (evil / "out" / "refused" / "latest" / "summary.json").is_file()
    finally:
        shutil.rmtree(target, ignore_errors=True)


# ---- ownership under sudo ----

def test_every_file_is_the_sudo_users(scenario, tmp_path):
    path = scenario("owned", """
        [run]
        duration = 1s
        warmup = 0s
        trace = sched

        [thread control]
        policy = fifo
        priority = 80
        cpus = 1
        rate = 100Hz
        work = spin 100us

        [thread nb]
        policy = other
        cpus = 0
        exec = sleep 100
    """)
    top = tmp_path / "userdir"        # the user's own directory
    top.mkdir()
    os.chown(top, NOBODY, NOBODY)
    out = top / "out"
    r = run_bin("run", path, "--out", out, env=env_sudo(), timeout=120)  # not --quiet: plots too
    assert r.returncode == 0, f"exit {r.returncode}\n{r.stderr}"
    d = (out / "owned" / "latest").resolve()
    names = {x.name for x in d.iterdir()}
    assert {"trace.dat", "kernelshark.json", "nb.log", "summary.json", "samples.csv", "report.md",
            "scenario.ini"} <= names, names
    if shutil.which("gnuplot"):
        assert {"latency-hist.svg", "latency-cycle.svg", "ticks.svg"} <= names, names
    paths = tree(out)
    assert out / "owned" / "latest" in paths
    wrong = [(str(p), st.st_uid, st.st_gid) for p in paths for st in (os.lstat(p),)
             if (st.st_uid, st.st_gid) != (NOBODY, NOBODY)]
    assert not wrong, f"not owned by {NOBODY}:{NOBODY}: {wrong}"
    assert os.lstat(top).st_uid == NOBODY  # the existing directory is left as it was


# ---- modes of the machine lock and the journal ----

def test_lock_and_journal_are_0600(scenario, tmp_path):
    path = scenario("journal", """
        [run]
        duration = 3s
        warmup = 0s
        trace = off
        rt_runtime = 900ms

        [thread control]
        policy = fifo
        priority = 80
        cpus = 1
        rate = 100Hz
        work = spin 100us
    """)
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(tmp_path / "out"), "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env_without_sudo())
    journal = STATE / f"run-{proc.pid}.journal"
    modes = set()
    try:
        end = time.monotonic() + 20
        while time.monotonic() < end and proc.poll() is None:
            try:
                modes.add(os.stat(journal).st_mode & 0o7777)
            except FileNotFoundError:
                pass
            time.sleep(0.02)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert modes, f"no journal {journal} seen while the run was up"
    assert modes == {0o600}, f"journal modes seen: {sorted(oct(x) for x in modes)}"
    st = os.stat(STATE / "machine.lock")
    assert st.st_mode & 0o7777 == 0o600 and st.st_uid == 0, oct(st.st_mode)
    sd = os.stat(STATE)
    assert sd.st_mode & 0o7777 == 0o755 and sd.st_uid == 0, oct(sd.st_mode)


# ---- user = invoking ----

def _children(ppid, name):
    out = []
    for d in pathlib.Path("/proc").iterdir():
        if not d.name.isdigit():
            continue
        try:
            status = (d / "status").read_text()
        except OSError:
            continue
        f = dict(line.split(":\t", 1) for line in status.splitlines() if ":\t" in line)
        if f.get("PPid", "").strip() == str(ppid) and f.get("Name", "").strip() == name:
            out.append((int(d.name), f))
    return out


def test_user_invoking_runs_the_neighbour_as_the_sudo_user(scenario, tmp_path):
    path = scenario("asuser", """
        [run]
        duration = 3s
        warmup = 0s
        trace = off

        [thread control]
        policy = fifo
        priority = 80
        cpus = 1
        rate = 100Hz
        work = spin 100us

        [thread nb]
        policy = fifo
        priority = 7
        cpus = 1
        exec = sleep 100
        user = invoking
    """)
    top = tmp_path / "userdir"
    top.mkdir()
    os.chown(top, NOBODY, NOBODY)
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(top / "out"), "--quiet"], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True, env=env_sudo())
    seen = None
    try:
        end = time.monotonic() + 20
        while time.monotonic() < end and proc.poll() is None and seen is None:
            for pid, f in _children(proc.pid, "sleep"):
                try:
                    seen = (f, os.sched_getscheduler(pid), os.sched_getparam(pid).sched_priority,
                            os.sched_getaffinity(pid))
                except OSError:
                    continue
            time.sleep(0.05)
        _, err = proc.communicate(timeout=60)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.communicate(timeout=30)
    assert proc.returncode == 0, err
    assert seen, f"the exec neighbour was never seen running:\n{err}"
    f, policy, prio, cpus = seen
    assert f["Uid"].split() == [str(NOBODY)] * 4, f["Uid"]
    assert f["Gid"].split() == [str(NOBODY)] * 4, f["Gid"]
    assert "0" not in f.get("Groups", "").split(), f["Groups"]  # root's groups were dropped
    assert policy == os.SCHED_FIFO and prio == 7, (policy, prio)
    assert cpus == {1}, cpus
    log = (top / "out" / "asuser" / "latest" / "nb.log")
    assert os.lstat(log).st_uid == NOBODY


def test_user_invoking_without_sudo_is_a_scenario_error(scenario, tmp_path):
    path = scenario("nosudo", """
        [run]
        duration = 1s
        warmup = 0s
        trace = off

        [thread nb]
        exec = sleep 100
        user = invoking
    """)
    r = run_bin("run", path, "--out", tmp_path / "out")
    assert r.returncode == 2, f"exit {r.returncode}\n{r.stderr}"
    assert f"{path}:8: thread 'nb': user = invoking needs sudo" in r.stderr, r.stderr
    assert not (tmp_path / "out").exists()
