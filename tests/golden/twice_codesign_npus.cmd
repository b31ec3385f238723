codesign --model gpt3-175b --npus 4096 --npus 8 --blocks Ring --cost-model data/gpt3/cost_4d.yml
