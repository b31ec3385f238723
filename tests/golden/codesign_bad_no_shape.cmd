codesign --model bert-large --npus 7 --blocks Ring,Switch --cost-model tests/golden/inputs/codesign_cost2.yml
