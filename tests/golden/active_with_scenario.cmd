optimize tests/fixtures/scenario_multi.yml --active 4,0
