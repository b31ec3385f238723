optimize --model deepseek-v3 --tp 1 --pp 16 --ep 64 --zero 1 --recompute full --order tp,dp,pp --cluster gb200-nvl72 --npus 1152 --cost-model data/validation/cost.yml
