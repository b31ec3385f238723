optimize --model mixtral-8x7b --cluster dgx-h100 --npus 8 --cost-model data/validation/cost.yml --constraint 'B1 = 450' --tp 8 --sp --lora-rank 16
