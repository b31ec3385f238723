optimize tests/golden/inputs/parts_scenario.yml
