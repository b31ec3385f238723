zoo qwen3-30b-a3b --json --zoo data/zoo
