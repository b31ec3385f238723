#!/usr/bin/env python3
"""flex_attention.py - PyTorch's FlexAttention against FlashAttention-2 at training shapes.

weft prices `--attention flex` as FlashAttention-2's measured rows over a speed-up its
authors published as an average (docs/zoo.md, "FlexAttention"). This times FlexAttention
itself, forward and backward, at GPT-OSS's shapes (64 query heads of 64, 8 key/value
groups; causal, and the 128-token sliding window of alternate layers) and at a Llama-like
shape (32 heads of 128, 8 groups), beside scaled_dot_product_attention's flash
(FlashAttention-2) and cuDNN kernels on the same causal shapes (key/value heads repeated
to the query heads). FlexAttention runs as NeMo AutoModel runs it
(components/attention/flex_attention.py: torch.compile(flex_attention,
mode="max-autotune-no-cudagraphs"), a block mask built once, enable_gqa; with sinks,
return_lse and the output scaled by sigmoid(lse - sink)) and with torch.compile's default
mode. Writes

  <dev>_flex_attention.csv  impl,batch,heads,kv_heads,seq,head_dim,mask,window,pairs,pass,time_us

pairs the (query, key) pairs the mask keeps per batch and head; bwd = (forward +
backward) - forward, as measure.py's attention table. Nothing here is fitted to training
runs.

  python3 scripts/measure/flex_attention.py --out DIR [--device-name h100] [--budget-s 240]
"""
import os
import sys
import time

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from cuda_timing import header, out_path, parser, time_us  # noqa: E402

# name, batch, heads, kv heads, head dim, seq, windows to run (0 = causal)
SHAPES = [
    ("gpt-oss", 2, 64, 8, 64, 4096, (0, 128)),
    ("llama", 2, 32, 8, 128, 4096, (0,)),
    ("gpt-oss", 1, 64, 8, 64, 8192, (0, 128)),
    ("gpt-oss", 4, 64, 8, 64, 2048, (0, 128)),
    ("llama", 1, 32, 8, 128, 8192, (0,)),
]


def pairs(s, w):
    """(query, key) pairs a causal mask of window w (0: none) keeps in an s x s block."""
    if w <= 0 or w >= s:
        return s * (s + 1) // 2
    return s * w - w * (w - 1) // 2


def mask_mod(w):
    """Causal, within a window of w tokens when w > 0 (AutoModel's sliding_mod)."""
    if w:
        return lambda b, h, qi, ki: (ki <= qi) & (qi - ki < w)
    return lambda b, h, qi, ki: ki <= qi


def with_lse(fa, q, k, v, bm):
    """The output and its log-sum-exp (return_lse, or return_aux where torch has it)."""
    try:
        from torch.nn.attention.flex_attention import AuxRequest
        o, aux = fa(q, k, v, block_mask=bm, enable_gqa=True, return_aux=AuxRequest(lse=True))
        return o, aux.lse
    except ImportError:
        return fa(q, k, v, block_mask=bm, enable_gqa=True, return_lse=True)


def main():
    args = parser(240).parse_args()
    dev = torch.device("cuda")
    t0 = time.time()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    for attr in ("cache_size_limit", "recompile_limit", "accumulated_cache_size_limit",
                 "accumulated_recompile_limit"):
        if hasattr(torch._dynamo.config, attr):
            setattr(torch._dynamo.config, attr, 256)
    compiled = {"flex": torch.compile(flex_attention, dynamic=False),
                "flex_autotune": torch.compile(flex_attention, mode="max-autotune-no-cudagraphs",
                                               dynamic=False)}
    f = open(out_path(args, "flex_attention"), "w")
    f.write(header("flex_attention.py"))
    f.write("impl,batch,heads,kv_heads,seq,head_dim,mask,window,pairs,pass,time_us\n")

    def row(impl, b, h, kv, s, d, w, tf, tb):
        for ps, us in (("fwd", tf), ("bwd", tb)):
            f.write("%s,%d,%d,%d,%d,%d,%s,%d,%d,%s,%.1f\n" % (
                impl, b, h, kv, s, d, "window" if w else "causal", w, pairs(s, w), ps, us))
        f.flush()
        print("%-14s b%d h%d s%d d%d w%-4d fwd %8.1f us  bwd %8.1f us  (%.0f s)" % (
            impl, b, h, s, d, w, tf, tb, time.time() - t0), flush=True)

    for name, b, h, kv, d, s, windows in SHAPES:
        q = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        k = torch.randn(b, kv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        v = torch.randn(b, kv, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
        go = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16)
        sink = torch.randn(h, device=dev, dtype=torch.float32, requires_grad=True)
        for w in windows:
            bm = create_block_mask(mask_mod(w), None, None, s, s, device=dev)
            impls = [("flex", False), ("flex_autotune", False)]
            if name == "gpt-oss":
                impls.append(("flex_autotune", True))
            for impl, sinks in impls:
                if time.time() - t0 > args.budget_s:
                    f.write("# %s b%d s%d w%d %s: not run, past the time budget\n" % (name, b, s, w, impl))
                    continue
                fa = compiled[impl]

                def fwd(fa=fa, sinks=sinks):
                    if not sinks:
                        return fa(q, k, v, block_mask=bm, enable_gqa=True)
                    o, lse = with_lse(fa, q, k, v, bm)
                    return (o * torch.sigmoid(lse - sink.view(1, -1, 1)).unsqueeze(-1)).to(q.dtype)

                def both(fwd=fwd):
                    fwd().backward(go)
                try:
                    both()                       # compile forward and backward first
                    tf = time_us(fwd, reps=9, warmup=3)
                    tb = time_us(both, reps=9, warmup=3) - tf
                    row(impl + ("_sinks" if sinks else ""), b, h, kv, s, d, w, tf, tb)
                except Exception as e:  # noqa: BLE001 - record and go on
                    f.write("# %s %s b%d s%d w%d: %s\n" % (impl, name, b, s, w, str(e).splitlines()[0][:200]))
                    print("failed:", impl, name, s, w, str(e)[:300], flush=True)
            if w == 0:
                kf = k.detach().repeat_interleave(h // kv, 1).requires_grad_(True)
                vf = v.detach().repeat_interleave(h // kv, 1).requires_grad_(True)
                for impl, be in (("sdpa_flash", SDPBackend.FLASH_ATTENTION), ("sdpa_cudnn", SDPBackend.CUDNN_ATTENTION)):
                    try:
                        with sdpa_kernel(be):
                            fwd = lambda: F.scaled_dot_product_attention(q, kf, vf, is_causal=True)  # noqa: E731

                            def both():
                                F.scaled_dot_product_attention(q, kf, vf, is_causal=True).backward(go)
                            tf = time_us(fwd, reps=9, warmup=3)
                            tb = time_us(both, reps=9, warmup=3) - tf
                        row(impl, b, h, kv, s, d, 0, tf, tb)
                    except Exception as e:  # noqa: BLE001
                        f.write("# %s %s b%d s%d: %s\n" % (impl, name, b, s, str(e).splitlines()[0][:200]))
                del kf, vf
        del q, k, v, go
        torch.cuda.empty_cache()
    f.close()
    print("flex_attention: %.0f s" % (time.time() - t0), flush=True)


if __name__ == "__main__":
    main()
