optimize --model gpt3-175b --tp 8 --pp 8 --tp 16 --network data/gpt3/network_4d.yml --cost-model data/gpt3/cost_4d.yml
