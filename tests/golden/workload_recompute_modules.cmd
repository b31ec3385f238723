workload --model llama3-405b --tp 8 --pp 16 --sp --zero 1 --recompute selective --recompute-modules core_attn,mlp,layernorm --network data/gpt3/network_4d.yml -o "$T/l" --json
