codesign --model deepseek-v3 --ep 8 --ep-list 8,16 --npus 16 --blocks Switch --cost-model data/validation/cost.yml --cost-dims NVLink
