workload --model llama3-8b --cluster dgx-h100 --npus 64 --tp 8 -o "$T/"
