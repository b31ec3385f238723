optimize --network tests/golden/inputs/fabric_torus6.yml --model gpt3-175b --tp 6 --pp 16 --cost-model data/validation/cost.yml
