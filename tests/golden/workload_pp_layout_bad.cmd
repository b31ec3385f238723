workload --model deepseek-v3 --tp 2 --pp 8 --vp 4 --ep 64 --etp 1 --sp --pp-layout 'Et|(tt|)*30mL' --network data/gpt3/network_4d.yml -o "$T/l"
