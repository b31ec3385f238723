optimize --model llama3-8b --network data/gpt3/network_4d.yml --cost-model data/gpt3/cost_4d.yml --constraint 'sum = 1000' --tp 8 --pp 4 --hidden-dropout 1e-320
