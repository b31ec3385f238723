sweep tests/golden/inputs/sweep_bad_key.yml
