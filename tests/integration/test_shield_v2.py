"""The shield on cgroup v2 (an isolated partition), tested for real on our machines by moving the cpuset
controller from its v1 mount to the unified hierarchy for this module, and always back (the fixture's
finalizer; .ci/run checks afterwards that the v1 mount is back).

Every knob and every task's CPU mask is snapshotted before a shielded run and compared after it: after a
normal end, after SIGINT, and after SIGKILL + `jitterlab restore`. Helper tasks with narrowed masks on each
CPU are the test's own."""
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import BIN, NCPU, assert_irqs_back, cgroup2_cpuset, irq_counts, irq_threads

# the cgroup2 mount with the cpuset controller: /sys/fs/cgroup in the RT lane's guest and on Ubuntu 24.04
U = cgroup2_cpuset() or pathlib.Path("/nonexistent")
pytestmark = [pytest.mark.rt, pytest.mark.needs("cgroup_v2_cpuset"),
              pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs")]

SHIELD = """
    [run]
    duration = {duration}
    warmup = 0s
    trace = off
    isolate = 1
    irq_affinity = housekeeping

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [thread near]
    policy = other
    cpus = 1
    work = sin 100000

    [thread hog]
    policy = other
    cpus = 0
    work = sin 100000
    """


def _read(path):
    try:
        return pathlib.Path(path).read_text().strip()
    except OSError:
        return None


@pytest.fixture(scope="module")
def cgroup_v2():
    """The cgroup2 mount that offers the cpuset controller (found, never assumed)."""
    return cgroup2_cpuset()


def _task_cpus(tid):
    for line in (_read(f"/proc/{tid}/status") or "").splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    return None


def no_setaffinity(tid):
    """A kernel thread whose mask only the kernel sets (PF_NO_SETAFFINITY, /proc/TID/stat's flags): jitterlab
    neither moves nor restores it, and the kernel moves it at will (a workqueue's rescuer is bound to the
    pool it rescues: seen in the RT guest right after boot, rcu_gp on CPU 1, then on 0-1)."""
    stat = _read(f"/proc/{tid}/stat") or ""
    fields = stat.rsplit(")", 1)[-1].split()
    return len(fields) > 7 and int(fields[6]) & 0x04000000 != 0


def snapshot():
    s = {"masks": {}, "irqs": {}}
    for d in pathlib.Path("/proc").glob("[0-9]*/task/[0-9]*"):
        m = _task_cpus(d.name)
        if m is not None:
            s["masks"][d.name] = m
    for d in pathlib.Path("/proc/irq").iterdir():
        if d.is_dir():
            s["irqs"][d.name] = (_read(d / "smp_affinity_list"), _read(d / "effective_affinity_list"))
    s["subtree"] = _read(U / "cgroup.subtree_control")
    s["isolated"] = _read(U / "cpuset.cpus.isolated")  # None before Linux 6.7
    s["effective"] = _read(U / "cpuset.cpus.effective")
    s["partitions"] = {str(p.relative_to(U)): _read(p) for p in U.glob("**/cpuset.cpus.partition")}
    s["cgroups"] = sorted(p.name for p in U.iterdir() if p.is_dir())
    s["rt_runtime"] = _read("/proc/sys/kernel/sched_rt_runtime_us")
    return s


def user_mask_kept():
    """Linux 6.2+ keeps the mask a sched_setaffinity gave as the task's user mask (affinity/irq_threads.h):
    there jitterlab sets an IRQ thread back only where that leaves nothing that matters."""
    with open("/proc/sys/kernel/osrelease") as f:
        return tuple(int(x) for x in f.read().split(".")[:2]) >= (6, 2)


def assert_same(before, after, pending, fired_since):
    """The machine as found: every knob, the partition state, every task's mask, IRQ threads included
    (before Linux 6.2 with no exception at all; from 6.2 only a thread the report names, with its mask and
    why), PF_NO_SETAFFINITY kernel threads excepted (the kernel moves them at will), and every IRQ's mask and
    its effective CPU (or the report says why it stayed: an IRQ's move waits for its next interrupt)."""
    for key in ("subtree", "isolated", "effective", "partitions", "cgroups", "rt_runtime"):
        assert after[key] == before[key], f"{key} differs:\nbefore {before[key]}\nafter  {after[key]}"
    assert_irqs_back(before["irqs"], after["irqs"], pending)
    # and an IRQ is reported pending only when it is: one back on its CPU now was moved by an interrupt
    # that came after the report (FIRED_SINCE: the IRQs whose count grew since the run ended)
    for n in pending:
        if n.get("kind") == "irq" and str(n["irq"]) in after["irqs"] and str(n["irq"]) in before["irqs"]:
            back = after["irqs"][str(n["irq"])][1] == before["irqs"][str(n["irq"])][1]
            assert not back or n["irq"] in fired_since, f"IRQ {n['irq']} is reported pending, yet it is back: {n}"
    threads = irq_threads()
    said = {n["pid"]: n for n in pending if n.get("kind") == "irq_thread"}
    # a thread follows its IRQ (the kernel's rule): while its IRQ is reported still delivered elsewhere
    # (its move back waits for an interrupt), the thread may be where the IRQ is now
    following = {int(n["irq"]): n["effective_after"] for n in pending if n.get("kind") == "irq"}
    changed = {}
    for t in set(before["masks"]) & set(after["masks"]):
        comm = _read(f"/proc/{t}/comm")
        if before["masks"][t] == after["masks"][t] or not comm or no_setaffinity(t):
            continue
        n = said.get(int(t))
        if int(t) in threads and following.get(threads[int(t)][0]) == after["masks"][t]:
            continue
        if int(t) in threads and n and user_mask_kept():
            assert n["mask"] == after["masks"][t] and n["why"], n
            continue
        changed[t] = (comm, before["masks"][t], after["masks"][t], "irq thread" if int(t) in threads else "")
    assert not changed, f"task masks changed (tid: comm, before, after): {changed}"
    if not user_mask_kept():
        assert not said, f"the report names IRQ thread masks jitterlab could have put back: {list(said.values())}"


def ended(counts):
    """The IRQs that fired since COUNTS were read (when the run ended)."""
    now = irq_counts()
    return {i for i, c in now.items() if c > counts.get(i, c)}


@pytest.fixture
def helpers():
    procs = {}
    for name, cpus in (("on0", {0}), ("on1", {1}), ("both", {0, 1})):
        p = subprocess.Popen(["sleep", "600"])
        os.sched_setaffinity(p.pid, cpus)
        procs[name] = p
    yield {k: p.pid for k, p in procs.items()}
    for p in procs.values():
        p.kill()
        p.wait(timeout=10)


def start(scenario, tmp_path, duration="3s", name="v2shield"):
    path = scenario(name, SHIELD.format(duration=duration))
    out = tmp_path / "out"
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    return proc, out


def wait_partition(pid, timeout=20):
    d = U / f"jitterlab-{pid}-shield"
    end = time.time() + timeout
    while time.time() < end:
        if _read(d / "cpuset.cpus.partition") == "isolated" and (_read(d / "cgroup.threads") or "").split():
            return d
        time.sleep(0.05)
    raise AssertionError(f"no isolated partition with a thread appeared for pid {pid}")


def check_during(proc, helpers):
    try:
        d = wait_partition(proc.pid)
        assert _read(d / "cpuset.cpus") == "1"
        if (U / "cpuset.cpus.isolated").exists():  # Linux 6.7+
            assert _read(U / "cpuset.cpus.isolated") == "1"
        eff = _read(U / "cpuset.cpus.effective")
        assert eff == "0", f"the root still has CPU 1: {eff}"
        comms = {t: _read(f"/proc/{t}/comm") for t in _read(d / "cgroup.threads").split()}
        assert {"control", "near"} <= set(comms.values()), comms
        assert "hog" not in comms.values(), comms  # pinned to the housekeeping CPU: stays in the root
        for t in comms:
            assert _task_cpus(t) == "1", (t, comms[t], _task_cpus(t))
        # no task outside the partition may run on CPU 1 (their masks lose it while it lasts)
        assert _task_cpus(helpers["both"]) == "0"
        assert _task_cpus(helpers["on0"]) == "0"
        # a task its owner pinned to CPU 1 runs on the housekeeping CPU while the partition lasts
        assert _task_cpus(helpers["on1"]) == "0"
        return d
    except BaseException:
        proc.kill()
        proc.communicate(timeout=30)
        raise


@pytest.mark.first
def test_v2_shielded_run_holds_the_cpu_and_leaves_nothing(cgroup_v2, jl, scenario, tmp_path, helpers):
    """The first test after boot in the RT lane: nothing of jitterlab ran on this kernel before."""
    before = snapshot()
    proc, out = start(scenario, tmp_path)
    check_during(proc, helpers)
    _, err = proc.communicate(timeout=60)
    counts = irq_counts()
    assert proc.returncode == 0, err
    s = json.loads(next(out.glob("v2shield/*/summary.json")).read_text())
    assert s["host"]["restore"]["complete"] is True, s["host"]["restore"]
    assert_same(before, snapshot(), s["host"]["restore"]["pending"], ended(counts))
    assert _task_cpus(helpers["both"]) == "0-1" and _task_cpus(helpers["on1"]) == "1"
    assert _task_cpus(helpers["on0"]) == "0"
    sh = s["host"]["shield"]
    assert sh["method"] == "cgroup-v2" and sh["partition"] == "isolated" and sh["cpus"] == "1", sh
    # the root's cpuset.cpus.isolated exists from Linux 6.7 on; before, the partition's own state says it
    assert sh["root_isolated"] == ("1" if (U / "cpuset.cpus.isolated").exists() else ""), sh
    assert sh["threads_shielded"] == 1 and sh["neighbours_shielded"] == 1, sh
    # before 6.2 the partition resets every root task's mask: at least the two pinned helpers' were journalled
    with open("/proc/sys/kernel/osrelease") as f:
        old = tuple(int(x) for x in f.read().split(".")[:2]) < (6, 2)
    assert (sh["masks_journalled"] >= 2) if old else (sh["masks_journalled"] == 0), sh
    assert sh["tasks_moved"] == 0, sh  # the partition takes the CPU from every other cgroup by itself
    assert sh["tasks_pinned"] >= 1, sh  # at least the helper pinned to CPU 1 (it had to leave it)
    t = {x["name"]: x for x in s["threads"]}
    assert t["control"]["cpus_used"] == "1" and t["near"]["cpus_used"] == "1" and t["hog"]["cpus_used"] == "0"


def test_v2_sigint_restores_everything(cgroup_v2, jl, scenario, tmp_path, helpers):
    jl("restore", timeout=60)
    before = snapshot()
    proc, out = start(scenario, tmp_path, duration="30s")
    check_during(proc, helpers)
    proc.send_signal(signal.SIGINT)
    _, err = proc.communicate(timeout=60)
    counts = irq_counts()
    assert proc.returncode == 130, err
    s = json.loads(next(out.glob("v2shield/*/summary.json")).read_text())
    assert_same(before, snapshot(), s["host"]["restore"]["pending"], ended(counts))


def test_v2_sigkill_then_restore(cgroup_v2, jl, scenario, tmp_path, helpers):
    jl("restore", timeout=60)
    before = snapshot()
    proc, _ = start(scenario, tmp_path, duration="30s")
    d = check_during(proc, helpers)
    proc.kill()
    proc.communicate(timeout=30)
    assert d.exists(), "nothing left for restore to do"
    doc = json.loads(jl("doctor", "--json", timeout=60).stdout)
    assert [c for c in doc["checks"] if c["name"] == "leftovers"][0]["status"] == "fail"
    r = jl("restore", "--json", timeout=60)
    counts = irq_counts()
    assert r.rc == 0, r.stdout + r.stderr
    assert not d.exists()
    doc = json.loads(r.stdout)
    assert doc["clean"] is True, doc
    assert_same(before, snapshot(), doc["pending"], ended(counts))
    for name in ("on0", "on1", "both"):  # the kernel before 6.2 reset them: the journal put them back
        assert _task_cpus(helpers[name]) == {"on0": "0", "on1": "1", "both": "0-1"}[name], name


def test_v2_refused_partition_is_an_error_before_the_run(cgroup_v2, jl, scenario, tmp_path):
    """Another cgroup claims CPU 1 exclusively (cpuset.cpus.exclusive, Linux 6.7+): the kernel refuses our
    partition ("isolated invalid (...)"); the run says so before anything is measured and leaves nothing."""
    jl("restore", timeout=60)
    enabled = "cpuset" not in (_read(U / "cgroup.subtree_control") or "").split()
    if enabled:
        (U / "cgroup.subtree_control").write_text("+cpuset")
    claim = U / "jl-test-claim"
    claim.mkdir()
    try:
        (claim / "cpuset.cpus").write_text("1")
        if not (claim / "cpuset.cpus.exclusive").exists():
            pytest.skip("no cpuset.cpus.exclusive before Linux 6.7")
        (claim / "cpuset.cpus.exclusive").write_text("1")
        before = snapshot()
        r = jl("run", scenario("refused", SHIELD.format(duration="2s")), timeout=60)
        assert r.rc == 1, r.stderr
        assert "refused the isolated partition" in r.stderr and "isolated invalid" in r.stderr, r.stderr
        assert_same(before, snapshot(), [], set())
    finally:
        claim.rmdir()
        if enabled:
            (U / "cgroup.subtree_control").write_text("-cpuset")
