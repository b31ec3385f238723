optimize --model megatron-22b --tp 8 --cluster dgx-a10 --npus 16 --cost-model data/validation/cost.yml --zoo data/zoo
