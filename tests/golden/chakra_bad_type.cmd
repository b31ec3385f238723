simulate --network tests/golden/inputs/chakra_sw4.yml --workload tests/golden/inputs/chakra_mem --cost-model data/astra-sim/inputs/cost.yml
