workload --model megatron-22b --cluster dgx-h100 --npus 16 --tp 8 --zoo data/zoo -o "$T/w" --compact
