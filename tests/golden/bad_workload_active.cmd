workload --model deepseek-v3 --network tests/fixtures/nvl72_256.yml --active 80,0 -o $T/w
