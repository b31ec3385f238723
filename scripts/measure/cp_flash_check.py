#!/usr/bin/env python3
"""cp_flash_check.py - FlashAttention-2's ring-step kernels at long context.

Context parallelism's load-balanced ring (PyTorch's context_parallel, which
torchtitan runs; Transformer Engine's P2P ring) splits a rank's attention into
one causal S x S kernel and cp - 1 unmasked ones of S x S/2 or S/2 x S (queries
x keys). This times those kernels on the flash backend of
torch.nn.functional.scaled_dot_product_attention (FlashAttention-2), bf16, batch 1,
head dim 128, at S = 32768 (every torchtitan CP row of the 2024-12 benchmarks
holds 32K tokens a rank) and, to tie them to the measured tables, at S = 16384,
with 32 and 16 heads (Llama 3.1 8B; 405B at TP 8). Writes
<dev>_cp_flash_check.csv under --out:
  heads,q,kv,causal,fwd_us,bwd_us,fwd_tflops,bwd_tflops
bwd_us = (forward + backward) - forward; FLOPs 4 q kv d heads (x 2.5 backward, x 1/2
causal at q = kv). Medians of CUDA-event timings after warm-up. Nothing is fitted
to training runs; not read by weft (scripts/measure/check.py cp reads it).

  python3 scripts/measure/cp_flash_check.py --out DIR [--device-name h100] [--budget-s 120]
"""
import sys
import time

import torch
import torch.nn.functional as F

from cuda_timing import header, out_path, parser, time_us  # scripts/measure/, the running script's folder

D = 128


def main():
    ap = parser(120.0)
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dev = torch.device("cuda")
    path = out_path(args, "cp_flash_check")
    t0 = time.time()
    cases = []
    for heads in (32, 16):
        for s in (32768, 16384):
            cases += [(heads, s, s, 1), (heads, s, s // 2, 0), (heads, s // 2, s, 0)]
        cases.append((heads, 16384, 16384, 0))
    with open(path, "w") as f:
        f.write(header("cp_flash_check.py"))
        f.write("heads,q,kv,causal,fwd_us,bwd_us,fwd_tflops,bwd_tflops\n")
        for heads, q, kv, causal in cases:
            if time.time() - t0 > args.budget_s:
                f.write("# %d %d %d %d: not run, past the time budget\n" % (heads, q, kv, causal))
                continue
            try:
                qq = torch.randn(1, heads, q, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
                kk = torch.randn(1, heads, kv, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
                vv = torch.randn(1, heads, kv, D, device=dev, dtype=torch.bfloat16, requires_grad=True)
                go = torch.randn(1, heads, q, D, device=dev, dtype=torch.bfloat16)
                with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                    def fwd():
                        with torch.no_grad():
                            F.scaled_dot_product_attention(qq, kk, vv, is_causal=bool(causal))

                    def both():
                        qq.grad = kk.grad = vv.grad = None
                        F.scaled_dot_product_attention(qq, kk, vv, is_causal=bool(causal)).backward(go)
                    tf = time_us(fwd, reps=5)
                    tb = time_us(both, reps=5) - tf
                fl = 4.0 * q * kv * D * heads * (0.5 if causal else 1.0)
                f.write("%d,%d,%d,%d,%.1f,%.1f,%.1f,%.1f\n" % (heads, q, kv, causal, tf, tb, fl / tf / 1e6,
                                                              2.5 * fl / tb / 1e6))
                f.flush()
                del qq, kk, vv, go
                torch.cuda.empty_cache()
            except Exception as e:  # noqa: BLE001
                f.write("# %d %d %d %d: %s\n" % (heads, q, kv, causal, str(e).splitlines()[0][:200]))
                f.flush()
    print(open(path).read(), end="")
    print("cp_flash_check: %.0f s" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
