workload --model gpt3-175b --tp 0x8 --pp 8 --network data/gpt3/network_4d.yml -o "$T/w"
