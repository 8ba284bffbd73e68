"""scripts/install-deps.sh, without a network: its profiles' lists against what its apt-get lines install.

apt-get, apt-cache and dpkg-query are stand-ins on PATH (written below) that keep the "installed" packages in
a file and log every call, so each test starts from a machine state it chose and reads what the script
asked of apt. The last test looks at the real machine: under JITTERLAB_STRICT_DEPS=1 (.ci/run, after the
script ran) every package of the check profile is installed."""
import os
import pathlib
import subprocess

import pytest

from conftest import PACKAGES, STRICT_DEPS

ROOT = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = ROOT / "scripts" / "install-deps.sh"
PROFILES = ("build", "run", "view", "check")

STUBS = {
    # dpkg-query -W -f=... PKG...: "PKG install ok installed" for each installed one
    "dpkg-query": r'''#!/bin/bash
shift 2
for p in "$@"; do grep -qx "$p" "$STUB/installed" && echo "$p install ok installed"; done
exit 0
''',
    # apt-cache policy PKG...: a candidate for each, except those in $STUB/absent and, until an update,
    # all of them when $STUB/stale exists (the package lists are not there yet)
    "apt-cache": r'''#!/bin/bash
echo "apt-cache $*" >> "$STUB/calls"
shift
for p in "$@"; do
    c=1.0
    grep -qx "$p" "$STUB/absent" 2>/dev/null && c="(none)"
    [ -e "$STUB/stale" ] && c="(none)"
    printf '%s:\n  Installed: (none)\n  Candidate: %s\n' "$p" "$c"
done
''',
    # apt-get update | -s install PKG... | install PKG...
    "apt-get": r'''#!/bin/bash
echo "apt-get $*" >> "$STUB/calls"
sim=0 install=0 pkgs=()
for a in "$@"; do
    case $a in
        -s) sim=1 ;;
        update) rm -f "$STUB/stale"; echo "Reading package lists... Done"; exit 0 ;;
        install) install=1 ;;
        -*|Dpkg::*) ;;
        *) [ $install -eq 1 ] && pkgs+=("$a") ;;
    esac
done
if [ $sim -eq 1 ]; then
    for p in "${pkgs[@]}"; do echo "Inst $p (1.0 Debian:12/stable [amd64])"; done
    [ -e "$STUB/upgrade" ] && cat "$STUB/upgrade"
    exit 0
fi
echo "Setting up ${pkgs[*]} (1.0) ..."
[ -e "$STUB/fail" ] && { echo "E: Unable to fetch some archives"; exit 100; }
printf '%s\n' "${pkgs[@]}" >> "$STUB/installed"
''',
}


class Apt:
    """The stand-ins' state (STUB directory), and the script run against them."""

    def __init__(self, tmp_path, installed=()):
        self.dir = tmp_path / "stub"
        self.bin = tmp_path / "bin"
        self.logs = tmp_path / "logs"
        for d in (self.dir, self.bin, self.logs):
            d.mkdir(parents=True)
        for name, text in STUBS.items():
            (self.bin / name).write_text(text)
            (self.bin / name).chmod(0o755)
        (self.dir / "installed").write_text("".join(f"{p}\n" for p in installed))
        (self.dir / "calls").write_text("")

    def run(self, *args):
        env = dict(os.environ, PATH=f"{self.bin}:{os.environ['PATH']}", STUB=str(self.dir),
                   JL_DEPS_LOGDIR=str(self.logs))
        env.pop("SUDO_UID", None)
        return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=60)

    def calls(self):
        return [c.split() for c in (self.dir / "calls").read_text().splitlines()]

    def installs(self):
        """The packages of every real (not simulated) `apt-get install`, in order, and each call's options."""
        out = []
        for c in self.calls():
            if c[:1] == ["apt-get"] and "install" in c and "-s" not in c:
                i = c.index("install")
                out.append((c[1:i], c[i + 1:]))
        return out

    def touch(self, name, text=""):
        (self.dir / name).write_text(text)


def listed(profile):
    p = subprocess.run(["bash", str(SCRIPT), "--list", profile], capture_output=True, text=True, timeout=30)
    assert p.returncode == 0, p.stderr
    return p.stdout.split()


def test_profiles_nest_and_run_installs_no_test_lab():
    lists = {p: listed(p) for p in PROFILES}
    for p, pkgs in lists.items():
        assert pkgs and len(pkgs) == len(set(pkgs)), (p, pkgs)
    assert set(lists["build"]) < set(lists["run"]) < set(lists["check"])
    assert set(lists["view"]) <= set(lists["check"]) and "kernelshark" in lists["view"]
    # what a user's tuned RT box gets from `make run`: no emulator, no GUI, no test runner
    lab = {"qemu-system-x86", "busybox-static", "kernelshark", "xvfb", "xauth", "python3-pytest",
           "python3-pytest-timeout", "libcmocka-dev", "clang", "python3-grpcio"}
    assert not lab & set(lists["run"]), lab & set(lists["run"])
    assert lab <= set(lists["check"])


@pytest.mark.parametrize("profile", PROFILES)
def test_every_listed_package_is_installed_from_nothing(tmp_path, profile):
    apt = Apt(tmp_path)
    apt.touch("stale")
    r = apt.run(profile)
    assert r.returncode == 0, r.stdout + r.stderr
    installs = apt.installs()
    assert len(installs) == 1, apt.calls()
    opts, pkgs = installs[0]
    assert sorted(pkgs) == sorted(listed(profile))
    assert "--no-upgrade" in opts and "--no-install-recommends" in opts
    # an update only because the lists lacked the packages, and before the install
    names = [c[1] if c[0] == "apt-get" else "policy" for c in apt.calls()]
    assert names.count("update") == 1 and names.index("update") < len(names) - 1, names
    # quiet: one line per step, apt's own output only in the log
    assert "Setting up" not in r.stdout and "Reading package lists" not in r.stdout
    assert len(r.stdout.splitlines()) <= 4, r.stdout
    log = (tmp_path / "logs" / "install-deps.log").read_text()
    assert "Setting up" in log and "Reading package lists" in log


def test_all_present_calls_no_apt_at_all(tmp_path):
    apt = Apt(tmp_path, installed=listed("check"))
    for profile in PROFILES:
        r = apt.run(profile)
        assert r.returncode == 0, r.stderr
        assert r.stdout.strip() == f"install-deps: {profile}: all {len(listed(profile))} packages present"
    assert apt.calls() == []
    assert not (tmp_path / "logs" / "install-deps.log").exists()


def test_only_the_missing_are_named_and_lists_fresh_need_no_update(tmp_path):
    run = listed("run")
    have, missing = run[::2], run[1::2]
    apt = Apt(tmp_path, installed=have)
    r = apt.run("run")
    assert r.returncode == 0, r.stdout + r.stderr
    assert [pkgs for _, pkgs in apt.installs()] == [missing]
    assert not any(c[:2] == ["apt-get", "update"] for c in apt.calls()), "lists had every candidate: no update"
    assert f"{len(missing)} of {len(run)} packages missing" in r.stdout


def test_upgrades_are_shown_before_anything_changes(tmp_path):
    apt = Apt(tmp_path, installed=listed("build"))
    apt.touch("upgrade", "Inst libpcre2-8-0 [10.42-1] (10.42-1+deb12u2 Debian:12/stable [amd64])\n")
    r = apt.run("run")
    assert r.returncode == 0, r.stderr
    lines = r.stdout.splitlines()
    shown = [i for i, ln in enumerate(lines) if "libpcre2-8-0 (10.42-1 -> 10.42-1+deb12u2)" in ln]
    installing = [i for i, ln in enumerate(lines) if "installing" in ln]
    assert shown and installing and shown[0] < installing[0], r.stdout
    sims = [c for c in apt.calls() if c[:2] == ["apt-get", "-s"]]
    real = [i for i, c in enumerate(apt.calls()) if c[0] == "apt-get" and "install" in c and "-s" not in c]
    assert sims and apt.calls().index(sims[0]) < real[0]


def test_dry_run_changes_nothing(tmp_path):
    apt = Apt(tmp_path)
    apt.touch("upgrade", "Inst zlib1g [1:1.2.13] (1:1.2.13.dfsg-1 Debian:12/stable [amd64])\n")
    r = apt.run("--dry-run", "check")
    assert r.returncode == 0, r.stderr
    assert f"would install {len(listed('check'))} package(s)" in r.stdout
    assert "zlib1g (1:1.2.13 -> 1:1.2.13.dfsg-1)" in r.stdout
    # lists that lack the packages: it says it would update, and still changes nothing
    apt.touch("stale")
    r = apt.run("--dry-run", "run")
    assert r.returncode == 0, r.stderr
    assert "would run apt-get update" in r.stdout and "would install" in r.stdout
    assert apt.installs() == [] and not any("update" in c for c in apt.calls())
    assert list((tmp_path / "logs").iterdir()) == []


def test_a_failed_install_names_its_log(tmp_path):
    apt = Apt(tmp_path)
    apt.touch("fail")
    r = apt.run("run")
    assert r.returncode == 1
    log = tmp_path / "logs" / "install-deps.log"
    assert f"apt's log: {log}" in r.stderr
    assert "Unable to fetch" in log.read_text() and "Unable to fetch" in r.stderr  # the log's last lines too
    assert "Unable to fetch" not in r.stdout


def test_a_package_the_sources_lack(tmp_path):
    apt = Apt(tmp_path, installed=listed("build"))
    apt.touch("absent", "rtla\n")
    # run: rtla is soft (not every distribution packages it): said, and the rest installed
    r = apt.run("run")
    assert r.returncode == 0, r.stderr
    assert "going on without: rtla" in r.stdout
    (pkgs,) = [p for _, p in apt.installs()]
    assert "rtla" not in pkgs and "rt-tests" in pkgs
    # check: the RT lane needs it, so it fails before apt installs anything of check's
    apt2 = Apt(tmp_path / "c", installed=[p for p in listed("run") if p != "rtla"])  # a second machine
    apt2.touch("absent", "rtla\n")
    r = apt2.run("check")
    assert r.returncode == 1 and "not offered by this machine's package sources: rtla" in r.stderr
    assert apt2.installs() == []


def test_bad_profile_is_a_usage_error(tmp_path):
    r = Apt(tmp_path).run("everything")
    assert r.returncode == 2 and "unknown profile 'everything'" in r.stderr


def test_the_tests_packages_are_all_in_the_check_profile():
    """Every package a test may skip for (conftest.PACKAGES) is one the check profile installs."""
    assert set(PACKAGES) <= set(listed("check")), set(PACKAGES) - set(listed("check"))


def test_each_command_installs_its_own_profile():
    """`make run` and `make install` install the run profile, `make check` the check profile."""
    for target, profile in (("run", "run"), ("install", "run"), ("check", "check"), ("check-host", "check"),
                            ("check-rt", "check")):
        p = subprocess.run(["make", "-n", "-C", str(ROOT), target], capture_output=True, text=True, timeout=60)
        assert f"scripts/install-deps.sh {profile}" in p.stdout, (target, p.stdout[:2000])
        other = {"run": "check", "check": "run"}[profile]
        assert f"scripts/install-deps.sh {other}" not in p.stdout, target


def test_this_machine_has_the_check_profile():
    """Where the script ran (CI: JITTERLAB_STRICT_DEPS=1) every package of the check profile is installed."""
    pkgs = listed("check")
    p = subprocess.run(["dpkg-query", "-W", "-f=${Package} ${Status}\\n", *pkgs], capture_output=True, text=True,
                       timeout=30)
    have = {ln.split()[0] for ln in p.stdout.splitlines() if ln.endswith(" ok installed")}
    missing = [x for x in pkgs if x not in have]
    if missing and not STRICT_DEPS:
        pytest.skip(f"not installed here: {missing} (sudo scripts/install-deps.sh check)")
    assert not missing
