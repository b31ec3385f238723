optimize --model megatron-22b --tp 8 --recompute --cluster dgx-a100 --npus 16 --cost-model data/validation/cost.yml --zoo data/zoo --constraint "B1 = 300" --constraint "B2 = 25"
