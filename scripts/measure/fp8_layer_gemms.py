#!/usr/bin/env python3
"""fp8_layer_gemms.py - a layer's GEMMs in sequence, FP8 against BF16.

The measured tables time each GEMM shape alone, back to back with itself. A
training layer runs its GEMMs one after another, each reading operands another
kernel just wrote. This runs the twelve GEMMs of one Llama-family layer's per-GPU
shard (QKV, projection, the MLP's two: forward, data- and weight-gradient) in the
order a layer's forward and backward run them, on operands already in their
formats, as one sequence, in BF16 (torch.matmul) and in FP8 (torch._scaled_mm,
per-tensor scales: forward e4m3 x e4m3 with fast accumulation, gradients e5m2 x
e4m3 without, as Transformer Engine's hybrid recipe), bf16 out. Writes
<dev>_fp8_layer_gemms.csv under --out:
  name,dtype,seq_us,sum_us
seq_us the sequence's time (median of CUDA-event timings), sum_us the sum of each
GEMM timed alone the same way; and <dev>_fp8_layer_gemms_each.csv, each GEMM alone:
  name,gemm,m,n,k,kind,bf16_us,fp8_us,fp8_e4m3_us
fp8_e4m3_us the same GEMM with both operands e4m3 (the measured tables' FP8 rows).
Nothing is fitted to training runs. weft reads both files beside the device's
tables (the sequences' seq_us, the _each file's shapes): their FP8/BF16 ratios
over the tables' give the FP8 layer factor (docs/zoo.md, "FP8 GEMMs in a layer");
scripts/measure/check.py fp8layer compares the layers with the tables alone.

  python3 scripts/measure/fp8_layer_gemms.py --out DIR [--device-name h100]
"""
import sys
import time

import torch

from cuda_timing import header, out_path, parser, time_us  # scripts/measure/, the running script's folder

LAYERS = [  # name, hidden, ffn shard, heads, kv heads (the shard's), head dim, tokens, gated
    ("llama3-8b-tp1", 4096, 14336, 32, 8, 128, 4096, True),
    ("llama3-70b-tp4", 8192, 7168, 16, 2, 128, 8192, True),
    ("llama3-405b-tp8", 16384, 6656, 16, 1, 128, 8192, True),
    ("gpt3-175b-tp4", 12288, 12288, 24, 24, 128, 2048, False),
    ("nemotron4-340b-tp8", 18432, 9216, 12, 1, 192, 4096, False),
]


def gemms(h, ffn, heads, kv, hd, t, gated):
    """(m, n, k, kind) of the layer's GEMMs in run order: kind 0 forward, 1 data-gradient,
    2 weight-gradient; C (m x n) = A (m x k) B (k x n)."""
    lin = [("qkv", h, (heads + 2 * kv) * hd), ("proj", heads * hd, h), ("fc1", h, (2 if gated else 1) * ffn),
           ("fc2", ffn, h)]
    fwd = [(t, o, i, 0) for _, i, o in lin]
    bwd = []
    for _, i, o in reversed(lin):
        bwd += [(t, i, o, 1), (i, o, t, 2)]
    return fwd + bwd


def runner(shapes, fp8, dev, hybrid=True):
    one = torch.ones((), device=dev, dtype=torch.float32)
    calls = []
    for m, n, k, kind in shapes:
        a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, k, device=dev, dtype=torch.bfloat16)  # row-major n x k: b.t() is k x n
        if not fp8:
            bt = b.t()
            calls.append(lambda a=a, bt=bt: torch.matmul(a, bt))
            continue
        fa = torch.float8_e5m2 if hybrid and kind == 1 else torch.float8_e4m3fn  # dgrad: the gradient first
        fb = torch.float8_e5m2 if hybrid and kind == 2 else torch.float8_e4m3fn  # wgrad: the gradient second
        a8, b8t = a.to(fa), b.to(fb).t()
        fast = kind == 0
        calls.append(lambda a8=a8, b8t=b8t, fast=fast: torch._scaled_mm(
            a8, b8t, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=fast))
    return calls


def main():
    ap = parser(120)
    args = ap.parse_args()
    dev = torch.device("cuda")
    path = out_path(args, "fp8_layer_gemms")
    each = open(out_path(args, "fp8_layer_gemms_each"), "w")
    each.write(header("fp8_layer_gemms.py") + "name,gemm,m,n,k,kind,bf16_us,fp8_us,fp8_e4m3_us\n")
    t0 = time.time()
    with open(path, "w") as f:
        f.write(header("fp8_layer_gemms.py"))
        f.write("name,dtype,seq_us,sum_us\n")
        for name, h, ffn, heads, kv, hd, t, gated in LAYERS:
            for fp8 in (False, True):
                if time.time() - t0 > args.budget_s:
                    f.write("# %s: not run, past the time budget\n" % name)
                    continue
                try:
                    calls = runner(gemms(h, ffn, heads, kv, hd, t, gated), fp8, dev)

                    def seq(calls=calls):
                        for c in calls:
                            c()
                    s = time_us(seq, reps=9, warmup=3)
                    alone = sum(time_us(c, reps=9, warmup=3) for c in calls)
                    f.write("%s,%s,%.1f,%.1f\n" % (name, "fp8" if fp8 else "bf16", s, alone))
                    f.flush()
                    del calls
                    torch.cuda.empty_cache()
                except Exception as e:  # noqa: BLE001
                    f.write("# %s %s: %s\n" % (name, fp8, str(e).splitlines()[0][:200]))
            try:
                shapes = gemms(h, ffn, heads, kv, hd, t, gated)
                cols = [runner(shapes, False, dev), runner(shapes, True, dev), runner(shapes, True, dev, False)]
                for i, (m, n, k, kind) in enumerate(shapes):
                    us = [time_us(c[i], reps=9, warmup=3) for c in cols]
                    each.write("%s,%d,%d,%d,%d,%d,%.1f,%.1f,%.1f\n" % ((name, i, m, n, k, kind) + tuple(us)))
                each.flush()
                del cols
                torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001
                each.write("# %s: %s\n" % (name, str(e).splitlines()[0][:200]))
    each.close()
    print(open(path).read(), end="")
    print("fp8_layer_gemms: %.0f s" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
