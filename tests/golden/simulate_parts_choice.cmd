simulate data/gpt3_4096npu_4d.yml --parts-per-dim 'nvlink4|nvlink5,nvlink4,nvlink4|nvlink5,ndr|xdr' --objective perf-per-cost
