codesign --workload tests/golden/inputs/chakra_group/t --network tests/golden/inputs/chakra_sw4.yml --cost-model data/astra-sim/inputs/cost.yml
