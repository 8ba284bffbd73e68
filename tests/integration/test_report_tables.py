"""The executor layer's tables (issue 13): `jitterlab report` on a hand-made run directory prints, from
summary.json alone, one table per executor (callbacks each pool thread ran, its share), the subscribers'
messages (counts, the data's age, a poller's model beside its measurement), the syncs (rate, each
input's fraction used, the pairs' stamp difference) and one block per chain end (path, data age and
reaction time beside the bound, each stage's wait and run, the worst output's parts and their sum),
as text and (--markdown) as report.md has them. A summary without those keys prints none of them.

Nothing is run: the run directory holds only a summary.json written here, and every figure asserted is
worked out here from that fixture."""
import copy
import json
import re

import pytest

MS = 1_000_000


def unit(*ns):
    """A column's unit, picked by its largest value (issue 42: one unit per column, named in its header):
    us below 10 ms (one decimal), ms below 10 s (two), s from there (three)."""
    mx = max(ns)
    return ("s", 1e9, 3) if mx >= 1e10 else ("ms", 1e6, 2) if mx >= 1e7 else ("us", 1e3, 1)


def num(ns, u):
    return f"{ns / u[1]:.{u[2]}f}"


def named(ns, u):
    return f"{num(ns, u)} {u[0]}"


def dist(d, u):
    return f"{num(d['mean'], u)} / {num(d['p99'], u)} / {num(d['max'], u)}"


def pct(frac):
    return f"{frac * 100:.1f}%"


def d3(mean, p99, mx, **extra):
    return {"min": mean // 2, "mean": mean, "p50": mean, "p99": p99, "max": mx, **extra}


def series(name, **extra):
    """A measured series with the figures the loop table reads."""
    t = {
        "name": name, "thread": None, "policy": "fifo", "priority": 50, "nice": 0, "cpus": "1",
        "period_ns": 0, "measured": True, "kind": "callback", "tid": 0, "work_kind": "spin 50us",
        "cycles": 200, "rate_hz": 50.0, "nominal_hz": 50.0, "misses": 0, "skipped": 0,
        "latency_ns": dict(d3(40_000, 120_000, 1_100_000), stddev=10_000, p90=70_000, p999=1_000_000,
                           max_cycle=110),
        "period_ns_stats": {"min": 19 * MS, "mean": 20 * MS, "p50": 20 * MS, "p99": 20 * MS + 100_000,
                            "max": 21 * MS, "stddev": 113_000},
        "response_ns": d3(90_000, 170_000, 1_160_000),
        "work": {"calls": 200, "mean_ns": 50_800, "max_ns": 67_200},
        "cpu_time_ns": 11_000_000, "ctx_switches": {"voluntary": 230, "involuntary": 12}, "cpus_used": "1",
    }
    t.update(extra)
    return t


def chain(path, hops, worst, bound_ns=0):
    return {
        "path": path, "hops": hops, "outputs": 190, "other_paths": 3, "inputs": 200, "unused_inputs": 7,
        "data_age_ns": d3(3 * MS, 5 * MS, 14 * MS, count=190),
        "reaction_ns": d3(4 * MS, 6 * MS, 15 * MS, count=190),
        "bound_ns": bound_ns,
        "stages": [{"callback": s["callback"], "wait_ns": {"mean": s["wait_ns"] // 2, "p99": s["wait_ns"], "max": s["wait_ns"]},
                    "run_ns": {"mean": s["run_ns"] // 2, "p99": s["run_ns"], "max": s["run_ns"]}} for s in worst],
        "worst": {"e2e_ns": sum(s["wait_ns"] + s["run_ns"] for s in worst), "end_ns": 9_054_123_456_789,
                  "stages": worst},
    }


def messages(topic, mode, published, consumed, **extra):
    m = {"published": published, "consumed": consumed, "dropped": 2, "rereads": 0, "never_consumed": 3,
         "limit_errors": 0, "topic": topic, "mode": mode, "consumed_fraction": consumed / published}
    m.update(extra)
    return m


WORST_CONTROL = [{"callback": "sensor", "wait_ns": 30_000, "run_ns": 50_000},
                 {"callback": "filter", "wait_ns": 120_000, "run_ns": 80_000},
                 {"callback": "control", "wait_ns": 7 * MS, "run_ns": 60_000}]
# the poller's worst parts, whose e2e below is set apart from their sum: the sum printed is the parts'
WORST_POLLER = [{"callback": "sensor", "wait_ns": 40_000, "run_ns": 50_000},
                {"callback": "poller", "wait_ns": 10 * MS, "run_ns": 55_000}]

POOL = [("pool-0", 101, 1625), ("pool-1", 102, 1546), ("pool-2", 103, 1514), ("pool-3", 104, 1418)]

PLAIN = {
    "tool": "jitterlab", "version": "0.1.0", "scenario": "tables", "scenario_file": "tables.ini",
    "started": "2026-12-01T11:42:18Z", "duration_ns": 4_000_000_000, "warmup_ns": 500_000_000,
    "exit_status": 0, "interrupted": False,
    "host": {"kernel": "6.18.0", "preempt": "full", "cpus_online": "0-1", "isolated": "",
             "virtualized": True, "clocksource": "tsc"},
    "threads": [series("ctl", thread="ctl", kind="periodic", period_ns=20 * MS, tid=99)],
    "executors": [], "syncs": [],
}


def executor_summary():
    s = copy.deepcopy(PLAIN)
    poller_chain = chain(["sensor", "poller"], ["scan"], WORST_POLLER, bound_ns=60 * MS)
    poller_chain["worst"]["e2e_ns"] += 100_000
    s["threads"] = [
        series("sensor", chain=chain(["sensor"], [], WORST_CONTROL[:1]),
               age_ns=d3(45_000, 130_000, 1_100_000, count=200), e2e_ns=d3(95_000, 180_000, 1_170_000)),
        series("filter", messages=messages("scan", "trigger", 200, 195),
               age_ns=d3(250_000, 400_000, 1_300_000, count=195), e2e_ns=d3(330_000, 500_000, 1_400_000),
               chain=chain(["sensor", "filter"], ["scan"], WORST_CONTROL[:2])),
        series("control", chain=chain(["sensor", "filter", "control"], ["scan", "sync fused"], WORST_CONTROL,
                                      bound_ns=40 * MS),
               age_ns=d3(7_100_000, 7_500_000, 7_520_000, count=40), e2e_ns=d3(8_100_000, 8_500_000, 8_520_000)),
        series("poller", messages=messages("scan", "poll", 200, 40),
               poll_model={"publisher": "sensor", "publisher_period_ns": 20 * MS, "poll_period_ns": 103 * MS,
                           "added_age_ns": {"expected": 10 * MS, "measured": 10_160_000},
                           "consumed_fraction": {"expected": 20 / 103, "measured": 0.2}},
               age_ns=d3(10_200_000, 19_900_000, 20_100_000, count=40), e2e_ns=d3(10_300_000, 20 * MS, 20_200_000),
               chain=poller_chain),
    ]
    s["executors"] = [{"name": "pool", "dispatch": "rclcpp",
                       "threads": [{"name": n, "tid": tid, "callbacks_run": c} for n, tid, c in POOL]}]
    s["syncs"] = [{"name": "fused", "algorithm": "approximate", "sets": 40, "rate_hz": 10.0,
                   "inputs": [{"topic": "lidar", "messages": 40, "used": 40, "used_fraction": 1.0},
                              {"topic": "camera", "messages": 120, "used": 40, "used_fraction": 40 / 120}],
                   "pair_diff_mean_ns": 6_870_000, "pair_diff_max_ns": 19_800_000}]
    return s


def report(jl, tmp_path, summary, *opts, name="run"):
    d = tmp_path / name
    d.mkdir()
    (d / "summary.json").write_text(json.dumps(summary))
    r = jl("report", "--no-plots", *opts, d, timeout=30, check_rc=0)
    assert r.stderr == "", r.stderr
    return r.stdout


def line_with(out, *parts):
    """The one line of OUT holding every one of PARTS (as whole words, in that order)."""
    pat = re.compile(r"(?<!\S)" + r"\s+(?:.*\s+)?".join(re.escape(p) for p in parts) + r"(?!\S)")
    hits = [ln for ln in out.splitlines() if pat.search(ln)]
    assert len(hits) == 1, f"{parts!r}: {len(hits)} lines\n{out}"
    return hits[0]


def worst_text(ch):
    u = unit(ch["worst"]["e2e_ns"])  # the line's one unit: its e2e's
    parts = " + ".join(f"{s['callback']} wait {named(s['wait_ns'], u)} + run {named(s['run_ns'], u)}"
                       for s in ch["worst"]["stages"])
    total = sum(s["wait_ns"] + s["run_ns"] for s in ch["worst"]["stages"])
    differ = "" if total == ch["worst"]["e2e_ns"] else ": they differ"
    return (f"worst output, ended at {ch['worst']['end_ns'] / 1e9:.6f} s: {parts} = {named(total, u)} "
            f"(e2e {named(ch['worst']['e2e_ns'], u)}{differ})")


def chain_units(c):
    """The units of a chain block: its times (data age, reaction, bound), its stages' waits, their runs."""
    return (unit(c["data_age_ns"]["max"], c["reaction_ns"]["max"], c["bound_ns"]),
            unit(*[st["wait_ns"]["max"] for st in c["stages"]]), unit(*[st["run_ns"]["max"] for st in c["stages"]]))


def by_name(s, name):
    return next(t for t in s["threads"] if t["name"] == name)


def test_text_tables(jl, tmp_path):
    s = executor_summary()
    out = report(jl, tmp_path, s)
    # executors: each pool thread's callbacks and its share of the executor's total (1625 / 6103 = 26.6%)
    total = sum(c for _, _, c in POOL)
    assert "\n  executor pool (rclcpp dispatch):\n    thread " in out
    for name, tid, c in POOL:
        line_with(out, name, str(tid), str(c), pct(c / total))
    assert pct(1625 / total) == "26.6%"
    line_with(out, "total", str(total), "100.0%")

    # messages: one column per subscriber (filter, poller), none for the others
    subs = [t for t in s["threads"] if "messages" in t]
    head = line_with(out, "messages", "filter", "poller")
    assert head.startswith("  messages ") and "control" not in head and "sensor" not in head
    line_with(out, "topic", "scan", "scan")
    line_with(out, "mode", "trigger", "poll")
    for label, key in [("published", "published"), ("consumed", "consumed"), ("dropped", "dropped"),
                       ("rereads", "rereads"), ("never consumed", "never_consumed"), ("limit errors", "limit_errors")]:
        line_with(out, *label.split(), *[str(t["messages"][key]) for t in subs])
    line_with(out, "consumed", "fraction", *[f"{t['messages']['consumed_fraction']:.3f}" for t in subs])
    ua = unit(*[t["age_ns"]["max"] for t in subs])
    age = line_with(out, "age", "mean", "/", "p99", "/", "max", f"({ua[0]})")
    assert all(dist(t["age_ns"], ua) in age for t in subs), age
    ue = unit(*[t["e2e_ns"]["max"] for t in subs])
    e2e = line_with(out, "e2e", "mean", "/", "p99", "/", "max", f"({ue[0]})")
    assert all(dist(t["e2e_ns"], ue) in e2e for t in subs), e2e
    pm = by_name(s, "poller")["poll_model"]
    up = unit(pm["publisher_period_ns"], pm["poll_period_ns"])
    line_with(out, "polls publisher, Tp / Tq", f"({up[0]})", "-",
              f"sensor, {num(pm['publisher_period_ns'], up)} / {num(pm['poll_period_ns'], up)}")
    # both in one unit, named in the row's label (before: "10.2 ms / 10.0 ms" here, "15.0 ms / 7500.0" across it)
    assert (pm["added_age_ns"]["measured"], pm["added_age_ns"]["expected"]) == (10_160_000, 10 * MS)
    line_with(out, "added age measured / expected (ms)", "-", "10.16 / 10.00")
    line_with(out, "consumed measured / expected", "-",
              f"{pm['consumed_fraction']['measured']:.3f} / {pm['consumed_fraction']['expected']:.3f}")

    # syncs: rate, the pairs' difference, each input's fraction used
    sy = s["syncs"][0]
    assert "\n  syncs:\n" in out
    inputs = ", ".join(f"{i['topic']} {i['used']} / {i['messages']} ({pct(i['used_fraction'])})" for i in sy["inputs"])
    us_ = unit(sy["pair_diff_max_ns"])
    line_with(out, "sync", "algorithm", "sets", "rate Hz", f"pair diff mean / max ({us_[0]})")
    line_with(out, "fused", "approximate", "40", "10.00",
              f"{num(sy['pair_diff_mean_ns'], us_)} / {num(sy['pair_diff_max_ns'], us_)}", inputs)
    assert "camera 40 / 120 (33.3%)" in inputs

    # chains: a block per chain end only (control, poller), not for the prefixes (sensor, filter)
    blocks = re.findall(r"^  chain (\S+): (.*)$", out, re.M)
    assert blocks == [("control", "sensor -> filter -> control (hops: scan, sync fused)"),
                      ("poller", "sensor -> poller (hops: scan)")], blocks
    control = by_name(s, "control")["chain"]
    block = out[out.index("  chain control:"):out.index("  chain poller:")]
    line_with(block, f"{control['outputs']} outputs ({control['other_paths']} by other paths), "
                     f"{control['inputs']} inputs ({control['unused_inputs']} unused)")
    ut, uw, ur = chain_units(control)
    line_with(block, "time", f"mean / p99 / max ({ut[0]})", f"bound ({ut[0]})")
    line_with(block, "data age", dist(control["data_age_ns"], ut), num(control["bound_ns"], ut))
    line_with(block, "reaction", dist(control["reaction_ns"], ut))
    line_with(block, "stage", f"wait mean / p99 / max ({uw[0]})", f"run mean / p99 / max ({ur[0]})")
    for st in control["stages"]:
        line_with(block, st["callback"], dist(st["wait_ns"], uw), dist(st["run_ns"], ur))
    assert "    " + worst_text(control) + "\n" in block
    assert "= 7340.0 us (e2e 7340.0 us)" in block  # 30 + 50 + 120 + 80 + 7000 + 60 us
    poller = out[out.index("  chain poller:"):]
    assert worst_text(by_name(s, "poller")["chain"]) in poller
    assert ": they differ)" in poller  # the sum is the parts', not a copy of the e2e


def test_markdown_tables(jl, tmp_path):
    s = executor_summary()
    out = report(jl, tmp_path, s, "--markdown")
    assert out.startswith("# jitterlab run: tables\n")
    total = sum(c for _, _, c in POOL)
    assert ("\n### Executor pool (rclcpp dispatch)\n\n| thread | tid | callbacks run | share |\n|---|---:|---:|---:|\n"
            in out)
    for name, tid, c in POOL:
        assert f"| {name} | {tid} | {c} | {pct(c / total)} |\n" in out
    assert f"| total |  | {total} | 100.0% |\n" in out
    assert "\n### Messages\n\n| messages | filter | poller |\n|---|---:|---:|\n" in out
    assert "| published | 200 | 200 |\n" in out
    assert "| consumed fraction | 0.975 | 0.200 |\n" in out
    assert "\n### Syncs\n\n| sync | algorithm | sets | rate Hz |" in out
    assert "| pair diff mean / max (ms) |" in out  # 19.8 ms: the column in ms, every cell of it
    assert "| fused | approximate | 40 | 10.00 | 6.87 / 19.80 | lidar 40 / 40 (100.0%), camera 40 / 120 (33.3%) |" in out
    assert re.findall(r"^### Chain (\S+)$", out, re.M) == ["control", "poller"]
    control = by_name(s, "control")["chain"]
    assert "\n### Chain control\n\n`sensor -> filter -> control (hops: scan, sync fused)`\n" in out
    ut, uw, ur = chain_units(control)
    assert f"| data age | {dist(control['data_age_ns'], ut)} | {num(control['bound_ns'], ut)} |\n" in out
    assert (f"| stage | wait mean / p99 / max ({uw[0]}) | run mean / p99 / max ({ur[0]}) |\n|---|---:|---:|\n"
            in out)
    for st in control["stages"]:
        assert f"| {st['callback']} | {dist(st['wait_ns'], uw)} | {dist(st['run_ns'], ur)} |\n" in out
    assert "\n" + worst_text(control) + "\n" in out
    # every table's header row is followed by its separator row
    lines = out.splitlines()
    for i, ln in enumerate(lines):
        if ln.startswith("|") and (i == 0 or not lines[i - 1].startswith("|")):
            assert re.fullmatch(r"\|(---:?\|)+", lines[i + 1]), (ln, lines[i + 1])


NEW_TITLES = ["executor", "messages", "syncs", "chain", "### Executor", "### Messages", "### Syncs", "### Chain",
              "worst output"]


@pytest.mark.parametrize("style", [(), ("--markdown",)], ids=["text", "markdown"])
def test_plain_summary_has_none_of_them(jl, tmp_path, style):
    plain = report(jl, tmp_path, PLAIN, *style, name="plain")
    for title in NEW_TITLES:
        assert title.lower() not in plain.lower(), title
    # the keys absent altogether (an older summary) print the same as the empty arrays of a plain run
    older = copy.deepcopy(PLAIN)
    del older["executors"], older["syncs"]
    assert report(jl, tmp_path, older, *style, name="older").replace("/older", "/plain") == plain
    # the loop table is still the last thing printed
    assert plain.rstrip("\n").splitlines()[-1].lstrip("| ").startswith("ctx switches invol / vol")


def test_messages_without_the_newer_fields(jl, tmp_path):
    """A summary from before topic/mode/consumed_fraction/poll_model/chain: those rows are left out."""
    s = executor_summary()
    for t in s["threads"]:
        t.pop("poll_model", None)
        t.pop("chain", None)
        for k in ("topic", "mode", "consumed_fraction"):
            t.get("messages", {}).pop(k, None)
    out = report(jl, tmp_path, s)
    line_with(out, "published", "200", "200")
    for label in ("topic", "mode", "consumed fraction", "polls publisher", "added age", "consumed measured",
                  "chain"):
        assert not re.search(r"^\s+" + re.escape(label) + r"\b", out, re.M), label


def test_json_and_markdown_exclude_each_other(jl, tmp_path):
    d = tmp_path / "run"
    d.mkdir()
    (d / "summary.json").write_text(json.dumps(PLAIN))
    r = jl("report", "--json", "--markdown", d, timeout=30)
    assert r.rc == 2 and "exclude each other" in r.stderr and r.stdout == ""


def test_locks_table(jl, tmp_path):
    """A [lock]: kind (with its ceiling), acquisitions, wait and hold cells, boosts, each thread's longest
    wait; no locks section without locks"""
    s = copy.deepcopy(PLAIN)
    s["locks"] = [{"name": "shared", "kind": "ceiling", "ceiling": 90, "acquisitions": 60,
                   "wait_ns": d3(2_000_000, 4_100_000, 4_200_000), "hold_ns": d3(2_500_000, 5_000_000, 5_100_000),
                   "boosts": 0, "threads": {"low": {"tid": 1, "acquisitions": 30, "wait_ns": d3(1000, 1500, 1600)},
                                            "high": {"tid": 2, "acquisitions": 30,
                                                     "wait_ns": d3(4_000_000, 4_100_000, 4_200_000)}}}]
    out = report(jl, tmp_path, s)
    lk = s["locks"][0]
    uw, uh = unit(lk["wait_ns"]["max"]), unit(lk["hold_ns"]["max"])
    line_with(out, "lock", "kind", "taken", f"wait mean / p99 / max ({uw[0]})", f"hold mean / p99 / max ({uh[0]})",
              "boosts", f"longest wait per thread ({uw[0]})")
    line_with(out, "shared", "ceiling 90", "60", dist(lk["wait_ns"], uw), dist(lk["hold_ns"], uh), "0",
              "low", num(1600, uw) + ",", "high", num(4_200_000, uw))
    assert "locks:" not in report(jl, tmp_path, copy.deepcopy(PLAIN), name="plain")


def test_requests_table(jl, tmp_path):
    """[source]s: the client's view of its requests (status counts, latency cell, wasted work)"""
    s = copy.deepcopy(PLAIN)
    s["sources"] = [{"name": "orders", "queue": "price_q", "requests": 8,
                     "status": {"pending": 0, "ok": 1, "deadline_exceeded": 3, "dropped": 4},
                     "client_latency_ns": d3(900 * MS, 1000 * MS, 1000 * MS, count=4), "wasted_ns": 2_500_000_000,
                     "wasted_max_ns": 900 * MS}]
    out = report(jl, tmp_path, s)
    src = s["sources"][0]
    ul, uw = unit(src["client_latency_ns"]["max"]), unit(src["wasted_ns"])
    assert (ul[0], uw[0]) == ("ms", "ms")  # 1 s and 2.5 s: below 10 s, in ms
    line_with(out, "source", "queue", "requests", f"client latency mean / p99 / max ({ul[0]})", f"wasted ({uw[0]})")
    line_with(out, "orders", "price_q", "8", "1", "3", "4", "0", dist(src["client_latency_ns"], ul),
              num(2_500_000_000, uw))
    assert "requests:" not in report(jl, tmp_path, copy.deepcopy(PLAIN), name="plain")
