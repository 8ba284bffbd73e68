"""summary.json host.preempt / host.preempt_detail / host.boot_isolation and the doctor's preempt and boot
isolation checks, against what this test derives on its own from /proc/config.gz (or /boot/config-RELEASE)
and /proc/cmdline. Neither the run nor doctor may leave debugfs or securityfs mounted (doctor mounts nothing)."""
import gzip
import json
import os
import re
import subprocess

import pytest
from conftest import BIN, wait_no_shield

MODES = ("none", "voluntary", "full", "lazy")


def mounted(fstype):
    with open("/proc/self/mounts") as f:
        return any(len(line.split()) > 2 and line.split()[2] == fstype for line in f)


def kernel_config():
    for path in ("/proc/config.gz", f"/boot/config-{os.uname().release}"):
        try:
            with (gzip.open(path, "rt") if path.endswith(".gz") else open(path)) as f:
                return f.read()
        except OSError:
            continue
    return None


def kernel_args():
    """The kernel's part of the command line as {name: value} (last wins; init's part after "--" left out)."""
    with open("/proc/cmdline") as f:
        words = f.read().split()
    if "--" in words:
        words = words[:words.index("--")]
    return dict((w.split("=", 1) + [""])[:2] for w in words)


def expected_preempt(cfg, args):
    """The boot-time model: the config's choice as the PREEMPT_DYNAMIC default, preempt= over it."""
    def on(sym):
        return re.search(rf"^CONFIG_{sym}=[ym]$", cfg, re.M) is not None
    choice = next((m for m, s in (("lazy", "PREEMPT_LAZY"), ("full", "PREEMPT"), ("voluntary", "PREEMPT_VOLUNTARY"),
                                  ("none", "PREEMPT_NONE")) if on(s)), None)
    rt = on("PREEMPT_RT")
    if on("PREEMPT_DYNAMIC"):
        mode = choice or "full"
        want = args.get("preempt")
        if want in MODES and not (rt and want in ("none", "voluntary")) and not (want == "lazy" and not on("ARCH_HAS_PREEMPT_LAZY")):
            mode = want
        if rt and mode in ("none", "voluntary"):
            mode = "full"
        return f"rt+{mode}" if rt else f"dynamic({mode})"
    if rt:
        return f"rt+{choice}" if choice else "rt"
    return choice


@pytest.fixture(scope="module")
def host(tmp_path_factory):
    tmp = tmp_path_factory.mktemp("host")
    ini = tmp / "hostk.ini"
    ini.write_text("[run]\ntrace = off\n\n[thread loop]\npolicy = fifo\npriority = 80\ncpus = 1\nrate = 100Hz\n")
    wait_no_shield()
    before = (mounted("debugfs"), mounted("securityfs"))
    r = subprocess.run([BIN, "run", str(ini), "--duration", "1s", "--warmup", "0s", "--out", str(tmp / "out"), "--quiet"],
                       capture_output=True, text=True, timeout=60)
    assert r.returncode == 0, r.stdout + r.stderr
    assert (mounted("debugfs"), mounted("securityfs")) == before, "the run left a mount changed"
    with open(tmp / "out" / "hostk" / "latest" / "summary.json") as f:
        return json.load(f)["host"]


def test_preempt_from_config_and_cmdline(host):
    cfg = kernel_config()
    d = host["preempt_detail"]
    assert isinstance(host["preempt"], str) and host["preempt"] == d["model"]
    assert re.fullmatch(r"rt(\+(full|lazy))?|none|voluntary|full|lazy|dynamic\((none|voluntary|full|lazy|unknown)\)"
                        r"|voluntary\|none", host["preempt"]), host["preempt"]
    if cfg is None:
        pytest.skip("no kernel config to derive the model from")
    if d["debugfs"]["value"]:
        # the live mode: what the parentheses of sched/preempt say
        live = re.search(r"\((\w+)\)", d["debugfs"]["value"]).group(1)
        assert d["mode"] == live and d["mode_from"] == "debugfs sched/preempt", d
    else:
        assert host["preempt"] == expected_preempt(cfg, kernel_args()), d
        assert d["debugfs"]["why"], d
    assert d["config"]["file"] in ("/proc/config.gz", f"/boot/config-{os.uname().release}")
    assert d["cmdline_preempt"] == kernel_args().get("preempt")
    assert d["lazy"] == (d["mode"] == "lazy")


def test_debugfs_eperm_says_whether_lockdown(host):
    dbg = host["preempt_detail"]["debugfs"]
    if dbg["value"] or "not permitted" not in dbg["why"]:
        pytest.skip("sched/preempt was readable, or refused for another reason")
    assert dbg["lockdown"] in ("none", "integrity", "confidentiality", None), dbg
    assert dbg["lockdown_from"], dbg
    if dbg["lockdown"] in ("integrity", "confidentiality"):
        assert "kernel lockdown" in dbg["why"], dbg
    if os.path.exists("/sys/kernel/security/lockdown"):
        with open("/sys/kernel/security/lockdown") as f:
            assert re.search(r"\[(\w+)\]", f.read()).group(1) == dbg["lockdown"]


def test_boot_isolation_block(host):
    b = host["boot_isolation"]
    args = kernel_args()
    for flag in ("isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity"):
        assert flag in b
        assert (b[flag] is None) == (flag not in args), (flag, b)
    assert isinstance(b["managed_irq"], bool) and isinstance(b["isolated"], str) and isinstance(b["cpus"], dict)
    if "isolcpus" not in args:
        assert b["isolated"] == "" and not b["managed_irq"]
    for cpu, flags in b["cpus"].items():
        assert flags and set(flags) <= {"isolcpus", "isolcpus_nohz", "managed_irq", "nohz_full", "rcu_nocbs",
                                        "irqaffinity"}, (cpu, flags)


def test_doctor_preempt_and_boot_checks(jl):
    before = (mounted("debugfs"), mounted("securityfs"))
    r = jl("doctor", "--json", timeout=60)
    assert r.rc == 0, r.stderr
    assert (mounted("debugfs"), mounted("securityfs")) == before  # doctor never mounts
    checks = {c["name"]: c for c in json.loads(r.stdout)["checks"]}
    cfg = kernel_config()
    model = checks["preempt"]["value"].split(" ")[0]
    if cfg is not None and not mounted("debugfs"):
        assert model == expected_preempt(cfg, kernel_args()), checks["preempt"]
    assert checks["preempt"]["status"] == ("ok" if model.startswith("rt") else "warn")
    args = kernel_args()
    for flag in ("isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity"):
        if flag in args:
            assert f"{flag}={args[flag]}" in checks[flag]["value"], checks[flag]
    # every online CPU is named once in the per-CPU check
    per = checks["boot_isolation"]["value"]
    assert per and checks["boot_isolation"]["status"] == "ok"
    with open("/sys/devices/system/cpu/online") as f:
        online = f.read().strip()
    if not any(f in args for f in ("isolcpus", "nohz_full", "rcu_nocbs", "irqaffinity")):
        assert per == f"{online}: none", per
