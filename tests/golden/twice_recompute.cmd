workload --model gpt3-175b --tp 8 --pp 8 --recompute --recompute --network data/gpt3/network_4d.yml -o "$T/w"
