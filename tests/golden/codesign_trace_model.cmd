codesign --workload tests/golden/inputs/chakra_group/t --model bert-large --network tests/golden/inputs/chakra_sw4.yml --cost-model data/astra-sim/inputs/cost.yml
