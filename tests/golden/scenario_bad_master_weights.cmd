optimize tests/golden/inputs/bad_scenario_master.yml --zoo data/zoo
