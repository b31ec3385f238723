codesign --model bert-large --npus 16 --blocks Ring,Switch --cost-model tests/golden/inputs/cost3.yml
