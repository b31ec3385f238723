sweep tests/golden/inputs/sweep_bad_empty.yml
