workload --model tests/golden/inputs/zoo_huge_layers.yml --network tests/golden/inputs/net3.yml -o "$T/w"
