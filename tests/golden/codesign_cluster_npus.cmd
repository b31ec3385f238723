codesign --model megatron-22b --npus 20 --cluster dgx-h100 --cost-model data/validation/cost.yml
