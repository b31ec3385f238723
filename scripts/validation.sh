#!/bin/sh
# validation.sh — weft's predictions for published Megatron-LM training runs
# (docs/validation.md): iteration time and TFLOP/s per GPU against the paper.
# usage: scripts/validation.sh [path/to/weft] [efficiency]
set -eu
WEFT=${1:-build/weft}
EFF=${2:-0.75}
D=data/validation
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
printf '| run | GPUs | TP x PP x DP | published TFLOP/s/GPU | published s/iter | weft s/iter | weft TFLOP/s/GPU | error |\n'
printf '|---|---|---|---|---|---|---|---|\n'
# model  gpus  tp  pp  published TFLOP/s per GPU (Table 1, Narayanan et al. SC21)
while read -r model n tp pp pub; do
  args="--model $model --tp $tp --pp $pp --recompute --efficiency $EFF --network $D/dgx_a100_$n.yml"
  # shellcheck disable=SC2086
  hw=$("$WEFT" workload $args -o "$tmp/w" --json | sed 's/.*"hw_flops": \([^,]*\),.*/\1/')
  # shellcheck disable=SC2086
  t=$("$WEFT" optimize $args --cost-model $D/cost.yml --constraint "B1 = 300" \
       --constraint "B2 = 25" --json | sed -n 's/^  "time_ns": \([^,]*\),$/\1/p')
  dp=$((n / tp / pp))
  awk -v m="$model" -v n="$n" -v tp="$tp" -v pp="$pp" -v dp="$dp" -v pub="$pub" -v hw="$hw" \
      -v t="$t" 'BEGIN {
    pub_s = hw / (n * pub * 1e12); weft_s = t / 1e9; tf = hw / (n * weft_s) / 1e12;
    printf "| %s | %d | %d x %d x %d | %d | %.2f | %.2f | %.0f | %+.1f%% |\n",
           m, n, tp, pp, dp, pub, pub_s, weft_s, tf, 100 * (weft_s - pub_s) / pub_s }'
done <<'RUNS'
megatron-145b 1536 8 8 148
megatron-310b 1920 8 16 155
megatron-530b 2520 8 35 163
msft-1t 3072 8 64 163
RUNS
