optimize tests/golden/inputs/sys2x2_scenario.yml --json
