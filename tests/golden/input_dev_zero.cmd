optimize --workload /dev/zero --network tests/golden/inputs/net3.yml --communicator tests/golden/inputs/comm3.yml --cost-model tests/golden/inputs/cost3.yml --export-astra "$T/astra.yml"
