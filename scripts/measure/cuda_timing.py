"""cuda_timing.py - what the device checks share (attn_dropout.py, sac_check.py,
cp_flash_check.py): their command line (--out DIR, --device-name, --budget-s) and one
timer: warm-up runs, then the median of CUDA-event timings of fn, in microseconds."""
import argparse
import statistics

import torch


def time_us(fn, reps=7, warmup=2):
    for _ in range(warmup):
        fn()
    torch.cuda.synchronize()
    out = []
    for _ in range(reps):
        a = torch.cuda.Event(enable_timing=True)
        b = torch.cuda.Event(enable_timing=True)
        a.record()
        fn()
        b.record()
        b.synchronize()
        out.append(a.elapsed_time(b) * 1e3)
    return statistics.median(out)


def parser(budget_s):
    """The checks' common options; a script adds its own and parses."""
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", required=True)
    ap.add_argument("--device-name", default="h100")
    ap.add_argument("--budget-s", type=float, default=budget_s)
    return ap
