optimize tests/fixtures/scenario_3d.yml --constraint 'sum = 1200' --json >"$T/r.json"
