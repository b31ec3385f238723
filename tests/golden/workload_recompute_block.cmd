workload --model llama3-405b --tp 8 --pp 16 --sp --zero 1 --attention flash --recompute --recompute-method block --recompute-num-layers 3 --network data/gpt3/network_4d.yml -o "$T/l" --json
