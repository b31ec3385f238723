optimize --model deepseek-v3 --cluster gb200-nvl72 --npus 1152 --active 64,x --cost-model data/validation/cost.yml
