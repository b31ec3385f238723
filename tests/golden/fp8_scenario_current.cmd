optimize tests/golden/inputs/scenario_fp8_current.yml
