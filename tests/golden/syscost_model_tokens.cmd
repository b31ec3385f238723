optimize --model gpt3-175b --tp 8 --pp 8 --recompute full --network data/validation/dgx_a100_1536.yml --cost-model tests/golden/inputs/syscost.yml --objective cost-per-iteration --train-tokens 3e11
