optimize tests/golden/inputs/scenario_fp8_a100.yml
