codesign --model bert-large --npus 16 --blocks Ring,Switch --cost-model tests/golden/inputs/codesign_cost2.yml --constraint 'sum = 100' --csv /nonexistent-weft-dir/points.csv
