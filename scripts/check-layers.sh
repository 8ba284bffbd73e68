#!/usr/bin/env bash
# check-layers: the source folders are layers, lowest first (ORDER below). A file may include
# (quoted #include) files of its own folder and of folders before it in ORDER, never of a folder after
# it. Every .c/.h under rt/ and affinity/ must sit in one of the ORDER folders (rt/ itself holds none).
# Run from the repository root (or give it as $1). Exit 0 when the rule holds; 1 with one line per
# violation; 2 when it cannot run. Why this order: docs/design-notes.md, "Source layout".
set -euo pipefail
ORDER="affinity rt/base rt/scenario rt/engine rt/trace rt/summary rt/cmd"
cd "${1:-.}"
[ -d rt ] && [ -d affinity ] || { echo "check-layers: run from the repository root (no rt/ or affinity/ here)" >&2; exit 2; }
ORDER="$ORDER" exec python3 - <<'PY'
import os, re, sys
order = os.environ["ORDER"].split()
rank = {d: i for i, d in enumerate(order)}
inc = re.compile(r'^\s*#\s*include\s+"([^"]+)"')
files = []
for top in ("rt", "affinity"):
    for dp, dns, fns in os.walk(top):
        dns.sort()
        for f in sorted(fns):
            if f.endswith((".c", ".h")):
                files.append(os.path.normpath(os.path.join(dp, f)))
bad = []
for f in files:
    d = os.path.dirname(f)
    if d not in rank:
        bad.append(f"{f}: not in a layer folder (folders, lowest first: {' '.join(order)})")
        continue
    with open(f, errors="replace") as fh:
        for n, line in enumerate(fh, 1):
            m = inc.match(line)
            if not m:
                continue
            p = m.group(1)
            # resolved as the compiler does: next to the including file, then from -I. (the root)
            t = os.path.normpath(os.path.join(d, p))
            if not os.path.isfile(t):
                t = os.path.normpath(p)
                if not os.path.isfile(t):
                    continue  # not ours (or generated): not a layering question
            td = os.path.dirname(t)
            if td not in rank:
                if td.startswith(("rt", "affinity")):
                    bad.append(f"{f}:{n}: includes {t}, which is in no layer folder")
                continue  # tests/ or elsewhere: not a layer
            if rank[td] > rank[d]:
                bad.append(f"{f}:{n}: includes {t}: {d}/ reaches up into {td}/ (order: {' < '.join(order)})")
for b in bad:
    print(b)
if bad:
    print(f"check-layers: {len(bad)} violation(s)", file=sys.stderr)
    sys.exit(1)
print(f"check-layers: ok ({len(files)} files, {' < '.join(order)})")
PY
