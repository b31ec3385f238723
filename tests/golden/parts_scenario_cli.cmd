optimize tests/golden/inputs/parts_scenario.yml --parts tests/golden/inputs/parts_nic1200.yml --json
