optimize data/gpt3_4096npu_4d.yml --gap-tol 1e-300
