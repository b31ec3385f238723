optimize --model llama3-8b --cluster dgx-h100 --npus 8 --attention fa2 --zero 3 --loop tp-dp-overlap --constraint "B1 = 450" --cost-model data/validation/cost.yml
