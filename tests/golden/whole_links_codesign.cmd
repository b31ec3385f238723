codesign --model gpt3-175b --npus 4096 --network tests/golden/inputs/net4_links.yml --cost-model data/gpt3/cost_4d.yml --constraint 'sum = 1000' --top 3
