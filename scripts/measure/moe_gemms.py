#!/usr/bin/env python3
"""moe_gemms.py - the experts' GEMMs of the zoo's MoE models, alone and in groups.

measure.py's GEMM table holds the dense layers' shapes; an expert's GEMMs are narrower
(Qwen3-30B-A3B: 2048 x 768) and run on fewer tokens, so weft reads them from neighbours
far away. This measures them the way measure.py measures its table (the same Timer: a
CUDA graph of repeated calls, replayed; operands warm; BF16 torch.matmul, FP8
torch._scaled_mm e4m3 with per-tensor scales, fp8_fast on forward rows) and writes
rows in the table's format, labelled "<model> expert <fc1|fc2> t<tokens> <pass>":

  <dev>_moe_gemm.csv           label,dtype,m,n,k,time_us,tflops

It then times the experts of one rank as they run side by side, G experts of the same
shape on their own operands, four ways:

  <dev>_moe_grouped_check.csv  model,dtype,op,groups,m,n,k,single_us,seq_us,streams4_us,grouped_us

single_us one GEMM alone; seq_us the G GEMMs one after another on one stream (a CUDA
graph); streams4_us the G GEMMs round-robin on four streams (Transformer Engine's
GroupedLinear: cuBLAS on NVTE_NUM_STREAMS, 4 by default), eager, timed on the joining
stream; grouped_us one grouped kernel (torch._grouped_mm, BF16; torch._scaled_grouped_mm,
FP8, where this torch has them), empty where it cannot run. Nothing here is fitted to
training runs.

  python3 scripts/measure/moe_gemms.py --out DIR [--device-name h100] [--budget-s 150]
"""
import os
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_timing import header, out_path, parser, time_us  # noqa: E402
from measure import Timer  # noqa: E402  (the table's own timer)

# name, hidden, an expert's width on one GPU (its ffn_hidden / etp), gated; the zoo's
# MoE models (data/zoo/models/*.yml) with the etp their validation rows run.
EXPERTS = [
    ("qwen3-30b-a3b", 2048, 768, True),
    ("qwen3-235b-a22b", 4096, 1536, True),
    ("gpt-oss", 2880, 2880, True),
    ("deepseek-v3", 7168, 2048, True),          # Kimi K2's experts too
    ("llama4-maverick-etp4", 5120, 2048, True),  # 8192 / etp 4
    ("grok-1-etp4", 6144, 8192, True),           # 32768 / etp 4
    ("mixtral-8x7b", 4096, 14336, True),
]
TOKENS = [256, 512, 1024, 2048, 4096, 8192, 16384]
# (model, experts side by side on a rank) for the grouped check: the validation rows'
# E / ep (Qwen3-30B-A3B EP 8 and 16, Qwen3-235B EP 32, GPT-OSS 120B EP 8 and 20B EP 8,
# DeepSeek-V3 EP 64, Kimi K2 EP 32, Grok-1 EP 2).
GROUPS = [("qwen3-30b-a3b", 16), ("qwen3-30b-a3b", 8), ("qwen3-235b-a22b", 4), ("gpt-oss", 16),
          ("gpt-oss", 4), ("deepseek-v3", 4), ("deepseek-v3", 12), ("grok-1-etp4", 4)]
GROUP_TOKENS = [512, 2048, 8192]


def shapes():
    out = []
    for name, h, f, gated in EXPERTS:
        ops = [("fc1", (2 if gated else 1) * f, h), ("fc2", h, f)]
        for t in TOKENS:
            for op, o, i in ops:
                lab = "%s expert %s t%d" % (name, op, t)
                out += [(lab + " fwd", t, o, i), (lab + " dgrad", t, i, o), (lab + " wgrad", i, o, t)]
    return out


def table(args, dev, timer, deadline):
    one = torch.ones((), device=dev, dtype=torch.float32)
    done = 0
    all_shapes = shapes()
    with open(out_path(args, "moe_gemm"), "w") as f:
        f.write(header("moe_gemms.py"))
        f.write("label,dtype,m,n,k,time_us,tflops\n")
        for lab, m, n, k in all_shapes:
            if time.time() > deadline:
                f.write("# stopped at the time budget after %d of %d shapes\n" % (done, len(all_shapes)))
                break
            try:
                a = torch.randn(m, k, device=dev, dtype=torch.bfloat16)
                b = torch.randn(k, n, device=dev, dtype=torch.bfloat16)
                rows = [("bf16", timer.graph_us(lambda: torch.matmul(a, b)))]
                a8 = a.to(torch.float8_e4m3fn)
                b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()   # column-major, as cuBLASLt wants
                rows.append(("fp8", timer.graph_us(lambda: torch._scaled_mm(
                    a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))))
                if lab.endswith("fwd"):
                    rows.append(("fp8_fast", timer.graph_us(lambda: torch._scaled_mm(
                        a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True))))
                for dt, us in rows:
                    f.write("%s,%s,%d,%d,%d,%.3f,%.2f\n" % (lab, dt, m, n, k, us, 2e-6 * m * n * k / us))
                del a, b, a8, b8
            except Exception as e:  # noqa: BLE001 - one shape must not end the run
                f.write("# %s: %s\n" % (lab, str(e).splitlines()[0][:200]))
            done += 1
            if done % 50 == 0:
                f.flush()
                print("moe gemm %d/%d" % (done, len(all_shapes)), flush=True)


def grouped(args, dev, timer, deadline):
    one = torch.ones((), device=dev, dtype=torch.float32)
    streams = [torch.cuda.Stream() for _ in range(4)]
    dims = {name: (h, f) for name, h, f, _ in EXPERTS}
    with open(out_path(args, "moe_grouped_check"), "w") as f:
        f.write(header("moe_gemms.py"))
        f.write("model,dtype,op,groups,m,n,k,single_us,seq_us,streams4_us,grouped_us\n")
        for name, g in GROUPS:
            h, w = dims[name]
            for t in GROUP_TOKENS:
                for op, n, k in (("fc1", 2 * w, h), ("fc2", h, w)):
                    for dt in ("bf16", "fp8"):
                        if time.time() > deadline:
                            f.write("# stopped at the time budget\n")
                            return
                        try:
                            a = [torch.randn(t, k, device=dev, dtype=torch.bfloat16) for _ in range(g)]
                            b = [torch.randn(k, n, device=dev, dtype=torch.bfloat16) for _ in range(g)]
                            if dt == "bf16":
                                calls = [lambda x=x, y=y: torch.matmul(x, y) for x, y in zip(a, b)]
                            else:
                                a8 = [x.to(torch.float8_e4m3fn) for x in a]
                                b8 = [y.t().contiguous().to(torch.float8_e4m3fn).t() for y in b]
                                calls = [lambda x=x, y=y: torch._scaled_mm(
                                    x, y, scale_a=one, scale_b=one, out_dtype=torch.bfloat16, use_fast_accum=True)
                                    for x, y in zip(a8, b8)]
                            single = timer.graph_us(calls[0])

                            def seq():
                                for c in calls:
                                    c()
                            seq_us = timer.graph_us(seq)

                            def multi():
                                cur = torch.cuda.current_stream()
                                for s in streams:
                                    s.wait_stream(cur)
                                for i, c in enumerate(calls):
                                    with torch.cuda.stream(streams[i % 4]):
                                        c()
                                for s in streams:
                                    cur.wait_stream(s)
                            st_us = time_us(multi, reps=9, warmup=3)
                            gr_us = ""
                            try:
                                offs = torch.arange(1, g + 1, device=dev, dtype=torch.int32) * t
                                if dt == "bf16" and hasattr(torch, "_grouped_mm"):
                                    A = torch.cat(a)
                                    B = torch.stack(b)
                                    gr_us = "%.1f" % timer.graph_us(lambda: torch._grouped_mm(A, B, offs=offs))
                                elif dt == "fp8" and hasattr(torch, "_scaled_grouped_mm"):
                                    A8 = torch.cat(a).to(torch.float8_e4m3fn)
                                    B8 = torch.stack(b).transpose(-2, -1).contiguous().to(
                                        torch.float8_e4m3fn).transpose(-2, -1)   # column-major
                                    sa = torch.ones(g * t, device=dev, dtype=torch.float32)
                                    sb = torch.ones(g, n, device=dev, dtype=torch.float32)
                                    gr_us = "%.1f" % timer.graph_us(lambda: torch._scaled_grouped_mm(
                                        A8, B8, sa, sb, offs=offs, out_dtype=torch.bfloat16, use_fast_accum=True))
                            except Exception as e:  # noqa: BLE001 - an optional column
                                f.write("# grouped %s %s %s t%d: %s\n" % (name, dt, op, t, str(e).splitlines()[0][:160]))
                            f.write("%s,%s,%s,%d,%d,%d,%d,%.1f,%.1f,%.1f,%s\n" % (
                                name, dt, op, g, t, n, k, single, seq_us, st_us, gr_us))
                            f.flush()
                            del a, b, calls
                        except Exception as e:  # noqa: BLE001
                            f.write("# %s %s %s g%d t%d: %s\n" % (name, dt, op, g, t, str(e).splitlines()[0][:200]))
                torch.cuda.empty_cache()


def main():
    args = parser(150).parse_args()
    dev = torch.device("cuda")
    timer = Timer(dev)
    t0 = time.time()
    table(args, dev, timer, t0 + 0.6 * args.budget_s)
    print("moe table: %.0f s" % (time.time() - t0), flush=True)
    grouped(args, dev, timer, t0 + args.budget_s)
    print("moe_gemms: %.0f s" % (time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
