workload --model megatron-22b --cluster dgx-h100 --tp 8 --zoo data/zoo -o "$T/w"
