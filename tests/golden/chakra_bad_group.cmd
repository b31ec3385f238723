optimize --network tests/golden/inputs/chakra_sw4.yml --workload tests/golden/inputs/chakra_group/t --cost-model data/astra-sim/inputs/cost.yml
