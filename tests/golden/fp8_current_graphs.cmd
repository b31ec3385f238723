optimize --model megatron-22b --cluster dgx-h100 --npus 16 --tp 8 --cost-model data/validation/cost.yml --constraint "B1 = 300" --constraint "B2 = 25" --fp8 current --cuda-graphs
