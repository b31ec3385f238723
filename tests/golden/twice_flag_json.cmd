optimize tests/golden/inputs/small.yml --json --json --constraint 'B1 >= 1' --constraint 'B2 >= 1'
