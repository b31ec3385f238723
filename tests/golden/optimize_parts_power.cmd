optimize data/gpt3_4096npu_4d.yml --parts-per-dim nvlink5,nvlink4,nvlink4,ndr --objective cost-per-iteration --npu-usd 25000 --npu-power-w 700
