codesign --model gpt3-175b --npus 16 --blocks Ring,Switch --cost-model tests/golden/inputs/codesign_cost2.yml --constraint 'sum = 100' --csv "$T/never.csv"
