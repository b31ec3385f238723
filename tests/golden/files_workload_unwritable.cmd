workload --model gpt3-175b --tp 8 --pp 8 --zero 1 --network data/gpt3/network_4d.yml -o /nonexistent-weft-dir/P
