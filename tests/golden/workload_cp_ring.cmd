workload --model llama3-405b --device h100 --tp 8 --cp 16 --pp 16 --vp 8 --sp --zero 2 --grad-bytes 4 --attention flash --network data/gpt3/network_4d.yml -o "$T/w" >"$T/summary"
