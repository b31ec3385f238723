codesign --model bert-large --npus 16 --blocks Ring,Switch --cost-model tests/golden/inputs/codesign_cost2.yml --network tests/golden/inputs/codesign_net_a.yml
