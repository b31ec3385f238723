simulate --model megatron-22b --tp 8 --recompute --cluster dgx-h100 --npus 16 --cost-model data/validation/cost.yml --zoo data/zoo --chunks 1
