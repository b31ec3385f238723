optimize --model gpt3-175b --tp 8 --pp 3 --recompute --cluster gb200-nvl72 --npus 1152 --cost-model data/validation/cost.yml --constraint 'B1 = 900' --constraint 'B2 = 50'
