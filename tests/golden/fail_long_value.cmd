optimize --model llama3-8b --cluster dgx-h100 --npus 16 --cost-model data/validation/cost.yml --recompute-modules "$(python3 -c 'print("x" + "\u00e9" * 3000)')"
