workload --model llama3-405b --tp 8 --pp 16 --recompute --recompute-method blok --network data/gpt3/network_4d.yml -o "$T/l"
