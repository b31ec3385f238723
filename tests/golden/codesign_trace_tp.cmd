codesign --workload tests/golden/inputs/chakra_group/t --tp 2 --network tests/golden/inputs/chakra_sw4.yml --cost-model data/astra-sim/inputs/cost.yml
