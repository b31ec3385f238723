sweep tests/golden/inputs/sweep_all_invalid.yml --csv "$T/never.csv"
