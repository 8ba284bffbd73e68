"""Integration tests of the cpu-list names (issue 10, section 3): `pcores`, `ecores`, `smt:N` in a real
run, and summary.json's per-thread `core_types`. The real /sys of these VMs is not hybrid (and has no
SMT): the hybrid cases run under a fake sysfs root ($JITTERLAB_SYSFS_ROOT) that calls CPU 0 a
performance core and CPU 1 an efficiency core. Short runs (2 s, no warm-up), no RT policy, no shield."""
import pathlib

import pytest

from conftest import NCPU

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs")

SHORT = ("--duration", "2s", "--warmup", "0s", "--no-trace")
REAL_HYBRID = pathlib.Path("/sys/devices/cpu_core/cpus").exists()


def siblings(cpu):
    p = pathlib.Path(f"/sys/devices/system/cpu/cpu{cpu}/topology/thread_siblings_list")
    return p.read_text().strip() if p.exists() else str(cpu)


def cpus_of(text):
    """'0-2,5' -> {0, 1, 2, 5}"""
    out = set()
    for part in filter(None, text.split(",")):
        lo, _, hi = part.partition("-")
        out.update(range(int(lo), int(hi or lo) + 1))
    return out


def detail(r):
    return f"exit {r.rc}\nstdout:\n{r.stdout}\nstderr:\n{r.stderr}"


@pytest.mark.skipif(REAL_HYBRID, reason="this machine is hybrid")
def test_pcores_refused_on_a_machine_that_is_not_hybrid(jl, scenario):
    path = scenario("notyb", """
        [thread a]
        rate = 100Hz
        work = spin 10us
        cpus = pcores
        """)
    r = jl("run", path, *SHORT, timeout=30)
    assert r.rc == 2, detail(r)
    assert (f"{path}:4: thread 'a': cpus: 'pcores': this machine has no hybrid cores: "
            "/sys/devices/cpu_core/cpus is missing") in r.stderr, detail(r)
    assert r.dir is None  # nothing started, no run directory


def test_smt_runs_on_the_core_of_cpu_1(jl, scenario):
    path = scenario("smtone", """
        [thread a]
        rate = 100Hz
        work = spin 10us
        cpus = smt:1
        """)
    r = jl("run", path, *SHORT, timeout=60)
    assert r.rc == 0, detail(r)
    t = r.thread("a")
    assert t["cpus"] == siblings(1)  # on these VMs just "1"
    assert cpus_of(t["cpus_used"]) and cpus_of(t["cpus_used"]) <= cpus_of(siblings(1)), t
    if not REAL_HYBRID:
        assert "core_types" not in t  # one type of core: nothing said
    text = (r.dir / "scenario.ini").read_text()
    assert "cpus = smt:1\n" in text  # the name as written, reusable on another host
    assert f"; cpus: CPUs {siblings(1)} on this host\n" in text


def test_core_types_on_a_fake_hybrid_root(jl, scenario, tmp_path, monkeypatch):
    root = tmp_path / "sys"
    for rel, text in {"devices/system/cpu/online": "0-1",
                      "devices/system/cpu/cpu0/topology/thread_siblings_list": "0",
                      "devices/system/cpu/cpu1/topology/thread_siblings_list": "1",
                      "devices/cpu_core/cpus": "0", "devices/cpu_atom/cpus": "1"}.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text + "\n")
    monkeypatch.setenv("JITTERLAB_SYSFS_ROOT", str(root))
    path = scenario("hyb", """
        [thread p]
        rate = 100Hz
        work = spin 10us
        cpus = pcores

        [thread e]
        rate = 100Hz
        work = spin 10us
        cpus = ecores

        [thread both]
        rate = 100Hz
        work = spin 10us
        cpus = ecores,0
        """)
    r = jl("run", path, *SHORT, timeout=60)
    assert r.rc == 0, detail(r)
    assert r.thread("p")["cpus"] == "0" and r.thread("p")["core_types"] == ["performance"]
    assert r.thread("e")["cpus"] == "1" and r.thread("e")["core_types"] == ["efficiency"]
    both = r.thread("both")
    assert both["cpus"] == "0-1"
    want = {"0": ["performance"], "1": ["efficiency"], "0-1": ["performance", "efficiency"]}
    assert both["core_types"] == want[both["cpus_used"]], both
    text = (r.dir / "scenario.ini").read_text()
    assert "cpus = pcores\n" in text and "cpus = ecores\n" in text and "cpus = ecores,0\n" in text
    # the written scenario runs again (same names, same root)
    r2 = jl("run", r.dir / "scenario.ini", *SHORT, timeout=60)
    assert r2.rc == 0, detail(r2)
