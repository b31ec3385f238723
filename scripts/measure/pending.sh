#!/bin/sh
# pending.sh — the device checks prepared but not yet run (data/measured/README.md,
# "Prepared, not yet run"), as one command that fits a 10-minute device call (at most
# about 8.7 minutes, each part cut at its own budget): the MoE experts' GEMMs
# (moe_gemms.py), FlexAttention against FlashAttention-2 (flex_attention.py), and the
# GEMM table re-measured with operands out of the L2 (measure.py --gemm-cold-mb 256,
# docs/zoo.md "FP8 GEMMs in a layer"), which decides whether the tables favour FP8.
#
#   sh scripts/measure/pending.sh OUTDIR [DEVICE]     # DEVICE names the files (h100)
#
# Writes at most seven files under OUTDIR (the device tool returns eight):
# DEVICE_moe_gemm.csv, DEVICE_moe_grouped_check.csv, DEVICE_flex_attention.csv,
# cold/DEVICE_gemm.csv and the three logs. Nothing here is fitted to training runs.
set -u
out=${1:?usage: pending.sh OUTDIR [DEVICE]}
dev=${2:-h100}
here=$(cd "$(dirname "$0")" && pwd)
mkdir -p "$out/cold" || exit 2
export PYTHONUNBUFFERED=1
nvidia-smi --query-gpu=name,driver_version,power.limit,clocks.max.sm --format=csv,noheader
timeout 130 python3 "$here/moe_gemms.py" --out "$out" --device-name "$dev" --budget-s 100 \
  >"$out/moe.log" 2>&1
echo "moe_gemms: exit $?"
timeout 220 python3 "$here/flex_attention.py" --out "$out" --device-name "$dev" --budget-s 170 \
  >"$out/flex.log" 2>&1
echo "flex_attention: exit $?"
# measure.py --only gemm: its GEMM section runs to the budget's end (the skipped
# sections take no time), squares first, then an even sample of the zoo's shapes
timeout 170 python3 "$here/measure.py" --out "$out/cold" --device-name "$dev" --only gemm \
  --gemm-cold-mb 256 --budget-s 140 >"$out/cold.log" 2>&1
echo "measure.py --gemm-cold-mb 256: exit $?"
tail -n 3 "$out/moe.log" "$out/flex.log" "$out/cold.log"
