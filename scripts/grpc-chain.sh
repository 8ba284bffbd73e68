#!/usr/bin/env bash
# The published gRPC experiment (issue 30) at its published scale, three columns on one page: the paper's
# figures (Python gRPC, grpcio 1.84, three repeats), the real chain measured here (examples/grpc_chain/
# chain.py: three Python gRPC servers A -> B -> C under jitterlab, grpcio from Debian, each request marked
# with the probe), and jitterlab's model of the same (scenarios/pool-exhaustion.ini at the same scale).
# Four conditions: Ping alone; MODE none under the 8 Orders; a 1 s client deadline propagated; a 1 s client
# deadline not propagated. Like is compared with like: the ten Pings of each column are the ones sent from
# the Orders' moment, 0.2 s apart (the model's pings source is set to exactly those ten).
# Figures, never pass/fail. From the repository root, as root (sudo: the servers run as you):
#   sudo scripts/grpc-chain.sh            (about two minutes)     D=1 DEADLINE=0.2 for a scaled run, KEEP=1 keeps
#                                                                  the run directories (their path is printed)
set -euo pipefail
# shellcheck source=scripts/lib.sh
source "$(dirname "$0")/lib.sh"
/usr/bin/python3 -c "import grpc" 2>/dev/null || { echo "grpc-chain.sh: needs python3-grpcio (scripts/install-deps.sh)" >&2; exit 2; }
d=${D:-5}
dl=${DEADLINE:-1}
tmp=$(mktemp -d /tmp/jitterlab-grpc-XXXXXX)
[ -n "${KEEP:-}" ] || trap 'rm -rf "$tmp"' EXIT  # KEEP=1: the runs stay, for KernelShark and report
chmod 755 "$tmp"
# the servers run as the invoking user (user = invoking); run as root without sudo, that user is root
[ -n "${SUDO_UID:-}" ] || export SUDO_UID=0 SUDO_GID=0
server() { # NAME PORT WORKERS MODE
    echo "/usr/bin/python3 examples/grpc_chain/chain.py server --name $1 --port $2 --workers $3 --next $(($2 + 1)) --mode $4"
}
real() { # NAME MODE CLIENT-ARGS...: the run directory as $tmp/real-NAME
    local name=$1 mode=$2 client=()
    shift 2
    # the client's deadline is A's: its requests are the client's (what B and C do after it is wasted_ns)
    [[ " $* " == *" --deadline "* ]] && client=(--set "a.deadline=${dl}s")
    timeout 180 "$bin" run scenarios/grpc-chain.ini --out "$tmp/out-$name" -q "${client[@]}" \
        --set "a.exec=$(server a 50151 16 "$mode")" --set "b.exec=$(server b 50152 4 "$mode")" \
        --set "c.exec=/usr/bin/python3 examples/grpc_chain/chain.py server --name c --port 50153 --workers 16 --delay $d" \
        --set "client.exec=/usr/bin/python3 examples/grpc_chain/chain.py client --a 50151 --b 50152 --interval 0.2 --linger 60 $*" \
        >"$tmp/real-$name.out" 2>"$tmp/real-$name.err" || true
    ln -sfn "$(readlink -f "$tmp/out-$name/grpc-chain/latest")" "$tmp/real-$name" 2>/dev/null || true
}
model() { # NAME SET...: the model's requests.csv as $tmp/model-NAME.csv
    local name=$1
    shift
    local args=(--set "quote.work=sleep ${d}s" --set run.duration=14s --set run.grace=10s --set pings.start=200ms
                --set pings.count=10)
    for s in "$@"; do args+=(--set "$s"); done
    timeout 120 "$bin" run scenarios/pool-exhaustion.ini "${args[@]}" --out "$tmp/mout-$name" -q >/dev/null \
        2>"$tmp/model-$name.err" || true
    cp "$tmp/mout-$name/pool-exhaustion/latest/requests.csv" "$tmp/model-$name.csv" 2>/dev/null || true
}
echo "grpc-chain: the real chain, four conditions (C answers after $d s) ..." >&2
real alone none --orders 0
real none none
real propagated propagate --deadline "$dl"
real unpropagated none --deadline "$dl"
echo "grpc-chain: the model, four conditions ..." >&2
model alone orders.start=60s
model none orders.deadline=60s  # no deadline within the run
model propagated "orders.deadline=${dl}s" price.deadline_propagation=yes
model unpropagated "orders.deadline=${dl}s"
/usr/bin/python3 - "$tmp" "$d" "$dl" <<'PY'
import csv, json, os, sys
tmp, delay, deadline = sys.argv[1], float(sys.argv[2]), float(sys.argv[3])
PAPER = {  # the published figures, three repeats each (seconds)
    "alone": {"pings": "0.001-0.016"},
    "none": {"pings": "7.9-10.1, all ten ending together", "orders": "4 x ~5.1 OK, 4 x ~10.2 OK"},
    "propagated": {"pings": "the waiting ones peak 0.719-0.771, the rest <= 0.023",
                   "orders": "8 x DEADLINE_EXCEEDED at 0.91-0.93"},
    "unpropagated": {"pings": "-", "orders": "8 x DEADLINE_EXCEEDED at 1.005; A, B, C worked the full 5 s, OK"},
}


def rng(v):
    return f"{min(v):.3f}-{max(v):.3f}" if v else "-"


def statuses(rows, t):
    st = {}
    for x in rows:
        st[x[t]] = st.get(x[t], 0) + 1
    return ", ".join(f"{v} {k}" for k, v in sorted(st.items()))


def real(name):
    d = os.path.join(tmp, "real-" + name)
    try:
        log = [json.loads(l) for l in open(os.path.join(d, "client.log")) if l.startswith("{")]
        summary = json.load(open(os.path.join(d, "summary.json")))
    except (OSError, ValueError):
        return None
    pings = [x for x in log if x.get("method") == "ping"]
    orders = [x for x in log if x.get("method") == "order"]
    # the pings that waited (more than 0.1 s): did they end together, as published?
    ends = [x["sent_ns"] / 1e9 + x["seconds"] for x in pings if x["seconds"] > 0.1]
    series = {t["name"]: t for t in summary["threads"]}
    out = {"pings": f"{rng([x['seconds'] for x in pings])}"
           + (f", the {len(ends)} that waited ended within {max(ends) - min(ends):.3f} s of one another" if len(ends) > 1 else "")}
    if orders:
        out["orders"] = f"{rng([x['seconds'] for x in orders])} ({statuses(orders, 'status')})"
    wait = series.get("b.ping", {}).get("latency_ns", {}).get("max")
    if wait is not None:
        out["pings"] += f"; worst wait for a B worker {wait / 1e9:.3f}"
    q = series.get("c.quote")
    if q and q.get("cycles"):
        out["c"] = f"C's quotes took {q['response_ns']['min'] / 1e9:.3f}-{q['response_ns']['max'] / 1e9:.3f} s"
    # the work done after the client gave up, from the probe records (summary.json wasted_ns: each B price
    # and C quote linked to its order through the calls, from the moment the client gave up on it)
    if orders and "given_up" in series.get("a.order", {}) and any(x["status"] == "DEADLINE_EXCEEDED" for x in orders):
        wasted = sum(series.get(u, {}).get("wasted_ns", 0) for u in ("b.price", "c.quote"))
        up = series["a.order"]["given_up"]
        out["wasted"] = (f"B and C worked {wasted / 1e9 / len(orders):.3f} s per order after the client gave up "
                         + (f"({up} given up)" if up else "(none given up: A answered, with the error, first)"))
    return out


def model(name):
    try:
        rows = list(csv.DictReader(open(os.path.join(tmp, f"model-{name}.csv"))))
    except OSError:
        return None
    pings = [(int(x["end_ns"]) - int(x["created_ns"])) / 1e9 for x in rows if x["queue"] == "ping_q" and int(x["end_ns"])]
    orders = [x for x in rows if x["source"] == "orders"]
    out = {"pings": rng(pings)}
    if orders:
        lat = [((int(x["end_ns"]) if x["status"] == "ok" else int(x["deadline_ns"])) - int(x["created_ns"])) / 1e9
               for x in orders]
        out["orders"] = f"{rng(lat)} ({statuses(orders, 'status')})"
        w = sum(int(x["wasted_ns"]) for x in rows if x["queue"] in ("price_q", "quote_q"))
        if w:
            out["wasted"] = f"B and C worked {w / 1e9 / len(orders):.3f} s per order after the client gave up"
    return out


titles = {"alone": "Ping alone", "none": "MODE none, under 8 Orders",
          "propagated": f"{deadline:g} s deadline, propagated", "unpropagated": f"{deadline:g} s deadline, not propagated"}
print(f"runs in {tmp}\n" if os.environ.get("KEEP") else "", end="")
print(f"The published gRPC chain: paper (Python gRPC, C {5} s, deadline 1 s), real (this machine, C {delay:g} s, "
      f"deadline {deadline:g} s), model (scenarios/pool-exhaustion.ini, the same)\n")
for name in ("alone", "none", "propagated", "unpropagated"):
    r, m = real(name), model(name)
    print(titles[name])
    for what in ("pings", "orders", "wasted", "c"):
        cols = [PAPER[name].get(what, "-"), (r or {}).get(what, "-" if r else "(no run: see real-%s.err)" % name),
                (m or {}).get(what, "-" if m else "(no run: see model-%s.err)" % name)]
        if all(c == "-" for c in cols):
            continue
        print(f"  {what:7s} paper: {cols[0]}\n          real:  {cols[1]}\n          model: {cols[2]}")
    print()
PY
