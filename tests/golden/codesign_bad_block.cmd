codesign --model bert-large --npus 16 --blocks Ring,Torus --cost-model tests/golden/inputs/codesign_cost2.yml
