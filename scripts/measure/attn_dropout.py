#!/usr/bin/env python3
"""attn_dropout.py - the cost of attention dropout inside a fused attention kernel.

Times torch scaled_dot_product_attention forward and backward (bf16, causal) with
dropout_p 0 and 0.1, per backend (flash, cuDNN; torch.nn.attention.sdpa_kernel), and
writes <dev>_attention_dropout.csv under --out:
  backend,batch,heads,seq,head_dim,dropout_p,fwd_us,bwd_us,status
A backend that refuses a configuration gets a row with status "refused: ..." and empty
times. Times are medians of CUDA-event timings after warm-up (as measure.py). Nothing is
fitted to training runs; weft reads the dropout / no-dropout ratio per shape.

  python3 scripts/measure/attn_dropout.py --out DIR [--device-name h100] [--budget-s 240]
"""
import datetime
import subprocess
import sys
import time

import torch
import torch.nn.functional as F

from cuda_timing import out_path, parser, time_us  # scripts/measure/, the running script's folder

SHAPES = [  # (batch, heads, seq, head_dim): batch x heads 16-64
    (1, 16, 2048, 128), (1, 32, 2048, 128), (2, 32, 2048, 128),
    (1, 16, 4096, 128), (1, 32, 4096, 128), (2, 32, 4096, 128),
    (1, 16, 8192, 128), (1, 32, 8192, 128), (2, 32, 8192, 128),
    (1, 32, 2048, 64), (1, 32, 4096, 64), (1, 32, 8192, 64),
]
DROPOUTS = [0.0, 0.1]


def main():
    ap = parser(240.0)
    args = ap.parse_args()
    from torch.nn.attention import SDPBackend, sdpa_kernel
    backends = [("flash", SDPBackend.FLASH_ATTENTION), ("cudnn", SDPBackend.CUDNN_ATTENTION)]
    dev = torch.device("cuda")
    path = out_path(args, "attention_dropout")
    t0 = time.time()
    with open(path, "w") as f:
        f.write("# script: scripts/measure/attn_dropout.py\n")
        f.write("# date: %s\n" % datetime.datetime.now(datetime.timezone.utc).isoformat())
        f.write("# torch: %s\n" % torch.__version__)
        f.write("# device: %s\n" % torch.cuda.get_device_name(0))
        try:
            q = subprocess.run(["nvidia-smi", "--query-gpu=driver_version,clocks.max.sm,power.limit",
                                "--format=csv,noheader"], capture_output=True, text=True, timeout=20)
            f.write("# nvidia-smi driver,max sm MHz,power limit: %s\n" % q.stdout.strip())
        except Exception as e:  # noqa: BLE001
            f.write("# nvidia-smi: unavailable: %s\n" % e)
        f.write("# bf16, causal, medians of 7 CUDA-event timings after 2 warm-up calls; bwd = backward only\n")
        f.write("backend,batch,heads,seq,head_dim,dropout_p,fwd_us,bwd_us,status\n")
        for bname, be in backends:
            for (b, h, s, d) in SHAPES:
                for p in DROPOUTS:
                    if time.time() - t0 > args.budget_s:
                        print("budget reached", file=sys.stderr)
                        return
                    row = "%s,%d,%d,%d,%d,%.2f" % (bname, b, h, s, d, p)
                    try:
                        qq = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                        kk = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                        vv = torch.randn(b, h, s, d, device=dev, dtype=torch.bfloat16, requires_grad=True)
                        with sdpa_kernel([be]):
                            def fwd():
                                return F.scaled_dot_product_attention(qq, kk, vv, dropout_p=p, is_causal=True)
                            fus = time_us(fwd)
                            o = fwd()
                            g = torch.randn_like(o)

                            def fb():
                                y = fwd()
                                y.backward(g)
                            tot = time_us(fb)
                        f.write("%s,%.1f,%.1f,ok\n" % (row, fus, max(tot - fus, 0.0)))
                    except RuntimeError as e:
                        msg = str(e).split("\n")[0].replace(",", ";")[:120]
                        f.write("%s,,,refused: %s\n" % (row, msg))
                    f.flush()
                    print(row, file=sys.stderr)


if __name__ == "__main__":
    main()
