"""The project carries its own contracts: docs/ made from the code is fresh, nothing points outside the clone,
and the contract's tables name keys the parser has."""
import os
import pathlib
import re
import shutil
import subprocess

from conftest import BIN

ROOT = pathlib.Path(__file__).resolve().parents[2]
DOCS = ROOT / "docs"
SCRIPT = ROOT / "scripts" / "docs.sh"


def docs_sh(*args, docs=DOCS):
    env = dict(os.environ, JITTERLAB=BIN, DOCS_DIR=str(docs))
    return subprocess.run(["bash", str(SCRIPT), *args], capture_output=True, text=True, env=env, timeout=120)


def test_generated_docs_are_fresh():
    r = docs_sh("--check")
    assert r.returncode == 0, r.stderr + "\n(run scripts/docs.sh and commit docs/)"


def test_a_stale_doc_is_caught(tmp_path):
    for name in ("summary-keys.md", "scenario-keys.md"):
        shutil.copy(DOCS / name, tmp_path / name)
    text = (tmp_path / "summary-keys.md").read_text()
    row = next(ln for ln in text.splitlines() if ln.startswith("| `"))
    (tmp_path / "summary-keys.md").write_text(text.replace(row + "\n", ""))
    r = docs_sh("--check", docs=tmp_path)
    assert r.returncode == 1 and "summary-keys.md is stale" in r.stderr and "scenario-keys.md" not in r.stderr
    # and every key of the code's table is a row (counted here from the binary, not from the script)
    keys = subprocess.run([BIN, "list", "--keys"], capture_output=True, text=True, timeout=30).stdout.splitlines()
    rows = [ln for ln in (DOCS / "summary-keys.md").read_text().splitlines() if ln.startswith("| `")]
    assert len(rows) == len(keys) and len(keys) > 100


def test_nothing_points_outside_the_clone():
    """README, docs, sources, scripts, tests and the generated man pages never send the reader to the
    steering repository's design folder, which a user's clone does not have."""
    pattern = re.compile(r"(\.\./)?" + "shar" + r"ed/design|\.\./" + "shar" + "ed")
    places = [ROOT / "README.md", ROOT / "Makefile", *DOCS.glob("*.md")]
    for d in ("rt", "affinity", "scripts", "tests", "include", "python", "examples", "scenarios", ".ci"):
        places += [p for p in (ROOT / d).rglob("*") if p.is_file() and p.suffix not in (".pyc",)]
    man = pathlib.Path(BIN).parent / "man"
    places += list(man.glob("*")) if man.is_dir() else []
    here = pathlib.Path(__file__).resolve()
    found = []
    for p in places:
        if p.resolve() == here:
            continue
        try:
            text = p.read_text(errors="replace")
        except OSError:
            continue
        found += [f"{p.relative_to(ROOT) if ROOT in p.parents else p}:{i}" for i, ln in enumerate(text.splitlines(), 1)
                  if pattern.search(ln)]
    assert not found, found


def test_relative_links_resolve():
    bad = []
    for doc in [ROOT / "README.md", *DOCS.glob("*.md")]:
        for m in re.finditer(r"\]\(([^)#:\s]+)(#[^)]*)?\)", doc.read_text()):
            if not (doc.parent / m.group(1)).exists():
                bad.append(f"{doc.name}: {m.group(1)}")
    assert not bad, bad


def registry():
    """{section kind: {key names}} from `jitterlab list --scenario` (pattern keys by their prefix)."""
    out = subprocess.run([BIN, "list", "--scenario"], capture_output=True, text=True, timeout=30).stdout
    sections, cur = {}, None
    for ln in out.splitlines():
        m = re.match(r"^  \[(\w+)( NAME)?\]", ln)
        if m:
            cur = sections.setdefault(m.group(1), set())
        elif ln.startswith("    ") and cur is not None:
            cur.add(ln.split()[0])
    return sections


def test_the_contracts_key_tables_name_real_keys():
    """Each key in a table of docs/scenario-format.md is one the parser has for that section."""
    known = registry()
    assert {"run", "thread", "sweep", "expect", "gate"} <= set(known)
    section, bad, seen = None, [], 0
    for ln in (DOCS / "scenario-format.md").read_text().splitlines():
        m = re.match(r"^## \[(\w+)", ln)
        if m:
            section = m.group(1)
            continue
        if ln.startswith("## "):
            section = None
        m = re.match(r"^\| `([^`]+)`", ln)
        if section and m:
            for key in m.group(1).split("` / `"):
                seen += 1
                if key not in known.get(section, set()):
                    bad.append(f"[{section}] {key}")
    assert seen > 20
    assert not bad, bad
