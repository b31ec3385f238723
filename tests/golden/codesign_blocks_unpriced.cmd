codesign --model llama3-8b --npus 64 --blocks Switch,Switch --parts-per-dim nvlink4,- --tp 8 --pp 1 --mb 1
