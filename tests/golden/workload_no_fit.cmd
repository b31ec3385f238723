workload --model gpt3-175b --tp 16 --network data/gpt3/network_4d.yml -o "$T/g"
