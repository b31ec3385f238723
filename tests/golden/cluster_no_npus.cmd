optimize --model megatron-22b --tp 8 --cluster dgx-a100 --cost-model data/validation/cost.yml
