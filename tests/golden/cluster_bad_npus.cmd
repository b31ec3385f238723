optimize --model megatron-22b --tp 8 --cluster dgx-a100 --npus 1e3 --cost-model data/validation/cost.yml
