"""cuda_timing.py - what the device checks share (attn_dropout.py, sac_check.py,
cp_flash_check.py, sustained_layer.py, fp8_layer_gemms.py): their command line (--out
DIR, --device-name, --budget-s), their CSV files' header and one timer: warm-up runs,
then the median of CUDA-event timings of fn, in microseconds."""
import argparse
import datetime
import os
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


def out_path(args, table):
    """<--out>/<device>_<table>.csv, the folder made if missing."""
    os.makedirs(args.out, exist_ok=True)
    return os.path.join(args.out, "%s_%s.csv" % (args.device_name, table))


def header(script):
    """A measured CSV's comment lines: the script, the date, torch, the device."""
    p = torch.cuda.get_device_properties(0)
    return "# script: scripts/measure/%s\n# date: %s\n# torch: %s\n# device: %s, %d SMs\n" % (
        script, datetime.datetime.now(datetime.timezone.utc).isoformat(), torch.__version__, p.name,
        p.multi_processor_count)
