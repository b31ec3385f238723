optimize tests/golden/inputs/scenario_rail_only.yml --zoo data/zoo
