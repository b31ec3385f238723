codesign --model bert-large --npus 16 --blocks Ring,Switch --cost-model tests/golden/inputs/codesign_cost2.yml --efficiency 1e-7
