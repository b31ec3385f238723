codesign --model bert-large --npus 1024 --blocks Ring,FullyConnected --cost-model tests/golden/inputs/codesign_cost2.yml
