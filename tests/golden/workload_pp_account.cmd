workload --model llama3-405b --tp 8 --pp 8 --vp 8 --zero 1 --sp --recompute --pp-account-embedding --pp-account-loss --network data/gpt3/network_4d.yml -o "$T/l" --json
