optimize data/gpt3_4096npu_4d.yml --parts-per-dim nvlink4,pcie5-x16
