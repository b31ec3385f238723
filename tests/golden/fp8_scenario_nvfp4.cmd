optimize tests/golden/inputs/scenario_fp8_nvfp4.yml
