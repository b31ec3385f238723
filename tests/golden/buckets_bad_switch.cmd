optimize --model llama2-70b --cluster dgx-h100 --npus 128 --tp 8 --pp 4 --cost-model data/validation/cost.yml --overlap-param-gather yes
