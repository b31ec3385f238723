optimize tests/golden/inputs/scenario_efficiency_tiny.yml
