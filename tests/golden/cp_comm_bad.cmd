optimize --model llama3-8b --cluster dgx-h100 --npus 16 --cost-model data/validation/cost.yml --cp 2 --cp-comm ring
