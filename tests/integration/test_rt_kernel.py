"""On a PREEMPT_RT kernel (the RT lane's guest, or a user's RT host): what doctor and summary.json say
of it, and what a traced run sees of the kernel's IRQ threads (irq/N-name, FIFO 50 by default).

Structure only: in the guest every timing is the emulator's. A loop at FIFO 40 runs below the IRQ threads
and one at FIFO 80 above them, on the CPU that handles the guest's writable 9p share's virtio IRQ; a
neighbour on the other CPU writes to that share, so the IRQ's handler thread wakes on the loops' CPU while
they run, back to back (paced 2 ms apart, the IRQ thread was not always among the worst cycles' parts)."""
import fcntl
import json
import os
import pathlib
import re

import pytest

from conftest import read_text

pytestmark = [pytest.mark.rt, pytest.mark.needs("preempt_rt")]

LOOPS = """
    [run]
    duration = 4s
    warmup = 0s
    trace = sched,irq

    [thread below]
    policy = fifo
    priority = 40
    cpus = {cpu}
    rate = 200Hz
    work = spin 50us

    [thread above]
    policy = fifo
    priority = 80
    cpus = {cpu}
    rate = 200Hz
    work = spin 50us

    [thread io]
    policy = other
    cpus = {hk}
    exec = sh -c 'while :; do echo x > {out}/rt-lane-io; done'
    """


def test_doctor_and_summary_say_rt_and_emulated(jl):
    doc = json.loads(jl("doctor", "--json", timeout=120).stdout)
    checks = {c["name"]: c for c in doc["checks"]}
    assert re.match(r"rt\b", checks["preempt"]["value"]) and checks["preempt"]["status"] == "ok", checks["preempt"]
    emulated = os.environ.get("JITTERLAB_GUEST_ACCEL") == "tcg"
    assert (checks["virtualization"]["value"] == "hypervisor TCGTCGTCGTCG") == emulated, checks["virtualization"]
    assert ("emulated machine" in checks["virtualization"]["advice"]) == emulated, checks["virtualization"]
    # the version-dependent behaviours: before 6.2 the kernel keeps no user mask across cpuset changes
    release = read_text("/proc/sys/kernel/osrelease")
    old = tuple(int(x) for x in re.findall(r"\d+", release)[:2]) < (6, 2)
    lacks = checks["kernel_versions"]["value"].partition("lacks ")[2]
    assert ("user_mask_kept (6.2)" in lacks) == old, checks["kernel_versions"]
    # the tracers this kernel has, as doctor lists them
    tracers = (read_text("/sys/kernel/tracing/available_tracers") or "").split()
    assert "timerlat" in tracers and "osnoise" in tracers
    assert "timerlat" in json.dumps(checks["tracers"])


def _share_irq_cpu():
    """The CPU that handles the writable share's IRQ (the guest's second virtio device, virtio1-requests:
    its handler thread follows it there), and the other CPU."""
    online = sorted(os.sched_getaffinity(0))
    for d in pathlib.Path("/proc/irq").glob("[0-9]*/virtio1-requests"):
        eff = read_text(d.parent / "effective_affinity_list")
        if eff and eff.isdigit() and int(eff) in online:
            return int(eff), next(c for c in online if c != int(eff))
    return online[1], online[0]


def test_irq_threads_seen_and_named_only_below_their_priority(jl, scenario):
    cpu, hk = _share_irq_cpu()
    out = os.environ.get("JITTERLAB_GUEST_OUT") or "/tmp"
    try:
        r = jl("run", scenario("rtloops", LOOPS.format(cpu=cpu, hk=hk, out=out)), timeout=300)
    finally:
        pathlib.Path(out, "rt-lane-io").unlink(missing_ok=True)
    assert r.rc in (0, 3), r.stderr[-3000:]
    s = r.summary()
    assert s["host"]["preempt"] == "rt", s["host"]["preempt"]
    assert s["host"]["emulated"] is (os.environ.get("JITTERLAB_GUEST_ACCEL") == "tcg")
    worst = s["trace"]["worst"]
    assert worst, "no worst cycle explained"
    parts = {t: [p for w in worst if w["thread"] == t for p in w["parts"]] for t in ("below", "above")}
    # the handler threads as this machine names their IRQs (read here from /proc/irq, not from jitterlab)
    irq_names = {int(d.name): ", ".join(sorted(a.name for a in d.iterdir() if a.is_dir()))
                 for d in pathlib.Path("/proc/irq").iterdir() if d.name.isdigit()}
    handler = re.compile(r"the handler thread irq/(\d+) of IRQ (\d+) (.+)$")
    # a loop above the IRQ threads' priority is never said to wait behind one (the top half still runs)
    behind_irq_thread = [p for p in parts["above"] if p["kind"] == "task" and "handler thread irq/" in p.get("name", "")]
    assert not behind_irq_thread, behind_irq_thread
    # below them, the handler thread of the share's IRQ is among what the loop waited behind, named by its
    # IRQ's number and full name (its task name is cut at 15 characters: "irq/27-virtio1-"), at its kernel
    # priority (RT 50)
    threads = [p for p in parts["below"] if p["kind"] == "task" and "handler thread irq/" in p.get("name", "")]
    if os.environ.get("JITTERLAB_GUEST_OUT"):  # the guest's share: its writes are that IRQ's interrupts
        assert threads, [w["text"] for w in worst if w["thread"] == "below"]
    for p in threads:
        m = handler.match(p["name"])
        assert m and m[1] == m[2], p
        assert sorted(m[3].split(", ")) == sorted(irq_names[int(m[1])].split(", ")), (p, irq_names.get(int(m[1])))
        assert p["prio"] == 50, p
    assert not any(p["kind"] == "task" and p.get("name", "").startswith("irq/") for w in parts.values() for p in w)


def test_pi_lock_boosts_the_holder(jl):
    """[lock] kind = pi on an RT kernel: a PI futex boosts its holder through rt_mutex (sched_pi_setprio),
    as on the host. Structure only: the boosts are counted and the holder is raised to the waiter's
    priority; the waits' lengths are the emulator's."""
    scenario = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "priority-inversion.ini"
    r = jl("run", scenario, "--duration", "2s", "--set", "shared.kind=pi", "--set", "high.deadline=2ms", timeout=300)
    assert r.rc in (0, 3), r.stderr[-3000:]
    lock = r.summary()["locks"][0]
    assert lock["kind"] == "pi" and lock["acquisitions"] > 0, lock
    assert lock["boosts"] > 0, lock
    # high's misses (a 2 ms deadline under low's 5 ms critical section): the wait names the lock's holder
    # and the boost high gave it (sched_pi_setprio, written by high as it blocked)
    late = [w for w in r.summary()["trace"]["worst"] if w["thread"] == "high" and w["window"] == "response"]
    assert late, [w["text"] for w in r.summary()["trace"]["worst"]]
    named = [p for w in late for p in w["parts"] if p["name"] == "blocked on a PI lock held by low (boosted to RT 90)"]
    assert named, [w["text"] for w in late]
    assert all(p["pid"] == r.thread("low")["tid"] for p in named), named


def test_cfs_loop_is_woken_by_ktimers(jl, scenario):
    """On PREEMPT_RT a SCHED_OTHER task's timer expires in softirq, run by ktimers/N: a CFS loop's wakeup is
    explained as the timer softirq in that thread (the thread found here in /proc, not from jitterlab), and the
    advice says policy = fifo."""
    p = scenario("cfsloop", """
        [run]
        duration = 3s
        warmup = 0s
        trace = sched
        [thread loop]
        policy = other
        cpus = 1
        rate = 100Hz
        work = spin 50us
        """)
    r = jl("run", p, timeout=300)
    assert r.rc in (0, 3), r.stderr[-3000:]
    ktimers = [int(d.name) for d in pathlib.Path("/proc").iterdir() if d.name.isdigit()
               and (read_text(d / "comm") or "").strip() == "ktimers/1"]
    assert len(ktimers) == 1, ktimers
    worst = [w for w in r.summary()["trace"]["worst"] if w["thread"] == "loop" and w["window"] == "wakeup"]
    parts = [p for w in worst for p in w["parts"] if p["name"] == "timer softirq in ktimers/1"]
    assert parts, [w["text"] for w in worst]
    assert all(p["kind"] == "timer" for p in parts), parts
    # where the timer softirq kept the cycle longest, the advice is policy = fifo
    led = [w for w in worst if max(w["parts"], key=lambda q: q["duration_ns"])["name"] == "timer softirq in ktimers/1"]
    for w in led:
        assert w["advice_rule"] == "timer-softirq" and "policy = fifo" in w["advice"], w




def test_unmodified_cfs_sleeper_released_by_its_timer_through_ktimers(jl, scenario):
    """measure = wakeups on PREEMPT_RT: an unmodified SCHED_OTHER loop (tests/helpers/sleeper, absolute
    clock_nanosleep) is measured from its timer's requested expiry (the timer group comes with it), and its
    timer, not marked hard, expires in ktimers/1: the explained cycles name that thread (found here in /proc)
    as the timer's softirq, from the interrupt that raised it."""
    sleeper = pathlib.Path(__file__).resolve().parents[2] / "build" / "tests" / "helpers" / "sleeper"
    p = scenario("cfssleeper", f"""
        [run]
        duration = 3s
        warmup = 200ms
        [thread loop]
        exec = {sleeper} -m abs -p 10000 -n 100000
        policy = other
        cpus = 1
        measure = wakeups
        threads = sleeper
        """)
    r = jl("run", p, timeout=300)
    assert r.rc in (0, 3), r.stderr[-3000:]
    assert "recording the timer group too" in r.stderr
    ktimers = [d.name for d in pathlib.Path("/proc").iterdir() if d.name.isdigit()
               and (read_text(d / "comm") or "").strip() == "ktimers/1"]
    assert len(ktimers) == 1, ktimers
    rel = r.thread("loop.sleeper")["release"]
    assert rel["timer_recorded"] is True and rel["from_timer"] > 0, rel
    worst = [w for w in r.summary()["trace"]["worst"]
             if w["thread"] == "loop.sleeper" and w["window"] == "wakeup" and w["release_by"] == "timer"]
    assert worst, r.stdout[-3000:]
    parts = [q for w in worst for q in w["parts"] if q["name"] == "timer softirq in ktimers/1"]
    assert parts and all(q["kind"] == "timer" for q in parts), [w["text"] for w in worst]


INSTRUMENTS = """
    ; a 1 kHz FIFO 80 loop on CPU 1 beside a CFS hog; 3 s of warm-up: rtla's setup takes about 2 s under
    ; emulation, and it starts with the warm-up
    [run]
    duration = 4s
    warmup = 3s
    trace = sched,irq

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


def _rtla_counts(text, kind, cpu):
    """The count row of rtla timerlat hist's KIND-CPU column (IRQ-001, Thr-001), read from its text."""
    head = next(line.split() for line in text.splitlines() if line.startswith("Index"))
    col = head.index(f"{kind}-{cpu:03d}")
    row = next(line.split() for line in text.splitlines() if line.startswith("count:"))
    return int(row[col])


@pytest.mark.needs("timerlat")
def test_three_instruments_side_by_side(jl, scenario, tmp_path):
    """cyclictest, rtla timerlat and jitterlab's loop, one run each on the same CPU, priority and load: the
    table's columns, rtla's own text read back, timerlat's thread measured from jitterlab's trace, and its
    worst wakeup set beside the kernel's accounting. Structure only (emulated timings)."""
    r = jl("cyclictest", scenario("instruments", INSTRUMENTS), timeout=600, check_rc=0)
    d = (tmp_path / "out" / "instruments" / "latest").resolve()
    doc = json.load(open(d / "cyclictest.json"))
    tl = doc["timerlat"]
    assert tl["available"] is True and tl["why"] is None and tl["rtla_version"], tl
    assert "-c 1 " in tl["command"] and "-p 1000 " in tl["command"] and "-P f:80" in tl["command"], tl
    major, minor = (int(x) for x in tl["rtla_version"].split(".")[:2])
    user = (major, minor) >= (6, 6)
    assert tl["mode"].startswith("user threads" if user else "kernel threads"), tl
    t = doc["threads"][0]
    for side in ("cyclictest", "timerlat_thread", "timerlat_irq", "jitterlab", "jitterlab_exact"):
        assert len(t[side]["runs"]) == 1 and t[side]["method"], side
        assert t[side]["runs"][0]["cycles"] > 0 and t[side]["max_ns"] is not None, side
    assert ("Usr" if user else "Thr") in t["timerlat_thread"]["method"]
    assert set(t["ratio_timerlat"]) == {"min", "avg", "p50", "p99", "max"}
    # rtla's own histogram, read here from its text: the columns hold its counts
    run = t["timerlat_thread"]["runs"][0]
    text = pathlib.Path(run["log"]).read_text()
    assert "timerlat histogram" in text.splitlines()[0]
    assert run["cycles"] == _rtla_counts(text, "Usr" if user else "Thr", 1)
    assert t["timerlat_irq"]["runs"][0]["cycles"] == _rtla_counts(text, "IRQ", 1)
    # the timerlat run: rtla in the loop's place, its thread measured from the trace, osnoise recorded
    tl_sum = json.load(open(pathlib.Path(run["log"]).parent / "summary.json"))
    series = [x for x in tl_sum["threads"] if x["name"].startswith("control.timerlat")]
    assert series and series[0]["kind"] == "wakeups" and series[0]["cycles"] > 0, tl_sum["threads"]
    assert "osnoise:irq_noise" in json.dumps(tl_sum["trace"]), "the osnoise group was not recorded"
    # timerlat's worst wakeup, explained by jitterlab and by the kernel's accounting of the same window
    w = t["timerlat_thread"].get("worst")
    assert w, "no worst wakeup of timerlat's thread kept"
    assert w["series"].startswith("control.timerlat") and w["cpu"] == 1 and w["text"], w
    assert set(w["kernel_ns"]) == {"irq", "softirq", "thread", "nmi"} and set(w["jitterlab_ns"]) == set(w["kernel_ns"])
    assert w["agreement"] and isinstance(w["agrees"], bool)
    assert w["agrees"] == (not any(a.startswith("disagree") for a in w["agreement"])), w["agreement"]
    assert t["jitterlab"]["worst"]["series"] == "control"
    # one table with the three instruments and both worst wakeups
    assert "cyclictest vs rtla timerlat vs jitterlab" in r.stdout and "timerlat thr" in r.stdout
    assert "timerlat's worst" in r.stdout and "the kernel's accounting (osnoise)" in r.stdout
    # rtla removed its tracing instance; nothing of the tracer is left running
    assert not [p for p in pathlib.Path("/sys/kernel/tracing/instances").iterdir() if p.name.startswith("timerlat")]
    assert (read_text("/sys/kernel/tracing/current_tracer") or "nop") == "nop"


@pytest.mark.needs("timerlat")
def test_doctor_noise_measures_and_never_beside_a_run(jl):
    doc = json.loads(jl("doctor", "--json", "--noise", "0-1", "--noise-time", "2", timeout=120, check_rc=0).stdout)
    n = doc["noise"]
    assert n["measured"] is True and n["command"].startswith("rtla osnoise top"), n
    assert [c["cpu"] for c in n["cpus"]] == [0, 1]
    for c in n["cpus"]:
        assert c["runtime_ns"] > 0 and 0 <= c["noise_ns"] <= c["runtime_ns"] and 0 < c["available_pct"] <= 100
        assert c["max_single_noise_ns"] <= c["max_noise_ns"] <= c["noise_ns"]
        assert set(c["interference"]) == {"hw", "nmi", "irq", "softirq", "thread"}
    # a run holds the machine lock: the tracer's workload does not start beside it
    state = os.environ.get("JITTERLAB_STATE_DIR") or "/run/jitterlab"
    os.makedirs(state, mode=0o700, exist_ok=True)
    fd = os.open(os.path.join(state, "machine.lock"), os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        doc = json.loads(jl("doctor", "--json", "--noise", "1", "--noise-time", "1", timeout=120, check_rc=0).stdout)
    finally:
        os.close(fd)
    assert doc["noise"]["measured"] is False and "holds the machine lock" in doc["noise"]["why"], doc["noise"]
