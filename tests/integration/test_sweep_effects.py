"""Factor effects of a crossed sweep (sweep.json "design" and "effects", the table's effects section) and the
shuffled order of its rounds.

The design is the issue's 2 x 2 with 3 runs per cell: the loop's policy (fifo 80, other) x its neighbour on
CPU 1 (asleep, or a CFS sin() hog at nice -20). Under fifo the hog cannot delay the loop; under other it
takes almost all of the CPU. The hog's effect under other is large (on this VM the loop's latency p50
rises about 100-fold), so noise cannot flip it. Its effect under fifo is not exactly 1 on a VM: a busy CPU
spares the loop its idle exit (p50 about / 1.9 here), so the test allows x/ 4 there, not the issue's x 2.
The checks are recomputed here from each run's own summary.json, never with the model's code."""
import json
import math
import pathlib
import statistics

FX = """
    ; 2 x 2: the loop's policy x a CFS hog on its CPU, 3 rounds
    [run]
    duration = 2s
    warmup = 500ms
    trace = off

    [thread control]
    policy = fifo
    priority = 80
    cpus = 1
    rate = 200Hz
    work = spin 100us

    [thread hog]
    policy = other
    cpus = 1
    work = sleep 100ms
    measure = no

    [sweep]
    runs = 3
    seed = 4242
    condition.none = hog.work=sleep 100ms
    condition.hog = hog.work=sin 50000000; hog.nice=-20
    vary.control.policy = fifo, other
"""


def find(effects, metric):
    return [e for e in effects if e["thread"] == "control" and e["metric"] == metric][0]


def term(e, **kw):
    hits = [t for t in e["terms"] if all(t.get(k) == v for k, v in kw.items())]
    assert len(hits) == 1, (kw, e["terms"])
    return hits[0]


def test_two_by_two_effects(jl, scenario, tmp_path):
    path = scenario("fx", FX)
    r = jl("sweep", path, timeout=240, check_rc=0)
    d = (tmp_path / "out" / "fx" / "latest").resolve()
    s = json.load(open(d / "sweep.json"))

    # the design: the named conditions are one factor, the vary line another; the round is the block
    des = s["design"]
    assert [f["name"] for f in des["factors"]] == ["condition", "control.policy"]
    assert [f["levels"] for f in des["factors"]] == [["none", "hog"], ["fifo", "other"]]
    assert des["cells"] == 4 and des["rounds"] == 3 and des["block"] == "round"
    assert des["order"] == "shuffled" and des["seed"] == 4242
    # each round runs every condition once; the order is sweep.json's "order", in execution order
    order = s["order"]
    assert [o["order"] for o in order] == list(range(1, 13))
    for k in range(3):
        rnd = order[4 * k:4 * k + 4]
        assert sorted(o["condition"] for o in rnd) == ["hog-fifo", "hog-other", "none-fifo", "none-other"]
        assert {o["run"] for o in rnd} == {k + 1}

    # every metric of the loop has an entry, by its kind
    fx = s["effects"]
    assert {e["metric"] for e in fx} == {m["name"] for m in s["metrics"]}
    assert find(fx, "latency.max")["status"] == "descriptive"
    assert find(fx, "latency.p50")["model"] == "log-linear"
    assert find(fx, "rate_hz")["model"] == "linear"
    assert find(fx, "misses")["model"] == "poisson"

    # the figures the model is checked on, from each run's summary.json
    p50 = {}
    for c in s["conditions"]:
        vals = []
        for run in c["runs"]:
            assert run["usable"], run
            summ = json.load(open(pathlib.Path(run["dir"]) / "summary.json"))
            t = [x for x in summ["threads"] if x["name"] == "control"][0]
            vals.append(t["latency_ns"]["p50"])
        p50[c["label"]] = vals
    geo = {k: math.exp(statistics.mean(math.log(v) for v in vals)) for k, vals in p50.items()}

    e = find(fx, "latency.p50")
    if e["status"] == "bimodal":  # a VM's cell can split in two: then no mean-based effect, and it says why
        assert "bimodal in" in e["why"]
        return
    assert e["status"] == "ok" and e["runs"] == 12 and e["balanced"] is True
    inter = term(e, kind="interaction")
    assert inter["factor"] == "condition" and inter["factor2"] == "control.policy"
    assert inter["ci"][0] > 1, inter  # the interaction's CI excludes 1
    # the saturated model's ratio of ratios is the geometric means' (the round block is balanced)
    want = (geo["hog-other"] / geo["none-other"]) / (geo["hog-fifo"] / geo["none-fifo"])
    assert math.isclose(inter["estimate"], want, rel_tol=1e-6), (inter["estimate"], want)
    under = {t["at"]["level"]: t for t in e["terms"]
             if t["kind"] == "simple" and t["factor"] == "condition" and t["at"]["factor"] == "control.policy"}
    assert set(under) == {"fifo", "other"}
    # under fifo the hog cannot take the loop's CPU: its effect is small beside other's. On these VMs it can
    # even lower the FIFO loop's p50 (a busy vCPU does not idle, so the wakeup skips the idle exit): seen
    # 0.44x, CI 0.20-0.94, in one full check, so the bound below 1 is wide
    assert under["fifo"]["ci"][0] > 0.05 and under["fifo"]["ci"][1] < 4, under["fifo"]
    assert under["other"]["ci"][0] > 10, under["other"]  # the hog's effect under other is >> 1
    assert under["other"]["ci"][0] > 2 * under["fifo"]["ci"][1], (under["other"], under["fifo"])
    assert math.isclose(under["other"]["estimate"], geo["hog-other"] / geo["none-other"], rel_tol=1e-6)
    for t in e["terms"]:
        assert t["ci"][0] <= t["estimate"] <= t["ci"][1]
        if "p_holm" in t:
            assert t["p"] <= t["p_holm"] <= 1
    shares = {x["term"]: x["omega2"] for x in e["shares"]}
    assert {"condition", "control.policy", "condition x control.policy", "round", "residual"} <= set(shares)
    assert all(0 <= v <= 1 for v in shares.values())

    # the rate: differences in Hz; the loop keeps 200 Hz under fifo whatever the hog does
    rate = find(fx, "rate_hz")
    if rate["status"] == "ok":
        u = [t for t in rate["terms"] if t["kind"] == "simple" and t["factor"] == "condition" and t["at"]["level"] == "other"][0]
        assert u["estimate"] < -20, u

    # the table: the effects section comes before the pairwise verdicts
    out = r.stdout
    assert "control: factor effects" in out
    assert out.index("control: factor effects") < out.index("control latency.p50")
    assert "condition x control.policy (none -> hog, fifo -> other): ratio of ratios x" in out
    assert "condition (none -> hog) at control.policy = other: x" in out
    assert "latency.max (none): a maximum is one extreme run's" in out
    # report.md carries it too
    assert "## control: factor effects" in (d / "report.md").read_text()
