codesign --model bert-large --npus 16 --network tests/golden/inputs/codesign_net_a.yml --network tests/golden/inputs/codesign_net_c.yml --cost-model tests/golden/inputs/codesign_cost2.yml
