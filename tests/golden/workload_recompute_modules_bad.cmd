workload --model llama3-405b --tp 8 --pp 16 --recompute selective --recompute-modules mlpx --network data/gpt3/network_4d.yml -o "$T/l"
