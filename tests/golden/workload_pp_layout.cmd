workload --model llama3-405b --tp 8 --pp 8 --vp 2 --zero 1 --sp --recompute --pp-layout 'Et*7|(t*8|)*14t*7L' --network data/gpt3/network_4d.yml -o "$T/l" --json
