optimize --network tests/golden/inputs/net3.yml --workload tests/golden/inputs/wl1.txt --communicator tests/golden/inputs/comm3.yml --cost-model tests/golden/inputs/cost3.yml --gap-tol 1e-320
