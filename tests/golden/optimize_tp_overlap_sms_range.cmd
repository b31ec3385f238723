optimize --model llama2-70b --cluster dgx-h100 --npus 64 --tp 8 --pp 4 --sp --tp-comm-overlap on --cost-model data/validation/cost.yml --tp-overlap-sms proj_fprop=24,fc2_fprop=132
