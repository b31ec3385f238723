codesign --model llama3-405b,llama3-405b --npus 16 --blocks Switch --cost-model data/validation/cost.yml --cost-dims NVLink
