optimize --model gpt3-175b --tp 8 --pp 8 --recompute sometimes --network data/validation/dgx_a100_1536.yml --cost-model data/validation/cost.yml
