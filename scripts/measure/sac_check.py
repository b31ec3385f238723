#!/usr/bin/env python3
"""sac_check.py - what torchtitan's per-op selective activation checkpointing costs.

Times one Llama-family layer as torchtitan builds it (RMSNorm, separate wq, wk, wv,
rotary on Q and K, causal SDPA on the flash backend, wo, residual, RMSNorm, w1, w3,
SiLU gate, w2, residual; bf16, no bias) forward and backward on one GPU, three ways:

  none  no checkpointing
  op    torchtitan's op policy (torchtitan/parallelisms/parallelize_llama.py @9dec370,
        _apply_ac_to_transformer_block, selective_ac_option "op"): every matmul's and
        SDPA's output saved except every second matmul of the layer's forward
  full  the whole layer recomputed (torch.utils.checkpoint, non-reentrant)

eager, and under torch.compile for the shapes marked so (--no-compile: none). Writes
<dev>_sac_check.csv under --out:
  name,hidden,ffn,heads,kv_heads,seq,batch,mode,compiled,fwd_us,fwdbwd_us,saved_mib,recomputed_mm
fwdbwd_us - the same shape's "none" row is what the policy runs again; saved_mib the
memory a forward keeps for its backward; recomputed_mm the matmuls the policy ran again
in the backward (eager: counted in the policy; a saved
matmul met again returns its cached output). Times are medians of CUDA-event timings
after warm-up. Nothing is fitted to training runs.

  python3 scripts/measure/sac_check.py --out DIR [--device-name h100] [--budget-s 240]
"""
import subprocess
import sys
import time
from collections import defaultdict

import torch
import torch.nn.functional as F

from cuda_timing import header, out_path, parser, time_us  # scripts/measure/, the running script's folder

SHAPES = [  # name, hidden, ffn, heads, kv_heads, seq, batch, compile too
    ("llama3-8b", 4096, 14336, 32, 8, 8192, 2, True),
    ("llama3-8b", 4096, 14336, 32, 8, 8192, 1, True),
    ("llama3-70b", 8192, 28672, 64, 8, 4096, 1, True),
]


def make_layer(h, ffn, heads, kv, seq, b, dev):
    hd = h // heads
    dt = torch.bfloat16

    def P(*s):
        return (torch.randn(*s, device=dev, dtype=dt) * 0.02).requires_grad_(True)
    w = {"wq": P(h, heads * hd), "wk": P(h, kv * hd), "wv": P(h, kv * hd), "wo": P(heads * hd, h),
         "w1": P(h, ffn), "w3": P(h, ffn), "w2": P(ffn, h),
         "n1": torch.ones(h, device=dev, dtype=dt, requires_grad=True),
         "n2": torch.ones(h, device=dev, dtype=dt, requires_grad=True)}
    pos = torch.arange(seq, device=dev, dtype=torch.float32)
    inv = 1.0 / (500000.0 ** (torch.arange(0, hd, 2, device=dev, dtype=torch.float32) / hd))
    ang = torch.outer(pos, inv)
    cos, sin = ang.cos().to(dt), ang.sin().to(dt)  # seq x hd/2

    def rope(t):  # t: b, seq, n, hd; rotate the two halves (pointwise, as torchtitan's complex product)
        t1, t2 = t[..., : hd // 2], t[..., hd // 2:]
        c, s = cos[None, :, None, :], sin[None, :, None, :]
        return torch.cat([t1 * c - t2 * s, t1 * s + t2 * c], -1)

    def layer(x):  # x: b*seq, h
        y = F.rms_norm(x, (h,), w["n1"])
        q = (y @ w["wq"]).view(b, seq, heads, hd)
        k = (y @ w["wk"]).view(b, seq, kv, hd)
        v = (y @ w["wv"]).view(b, seq, kv, hd)
        q, k = rope(q), rope(k)
        q, k, v = q.transpose(1, 2), k.transpose(1, 2), v.transpose(1, 2)
        k = k.repeat_interleave(heads // kv, 1)
        v = v.repeat_interleave(heads // kv, 1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        a = a.transpose(1, 2).reshape(b * seq, heads * hd)
        x2 = x + a @ w["wo"]
        y2 = F.rms_norm(x2, (h,), w["n2"])
        return x2 + (F.silu(y2 @ w["w1"]) * (y2 @ w["w3"])) @ w["w2"]
    return layer, list(w.values())


SAVE = {torch.ops.aten.mm.default,
        torch.ops.aten._scaled_dot_product_efficient_attention.default,
        torch.ops.aten._scaled_dot_product_flash_attention.default}
RECOMPUTED = defaultdict(int)


def op_context():
    from torch.utils.checkpoint import CheckpointPolicy, create_selective_checkpoint_contexts
    meta = defaultdict(int)

    def policy(ctx, func, *args, **kwargs):
        mode = "recompute" if ctx.is_recompute else "forward"
        if func == torch.ops.aten.mm.default:
            meta[mode] += 1
        save = func in SAVE and not (func == torch.ops.aten.mm.default and meta[mode] % 2 == 0)
        if ctx.is_recompute and func == torch.ops.aten.mm.default and not save:
            RECOMPUTED["mm"] += 1  # run again (a saved one's output comes from the cache)
        return CheckpointPolicy.MUST_SAVE if save else CheckpointPolicy.PREFER_RECOMPUTE
    return create_selective_checkpoint_contexts(policy)


def wrapped(layer, mode):
    from torch.utils.checkpoint import checkpoint
    if mode == "none":
        return layer
    if mode == "full":
        return lambda x: checkpoint(layer, x, use_reentrant=False)
    return lambda x: checkpoint(layer, x, use_reentrant=False, context_fn=op_context)


def main():
    ap = parser(240.0)
    ap.add_argument("--no-compile", action="store_true")
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dev = torch.device("cuda")
    path = out_path(args, "sac_check")
    t0 = time.time()
    try:
        smi = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
                              "--format=csv,noheader"], capture_output=True, text=True).stdout.strip()
    except OSError:
        smi = "?"
    with open(path, "w") as f:
        f.write(header("sac_check.py") + "# nvidia-smi driver,max sm MHz,power limit: %s\n" % smi)
        f.write("name,hidden,ffn,heads,kv_heads,seq,batch,mode,compiled,fwd_us,fwdbwd_us,saved_mib,recomputed_mm\n")
        for name, h, ffn, heads, kv, seq, b, comp in SHAPES:
            for compiled in ([False, True] if comp and not args.no_compile else [False]):
                for mode in ("none", "op", "full"):
                    if time.time() - t0 > args.budget_s:
                        f.write("# %s %s compiled=%d: not run, past the time budget\n" % (name, mode, compiled))
                        continue
                    try:
                        torch.manual_seed(0)
                        layer, params = make_layer(h, ffn, heads, kv, seq, b, dev)
                        fn = wrapped(layer, mode)
                        if compiled:
                            torch._dynamo.reset()
                            fn = torch.compile(fn)
                        x = torch.randn(b * seq, h, device=dev, dtype=torch.bfloat16, requires_grad=True)
                        go = torch.randn(b * seq, h, device=dev, dtype=torch.bfloat16)
                        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
                            def fwd():
                                with torch.no_grad():
                                    fn(x)

                            def both():
                                for p in params + [x]:
                                    p.grad = None
                                fn(x).backward(go)
                            both()
                            torch.cuda.synchronize()
                            m0 = torch.cuda.memory_allocated()
                            out = fn(x)
                            torch.cuda.synchronize()
                            saved = (torch.cuda.memory_allocated() - m0 - out.numel() * out.element_size()) / 2**20
                            out.backward(go)
                            del out
                            RECOMPUTED.clear()
                            for p in params + [x]:
                                p.grad = None
                            fn(x).backward(go)
                            rmm = RECOMPUTED["mm"] if not compiled else ""
                            tf = time_us(fwd, warmup=3)
                            tb = time_us(both, warmup=3)
                        f.write("%s,%d,%d,%d,%d,%d,%d,%s,%d,%.1f,%.1f,%.1f,%s\n" %
                                (name, h, ffn, heads, kv, seq, b, mode, compiled, tf, tb, saved, rmm))
                        f.flush()
                        del fn, layer, params, x, go
                        torch.cuda.empty_cache()
                    except Exception as e:  # noqa: BLE001
                        f.write("# %s %s compiled=%d: %s\n" % (name, mode, compiled, str(e).splitlines()[0][:200]))
                        f.flush()
    print(open(path).read(), end="")
    print("sac_check: %.0f s" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
