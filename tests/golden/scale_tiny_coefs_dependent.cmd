optimize tests/golden/inputs/small.yml --constraint '1e-300*B1 + 1e-300*B2 + 1e-300*B3 = 1e-297' --json
