#!/usr/bin/env bash
# check-layers: the source folders are layers, lowest first (ORDER below), and the modules (one .c and its
# object each) call one another without a cycle.
#  - includes: a file may include (quoted #include) files of its own layer and of layers before it in
#    ORDER, never of a layer after it; headers include one another without a cycle. A file's layer is the
#    longest ORDER folder its path starts with, so a layer may have sub-folders, and a sub-folder may be a
#    layer of its own (list it after its parent). Every .c/.h under rt/ and affinity/ is in a layer.
#  - calls (with OBJDIR, the objects of a build: `make check` gives build/obj): from each object's symbols
#    (`nm --defined-only`, `nm -u`), no object refers to a function or datum defined in a later layer, and
#    the modules' calls have no cycle (a cycle is printed with the symbols of each edge; recursion inside
#    one file is allowed). A cycle of calls is two modules that cannot be read, tested or replaced apart.
#  - names: no two .c files share a file name: an archive names its members by file name alone (`ar r`
#    replaces a member of the same name, `ar t` cannot tell two apart), and so do most tools' messages.
# Usage: scripts/check-layers.sh [ROOT [OBJDIR]]. Exit 0 when every rule holds; 1 with one line per
# violation; 2 when it cannot run. Why this order: docs/design-notes.md, "Source layout".
set -euo pipefail
ORDER="affinity rt/base rt/scenario rt/engine rt/trace/analysis rt/trace/io rt/summary rt/cmd"
cd "${1:-.}"
objdir=${2:-}
[ -d rt ] && [ -d affinity ] || { echo "check-layers: run from the repository root (no rt/ or affinity/ here)" >&2; exit 2; }
if [ -n "$objdir" ] && ! command -v nm >/dev/null; then
    echo "check-layers: nm (binutils) is needed to check calls" >&2
    exit 2
fi
ORDER="$ORDER" OBJDIR="$objdir" exec python3 - <<'PY'
import os, re, subprocess, sys
order = os.environ["ORDER"].split()
objdir = os.environ["OBJDIR"]
rank = {d: i for i, d in enumerate(order)}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')


def layer(path):
    """The longest ORDER folder PATH's folder lies in, or None."""
    d = os.path.dirname(path)
    best = None
    for o in order:
        if (d == o or d.startswith(o + "/")) and (best is None or len(o) > len(best)):
            best = o
    return best


files = []
for top in ("rt", "affinity"):
    for dp, dns, fns in os.walk(top):
        dns.sort()
        for f in sorted(fns):
            if f.endswith((".c", ".h")):
                files.append(os.path.normpath(os.path.join(dp, f)))
bad = []
# the library archive (ar) names its members by file name alone: an update (`ar r`) replaces a member of
# the same name, and its listings cannot tell two apart
seen = {}
for f in files:
    if f.endswith(".c"):
        b = os.path.basename(f)
        if b in seen:
            bad.append(f"{f}: the same file name as {seen[b]} (an archive names its members by file name)")
        seen.setdefault(b, f)
includes = {}  # header -> headers it includes (ours)
for f in files:
    lf = layer(f)
    if lf is None:
        bad.append(f"{f}: not in a layer folder (folders, lowest first: {' '.join(order)})")
        continue
    with open(f, errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = inc.match(line)
            if not m:
                continue
            p = m.group(1)
            # resolved as the compiler does: next to the including file, then from -I. (the root)
            t = os.path.normpath(os.path.join(os.path.dirname(f), p))
            if not os.path.isfile(t):
                t = os.path.normpath(p)
                if not os.path.isfile(t):
                    continue  # not ours (or generated): not a layering question
            if f.endswith(".h") and t.endswith(".h"):
                includes.setdefault(f, []).append((t, n))
            lt = layer(t)
            if lt is None:
                if t.startswith(("rt", "affinity")):
                    bad.append(f"{f}:{n}: includes {t}, which is in no layer folder")
                continue  # tests/ or elsewhere: not a layer
            if rank[lt] > rank[lf]:
                bad.append(f"{f}:{n}: includes {t}: {lf}/ reaches up into {lt}/ (order: {' < '.join(order)})")


def cycles(graph):
    """The strongly connected components of more than one node (Tarjan, iterative)."""
    index, low, stack, on, out, counter = {}, {}, [], set(), [], [0]
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph.get(root, ()))))]
        index[root] = low[root] = counter[0]
        counter[0] += 1
        stack.append(root)
        on.add(root)
        while work:
            v, it = work[-1]
            w = next(it, None)
            if w is not None:
                if w not in index:
                    index[w] = low[w] = counter[0]
                    counter[0] += 1
                    stack.append(w)
                    on.add(w)
                    work.append((w, iter(sorted(graph.get(w, ())))))
                elif w in on:
                    low[v] = min(low[v], index[w])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[v])
            if low[v] == index[v]:
                comp = []
                while True:
                    w = stack.pop()
                    on.discard(w)
                    comp.append(w)
                    if w == v:
                        break
                if len(comp) > 1:
                    out.append(sorted(comp))
    return out


for comp in cycles({h: {t for t, _ in ts} for h, ts in includes.items()}):
    bad.append(f"include cycle among {', '.join(comp)}")

ncalls = 0
if objdir:
    defs, refs = {}, {}
    for f in files:
        if not f.endswith(".c") or f == "rt/cmd/main.c":
            continue
        o = os.path.join(objdir, f[:-2] + ".o")
        if not os.path.isfile(o):
            print(f"check-layers: no object {o} (build first: make all)", file=sys.stderr)
            sys.exit(2)
        d = subprocess.run(["nm", "--defined-only", "-g", o], capture_output=True, text=True, check=True).stdout
        u = subprocess.run(["nm", "-u", o], capture_output=True, text=True, check=True).stdout
        defs[f] = {ln.split()[-1] for ln in d.splitlines() if len(ln.split()) == 3}
        refs[f] = {ln.split()[-1] for ln in u.splitlines() if ln.split()}
    owner = {s: f for f, ss in defs.items() for s in ss}
    calls = {}  # module -> {module: symbols}
    for f, ss in refs.items():
        for s in ss:
            g = owner.get(s)
            if g and g != f:
                calls.setdefault(f, {}).setdefault(g, set()).add(s)
                ncalls += 1
    for f, to in sorted(calls.items()):
        for g, ss in sorted(to.items()):
            if layer(f) and layer(g) and rank[layer(g)] > rank[layer(f)]:  # no layer: reported above
                bad.append(f"{f}: calls {g} ({', '.join(sorted(ss)[:4])}): {layer(f)}/ calls up into {layer(g)}/")
    for comp in cycles({f: set(to) for f, to in calls.items()}):
        edges = [f"{f} -> {g} ({', '.join(sorted(calls[f][g])[:3])})" for f in comp for g in comp
                 if g in calls.get(f, {})]
        bad.append(f"call cycle among {len(comp)} modules: " + "; ".join(edges))
for b in bad:
    print(b)
if bad:
    print(f"check-layers: {len(bad)} violation(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-layers: ok ({len(files)} files, {' < '.join(order)}"
      + (f"; {ncalls} calls between modules, no cycle)" if objdir else "; calls not checked: no OBJDIR)"))
PY
