workload --model qwen3-30b-a3b --cluster dgx-h100 --npus 16 --tp 2 --ep 16 --sp --zoo data/zoo -o "$T/w"
