optimize --model llama2-70b --device mi300x --tp 1 --pp 1 --zero 3 --attention flash --mb 1 --cluster dgx-h100 --npus 64 --cost-model data/validation/cost.yml --cpu-offloading-num-layers 60
