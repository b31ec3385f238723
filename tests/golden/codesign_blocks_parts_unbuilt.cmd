codesign --model llama3-8b --device h100 --npus 256 --blocks Switch,Switch --parts-per-dim nvlink4,ndr --objective perf-per-cost --tp 8 --pp 1 --mb 1 --zero 1 --threads 1 --top 3
