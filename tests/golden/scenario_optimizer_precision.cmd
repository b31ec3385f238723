optimize tests/golden/inputs/scenario_optimizer_precision.yml --zoo data/zoo --json >"$T/sc.json"
