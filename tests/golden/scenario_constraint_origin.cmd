optimize tests/fixtures/scenario_3d.yml --constraint 'B3 >= 100' --constraint '2*sum <= 2400'
