simulate --model llama2-70b --tp 8 --pp 2 --cluster gb200-nvl72 --npus 144 --active 64,0 --cost-model data/validation/cost.yml
