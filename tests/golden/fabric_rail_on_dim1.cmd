optimize --model gpt3-175b --tp 8 --pp 8 --cluster dgx-b200 --npus 1024 --fabric rail-only,- --cost-model data/validation/cost.yml
