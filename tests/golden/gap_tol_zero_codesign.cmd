codesign --model gpt3-175b --npus 64 --blocks Ring,Switch --cost-model data/gpt3/cost_4d.yml --gap-tol 0
