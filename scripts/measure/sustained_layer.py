#!/usr/bin/env python3
"""sustained_layer.py - a transformer layer's step when the GPU runs it for seconds.

sustained.py measures how far an 8192^3 GEMM run back to back falls below its burst
rate at the power limit (weft's sustained factor, applied to every tensor-core
kernel). A training layer mixes GEMMs with attention and memory-bound kernels and
draws less power on average. This times one Llama-family layer's per-GPU shard
(RMSNorm, QKV, RoPE-free causal SDPA on the flash backend, projection, SwiGLU MLP;
bf16, forward and backward, eager) in a burst (5 steps after 3 s idle) and then back
to back for --seconds, and the 8192^3 GEMM the same way, writing per second the
step time, SM clock, power and temperature to <dev>_sustained_layer.csv:
  name,second,step_ms,sm_mhz,power_w,temp_c
with second -1 for the burst. Nothing is fitted to training runs.

  python3 scripts/measure/sustained_layer.py --out DIR [--seconds 20]
"""
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from cuda_timing import header, out_path, parser, time_us  # scripts/measure/, the running script's folder

LAYERS = [  # name, hidden, ffn shard, heads, kv heads (the shard's), head dim, tokens
    ("llama3-8b-tp1", 4096, 14336, 32, 8, 128, 4096),
    ("llama3-70b-tp4", 8192, 7168, 16, 2, 128, 8192),
    ("llama3-405b-tp8", 16384, 6656, 16, 1, 128, 8192),
]


def smi():
    q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
    return [x.strip() for x in q.stdout.strip().split(",")]


def layer_step(h, ffn, heads, kv, hd, tokens, dev):
    dt = torch.bfloat16

    def P(*s):
        return (torch.randn(*s, device=dev, dtype=dt) * 0.02).requires_grad_(True)
    wqkv, wo = P(h, (heads + 2 * kv) * hd), P(heads * hd, h)
    w13, w2 = P(h, 2 * ffn), P(ffn, h)
    n1 = torch.ones(h, device=dev, dtype=dt, requires_grad=True)
    n2 = torch.ones(h, device=dev, dtype=dt, requires_grad=True)
    x = torch.randn(tokens, h, device=dev, dtype=dt, requires_grad=True)
    go = torch.randn(tokens, h, device=dev, dtype=dt)
    params = [wqkv, wo, w13, w2, n1, n2, x]

    def step():
        for p in params:
            p.grad = None
        y = F.rms_norm(x, (h,), n1)
        q, k, v = (y @ wqkv).split([heads * hd, kv * hd, kv * hd], -1)
        q = q.view(1, tokens, heads, hd).transpose(1, 2)
        k = k.view(1, tokens, kv, hd).transpose(1, 2).repeat_interleave(heads // kv, 1)
        v = v.view(1, tokens, kv, hd).transpose(1, 2).repeat_interleave(heads // kv, 1)
        a = F.scaled_dot_product_attention(q, k, v, is_causal=True)
        x2 = x + a.transpose(1, 2).reshape(tokens, heads * hd) @ wo
        g1, g3 = (F.rms_norm(x2, (h,), n2) @ w13).chunk(2, -1)
        (x2 + (F.silu(g1) * g3) @ w2).backward(go)
    return step


def run(f, name, fn, seconds):
    time.sleep(3)  # idle: the clock back up before the burst
    f.write("%s,-1,%.3f,%s\n" % (name, time_us(fn, reps=5, warmup=1) / 1e3, ",".join(smi())))
    t_end, sec = time.time() + seconds, 0
    while time.time() < t_end:
        e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
        count, t1 = 0, time.time() + 1.0
        e0.record()
        while time.time() < t1:
            fn()
            count += 1
            if count % 4 == 0:
                torch.cuda.current_stream().synchronize()
        e1.record()
        e1.synchronize()
        f.write("%s,%d,%.3f,%s\n" % (name, sec, e0.elapsed_time(e1) / count, ",".join(smi())))
        f.flush()
        sec += 1


def main():
    ap = parser(0)
    ap.add_argument("--seconds", type=float, default=20)
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    dev = torch.device("cuda")
    path = out_path(args, "sustained_layer")
    t0 = time.time()
    with open(path, "w") as f:
        f.write(header("sustained_layer.py"))
        f.write("name,second,step_ms,sm_mhz,power_w,temp_c\n")
        n = 8192
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        run(f, "gemm-8192", lambda: torch.matmul(a, b), args.seconds)
        del a, b
        with sdpa_kernel([SDPBackend.FLASH_ATTENTION]):
            for name, h, ffn, heads, kv, hd, tokens in LAYERS:
                try:
                    run(f, name, layer_step(h, ffn, heads, kv, hd, tokens, dev), args.seconds)
                except Exception as e:  # noqa: BLE001
                    f.write("# %s: %s\n" % (name, str(e).splitlines()[0][:200]))
                torch.cuda.empty_cache()
    print(open(path).read(), end="")
    print("sustained_layer: %.0f s" % (time.time() - t0), file=sys.stderr)


if __name__ == "__main__":
    main()
