optimize tests/golden/inputs/small.yml --constraint
