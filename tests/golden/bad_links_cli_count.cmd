optimize data/gpt3_4096npu_4d.yml --link-gbps 100,50,25
