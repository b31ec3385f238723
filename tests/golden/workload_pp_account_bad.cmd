workload --model llama3-405b --tp 8 --pp 16 --vp 8 --pp-account-embedding --network data/gpt3/network_4d.yml -o "$T/l"
