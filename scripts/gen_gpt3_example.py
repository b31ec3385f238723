#!/usr/bin/env python3
"""Generate data/gpt3/gpt3_175b_tp16.txt: a GPT-3 175B-like workload in
ASTRA-sim 1.0 text, from public hyper-parameters (a dev tool, not part of weft).

Per transformer layer (Megatron-style tensor parallelism, TP = 16):
  attention forward FLOPs = 8*b*s*h^2 + 4*b*s^2*h, MLP forward = 16*b*s*h^2,
  input-grad and weight-grad each take as long as forward;
  forward and input-grad: one all-reduce of b*s*h activations per block;
  weight-grad: data-parallel all-reduce of the block's parameter shard
  (attention 4h^2, MLP 8h^2 parameters, divided by TP).
Time = FLOPs / TP / (peak * efficiency). Sizes in bytes (bf16 = 2)."""
h, s, b, layers, tp = 12288, 2048, 1, 96, 16
peak_flops, eff, bytes_per = 312e12, 0.5, 2   # A100 dense BF16, 50% efficiency
rate = peak_flops * eff / 1e9                 # FLOPs per ns
act = b * s * h * bytes_per
out = ["HYBRID_TRANSFORMER_FWD_IN_BCKWD model_parallel_NPU_group: 16", str(2 * layers)]
for i in range(layers):
    attn = (8 * b * s * h * h + 4 * b * s * s * h) / tp / rate
    mlp = 16 * b * s * h * h / tp / rate
    attn_w = 4 * h * h / tp * bytes_per
    mlp_w = 8 * h * h / tp * bytes_per
    out.append(f"attn{i} -1 {attn:.0f} ALLREDUCE {act} {attn:.0f} ALLREDUCE {act} "
               f"{attn:.0f} ALLREDUCE {attn_w:.0f} 10")
    out.append(f"mlp{i} -1 {mlp:.0f} ALLREDUCE {act} {mlp:.0f} ALLREDUCE {act} "
               f"{mlp:.0f} ALLREDUCE {mlp_w:.0f} 10")
open("data/gpt3/gpt3_175b_tp16.txt", "w").write("\n".join(out) + "\n")
