#!/usr/bin/env python3
"""sustained.py - a GEMM's rate when the GPU runs it for many seconds, not a burst.

measure.py times kernels in short bursts; a training step keeps the GPU busy for seconds,
when power and heat can pull the SM clock down. This runs one large GEMM back to back for
--seconds per precision and writes, per second: achieved TFLOP/s, SM clock, power, temperature
(nvidia-smi), to <dev>_sustained.csv (format: docs/zoo.md, "Measured kernel tables").

  python3 scripts/measure/sustained.py --out DIR [--seconds 30] [--size 8192]
"""
import argparse
import datetime
import os
import subprocess
import time

import torch


def smi():
    q = subprocess.run(["nvidia-smi", "--query-gpu=clocks.sm,power.draw,temperature.gpu",
                        "--format=csv,noheader,nounits"], capture_output=True, text=True, timeout=10)
    return [x.strip() for x in q.stdout.strip().split(",")]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device-name", default="h100")
    ap.add_argument("--seconds", type=float, default=30)
    ap.add_argument("--size", type=int, default=8192)
    args = ap.parse_args()
    os.makedirs(args.out, exist_ok=True)
    n = args.size
    dev = torch.device("cuda")
    p = torch.cuda.get_device_properties(0)
    path = os.path.join(args.out, "%s_sustained.csv" % args.device_name)
    with open(path, "w") as f:
        f.write("# script: scripts/measure/sustained.py\n# date: %s\n# torch: %s\n# device: %s, %d SMs\n"
                % (datetime.datetime.now(datetime.timezone.utc).isoformat(), torch.__version__, p.name,
                   p.multi_processor_count))
        f.write("# GEMM %d x %d x %d back to back, random data; tflops over each second\n" % (n, n, n))
        f.write("dtype,second,tflops,sm_mhz,power_w,temp_c\n")
        a = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        b = torch.randn(n, n, device=dev, dtype=torch.bfloat16)
        one = torch.ones((), device=dev, dtype=torch.float32)
        a8 = a.to(torch.float8_e4m3fn)
        b8 = b.t().contiguous().to(torch.float8_e4m3fn).t()
        runs = [("bf16", lambda: torch.matmul(a, b)),
                ("fp8", lambda: torch._scaled_mm(a8, b8, scale_a=one, scale_b=one, out_dtype=torch.bfloat16))]
        flops = 2.0 * n * n * n
        for name, fn in runs:
            for _ in range(3):
                fn()
            torch.cuda.synchronize()
            t_end = time.time() + args.seconds
            sec = 0
            while time.time() < t_end:
                e0 = torch.cuda.Event(enable_timing=True)
                e1 = torch.cuda.Event(enable_timing=True)
                count = 0
                e0.record()
                t1 = time.time() + 1.0
                while time.time() < t1:
                    for _ in range(8):
                        fn()
                    count += 8
                    torch.cuda.current_stream().synchronize() if count % 64 == 0 else None
                e1.record()
                e1.synchronize()
                ms = e0.elapsed_time(e1)
                clk, pw, tc = smi()
                f.write("%s,%d,%.1f,%s,%s,%s\n" % (name, sec, flops * count / (ms * 1e-3) * 1e-12, clk, pw, tc))
                f.flush()
                sec += 1
            print("%s done" % name, flush=True)


if __name__ == "__main__":
    main()
