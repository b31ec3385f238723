workload --model gpt3-175b --cluster dgx-a100 --npus 64 --tp 8 --schedule dualpipe -o "$T/x"
