sweep tests/golden/inputs/sweep_bad_range.yml
