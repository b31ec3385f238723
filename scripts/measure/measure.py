#!/usr/bin/env python3
"""measure.py - measure a GPU's kernel rates for weft's compute model.

Writes CSV tables (format: docs/zoo.md, "Measured kernel tables") under --out:
  <dev>_gemm.csv       GEMM time by shape, BF16 (torch.matmul) and FP8 (torch._scaled_mm)
  <dev>_attention.csv  fused attention (scaled_dot_product_attention) forward and backward
  <dev>_memory.csv     memory-bound ops as achieved bytes/s
  <dev>_launch.csv     per-kernel launch cost, eager and CUDA-graph replay
  <dev>_layer.csv      one transformer layer's shard, forward and backward, plain PyTorch

Times are medians of several timed repetitions after warm-up, by CUDA events. GEMMs are
timed as GPU time: a CUDA graph of repeated calls, replayed; by default each call reads the
same operands (warm in the L2), with --gemm-cold-mb N the calls cycle through operand sets
filling N MB (out of the L2, as a layer's GEMMs read theirs: docs/zoo.md, "FP8 GEMMs in a
layer"; added 2026-11-27, not yet run on a GPU). Nothing here is fitted to training runs;
weft reads the tables as measurements of the device.

  python3 scripts/measure/measure.py --out DIR [--device-name h100] [--budget-s 420]
                                     [--only gemm] [--gemm-cold-mb 256]
  python3 scripts/measure/measure.py --smoke --out DIR   # tiny shapes on the CPU (a check)
"""
import argparse
import csv
import datetime
import itertools
import math
import os
import statistics
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

if not hasattr(F, "rms_norm"):          # PyTorch < 2.4 (the CPU smoke test on Debian's 1.13)
    def _rms_norm(x, shape, weight=None, eps=1e-6):
        y = x * torch.rsqrt(x.pow(2).mean(-1, keepdim=True) + eps)
        return y * weight if weight is not None else y
    F.rms_norm = _rms_norm
if not hasattr(F, "scaled_dot_product_attention"):    # PyTorch < 2.0, likewise
    def _sdpa(q, k, v, is_causal=False):
        a = (q @ k.transpose(-1, -2)) / math.sqrt(q.shape[-1])
        if is_causal:
            s = q.shape[-2]
            a = a.masked_fill(torch.ones(s, s, dtype=torch.bool, device=q.device).triu(1), float("-inf"))
        return torch.softmax(a, -1) @ v
    F.scaled_dot_product_attention = _sdpa

# Transformer shapes of weft's zoo and of the validation runs (hidden, ffn, heads,
# kv_heads, head_dim, vocab, gated FFN).
MODELS = [
    ("gpt-2.3b", 2304, 9216, 24, 24, 96, 51200, False),
    ("llama3-8b", 4096, 14336, 32, 8, 128, 128256, True),
    ("nemotron4-15b", 6144, 24576, 48, 8, 128, 256000, False),
    ("llama3-70b", 8192, 28672, 64, 8, 128, 128256, True),
    ("gpt3-175b", 12288, 49152, 96, 96, 128, 51200, False),
    ("llama3-405b", 16384, 53248, 128, 8, 128, 128256, True),
]


class Timer:
    """Medians by CUDA events (or wall clock on the CPU)."""

    def __init__(self, dev):
        self.dev = dev
        self.cuda = dev.type == "cuda"
        self.warned = False

    def sync(self):
        if self.cuda:
            torch.cuda.synchronize()

    def time_us(self, fn, reps=5, inner=1):
        """Median over `reps` of the time of `inner` back-to-back calls, per call."""
        fn()
        fn()
        self.sync()
        out = []
        for _ in range(reps):
            if self.cuda:
                a = torch.cuda.Event(enable_timing=True)
                b = torch.cuda.Event(enable_timing=True)
                a.record()
                for _ in range(inner):
                    fn()
                b.record()
                b.synchronize()
                out.append(a.elapsed_time(b) * 1e3 / inner)
            else:
                t = time.perf_counter()
                for _ in range(inner):
                    fn()
                out.append((time.perf_counter() - t) * 1e6 / inner)
        return statistics.median(out)

    def graph_us(self, fn, reps=5):
        """GPU time per call: a CUDA graph of n calls (n chosen for >= ~2 ms), replayed."""
        if not self.cuda:
            return self.time_us(fn, reps)
        est = self.time_us(fn, reps=3)
        n = max(1, min(200, int(math.ceil(2000.0 / max(est, 1.0)))))
        try:
            s = torch.cuda.Stream()
            s.wait_stream(torch.cuda.current_stream())
            with torch.cuda.stream(s):
                for _ in range(2):
                    fn()
            torch.cuda.current_stream().wait_stream(s)
            g = torch.cuda.CUDAGraph()
            with torch.cuda.graph(g):
                for _ in range(n):
                    fn()
        except RuntimeError as e:       # no graph: back-to-back eager calls instead
            if not self.warned:
                print("graph capture failed, timing eager calls: %s" % str(e).splitlines()[0][:200])
                self.warned = True
            torch.cuda.synchronize()
            return self.time_us(fn, reps=reps, inner=n)
        t = self.time_us(g.replay, reps=reps) / n
        del g
        return t


def header(f, dev_name, args):
    info = {"script": "scripts/measure/measure.py", "date": datetime.datetime.now(datetime.timezone.utc).isoformat(),
            "torch": torch.__version__, "cuda": str(torch.version.cuda)}
    if torch.cuda.is_available() and not args.smoke:
        p = torch.cuda.get_device_properties(0)
        info["device"] = "%s, %d SMs, %.1f GiB" % (p.name, p.multi_processor_count, p.total_memory / 2**30)
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,clocks.max.mem,power.limit",
                                "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
            info["nvidia-smi driver,max sm MHz,max mem MHz,power limit"] = q.stdout.strip()
        except Exception as e:  # noqa: BLE001 - a header field, not a measurement
            info["nvidia-smi"] = "unavailable: %s" % e
    else:
        info["device"] = "CPU smoke test (tiny shapes; not a measurement)"
    info["weft device"] = dev_name
    for k, v in info.items():
        f.write("# %s: %s\n" % (k, v))


def open_csv(args, name, cols):
    path = os.path.join(args.out, "%s_%s.csv" % (args.device_name, name))
    f = open(path, "w", newline="")
    header(f, args.device_name, args)
    w = csv.writer(f)
    w.writerow(cols)
    return f, w


def gemm_shapes(args):
    """(label, m, n, k) for every zoo GEMM at TP 1..8, tokens 1k..32k, three passes."""
    shapes = []
    tokens = [1024, 4096, 16384] if not args.smoke else [32]
    tps = [1, 2, 4, 8] if not args.smoke else [1]
    models = MODELS if not args.smoke else [("tiny", 64, 128, 4, 2, 16, 256, True)]
    for name, h, ffn, heads, kv, hd, vocab, gated in models:
        for tp in tps:
            if heads % tp or kv % tp and kv >= tp:
                continue
            qkv = (heads + 2 * max(kv // tp, 1) * tp) * hd // tp
            attn = heads * hd // tp
            ops = [("qkv", qkv, h), ("proj", h, attn), ("mlp_up", (2 if gated else 1) * ffn // tp, h),
                   ("mlp_down", h, ffn // tp)]
            if tp in (1, 8):
                ops.append(("logits", -(-vocab // tp // 128) * 128, h))
            for t in tokens:
                for op, out, inp in ops:
                    lab = "%s tp%d %s t%d" % (name, tp, op, t)
                    shapes.append((lab + " fwd", t, out, inp))
                    shapes.append((lab + " dgrad", t, inp, out))
                    shapes.append((lab + " wgrad", inp, out, t))
    sq = [256, 512, 1024, 2048, 4096, 8192, 16384] if not args.smoke else [32, 64]
    # Squares first, then the zoo's shapes in a fixed shuffled order, so that a run cut
    # short by the time budget keeps an even sample of every model, TP and pass.
    import random
    random.Random(1).shuffle(shapes)
    return [("square %d" % s, s, s, s) for s in sq] + shapes


def measure_gemm(args, dev, timer, deadline):
    f, w = open_csv(args, "gemm", ["label", "dtype", "m", "n", "k", "time_us", "tflops"])
    if args.gemm_cold_mb > 0:
        f.write("# operands: sets cycled over %d MB a shape (--gemm-cold-mb), out of the L2\n"
                % args.gemm_cold_mb)
    fp8 = dev.type == "cuda" and hasattr(torch, "_scaled_mm") and hasattr(torch, "float8_e4m3fn")
    bf = torch.bfloat16 if dev.type == "cuda" else torch.float32
    done = 0
    shapes = gemm_shapes(args)
    for lab, m, n, k in shapes:
        if time.time() > deadline:
            f.write("# stopped at the time budget after %d of %d shapes\n" % (done, len(shapes)))
            break
        if 2.0 * m * n * k > 1.2e14:      # > ~150 ms a call: the rate is flat long before
            continue
        try:
            # --gemm-cold-mb: as many operand sets as that many MB hold (at most 64, 4 GB), the
            # calls cycling through them, so a replayed GEMM finds its operands out of the L2
            # as a layer's GEMMs do (docs/zoo.md, "FP8 GEMMs in a layer"); 0: one set
            per = 2 * (m * k + k * n)
            sets = 1 if args.gemm_cold_mb <= 0 else max(1, min(64, (4 << 30) // per,
                                                              -(-(args.gemm_cold_mb << 20) // per)))
            ops = [(torch.randn(m, k, device=dev, dtype=bf), torch.randn(k, n, device=dev, dtype=bf))
                   for _ in range(sets)]
            nxt = itertools.cycle(range(sets))

            def mm():
                a, b = ops[next(nxt)]
                return torch.matmul(a, b)
            t = timer.graph_us(mm)
            w.writerow([lab, "bf16", m, n, k, "%.3f" % t, "%.2f" % (2e-6 * m * n * k / t)])
            if fp8:
                # column-major B, as cuBLASLt wants
                ops8 = [(a.to(torch.float8_e4m3fn), b.t().contiguous().to(torch.float8_e4m3fn).t())
                        for a, b in ops]
                one = torch.ones((), device=dev, dtype=torch.float32)

                def mm8(fast=False):
                    a8, b8 = ops8[next(nxt)]
                    return torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16,
                                            use_fast_accum=fast)
                t = timer.graph_us(mm8)
                w.writerow([lab, "fp8", m, n, k, "%.3f" % t, "%.2f" % (2e-6 * m * n * k / t)])
                if lab.endswith("fwd") or lab.startswith("square"):
                    # Transformer Engine's forward GEMMs accumulate in FP8's fast mode
                    # (use_split_accumulator off); its gradient GEMMs do not.
                    t = timer.graph_us(lambda: mm8(True))
                    w.writerow([lab, "fp8_fast", m, n, k, "%.3f" % t, "%.2f" % (2e-6 * m * n * k / t)])
                del ops8
            del ops
        except Exception as e:  # noqa: BLE001 - record and go on: one shape must not end the run
            f.write("# %s: %s\n" % (lab, str(e).splitlines()[0][:200]))
        done += 1
        if done % 100 == 0:
            f.flush()
            print("gemm %d/%d" % (done, len(shapes)), flush=True)
    f.close()


def measure_attention(args, dev, timer, deadline):
    f, w = open_csv(args, "attention", ["backend", "dtype", "batch", "heads", "seq", "head_dim", "causal",
                                        "pass", "time_us", "tflops"])
    try:
        from torch.nn.attention import SDPBackend, sdpa_kernel
        backends = [("flash", SDPBackend.FLASH_ATTENTION)]
        if dev.type == "cuda" and hasattr(SDPBackend, "CUDNN_ATTENTION"):
            backends.append(("cudnn", SDPBackend.CUDNN_ATTENTION))
        if dev.type != "cuda":
            backends = [("math", SDPBackend.MATH)]
    except ImportError:                 # the smoke test's old PyTorch
        import contextlib
        sdpa_kernel = lambda _be: contextlib.nullcontext()  # noqa: E731
        backends = [("math", None)]
    dt = torch.bfloat16 if dev.type == "cuda" else torch.float32
    seqs = [1024, 2048, 4096, 8192, 16384] if not args.smoke else [16]
    heads_l = [8, 16, 32, 64] if not args.smoke else [2]
    dims = [64, 128] if not args.smoke else [8]
    for bname, be in backends:
        for s in seqs:
            for hds in heads_l:
                for d in dims:
                    for causal in (True, False):
                        if time.time() > deadline:
                            f.write("# stopped at the time budget\n")
                            f.close()
                            return
                        b = max(1, 16384 // s) if not args.smoke else 1
                        try:
                            q, kk, v = (torch.randn(b, hds, s, d, device=dev, dtype=dt, requires_grad=True)
                                        for _ in range(3))
                            go = torch.randn(b, hds, s, d, device=dev, dtype=dt)
                            with sdpa_kernel(be):
                                fwd = lambda: F.scaled_dot_product_attention(q, kk, v, is_causal=causal)  # noqa: E731

                                def both():
                                    o = F.scaled_dot_product_attention(q, kk, v, is_causal=causal)
                                    o.backward(go)
                                tf = timer.time_us(fwd, reps=5, inner=3)
                                tb = timer.time_us(both, reps=5, inner=3) - tf
                            fl = 4.0 * b * hds * s * s * d * (0.5 if causal else 1.0)
                            dn = "bf16" if dt == torch.bfloat16 else "fp32"
                            w.writerow([bname, dn, b, hds, s, d, int(causal), "fwd", "%.3f" % tf,
                                        "%.2f" % (fl * 1e-6 / tf)])
                            w.writerow([bname, dn, b, hds, s, d, int(causal), "bwd", "%.3f" % tb,
                                        "%.2f" % (2.5 * fl * 1e-6 / tb)])
                            del q, kk, v, go
                        except Exception as e:  # noqa: BLE001
                            f.write("# %s s%d h%d d%d: %s\n" % (bname, s, hds, d, str(e).splitlines()[0][:200]))
        f.flush()
    f.close()


def measure_memory(args, dev, timer, deadline):
    f, w = open_csv(args, "memory", ["op", "dtype", "elements", "bytes", "time_us", "gbps"])
    cuda = dev.type == "cuda"
    bf = torch.bfloat16 if cuda else torch.float32
    sizes = [1 << 20, 1 << 22, 1 << 24, 1 << 26, 1 << 28] if not args.smoke else [4096]
    h = 8192 if not args.smoke else 64
    for n in sizes:
        if time.time() > deadline:
            f.write("# stopped at the time budget\n")
            break
        x = torch.randn(n // h, h, device=dev, dtype=bf)
        y = torch.randn_like(x)
        wt = torch.ones(h, device=dev, dtype=bf)
        ops = []
        ops.append(("copy", 4 * n, lambda: y.copy_(x)))
        ops.append(("add", 6 * n, lambda: torch.add(x, y)))
        ops.append(("rmsnorm_fwd", 4 * n, lambda: F.rms_norm(x, (h,), wt)))
        ops.append(("layernorm_fwd", 4 * n, lambda: F.layer_norm(x, (h,), wt)))
        ops.append(("softmax_fwd", 4 * n, lambda: torch.softmax(x, -1)))
        ops.append(("gelu_fwd", 4 * n, lambda: F.gelu(x, approximate="tanh")))
        ops.append(("swiglu_eager", 6 * n, lambda: F.silu(x) * y))   # 2 kernels in eager PyTorch
        ops.append(("dropout_fwd", 5 * n, lambda: F.dropout(x, 0.1, training=True)))  # + bool mask
        xr = x.detach().clone().requires_grad_(True)
        g = torch.randn_like(x)

        def rms_bwd():
            xr.grad = None
            F.rms_norm(xr, (h,), wt).backward(g)

        def ln_bwd():
            xr.grad = None
            F.layer_norm(xr, (h,), wt).backward(g)
        ops.append(("rmsnorm_fwd_bwd", 10 * n, rms_bwd))     # fwd 4n + bwd (x, dy in; dx out) 6n
        ops.append(("layernorm_fwd_bwd", 10 * n, ln_bwd))
        if cuda and hasattr(torch, "float8_e4m3fn"):
            sc = torch.tensor(1.0, device=dev)
            x8 = x.to(torch.float8_e4m3fn)
            ops.append(("fp8_cast_eager", 3 * n, lambda: (x * sc).to(torch.float8_e4m3fn)))  # 2 kernels
            ops.append(("amax", 2 * n, lambda: torch.linalg.vector_norm(x, float("inf"))))
            ops.append(("fp8_transpose", 2 * n, lambda: x8.t().contiguous()))
        for op, nbytes, fn in ops:
            try:
                t = timer.time_us(fn, reps=5, inner=5)
                w.writerow([op, "bf16" if cuda else "fp32", n, nbytes, "%.3f" % t, "%.2f" % (nbytes * 1e-3 / t)])
            except Exception as e:  # noqa: BLE001
                f.write("# %s n=%d: %s\n" % (op, n, str(e).splitlines()[0][:200]))
        del x, y, xr, g
        f.flush()
    # Cross-entropy over a vocabulary (logits bf16, fwd + bwd): bytes = read logits twice,
    # write the gradient once (6 bytes per logit).
    vocab = 128256 if not args.smoke else 512
    for tok in ([1024, 4096, 8192] if not args.smoke else [8]):
        try:
            lg = torch.randn(tok, vocab, device=dev, dtype=bf, requires_grad=True)
            tgt = torch.randint(0, vocab, (tok,), device=dev)

            def ce():
                lg.grad = None
                F.cross_entropy(lg, tgt).backward()
            t = timer.time_us(ce, reps=5, inner=2)
            n = tok * vocab
            w.writerow(["cross_entropy_fwd_bwd", "bf16" if cuda else "fp32", n, 6 * n, "%.3f" % t,
                        "%.2f" % (6 * n * 1e-3 / t)])
            del lg
        except Exception as e:  # noqa: BLE001
            f.write("# cross_entropy t=%d: %s\n" % (tok, str(e).splitlines()[0][:200]))
    # Adam, fused, on fp32 parameters: reads p, g, m, v and writes p, m, v (28 bytes a parameter).
    for n in ([1 << 24, 1 << 27] if not args.smoke else [4096]):
        try:
            p = torch.zeros(n, device=dev, dtype=torch.float32, requires_grad=True)
            p.grad = torch.randn_like(p)
            opt = torch.optim.Adam([p], lr=1e-4, fused=cuda) if cuda else torch.optim.Adam([p], lr=1e-4)
            t = timer.time_us(opt.step, reps=5, inner=3)
            w.writerow(["adam_step_fused" if cuda else "adam_step", "fp32", n, 28 * n, "%.3f" % t,
                        "%.2f" % (28 * n * 1e-3 / t)])
            del p, opt
        except Exception as e:  # noqa: BLE001
            f.write("# adam n=%d: %s\n" % (n, str(e).splitlines()[0][:200]))
    f.close()


def measure_launch(args, dev, timer):
    f, w = open_csv(args, "launch", ["what", "kernels", "time_us", "per_kernel_us"])
    x = torch.zeros(1, device=dev)
    kernels = 1000 if not args.smoke else 10

    def chain():
        for _ in range(kernels):
            x.add_(1.0)
    t = timer.time_us(chain, reps=5)
    w.writerow(["eager", kernels, "%.3f" % t, "%.4f" % (t / kernels)])
    if dev.type == "cuda":
        g = torch.cuda.CUDAGraph()
        s = torch.cuda.Stream()
        s.wait_stream(torch.cuda.current_stream())
        with torch.cuda.stream(s):
            chain()
        torch.cuda.current_stream().wait_stream(s)
        with torch.cuda.graph(g):
            chain()
        t = timer.time_us(g.replay, reps=5)
        w.writerow(["graph", kernels, "%.3f" % t, "%.4f" % (t / kernels)])
    f.close()


def layer_shapes(args):
    if args.smoke:
        return [("tiny", 64, 128, 4, 2, 16, True, 32, 1, 1)]
    out = []
    for name, h, ffn, heads, kv, hd, _v, gated in MODELS:
        for tp in (1, 2, 4, 8):
            if name in ("llama3-405b", "gpt3-175b") and tp < 4:
                continue
            if heads % tp:
                continue
            out.append((name, h, ffn, heads, kv, hd, gated, 4096, 1, tp))
    out.append(("llama3-8b", 4096, 14336, 32, 8, 128, True, 8192, 1, 1))
    out.append(("llama3-70b", 8192, 28672, 64, 8, 128, True, 8192, 1, 8))
    return out


def measure_layer(args, dev, timer, deadline):
    f, w = open_csv(args, "layer", ["name", "hidden", "ffn", "heads", "kv_heads", "seq", "batch", "tp", "dtype",
                                    "fwd_us", "bwd_us"])
    dt = torch.bfloat16 if dev.type == "cuda" else torch.float32
    for name, h, ffn, heads, kv, hd, gated, seq, b, tp in layer_shapes(args):
        if time.time() > deadline:
            f.write("# stopped at the time budget\n")
            break
        try:
            hq, hk = heads // tp, max(kv // tp, 1)
            def P(*s):  # noqa: E306 - a parameter of the shard
                return (torch.randn(*s, device=dev, dtype=dt) * 0.02).requires_grad_(True)
            wqkv, wo = P(h, (hq + 2 * hk) * hd), P(hq * hd, h)
            w1, w2 = P(h, (2 if gated else 1) * ffn // tp), P(ffn // tp, h)
            n1, n2 = torch.ones(h, device=dev, dtype=dt), torch.ones(h, device=dev, dtype=dt)
            x = torch.randn(b * seq, h, device=dev, dtype=dt, requires_grad=True)

            def layer():
                y = F.rms_norm(x, (h,), n1)
                qkv = y @ wqkv
                q, k, v = qkv.split([hq * hd, hk * hd, hk * hd], -1)
                q = q.view(b, seq, hq, hd).transpose(1, 2)
                k = k.view(b, seq, hk, hd).transpose(1, 2).repeat_interleave(hq // hk, 1)
                v = v.view(b, seq, hk, hd).transpose(1, 2).repeat_interleave(hq // hk, 1)
                a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
                a = a.transpose(1, 2).reshape(b * seq, hq * hd)
                x2 = x + a @ wo
                y2 = F.rms_norm(x2, (h,), n2)
                u = y2 @ w1
                if gated:
                    g1, g2 = u.chunk(2, -1)
                    u = F.silu(g1) * g2
                else:
                    u = F.gelu(u, approximate="tanh")
                return x2 + u @ w2
            go = torch.randn(b * seq, h, device=dev, dtype=dt)

            def both():
                for t in (x, wqkv, wo, w1, w2):
                    t.grad = None
                layer().backward(go)
            with torch.no_grad():
                tf = timer.time_us(layer, reps=5, inner=3)
            tfb = timer.time_us(both, reps=5, inner=3)
            w.writerow([name, h, ffn, heads, kv, seq, b, tp, "bf16" if dev.type == "cuda" else "fp32",
                        "%.3f" % tf, "%.3f" % (tfb - tf)])
            f.flush()
        except Exception as e:  # noqa: BLE001
            f.write("# %s tp%d: %s\n" % (name, tp, str(e).splitlines()[0][:200]))
    f.close()


def main():
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--out", required=True)
    ap.add_argument("--device-name", default="h100")
    ap.add_argument("--budget-s", type=float, default=420)
    ap.add_argument("--smoke", action="store_true", help="tiny shapes on the CPU: checks the script")
    ap.add_argument("--only", default="launch,memory,attention,layer,gemm")
    ap.add_argument("--gemm-cold-mb", type=int, default=0,
                    help="GEMMs cycle through operand sets filling this many MB (0: one set, L2-warm)")
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    dev = torch.device("cuda" if torch.cuda.is_available() and not args.smoke else "cpu")
    if not args.smoke and dev.type != "cuda":
        sys.exit("measure.py: no CUDA device (use --smoke for a CPU check)")
    torch.manual_seed(0)
    timer = Timer(dev)
    t0 = time.time()
    only = args.only.split(",")
    # Shares of the budget: GEMMs take most; each section stops at its own deadline.
    plan = [("launch", 0.02), ("memory", 0.10), ("attention", 0.25), ("layer", 0.12), ("gemm", 0.51)]
    used = 0.0
    for name, share in plan:
        used += share
        if name not in only:
            continue
        deadline = t0 + used * args.budget_s
        s = time.time()
        if name == "launch":
            measure_launch(args, dev, timer)
        elif name == "memory":
            measure_memory(args, dev, timer, deadline)
        elif name == "attention":
            measure_attention(args, dev, timer, deadline)
        elif name == "layer":
            measure_layer(args, dev, timer, deadline)
        else:
            measure_gemm(args, dev, timer, deadline)
        if dev.type == "cuda":
            torch.cuda.empty_cache()
        print("%s: %.1f s" % (name, time.time() - s), flush=True)
    print("total %.1f s" % (time.time() - t0))


if __name__ == "__main__":
    main()
