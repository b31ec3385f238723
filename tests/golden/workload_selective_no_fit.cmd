workload --model llama3-405b --tp 8 --pp 16 --zero 1 --sp --recompute selective --attention-dropout 0.1 --hidden-dropout 0.1 --network data/gpt3/network_4d.yml -o "$T/s"
