optimize --model llama3-8b --cluster dgx-h100 --npus 16 --tp 2
