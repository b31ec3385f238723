optimize tests/golden/inputs/small.yml --loop tp_dp_overlap --objective perf_per_cost
