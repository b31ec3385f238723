sweep tests/golden/inputs/sweep_mixed.yml --json | tee "$T/out.json"
