optimize --model qwen3-30b-a3b --cluster dgx-h100 --npus 16 --cost-model data/validation/cost.yml --ep 16 --moe-router-fusion yes
