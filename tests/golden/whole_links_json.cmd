optimize data/gpt3_4096npu_4d.yml --link-gbps 100,50,50,25 --max-links 8,18,8,8 --objective perf-per-cost --json
