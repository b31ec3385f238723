optimize data/gpt3_4096npu_4d.yml --parts-per-dim nvlink5,nvlink4,nvlink4,ndr --max-links 8,18,30,4
