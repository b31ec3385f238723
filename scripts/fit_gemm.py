#!/usr/bin/env python3
"""fit_gemm.py — fit the GEMM shape model of src/model/gemm_eff.c (devices.yml
keys gemm_eff_max, gemm_k0, gemm_t0_us) to a public table of measured GEMM
throughput, and print the parameters and the fit's error.

usage: scripts/fit_gemm.py TABLE [ZOO_DIR]

TABLE is XLA's default matmul performance table, measured by XLA's
matmul_perf_table_gen (median kernel time of each dot, FLOPs = 2 b m n k):
openxla/xla xla/service/gpu/model/default_matmul_perf_table.txtpb, or the
same text inside kDefaultMatmulPTable of matmul_interpolator_data.h in older
trees (tensorflow/tensorflow third_party/xla/...). Entries are grouped by
GPU ("sm_90": H100 SXM); each has b, m, n, k and a FLOP/s per dtype. Only
the BF16 entries are read. ZOO_DIR (default data/zoo) gives each GPU's
peak_tflops, sms and tile from devices.yml.

The model (docs/zoo.md, "GEMM shape model"): a GEMM of b x (m x k)(k x n)
cuts its output into t = b ceil(m/rows) ceil(n/cols) tiles; with fewer tiles
than SMs the K loop is split s = floor(sms / t) ways (split-K), else s = 1;
the t s pieces run in waves of sms, and each piece costs its K slice plus a
prologue/epilogue worth k0 K-steps at gemm_eff_max of the SM's share of peak:

    time = t0 + ceil(t s / sms) x 2 rows cols (k / s + k0) x sms / (peak x eff_max)

Fit: least squares of log(model time / measured time) over the entries with
min(m, n, k) >= 512 (the 256-wide ones are launch-bound toys), by a
deterministic Nelder-Mead from a fixed start. The errors printed are of the
rounded parameters that go into devices.yml: time_model / time_measured - 1.

Points typed in from ml-engineering's MAMF table (stas00/ml-engineering,
compute/accelerator/README.md, "Maximum Achievable Matmul FLOPS comparison
table", BF16): A100 SXM 267.9 TFLOP/s at 6912x16384x2048 (CUDA 12.1) gives the
A100's gemm_eff_max, solved with the sm_90 k0 and t0 (no per-shape A100 table
is public, see docs/zoo.md); H100 SXM 792.1 at 6144x17920x2816 (CUDA 12.1) and
794.5 at 2048x2048x13312 (torch 2.7), A100 SXM 271.2 at 1024x10240x5120
(torch 2.6) are checks, not fitted.
Needs python3-yaml (Debian).
"""
import math
import re
import sys

import yaml

GPUS = {"sm_90": "h100", "gfx942": "mi300x"}  # table key -> devices.yml preset
DTYPE = "bf16xbf16->bf16"
FIT_MIN_DIM = 512
MAMF_A100 = (1, 6912, 16384, 2048, 267.9e12)
CHECKS = (("h100", (1, 6144, 17920, 2816, 792.1e12)), ("h100", (1, 2048, 2048, 13312, 794.5e12)),
          ("a100", (1, 1024, 10240, 5120, 271.2e12)))


def read_table(path):
    """{gpu: {(b, m, n, k): BF16 FLOP/s}} from the textproto."""
    text = open(path).read()
    heads = [(m.start(), m.group(1)) for m in
             re.finditer(r'key:\s*"([A-Za-z0-9_]+)"\s*value\s*\{', text)]
    out = {}
    for i, (at, gpu) in enumerate(heads):
        block = text[at:heads[i + 1][0] if i + 1 < len(heads) else len(text)]
        rows = {}
        for ent in re.finditer(r'b:\s*(\d+)\s+m:\s*(\d+)\s+n:\s*(\d+)\s+k:\s*(\d+)'
                               r'((?:\s*flops\s*\{[^}]*\})+)', block):
            v = re.search(r'key:\s*"%s"\s*value:\s*(\d+)' % re.escape(DTYPE), ent.group(5), re.I)
            if v:
                rows[tuple(int(ent.group(j)) for j in range(1, 5))] = float(v.group(1))
        if rows:
            out[gpu] = rows
    return out


def model_s(p, shape, dev):
    """Seconds of one GEMM under parameters p = (eff_max, k0, t0_us)."""
    eff, k0, t0_us = p
    b, m, n, k = shape
    rows, cols = dev["tile"]
    sms = dev["sms"]
    tiles = b * math.ceil(m / rows) * math.ceil(n / cols)
    split = max(1, sms // tiles)
    waves = math.ceil(tiles * split / sms)
    return t0_us * 1e-6 + waves * 2.0 * rows * cols * (k / split + k0) * sms / (dev["peak"] * eff)


def measured_s(shape, flops):
    b, m, n, k = shape
    return 2.0 * b * m * n * k / flops


def loss(p, rows, dev):
    if p[0] <= 0 or p[1] < 0 or p[2] < 0:
        return float("inf")
    return sum(math.log(model_s(p, s, dev) / measured_s(s, f)) ** 2 for s, f in rows.items())


def nelder_mead(f, x0, step, iters=3000):
    n = len(x0)
    pts = [list(x0)] + [[x0[j] + (step[j] if j == i else 0) for j in range(n)] for i in range(n)]
    val = [f(p) for p in pts]
    for _ in range(iters):
        order = sorted(range(n + 1), key=lambda i: val[i])
        pts, val = [pts[i] for i in order], [val[i] for i in order]
        c = [sum(p[j] for p in pts[:-1]) / n for j in range(n)]
        at = lambda t: [c[j] + t * (pts[-1][j] - c[j]) for j in range(n)]
        xr = at(-1.0)
        fr = f(xr)
        if fr < val[0]:
            xe = at(-2.0)
            fe = f(xe)
            pts[-1], val[-1] = (xe, fe) if fe < fr else (xr, fr)
        elif fr < val[-2]:
            pts[-1], val[-1] = xr, fr
        else:
            xc = at(0.5)
            fc = f(xc)
            if fc < val[-1]:
                pts[-1], val[-1] = xc, fc
            else:
                for i in range(1, n + 1):
                    pts[i] = [pts[0][j] + 0.5 * (pts[i][j] - pts[0][j]) for j in range(n)]
                    val[i] = f(pts[i])
    best = min(range(n + 1), key=lambda i: val[i])
    return pts[best]


def rounded(p):
    return (round(p[0], 3), float(round(p[1])), round(p[2], 2))


def errors(p, rows, dev):
    return [model_s(p, s, dev) / measured_s(s, f) - 1 for s, f in rows.items()]


def summary(label, errs):
    if not errs:
        return "  %-22s no entries" % label
    mean = sum(abs(e) for e in errs) / len(errs)
    bias = sum(errs) / len(errs)
    return "  %-22s %4d entries  mean |err| %5.1f%%  max |err| %5.1f%%  mean err %+5.1f%%" % (
        label, len(errs), 100 * mean, 100 * max(abs(e) for e in errs), 100 * bias)


def fit(rows, dev):
    fitset = {s: f for s, f in rows.items() if min(s[1:]) >= FIT_MIN_DIM}
    f = lambda p: loss(p, fitset, dev)
    p = nelder_mead(f, [0.8, 64.0, 3.0], [0.05, 32.0, 1.0])
    return rounded(nelder_mead(f, p, [0.01, 8.0, 0.3]))


def solve_eff(k0, t0_us, point, dev):
    """eff_max at which the model meets a measured (b, m, n, k, FLOP/s)."""
    want = measured_s(point[:4], point[4])
    lo, hi = 1e-3, 1.0
    for _ in range(60):
        mid = (lo + hi) / 2
        lo, hi = (mid, hi) if model_s((mid, k0, t0_us), point[:4], dev) > want else (lo, mid)
    return round((lo + hi) / 2, 3)


def device(zoo, name):
    d = zoo[name]
    return {"peak": d["peak_tflops"] * 1e12, "sms": d["sms"], "tile": tuple(d["tile"])}


def main(argv):
    if len(argv) < 2 or argv[1] in ("-h", "--help"):
        print(__doc__.strip())
        return 0 if len(argv) >= 2 else 2
    table = read_table(argv[1])
    zoo = yaml.safe_load(open((argv[2] if len(argv) > 2 else "data/zoo") + "/devices.yml"))
    fitted = {}
    for gpu, rows in sorted(table.items()):
        if gpu not in GPUS:
            print("%s: %d BF16 entries, no preset mapped (skipped)" % (gpu, len(rows)))
            continue
        dev = device(zoo, GPUS[gpu])
        p = fit(rows, dev)
        fitted[gpu] = (p, dev)
        print("%s -> %s (peak %.4g TFLOP/s, %d SMs, tile %dx%d): gemm_eff_max %.3f, "
              "gemm_k0 %.0f, gemm_t0_us %.2f" % (gpu, GPUS[gpu], dev["peak"] / 1e12, dev["sms"],
                                                 dev["tile"][0], dev["tile"][1], *p))
        print(summary("all", errors(p, rows, dev)))
        for lo in (FIT_MIN_DIM, 1024, 2048):
            sub = {s: f for s, f in rows.items() if min(s[1:]) >= lo}
            print(summary("m, n, k >= %d%s" % (lo, " (fit)" if lo == FIT_MIN_DIM else ""),
                          errors(p, sub, dev)))
    if "sm_90" in fitted:
        p, dev = fitted["sm_90"]
        a100 = device(zoo, "a100")
        eff = solve_eff(p[1], p[2], MAMF_A100, a100)
        b, m, n, k, rate = MAMF_A100
        print("a100: gemm_eff_max %.3f (A100 MAMF %dx%dx%d %.1f TFLOP/s, k0 and t0 of sm_90), "
              "gemm_k0 %.0f, gemm_t0_us %.2f" % (eff, m, n, k, rate / 1e12, p[1], p[2]))
        params = {"h100": (p, dev), "a100": ((eff, p[1], p[2]), a100)}
        for name, (b, m, n, k, rate) in CHECKS:
            q, d = params[name]
            got = 2.0 * b * m * n * k / model_s(q, (b, m, n, k), d)
            print("check: %s MAMF %dx%dx%d measured %.1f TFLOP/s, model %.1f (time error %+.1f%%)"
                  % (name, m, n, k, rate / 1e12, got / 1e12, 100 * (rate / got - 1)))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
