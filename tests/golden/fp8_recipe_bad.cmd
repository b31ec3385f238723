optimize --model megatron-22b --cluster dgx-h100 --npus 16 --tp 8 --cost-model data/validation/cost.yml --fp8=tensorwise
