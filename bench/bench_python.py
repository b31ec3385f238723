#!/usr/bin/env python3
# bench_python.py — the Python package on LIBRA's default run (the README's
# main example: GPT-3 on the 4-dim network, LIBRA's multiple_constraints,
# tp-dp-overlap): `import weft` + weft.optimize(...) in a fresh interpreter,
# timed from inside it (target: 50 ms), with and without the package's
# bytecode compiled, and the whole process for reference.
#   python3 bench/bench_python.py [BUILD]     (make bench runs it)
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time

TARGET_MS = 50.0          # import + solve, Python wall time
PROCESSES = 21            # fresh interpreters timed (median reported)
WARM_CALLS = 200          # optimize() calls in one process, after the import
LIBRA_OPTIMUM_MS = 708.4387  # LIBRA's published perf optimum, this case
CONS = ["sum = 1000", "B1 = 500", "B1 >= B2 >= B3", "B3 + B4 = 200"]

CHILD = r"""
import sys, time
t0 = time.perf_counter()
import weft
t1 = time.perf_counter()
r = weft.optimize(constraint=%(cons)r, loop="tp_dp_overlap", **%(files)r)
t2 = time.perf_counter()
if sys.argv[1:] == ["warm"]:
    ts = []
    for _ in range(%(warm)d):
        a = time.perf_counter()
        weft.optimize(constraint=%(cons)r, loop="tp_dp_overlap", **%(files)r)
        ts.append(time.perf_counter() - a)
    ts.sort()
    print(ts[len(ts) // 2])
else:
    print(t1 - t0, t2 - t0, r["status"], r["time_ns"])
"""


def inputs():
    """LIBRA's files, or weft's built-in example when they are absent."""
    dirs = [os.environ.get("WEFT_LIBRA_DIR"), "/work/shared/libra-format",
            "../shared/libra-format"]
    for d in dirs:
        if d and os.path.isdir(d):
            return d, {"network": d + "/network/4d_network.yml",
                       "workload": d + "/workload/GPT_3.txt",
                       "communicator": d + "/communicator/GPT_3_4d.yml",
                       "cost_model": d + "/cost_model/4d_cost_model.yml"}
    return None, {"network": "data/gpt3/network_4d.yml",
                  "workload": "data/gpt3/gpt3_175b_tp16.txt",
                  "communicator": "data/gpt3/comm_tp16_dp256.yml",
                  "cost_model": "data/gpt3/cost_4d.yml"}


def run(code, env, args=()):
    p = subprocess.run([sys.executable, "-c", code, *args], env=env, stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE)
    if p.returncode:
        sys.exit("bench_python: cannot run: " + p.stderr.decode().strip().splitlines()[-1])
    return p.stdout


def timed(code, env):
    """PROCESSES fresh interpreters: (import, import + solve, whole process) each."""
    rows = []
    for _ in range(PROCESSES):
        t0 = time.perf_counter()
        imp, total, status, time_ns = run(code, env).split()
        rows.append((float(imp), float(total), time.perf_counter() - t0))
    return rows, status.decode(), float(time_ns)


def main():
    build = sys.argv[1] if len(sys.argv) > 1 else "build"
    libra, files = inputs()
    code = CHILD % {"cons": CONS, "files": files, "warm": WARM_CALLS}
    print("bench_python: weft.optimize on GPT-3, 4 dims, 4096 NPUs (%s %s)" %
          (os.path.basename(sys.executable), sys.version.split()[0]))
    print("inputs: %s" % (libra + " (LIBRA's files, multiple_constraints, tp-dp-overlap)" if libra
                          else "data/gpt3 (fallback: LIBRA's files not found)"))
    lib = os.path.abspath(os.path.join(build, "libweft.so.0"))
    met = 0
    with tempfile.TemporaryDirectory() as tmp:
        # The package copied twice: once without compiled bytecode (every import
        # compiles the sources, as with PYTHONDONTWRITEBYTECODE), once with it
        # (as after pip install, or a first import that could write __pycache__).
        modes = []
        for mode, write in (("sources compiled at import (no .pyc)", False),
                            ("bytecode cached (.pyc)", True)):
            root = os.path.join(tmp, "pyc" if write else "src")
            shutil.copytree("python/weft", os.path.join(root, "weft"),
                            ignore=shutil.ignore_patterns("__pycache__"))
            env = dict(os.environ, PYTHONPATH=root, WEFT_LIB=lib)
            env.pop("PYTHONDONTWRITEBYTECODE", None)
            if write:
                run(code, env)  # writes the .pyc files
            else:
                env["PYTHONDONTWRITEBYTECODE"] = "1"
            modes.append((mode, env, timed(code, env)))
        warm = float(run(code, modes[-1][1], ["warm"]))
    _, _, (_, status, time_ns) = modes[0]
    ms = time_ns / 1e6
    print("status %s, time %.6f ms" % (status, ms))
    if libra:
        print("  LIBRA's published optimum %.4f ms: relative difference %+.2e" %
              (LIBRA_OPTIMUM_MS, ms / LIBRA_OPTIMUM_MS - 1))
    for mode, _, (rows, status, _) in modes:
        med = statistics.median(r[1] for r in rows) * 1e3
        ok = med <= TARGET_MS and status == "solved"
        met += ok
        print("  import + solve, %s" % mode)
        print("  %-44s %10.1f ms   target <= %8.1f ms   %s" % (
            "  median of %d processes" % PROCESSES, med, TARGET_MS, "PASS" if ok else "MISS"))
        print("  %-44s %10.1f ms   (slowest import + solve %.1f ms)" % (
            "  of which import weft", statistics.median(r[0] for r in rows) * 1e3,
            max(r[1] for r in rows) * 1e3))
        print("  %-44s %10.1f ms   (interpreter start-up included; no target)" % (
            "  whole process, python3 -c", statistics.median(r[2] for r in rows) * 1e3))
    print("  %-44s %10.1f us" % ("optimize() once imported (median of %d)" % WARM_CALLS,
                                 warm * 1e6))
    print("bench_python: %d of %d targets met" % (met, len(modes)))
    return 0


if __name__ == "__main__":
    sys.exit(main())
