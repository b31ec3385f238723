# test_example.py — python/examples/sweep_constraint.py runs, and its table
# holds what the model says it must: the budget is spent (B1 + ... + BD =
# sum), more budget is never slower, the optimum never slower than EqualBW.
import importlib.util
import os
import subprocess
import sys

from helpers import ROOT


def test_sweep_constraint_example(tmp_path):
    out = tmp_path / "sweep.png"
    env = dict(os.environ, PYTHONPATH=os.path.join(ROOT, "python"))
    p = subprocess.run([sys.executable, os.path.join(ROOT, "python", "examples",
                                                     "sweep_constraint.py"),
                        str(out), "300,1000,2500"], env=env, cwd=str(tmp_path),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    assert p.returncode == 0, p.stderr.decode()
    lines = p.stdout.decode().splitlines()
    rows = [[float(x) for x in line.split()] for line in lines[1:4]]
    assert [r[0] for r in rows] == [300, 1000, 2500]
    for s, t, eq, speedup, cost, *bw in rows:
        assert abs(sum(bw) - s) < 0.01 * len(bw)  # two decimals printed per dim
        assert t <= eq * (1 + 1e-9) and abs(speedup - eq / t) < 1e-3
        assert bw == sorted(bw, reverse=True)  # B1 >= B2 >= B3 >= B4
    assert rows[0][1] > rows[1][1] > rows[2][1]
    has_mpl = importlib.util.find_spec("matplotlib") is not None
    assert out.exists() == has_mpl
