validate --model gpt3-175b --tp 8 --pp 8 --recompute --cluster dgx-a100 --npus 1024 --cost-model data/validation/cost.yml --json
