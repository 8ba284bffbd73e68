"""affinity/: the runtime shield, IRQ steering, the journal and `restore`, `doctor`.

Every knob the tool can touch is snapshotted before a shielded run (cpuset tree and task placement,
every IRQ's affinity, sched_rt_runtime_us, jitterlab tracing instances and journals, who holds
/dev/cpu_dma_latency) and compared after it: after a normal end, after SIGINT (exit 130) and after
SIGKILL followed by `jitterlab restore`. A run over a stale journal is refused (exit 1, names restore).

Other agents use this 2-CPU VM at the same time: the snapshot only compares what belongs to the machine
or to tasks that lived through the whole test (tasks that come and go are not compared), and other
live jitterlab runs' instances/journals are ignored."""
import fcntl
import json
import os
import pathlib
import signal
import subprocess
import time

import pytest

from conftest import BIN, NCPU, assert_irqs_back

CPUSET = pathlib.Path("/sys/fs/cgroup/cpuset")
STATE = pathlib.Path(os.environ.get("JITTERLAB_STATE_DIR") or "/run/jitterlab")

SHIELD = """
    ; isolate CPU 1 for a 100 Hz FIFO loop; a CFS neighbour on CPU 0
    [run]
    duration = {duration}
    warmup = 0s
    trace = off
    isolate = 1
    irq_affinity = housekeeping
    rt_runtime = 900ms

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 100Hz
    work = spin 100us

    [thread hog]
    policy = other
    cpus = 0
    work = sin 100000
    """

needs_shield = pytest.mark.skipif(NCPU < 2 or not (CPUSET / "tasks").exists(),
                                  reason="needs 2+ CPUs and the cgroup v1 cpuset hierarchy")


def _read(path):
    try:
        return pathlib.Path(path).read_text().strip()
    except OSError:
        return None


def _alive_jitterlab(pid):
    """Could PID be a live run (any live process: runs started through /proc/self/exe are named "exe")."""
    return os.path.exists(f"/proc/{pid}")


def _task_cpus(tid):
    for line in (_read(f"/proc/{tid}/status") or "").splitlines():
        if line.startswith("Cpus_allowed_list:"):
            return line.split(":", 1)[1].strip()
    return None


def snapshot():
    """Every knob jitterlab may touch, as plain data, taken while holding the machine lock (so that no
    concurrent run is half-way through changing or restoring them)."""
    STATE.mkdir(mode=0o755, exist_ok=True)
    with open(STATE / "machine.lock", "a+") as lock:
        end = time.time() + 60
        while True:
            try:
                fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
                break
            except BlockingIOError:
                if time.time() > end:
                    raise
                time.sleep(0.1)
        try:
            return _snapshot()
        finally:
            fcntl.flock(lock, fcntl.LOCK_UN)


def _snapshot():
    s = {"cpusets": {}, "placement": {}, "affinity": {}, "irqs": {}}
    for d in [CPUSET] + sorted(p for p in CPUSET.rglob("*") if p.is_dir()):
        rel = str(d.relative_to(CPUSET)) or "/"
        if rel.startswith("jitterlab-") and _alive_jitterlab(rel.split("-")[1]):
            continue  # another agent's run in progress
        s["cpusets"][rel] = {k: _read(d / k) for k in
                             ("cpuset.cpus", "cpuset.mems", "cpuset.cpu_exclusive", "cpuset.sched_load_balance")}
        for t in (_read(d / "tasks") or "").split():
            s["placement"][t] = rel
            s["affinity"][t] = _task_cpus(t)
    for d in pathlib.Path("/proc/irq").iterdir():
        if d.is_dir():
            s["irqs"][d.name] = (_read(d / "smp_affinity_list"), _read(d / "effective_affinity_list"))
    s["irqs"]["default"] = _read("/proc/irq/default_smp_affinity")
    s["rt_runtime"] = (_read("/proc/sys/kernel/sched_rt_runtime_us"),
                       _read("/sys/fs/cgroup/cpu/cpu.rt_runtime_us"))  # root RT group (RT_GROUP_SCHED)
    inst = pathlib.Path("/sys/kernel/tracing/instances")
    s["instances"] = sorted(p.name for p in inst.iterdir()
                            if p.name.startswith("jitterlab-") and not _alive_jitterlab(p.name.split("-")[1])) \
        if inst.exists() else []
    s["journals"] = sorted(p.name for p in STATE.glob("run-*.journal")
                           if not _alive_jitterlab(p.name[4:-8])) if STATE.exists() else []
    holders = set()
    for fd in pathlib.Path("/proc").glob("[0-9]*/fd/*"):
        try:
            if os.readlink(fd) == "/dev/cpu_dma_latency":
                holders.add(fd.parts[2])
        except OSError:
            pass
    s["dma_holders"] = sorted(p for p in holders if not (_read(f"/proc/{p}/comm") or "").startswith(("jitterlab", "exe")))
    return s


def assert_same(before, after, pending=None):
    """PENDING: what the run or restore said the kernel has not put back yet (host.restore.pending,
    `restore --json` pending): an IRQ named there may still be delivered elsewhere (at its next
    interrupt it moves). None: nothing was said, so nothing may differ."""
    # the machine's own state is identical; jitterlab leftovers of other (concurrent, other agents')
    # runs may be cleaned meanwhile, but none may appear
    ours = lambda d: {k: v for k, v in d.items() if not k.startswith("jitterlab-")}
    assert ours(after["cpusets"]) == ours(before["cpusets"]), \
        f"cpusets differ after the run:\nbefore {before['cpusets']}\nafter  {after['cpusets']}"
    assert set(after["cpusets"]) <= set(before["cpusets"]), f"cpusets left: {after['cpusets']}"
    assert after["irqs"]["default"] == before["irqs"]["default"]
    assert_irqs_back(before["irqs"], after["irqs"], pending or [])
    assert after["rt_runtime"] == before["rt_runtime"], f"rt_runtime: before {before['rt_runtime']}, after {after['rt_runtime']}"
    for key in ("instances", "journals"):
        assert set(after[key]) <= set(before[key]), f"{key} left behind: {after[key]} (before: {before[key]})"
    # tasks that lived through the whole test are back in the cpuset they were in, with their affinity
    both = set(before["placement"]) & set(after["placement"])
    moved = {t: (before["placement"][t], after["placement"][t]) for t in both
             if before["placement"][t] != after["placement"][t]}
    assert not moved, f"tasks left in another cpuset: {moved}"
    changed = {t: (before["affinity"][t], after["affinity"][t]) for t in both
               if before["affinity"][t] != after["affinity"][t] and _read(f"/proc/{t}/comm")}
    assert not changed, f"task affinities changed: {changed}"
    assert set(after["dma_holders"]) <= set(before["dma_holders"]) | {"self"}


def _kthread(tid):
    stat = _read(f"/proc/{tid}/stat") or ""
    fields = stat[stat.rfind(")") + 2:].split()
    return len(fields) > 6 and int(fields[6]) & 0x00200000 != 0  # PF_KTHREAD


def _cgroup_of(tid):
    return _read(f"/proc/{tid}/cpuset")


def _staying_tasks():
    """tid -> cpuset of every task the shield must leave where it is: IRQ threads, and tasks whose CPU
    mask lies inside the housekeeping CPU (0) already."""
    out = {}
    for d in pathlib.Path("/proc").glob("[0-9]*/task/[0-9]*"):
        tid = d.name
        comm = _read(d / "comm") or ""
        cpus = _task_cpus(tid)
        if cpus is None:
            continue
        if (comm.startswith("irq/") and _kthread(tid)) or cpus == "0":
            cg = _cgroup_of(tid)
            if cg is not None:
                out[tid] = (comm, cg)
    return out


@pytest.fixture
def narrowed_tasks():
    """Helper tasks of the test's own, one per kind of mask: on the housekeeping CPU only (set with
    sched_setaffinity), on the shield CPU only, and on both."""
    procs = []
    for cpus in ({0}, {1}, {0, 1}):
        p = subprocess.Popen(["sleep", "600"])
        os.sched_setaffinity(p.pid, cpus)
        procs.append(p)
    yield {str(p.pid): ",".join(str(c) for c in sorted(os.sched_getaffinity(p.pid))) for p in procs}
    for p in procs:
        p.kill()
        p.wait(timeout=10)


def start(scenario, tmp_path, duration="3s", name="shield"):
    path = scenario(name, SHIELD.format(duration=duration))
    out = tmp_path / "out"
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(out)], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    return proc, out


def wait_for_shield(pid, timeout=15):
    shield = CPUSET / f"jitterlab-{pid}-shield"
    end = time.time() + timeout
    while time.time() < end:
        tasks = (_read(shield / "tasks") or "").split()
        if tasks:
            return shield, tasks
        time.sleep(0.05)
    raise AssertionError(f"no shield cpuset with a task appeared for pid {pid}")


def check_shield_during_run(pid):
    shield, tasks = wait_for_shield(pid)
    assert _read(shield / "cpuset.cpus") == "1"
    assert _read(CPUSET / "cpuset.sched_load_balance") == "0"
    assert _read("/proc/sys/kernel/sched_rt_runtime_us") == "900000"
    hk = CPUSET / f"jitterlab-{pid}-housekeeping"
    assert _read(hk / "cpuset.cpus") == "0"
    comms = {t: _read(f"/proc/{t}/comm") for t in tasks}
    assert "control" in comms.values(), comms
    for t in tasks:  # everything in the shield runs only on it
        cpus = _task_cpus(t)
        assert cpus in ("1", None), f"task {t} ({comms[t]}) in the shield may run on {cpus}"
    # the housekeeping set holds many moved tasks; IRQs are off CPU 1 where the kernel allowed it
    assert len((_read(hk / "tasks") or "").split()) > 0
    irqs = [_read(p) for p in pathlib.Path("/proc/irq").glob("*/smp_affinity_list")]
    assert "0" in irqs, f"no IRQ was steered to CPU 0: {irqs}"
    assert _read("/proc/irq/default_smp_affinity").lstrip("0,") == "1"
    return shield


def check_or_kill(proc):
    """check_shield_during_run, but a failed check never leaves the 30 s shielded run behind."""
    try:
        return check_shield_during_run(proc.pid)
    except BaseException:
        proc.send_signal(signal.SIGINT)
        try:
            proc.communicate(timeout=30)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate(timeout=10)
        raise


def kill_and_wait(proc, sig, timeout=30):
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate(timeout=10)
        raise AssertionError("jitterlab did not end after the signal")
    return proc.returncode, out, err


@pytest.fixture
def machine_clean(jl):
    """Start from a clean machine (an earlier failed test may have left a journal) and always end clean."""
    jl("restore", timeout=60)
    yield
    jl("restore", timeout=60)


@needs_shield
def test_shielded_run_restores_everything(jl, scenario, tmp_path, machine_clean, narrowed_tasks):
    before = snapshot()
    staying = _staying_tasks()
    assert any(c.startswith("irq/") for c, _ in staying.values()) or not any(
        (_read(f"{d}/comm") or "").startswith("irq/") for d in pathlib.Path("/proc").glob("[0-9]*"))
    proc, out = start(scenario, tmp_path)
    try:
        check_shield_during_run(proc.pid)
        # IRQ threads and tasks already on the housekeeping CPU only were not moved
        now = {t: _cgroup_of(t) for t in staying}
        moved = {t: (staying[t][0], staying[t][1], now[t]) for t in staying
                 if now[t] is not None and now[t] != staying[t][1]}
        assert not moved, f"tasks that did not need moving were moved (tid: comm, before, during): {moved}"
        pinned0 = [t for t, m in narrowed_tasks.items() if m == "0"][0]
        pinned1 = [t for t, m in narrowed_tasks.items() if m == "1"][0]
        both = [t for t, m in narrowed_tasks.items() if m == "0,1"][0]
        assert _cgroup_of(pinned0) == "/" and _cgroup_of(pinned1) == "/", "a pinned helper task was moved"
        assert _cgroup_of(both) == f"/jitterlab-{proc.pid}-housekeeping", "a task on both CPUs stayed on the shield"
        assert _task_cpus(both) == "0"
    finally:
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    after = snapshot()
    summary = json.loads(next(out.glob("shield/*/summary.json")).read_text())
    assert summary["host"]["restore"]["complete"] is True
    assert_same(before, after, summary["host"]["restore"]["pending"])
    for tid, mask in narrowed_tasks.items():
        assert ",".join(str(c) for c in sorted(os.sched_getaffinity(int(tid)))) == mask, f"helper {tid}"
    assert not (CPUSET / f"jitterlab-{proc.pid}-shield").exists()
    assert not (STATE / f"run-{proc.pid}.journal").exists()

    host = summary["host"]
    assert host["shield"]["cpus"] == "1"
    assert host["shield"]["method"] == "cgroup-v1"
    assert host["shield"]["tasks_moved"] > 0
    assert host["shield"]["tasks_unmovable"] > 0  # per-CPU kernel threads (migration/1, ...) never move
    assert host["shield"]["tasks_kept"] > 0  # at least the helper pinned to CPU 0
    assert host["shield"]["tasks_pinned"] > 0  # at least the helper pinned to CPU 1
    assert host["irqs"]["moved"] + host["irqs"]["kept"] + len(host["irqs"]["refused"]) > 0
    assert host["cpu_dma_latency_us"] == 0
    assert host["rt_runtime_us"] == 900000 and host["rt_runtime_changed"] is True
    control = [t for t in summary["threads"] if t["name"] == "control"][0]
    assert control["cpus_used"] == "1"


@needs_shield
@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_signal_mid_run_restores_everything(scenario, tmp_path, machine_clean, sig):
    before = snapshot()
    proc, out = start(scenario, tmp_path, duration="30s")
    check_or_kill(proc)
    rc, _, err = kill_and_wait(proc, sig)
    assert rc == 130, err  # interrupted, after restoring everything
    summary = json.loads(next(out.glob("shield/*/summary.json")).read_text())
    assert_same(before, snapshot(), summary["host"]["restore"]["pending"])


@needs_shield
def test_sigkill_then_refused_then_restore(jl, scenario, tmp_path, machine_clean):
    before = snapshot()
    proc, _ = start(scenario, tmp_path, duration="30s")
    check_or_kill(proc)
    rc, _, _ = kill_and_wait(proc, signal.SIGKILL)
    assert rc == -signal.SIGKILL
    journal = STATE / f"run-{proc.pid}.journal"
    assert journal.exists()
    assert (CPUSET / f"jitterlab-{proc.pid}-shield").exists()

    # doctor names the leftover; a second run is refused and says to run restore
    doc = json.loads(jl("doctor", "--json", timeout=60).stdout)
    assert [c for c in doc["checks"] if c["name"] == "leftovers"][0]["status"] == "fail"
    again = jl("run", scenario("again", SHIELD.format(duration="1s")), timeout=60)
    assert again.rc == 1, again.stderr
    assert "jitterlab restore" in again.stderr
    assert str(journal) in again.stderr

    dry = jl("restore", "--dry-run", timeout=60)
    assert dry.rc == 0 and str(journal) in dry.stdout
    assert journal.exists()

    res = jl("restore", "--json", timeout=60)
    assert res.rc == 0, res.stdout + res.stderr
    doc = json.loads(res.stdout)
    assert doc["clean"] is True and [j["path"] for j in doc["found"]["journals"]] == [str(journal)], doc
    assert not journal.exists()
    assert_same(before, snapshot(), doc["pending"])
    assert jl("restore", timeout=60).stdout.strip().endswith("nothing to restore")


@pytest.mark.rt
def test_doctor_json_lists_every_check(jl):
    r = jl("doctor", "--json", timeout=60)
    assert r.rc == 0, r.stderr
    doc = json.loads(r.stdout)
    names = [c["name"] for c in doc["checks"]]
    for want in ("preempt", "kernel_versions", "isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity", "rt_throttling", "governor",
                 "idle_states", "smt", "irqbalance", "virtualization", "steal_time", "clocksource", "thp",
                 "timer_migration", "rlimits", "tracefs", "tracers", "cyclictest", "trace-cmd", "kernelshark",
                 "cpusets", "leftovers"):
        assert want in names, f"doctor has no '{want}' check"
    assert len(names) == len(set(names))
    for c in doc["checks"]:
        assert c["status"] in ("ok", "warn", "fail")
        assert c["advice"], c
    assert doc["ok"] + doc["warn"] + doc["fail"] == len(names)
    table = jl("doctor", timeout=60)
    assert table.rc == 0
    for n in names:
        assert n in table.stdout


def test_validate_refuses_bad_machine_settings(jl, scenario):
    # a measured thread outside the shield: exit 2, file:line and key named, nothing touched
    p = scenario("outside", """
        [run]
        duration = 1s
        isolate = 1

        [thread control]
        policy = fifo
        priority = 80
        cpus = 0
        rate = 100Hz
        """)
    r = jl("run", p, timeout=30)
    assert r.rc == 2, r.stderr
    assert f"{p}:" in r.stderr and "cpus" in r.stderr and "isolate" in r.stderr

    p = scenario("unlimited", """
        [run]
        duration = 1s
        rt_runtime = unlimited

        [thread control]
        policy = other
        cpus = 0
        rate = 100Hz
        """)
    r = jl("run", p, timeout=30)
    assert r.rc == 2, r.stderr
    assert f"{p}:3:" in r.stderr and "--unsafe" in r.stderr
    assert _read("/proc/sys/kernel/sched_rt_runtime_us") != "-1"


@pytest.mark.rt
def test_restore_with_nothing_left(jl):
    r = jl("restore", "--json", timeout=60)
    assert r.rc == 0
    doc = json.loads(r.stdout)
    assert "found" in doc and doc["clean"] is True, doc


def _journal_children(journal):
    kids = []
    for line in journal.read_text().splitlines():
        try:
            e = json.loads(line)
        except ValueError:
            continue
        if e.get("op") == "child":
            kids.append(e["pid"])
    return kids


def _pgid_members(pgid):
    out = []
    for stat in pathlib.Path("/proc").glob("[0-9]*/stat"):
        text = _read(stat) or ""
        fields = text[text.rfind(")") + 2:].split()
        if len(fields) > 3 and fields[2] == str(pgid) and fields[0] != "Z":
            out.append(int(stat.parts[2]))
    return out


def test_sigkill_exec_descendants_ended_by_restore(jl, scenario, tmp_path, machine_clean):
    """An exec neighbour's own children outlive a SIGKILLed run; restore ends them (pid + start time
    from the journal, process group of the recorded child), and nothing else."""
    path = scenario("execkill", """
        [run]
        duration = 30s
        warmup = 0s
        trace = off

        [thread control]
        policy = other
        rate = 100Hz

        [thread nb]
        policy = other
        cpus = 0
        exec = sh -c "sleep 600 & wait"
        """)
    bystander = subprocess.Popen(["sleep", "600"])
    proc = subprocess.Popen([BIN, "run", str(path), "--out", str(tmp_path / "out")], stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True)
    journal = STATE / f"run-{proc.pid}.journal"
    try:
        end = time.time() + 15
        kids = []
        while time.time() < end and not kids:
            kids = _journal_children(journal) if journal.exists() else []
            time.sleep(0.05)
        assert kids, "the run recorded no child in its journal"
        members = []
        while time.time() < end and len(members) < 2:
            members = _pgid_members(kids[0])
            time.sleep(0.05)
        assert len(members) >= 2, f"no sleep under the exec child: {members}"
        kill_and_wait(proc, signal.SIGKILL)
        time.sleep(0.3)
        left = _pgid_members(kids[0])
        assert left, "the descendants died with the run already (nothing for restore to do)"
        r = jl("restore", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        end = time.time() + 5
        while time.time() < end and _pgid_members(kids[0]):
            time.sleep(0.05)
        assert not _pgid_members(kids[0]), "restore left the exec neighbour's children running"
        assert bystander.poll() is None, "restore killed an unrelated process"
        assert not journal.exists()
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.communicate(timeout=10)
        bystander.kill()
        bystander.wait(timeout=10)
        for pid in _pgid_members(kids[0]) if kids else []:
            os.kill(pid, signal.SIGKILL)


def _dead_pid():
    p = subprocess.Popen(["true"])
    p.wait(timeout=10)
    return p.pid


@needs_shield
def test_restore_removes_stale_instance_and_cpuset(jl, scenario, machine_clean):
    """Leftovers without a journal (a run killed before its journal, or an older version): a
    `jitterlab-<dead pid>` tracing instance and cpuset are removed by restore; a run refuses to start
    over the stale cpuset; live ones are never touched."""
    inst_root = pathlib.Path("/sys/kernel/tracing/instances")
    pid = _dead_pid()
    inst = inst_root / f"jitterlab-{pid}"
    cs = CPUSET / f"jitterlab-{pid}-shield"
    try:
        if inst_root.exists():
            inst.mkdir()
        cs.mkdir()
        (cs / "cpuset.cpus").write_text("1")
        (cs / "cpuset.mems").write_text(_read(CPUSET / "cpuset.mems"))
        doc = json.loads(jl("doctor", "--json", timeout=60).stdout)
        assert [c for c in doc["checks"] if c["name"] == "leftovers"][0]["status"] == "fail"
        r = jl("run", scenario("refused", SHIELD.format(duration="1s")), timeout=60)
        assert r.rc == 1 and "jitterlab restore" in r.stderr, r.stderr
        r = jl("restore", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        assert not cs.exists()
        assert not inst.exists()
        assert str(cs) in r.stdout
    finally:
        if cs.exists():
            cs.rmdir()
        if inst.exists():
            inst.rmdir()


@needs_shield
def test_run_started_under_a_shield_waits_for_it(jl, scenario, tmp_path, machine_clean):
    """A run started while another shields CPU 1 is confined to the housekeeping CPU (its parent was
    moved there): it waits for the shield to end (the machine lock) instead of failing to pin to CPU 1."""
    proc, _ = start(scenario, tmp_path, duration="3s")
    try:
        check_shield_during_run(proc.pid)
        assert "jitterlab-" in _read("/proc/self/cpuset")  # pytest itself was moved to housekeeping
        p = scenario("pinned", """
            [run]
            duration = 1s
            warmup = 0s
            trace = off

            [thread control]
            policy = fifo
            priority = 80
            cpus = 1
            rate = 100Hz
            """)
        r = jl("run", p, timeout=60)
        # pinning to CPU 1 worked, so it ran after the shield had put every task back
        assert r.rc == 0, r.stderr
        assert r.thread("control")["cpus_used"] == "1"
        assert not (CPUSET / f"jitterlab-{proc.pid}-shield").exists()
    finally:
        proc.communicate(timeout=60)
    assert proc.returncode == 0
    assert f"jitterlab-{proc.pid}-" not in _read("/proc/self/cpuset")


@needs_shield
def test_run_waiting_for_the_lock_refuses_a_killed_runs_leftovers(jl, scenario, tmp_path, machine_clean):
    """B passes the stale check while A runs, waits for the machine lock; A is SIGKILLed: B must not
    journal A's leftovers as its old values but refuse; restore then puts back the real old values."""
    before = snapshot()
    a, _ = start(scenario, tmp_path, duration="30s", name="a")
    check_or_kill(a)
    b = subprocess.Popen([BIN, "run", str(scenario("b", SHIELD.format(duration="1s"))), "--out",
                          str(tmp_path / "outb")], stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        time.sleep(1.5)  # B is past its first stale check, waiting for machine.lock
        assert b.poll() is None, b.communicate()
        kill_and_wait(a, signal.SIGKILL)
        _, err = b.communicate(timeout=60)
    finally:
        if b.poll() is None:
            b.kill()
            b.communicate(timeout=10)
    assert b.returncode == 1, err
    assert "run `sudo jitterlab restore` first" in err, err
    assert not (STATE / f"run-{b.pid}.journal").exists()
    # restore's own report of what the kernel has not put back yet (an IRQ's effective CPU moves at its next
    # interrupt: seen once on a host, IRQ 42 delivered to CPU 0 where it had been on CPU 1)
    res = jl("restore", "--json", timeout=60)
    assert res.rc == 0, res.stdout + res.stderr
    assert_same(before, snapshot(), json.loads(res.stdout)["pending"])


@needs_shield
def test_restore_waits_for_a_live_run(jl, scenario, tmp_path, machine_clean):
    """restore takes machine.lock: it waits for a run changing knobs (up to 10 s) before scanning. The
    run gives the lock back once it has put the machine back (then it writes trace and plots): what
    restore promises is that machine, not that the run has exited."""
    before = snapshot()
    proc, out = start(scenario, tmp_path, duration="3s")
    try:
        check_or_kill(proc)
        r = jl("restore", "--json", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        doc = json.loads(r.stdout)
        assert doc["clean"] is True, doc  # it found nothing of the live run left to put back
        assert not (CPUSET / f"jitterlab-{proc.pid}-shield").exists()
        assert not (CPUSET / f"jitterlab-{proc.pid}-housekeeping").exists()
        assert_same(before, snapshot())
    finally:
        stdout, stderr = proc.communicate(timeout=60)
    assert proc.returncode == 0, stderr
    run_dir = next(out.glob("shield/*/summary.json")).parent
    summary = json.loads((run_dir / "summary.json").read_text())
    assert summary["exit_status"] == 0 and [t for t in summary["threads"] if t["name"] == "control"][0]["cycles"] > 0
    for f in ("scenario.ini", "samples.csv", "report.md"):
        assert (run_dir / f).stat().st_size > 0, f


@needs_shield
def test_foreign_jitterlab_named_cpuset_and_instance_untouched(jl, scenario, machine_clean):
    """Only jitterlab-<pid>-housekeeping/-shield cpusets and jitterlab-<pid> instances are ours: a
    user's jitterlab-foo (with a task in it) is neither reported nor removed."""
    inst_root = pathlib.Path("/sys/kernel/tracing/instances")
    cs = CPUSET / "jitterlab-foo"
    inst = inst_root / "jitterlab-foo"
    sleeper = subprocess.Popen(["sleep", "600"])
    try:
        cs.mkdir()
        (cs / "cpuset.cpus").write_text("0")
        (cs / "cpuset.mems").write_text(_read(CPUSET / "cpuset.mems"))
        (cs / "tasks").write_text(str(sleeper.pid))
        if inst_root.exists():
            inst.mkdir()
        dry = jl("restore", "--json", "--dry-run", timeout=60)
        doc = json.loads(dry.stdout)
        assert str(cs) not in doc["found"]["cpusets"] and "jitterlab-foo" not in doc["found"]["instances"], doc
        r = jl("restore", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        assert cs.exists() and _read(cs / "tasks") == str(sleeper.pid)
        assert not inst_root.exists() or inst.exists()
        doc = json.loads(jl("doctor", "--json", timeout=60).stdout)
        assert [c for c in doc["checks"] if c["name"] == "leftovers"][0]["status"] == "ok"
    finally:
        sleeper.kill()
        sleeper.wait(timeout=10)
        if cs.exists():
            (CPUSET / "tasks").write_text(str(sleeper.pid)) if (cs / "tasks").read_text().strip() else None
            time.sleep(0.1)
            cs.rmdir()
        if inst.exists():
            inst.rmdir()


@needs_shield
def test_restore_removes_child_cgroups_of_our_cpuset(jl, machine_clean):
    """A child cgroup made inside a dead run's housekeeping cpuset (with a task) is removed depth-first,
    its task moved to the root cpuset."""
    pid = _dead_pid()
    hk = CPUSET / f"jitterlab-{pid}-housekeeping"
    sub = hk / "sub"
    sleeper = subprocess.Popen(["sleep", "600"])
    mems = _read(CPUSET / "cpuset.mems")
    try:
        hk.mkdir()
        (hk / "cpuset.cpus").write_text("0")
        (hk / "cpuset.mems").write_text(mems)
        sub.mkdir()
        (sub / "cpuset.cpus").write_text("0")
        (sub / "cpuset.mems").write_text(mems)
        (sub / "tasks").write_text(str(sleeper.pid))
        r = jl("restore", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        assert not hk.exists()
        assert str(sleeper.pid) in (_read(CPUSET / "tasks") or "").split()
    finally:
        sleeper.kill()
        sleeper.wait(timeout=10)
        for d in (sub, hk):
            if d.exists():
                time.sleep(0.1)
                d.rmdir()


def test_restore_treats_a_freed_irq_as_undone(jl, machine_clean):
    """A journal entry for an IRQ freed meanwhile (/proc/irq/9999 gone) does not keep the journal forever."""
    if os.path.exists("/proc/irq/9999"):
        pytest.skip("IRQ 9999 exists here")
    STATE.mkdir(mode=0o755, exist_ok=True)
    pid = _dead_pid()
    journal = STATE / f"run-{pid}.journal"
    journal.write_text(json.dumps({"op": "owner", "pid": pid, "start": 1, "time": 1}) + "\n" +
                       json.dumps({"op": "write", "path": "/proc/irq/9999/smp_affinity_list", "old": "0-1"}) + "\n")
    try:
        r = jl("restore", timeout=60)
        assert r.rc == 0, r.stdout + r.stderr
        assert "/proc/irq/9999" in r.stdout
        assert not journal.exists()
    finally:
        if journal.exists():
            journal.unlink()


def _debugfs_mounted():
    return any(l.split()[1] == "/sys/kernel/debug" and l.split()[2] == "debugfs"
               for l in pathlib.Path("/proc/self/mounts").read_text().splitlines())


def _fair_server_runtimes():
    """CPU -> runtime of the fair server, or None where it cannot be read (mounting debugfs if needed)."""
    mounted = False
    if not _debugfs_mounted():
        if subprocess.run(["mount", "-t", "debugfs", "none", "/sys/kernel/debug"], capture_output=True).returncode:
            return None
        mounted = True
    try:
        out = {}
        for d in sorted(pathlib.Path("/sys/kernel/debug/sched/fair_server").glob("cpu*")):
            v = _read(d / "runtime")
            if v is None:
                return None
            out[d.name] = v
        return out or None
    finally:
        if mounted:
            subprocess.run(["umount", "/sys/kernel/debug"], capture_output=True)


def test_fair_server_knob_set_and_put_back_or_refused(jl, scenario, machine_clean):
    """`[run] fair_server = 40ms`: where debugfs lets root set the fair server's runtime, every CPU runs the
    run with 40 ms and gets its old value back; where it does not (our VMs answer EPERM), the scenario is
    refused before anything starts (exit 2, file:line, the reason), with nothing changed and debugfs mounted
    or not as it was."""
    was_mounted = _debugfs_mounted()
    before = _fair_server_runtimes()
    p = scenario("fair", """
        [run]
        duration = 1s
        warmup = 0s
        trace = off
        fair_server = 40ms

        [thread loop]
        policy = fifo
        priority = 50
        cpus = 1
        rate = 100Hz
        """)
    r = jl("run", p, timeout=60)
    assert _debugfs_mounted() == was_mounted
    if before is None:
        assert r.rc == 2, r.stderr
        assert f"{p}:5:" in r.stderr and "fair_server cannot be set" in r.stderr, r.stderr
        assert not r.dir, "a refused scenario wrote a run directory"
    else:
        assert r.rc == 0, r.stderr
        assert r.summary()["host"]["fair_server_runtime_ns"] == 40_000_000
        assert _fair_server_runtimes() == before
    assert not list(STATE.glob("run-*.journal")) or all(_alive_jitterlab(j.name[4:-8]) for j in STATE.glob("run-*.journal"))


@needs_shield
def test_irqbalance_running_is_refused_with_advice(jl, scenario, tmp_path, machine_clean):
    """A running irqbalance would move the steered IRQs back onto the shield: `irq_affinity = housekeeping`
    is refused before anything is touched, saying how to keep it off (a stand-in process named irqbalance)."""
    stand_in = tmp_path / "irqbalance"
    stand_in.write_bytes(pathlib.Path("/bin/sleep").read_bytes())
    stand_in.chmod(0o755)
    p = subprocess.Popen([str(stand_in), "600"])
    try:
        before = snapshot()
        r = jl("run", scenario("balanced", SHIELD.format(duration="1s")), timeout=60)
        assert r.rc == 2, r.stderr
        assert f"irqbalance (pid {p.pid}) is running" in r.stderr and "IRQBALANCE_BANNED_CPULIST=1" in r.stderr, r.stderr
        assert_same(before, snapshot())
    finally:
        p.kill()
        p.wait(timeout=10)


@needs_shield
def test_irq_moved_during_the_run_is_reported(jl, scenario, tmp_path, machine_clean):
    """An IRQ that something else re-steers during a shielded run (what irqbalance does) is listed in
    host.irqs.moved_during_run, and still put back to its old mask afterwards."""
    before = snapshot()
    proc, out = start(scenario, tmp_path, duration="3s")
    moved = None
    try:
        check_shield_during_run(proc.pid)
        for d in sorted(pathlib.Path("/proc/irq").iterdir(), key=lambda d: d.name):
            # one the run steered: "0" now, something wider before it
            if d.is_dir() and _read(d / "smp_affinity_list") == "0" and before["irqs"].get(d.name, ("0",))[0] != "0":
                try:
                    (d / "smp_affinity_list").write_text("0-1")
                    moved = int(d.name)
                    break
                except OSError:
                    continue
    finally:
        _, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    if moved is None:
        pytest.skip("no IRQ steered by the run accepts a new mask on this machine")
    s = json.loads(next(out.glob("shield/*/summary.json")).read_text())
    assert moved in s["host"]["irqs"]["moved_during_run"], s["host"]["irqs"]
    assert_same(before, snapshot())
