"""scripts/check-layers.sh on small trees made here (never on the project's own, which `make check` runs
it on): the include rule, header include cycles, layers with sub-folders, two modules of one file name, and,
from the objects' symbols, calls up into a later layer (the trace's I/O below its analysis) and call cycles
between modules. Each case must fail where it should."""
import pathlib
import shutil
import subprocess

import pytest

HERE = pathlib.Path(__file__).resolve().parents[2]
SCRIPT = HERE / "scripts" / "check-layers.sh"

pytestmark = pytest.mark.skipif(shutil.which("cc") is None or shutil.which("nm") is None,
                                reason="needs cc and nm")


def tree(root, files):
    """FILES {path: text} under ROOT, with the layer folders the script expects; every .c compiled into
    ROOT/obj like the build does."""
    for d in ("affinity", "rt/base"):
        (root / d).mkdir(parents=True, exist_ok=True)
    for path, text in files.items():
        p = root / path
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    for path in files:
        if path.endswith(".c"):
            o = root / "obj" / (path[:-2] + ".o")
            o.parent.mkdir(parents=True, exist_ok=True)
            subprocess.run(["cc", "-c", "-I", str(root), "-o", str(o), str(root / path)], check=True)


def check(root, objects=True):
    args = ["bash", str(SCRIPT), str(root)] + ([str(root / "obj")] if objects else [])
    return subprocess.run(args, capture_output=True, text=True, timeout=60)


def test_clean_tree_passes(tmp_path):
    tree(tmp_path, {
        "affinity/a.c": "int a(void) { return 1; }\n",
        "rt/base/b.c": "int a(void);\nint b(void) { return a(); }\n",
        "rt/trace/io/c.c": '#include "../../base/x.h"\nint b(void);\nint c(void) { return b(); }\n',
        "rt/base/x.h": "#define X 1\n",
    })
    r = check(tmp_path)
    assert r.returncode == 0, r.stdout + r.stderr
    assert "2 calls between modules, no cycle" in r.stdout


def test_call_cycle_between_two_files_fails(tmp_path):
    tree(tmp_path, {
        "rt/trace/analysis/one.c": "int two(int);\nint one(int n) { return n ? two(n - 1) : 0; }\n",
        "rt/trace/analysis/two.c": "int one(int);\nint two(int n) { return n ? one(n - 1) : 0; }\n",
        "rt/trace/analysis/self.c": "int self(int n) { return n ? self(n - 1) : 0; }\n",  # recursion in one file: fine
    })
    r = check(tmp_path)
    assert r.returncode == 1, r.stdout
    line = next(x for x in r.stdout.splitlines() if x.startswith("call cycle"))
    assert "2 modules" in line and "rt/trace/analysis/one.c -> rt/trace/analysis/two.c (two)" in line
    assert "rt/trace/analysis/two.c -> rt/trace/analysis/one.c (one)" in line and "self.c" not in line
    # without objects the calls are not looked at
    assert check(tmp_path, objects=False).returncode == 0


def test_call_up_into_a_later_layer_fails(tmp_path):
    tree(tmp_path, {
        "rt/base/low.c": "int high(void);\nint low(void) { return high(); }\n",
        "rt/engine/high.c": "int high(void) { return 2; }\n",
    })
    r = check(tmp_path)
    assert r.returncode == 1
    assert "rt/base/low.c: calls rt/engine/high.c (high): rt/base/ calls up into rt/engine/" in r.stdout


def test_include_up_and_include_cycle_fail(tmp_path):
    tree(tmp_path, {
        "rt/base/up.h": '#include "../engine/e.h"\n',
        "rt/engine/e.h": "#define E 1\n",
        "rt/trace/io/p.h": '#include "q.h"\n',
        "rt/trace/io/q.h": '#include "p.h"\n',
    })
    r = check(tmp_path, objects=False)
    assert r.returncode == 1
    assert "rt/base/up.h:1: includes rt/engine/e.h: rt/base/ reaches up into rt/engine/" in r.stdout
    assert "include cycle among rt/trace/io/p.h, rt/trace/io/q.h" in r.stdout


def test_a_file_outside_the_layers_fails(tmp_path):
    tree(tmp_path, {"rt/misc/m.c": "int b(void);\nint m(void) { return b(); }\n",
                    "rt/base/b.c": "int m(void);\nint b(void) { return 0; }\nint c(void) { return m(); }\n"})
    for objects in (False, True):  # its calls, both ways, are not judged again: one violation, no crash
        r = check(tmp_path, objects=objects)
        assert r.returncode == 1 and "rt/misc/m.c: not in a layer folder" in r.stdout, r.stdout + r.stderr
        assert "Traceback" not in r.stderr


def test_the_analysis_calling_trace_io_fails(tmp_path):
    """rt/trace/analysis is the lower of the trace's two layers: it may not call the I/O above it."""
    tree(tmp_path, {
        "rt/trace/analysis/feed.c": "int read_page(void);\nint feed(void) { return read_page(); }\n",
        "rt/trace/io/pages.c": "int feed(void);\nint read_page(void) { return 1; }\nint pages(void) { return feed(); }\n",
    })
    r = check(tmp_path)
    assert r.returncode == 1, r.stdout
    assert ("rt/trace/analysis/feed.c: calls rt/trace/io/pages.c (read_page): rt/trace/analysis/ calls up into "
            "rt/trace/io/") in r.stdout, r.stdout


def test_two_modules_of_one_name_fail(tmp_path):
    """The library archive names its members by file name alone: rt/base/read.c and rt/trace/io/read.c
    would be two members of one name."""
    tree(tmp_path, {"rt/base/read.c": "int r1(void) { return 1; }\n", "rt/trace/io/read.c": "int r2(void) { return 2; }\n"})
    r = check(tmp_path, objects=False)
    assert r.returncode == 1
    assert "rt/trace/io/read.c: the same file name as rt/base/read.c" in r.stdout, r.stdout


# --- scripts/long-functions.sh: the ratchet on functions over 80 lines ------------------------------

LONG = HERE / "scripts" / "long-functions.sh"


def body(lines):
    return "int f(int x)\n{\n" + "".join(f"\tx += {i};\n" for i in range(lines - 3)) + "}\n"


@pytest.mark.skipif(shutil.which("ctags") is None, reason="needs Universal Ctags")
def test_long_functions_ratchet(tmp_path):
    """A function of 81 lines counts and one of 80 does not; --check fails when more are over 80 than LIMIT,
    and names them."""
    (tmp_path / "rt" / "base").mkdir(parents=True)
    (tmp_path / "affinity").mkdir()
    (tmp_path / "rt" / "base" / "a.c").write_text(body(81).replace("int f(", "int long_one("))
    (tmp_path / "affinity" / "b.c").write_text(body(80).replace("int f(", "int short_one("))
    r = subprocess.run(["bash", str(LONG), str(tmp_path)], capture_output=True, text=True, timeout=60)
    assert r.returncode == 0 and "   81  long_one  rt/base/a.c:1" in r.stdout and "short_one" not in r.stdout, r.stdout
    ok = subprocess.run(["bash", str(LONG), "--check", str(tmp_path)], capture_output=True, text=True, timeout=60,
                        env={"PATH": "/usr/bin:/bin", "JL_LONG_FUNCTIONS_LIMIT": "1"})
    assert ok.returncode == 0, ok.stderr
    bad = subprocess.run(["bash", str(LONG), "--check", str(tmp_path)], capture_output=True, text=True, timeout=60,
                         env={"PATH": "/usr/bin:/bin", "JL_LONG_FUNCTIONS_LIMIT": "0"})
    assert bad.returncode == 1 and "long_one" in bad.stderr, bad.stderr
