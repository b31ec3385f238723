optimize --network tests/golden/inputs/chakra_sw4.yml --workload tests/golden/inputs/chakra_mem --communicator tests/golden/inputs/comm3.yml --cost-model data/astra-sim/inputs/cost.yml
