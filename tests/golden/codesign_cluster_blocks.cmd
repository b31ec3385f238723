codesign --model megatron-22b --npus 16 --cluster dgx-h100 --blocks Switch,Switch --cost-model data/validation/cost.yml
