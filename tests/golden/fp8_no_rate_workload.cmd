workload --model gpt3-175b --tp 8 --pp 8 --fp8 --network data/gpt3/network_4d.yml -o "$T/w"
