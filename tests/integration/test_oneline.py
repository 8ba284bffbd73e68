"""rt-tests' language (issue 42): `jitterlab run` without a scenario takes cyclictest's options for its loops
(-p -i -d -t -a -S -l -D -h -m -n, --policy) and --load CMD --load-cpus LIST for neighbours, runs them as a
scenario and writes it as scenario.ini, which runs again to the same structure. -d with a unit is the old
--duration (warned); the loop options beside a SCENARIO are refused. Every figure checked is the command
line's own (periods, priorities, CPUs), read back from summary.json, scenario.ini (configparser) and
histogram.txt; no timing is asserted."""
import configparser
import json
import pathlib
import subprocess

import pytest

from conftest import BIN, NCPU

pytestmark = pytest.mark.skipif(NCPU < 2, reason="needs 2 CPUs (CPU 1 for the loops, CPU 0 kept free)")


def run(*args, timeout=120):
    return subprocess.run([BIN, "run", *map(str, args)], capture_output=True, text=True, timeout=timeout)


def ini(path):
    cp = configparser.ConfigParser(inline_comment_prefixes=(";",), interpolation=None)
    cp.read_string(pathlib.Path(path).read_text())
    return cp


def loops(s):
    return {t["name"]: t for t in s["threads"] if t.get("measured")}


@pytest.mark.package("stress-ng")
def test_the_cyclictest_one_liner_becomes_a_file(tmp_path):
    out = tmp_path / "o"
    p = run("-m", "-n", "-p80", "-i1000", "-a1", "-t2", "-d", "250", "-D2", "-w", "200ms", "-h", "300",
            "--load", "stress-ng --cpu 1 --timeout 60s", "--load-cpus", "1", "-o", out)
    assert p.returncode == 0, p.stderr[-3000:]
    d = next(out.glob("cyclic/2*"))
    assert f"scenario: {d}/scenario.ini " in p.stdout, p.stdout[-600:]
    s = json.loads((d / "summary.json").read_text())
    got = loops(s)
    assert sorted(got) == ["t0", "t1"], sorted(got)
    # cyclictest's meaning: thread N's interval is -i + N x -d, all at -p (SCHED_FIFO), -a1 pins them to CPU 1
    for name, period in (("t0", 1_000_000), ("t1", 1_250_000)):
        t = got[name]
        assert (t["policy"], t["priority"], t["cpus"], t["period_ns"]) == ("fifo", 80, "1", period), t
        assert t["cycles"] > 0.5 * 2e9 / period, t["cycles"]  # 2 s measured, wide margin
    load = next(t for t in s["threads"] if t["name"] == "load0")
    assert load["kind"] == "exec" and load["exec"].startswith("stress-ng --cpu 1") and load["cpus"] == "1", load
    assert s["duration_ns"] == 2_000_000_000 and s["warmup_ns"] == 200_000_000
    # -h 300: histogram.txt has 300 rows of 1 us (cyclictest's bound), the rest counted as overflows
    rows = [ln for ln in (d / "histogram.txt").read_text().splitlines() if ln[:1].isdigit()]
    assert len(rows) == 300 and rows[-1].startswith("000299 "), rows[-1:]
    # the file: the loops and the load as the command line said them, and it runs again to the same structure
    cp = ini(d / "scenario.ini")
    assert cp["run"]["name"] == "cyclic" and cp["run"]["histogram"] == "300us"
    assert (cp["thread t0"]["priority"], cp["thread t1"]["period"], cp["thread load0"]["exec"]) == \
        ("80", "1250us", "stress-ng --cpu 1 --timeout 60s"), dict(cp["thread t1"])
    again = run(d / "scenario.ini", "-D1", "--no-trace", "--json", "-o", tmp_path / "again")
    assert again.returncode == 0, again.stderr[-2000:]
    s2 = json.loads(again.stdout)
    keys = ("name", "policy", "priority", "cpus", "period_ns", "kind")
    assert [tuple(t.get(k) for k in keys) for t in s2["threads"]] == [tuple(t.get(k) for k in keys) for t in s["threads"]]


def test_smp_and_the_defaults(tmp_path):
    """-S: a loop per online CPU, each pinned to its own; nothing given: one SCHED_OTHER loop of 1 ms, unpinned
    (cyclictest's defaults). -S -p99 is refused: no CPU is left for the watchdog."""
    p = run("-S", "-p", "10", "-D1", "--no-trace", "--json", "-o", tmp_path / "smp")
    assert p.returncode == 0, p.stderr[-2000:]
    got = loops(json.loads(p.stdout))
    assert len(got) == NCPU
    assert sorted(t["cpus"] for t in got.values()) == sorted(str(c) for c in range(NCPU))
    assert {t["period_ns"] for t in got.values()} == {1_000_000 + 500_000 * i for i in range(NCPU)}
    p = run("-D1", "--no-trace", "--json", "-o", tmp_path / "plain")
    assert p.returncode == 0, p.stderr[-2000:]
    (t,) = loops(json.loads(p.stdout)).values()
    assert (t["policy"], t["period_ns"]) == ("other", 1_000_000), t
    p = run("-S", "-p99", "-D1", "-o", tmp_path / "p99")
    assert p.returncode == 2 and "priority 99 is the watchdog's" in p.stderr, p.stderr
    assert not (tmp_path / "p99").exists()


def test_old_and_refused_letters(tmp_path):
    """-d with a unit is still the duration, with a warning naming -D; cyclictest's loop options beside a
    SCENARIO, and values out of range, exit 2 with the option named, nothing written."""
    p = run("-d", "1s", "-p", "5", "-a1", "--no-trace", "--json", "-o", tmp_path / "old")
    assert p.returncode == 0, p.stderr[-2000:]
    assert "-d 1s as the duration is deprecated" in p.stderr and "Use -D 1s" in p.stderr, p.stderr
    assert json.loads(p.stdout)["duration_ns"] == 1_000_000_000
    scen = pathlib.Path(__file__).resolve().parents[2] / "scenarios" / "quickstart.ini"
    for args, said in (([scen, "-p", "80"], "-p describes the loops of a run without a scenario"),
                       (["-p", "100"], "-p 100: expected a priority from 1 to 99"),
                       (["--policy", "fifo"], "--policy fifo needs -p PRIO"),
                       (["-a", "4096"], "-a 4096"),
                       (["-i", "5"], "-i 5: expected microseconds"),
                       (["-h", "0"], "-h 0: expected the histogram's bound"),
                       (["-D", "5x"], "--duration 5x"),
                       # a shell's ';' after a space would be a comment in the scenario.ini the run writes
                       (["--load", "sh -c 'sleep 1 ; true'"],
                        "--load sh -c 'sleep 1 ; true': value 'sh -c 'sleep 1 ; true'' holds a ';' after whitespace")):
        r = run(*args, "-o", tmp_path / "bad")
        assert r.returncode == 2 and said in r.stderr, (args, r.returncode, r.stderr)
    assert not (tmp_path / "bad").exists()
    # -h alone is still the help
    h = run("-h")
    assert h.returncode == 0 and h.stdout.startswith("usage: jitterlab run [SCENARIO]"), h.stdout[:200]


def test_the_man_page_says_which_meaning_wins():
    man = subprocess.run([BIN, "list", "--man", "8"], capture_output=True, text=True, timeout=30).stdout
    sect = man[man.index(".SH CYCLICTEST'S OPTIONS"):]
    sect = sect[:sect.index(".SH ", 4)].replace("\\-", "-")
    for said in ("-D is the duration", "-d is the distance", "-d 20s", "until the next release", "-o stays the output root",
                 "scenario.ini"):
        assert said in sect, said
