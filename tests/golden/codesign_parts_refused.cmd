codesign --network tests/golden/inputs/parts_net4.yml --model gpt3-175b --cost-model data/gpt3/cost_4d.yml --npus 4096 --constraint 'sum = 1000'
