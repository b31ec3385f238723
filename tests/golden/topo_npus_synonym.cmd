topo --model llama3-8b --npus 16
