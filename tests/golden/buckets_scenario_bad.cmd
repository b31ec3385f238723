optimize tests/golden/inputs/scenario_buckets_bad.yml
