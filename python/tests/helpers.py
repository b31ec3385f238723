# helpers.py — the CLI as reference: run it with --json, compare its object
# with the package's dict (the same keys in the same order, strings and
# flags equal, numbers to the precision the CLI prints them with).
import json
import math
import os
import subprocess

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))

CLI = os.environ.get("WEFT_CLI") or os.path.join(ROOT, "build", "weft")
LIBRA = os.environ.get("WEFT_LIBRA_DIR") or "/work/shared/libra-format"
G = "data/gpt3/"
GPT3 = "data/gpt3_4096npu_4d.yml"


def cli(*args):
    """json.loads of `weft ARGS... --json` (its exit status may be 1: no solution)."""
    p = subprocess.run([CLI, *args, "--json"], stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode in (0, 1), p.stderr.decode()
    return json.loads(p.stdout)


# The CLI prints numbers with %.12g (a few with fewer digits: keys below).
REL = 1e-10


def same(py, ref, path="", tol=None, skip=()):
    """Assert py (the package's dict) equals ref (the CLI's JSON)."""
    tol = tol or {}
    if isinstance(ref, dict):
        assert isinstance(py, dict), path
        assert list(py) == list(ref), "%s: keys %s != %s" % (path, list(py), list(ref))
        for k in ref:
            if k not in skip:
                same(py[k], ref[k], "%s.%s" % (path, k), tol, skip)
    elif isinstance(ref, list):
        assert isinstance(py, list) and len(py) == len(ref), "%s: %r != %r" % (path, py, ref)
        for i, (a, b) in enumerate(zip(py, ref)):
            same(a, b, "%s[%d]" % (path, i), tol, skip)
    elif ref is None or isinstance(ref, (bool, str)):
        assert py == ref and type(py) is type(ref), "%s: %r != %r" % (path, py, ref)
    else:
        assert isinstance(py, (int, float)) and not isinstance(py, bool), "%s: %r" % (path, py)
        rel, abs_ = tol.get(path.rsplit(".", 1)[-1].split("[")[0], (REL, 0.0))
        assert math.isclose(py, ref, rel_tol=rel, abs_tol=abs_), "%s: %r != %r" % (path, py, ref)
