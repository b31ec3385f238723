optimize tests/golden/inputs/scenario_buckets.yml
