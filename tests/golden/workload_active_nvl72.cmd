workload --model deepseek-v3 --network tests/fixtures/nvl72_256.yml --ep 64 --pp 16 --zero 1 --recompute full --order tp,dp,pp --active 64,0 -o $T/w --json
