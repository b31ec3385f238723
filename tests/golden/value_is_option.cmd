optimize --model llama3-8b --tp --pp 2
