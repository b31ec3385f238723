optimize tests/golden/inputs/small.yml --json --constraint 'B1 >= 600' --constraint 'B2 >= 500' --export-astra "$T/astra.yml"
