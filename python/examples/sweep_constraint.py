#!/usr/bin/env python3
"""sweep_constraint.py — sweep the per-NPU bandwidth budget ("sum = S") of the
built-in GPT-3 example, solve each point exactly with weft.optimize, and plot
the optimum next to the EqualBW baseline (matplotlib, when installed) or print
a table.

    PYTHONPATH=python python3 python/examples/sweep_constraint.py [OUT.png] [S1,S2,...]

The scenario is a dict: the example's files, a constraint written per point."""
import os
import sys

import weft

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
G = os.path.join(ROOT, "data", "gpt3")


def sweep(budgets):
    rows = []
    for s in budgets:
        r = weft.optimize({"network": os.path.join(G, "network_4d.yml"),
                           "cost_model": os.path.join(G, "cost_4d.yml"),
                           "workload": os.path.join(G, "gpt3_175b_tp16.txt"),
                           "communicator": os.path.join(G, "comm_tp16_dp256.yml"),
                           "constraints": ["sum = %g" % s, "B1 >= B2 >= B3 >= B4"]})
        if r["status"] != "solved":
            print("sum = %g: %s (%s)" % (s, r["status"], r["message"]), file=sys.stderr)
            continue
        eq = r["equal_bw"]["time_ns"] if r["equal_bw"] else float("nan")
        rows.append((s, r["time_ns"] / 1e6, eq / 1e6, r["cost_usd"], r["bw_gbps"]))
    return rows


def table(rows):
    ndims = len(rows[0][4]) if rows else 0
    print("%10s %14s %14s %8s %14s  %s" % ("sum_gbps", "time_ms", "equal_bw_ms", "speedup",
                                           "cost_usd", " ".join("%9s" % ("B%d" % (d + 1))
                                                                for d in range(ndims))))
    for s, t, e, c, bw in rows:
        print("%10g %14.6f %14.6f %8.4f %14.0f  %s" % (s, t, e, e / t, c,
                                                     " ".join("%9.2f" % b for b in bw)))


def plot(rows, out):
    import matplotlib
    matplotlib.use("Agg")
    import matplotlib.pyplot as plt
    s = [r[0] for r in rows]
    fig, (a, b) = plt.subplots(1, 2, figsize=(11, 4))
    a.plot(s, [r[1] for r in rows], "o-", label="weft optimum")
    a.plot(s, [r[2] for r in rows], "s--", label="EqualBW")
    a.set_xlabel("bandwidth budget per NPU (GB/s)")
    a.set_ylabel("iteration time (ms)")
    a.legend()
    for d in range(len(rows[0][4])):
        b.plot(s, [r[4][d] for r in rows], "o-", label="B%d" % (d + 1))
    b.set_xlabel("bandwidth budget per NPU (GB/s)")
    b.set_ylabel("optimal bandwidth (GB/s)")
    b.legend()
    fig.suptitle("GPT-3 175B, 4096 NPUs: the optimum as the budget grows")
    fig.tight_layout()
    fig.savefig(out)
    print("wrote %s" % out)


def main(argv):
    out = argv[1] if len(argv) > 1 else "sweep_constraint.png"
    budgets = [float(x) for x in argv[2].split(",")] if len(argv) > 2 else \
        [250, 500, 750, 1000, 1500, 2000, 3000, 4000]
    rows = sweep(budgets)
    table(rows)
    try:
        import matplotlib  # noqa: F401
    except ImportError:
        print("(matplotlib not installed: table only)")
        return 0
    plot(rows, out)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
