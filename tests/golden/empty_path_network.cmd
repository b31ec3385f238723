optimize --network '' --workload tests/golden/inputs/wl1.txt --communicator tests/golden/inputs/comm3.yml --cost-model tests/golden/inputs/cost3.yml
