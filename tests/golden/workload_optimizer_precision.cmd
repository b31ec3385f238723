workload --model megatron-22b --cluster dgx-h100 --npus 16 --tp 8 --zoo data/zoo -o "$T/w" --compact --master-weights fp32 --optimizer-states bf16 --json >"$T/bf16.json"
