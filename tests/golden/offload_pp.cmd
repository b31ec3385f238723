optimize --model llama2-70b --device h100 --tp 1 --pp 2 --zero 3 --cluster dgx-h100 --npus 64 --cost-model data/validation/cost.yml --cpu-offloading-num-layers 20
