optimize data/gpt3_4096npu_4d.yml --link-gbps 0,50,50,25 --max-links 2,0,0,0
